import Foundation

extension ModelLibrary {
    /// What can go wrong while naming, finding, downloading, importing or deleting models.
    ///
    /// Each case names the model, URL or path at fault; `errorDescription` says it in one line.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// No model was given and no default model is installed; `searched` lists where it looked.
        case noDefaultModel(searched: [String])
        /// A model reference (URL, `hf:` path, `org/repo:QUANT`, file name) that cannot be used.
        case invalidReference(String, reason: String)
        /// A display name for a model that cannot be used: a reserved word, a selection prefix, a
        /// path, or a catalog id given to another file; the reason says which.
        case invalidName(reason: String)
        /// A display name that another model of the library already has, as its id or as a name
        /// a user gave it; `modelID` is that model's id.
        case nameTaken(String, modelID: String)
        /// A name that finds several models at the same rank of the lookup order (see
        /// ``ModelLibrary/entry(named:)``); their ids, which find each one alone.
        case ambiguousName(String, ids: [String])
        /// A download from `url` failed.
        case downloadFailed(url: String, reason: String)
        /// A downloaded or imported file's SHA-256 is not the one expected.
        case checksumMismatch(url: String, expected: String, actual: String)
        /// A SHA-256 was given for the split model at `url` (`NAME-00001-of-0000N.gguf`): it
        /// has one file per part, so one digest cannot verify it. Each part is checked against
        /// the size its server announces and its split metadata instead.
        case checksumForSplitModel(url: String)
        /// Not enough free disk space at `path`.
        case insufficientDiskSpace(path: String, needed: Int64, available: Int64)
        /// No model in the library has this id or name.
        case modelNotFound(String)
        /// A ``ModelCatalog`` id whose model is neither in the library nor installed by scripts/bootstrap.
        case notDownloaded(catalogID: String)
        /// The model belongs to another program's cache (Hugging Face, Ollama) and is never changed.
        case readOnlyModel(String)
        /// The library's folder at `path` could not be read or written.
        case storageFailed(path: String, reason: String)
    }
}

extension ModelLibrary.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .noDefaultModel(let searched):
            return "no model given and no default model installed (looked at \(searched.joined(separator: ", ")))"
        case .invalidReference(let reference, let reason):
            return "invalid model reference \(reference): \(reason)"
        case .invalidName(let reason):
            return "invalid model name: \(reason)"
        case .nameTaken(let name, let modelID):
            return "the name \(name) is taken by the model \(modelID); rename that one or choose another name"
        case .ambiguousName(let name, let ids):
            return "\(name) names several models (\(ids.joined(separator: ", "))); use one of their ids"
        case .downloadFailed(let url, let reason):
            return "download of \(url) failed: \(reason)"
        case .checksumMismatch(let url, let expected, let actual):
            return "\(url) has SHA-256 \(actual), expected \(expected); the file was deleted"
        case .checksumForSplitModel(let url):
            return "\(url) is the first part of a split model, which has one file per part, so one SHA-256 cannot verify it; "
                + "each part is checked against its size and split metadata instead"
        case .insufficientDiskSpace(let path, let needed, let available):
            return "not enough disk space at \(path): \(needed) bytes needed, \(available) available"
        case .modelNotFound(let id):
            return "no model \(id) in the library"
        case .notDownloaded(let id):
            return "\(id) is in the catalog but not downloaded"
        case .readOnlyModel(let id):
            return "\(id) belongs to another program's model cache and is never changed or deleted"
        case .storageFailed(let path, let reason):
            return "model library \(path): \(reason)"
        }
    }
}
