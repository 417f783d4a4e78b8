import Foundation

extension ModelLibrary {
    /// How far an import has got: reported while the file is copied into the library (and
    /// hashed in the same pass), or, when it was moved, while it is hashed.
    public struct ImportProgress: Sendable, Equatable {
        /// What the import is doing.
        public enum Phase: String, Sendable, Equatable {
            /// Copying the file into the library while computing its SHA-256.
            case copying
            /// Computing the SHA-256 of a file that was moved into the library.
            case hashing
        }

        /// What the import is doing.
        public var phase: Phase
        /// Bytes copied or hashed so far.
        public var bytes: Int64
        /// The file's size.
        public var total: Int64

        /// `bytes / total`, or 1 for an empty file.
        public var fraction: Double { total > 0 ? min(Double(bytes) / Double(total), 1) : 1 }

        /// Creates a progress report.
        public init(phase: Phase, bytes: Int64, total: Int64) {
            self.phase = phase
            self.bytes = bytes
            self.total = total
        }
    }
}
