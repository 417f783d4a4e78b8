import Foundation

extension ModelLibrary.DownloadRequest {
    /// A vision model's projector (an mmproj GGUF) that a download fetches with the model, into
    /// the model's folder, where loading finds it (``LocalModel/Configuration/Projector/automatic``).
    public struct Projector: Sendable, Equatable {
        /// Where it is.
        public let urls: [URL]
        /// Its name in the model's folder: `mmproj…gguf`.
        public let fileName: String
        /// Its SHA-256, when known; otherwise it is checked against the size the server announces.
        public let sha256: String?
        /// Its size in bytes, when known.
        public let bytes: Int64?

        /// A projector at `urls`, stored as `fileName` (given `mmproj-` in front when it lacks it).
        public init(urls: [URL], fileName: String, sha256: String? = nil, bytes: Int64? = nil) throws {
            guard !urls.isEmpty else { throw ModelLibrary.Error.invalidReference("", reason: "no URL for the projector") }
            let safe = try ModelLibrary.safeFileName(fileName)
            self.urls = urls
            self.fileName = safe.lowercased().hasPrefix("mmproj") ? safe : "mmproj-" + safe
            self.sha256 = sha256?.lowercased()
            self.bytes = bytes
        }
    }

    /// The projector among a repository's file names (`listing`), for the model file `model`:
    /// the `.gguf` files whose names hold `mmproj`; of several, the one that names the model's
    /// quantization, else an F16 one, else the first by name. Nil when the listing has none.
    static func projector(in listing: [String], for model: String, quantization: String) -> String? {
        let candidates = listing.filter { name in
            let base = name.split(separator: "/").last.map(String.init)?.lowercased() ?? ""
            return base.hasSuffix(".gguf") && base.contains("mmproj") && name != model && !name.split(separator: "/").contains("..")
        }.sorted()
        guard candidates.count > 1 else { return candidates.first }
        return candidates.first { $0.lowercased().contains(quantization.lowercased()) }
            ?? candidates.first { $0.lowercased().contains("f16") } ?? candidates.first
    }
}
