import Foundation

extension ModelLibrary {
    /// What a download or an import did: the model's record, and whether the model was in the
    /// library already.
    ///
    /// ```swift
    /// let addition = try await library.download(.gemma3_270m).addition
    /// if addition.wasAlreadyInLibrary { print("already in the library as \(addition.record.id)") }
    /// ```
    public struct Addition: Sendable, Equatable {
        /// The model's record: the new one, or the one already in the library.
        public var record: ModelLibrary.Record
        /// Whether the model was already in the library (the same SHA-256 or, for a download, the
        /// same source URL), so that nothing was added: `record` is the one found there, unchanged,
        /// name included. Call ``ModelLibrary/rename(_:to:)`` to give it another name.
        public var wasAlreadyInLibrary: Bool

        /// Creates an addition.
        /// - Parameters:
        ///   - record: the model's record.
        ///   - wasAlreadyInLibrary: whether the model was there before.
        public init(record: ModelLibrary.Record, wasAlreadyInLibrary: Bool) {
            self.record = record
            self.wasAlreadyInLibrary = wasAlreadyInLibrary
        }
    }
}
