import Foundation
import Testing
@testable import LocalLLMKit

@Suite("Remote: server-sent events")
struct RemoteServerSentEventsTests {
    typealias Event = ServerSentEventParser.Event

    static func parser(line: Int = 1 << 16, event: Int = 1 << 16) -> ServerSentEventParser {
        ServerSentEventParser(maximumLineBytes: line, maximumEventBytes: event)
    }

    /// Feeds `text` in pieces cut at `cuts` (byte offsets).
    static func events(_ text: String, cutAt cuts: [Int] = [], parser: ServerSentEventParser = parser()) throws -> [Event] {
        var parser = parser
        let bytes = Array(text.utf8)
        var events: [Event] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            events += try parser.feed(bytes[start..<cut])
            start = cut
        }
        return events
    }

    /// A stream like llama-server's: comments, an `event:` field, CR LF and CR line ends, multi-line
    /// events (with each kind of line end), a field without a space after its colon, an unknown
    /// field, and [DONE].
    static let stream = ": keep-alive\r\n"
        + "data: {\"a\":1}\r\n\r\n"
        + "event: update\nid: 7\ndata: first line\ndata: second — ünïcode 🙂\nretry: 10\nfoo: bar\n\n"
        + "data: crlf one\r\ndata: crlf two\r\n\r\n"
        + "data:no space\r\r"
        + "data: cr one\rdata: cr two\r\r"
        + "data\n\n"
        + ": comment\n\n"
        + "data: [DONE]\n\n"

    static let expected = [
        Event(type: "message", data: "{\"a\":1}", id: nil),
        Event(type: "update", data: "first line\nsecond — ünïcode 🙂", id: "7"),
        Event(type: "message", data: "crlf one\ncrlf two", id: "7"),
        Event(type: "message", data: "no space", id: "7"),
        Event(type: "message", data: "cr one\ncr two", id: "7"),
        Event(type: "message", data: "", id: "7"),
        Event(type: "message", data: "[DONE]", id: "7"),
    ]

    @Test("whole stream: comments, event and id fields, multi-line data, CR LF, CR and LF line ends")
    func wholeStream() throws {
        #expect(try Self.events(Self.stream) == Self.expected)
    }

    @Test("the same events whatever byte the stream is split at, even inside CR LF and inside a character")
    func everySplit() throws {
        let count = Self.stream.utf8.count
        for cut in 0...count {
            #expect(try Self.events(Self.stream, cutAt: [cut]) == Self.expected, "split at byte \(cut)")
        }
        for first in stride(from: 0, through: count, by: 7) {
            for second in stride(from: first, through: count, by: 5) {
                #expect(try Self.events(Self.stream, cutAt: [first, second]) == Self.expected, "split at \(first) and \(second)")
            }
        }
        let oneByteAtATime = Array(0...count)
        #expect(try Self.events(Self.stream, cutAt: oneByteAtATime) == Self.expected)
    }

    @Test("a UTF-8 byte-order mark at the start is dropped, also when it arrives a byte at a time")
    func byteOrderMark() throws {
        let text = "\u{FEFF}data: x\n\n"
        #expect(try Self.events(text) == [Event(type: "message", data: "x", id: nil)])
        #expect(try Self.events(text, cutAt: [1, 2, 3, 4]) == [Event(type: "message", data: "x", id: nil)])
        // Bytes that only begin like a mark are text (here a field name), not dropped.
        var parser = Self.parser()
        #expect(try parser.feed([0xEF]).isEmpty)
        #expect(try parser.feed(Array("data: y\n\n".utf8)) == [])
    }

    @Test("an event left incomplete at the end of the stream is not dispatched")
    func incompleteEvent() throws {
        #expect(try Self.events("data: one\n\ndata: two\n") == [Event(type: "message", data: "one", id: nil)])
        #expect(try Self.events("data: one\n\ndata: two").count == 1)
    }

    @Test("an event without data is not dispatched, and its type does not leak into the next one")
    func eventWithoutData() throws {
        #expect(try Self.events("event: ping\n\ndata: x\n\n") == [Event(type: "message", data: "x", id: nil)])
    }

    @Test("an over-long line is refused, even without a line end in sight")
    func longLine() throws {
        let parser = Self.parser(line: 100, event: 1000)
        #expect(throws: RemoteModel.Error.self) { try Self.events("data: " + String(repeating: "x", count: 200) + "\n\n", parser: parser) }
        var streaming = parser
        #expect(throws: RemoteModel.Error.self) {
            for _ in 0..<10 { _ = try streaming.feed(Array(String(repeating: "y", count: 20).utf8)) }
        }
        #expect(try Self.events("data: " + String(repeating: "x", count: 94) + "\n\n", parser: parser).count == 1)
    }

    @Test("an event larger than its bound is refused, even when each of its lines is short")
    func largeEvent() throws {
        let parser = Self.parser(line: 100, event: 250)
        let manyLines = String(repeating: "data: " + String(repeating: "z", count: 50) + "\n", count: 6) + "\n"
        do {
            _ = try Self.events(manyLines, parser: parser)
            Issue.record("an event of 306 bytes passed a bound of 250")
        } catch let error as RemoteModel.Error {
            guard case .invalidResponse(let reason) = error else { throw error }
            #expect(reason.contains("larger than 250 bytes"))
        }
        // Each event is bounded on its own: many small events are fine.
        let smallEvents = String(repeating: "data: " + String(repeating: "z", count: 50) + "\n\n", count: 20)
        #expect(try Self.events(smallEvents, parser: parser).count == 20)
    }
}
