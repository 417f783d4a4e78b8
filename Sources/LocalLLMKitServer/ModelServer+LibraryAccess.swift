import Foundation
import LocalLLMKit

extension ModelServer {
    /// A model library that a server serves from besides its fixed models, as Ollama's server
    /// serves its store: a request may name any model the library finds, which is loaded on
    /// demand; `/v1/models` and `/api/tags` list them; and, when ``allowsChanges``, Ollama's
    /// `/api/pull`, `/api/copy` and `/api/delete` change it.
    public struct LibraryAccess: Sendable {
        /// The library.
        public var library: ModelLibrary
        /// How its models are loaded.
        public var configuration: LocalModel.Configuration
        /// Whether clients may download models into it, copy and delete them. A client that can
        /// reach the server (and holds its API key, when it has one) can then fill the disk and
        /// make the server fetch URLs of its choosing.
        public var allowsChanges: Bool

        /// Access to `library`, whose models load with `configuration`.
        public init(library: ModelLibrary, configuration: LocalModel.Configuration = .init(), allowsChanges: Bool = true) {
            self.library = library
            self.configuration = configuration
            self.allowsChanges = allowsChanges
        }
    }

    /// Brings the library's models up to date with the library: new ones are read (their
    /// headers, off Swift's shared pool), gone ones dropped, and each is served under its name
    /// where that name finds it alone, else under its id; the bootstrap's models under their
    /// catalog ids (`gemma-3-270m`), which are shorter to type. A file that cannot be read is left out.
    @discardableResult
    func refreshLibraryModels() async -> [ServedEntry] {
        guard let library, let residency else { return [] }
        let found = ((try? await library.library.entries()) ?? []).filter { entry in
            !fixedModels.contains { $0.source.map(Self.canonicalPath) == Self.canonicalPath(entry.url) }
        }
        let fixedIDs = Set(fixedModels.map(\.id))
        func servedName(_ entry: ModelLibrary.Entry) -> String {
            let unique = found.filter { $0.name == entry.name }.count == 1 && !found.contains { $0.id == entry.name }
            return unique && entry.source != .bootstrap && entry.name != "default" && !fixedIDs.contains(entry.name) ? entry.name : entry.id
        }
        let known = libraryModels.withLock { $0 }
        var current: [String: ServedEntry] = [:]
        for entry in found {
            let name = servedName(entry)
            if let held = known[entry.id], held.id == name, held.source?.url == entry.url {
                current[entry.id] = held
                continue
            }
            // A library model loads with the adapters it carries, not those of `--model`'s models.
            var configuration = library.configuration
            configuration.weights.adapters = entry.adapters
            let source = Source(url: entry.url, configuration: configuration)
            current[entry.id] = try? await BlockingWorkPool.shared.run { try ServedEntry(id: name, source: source, residency: residency) }
        }
        libraryModels.withLock { $0 = current }
        return current.values.sorted { $0.id < $1.id }
    }

    /// The library model that `requested` names: by the name it is served under, by what the
    /// library finds for it (``ModelLibrary/entry(named:)``), or by the reference it was pulled
    /// from; `:latest` may follow any of these. Nil when nothing is found.
    func libraryModel(named requested: String) async throws(APIError) -> ServedEntry? {
        guard let access = library else { return nil }
        let names = requested.hasSuffix(":latest") ? [requested, String(requested.dropLast(":latest".count))] : [requested]
        func served(_ id: String?) -> ServedEntry? {
            libraryModels.withLock { held in id.flatMap { held[$0] } ?? held.values.first { names.contains($0.id) } }
        }
        if let hit = served(nil) { return hit }
        var entryID: String?
        for name in names where entryID == nil {
            do {
                if let entry = try await access.library.entry(named: name) {
                    // `default`, say: the file of a model the server was started with.
                    if let fixed = fixedModels.first(where: { $0.source.map(Self.canonicalPath) == Self.canonicalPath(entry.url) }) {
                        return fixed
                    }
                    entryID = entry.id
                } else {
                    entryID = try await pulledModelID(reference: name)
                }
            } catch {
                throw APIError(error)
            }
        }
        guard let entryID else { return nil }
        if let hit = served(entryID) { return hit }
        await refreshLibraryModels()
        return served(entryID)
    }

    /// The id of the library model downloaded from the URL that `reference` (as `/api/pull`
    /// takes it) resolves to.
    private func pulledModelID(reference: String) async throws -> String? {
        guard let access = library, let request = try? ModelLibrary.DownloadRequest(reference: Self.downloadReference(reference)) else {
            return nil
        }
        let urls = Set(request.urls.map(\.absoluteString))
        return try await access.library.models().first { !urls.isDisjoint(with: $0.sourceURLs) }?.id
    }

    /// What `/api/pull` downloads for a model name: Ollama's `hf.co/ORG/REPO:QUANT` (and
    /// `huggingface.co/…`) is our `ORG/REPO:QUANT`; a catalog id may carry `:latest`.
    static func downloadReference(_ name: String) -> String {
        for prefix in ["hf.co/", "huggingface.co/"] where name.hasPrefix(prefix) { return String(name.dropFirst(prefix.count)) }
        if name.hasSuffix(":latest"), ModelCatalog.entry(String(name.dropLast(7))) != nil { return String(name.dropLast(7)) }
        return name
    }

    private static func canonicalPath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func canonicalPath(_ source: Source) -> String { canonicalPath(source.url) }
}
