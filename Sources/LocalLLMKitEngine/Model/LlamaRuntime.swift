import CLlama
import CLlamaEngineBridge
import Synchronization

/// One-time, process-wide set-up of llama.cpp: the logger, then the backends.
package enum LlamaRuntime {
    private static let initialized: Bool = {
        llama_log_set({ level, text, _ in
            guard let text else { return }
            LlamaLog.receive(level, String(cString: text))
        }, nil)
        llmkit_common_log_set_verbosity(-1)     // common's logger prints to stderr: silent by default
        llama_backend_init()
        return true
    }()

    private static let liveContexts = Mutex(0)

    /// How many inference contexts exist in this process now.
    package static var liveContextCount: Int { liveContexts.withLock { $0 } }

    /// A new `llama_context` for `model`, counted in ``liveContextCount``; free it with
    /// ``freeContext(_:)``.
    /// - Parameter failure: what to say when llama.cpp returns none and logs no error.
    /// - Throws: ``LocalModel/Error/contextCreationFailed(reason:)`` with llama.cpp's own error.
    package static func makeContext(model: ModelHandle, parameters: llama_context_params, failure: String) throws -> OpaquePointer {
        if let loss = model.remoteLoss { throw loss }
        let (context, errors) = LlamaLog.collectingErrors { llama_init_from_model(model.pointer, parameters) }
        if let loss = model.remoteLoss {
            if let context { llama_free(context) }
            throw loss
        }
        guard let context else { throw LocalModel.Error.contextCreationFailed(reason: errors.summary ?? failure) }
        liveContexts.withLock { $0 += 1 }
        if !model.adapters.isEmpty { model.applyAdapters(at: model.adapters.map(\.scale), to: context) }
        if let steering = model.steering, !steering.apply(to: context) {
            freeContext(context)
            throw LocalModel.Error.contextCreationFailed(reason: "llama.cpp could not apply the control vectors to the context")
        }
        return context
    }

    /// Frees a context from ``makeContext(model:parameters:failure:)``.
    package static func freeContext(_ context: OpaquePointer) {
        llama_free(context)
        liveContexts.withLock { $0 -= 1 }
    }

    /// Initializes llama.cpp once; cheap on later calls.
    package static func ensureInitialized() {
        _ = initialized
    }

    /// Whether this machine has a GPU (CUDA, Metal, Vulkan…, discrete or integrated) to offload
    /// layers to. Not `llama_supports_gpu_offload`, which is also true for any build with the RPC
    /// backend: remote devices are a model's own (``LocalModel/Configuration/Weights/rpcServers``).
    package static var supportsGPUOffload: Bool {
        ensureInitialized()
        return ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU) != nil
            || ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU) != nil
    }
}
