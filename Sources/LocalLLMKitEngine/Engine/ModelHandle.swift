import CLlama

/// Owns a loaded `llama_model` and frees it when the last reference goes away.
///
/// The weights and vocabulary are immutable after loading; llama.cpp's
/// tokenizer functions only read them, so a handle can be shared across threads.
package final class ModelHandle: @unchecked Sendable {
    package let pointer: OpaquePointer
    package let vocabulary: OpaquePointer

    package init(pointer: OpaquePointer) {
        self.pointer = pointer
        self.vocabulary = llama_model_get_vocab(pointer)
    }

    deinit {
        llama_model_free(pointer)
    }
}
