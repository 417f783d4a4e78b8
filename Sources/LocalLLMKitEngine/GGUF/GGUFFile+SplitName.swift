import Foundation

extension GGUFFile {
    /// The name of one part of a model that llama.cpp's `gguf-split` cut into parts:
    /// `PREFIX-00002-of-00003.gguf`, as `llama_split_path` writes it (`%s-%05d-of-%05d.gguf`).
    ///
    /// ```swift
    /// let name = GGUFFile.SplitName("gemma-00001-of-00002.gguf")!    // part 1 of 2
    /// name.fileName(part: 2)                                          // "gemma-00002-of-00002.gguf"
    /// ```
    public struct SplitName: Sendable, Equatable {
        /// The name without the `-NNNNN-of-NNNNN.gguf` suffix.
        public let prefix: String
        /// The part's number, from 1.
        public let part: Int
        /// How many parts the model has.
        public let count: Int

        /// Parses a file name; nil unless it is exactly `PREFIX-%05d-of-%05d.gguf` with
        /// `1 ≤ part ≤ count` and a non-empty prefix.
        public init?(_ fileName: String) {
            guard fileName.hasSuffix(".gguf"), let of = fileName.range(of: "-of-", options: .backwards) else { return nil }
            let countText = fileName[of.upperBound..<fileName.index(fileName.endIndex, offsetBy: -5)]
            let head = fileName[..<of.lowerBound]
            guard let dash = head.lastIndex(of: "-") else { return nil }
            let partText = head[head.index(after: dash)...]
            guard countText.allSatisfy(\.isASCII), partText.allSatisfy(\.isASCII),
                  let part = Int(partText), let count = Int(countText), part >= 1, part <= count, dash > head.startIndex
            else { return nil }
            self.prefix = String(head[..<dash])
            self.part = part
            self.count = count
            guard self.fileName(part: part) == fileName else { return nil }   // only the canonical spelling
        }

        /// The file name of part `part` (from 1) of the same model.
        public func fileName(part: Int) -> String {
            prefix + "-" + Self.padded(part) + "-of-" + Self.padded(count) + ".gguf"
        }

        /// `value` with at least five digits, as `%05d` writes it.
        private static func padded(_ value: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
        }
    }
}
