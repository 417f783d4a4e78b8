import CLlama
import Foundation

/// The header of a GGUF model file: its metadata and tensor layout, read and
/// validated without loading any weights.
///
/// ```swift
/// let file = try GGUFFile(contentsOf: url)
/// print(file.architecture ?? "?", file.parameterCount, file.quantization ?? "?")
/// ```
///
/// Reading checks the magic bytes, the version, every metadata entry and tensor
/// descriptor (through ggml's own `gguf` reader), and that all tensor data lies
/// inside the file. A file that fails any check throws
/// ``GGUFFile/Error/invalidFile(path:reason:)``; nothing aborts the process.
public struct GGUFFile: Sendable {
    /// Arrays with more elements than this are summarized as ``GGUFValue/largeArray(elementType:count:)``.
    public static let maximumArrayElements = 1024

    /// The file that was read (for a split model read by ``init(modelAt:)``, its first part).
    public let url: URL
    /// Every file of the model, in order: `[url]`, or all parts of a split model read by
    /// ``init(modelAt:)``.
    public let partURLs: [URL]
    /// The GGUF format version (2 or 3).
    public let version: Int
    /// The size of the file in bytes (of all parts, for a split model read by ``init(modelAt:)``).
    public let fileSize: Int64
    /// The alignment of the tensor data section.
    public let alignment: Int
    /// Where the tensor data starts, in bytes from the start of the file.
    public let dataOffset: Int64
    /// The size of the tensor data section in bytes.
    public let tensorDataSize: Int64
    /// The number of tensors.
    public let tensorCount: Int
    /// The number of weights, summed over all tensors.
    public let parameterCount: Int64
    /// Every metadata entry, by key.
    public let metadata: [String: GGUFValue]
    /// Every tensor descriptor, in file order.
    public let tensors: [Tensor]
    /// What the loadability check needs to know about the token list.
    package let vocabulary: GGUFVocabularyScan

    /// Reads and validates the header of the GGUF file at `url`.
    /// - Throws: ``GGUFFile/Error/fileNotFound(path:)`` or ``GGUFFile/Error/invalidFile(path:reason:)``.
    public init(contentsOf url: URL) throws {
        LlamaRuntime.ensureInitialized()
        let path = url.path
        let fileSize = try Self.preflight(path: path)
        let (context, errors) = LlamaLog.collectingErrors {
            gguf_init_from_file(path, gguf_init_params(no_alloc: true, ctx: nil))
        }
        guard let context else {
            let detail = errors.summary.map { ": \($0)" } ?? ""
            throw GGUFFile.Error.invalidFile(path: path, reason: "the GGUF header is damaged or truncated\(detail)")
        }
        defer { gguf_free(context) }

        let reader = GGUFHeaderReader(context: context)
        self.url = url
        self.partURLs = [url]
        self.version = Int(gguf_get_version(context))
        self.fileSize = fileSize
        self.alignment = gguf_get_alignment(context)
        self.dataOffset = Int64(gguf_get_data_offset(context))
        self.tensorCount = Int(gguf_get_n_tensors(context))
        self.metadata = reader.metadata()
        self.tensors = reader.tensors()
        self.vocabulary = GGUFVocabularyScan(context: context)
        let layout = reader.tensorLayout()
        self.tensorDataSize = layout.dataSize
        self.parameterCount = layout.parameterCount

        let end = dataOffset.addingReportingOverflow(tensorDataSize)
        if end.overflow || end.partialValue > fileSize {
            throw GGUFFile.Error.invalidFile(
                path: path,
                reason: "tensor data ends at byte \(end.overflow ? "∞" : String(end.partialValue)) but the file has only \(fileSize) bytes (truncated or damaged)")
        }
    }

    /// Checks what can be checked before ggml reads the file: it exists, is a
    /// regular file, starts with the GGUF magic and a supported version.
    ///
    /// The file type comes from `stat` (which follows symbolic links) before anything
    /// opens the file: opening a FIFO would block until a writer appears, and a device
    /// can be endless. The file is then opened non-blocking and checked again, so a
    /// path swapped for a FIFO in between cannot block either.
    private static func preflight(path: String) throws -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw GGUFFile.Error.fileNotFound(path: path) }
            throw GGUFFile.Error.invalidFile(path: path, reason: "it cannot be examined (\(String(cString: strerror(errno))))")
        }
        try requireRegularFile(status, path: path)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw GGUFFile.Error.invalidFile(path: path, reason: "the file cannot be opened for reading (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else {
            throw GGUFFile.Error.invalidFile(path: path, reason: "the file cannot be examined")
        }
        try requireRegularFile(status, path: path)
        let size = Int64(status.st_size)
        if size == 0 {
            throw GGUFFile.Error.invalidFile(path: path, reason: "the file is empty (0 bytes)")
        }
        var head = [UInt8](repeating: 0, count: 24)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 24, 0) }
        guard count >= 4, head[0..<4].elementsEqual("GGUF".utf8) else {
            throw GGUFFile.Error.invalidFile(path: path, reason: "not a GGUF file (the first bytes are not the \"GGUF\" magic)")
        }
        guard count == 24 else {
            throw GGUFFile.Error.invalidFile(path: path, reason: "the file ends inside the GGUF header (\(size) bytes)")
        }
        let version = head[4..<8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == 2 || version == 3 else {
            throw GGUFFile.Error.invalidFile(path: path, reason: "unsupported GGUF version \(version) (supported: 2 and 3)")
        }
        return size
    }

    /// Throws unless `status` describes a regular file, naming what it is instead.
    private static func requireRegularFile(_ status: stat, path: String) throws {
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a special file"
        }
        throw GGUFFile.Error.invalidFile(path: path, reason: "it is \(kind), not a regular file")
    }
}
