import CLlama
import CLlamaEngineBridge

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

    /// Initializes llama.cpp once; cheap on later calls.
    package static func ensureInitialized() {
        _ = initialized
    }

    /// Whether a GPU backend (CUDA, Metal, Vulkan…) is available for offloading.
    package static var supportsGPUOffload: Bool {
        ensureInitialized()
        return llama_supports_gpu_offload()
    }
}
