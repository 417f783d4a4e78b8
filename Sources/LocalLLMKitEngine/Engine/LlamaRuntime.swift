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

    /// Counts a context created (`+1`) or freed (`-1`).
    package static func countContexts(_ change: Int) {
        liveContexts.withLock { $0 += change }
    }

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
