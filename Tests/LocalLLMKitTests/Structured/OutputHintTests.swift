import Foundation
import Testing
@testable import LocalLLMKit

/// A hint keyed by a name the type does not decode (a typo for `urgency`).
private struct MisspelledHint: Decodable, StructuredOutput, Sendable {
    var sender: String
    var urgency: Int

    static let outputHints: [String: OutputSchema.Hint] = [
        "sender": "Who sent the letter",
        "urgancy": .init(kind: .integer(0...3)),
    ]
}

@Suite("Structured output hints")
struct OutputHintTests {
    @Test("a hint for a key the type does not decode is an error naming it, not a bound dropped silently")
    func unknownKey() throws {
        #expect {
            _ = try OutputSchema(deriving: MisspelledHint.self)
        } throws: { error in
            guard case OutputFormat.Error.invalidSchema(let property, let reason) = error else { return false }
            return property.hasSuffix("urgancy") && reason.contains("sender, urgency")
        }
    }

    @Test("hints whose keys all exist shape the schema")
    func knownKeys() throws {
        let schema = try OutputSchema(deriving: Letter.self).jsonSchema()
        #expect(schema.contains(#""maximum":3"#))
        #expect(schema.contains("Who sent the letter"))
    }
}
