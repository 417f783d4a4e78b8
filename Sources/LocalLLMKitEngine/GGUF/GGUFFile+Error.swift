import Foundation

extension GGUFFile {
    /// What can be wrong with a GGUF file: its header, its values, or the parts of a split model.
    ///
    /// The reader throws these before llama.cpp sees the file, so that a damaged or hostile file
    /// is a typed error instead of an abort. ``LocalModel/load(from:configuration:)`` lets them
    /// through unchanged; each case names the file and `errorDescription` says what is wrong.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// No file exists at `path`.
        case fileNotFound(path: String)
        /// The file at `path` is not a GGUF file that llama.cpp can read; `reason` says why.
        case invalidFile(path: String, reason: String)
        /// The GGUF header at `path` is well formed, but its metadata value or tensor `key`
        /// (`value`) would make llama.cpp abort or misbehave; `reason` says why.
        case unloadable(path: String, key: String, value: String, reason: String)
        /// The file at `path` is part `part` of `count` of a split model; load its first part,
        /// `firstPart`, which loads them all.
        case splitPartNotFirst(path: String, part: Int, count: Int, firstPart: String)
        /// Part `part` of `count` of a split model is missing: no file at `path`.
        case missingSplitPart(path: String, part: Int, count: Int)
        /// The file at `path`, found where a part of a split model should be, does not belong
        /// to it (another model's part, a wrong count); `reason` says why.
        case mismatchedSplitPart(path: String, reason: String)
    }
}

extension GGUFFile.Error: LocalizedError {
    /// A one-line description that names the file and what was wrong with it.
    public var errorDescription: String? {
        switch self {
        case .fileNotFound(let path):
            return "model file not found: \(path)"
        case .invalidFile(let path, let reason):
            return "invalid model file \(path): \(reason)"
        case .unloadable(let path, let key, let value, let reason):
            return "model file \(path) cannot be loaded: \(key) = \(value): \(reason)"
        case .splitPartNotFirst(let path, let part, let count, let firstPart):
            return "model file \(path) is part \(part) of \(count) of a split model: load its first part, \(firstPart)"
        case .missingSplitPart(let path, let part, let count):
            return "part \(part) of \(count) of the split model is missing: \(path)"
        case .mismatchedSplitPart(let path, let reason):
            return "split model part \(path) does not belong to the model: \(reason)"
        }
    }
}
