/// Reads a `text/event-stream` (server-sent events, as the HTML standard defines them) as its
/// bytes arrive, in pieces of any size: lines end in LF, CR or CR LF (also when a piece ends
/// between the two), `:` lines are comments, several `data:` lines make one event, and a blank
/// line ends each event. An event left incomplete at the end of the stream is dropped.
///
/// The server is not trusted: a line or an event's data longer than the bounds fails instead of
/// growing without end.
struct ServerSentEventParser {
    /// One dispatched event.
    struct Event: Sendable, Equatable {
        /// The `event:` field, `message` when there was none.
        var type: String
        /// The `data:` lines, joined by line feeds.
        var data: String
        /// The last `id:` seen so far in the stream, if any.
        var id: String?
    }

    /// The most bytes of one line.
    let maximumLineBytes: Int
    /// The most bytes of one event's data.
    let maximumEventBytes: Int

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var type: String?
    private var lastID: String?
    /// The previous piece ended in CR: a LF that starts the next one belongs to that line end.
    private var skipsLineFeed = false
    /// How many bytes of a leading byte-order mark have been seen; nil once past the start.
    private var byteOrderMark: Int? = 0

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let markBytes: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A parser with the given bounds.
    init(maximumLineBytes: Int, maximumEventBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
        self.maximumEventBytes = maximumEventBytes
    }

    /// Reads the next piece of the stream.
    /// - Returns: the events that the piece completed, in order.
    /// - Throws: ``RemoteModel/Error/invalidResponse(reason:)`` when a line or an event exceeds its bound.
    mutating func feed(_ bytes: some Collection<UInt8>) throws -> [Event] {
        var events: [Event] = []
        var rest = Array(bytes)[...]
        if let seen = byteOrderMark {
            rest = skipByteOrderMark(rest, seen: seen)
        }
        while let first = rest.first {
            if skipsLineFeed {
                skipsLineFeed = false
                if first == Self.lineFeed {
                    rest = rest.dropFirst()
                    continue
                }
            }
            guard let end = rest.firstIndex(where: { $0 == Self.lineFeed || $0 == Self.carriageReturn }) else {
                try appendToLine(rest)
                break
            }
            try appendToLine(rest[..<end])
            skipsLineFeed = rest[end] == Self.carriageReturn
            rest = rest[rest.index(after: end)...]
            if let event = try endLine() { events.append(event) }
        }
        return events
    }

    /// Drops a UTF-8 byte-order mark at the very start, even when it arrives in pieces.
    private mutating func skipByteOrderMark(_ bytes: ArraySlice<UInt8>, seen: Int) -> ArraySlice<UInt8> {
        var seen = seen
        var rest = bytes
        while let byte = rest.first, seen < Self.markBytes.count {
            guard byte == Self.markBytes[seen] else {
                // Not a mark after all: the bytes taken for one are text.
                byteOrderMark = nil
                return Self.markBytes[..<seen] + rest
            }
            seen += 1
            rest = rest.dropFirst()
        }
        byteOrderMark = seen == Self.markBytes.count ? nil : seen
        return rest
    }

    private mutating func appendToLine(_ bytes: ArraySlice<UInt8>) throws {
        guard line.count + bytes.count <= maximumLineBytes else {
            throw RemoteModel.Error.invalidResponse(reason: "a line of the event stream is longer than \(maximumLineBytes) bytes")
        }
        line.append(contentsOf: bytes)
    }

    /// Interprets the line just ended; a blank line dispatches the event it ends.
    private mutating func endLine() throws -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }       // a comment (often a keep-alive)
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "data":
            guard data.count + value.count + 1 <= maximumEventBytes else {
                throw RemoteModel.Error.invalidResponse(reason: "an event of the stream is larger than \(maximumEventBytes) bytes")
            }
            data.append(contentsOf: value)
            data.append(Self.lineFeed)
            hasData = true
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id" where !value.contains(0):
            lastID = String(decoding: value, as: UTF8.self)
        default:
            break                                                 // `retry` and unknown fields
        }
        return nil
    }

    /// The event whose fields were read, if it has data; the fields start over.
    private mutating func dispatch() -> Event? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            type = nil
        }
        guard hasData else { return nil }
        return Event(type: type ?? "message", data: String(decoding: data.dropLast(), as: UTF8.self), id: lastID)
    }
}
