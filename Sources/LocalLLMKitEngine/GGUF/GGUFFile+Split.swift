import Foundation

extension GGUFFile {
    /// Where a file stands in a model cut into parts by llama.cpp's `gguf-split`: its
    /// `split.no`, `split.count` and `split.tensors.count` metadata.
    public struct Split: Sendable, Equatable {
        /// The part's number, from 1 (`split.no` + 1).
        public let part: Int
        /// How many parts the model has (`split.count`).
        public let count: Int
        /// How many tensors all parts hold together (`split.tensors.count`).
        public let tensorCount: Int
    }

    /// The file's place in a split model; nil for a model in one file (no `split.count`,
    /// or a count of 1).
    /// - Throws: ``GGUFFile/Error/invalidFile(path:reason:)`` when the split
    ///   metadata is there but not consistent.
    public func splitInfo() throws -> Split? {
        guard let countValue = metadata["split.count"] else { return nil }
        func fail(_ reason: String) -> GGUFFile.Error { .invalidFile(path: url.path, reason: reason) }
        guard let count = countValue.intValue, (1...99_999).contains(count) else {
            throw fail("split.count is \(countValue.description), not a number of parts")
        }
        guard count > 1 else { return nil }
        guard let number = metadata["split.no"]?.intValue, (0..<count).contains(number) else {
            throw fail("split.count is \(count), but split.no is missing or not between 0 and \(count - 1)")
        }
        guard let tensors = metadata["split.tensors.count"]?.intValue, tensors >= tensorCount else {
            throw fail("split.tensors.count is missing or smaller than this part's \(tensorCount) tensors")
        }
        return Split(part: number + 1, count: count, tensorCount: tensors)
    }
}
