import CLlama
import Foundation

/// A ggml CPU thread pool for one context, as llama.cpp's own tools attach one
/// (`common_threadpools`), instead of the disposable pool ggml makes for every graph it
/// computes without one (measured for embeddings in docs/PERFORMANCE.md; a generation context
/// measured slower with one, so it has none).
///
/// Reached through the CPU backend's registry (`ggml_threadpool_new` lives in libggml-cpu,
/// which is loaded as a backend). Free it only after the context it is attached to.
package final class CPUThreadPool: @unchecked Sendable {
    private typealias Create = @convention(c) (UnsafeMutablePointer<ggml_threadpool_params>?) -> OpaquePointer?
    private typealias Release = @convention(c) (OpaquePointer?) -> Void
    private typealias Pause = @convention(c) (OpaquePointer?) -> Void

    /// The `ggml_threadpool_t`.
    package let pointer: OpaquePointer
    private let release: Release
    private let pauseFunction: Pause?

    /// A pool of `threads` threads, or nil when the CPU backend offers none.
    package init?(threads: Int) {
        guard let device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU),
              let registry = ggml_backend_dev_backend_reg(device),
              let create = ggml_backend_reg_get_proc_address(registry, "ggml_threadpool_new"),
              let release = ggml_backend_reg_get_proc_address(registry, "ggml_threadpool_free") else { return nil }
        var parameters = ggml_threadpool_params_default(Int32(threads))
        guard let pool = unsafeBitCast(create, to: Create.self)(&parameters) else { return nil }
        self.pointer = pool
        self.release = unsafeBitCast(release, to: Release.self)
        // Not offered by the registry: looked up among the process's symbols (libggml-cpu's API).
        self.pauseFunction = dlsym(Self.defaultSymbols, "ggml_threadpool_pause").map { unsafeBitCast($0, to: Pause.self) }
    }

    /// Puts the pool's threads to sleep until its next graph (which wakes them by itself), so that
    /// they stop polling for work while other contexts compute.
    package func pause() {
        pauseFunction?(pointer)
    }

    /// `RTLD_DEFAULT`, which Swift does not import.
    #if canImport(Darwin)
    private static var defaultSymbols: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: -2) }
    #else
    private static var defaultSymbols: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 0) }
    #endif

    deinit {
        release(pointer)
    }
}
