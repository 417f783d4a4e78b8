import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// GBNF grammars that would crash llama.cpp, exhaust memory or hang it, through the real
/// library: each is a typed error before llama.cpp parses it.
@Suite("GBNF bounds")
struct GrammarBoundsTests {
    /// A grammar, and a fragment of the reason it must be refused with.
    static let adversarial: [(name: String, grammar: String, reason: String)] = [
        ("50,000 nested parentheses", "root ::= " + String(repeating: "(", count: 50_000) + "\"a\""
            + String(repeating: ")", count: 50_000), "nested deeper than 128"),
        ("a repetition of a million", #"root ::= "a"{1000000}"#, "1000000 exceeds 2000"),
        ("an upper bound llama.cpp would silently drop", #"root ::= "a"{0,5000}"#, "5000 exceeds 2000"),
        ("a minimum above the maximum (llama.cpp loops on n − m)", #"root ::= "a"{5,2}"#, "minimum 5 exceeds its maximum 2"),
        ("a repetition count beyond 64 bits", #"root ::= "a"{99999999999999999999999}"#, "too large"),
        ("a 5,000-character literal repeated 2,000 times", "root ::= \"" + String(repeating: "a", count: 5_000) + "\"{2000}",
         "more than 4000000 elements"),
        ("300 repetitions of 2,000 in one rule", "root ::= " + String(repeating: "\"a\"{0,2000} ", count: 300),
         "more than 500000 rules"),
        ("nested repetitions", #"root ::= (("a"{0,100}){0,100})"#, "repetition of a repetition"),
        ("a chain of 5,000 rules each starting with the next",
         (0..<5_000).map { "r\($0) ::= r\($0 + 1) \"x\"\n" }.joined() + "r5000 ::= \"a\"\nroot ::= r0\n",
         "more than 1000 rules start one with the other"),
        ("alternatives that double at each of 40 levels",
         "root ::= r0\n" + (0..<40).map { "r\($0) ::= r\($0 + 1) \"a\" | r\($0 + 1) \"b\"\n" }.joined() + "r40 ::= \"c\"\n",
         "left-recursion check would take more than"),
        ("a NUL character", "root ::= \"a\"\u{0}\"b\"", "NUL"),
        ("9 MiB of text", "root ::= \"" + String(repeating: "a", count: 9 << 20) + "\"", "bytes long"),
    ]

    @Test("Hardening #11: adversarial GBNF is a typed error before llama.cpp parses it", arguments: 0..<adversarial.count)
    func adversarialGrammar(_ index: Int) async throws {
        let (name, grammar, expected) = Self.adversarial[index]
        let model = try await TestModel.grammarVocabulary()
        #expect(throws: OutputFormat.Error.self, "\(name)") { _ = try OutputFormat.grammar(grammar).grammar(for: model.handle) }
        do {
            _ = try OutputFormat.grammar(grammar).grammar(for: model.handle)
        } catch OutputFormat.Error.invalidGrammar(let reason) {
            #expect(reason.contains(expected), "\(name): \(reason)")
        }
    }

    @Test("Hardening #11: generation with an adversarial grammar fails cleanly and the model keeps working")
    func generation() async throws {
        let model = try await TestModel.load()
        for (name, grammar, _) in Self.adversarial.prefix(4) {
            await #expect(throws: OutputFormat.Error.self, "\(name)") {
                _ = try await model.complete("x", format: .grammar(grammar), options: .init(maximumResponseTokens: 4))
            }
        }
        let after = try await model.complete("Is the sky blue? Answer:", format: .grammar(#"root ::= " " ("yes" | "no")"#), options: .init(maximumResponseTokens: 4, sampling: .greedy))
        #expect([" yes", " no"].contains(after.text))
    }

    @Test("Hardening #11: grammars at the bounds, and llama.cpp's own example grammars, are accepted")
    func generousBounds() async throws {
        let model = try await TestModel.grammarVocabulary()
        let atBounds = [
            #"root ::= "a"{2000}"#,
            #"root ::= "a"{0,2000}"#,
            "root ::= " + String(repeating: "(", count: 128) + "\"a\"" + String(repeating: ")", count: 128),
            (0..<900).map { "r\($0) ::= r\($0 + 1) \"x\"\n" }.joined() + "r900 ::= \"a\"\nroot ::= r0\n",
            "root ::= " + (0..<2_000).map { "\"value\($0)\"" }.joined(separator: " | "),
        ]
        for grammar in atBounds {
            #expect(throws: Never.self) { _ = try OutputFormat.grammar(grammar).grammar(for: model.handle) }
        }
        let cache = ProcessInfo.processInfo.environment["LLMKIT_CACHE"].map { URL(filePath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".cache/llmkit")
        let folder = cache.appending(path: "src/llama_cpp_python-0.3.36/vendor/llama.cpp/grammars")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gbnf") }
        #expect(files.count >= 8)
        for file in files {
            let text = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
            #expect(throws: Never.self, "\(file)") { try GrammarScanner.check(text) }
        }
    }

    @Test("Hardening #11: the scanner reads rules exactly as llama.cpp does")
    func mirror() throws {
        // `"ab"{3}` repeats the whole literal: 2 chars × 3 copies in root, plus END.
        var scanner = try GrammarScanner(#"root ::= "ab"{3}"#)
        try scanner.parse()
        #expect(scanner.rules.first??.count == 7)
        // `x{1,3}` keeps one copy and adds two nested optional rules.
        scanner = try GrammarScanner("root ::= x{1,3}\nx ::= \"a\"\n")
        try scanner.parse()
        #expect(scanner.rules.count == 4)
        // Left recursion is left to llama.cpp, which reports it as an error.
        #expect(throws: Never.self) { try GrammarScanner.check("root ::= root \"a\" | \"b\"") }
    }
}
