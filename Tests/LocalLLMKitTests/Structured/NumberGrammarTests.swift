import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Bounded numbers")
struct NumberGrammarTests {
    static let ranges: [(Double?, Double?)] = [(0, 1), (-40, 60), (0.5, 2.5), (-2.75, -1.25), (0.125, 0.126), (nil, 10), (3, nil), (nil, nil)]

    @Test("sampled numbers always lie in the range, with no exponent", arguments: 0..<ranges.count)
    func sampled(_ index: Int) async throws {
        let (minimum, maximum) = Self.ranges[index]
        let expression = try #require(NumberGrammar.expression(minimum: minimum, maximum: maximum))
        let model = try await TestModel.load()
        for seed in 1...12 {
            let result = try await model.complete("A number: ", format: .grammar("root ::= " + expression), options: .init(maximumResponseTokens: 32, sampling: .init(temperature: 1.5, seed: UInt32(seed))))
            let value = try #require(Double(result.text), "not a number: \(result.text.debugDescription)")
            #expect(!result.text.contains("e") && !result.text.contains("E"))
            #expect(value >= (minimum ?? -NumberGrammar.limit) && value <= (maximum ?? NumberGrammar.limit),
                    "\(result.text) is outside \(String(describing: minimum))...\(String(describing: maximum))")
        }
    }

    @Test("integer ranges are exact")
    func integers() {
        #expect(NumberGrammar.integers(7, 7) == "\"7\"")
        #expect(NumberGrammar.integers(0, 9) == "\"0\" | [1-8] | \"9\"")
        #expect(NumberGrammar.expression(minimum: 0.5, maximum: 0.4) == nil)
    }
}
