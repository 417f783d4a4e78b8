import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CDigest
#endif

/// SHA-256, computed incrementally: OpenSSL's libcrypto on Linux, CryptoKit on Apple platforms.
package struct SHA256Digest: ~Copyable {
    #if canImport(CryptoKit)
    private var hasher = SHA256()
    #else
    private let state: OpaquePointer
    #endif

    /// Starts a computation.
    public init() {
        #if !canImport(CryptoKit)
        guard let state = llmkit_sha256_new() else { fatalError("libcrypto cannot compute SHA-256") }
        self.state = state
        #endif
    }

    /// Adds bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        #if canImport(CryptoKit)
        hasher.update(bufferPointer: bytes)
        #else
        _ = llmkit_sha256_update(state, bytes.baseAddress, bytes.count)
        #endif
    }

    /// Adds bytes.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lowercase hexadecimal digits; ends the computation.
    public consuming func finalize() -> String {
        #if canImport(CryptoKit)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
        #else
        var out = [UInt8](repeating: 0, count: 32)
        _ = llmkit_sha256_finish(state, &out)
        discard self
        return out.map { String(format: "%02x", $0) }.joined()
        #endif
    }

    #if !canImport(CryptoKit)
    deinit {
        llmkit_sha256_free(state)
    }
    #endif

    /// The SHA-256 of a whole file, read in 4 MiB chunks.
    /// - Parameters:
    ///   - progress: called after each chunk with the bytes hashed so far.
    /// - Throws: the error that stopped reading; `CancellationError` when the task is cancelled.
    public static func file(at url: URL, progress: ((Int64) -> Void)? = nil) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = SHA256Digest()
        var done: Int64 = 0
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {
            try Task.checkCancellation()
            digest.update(chunk)
            done += Int64(chunk.count)
            progress?(done)
        }
        return digest.finalize()
    }

    /// The SHA-256 of some bytes.
    public static func hex(of data: Data) -> String {
        var digest = SHA256Digest()
        digest.update(data)
        return digest.finalize()
    }
}
