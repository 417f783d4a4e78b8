import CLlama
import CLlamaEngineBridge

/// Owns a loaded `llama_model` and frees it when the last reference goes away.
///
/// The weights and vocabulary are immutable after loading; llama.cpp's
/// tokenizer functions only read them, so a handle can be shared across threads.
package final class ModelHandle: @unchecked Sendable {
    package let pointer: OpaquePointer
    package let vocabulary: OpaquePointer
    /// The model's helper process (`llmkit_helper_start`), whose workers run work that must not
    /// run in this process, such as llama.cpp's template engine. It is forked right after the
    /// load, and only while no inference context exists in this process, so that it pins none of
    /// their memory (a KV cache the process writes later would be copied for it); nil otherwise,
    /// and where processes cannot be forked.
    package let helper: OpaquePointer?

    /// The helper's process id, if there is a helper.
    package var helperProcessID: Int32? {
        helper.map { Int32(llmkit_helper_pid($0)) }
    }

    /// The LoRA adapters applied to every context of the model, with their scales; set once,
    /// right after the load and before the handle is shared (``LocalModel/Configuration/Weights/adapters``).
    package var adapters: [(pointer: OpaquePointer, scale: Float)] = []
    /// The control vectors added in every context of the model; set once, like ``adapters``
    /// (``LocalModel/Configuration/Weights/controlVectors``).
    package var steering: ControlVectorSteering?

    /// What an output grammar's sampler reads of each token instead of its text (its first byte),
    /// built once per model when a sampler first needs it and shared by all of them.
    package let tokenClasses: OpaquePointer?

    /// The RPC servers holding some of its layers (``LocalModel/Configuration/Weights/rpcServers``).
    package let remoteLinks: [RemoteDeviceLink]

    /// The loss of a remote server the model uses, as the error to report; nil while all serve.
    package var remoteLoss: LocalModel.Error? {
        remoteLinks.isEmpty ? nil : RemoteDeviceLink.loss(among: remoteLinks)
    }

    package init(pointer: OpaquePointer, remoteLinks: [RemoteDeviceLink] = []) {
        self.pointer = pointer
        self.remoteLinks = remoteLinks
        self.vocabulary = llama_model_get_vocab(pointer)
        self.tokenClasses = llmkit_token_classes_create(pointer)
        self.helper = LlamaRuntime.liveContextCount == 0 ? llmkit_helper_start() : nil
    }

    deinit {
        llmkit_helper_stop(helper)
        llmkit_token_classes_free(tokenClasses)
        llama_model_free(pointer)
    }
}
