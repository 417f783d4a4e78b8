import Foundation

extension ModelLibrary {
    /// The prefixes that mark a selection string (``ModelLibrary/Selection``), never a name.
    static let selectionPrefixes = ["library:", "file:", "hf-cache:", "ollama:"]

    /// Why `name` can never be a model's display name, whatever the library holds: `default`
    /// (in any case) is the bootstrap's model, a selection prefix marks a selection, and `/`,
    /// `\` or a `.gguf` ending would read as a file path. Nil when it is none of these; a
    /// leading dot is fine.
    static func reservedNameProblem(_ name: String) -> String? {
        let lowered = name.lowercased()
        if lowered == "default" {
            return "default names the model that scripts/bootstrap installed"
        }
        if let prefix = selectionPrefixes.first(where: { lowered.hasPrefix($0) }) {
            return "a model name cannot start with \(prefix), which marks a selection"
        }
        if name.contains("/") || name.contains("\\") || lowered.hasSuffix(".gguf") {
            return "a model name cannot contain / or \\ or end in .gguf, which would read as a file path"
        }
        return nil
    }

    /// The catalog entry whose id is `name`, ignoring case.
    static func catalogEntry(named name: String) -> ModelCatalog.Entry? {
        let lowered = name.lowercased()
        return ModelCatalog.all.first { $0.id.lowercased() == lowered }
    }

    /// Why the model with SHA-256 `sha256` (nil: not known yet) cannot take the display name
    /// `name` in a library holding `models`; nil when it can. Besides
    /// ``reservedNameProblem(_:)``: a catalog id (in any case) belongs to that catalog model's
    /// file alone, and another model's id, or a name a user gave it, stays its own.
    /// - Parameters:
    ///   - excluding: the id of the model being renamed, whose own names do not count.
    static func nameProblem(_ name: String, sha256: String?, among models: [ModelLibrary.Record],
                            excluding excluded: String? = nil) -> ModelLibrary.Error? {
        if let reason = reservedNameProblem(name) { return .invalidName(reason: reason) }
        if let entry = catalogEntry(named: name), sha256 != entry.sha256 {
            return .invalidName(reason: "\(entry.id) is the catalog id of \(entry.displayName), which only that model's file "
                                + "(SHA-256 \(entry.sha256.prefix(8))…) may take")
        }
        if let other = models.first(where: { $0.id != excluded && ($0.id == name || $0.isNameGiven && $0.name == name) }) {
            return .nameTaken(name, modelID: other.id)
        }
        return nil
    }

    /// The display name of a new model that no user named: the first of `candidates` that
    /// ``nameProblem(_:sha256:among:excluding:)`` allows, else the first one that is not
    /// reserved followed by the start of the SHA-256, as in `gemma-3-270m (b179c952)`.
    static func availableName(_ candidates: [String], sha256: String, among models: [ModelLibrary.Record]) -> String {
        if let name = candidates.first(where: { nameProblem($0, sha256: sha256, among: models) == nil }) { return name }
        let base = candidates.first { reservedNameProblem($0) == nil } ?? "model"
        return "\(base) (\(sha256.prefix(8)))"
    }
}
