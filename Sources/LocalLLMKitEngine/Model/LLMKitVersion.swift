import CLlama
import CLlamaEngineBridge

/// Version information of LocalLLMKit and of the llama.cpp it runs on.
public enum LLMKitVersion {
    /// LocalLLMKit's own version.
    public static let current = "0.1.0"

    /// The version of the llama.cpp library loaded at run time, e.g. `0.5.0-dev`.
    public static var llamaCpp: String {
        llama_version().map { String(cString: $0) } ?? "unknown"
    }

    /// The build number of the llama.cpp this package was built against (`LLAMA_BUILD_NUMBER`
    /// of llama.cpp's build info), e.g. `8523`.
    public static var llamaCppBuildNumber: Int {
        Int(llmkit_llama_build_number())
    }

    /// The commit of the llama.cpp this package was built against (`LLAMA_COMMIT`, a short
    /// hash such as `a1b2c3d`), or `unknown`.
    public static var llamaCppCommit: String {
        llmkit_llama_commit().map { String(cString: $0) } ?? "unknown"
    }

    /// llama.cpp's summary of the CPU features it was built for and found.
    public static var systemInfo: String {
        LlamaRuntime.ensureInitialized()
        return llama_print_system_info().map { String(cString: $0) } ?? ""
    }
}
