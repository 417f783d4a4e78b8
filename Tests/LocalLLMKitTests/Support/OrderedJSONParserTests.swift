import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Ordered JSON parser")
struct OrderedJSONParserTests {
    @Test("deep nesting is an error, not a stack overflow")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: OrderedJSONParser.Failure.self) { try OrderedJSONParser.parse(deep) }
        let allowed = String(repeating: "[", count: OrderedJSONParser.maximumDepth) + String(repeating: "]", count: OrderedJSONParser.maximumDepth)
        #expect(throws: Never.self) { try OrderedJSONParser.parse(allowed) }
    }

    @Test("escaped surrogate pairs become one character; lone surrogates a replacement character")
    func surrogates() throws {
        #expect(try OrderedJSONParser.parse(#""\uD83D\uDE00 and \u00e9""#) == .string("😀 and é"))
        #expect(try OrderedJSONParser.parse(#""\uD83D""#) == .string("\u{FFFD}"))
    }

    @Test("what JSON does not allow is refused", arguments: ["+1", "01", "-01", #""\x""#, "[1,]x"])
    func invalid(_ text: String) {
        #expect(throws: OrderedJSONParser.Failure.self) { try OrderedJSONParser.parse(text) }
    }

    @Test("numbers, escapes and key order survive")
    func valid() throws {
        let parsed = try OrderedJSONParser.parse(#"{"z": 0, "a": -0.5, "s": "a\"b\\c\/d\n"}"#)
        #expect(parsed == .object([("z", .integer(0)), ("a", .number(-0.5)), ("s", .string("a\"b\\c/d\n"))]))
    }
}
