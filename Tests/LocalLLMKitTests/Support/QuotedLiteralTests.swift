import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Quoted literals: JSON strings and GBNF literals")
struct QuotedLiteralTests {
    /// Every C0 control, the printable ASCII range, DEL, and a few scalars beyond ASCII.
    static let text = String(String.UnicodeScalarView((0...0x80).compactMap(Unicode.Scalar.init) + ["é", "😀", "\u{2028}"]))

    /// The scalars a literal spells out with a backslash, read back from its text.
    static func escaped(in literal: String) -> [UInt32] {
        literal.unicodeScalars.filter { $0.value < 0x20 || $0.value == 0x7F }.map(\.value)
    }

    @Test("a JSON string reads back as the text, and holds no raw control character")
    func json() throws {
        let literal = QuotedLiteral.quoted(Self.text, as: .json)
        let decoded = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
        #expect(decoded == Self.text)
        #expect(Self.escaped(in: literal).isEmpty)
        #expect(literal.contains(#"\u007f"#) && literal.contains(#"\u001f"#) && literal.contains(#"\n"#))
        #expect(try OrderedJSONParser.parse(literal) == .string(Self.text))
    }

    @Test("a GBNF literal escapes the same characters and llama.cpp's grammar parser reads it")
    func grammar() async throws {
        let literal = QuotedLiteral.quoted(Self.text, as: .grammar)
        #expect(Self.escaped(in: literal).isEmpty)
        #expect(literal.contains(#"\x7f"#) && literal.contains(#"\x1f"#) && literal.contains(#"\n"#))
        // The same characters are escaped in both: only the spelling of numeric escapes differs.
        let json = QuotedLiteral.quoted(Self.text, as: .json)
        #expect(json.replacingOccurrences(of: #"\u00"#, with: #"\x"#) == literal)
        let model = try await TestModel.grammarVocabulary()
        let (accepted, reason) = model.handle.parseGrammar("root ::= " + literal)
        #expect(accepted, "\(reason ?? "")")
        #expect(!model.handle.parseGrammar("root ::= \"\\x7\"").accepted)
    }
}
