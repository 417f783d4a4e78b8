import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// A long answer costs a few parses, not one per chunk, and a real conversation streams what it
/// streamed when every chunk was parsed.
@Suite("Linear streaming")
struct LinearStreamingTests {
    /// About 2,000 tokens of thinking and answer in Qwen3's format, with the paragraphs, lists and
    /// punctuation of a real answer.
    static func longOutput() -> String {
        let sentences = [
            "The garden gets morning sun, so leafy greens will do better than tomatoes.",
            "Lettuce, spinach and chard tolerate shade; beans need a little more light.",
            "Keep the beds narrow enough to reach the middle without stepping on the soil.",
            "Water early in the day, and mulch to keep the moisture in during hot weeks.",
            "Slugs can be kept away with copper tape, beer traps or a patrol at dusk.",
        ]
        var generator = SeededGenerator(seed: 3)
        func paragraph() -> String {
            (0..<4).map { _ in sentences.randomElement(using: &generator)! }.joined(separator: " ")
        }
        let thinking = (0..<9).map { _ in paragraph() }.joined(separator: "\n\n")
        let answer = (1...22).map { "\($0). " + paragraph() }.joined(separator: "\n\n")
        return "<think>\n" + thinking + "\n</think>\n\n" + answer
    }

    @Test("a 2,000-token answer with thinking is parsed a few times, not after every chunk")
    func longAnswer() async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: TestTemplates.source("Qwen-Qwen3-0.6B"))
        let rendered = try template.render([.user("How should we plan the garden?")], enableThinking: true)
        let output = Self.longOutput()
        let chunks = try #require(Chunking.tokens(output, model: model))
        #expect(chunks.count > 1_800)
        let everyChunk = ReplyReplay(chunks, render: rendered.render, thinkingEndTags: rendered.thinkingEndTags,
                                     parsing: .everyChunk)
        let incremental = ReplyReplay(chunks, render: rendered.render, thinkingEndTags: rendered.thinkingEndTags,
                                      parsing: .incremental)
        let same = everyChunk == incremental
        #expect(same, "\(ReplyReplay.firstDifference(everyChunk, incremental, chunks: chunks))")
        #expect(incremental.reply.reasoningContent.contains("garden"))
        #expect(incremental.reply.content.hasPrefix("1. "))
        #expect(everyChunk.parses == chunks.count + 1)
        // A parse where a chunk ends a line or holds a tag, and none elsewhere.
        #expect(incremental.parses * 10 < chunks.count, "\(incremental.parses) parses for \(chunks.count) chunks")
    }

    /// Streams a turn and returns its events (the response's statistics left out: timings differ).
    static func stream(_ conversation: Conversation, probe: ReplyParsingProbe?) async throws -> ([Conversation.Event], ModelResponse<String>) {
        try await ReplyParsingProbe.$current.withValue(probe) {
            var events: [Conversation.Event] = []
            var response: ModelResponse<String>?
            for try await event in conversation.streamResponse(to: "How should we plan a small vegetable garden?",
                                                               options: .init(maximumResponseTokens: 160, sampling: .greedy)) {
                if case .done(let done) = event { response = done } else { events.append(event) }
            }
            return (events, try #require(response))
        }
    }

    @Test("a real conversation streams the same events as when every chunk was parsed, with fewer parses")
    func realConversation() async throws {
        let model = try await TestModel.load()
        func conversation() throws -> Conversation {
            try Conversation(model: model, instructions: "You are a practical gardening assistant.")
        }
        let everyChunk = ReplyParsingProbe(parsing: .everyChunk), incremental = ReplyParsingProbe(parsing: .incremental)
        let (oldEvents, oldResponse) = try await Self.stream(conversation(), probe: everyChunk)
        let (newEvents, newResponse) = try await Self.stream(conversation(), probe: incremental)
        #expect(oldResponse.text.count > 200, "\(oldResponse.rawText.debugDescription)")
        #expect(newEvents == oldEvents)
        #expect(newResponse.rawText == oldResponse.rawText)
        #expect(newResponse.text == oldResponse.text && newResponse.thinking == oldResponse.thinking)
        #expect(everyChunk.measurement.parses == everyChunk.measurement.chunks + 1)
        #expect(incremental.measurement.chunks == everyChunk.measurement.chunks)
        #expect(incremental.measurement.parses * 2 < incremental.measurement.chunks,
                "\(incremental.measurement.parses) parses for \(incremental.measurement.chunks) chunks: \(newResponse.rawText.debugDescription)")
    }
}
