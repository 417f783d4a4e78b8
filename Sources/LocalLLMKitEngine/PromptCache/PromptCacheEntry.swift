import Foundation

/// One file of the prompt cache: the tokens a sequence held and its KV cache state, with the key
/// of the model that computed them.
///
/// Layout, little-endian: `LLMKPC01`, the key's length (u32) and the key (UTF-8), the token count
/// (u32) and the tokens (i32 each), the state's length (u64) and the state, then the SHA-256 of
/// everything before it (64 hexadecimal digits). A reader checks the sizes before reading what
/// they announce.
struct PromptCacheEntry: Equatable {
    static let magic = Array("LLMKPC01".utf8)
    static let digestBytes = 64

    var key: String
    var tokens: [Int32]
    var state: [UInt8]

    /// What makes a file one of this model's entries.
    struct Expectation {
        var key: String
        var vocabularySize: Int
        var maximumTokens: Int
        var maximumStateBytes: Int
    }

    /// The file's bytes.
    func encoded() -> Data {
        var data = Data(Self.magic)
        let keyBytes = Array(key.utf8)
        data.appendLittleEndian(UInt32(keyBytes.count))
        data.append(contentsOf: keyBytes)
        data.appendLittleEndian(UInt32(tokens.count))
        tokens.withUnsafeBytes { data.append(contentsOf: $0) }
        data.appendLittleEndian(UInt64(state.count))
        data.append(contentsOf: state)
        data.append(Data(SHA256Digest.hex(of: data).utf8))
        return data
    }

    /// The tokens of the entry at `url`, from its header alone; nil when the header is not one of
    /// `expectation`'s entries (or the file cannot be read).
    static func tokens(at url: URL, expecting expectation: Expectation) -> [Int32]? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let headerBytes = magic.count + 4 + expectation.key.utf8.count + 4 + 4 * expectation.maximumTokens
        guard let prefix = try? handle.read(upToCount: headerBytes) else { return nil }
        var reader = Reader(data: prefix)
        return try? readHeader(&reader, expecting: expectation)
    }

    /// The token count an entry's header announces, whatever model's it is; nil when the file
    /// does not start as an entry. For listing, not for use: ``read(at:expecting:)`` checks the rest.
    static func tokenCount(at url: URL) -> Int? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: magic.count + 4) else { return nil }
        var reader = Reader(data: head)
        guard (try? reader.bytes(magic.count)) == magic, let keyCount = try? reader.integer(UInt32.self), keyCount <= 4096,
              let rest = try? handle.read(upToCount: Int(keyCount) + 4) else { return nil }
        var tail = Reader(data: rest)
        guard (try? tail.bytes(Int(keyCount))) != nil, let count = try? tail.integer(UInt32.self) else { return nil }
        return Int(count)
    }

    /// The whole entry at `url`, checked: nil when anything about it is wrong.
    static func read(at url: URL, expecting expectation: Expectation) -> PromptCacheEntry? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        // The model's bound on a state can be huge (a forged header): the sum must not overflow.
        let header = magic.count + 4 + expectation.key.utf8.count + 4 + 4 * expectation.maximumTokens + 8 + digestBytes
        let (limit, overflow) = header.addingReportingOverflow(expectation.maximumStateBytes)
        guard overflow || status.st_size <= limit, let data = try? Data(contentsOf: url, options: .mappedIfSafe),
              data.count > digestBytes else { return nil }
        var reader = Reader(data: data)
        guard let tokens = try? readHeader(&reader, expecting: expectation),
              let stateCount = try? reader.integer(UInt64.self), stateCount <= UInt64(expectation.maximumStateBytes),
              reader.remaining == Int(stateCount) + digestBytes,
              let state = try? reader.bytes(Int(stateCount)) else { return nil }
        guard String(decoding: data.suffix(digestBytes), as: UTF8.self) == SHA256Digest.hex(of: data.prefix(data.count - digestBytes)) else {
            return nil
        }
        return PromptCacheEntry(key: expectation.key, tokens: tokens, state: state)
    }

    private static func readHeader(_ reader: inout Reader, expecting expectation: Expectation) throws -> [Int32] {
        guard try reader.bytes(magic.count) == magic else { throw Reader.Invalid() }
        let keyCount = try reader.integer(UInt32.self)
        guard keyCount == expectation.key.utf8.count, try reader.bytes(Int(keyCount)) == Array(expectation.key.utf8) else {
            throw Reader.Invalid()
        }
        let count = try reader.integer(UInt32.self)
        guard count > 0, count <= expectation.maximumTokens else { throw Reader.Invalid() }
        let tokens = try reader.bytes(4 * Int(count)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
            .map { Int32(littleEndian: $0) }
        guard tokens.allSatisfy({ $0 >= 0 && Int($0) < expectation.vocabularySize }) else { throw Reader.Invalid() }
        return tokens
    }

    /// Reads little-endian values from the front of some bytes.
    private struct Reader {
        struct Invalid: Error {}
        let data: Data
        var offset = 0

        var remaining: Int { data.count - offset }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, count <= remaining else { throw Invalid() }
            let start = data.startIndex + offset
            offset += count
            return Array(data[start..<start + count])
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            let bytes = try bytes(MemoryLayout<T>.size)
            return bytes.reversed().reduce(T.zero) { ($0 << 8) | T($1) }
        }
    }
}

extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
