import Foundation

extension GGUFFile {
    /// Reads the header of the model at `url`; when `url` is the first part of a split
    /// model, reads every other part too (in the same folder, named as llama.cpp names them,
    /// ``SplitName``) and checks that they belong together: each says it is the expected
    /// part of as many as the first, with the same tensor total, and no tensor is in two parts.
    ///
    /// The result describes the whole model: part 1's metadata, every part's tensors,
    /// the summed ``parameterCount`` and ``fileSize``, and ``partURLs`` in order.
    /// - Throws: what ``init(contentsOf:)`` throws for any part,
    ///   ``GGUFFile/Error/splitPartNotFirst(path:part:count:firstPart:)`` for a part other than the first,
    ///   ``GGUFFile/Error/missingSplitPart(path:part:count:)`` and
    ///   ``GGUFFile/Error/mismatchedSplitPart(path:reason:)``.
    public init(modelAt url: URL) throws {
        let first = try GGUFFile(contentsOf: url)
        guard let split = try first.splitInfo() else {
            self = first
            return
        }
        let folder = url.deletingLastPathComponent()
        let name = SplitName(url.lastPathComponent)
        guard split.part == 1 else {
            let firstName = name.map { $0.fileName(part: 1) } ?? "its part 1"
            throw GGUFFile.Error.splitPartNotFirst(path: url.path, part: split.part, count: split.count,
                                                     firstPart: folder.appending(path: firstName).path)
        }
        guard let name, name.part == 1, name.count == split.count else {
            throw GGUFFile.Error.invalidFile(
                path: url.path,
                reason: "it is part 1 of \(split.count) of a split model, but its name does not end in "
                    + "-00001-of-\(String(format: "%05d", split.count)).gguf, so its other parts cannot be found")
        }
        var owner: [String: Int] = [:]
        for tensor in first.tensors { owner[tensor.name] = 1 }
        var parts = [first]
        for part in 2...split.count {
            let partURL = folder.appending(path: name.fileName(part: part))
            func mismatch(_ reason: String) -> GGUFFile.Error { .mismatchedSplitPart(path: partURL.path, reason: reason) }
            let file: GGUFFile
            do {
                file = try GGUFFile(contentsOf: partURL)
            } catch GGUFFile.Error.fileNotFound {
                throw GGUFFile.Error.missingSplitPart(path: partURL.path, part: part, count: split.count)
            }
            guard let info = try file.splitInfo() else {
                throw mismatch("it has no split metadata, so it is not a part of this model")
            }
            guard info.part == part, info.count == split.count else {
                throw mismatch("it is part \(info.part) of \(info.count), expected part \(part) of \(split.count): it belongs to another model")
            }
            guard info.tensorCount == split.tensorCount else {
                throw mismatch("its split.tensors.count is \(info.tensorCount) but part 1's is \(split.tensorCount): it belongs to another model")
            }
            for tensor in file.tensors {
                if let other = owner[tensor.name] {
                    throw mismatch("tensor \(tensor.name) is also in part \(other): it belongs to another model")
                }
                owner[tensor.name] = part
            }
            parts.append(file)
        }
        guard owner.count == split.tensorCount else {
            throw GGUFFile.Error.mismatchedSplitPart(
                path: url.path, reason: "the \(split.count) parts hold \(owner.count) tensors, but split.tensors.count is \(split.tensorCount)")
        }
        self = GGUFFile(merging: parts)
    }

    /// The whole model described by its parts, first part first.
    private init(merging parts: [GGUFFile]) {
        let first = parts[0]
        self.url = first.url
        self.partURLs = parts.map(\.url)
        self.version = first.version
        self.fileSize = parts.reduce(0) { $0 + $1.fileSize }
        self.alignment = first.alignment
        self.dataOffset = first.dataOffset
        self.tensorDataSize = parts.reduce(0) { $0 + $1.tensorDataSize }
        self.tensorCount = parts.reduce(0) { $0 + $1.tensorCount }
        self.parameterCount = parts.reduce(0) { $0 + $1.parameterCount }
        self.metadata = first.metadata
        self.tensors = parts.flatMap(\.tensors)
        self.vocabulary = first.vocabulary
    }
}
