import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Templates written to exceed one bound each.
enum AdversarialTemplate: String, CaseIterable, CustomStringConvertible {
    case deepBlocks, deepParentheses, deepNegation, longOperatorChain, endlessRecursion, deepRecursion
    case hugeRange, hugeRepetition, gigabyteLoop, endlessLoop

    var description: String { rawValue }

    var source: String {
        switch self {
        case .deepBlocks: String(repeating: "{% if true %}", count: 5000) + "x" + String(repeating: "{% endif %}", count: 5000)
        case .deepParentheses: "{{ " + String(repeating: "(", count: 50000) + "1" + String(repeating: ")", count: 50000) + " }}"
        case .deepNegation: "{{ " + String(repeating: "not ", count: 500) + "true }}"
        case .longOperatorChain: "{{ " + Array(repeating: "1", count: 5000).joined(separator: " + ") + " }}"
        case .endlessRecursion: "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
        case .deepRecursion: "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(10000000) }}"
        case .hugeRange: "{% for i in range(1000000000) %}{% endfor %}"
        case .hugeRepetition: "{{ 'x' * 10000000000 }}"
        case .gigabyteLoop: // doubles a text until it would hold 2^100 KB
            "{% set ns = namespace(s='x' * 1000) %}{% for i in range(100) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}"
        case .endlessLoop:
            "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}{% endfor %}{% endfor %}{% endfor %}"
        }
    }

    /// The bound it must stop at.
    var bound: ChatTemplate.Bound {
        switch self {
        case .deepBlocks, .deepParentheses, .deepNegation, .longOperatorChain, .endlessRecursion, .deepRecursion: .depth
        case .hugeRange, .hugeRepetition, .gigabyteLoop: .size
        case .endlessLoop: .time
        }
    }
}

@Suite("Bounds on chat templates")
struct TemplateBoundsTests {
    /// Quick limits for the tests: a short deadline, a small stack.
    static let quick = ChatTemplate.Limits(sourceBytes: 256 << 10, nestingDepth: 100, tagTokens: 2048,
                                           memoryBytes: 256 << 20, timeLimit: .seconds(3), stackBytes: 8 << 20)

    /// The quick limits with a deadline that a loaded machine cannot reach before another
    /// bound: filling 256 MiB with a range took more than 3 s on a busy CI runner.
    static let patient = {
        var limits = quick
        limits.timeLimit = .seconds(60)
        return limits
    }()

    @Test("Hardening #10: an adversarial template stops at a typed bound, and the process goes on",
          arguments: AdversarialTemplate.allCases)
    func adversarial(_ template: AdversarialTemplate) async throws {
        let model = try await TestModel.vocabulary()
        #expect {
            let limits = template.bound == .time ? Self.quick : Self.patient
            _ = try ChatTemplate(model: model, override: template.source, limits: limits).render([.user("Hi")])
        } throws: { error in
            guard case ChatTemplate.Error.boundExceeded(let bound, let reason) = error else { return false }
            return bound == template.bound && reason.contains("\(bound) bound")
        }
        // Only the child process that ran the template ended: the next template works.
        #expect(try ChatTemplate(model: model, override: "chatml", limits: Self.quick).render([.user("Hi")]).text.contains("Hi"))
    }

    @Test("Hardening #10: the default bounds stop deep recursion and gigabytes too",
          arguments: [AdversarialTemplate.endlessRecursion, .hugeRepetition, .deepParentheses])
    func defaultBounds(_ template: AdversarialTemplate) async throws {
        let model = try await TestModel.vocabulary()
        #expect(throws: ChatTemplate.Error.self) {
            _ = try ChatTemplate(model: model, override: template.source).render([.user("Hi")])
        }
    }

    @Test("Hardening #10: a template that only misbehaves with some messages stops when rendering them")
    func renderTimeBound() async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: """
            {% for m in messages %}{% if m.content == 'boom' %}{{ 'x' * 10000000000 }}{% endif %}{{ m.content }}{% endfor %}
            """, limits: Self.patient)
        #expect(try template.render([.user("fine")]).text == "fine")
        #expect {
            try template.render([.user("boom")])
        } throws: { error in
            guard case ChatTemplate.Error.boundExceeded(.size, _) = error else { return false }
            return true
        }
        #expect(try template.render([.user("still fine")]).text == "still fine")
    }

    @Test("Hardening #10: real templates with long conversations and many tools stay within the default bounds")
    func realTemplates() async throws {
        let model = try await TestModel.vocabulary()
        let tools = (0..<30).map { index in
            OrderedJSON.object([("type", .string("function")), ("function", .object([
                ("name", .string("tool_\(index)")), ("description", .string("Looks something up, carefully and at length.")),
                ("parameters", .object([("type", .string("object")), ("properties", .object([
                    ("query", .object([("type", .string("string")), ("description", .string("what to look up"))])),
                    ("count", .object([("type", .string("integer")), ("minimum", .integer(1))])),
                ])), ("required", .array([.string("query")]))])),
            ]))])
        }
        let filler = String(repeating: "lorem ipsum ", count: 100)
        var messages: [ChatMessage] = [.system("Be helpful.")]
        for turn in 0..<20 {
            messages += [.user("Question \(turn) \(filler)"), .assistant("Answer \(filler)", thinking: "Thinking \(filler)")]
        }
        messages.append(.user("Last question"))
        var failures: [String] = []
        for name in try TestTemplates.all() {
            do {
                let template = try ChatTemplate(model: model, override: TestTemplates.source(name))
                _ = try template.render(messages, enableThinking: true, tools: template.supportsToolCalls ? tools : [],
                                        toolChoice: "auto")
            } catch ChatTemplate.Error.boundExceeded(let bound, let reason) {
                failures.append("\(name): \(bound): \(reason)")
            } catch {
                // Some templates reject this shape of conversation (e.g. no system role): not a bound.
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test("Hardening #10: a GGUF's embedded template is bounded too")
    func embeddedTemplate() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("adversarial.gguf")
        try GGUFRewriter.copy(TestModel.url(), to: copy, settingString: "tokenizer.chat_template",
                              to: AdversarialTemplate.endlessRecursion.source)
        let model = try await LocalModel.load(from: copy, configuration: .init(vocabularyOnly: true))
        let template = try ChatTemplate(model: model)
        guard case .boundExceeded(.depth, _)? = template.embeddedTemplateError else {
            Issue.record("expected a depth bound, got \(String(describing: template.embeddedTemplateError))")
            return
        }
        #expect(template.source == .builtin("gemma"))
    }

    @Test("Hardening #10: a saved conversation's template is bounded when it is restored",
          arguments: [AdversarialTemplate.endlessRecursion, .hugeRepetition])
    func restoredTemplate(_ template: AdversarialTemplate) async throws {
        let model = try await TestModel.load()
        let directory = try TemporaryDirectory()
        let saved = directory.file("saved.llmconv"), forged = directory.file("forged.llmconv")
        let conversation = try Conversation(model: model)
        _ = try await conversation.respond(to: "Hello.", options: .greedy(maximumResponseTokens: 2))
        try await conversation.save(to: saved)
        try ArchiveForger.forge(saved, to: forged, header: { header in
            var configuration = header["configuration"] as? [String: Any] ?? [:]
            configuration["chatTemplate"] = template.source
            header["configuration"] = configuration
        })
        await #expect {
            _ = try await Conversation(restoringFrom: forged, model: model)
        } throws: { error in
            guard case ChatTemplate.Error.boundExceeded(let bound, let reason) = error else { return false }
            return bound == template.bound && reason.contains(forged.path)
        }
        #expect(try await Conversation(restoringFrom: saved, model: model).turnCount == 1)
    }

    @Test("Hardening #10: limits that cannot work are rejected")
    func badLimits() async throws {
        let model = try await TestModel.vocabulary()
        var limits = ChatTemplate.Limits.standard
        limits.timeLimit = .zero
        #expect {
            try ChatTemplate(model: model, limits: limits)
        } throws: { error in
            guard case ChatTemplate.Error.invalidLimit(name: "timeLimit", _) = error else { return false }
            return true
        }
    }
}
