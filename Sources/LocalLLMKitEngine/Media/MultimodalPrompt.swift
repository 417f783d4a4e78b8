import CLlamaVisionBridge

/// A prompt with media: its tokens, in which every medium takes one stand-in token per position,
/// and where each medium lies. The stand-ins are negative (never a vocabulary id) and derived
/// from the medium's content hash, so that the same image at the same place of a later prompt
/// matches the cache like text does, and a different one does not.
package struct MultimodalPrompt: Sendable {
    /// Text tokens, and stand-ins for media positions.
    package var tokens: [Int32]
    /// Where media lie, in order.
    package var media: [PromptMediaSpan]

    /// A prompt of `tokens` with `media` in them.
    package init(tokens: [Int32], media: [PromptMediaSpan]) {
        self.tokens = tokens
        self.media = media
    }
}

/// One medium's place in a prompt's tokens, and how to get its embeddings.
package struct PromptMediaSpan: Sendable {
    /// The index of its first position in the prompt's tokens.
    package var start: Int
    /// How many positions (embeddings) it takes.
    package var count: Int
    /// Its content hash.
    package var id: String
    /// Whether its embeddings must be decoded at once, attending to each other both ways.
    package var nonCausal: Bool
    /// The tokenized prompt that holds it, and its chunk there.
    let chunks: MediaChunks
    let chunkIndex: Int

    /// The positions it covers.
    package var range: Range<Int> { start..<start + count }

    /// The stand-in tokens of a medium with content hash `id` and `count` positions.
    static func standIns(id: String, count: Int) -> [Int32] {
        let seed = UInt32(id.prefix(8), radix: 16) ?? 0
        return (0..<count).map { offset in
            let mixed = (seed &+ UInt32(truncatingIfNeeded: offset) &* 2_654_435_761) & 0x7FFF_FFFE
            return Int32(bitPattern: 0x8000_0000 | mixed)      // negative, and never -1
        }
    }
}

/// A prompt's chunks as mtmd made them, kept alive while a request may still encode a medium of it.
final class MediaChunks: @unchecked Sendable {
    let pointer: OpaquePointer
    let projector: ProjectorHandle

    init(pointer: OpaquePointer, projector: ProjectorHandle) {
        self.pointer = pointer
        self.projector = projector
    }

    deinit {
        llmkit_chunks_free(pointer)
    }
}
