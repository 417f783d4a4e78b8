import CLlamaVisionBridge

/// One attachment decoded for a projector (RGB pixels, or samples), with the content hash its
/// chunk carries: the key under which its embeddings are cached and its prompt positions compared.
package final class MediaBitmap: @unchecked Sendable {
    let pointer: OpaquePointer
    /// SHA-256 of the kind, size and bytes given.
    package let id: String
    package let isAudio: Bool

    init(pointer: OpaquePointer, id: String) {
        self.pointer = pointer
        self.id = id
        self.isAudio = llmkit_media_is_audio(pointer)
        llmkit_media_set_id(pointer, id)
    }

    deinit {
        llmkit_media_free(pointer)
    }
}
