import CLlama
import CLlamaVisionBridge
import Foundation

/// A projector (an mmproj GGUF) loaded for one text model through llama.cpp's mtmd: it turns
/// images (or audio) into embeddings in the text model's input space.
///
/// Decoding and tokenizing only read it, from any thread; encoding runs on the model's thread
/// (``embeddings(for:)``), which also owns the cache of encoded media.
package final class ProjectorHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The file it was loaded from.
    package let url: URL
    /// Whether it takes images.
    package let acceptsImages: Bool
    /// Whether it takes audio.
    package let acceptsAudio: Bool
    /// The width of the embeddings it makes (the text model's).
    package let width: Int
    /// Encoded media by content hash, least recently used first (the model's thread only).
    private var cache: [(id: String, embeddings: [Float])] = []
    private var cachedFloats = 0
    /// How many floats of embeddings the cache keeps at most (128 MiB).
    package static let cacheLimit = 32 << 20
    /// How many media it has encoded (the model's thread only).
    package private(set) var encodeCount = 0

    /// Loads the projector at `url` for `model`, after checking its header like a model's.
    /// - Throws: ``LocalModel/Error/invalidProjector(path:reason:)``.
    package init(url: URL, model: ModelHandle, usesGPU: Bool, threads: Int) throws {
        try Self.check(url)
        var error: llmkit_error?
        guard let pointer = llmkit_projector_load(url.path, model.pointer, usesGPU, Int32(threads), &error) else {
            throw LocalModel.Error.invalidProjector(path: url.path, reason: Bridge.take(error) ?? "mtmd could not load it")
        }
        let capabilities = llmkit_projector_capabilities(pointer)
        guard !capabilities.multi_axis_positions else {
            llmkit_projector_free(pointer)
            throw LocalModel.Error.invalidProjector(
                path: url.path, reason: "its media take several position axes (M-RoPE, as Qwen2-VL's), which LocalLLMKit does not schedule yet")
        }
        self.pointer = pointer
        self.url = url
        self.acceptsImages = capabilities.images
        self.acceptsAudio = capabilities.audio
        self.width = Int(llama_model_n_embd_inp(model.pointer))
    }

    deinit {
        llmkit_projector_free(pointer)
    }

    /// Checks that `url` is a readable GGUF whose architecture is `clip` and that has an encoder,
    /// before mtmd reads it.
    static func check(_ url: URL) throws {
        let file: GGUFFile
        do {
            file = try GGUFFile(contentsOf: url)
        } catch let error as GGUFFile.Error {
            throw LocalModel.Error.invalidProjector(path: url.path, reason: error.errorDescription ?? "\(error)")
        }
        let architecture = file.metadata["general.architecture"]?.stringValue ?? "none"
        guard architecture == "clip" else {
            throw LocalModel.Error.invalidProjector(path: url.path, reason: "its architecture is '\(architecture)', not a projector's ('clip')")
        }
        let hasEncoder = ["clip.has_vision_encoder", "clip.has_audio_encoder"].contains { key in
            if case .bool(true) = file.metadata[key] { return true }
            return false
        }
        guard hasEncoder else {
            throw LocalModel.Error.invalidProjector(path: url.path, reason: "it has neither a vision nor an audio encoder")
        }
    }

    /// Checks `attachment` against `limits` and decodes it; `index` is its place in the request.
    /// - Throws: ``MediaAttachment/Error``.
    package func decode(_ attachment: MediaAttachment, index: Int, limits: MediaAttachment.Limits) throws -> MediaBitmap {
        guard attachment.byteCount <= limits.bytes else {
            throw MediaAttachment.Error.tooManyBytes(bytes: attachment.byteCount, limit: limits.bytes)
        }
        switch attachment.content {
        case .pixels(let rgb, let width, let height):
            try Self.checkSize(width: width, height: height, index: index, limits: limits)
            // checkSize bounded width × height by the limits (at most 2^40), so this cannot overflow.
            let expected = width * height * 3
            guard rgb.count == expected else {
                throw MediaAttachment.Error.invalid(index: index, reason: "\(rgb.count) bytes of RGB for \(width) × \(height) pixels (expected \(expected))")
            }
            guard acceptsImages else { throw MediaAttachment.Error.unsupportedKind(index: index, kind: "an image") }
            let pointer = rgb.withUnsafeBytes { llmkit_media_from_rgb(UInt32(width), UInt32(height), $0.bindMemory(to: UInt8.self).baseAddress) }
            guard let pointer else { throw MediaAttachment.Error.invalid(index: index, reason: "mtmd refused the pixels") }
            return MediaBitmap(pointer: pointer, id: Self.contentID(kind: "rgb \(width)x\(height)", rgb))
        case .encoded(let data):
            let header: MediaHeader
            do {
                header = try MediaHeader.read(data)
            } catch {
                throw MediaAttachment.Error.invalid(index: index, reason: error.reason)
            }
            if header.format.isAudio {
                guard acceptsAudio else { throw MediaAttachment.Error.unsupportedKind(index: index, kind: "audio (\(header.format.rawValue))") }
            } else {
                try Self.checkSize(width: header.width, height: header.height, index: index, limits: limits)
                guard acceptsImages else { throw MediaAttachment.Error.unsupportedKind(index: index, kind: "an image") }
            }
            let pointer = data.withUnsafeBytes { llmkit_media_decode(self.pointer, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
            guard let pointer else {
                throw MediaAttachment.Error.invalid(index: index, reason: "its \(header.format.rawValue) data could not be decoded (damaged or truncated)")
            }
            let bitmap = MediaBitmap(pointer: pointer, id: Self.contentID(kind: header.format.rawValue, data))
            if !header.format.isAudio,
               Int(llmkit_media_width(pointer)) != header.width || Int(llmkit_media_height(pointer)) != header.height {
                throw MediaAttachment.Error.invalid(index: index, reason: "it decodes to another size than its header declares")
            }
            return bitmap
        }
    }

    private static func checkSize(width: Int, height: Int, index: Int, limits: MediaAttachment.Limits) throws {
        guard width > 0, height > 0 else {
            throw MediaAttachment.Error.invalid(index: index, reason: "an image of \(width) × \(height) pixels")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limits.pixels, width <= limits.side, height <= limits.side else {
            throw MediaAttachment.Error.tooManyPixels(width: width, height: height, limit: limits.pixels)
        }
    }

    private static func contentID(kind: String, _ data: Data) -> String {
        var digest = SHA256Digest()
        digest.update(Data((kind + "\n").utf8))
        digest.update(data)
        return digest.finalize()
    }

    /// Tokenizes `segments`, in which each occurrence of `marker` stands for the next of `media`.
    /// - Throws: ``LocalModel/Error/tokenizationFailed(reason:)`` when the markers and media do not
    ///   pair up, or mtmd cannot preprocess a medium.
    package func tokenize(_ segments: [PromptSegment], marker: String, media: [MediaBitmap]) throws -> MultimodalPrompt {
        var texts: [(text: String, special: Bool)?] = []
        var mediaIndex = 0
        for segment in segments {
            let pieces = segment.text.components(separatedBy: marker)
            for (offset, piece) in pieces.enumerated() {
                if offset > 0 {
                    guard mediaIndex < media.count else {
                        throw LocalModel.Error.tokenizationFailed(reason: "the prompt has more media markers than attachments")
                    }
                    texts.append(nil)
                    mediaIndex += 1
                }
                if !piece.isEmpty { texts.append((piece, segment.parsesSpecialTokens)) }
            }
        }
        guard mediaIndex == media.count else {
            throw LocalModel.Error.tokenizationFailed(
                reason: "\(media.count) attachments but \(mediaIndex) places for them in the prompt (the template dropped a message?)")
        }
        let storage = CStringStorage()
        var next = 0
        var parts: [llmkit_prompt_part] = []
        for text in texts {
            if let text {
                // Bytes with their length, not a C string: a NUL in a message stays in it.
                let bytes = Array(text.text.utf8).map { CChar(bitPattern: $0) }
                parts.append(llmkit_prompt_part(text: storage.array(bytes), length: bytes.count,
                                                parse_special: text.special, media: nil))
            } else {
                parts.append(llmkit_prompt_part(text: nil, length: 0, parse_special: false, media: media[next].pointer))
                next += 1
            }
        }
        var error: llmkit_error?
        guard let chunks = llmkit_projector_tokenize(pointer, parts, parts.count, true, &error) else {
            throw LocalModel.Error.tokenizationFailed(reason: Bridge.take(error) ?? "mtmd could not tokenize the prompt")
        }
        withExtendedLifetime(storage) {}
        let owner = MediaChunks(pointer: chunks, projector: self)
        var prompt = MultimodalPrompt(tokens: [], media: [])
        for index in 0..<llmkit_chunks_count(chunks) {
            if llmkit_chunk_kind(chunks, index) == 0 {
                var count = 0
                if let tokens = llmkit_chunk_tokens(chunks, index, &count) {
                    prompt.tokens += UnsafeBufferPointer(start: tokens, count: count)
                }
                continue
            }
            let count = llmkit_chunk_token_count(chunks, index)
            guard Int(llmkit_chunk_position_count(chunks, index)) == count else {
                throw LocalModel.Error.tokenizationFailed(reason: "a medium whose positions are not one per embedding")
            }
            let id = media[prompt.media.count].id
            prompt.media.append(PromptMediaSpan(start: prompt.tokens.count, count: count, id: id,
                                                nonCausal: llmkit_chunk_non_causal(pointer, chunks, index),
                                                chunks: owner, chunkIndex: index))
            prompt.tokens += PromptMediaSpan.standIns(id: id, count: count)
        }
        return prompt
    }

    /// The embeddings of `span` (``PromptMediaSpan/count`` rows of ``width`` floats): from the
    /// cache, or encoded now, with how long the projector took to encode them (nil from the
    /// cache). Runs on the model's thread.
    /// - Throws: ``LocalModel/Error/decodeFailed(code:reason:)`` when the projector fails.
    package func embeddings(for span: PromptMediaSpan) throws -> (embeddings: [Float], encoding: Duration?) {
        if let index = cache.firstIndex(where: { $0.id == span.id }), cache[index].embeddings.count == span.count * width {
            let entry = cache.remove(at: index)
            cache.append(entry)
            return (entry.embeddings, nil)
        }
        var error: llmkit_error?
        var code: Int32 = 0
        var microseconds: Int64 = 0
        let embeddings = [Float](unsafeUninitializedCapacity: span.count * width) { buffer, initialized in
            code = llmkit_projector_encode(pointer, span.chunks.pointer, span.chunkIndex, buffer.baseAddress, buffer.count,
                                           &microseconds, &error)
            if code == 0 {
                initialized = buffer.count
            } else {
                buffer.initialize(repeating: 0)          // never read: the call throws below
                initialized = buffer.count
            }
        }
        guard code == 0 else {
            throw LocalModel.Error.decodeFailed(code: code, reason: Bridge.take(error) ?? "the projector failed")
        }
        encodeCount += 1
        cache.append((span.id, embeddings))
        cachedFloats += embeddings.count
        while cachedFloats > Self.cacheLimit, cache.count > 1 {
            cachedFloats -= cache.removeFirst().embeddings.count
        }
        return (embeddings, .microseconds(microseconds))
    }
}
