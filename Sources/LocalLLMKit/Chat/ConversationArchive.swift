import Foundation

/// A saved conversation: one file with the transcript, the settings, the model's
/// fingerprint and the KV cache.
///
/// Layout: `"LLMKCONV"`, version (UInt32), header length (UInt64), header (JSON),
/// state length (UInt64), state (llama.cpp's sequence state), CRC-32 of all that
/// (UInt32); integers little-endian.
struct ConversationArchive: Equatable {
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

    /// Reads and checks an archive.
    /// - Throws: ``Conversation/Error/invalidFile(path:reason:)``.
    init(contentsOf url: URL) throws {
        func fail(_ reason: String) -> Conversation.Error { .invalidFile(path: url.path, reason: reason) }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw fail("cannot read it: \(error.localizedDescription)")
        }
        var reader = ByteReader(data: data)
        guard reader.read(count: Self.magic.count).map(Array.init) == Self.magic else {
            throw fail("not a LocalLLMKit conversation file")
        }
        guard let version = reader.readInteger(UInt32.self) else { throw fail("truncated header") }
        guard version == Self.version else { throw fail("unsupported version \(version)") }
        guard let headerLength = reader.readInteger(UInt64.self), let json = reader.read(count: headerLength) else {
            throw fail("truncated header")
        }
        guard let stateLength = reader.readInteger(UInt64.self), let state = reader.read(count: stateLength) else {
            throw fail("truncated cache data")
        }
        let checked = reader.offset
        guard let checksum = reader.readInteger(UInt32.self), reader.offset == data.count else {
            throw fail("truncated or followed by extra bytes")
        }
        guard data.prefix(checked).withUnsafeBytes({ Checksums.crc32($0) }) == checksum else {
            throw fail("damaged (checksum mismatch)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            header = try decoder.decode(Header.self, from: json)
        } catch {
            throw fail("unreadable header: \(error)")
        }
        self.state = Array(state)
    }

    init(header: Header, state: [UInt8]) {
        self.header = header
        self.state = state
    }

    private func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

/// Reads little-endian integers and byte runs from Data, never past its end.
private struct ByteReader {
    let data: Data
    var offset = 0

    mutating func read(count: some BinaryInteger) -> Data? {
        guard count >= 0, UInt64(count) <= UInt64(data.count - offset) else { return nil }
        let start = data.startIndex + offset
        offset += Int(count)
        return data[start..<(start + Int(count))]
    }

    mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        guard let bytes = read(count: MemoryLayout<T>.size) else { return nil }
        return bytes.reversed().reduce(T.zero) { $0 << 8 | T($1) }
    }
}
