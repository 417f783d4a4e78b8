import Foundation

extension ModelLibrary {
    /// A model the library can load: one it manages, or one found in another program's cache.
    public struct Entry: Sendable, Equatable, Identifiable {
        /// Where it lives.
        public enum Source: String, Sendable, Equatable, Codable {
            /// Managed by the library.
            case library
            /// Found in the Hugging Face hub cache.
            case huggingFace = "hugging_face"
            /// Found in Ollama's model store.
            case ollama
            /// The default model that scripts/bootstrap installed (id `default`).
            case bootstrap
        }

        /// The library id, or the cache reference (`hf-cache:org/repo@rev/file.gguf`, `ollama:name:tag`).
        public var id: String
        /// A display name.
        public var name: String
        /// The GGUF file.
        public var url: URL
        /// Its size in bytes.
        public var bytes: Int64
        /// Its SHA-256 when known (library models, Ollama blobs).
        public var sha256: String?
        /// Where it lives.
        public var source: Source
        /// The LoRA adapters that load with it (a library model's, see ``ModelLibrary/Record/adapters``).
        public var adapters: [LocalModel.Configuration.Adapter] = []
        /// Whether it belongs to another program: listed and loadable, never changed or deleted.
        public var isReadOnly: Bool { source != .library }
        /// A string that finds this model again later (see ``ModelLibrary/Selection``).
        public var selection: ModelLibrary.Selection { ModelLibrary.Selection(source == .library ? "library:\(id)" : id) }

        /// The entry of a managed model whose file is at `url`.
        public init(record: ModelLibrary.Record, url: URL) {
            self.init(id: record.id, name: record.name, url: url, bytes: record.bytes, sha256: record.sha256, source: .library)
            let folder = url.deletingLastPathComponent()
            adapters = (record.adapters ?? []).map { .init(url: folder.appending(path: $0.fileName), scale: $0.scale) }
        }

        init(id: String, name: String, url: URL, bytes: Int64, sha256: String?, source: Source) {
            self.id = id
            self.name = name
            self.url = url
            self.bytes = bytes
            self.sha256 = sha256
            self.source = source
        }
    }
}

extension ModelLibrary {
    /// Every model: the managed ones, the bootstrap's default model and the other catalog models
    /// it installed, then those of the Hugging Face and Ollama caches.
    public func entries() throws -> [ModelLibrary.Entry] {
        try models().map { ModelLibrary.Entry(record: $0, url: url(of: $0)) } + discovered()
    }

    /// The read-only models found outside the library: the bootstrap's default model and the
    /// other catalog models it installed (``bootstrapEntries()``), the GGUF models of the Hugging
    /// Face hub cache, and those of Ollama's store.
    public func discovered() -> [ModelLibrary.Entry] {
        [defaultEntry()].compactMap { $0 } + bootstrapEntries() + HuggingFaceCache(environment: environment).models()
            + OllamaStore(environment: environment).models()
    }

    /// The catalog models that scripts/bootstrap installed beside the default model (Gemma 3 270M,
    /// the Qwen2.5-Coder models, all-MiniLM-L6-v2), each with its catalog id as id, in the
    /// catalog's order; only those whose file is there. The default model's own file is listed
    /// once, as `default`, and a model the library manages is listed as the library's.
    func bootstrapEntries() -> [ModelLibrary.Entry] {
        let defaultFile = defaultEntry()?.url.resolvingSymlinksInPath().path
        return ModelCatalog.all.compactMap { catalogEntry in
            guard let found = try? installed(catalogEntry), found.source == .bootstrap,
                  found.url.resolvingSymlinksInPath().path != defaultFile else { return nil }
            return found
        }
    }

    /// The model that scripts/bootstrap installed as the default, listed as `default`
    /// (`$LLMKIT_MODEL` names a file for one process; it is not a model of the machine). Its
    /// name is its catalog id when it is a catalog model's file (`smollm2-135m-instruct`), else
    /// the file's name.
    func defaultEntry() -> ModelLibrary.Entry? {
        var environment = environment
        environment["LLMKIT_MODEL"] = nil
        guard let url = try? LocalModel.defaultModelURL(environment: environment),
              LibraryFiles.kind(at: url) == .file else { return nil }
        let bytes = LibraryFiles.size(of: url)
        let catalogEntry = ModelCatalog.all.first { $0.file == url.lastPathComponent && $0.bytes == bytes }
        return ModelLibrary.Entry(id: "default", name: catalogEntry?.id ?? url.deletingPathExtension().lastPathComponent, url: url,
                                  bytes: bytes, sha256: catalogEntry?.sha256, source: .bootstrap)
    }
}

/// The Hugging Face hub cache: `models--org--name/snapshots/<revision>/…/*.gguf`.
struct HuggingFaceCache {
    let root: URL

    init(environment: [String: String]) {
        if let cache = environment["HF_HUB_CACHE"], !cache.isEmpty {
            root = URL(filePath: cache)
        } else if let home = environment["HF_HOME"], !home.isEmpty {
            root = URL(filePath: home).appending(path: "hub")
        } else {
            root = URL(filePath: environment["HOME"] ?? NSHomeDirectory()).appending(path: ".cache/huggingface/hub")
        }
    }

    func models() -> [ModelLibrary.Entry] {
        let manager = FileManager.default
        guard let repositories = try? manager.contentsOfDirectory(atPath: root.path) else { return [] }
        var entries: [ModelLibrary.Entry] = []
        for folder in repositories.sorted() where folder.hasPrefix("models--") {
            let repository = folder.dropFirst("models--".count).replacingOccurrences(of: "--", with: "/")
            let snapshots = root.appending(path: folder).appending(path: "snapshots")
            for revision in ((try? manager.contentsOfDirectory(atPath: snapshots.path)) ?? []).sorted() {
                let base = snapshots.appending(path: revision)
                guard let walker = manager.enumerator(atPath: base.path) else { continue }
                for case let relative as String in walker where relative.hasSuffix(".gguf") {
                    let file = base.appending(path: relative)
                    let resolved = file.resolvingSymlinksInPath()
                    guard let size = (try? manager.attributesOfItem(atPath: resolved.path))?[.size] as? NSNumber else { continue }
                    entries.append(ModelLibrary.Entry(id: "hf-cache:\(repository)@\(revision)/\(relative)",
                                                name: "\(repository)/\(relative)", url: file, bytes: size.int64Value,
                                                sha256: nil, source: .huggingFace))
                }
            }
        }
        return entries
    }

    /// The file of a `hf-cache:org/repo@rev/path` reference.
    func file(for reference: String) -> URL? {
        guard reference.hasPrefix("hf-cache:"), let at = reference.firstIndex(of: "@") else { return nil }
        let repository = reference[reference.index(reference.startIndex, offsetBy: 9)..<at]
        let rest = reference[reference.index(after: at)...]
        guard let slash = rest.firstIndex(of: "/"), !rest.contains("..") else { return nil }
        return root.appending(path: "models--" + repository.replacingOccurrences(of: "/", with: "--"))
            .appending(path: "snapshots").appending(path: String(rest[..<slash])).appending(path: String(rest[rest.index(after: slash)...]))
    }
}

/// Ollama's store: `manifests/<registry>/<namespace>/<name>/<tag>` point to GGUF blobs.
struct OllamaStore {
    let root: URL

    init(environment: [String: String]) {
        if let models = environment["OLLAMA_MODELS"], !models.isEmpty {
            root = URL(filePath: models)
        } else {
            root = URL(filePath: environment["HOME"] ?? NSHomeDirectory()).appending(path: ".ollama/models")
        }
    }

    private struct Manifest: Decodable {
        struct Layer: Decodable {
            let mediaType: String
            let digest: String
        }
        let layers: [Layer]
    }

    func models() -> [ModelLibrary.Entry] {
        let manifests = root.appending(path: "manifests")
        guard let walker = FileManager.default.enumerator(atPath: manifests.path) else { return [] }
        var entries: [ModelLibrary.Entry] = []
        for case let relative as String in walker {
            let parts = relative.split(separator: "/")
            guard parts.count == 4, let entry = entry(registry: parts[0], namespace: parts[1], name: parts[2], tag: parts[3]) else {
                continue
            }
            entries.append(entry)
        }
        return entries.sorted { $0.id < $1.id }
    }

    private func entry(registry: Substring, namespace: Substring, name: Substring, tag: Substring) -> ModelLibrary.Entry? {
        let manifest = root.appending(path: "manifests/\(registry)/\(namespace)/\(name)/\(tag)")
        guard let data = try? Data(contentsOf: manifest),
              let parsed = try? JSONDecoder().decode(Manifest.self, from: data),
              let layer = parsed.layers.first(where: { $0.mediaType == "application/vnd.ollama.image.model" }),
              layer.digest.hasPrefix("sha256:") else { return nil }
        let hex = String(layer.digest.dropFirst(7))
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        let blob = root.appending(path: "blobs/sha256-\(hex)")
        guard let size = (try? FileManager.default.attributesOfItem(atPath: blob.path))?[.size] as? NSNumber else { return nil }
        let model = namespace == "library" ? "\(name)" : "\(namespace)/\(name)"
        return ModelLibrary.Entry(id: "ollama:\(model):\(tag)", name: "\(model):\(tag)", url: blob, bytes: size.int64Value,
                            sha256: hex, source: .ollama)
    }
}
