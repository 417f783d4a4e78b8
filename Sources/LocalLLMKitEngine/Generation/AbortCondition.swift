import CLlama

/// The flags of the requests in the batch being decoded: llama.cpp stops early only when all
/// of them are raised, so that cancelling one request never disturbs the others.
///
/// Installed as a context's abort callback with ``install(on:)``; the context must not outlive it.
package final class AbortCondition: @unchecked Sendable {
    /// Written on the decoding thread before and after `llama_decode`; read by ggml's threads during it.
    package var flags: [CancellationFlag] = []
    /// Set the same way: stops the decode as soon as it says so, whatever the flags (other work
    /// that must not wait for this decode).
    package var preempts: (@Sendable () -> Bool)?

    package var shouldAbort: Bool {
        (!flags.isEmpty && flags.allSatisfy(\.isRaised)) || preempts?() == true
    }

    package init() {}

    /// Makes llama.cpp ask this condition between compute steps of `context`'s decodes (CPU only).
    package func install(on context: OpaquePointer) {
        llama_set_abort_callback(context, { data in
            guard let data else { return false }
            return Unmanaged<AbortCondition>.fromOpaque(data).takeUnretainedValue().shouldAbort
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
