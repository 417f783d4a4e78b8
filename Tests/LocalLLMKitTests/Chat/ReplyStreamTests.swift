import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Incremental parsing must stream exactly what parsing every chunk streamed: the same events,
/// chunk by chunk, the same final reply and the same tool-call phases.
@Suite("Incremental output parsing")
struct ReplyStreamTests {
    static let tool = try! OrderedJSONParser.parse(#"""
        {"type": "function", "function": {"name": "calculator", "description": "Evaluates arithmetic.",
         "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}
        """#)
    static let answers = [
        "Sure! Here is the answer.\n\n1. First, we compute 2 + 2 = 4.\n2. Then  we check: x < y and y > z.\n\n"
            + "```python\ndef f(x):\n    return {\"a\": [1, 2]}\n```\nDone.  ",
        "Plain words only, nothing special here at all, just a long sentence that goes on and on",
        "Edge: </thi and <tool and [TOOL and {\"name\" and <|im_end and ｜ and 日本語 emoji 😀 end\n\n \t ",
    ]
    static let thoughts = [
        "Let me think about this carefully. The user wants an answer.\nI will say something.",
        "  \n",
        "Hmm <b>bold</b> thoughts { } and [brackets]",
    ]

    /// One template rendered for one kind of request, with outputs in its own format.
    struct Case {
        let label: String
        let render: ChatRenderHandle
        let details: ChatRenderHandle.Description
        let outputs: [String]
    }

    /// `name`'s prompt for a user message, and outputs in its format: assistant turns rendered by the
    /// template itself (what follows the prompt), and thinking and answer joined with its tags.
    static func makeCase(_ template: ChatTemplate, name: String, tools: Bool, thinking: Bool) throws -> Case? {
        let prompt = ChatRenderRequest(messages: [.user("What is 2 + 2?")], addGenerationPrompt: true, enableThinking: thinking,
                                       useJinja: template.usesJinja, arguments: [:], tools: tools ? [tool] : [])
        let turns = answers.indices.map { index in
            var message = ChatMessage.assistant(answers[index], thinking: thinking ? thoughts[index] : nil)
            if tools && index == 0 {
                message.toolCalls = [.init(name: "calculator", arguments: #"{"expression": "2 + 2"}"#, id: "call_1")]
            }
            var request = prompt
            request.messages.append(message)
            request.addGenerationPrompt = false
            return request
        }
        let renders = try ChatRenderHandle.render([prompt] + turns, with: template.handle)
        guard case .success(let render) = renders[0] else { return nil }
        let details = try render.describe()
        var outputs = try renders.dropFirst().compactMap { result -> String? in
            guard case .success(let turn) = result else { return nil }
            return after(details.prompt, in: try turn.describe().prompt)
        }
        for index in answers.indices {
            var output = ""
            if thinking, !details.thinkingStartTag.isEmpty {
                if !details.generationPrompt.contains(details.thinkingStartTag) { output += details.thinkingStartTag + "\n" }
                output += thoughts[index] + (details.thinkingEndTags.first ?? "</think>") + "\n\n"
            }
            outputs.append(output + answers[index])
        }
        return Case(label: "\(name) tools: \(tools) thinking: \(thinking)", render: render, details: details, outputs: outputs)
    }

    /// What `full` adds after `prompt`, or after the part they share when the template renders a
    /// finished turn differently.
    static func after(_ prompt: String, in full: String) -> String {
        let a = Array(prompt.utf8), b = Array(full.utf8)
        var shared = zip(a, b).prefix { $0 == $1 }.count
        while shared > 0, shared < b.count, b[shared] & 0xC0 == 0x80 { shared -= 1 }
        return String(decoding: b[shared...], as: UTF8.self)
    }

    /// Replays `chunks` both ways and checks that they agree; returns the incremental replay.
    @discardableResult
    static func expectSameEvents(_ chunks: [String], _ testCase: Case, _ note: String) -> ReplyReplay {
        let everyChunk = ReplyReplay(chunks, render: testCase.render, thinkingEndTags: testCase.details.thinkingEndTags,
                                     parsing: .everyChunk)
        let incremental = ReplyReplay(chunks, render: testCase.render, thinkingEndTags: testCase.details.thinkingEndTags,
                                      parsing: .incremental)
        let same = everyChunk == incremental
        #expect(same, "\(testCase.label), \(note): \(ReplyReplay.firstDifference(everyChunk, incremental, chunks: chunks))")
        #expect(everyChunk.parses == chunks.count + 1)
        return incremental
    }

    /// Every template, with and without tools and thinking.
    static func cases(_ model: LocalModel, names: [String]) throws -> [Case] {
        try names.flatMap { name -> [Case] in
            let template = try ChatTemplate(model: model, override: TestTemplates.source(name))
            return try [false, true].flatMap { tools -> [Case] in
                guard !tools || template.supportsToolCalls else { return [] }
                return try [false, true].compactMap { try makeCase(template, name: name, tools: tools, thinking: $0) }
            }
        }
    }

    @Test("the same events as parsing every chunk, for every template's own output, in the model's token chunks")
    func everyTemplate() async throws {
        let model = try await TestModel.vocabulary()
        let cases = try Self.cases(model, names: TestTemplates.all())
        #expect(cases.count > 150)
        var skipped = 0, chunkCount = 0
        for testCase in cases {
            for (index, output) in testCase.outputs.enumerated() {
                for (kind, chunks) in [("tokens", Chunking.tokens(output, model: model)),
                                       ("random", Chunking.random(output, seed: UInt64(index)))] {
                    guard let chunks else { continue }
                    let replay = Self.expectSameEvents(chunks, testCase, "output \(index), \(kind) chunks")
                    skipped += chunks.count + 1 - replay.parses
                    chunkCount += chunks.count
                }
            }
        }
        // Short outputs full of markers: still, many chunks need no parse.
        #expect(skipped * 5 > chunkCount, "\(skipped) of \(chunkCount) chunks were not parsed")
    }

    /// Pieces of output that stress the parsers: markers whole and cut in two, white space, JSON.
    static func pieces(_ testCase: Case) throws -> [String] {
        let words = [" the", " answer", "word", ".", ",", "\n", "\n\n", " ", "  ", "\t", "\r\n", "{", "}", "[", "]", "\"",
                     ":", "<", ">", "/", "|", "function call", "calculator", "\"name\"", " 日本", "😀", "\u{3000}", "\u{A0}",
                     "```", "json", "</", "think", "｜", "▁", "\u{0}"]
        let found = try testCase.render.markers()
        let markers = found.delimiters + found.markers + [testCase.details.thinkingStartTag]
        return words + markers.filter { !$0.isEmpty }.flatMap { marker -> [String] in
            let scalars = Array(marker.unicodeScalars), half = scalars.count / 2
            return [marker, String(String.UnicodeScalarView(scalars[..<half])), String(String.UnicodeScalarView(scalars[half...]))]
        }
    }

    @Test("the same events as parsing every chunk, for random output that splits markers anywhere",
          arguments: ["Qwen-Qwen3-0.6B", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use",
                      "openai-gpt-oss-120b", "meta-llama-Llama-3.1-8B-Instruct", "mistralai-Mistral-Nemo-Instruct-2407",
                      "Qwen3-Coder", "meetkai-functionary-medium-v3.2", "fireworks-ai-llama-3-firefunction-v2",
                      "google-gemma-4-31B-it", "Kimi-K2-Thinking", "MiniMax-M2", "GigaChat3-10B-A1.8B", "unsloth-Apriel-1.5"])
    func adversarialOutput(template name: String) async throws {
        let model = try await TestModel.vocabulary()
        for testCase in try Self.cases(model, names: [name]) {
            let pieces = try Self.pieces(testCase)
            var generator = SeededGenerator(seed: 11)
            for index in 0..<12 {
                let output = (0..<Int.random(in: 5...120, using: &generator)).map { _ in
                    // Mostly words, a marker or a piece of one every third piece.
                    Bool.random(using: &generator) || Bool.random(using: &generator)
                        ? pieces[Int.random(in: 0..<10, using: &generator)] : pieces.randomElement(using: &generator)!
                }.joined()
                Self.expectSameEvents(Chunking.scalars(output), testCase, "random output \(index), one scalar per chunk")
                Self.expectSameEvents(Chunking.random(output, seed: UInt64(index)), testCase, "random output \(index)")
            }
        }
    }
}
