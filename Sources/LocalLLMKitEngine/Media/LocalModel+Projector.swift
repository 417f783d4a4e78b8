import Foundation

extension LocalModel.Configuration {
    /// Where a model's projector (an mmproj GGUF, which turns images or audio into embeddings
    /// the model reads) comes from.
    public enum Projector: Sendable, Hashable {
        /// The projector beside the model file, when there is one: a regular file named
        /// `mmproj*.gguf` in the same folder, made for a model of this width. With several,
        /// the one whose name contains the model's file name (less `.gguf`) wins; with
        /// several and none such, none is taken.
        case automatic
        /// This projector file; loading fails when it cannot be used with the model.
        case file(URL)
        /// No projector: the model takes text only.
        case none
    }
}

extension LocalModel.Configuration.Projector {
    /// The projector file this choice names for the model at `modelURL`, of input width
    /// `width`; nil for none.
    func resolved(besides modelURL: URL, width: Int) -> URL? {
        switch self {
        case .none: return nil
        case .file(let url): return url
        case .automatic: return Self.discover(besides: modelURL, width: width)
        }
    }

    /// A projector beside `modelURL` that fits a model of `width` (see ``automatic``).
    static func discover(besides modelURL: URL, width: Int) -> URL? {
        let folder = modelURL.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let candidates = names.filter { name in
            let lower = name.lowercased()
            return lower.hasPrefix("mmproj") && lower.hasSuffix(".gguf") && name != modelURL.lastPathComponent
        }.sorted().map { folder.appending(path: $0) }.filter { url in
            var info = stat()
            guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  let file = try? GGUFFile(contentsOf: url),
                  file.metadata["general.architecture"]?.stringValue == "clip" else { return false }
            // The width a projector declares; one that declares none is tried.
            let declared = file.metadata["clip.vision.projection_dim"]?.intValue ?? file.metadata["clip.audio.projection_dim"]?.intValue
            return declared == nil || declared == width
        }
        let stem = modelURL.deletingPathExtension().lastPathComponent.lowercased()
        let named = candidates.filter { $0.lastPathComponent.lowercased().contains(stem) }
        if named.count == 1 { return named[0] }
        return candidates.count == 1 ? candidates[0] : nil
    }
}

extension LocalModel {
    /// The projector the model at `url` would load with `configuration`, and what it takes
    /// (images, audio), read from the headers of both files only (nothing is loaded); nil
    /// without one.
    package static func projector(forModelAt url: URL, configuration: Configuration) -> (url: URL, images: Bool, audio: Bool)? {
        guard let file = try? GGUFFile(contentsOf: url) else { return nil }
        let architecture = file.metadata["general.architecture"]?.stringValue ?? ""
        let width = file.metadata["\(architecture).embedding_length"]?.intValue ?? 0
        guard let projector = configuration.weights.projector.resolved(besides: url, width: width),
              let header = try? GGUFFile(contentsOf: projector) else { return nil }
        func flag(_ key: String) -> Bool {
            if case .bool(true) = header.metadata[key] { return true }
            return false
        }
        return (projector, flag("clip.has_vision_encoder"), flag("clip.has_audio_encoder"))
    }

    /// Whether the model takes images (it has a projector for them).
    public nonisolated var acceptsImages: Bool { projector?.acceptsImages ?? false }
    /// Whether the model takes audio.
    public nonisolated var acceptsAudio: Bool { projector?.acceptsAudio ?? false }
    /// The projector file the model was loaded with, if any.
    public nonisolated var projectorURL: URL? { projector?.url }

    /// Decodes `attachments` and tokenizes `segments` with them: each occurrence of `marker` in
    /// the segments stands for the next attachment. Blocking work: call it on the
    /// ``BlockingWorkPool``.
    /// - Throws: ``LocalModel/Error/noProjector(path:)``, ``MediaAttachment/Error`` or
    ///   ``LocalModel/Error/tokenizationFailed(reason:)``.
    package nonisolated func multimodalPrompt(_ segments: [PromptSegment], marker: String,
                                              attachments: [MediaAttachment]) throws -> MultimodalPrompt {
        guard let projector else { throw Error.noProjector(path: url.path) }
        let limits = configuration.serving.mediaLimits
        guard attachments.count <= limits.count else {
            throw MediaAttachment.Error.tooMany(count: attachments.count, limit: limits.count)
        }
        let media = try attachments.enumerated().map { index, attachment in
            try projector.decode(attachment, index: index, limits: limits)
        }
        return try projector.tokenize(segments, marker: marker, media: media)
    }

    /// A word that stands for an attachment in a rendered prompt: random, so that no message
    /// text can forge one, and plain ASCII letters and digits, which templates leave alone.
    package nonisolated static func makeMediaMarker() -> String {
        "LLMKITMEDIA" + String(UInt64.random(in: .min ... .max), radix: 36).uppercased() + "X"
    }

    /// How many media the model's projector has encoded since it was loaded (the rest came
    /// from its cache, or from the KV cache of an earlier turn).
    package func encodedMediaCount() -> Int { projector?.encodeCount ?? 0 }
}
