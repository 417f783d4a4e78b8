import Foundation

/// Identifies a model file well enough to refuse a saved conversation made with another one:
/// its size, its header (metadata and tensor layout) digest, and a few readable facts.
package struct ModelFingerprint: Codable, Equatable, Sendable {
    package var fileSize: Int64
    package var headerDigest: String
    package var architecture: String?
    package var tensorCount: Int
    package var parameterCount: Int64

    /// Fingerprints `file` by hashing its header bytes (everything before the tensor data).
    package init(_ file: GGUFFile) throws {
        let handle = try FileHandle(forReadingFrom: file.url)
        defer { try? handle.close() }
        let header = try handle.read(upToCount: Int(file.dataOffset)) ?? Data()
        fileSize = file.fileSize
        headerDigest = String(header.withUnsafeBytes(Checksums.fnv1a64), radix: 16)
        architecture = file.architecture
        tensorCount = file.tensorCount
        parameterCount = file.parameterCount
    }

    /// What differs between two fingerprints, in words; nil when they match.
    package func mismatch(with other: ModelFingerprint) -> String? {
        if architecture != other.architecture {
            return "it was saved with a \(architecture ?? "?") model, this one is \(other.architecture ?? "?")"
        }
        if fileSize != other.fileSize || tensorCount != other.tensorCount || parameterCount != other.parameterCount
            || headerDigest != other.headerDigest {
            return "it was saved with another model file (\(fileSize) bytes, header \(headerDigest)); "
                + "this one has \(other.fileSize) bytes, header \(other.headerDigest)"
        }
        return nil
    }
}
