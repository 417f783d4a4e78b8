import Foundation

extension ModelLibrary {
    /// What to download: mirrors, and what the file must be.
    public struct DownloadRequest: Sendable, Equatable {
        /// URLs of the same file, tried in order, without the user names and passwords they were
        /// given with (those are kept apart, for their own hosts only; see ``init(urls:sha256:bytes:fileName:name:)``).
        public let urls: [URL]
        /// The expected SHA-256; the file is deleted when it differs. Always nil for a split
        /// model (``split``): one digest cannot verify several files.
        public let sha256: String?
        /// The expected size in bytes.
        public let bytes: Int64?
        /// The file's name in the library.
        public let fileName: String
        /// A display name: the one given, else the catalog's name of the model.
        public var name: String? { givenName ?? suggestedName }
        /// The display name the caller gave, which the model must take (or the download fails).
        let givenName: String?
        /// A display name from the catalog, which the model takes unless another model or the
        /// catalog holds it.
        let suggestedName: String?
        /// The user names and passwords taken out of ``urls``, one per origin.
        let credentials: [DownloadCredential]
        /// The projector fetched with the model, into its folder (a vision model's mmproj file,
        /// which an `org/repo:QUANT` reference finds in the repository's listing).
        public var projector: Projector?

        /// The credential for `url`'s origin, if one of the URLs gave one.
        func credential(for url: URL) -> DownloadCredential? {
            DownloadCredential.Origin(url).flatMap { origin in credentials.first { $0.origin == origin } }
        }

        /// The parts' names when ``fileName`` is the first part of a model split by llama.cpp's
        /// `gguf-split` (`NAME-00001-of-00003.gguf`): the download then fetches every part, from
        /// URLs named the same way, into the model's one folder.
        public var split: GGUFFile.SplitName? {
            GGUFFile.SplitName(fileName).flatMap { $0.count > 1 ? $0 : nil }
        }

        /// The URLs of part `part` (from 1) of a split model: each URL's last component with
        /// its part number replaced.
        func urls(ofPart part: Int) -> [URL] {
            urls.map { url in
                guard let name = GGUFFile.SplitName(url.lastPathComponent) else { return url }
                return url.deletingLastPathComponent().appending(path: name.fileName(part: part))
            }
        }

        /// Creates a request.
        ///
        /// A URL whose file name is the first part of a split model (`NAME-00001-of-00003.gguf`)
        /// asks for every part (``split``); naming another part is refused.
        ///
        /// A user name and password in a URL (`https://user:password@host/…`) are taken out of it:
        /// ``urls``, the library's records, its partial downloads and every message hold the URL
        /// without them. They are sent as HTTP Basic authentication to that URL's origin (scheme,
        /// host and port) only, and never after a redirect to another one.
        /// - Parameters:
        ///   - fileName: the name in the library (default: the URL's last component, with leading
        ///     dots and unusable characters removed).
        ///   - name: a display name, which finds the model before catalog ids do (see
        ///     ``ModelLibrary/entry(named:)``); trimmed, and refused when empty, over 200
        ///     characters, holding control characters, `default`, a selection prefix, a path, or
        ///     a catalog id unless `sha256` is that catalog model's. Another model's id or given
        ///     name is refused before anything is downloaded.
        /// - Throws: ``ModelLibrary/Error/invalidReference(_:reason:)`` for a bad URL or file name, or
        ///   URLs of one host with different user names or passwords,
        ///   ``ModelLibrary/Error/invalidName(reason:)`` for a bad name,
        ///   ``ModelLibrary/Error/checksumForSplitModel(url:)`` for a `sha256` with a split model.
        public init(urls: [URL], sha256: String? = nil, bytes: Int64? = nil, fileName: String? = nil, name: String? = nil) throws {
            try self.init(urls: urls, sha256: sha256, bytes: bytes, fileName: fileName, name: name, suggestedName: nil)
        }

        /// Creates a request whose model, when no `name` is given, is named `suggestedName` (a
        /// catalog model's display name) if no other model or catalog id holds that name.
        init(urls: [URL], sha256: String?, bytes: Int64?, fileName: String?, name: String?, suggestedName: String?) throws {
            guard !urls.isEmpty else { throw ModelLibrary.Error.invalidReference("", reason: "no URL to download from") }
            var stripped: [URL] = [], credentials: [DownloadCredential] = []
            for url in urls {
                guard let (bare, credential) = DownloadCredential.split(url) else {
                    throw ModelLibrary.Error.invalidReference(DownloadCredential.redacted(url.absoluteString), reason: "not a URL that can be downloaded")
                }
                guard let scheme = bare.scheme?.lowercased(), scheme == "https" || scheme == "http", bare.host != nil else {
                    throw ModelLibrary.Error.invalidReference(bare.absoluteString, reason: "only http and https URLs can be downloaded")
                }
                if bare.path.split(separator: "/").contains("..") {
                    throw ModelLibrary.Error.invalidReference(bare.absoluteString, reason: "`..` is not allowed in a path")
                }
                if let credential {
                    if let other = credentials.first(where: { $0.origin == credential.origin }), other != credential {
                        throw ModelLibrary.Error.invalidReference(bare.absoluteString,
                                                                  reason: "another URL of \(credential.origin) gives another user name or password")
                    }
                    credentials.append(credential)
                }
                stripped.append(bare)
            }
            if let sha256, !(sha256.count == 64 && sha256.allSatisfy(\.isHexDigit)) {
                throw ModelLibrary.Error.invalidReference(sha256, reason: "a SHA-256 has 64 hexadecimal digits")
            }
            self.urls = stripped
            self.credentials = credentials
            self.sha256 = sha256?.lowercased()
            self.bytes = bytes
            // A name given explicitly must be right; one taken from the URL is made right.
            self.fileName = try fileName.map(ModelLibrary.safeFileName) ?? ModelLibrary.storedFileName(stripped[0].lastPathComponent)
            self.givenName = try name.map(ModelLibrary.Record.validatedName)
            self.suggestedName = suggestedName
            if let givenName, let problem = ModelLibrary.nameProblem(givenName, sha256: self.sha256, among: []) { throw problem }
            try checkSplit(sha256: sha256)
        }

        /// Refuses a URL that names a part other than the first, mirrors that name different
        /// parts or counts, a stored name that lost the part suffix, and a SHA-256 for a split model.
        private func checkSplit(sha256: String?) throws {
            let names = urls.map { GGUFFile.SplitName($0.lastPathComponent) }
            for (url, name) in zip(urls, names) {
                if let name, name.part != 1, name.count > 1 {
                    throw ModelLibrary.Error.invalidReference(
                        url.absoluteString,
                        reason: "it is part \(name.part) of \(name.count) of a split model; pull its first part, \(name.fileName(part: 1)), which brings every part")
                }
            }
            guard let first = names[0], first.count > 1 else { return }
            for (url, name) in zip(urls, names) where name?.count != first.count {
                throw ModelLibrary.Error.invalidReference(
                    url.absoluteString, reason: "every mirror of a split model must name part 1 of \(first.count), like \(urls[0].lastPathComponent)")
            }
            guard let split, split.count == first.count else {
                throw ModelLibrary.Error.invalidReference(fileName, reason: "the file name of a split model must end in -00001-of-\(first.fileName(part: 1).suffix(16))")
            }
            if sha256 != nil { throw ModelLibrary.Error.checksumForSplitModel(url: urls[0].absoluteString) }
        }

        /// A catalog model, with its size and SHA-256.
        public static func catalog(_ entry: ModelCatalog.Entry) -> ModelLibrary.DownloadRequest {
            // Catalog entries are well-formed by construction.
            try! ModelLibrary.DownloadRequest(urls: entry.urls, sha256: entry.sha256, bytes: entry.bytes, fileName: entry.file,
                                              name: nil, suggestedName: entry.displayName)
        }

        /// Gemma 3 270M (``ModelCatalog/gemma3_270m``), the tests' reference model.
        public static var gemma3_270m: ModelLibrary.DownloadRequest { catalog(ModelCatalog.gemma3_270m) }

        /// LFM2 2.6B (``ModelCatalog/lfm2_2_6b``).
        public static var lfm2_2_6b: ModelLibrary.DownloadRequest { catalog(ModelCatalog.lfm2_2_6b) }

        /// A request from a reference:
        /// - `https://…` (or `http://…`) URLs;
        /// - `hf:org/repo/path/file.gguf` (a file of a Hugging Face repository);
        /// - `org/repo:QUANT`, resolved against `listing` (the repository's file names) or the catalog;
        /// - a catalog id such as `gemma-3-270m`.
        ///
        /// A user name and password in a URL are taken out of it and sent to its host only, as
        /// ``init(urls:sha256:bytes:fileName:name:)`` says.
        /// - Parameters:
        ///   - mirrors: more URLs of the same file, tried after the first.
        ///   - name: a display name, checked as ``init(urls:sha256:bytes:fileName:name:)`` says
        ///     (default: the catalog's name of the model, when it is a catalog model, unless
        ///     another model holds that name; else the file's).
        /// - Throws: ``ModelLibrary/Error/invalidReference(_:reason:)`` naming the reference (without
        ///   its user name and password), ``ModelLibrary/Error/invalidName(reason:)``.
        public init(reference: String, sha256: String? = nil, mirrors: [URL] = [], name: String? = nil,
                    listing: [String]? = nil) throws {
            if let entry = ModelCatalog.entry(reference) {
                guard !entry.urls.isEmpty || !mirrors.isEmpty else {
                    throw ModelLibrary.Error.invalidReference(reference, reason: "it has no download URL: it comes from \(entry.origin)")
                }
                if let sha256, sha256.lowercased() != entry.sha256 {
                    throw ModelLibrary.Error.invalidReference(sha256, reason: "\(reference) has SHA-256 \(entry.sha256) in the catalog")
                }
                try self.init(urls: entry.urls + mirrors, sha256: entry.sha256, bytes: entry.bytes, fileName: entry.file,
                              name: name, suggestedName: entry.displayName)
                return
            }
            let (url, catalogMatch) = try Self.resolve(reference, listing: listing)
            try self.init(urls: [url] + mirrors, sha256: sha256 ?? catalogMatch?.sha256, bytes: catalogMatch?.bytes, fileName: nil,
                          name: name, suggestedName: catalogMatch?.displayName)
            // org/repo:QUANT with a listing: the repository's projector comes with the model.
            if let listing, !reference.hasPrefix("hf:"), !reference.contains("://"), let colon = reference.lastIndex(of: ":"),
               let file = Self.projector(in: listing, for: url.lastPathComponent,
                                         quantization: String(reference[reference.index(after: colon)...])) {
                let repository = String(reference[..<colon])
                let (projectorURL, _) = try Self.resolve("hf:\(repository)/\(file)", listing: nil)
                projector = try Projector(urls: [projectorURL], fileName: String(file.split(separator: "/").last ?? ""))
            }
        }

        /// Where Hugging Face repositories are downloaded from: `$HF_ENDPOINT` (as Hugging Face's
        /// own tools read it: a mirror, or a server of one's own), else https://huggingface.co.
        static var huggingFaceEndpoint: String {
            let value = ProcessInfo.processInfo.environment["HF_ENDPOINT"] ?? ""
            return value.isEmpty ? "https://huggingface.co" : String(value.reversed().drop { $0 == "/" }.reversed())
        }

        private static func resolve(_ reference: String, listing: [String]?) throws -> (URL, ModelCatalog.Entry?) {
            func fail(_ reason: String) -> ModelLibrary.Error { .invalidReference(DownloadCredential.redacted(reference), reason: reason) }
            if reference.hasPrefix("https://") || reference.hasPrefix("http://") {
                guard let url = URL(string: reference) else { throw fail("not a URL") }
                let bare = DownloadCredential.split(url)?.url
                return (url, ModelCatalog.all.first { entry in bare.map(entry.urls.contains) ?? false })
            }
            if reference.contains("://") { throw fail("only http and https URLs can be downloaded") }
            if reference.hasPrefix("hf:") {
                let parts = reference.dropFirst(3).split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count >= 3, parts.allSatisfy({ !$0.isEmpty && $0 != ".." && $0 != "." }) else {
                    throw fail("expected hf:org/repo/path/file.gguf")
                }
                let repository = parts.prefix(2).joined(separator: "/"), path = parts.dropFirst(2).joined(separator: "/")
                guard let url = URL(string: "\(huggingFaceEndpoint)/\(repository)/resolve/main/\(path)") else { throw fail("not a valid path") }
                return (url, ModelCatalog.all.first { $0.repository == repository && $0.file == path })
            }
            guard let colon = reference.lastIndex(of: ":") else {
                throw fail("expected an https URL, hf:org/repo/file.gguf, org/repo:QUANT or a catalog id (\(ModelCatalog.all.map(\.id).joined(separator: ", ")))")
            }
            let repository = String(reference[..<colon]), quantization = String(reference[reference.index(after: colon)...])
            guard repository.split(separator: "/").count == 2, !repository.contains(".."), !quantization.isEmpty else {
                throw fail("expected org/repo:QUANT")
            }
            let files = listing ?? ModelCatalog.all.filter { $0.repository == repository }.map(\.file)
            // A projector (mmproj) of the same quantization is not the model: it comes with it.
            let matches = files.filter { name in
                name.hasSuffix(".gguf") && name.lowercased().contains(quantization.lowercased())
                    && !(name.split(separator: "/").last ?? "").lowercased().contains("mmproj")
            }
            guard matches.count == 1, let file = matches.first, !file.split(separator: "/").contains("..") else {
                throw fail(matches.isEmpty
                           ? "no .gguf file for \(quantization) in \(listing == nil ? "the catalog" : "the listing")\(listing == nil ? "; pass the repository's file listing" : "")"
                           : "several files match \(quantization): \(matches.joined(separator: ", "))")
            }
            return try resolve("hf:\(repository)/\(file)", listing: nil)
        }
    }
}
