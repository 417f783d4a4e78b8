import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A saved conversation: one file with the transcript, the settings, the model's
/// fingerprint and the KV cache.
///
/// Layout: `"LLMKCONV"`, version (UInt32), header length (UInt64), header (JSON),
/// state length (UInt64), state (llama.cpp's sequence state), CRC-32 of all that
/// (UInt32); integers little-endian.
struct ConversationArchive: Equatable, Sendable {
    static let magic = Array("LLMKCONV".utf8)
    static let version: UInt32 = 1

    struct Header: Codable, Equatable {
        var model: ModelFingerprint
        /// The conversation's configuration, with its context length filled in.
        var configuration: Conversation.Configuration
        var instructions: String?
        var transcript: [ChatMessage]
        var turnCount: Int
        var cachedTokens: [Int32]
        var savedAt: Date
    }

    var header: Header
    var state: [UInt8]

    /// The file's bytes.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let json = try encoder.encode(header)
        var data = Data(Self.magic)
        append(Self.version, to: &data)
        append(UInt64(json.count), to: &data)
        data.append(json)
        append(UInt64(state.count), to: &data)
        data.append(contentsOf: state)
        append(data.withUnsafeBytes { Checksums.crc32($0) }, to: &data)
        return data
    }

    /// The largest header read (the transcript and the cached tokens, as JSON).
    static let maximumHeaderBytes: UInt64 = 64 << 20

    /// Reads and checks an archive without reading more than it can need: the sizes it declares
    /// are checked against the file's size and the bounds first, the checksum is computed in
    /// chunks, and the cache data is read last, once it is known to fit `maximumStateBytes` (the
    /// most a sequence of the model can hold). A huge or sparse file costs no memory.
    /// - Throws: ``Conversation/Error/invalidFile(path:reason:)``.
    init(contentsOf url: URL, maximumStateBytes: Int = .max) throws {
        func fail(_ reason: String) -> Conversation.Error { .invalidFile(path: url.path, reason: reason) }
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw fail("cannot open it: \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fail("cannot read it: \(String(cString: strerror(errno)))") }
        if let kind = FileReplacement.kind(of: info.st_mode) { throw fail("it is \(kind), not a regular file") }
        let size = UInt64(info.st_size)
        var reader = FileReader(handle: handle, size: size)
        do {
            guard try reader.read(count: UInt64(Self.magic.count)).map(Array.init) == Self.magic else {
                throw fail("not a LocalLLMKit conversation file")
            }
            guard let version = try reader.readInteger(UInt32.self) else { throw fail("truncated header") }
            guard version == Self.version else { throw fail("unsupported version \(version)") }
            guard let headerLength = try reader.readInteger(UInt64.self) else { throw fail("truncated header") }
            // magic, version, header length, state length, checksum
            let framing = UInt64(Self.magic.count + 4 + 8 + 8 + 4)
            guard headerLength <= Self.maximumHeaderBytes else {
                throw fail("its header declares \(headerLength) bytes; at most \(Self.maximumHeaderBytes) are read")
            }
            guard headerLength <= size - min(size, framing), let json = try reader.read(count: headerLength) else {
                throw fail("truncated header: it declares \(headerLength) bytes, and the file has \(size) in all")
            }
            guard let stateLength = try reader.readInteger(UInt64.self) else { throw fail("truncated cache data") }
            let expected = framing.addingReportingOverflow(headerLength).partialValue.addingReportingOverflow(stateLength)
            guard !expected.overflow, expected.partialValue == size else {
                throw fail("truncated or followed by extra bytes: its sizes add up to \(expected.overflow ? "more than 2^64" : "\(expected.partialValue)") "
                           + "bytes, and the file has \(size)")
            }
            guard stateLength <= UInt64(maximumStateBytes) else {
                throw fail("it declares \(stateLength) bytes of cache data, more than this model's cache can hold (at most \(maximumStateBytes) bytes)")
            }
            guard try reader.checksumMatches() else { throw fail("damaged (checksum mismatch)") }
            guard let state = try reader.read(count: stateLength, at: reader.offset) else { throw fail("truncated cache data") }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            do {
                header = try decoder.decode(Header.self, from: json)
            } catch {
                throw fail("unreadable header: \(error)")
            }
            self.state = Array(state)
        } catch let error as Conversation.Error {
            throw error
        } catch {
            throw fail("cannot read it: \(SystemErrorText.describe(error))")
        }
    }

    init(header: Header, state: [UInt8]) {
        self.header = header
        self.state = state
    }

    private func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

/// Reads little-endian integers and byte runs from an open file, never past its size, and checks
/// the CRC-32 at its end in chunks.
private struct FileReader {
    let handle: FileHandle
    let size: UInt64
    var offset: UInt64 = 0

    /// `count` bytes from the current offset; nil past the end.
    mutating func read(count: UInt64) throws -> Data? {
        guard let data = try read(count: count, at: offset) else { return nil }
        offset += count
        return data
    }

    /// `count` bytes from `position`; nil past the end.
    func read(count: UInt64, at position: UInt64) throws -> Data? {
        guard position <= size, count <= size - position else { return nil }
        try handle.seek(toOffset: position)
        let data = try handle.read(upToCount: Int(count)) ?? Data()
        return data.count == Int(count) ? data : nil
    }

    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
        guard let bytes = try read(count: UInt64(MemoryLayout<T>.size)) else { return nil }
        return bytes.reversed().reduce(T.zero) { $0 << 8 | T($1) }
    }

    /// Whether the last four bytes are the CRC-32 of all before them, read 1 MiB at a time.
    func checksumMatches() throws -> Bool {
        guard size >= 4, let stored = try read(count: 4, at: size - 4) else { return false }
        var crc: UInt32 = 0
        var position: UInt64 = 0
        try handle.seek(toOffset: 0)
        while position < size - 4 {
            let count = Int(min(1 << 20, size - 4 - position))
            guard let chunk = try handle.read(upToCount: count), chunk.count == count else { return false }
            crc = chunk.withUnsafeBytes { Checksums.crc32($0, seed: crc) }
            position += UInt64(count)
        }
        return stored.reversed().reduce(UInt32.zero) { $0 << 8 | UInt32($1) } == crc
    }
}
