import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

@Suite("Conversations through the real model")
struct ConversationTests {
    static let greedy = CompletionOptions.greedy(maximumResponseTokens: 16)
    static let messages = ["Hello there.", "Tell me about gardens.", "What grows in shade?", "Thanks, and in winter?"]

    @Test("turns build the transcript and reuse the cache; outputs match full re-evaluation")
    func reuse() async throws {
        let model = try await TestModel.load()
        let reusing = try Conversation(model: model, instructions: "Be brief.")
        let refeeding = try Conversation(model: model, instructions: "Be brief.", configuration: .init(reusesPromptCache: false))
        var parted = false
        for (index, message) in Self.messages.enumerated() {
            let sameHistory = !parted
            let history = await reusing.transcript
            let a = try await reusing.respond(to: message, options: Self.greedy)
            let b = try await refeeding.respond(to: message, options: Self.greedy)
            if !parted && a.text != b.text {
                // Evaluating only the new tokens or the whole prompt are batches of other shapes,
                // which some CPUs accumulate differently: the answers may part on a near tie only.
                // From then on the histories differ, and so may the answers.
                parted = true
                let prompt = try model.tokenizer.tokenize(
                    reusing.template.render(history + [.user(message)], addGenerationPrompt: true).segments)
                let tokens = { (text: String) in try model.tokenizer.tokenize(text, addSpecial: false, parseSpecial: false) }
                _ = try await BatchingTests.expectAgreement(try tokens(a.rawText), alone: try tokens(b.rawText),
                                                            promptTokens: prompt, label: "turn \(index + 1)", model: model)
            }
            if sameHistory {
                #expect(a.statistics.promptTokens == b.statistics.promptTokens)
            }
            #expect(b.statistics.cachedPromptTokens == 0)
            if index > 0 {
                #expect(a.statistics.cachedPromptTokens > a.statistics.promptTokens / 2,
                        "turn \(index + 1) reused only \(a.statistics.cachedPromptTokens) of \(a.statistics.promptTokens) tokens")
            }
        }
        let transcript = await reusing.transcript
        #expect(transcript.count == 1 + 2 * Self.messages.count)
        #expect(transcript.first == .system("Be brief."))
        #expect(transcript.filter { $0.role == .user }.map(\.content) == Self.messages)
        #expect(await reusing.turnCount == Self.messages.count)
    }

    @Test("a sliding-window cache that cannot be cut falls back to re-evaluating, correctly")
    func slidingWindowFallback() async throws {
        // Dropping the oldest turn changes the prompt right after the instructions. A full
        // cache can be cut there; Gemma 3's window-only cache (512-token window) has evicted
        // the positions it would need, so it must evaluate everything again.
        let windowModel = try await TestModel.load(.init(contextLength: 2048, usesFullSlidingWindowCache: false))
        let fullModel = try await TestModel.load(.init(contextLength: 2048))
        let settings = Conversation.Configuration(overflowPolicy: .dropOldestTurns)
        let window = try Conversation(model: windowModel, instructions: "Be brief.", configuration: settings)
        let full = try Conversation(model: fullModel, instructions: "Be brief.", configuration: settings)
        let long = String(repeating: "The garden has tomatoes, beans and herbs along the southern wall. ", count: 25)
        var fellBack = false, dropped = 0
        for index in 0..<7 {
            let a = try await window.respond(to: "\(index): \(long)", options: Self.greedy)
            let b = try await full.respond(to: "\(index): \(long)", options: Self.greedy)
            #expect(a.text == b.text, "turn \(index + 1) differs")
            #expect(a.droppedTurns == b.droppedTurns)
            dropped += a.droppedTurns
            if a.droppedTurns > 0 && a.statistics.cachedPromptTokens == 0 && b.statistics.cachedPromptTokens > 0 {
                fellBack = true
            }
        }
        #expect(dropped > 0)
        #expect(fellBack)
    }

    @Test("a turn that does not fit fails before any event, and leaves the conversation as it was")
    func overflowFails() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model, instructions: "Be brief.", configuration: .init(contextLength: 128))
        _ = try await conversation.respond(to: "Hello.", options: Self.greedy)
        let huge = String(repeating: "word ", count: 200)
        var events = 0
        await #expect {
            for try await _ in conversation.streamResponse(to: huge, options: Self.greedy) { events += 1 }
        } throws: { error in
            guard case LocalModel.Error.promptTooLong(_, let limit) = error else { return false }
            return limit == 128 - 16
        }
        #expect(events == 0)
        #expect(await conversation.turnCount == 1)
        #expect(try await conversation.respond(to: "Again.", options: Self.greedy).stopReason == .maximumTokens)
    }

    @Test("the drop-oldest policy keeps the instructions and drops turns until the new one fits")
    func overflowDropsOldest() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model, instructions: "Be brief.",
                                            configuration: .init(contextLength: 160, overflowPolicy: .dropOldestTurns))
        var dropped = 0
        for index in 0..<8 {
            let response = try await conversation.respond(to: "Question \(index) about the weather today?", options: Self.greedy)
            dropped += response.droppedTurns
            #expect(response.statistics.promptTokens + 16 <= 160)
        }
        #expect(dropped > 0)
        let transcript = await conversation.transcript
        #expect(transcript.first == .system("Be brief."))
        #expect(transcript.last?.role == .assistant)
        #expect(transcript.contains { $0.content == "Question 7 about the weather today?" })
        #expect(!transcript.contains { $0.content == "Question 0 about the weather today?" })
    }

    @Test("preflight reports the exact prompt size and what fits")
    func preflight() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model, instructions: "Be brief.", configuration: .init(contextLength: 256))
        _ = try await conversation.respond(to: "Hello.", options: Self.greedy)
        let check = try await conversation.preflight("How are you?", options: .init(maximumResponseTokens: 20))
        #expect(check.fits)
        #expect(check.contextLength == 256)
        #expect(check.maximumResponseTokens == 20)
        #expect(check.cachedTokens > 0)
        let response = try await conversation.respond(to: "How are you?", options: .greedy(maximumResponseTokens: 20))
        #expect(response.statistics.promptTokens == check.promptTokens)
        #expect(response.statistics.cachedPromptTokens == check.cachedTokens)
        let open = try await conversation.preflight("Next?")
        #expect(open.maximumResponseTokens == 256 - open.promptTokens)
        let tooLong = try await conversation.preflight(String(repeating: "word ", count: 300))
        #expect(!tooLong.fits)
        #expect(tooLong.maximumResponseTokens == 0)
        #expect(tooLong.promptTokens > 256)
    }

    @Test("a cancelled turn is rolled back and the next turn still reuses the cache")
    func cancelledTurn() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model, instructions: "Be brief.")
        _ = try await conversation.respond(to: "Hello.", options: Self.greedy)
        let stream = conversation.streamResponse(to: "Tell me a long story.", options: .init(maximumResponseTokens: 500, sampling: .greedy))
        var received = 0
        for try await event in stream {
            if case .text = event { received += 1 }
            if received == 3 { break }
        }
        let cancelled = try await stream.result
        #expect(cancelled.stopReason == .cancelled)
        #expect(await conversation.turnCount == 1)
        #expect(await conversation.transcript.count == 3)
        let next = try await conversation.respond(to: "Thanks.", options: Self.greedy)
        #expect(next.statistics.cachedPromptTokens > 0)
        #expect(await conversation.turnCount == 2)
    }

    @Test("overlapping requests wait for each other and never interleave")
    func overlapping() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model)
        async let first = conversation.respond(to: "First question?", options: Self.greedy)
        async let second = conversation.respond(to: "Second question?", options: Self.greedy)
        let (a, b) = try await (first, second)
        let transcript = await conversation.transcript
        #expect(transcript.count == 4)
        #expect(Set([transcript[0].content, transcript[2].content]) == ["First question?", "Second question?"])
        #expect(Set([transcript[1].content, transcript[3].content]) == [a.text, b.text])
        #expect(max(a.statistics.promptTokens, b.statistics.promptTokens) > min(a.statistics.promptTokens, b.statistics.promptTokens) + 10)
    }

    @Test("streamed events add up to the response, and done comes last, once")
    func events() async throws {
        let model = try await TestModel.load()
        let conversation = try Conversation(model: model)
        var text = "", dones = 0, last: Conversation.Event?
        for try await event in conversation.streamResponse(to: "Hello.", options: Self.greedy) {
            switch event {
            case .text(let delta): text += delta
            case .snapshot(let snapshot, _): text = snapshot
            case .thinking, .toolCallDelta, .toolCallStarted, .toolCallFinished, .logProbability: break
            case .done: dones += 1
            }
            last = event
        }
        guard case .done(let response) = last else {
            Issue.record("the last event was not .done")
            return
        }
        #expect(dones == 1)
        #expect(response.text == text)
    }
}

@Suite("Thinking")
struct ThinkingTests {
    /// Qwen3.5's template opens a thinking block in the prompt when thinking is on.
    static func conversation() async throws -> Conversation {
        try Conversation(model: try await TestModel.load(), configuration: .init(chatTemplate: TestTemplates.source("Qwen3.5-4B")))
    }

    @Test("a budget of 0 yields no thinking")
    func zeroBudget() async throws {
        let response = try await Self.conversation().respond(
            to: "Hi", options: .init(maximumResponseTokens: 24, sampling: .greedy), thinking: .enabled(budget: 0))
        #expect(response.thinking.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(response.rawText.hasPrefix("</think>") || response.rawText.hasPrefix("\n</think>"))
        #expect(!response.text.contains("</think>"))
    }

    @Test("a budget caps the thinking, and thinking never reaches the answer")
    func budget() async throws {
        let conversation = try await Self.conversation()
        var streamedThinking = "", streamedText = ""
        let stream = conversation.streamResponse(
            to: "Hi", options: .init(maximumResponseTokens: 40, sampling: .greedy), thinking: .enabled(budget: 6, budgetMessage: "Done thinking."))
        for try await event in stream {
            switch event {
            case .thinking(let delta): streamedThinking += delta
            case .text(let delta): streamedText += delta
            case .snapshot(let text, let thinking): (streamedText, streamedThinking) = (text, thinking)
            case .done, .toolCallDelta, .toolCallStarted, .toolCallFinished, .logProbability: break
            }
        }
        let response = try await stream.result
        #expect(!response.thinking.isEmpty)
        #expect(response.thinking.contains("Done thinking."))
        #expect(response.thinking == streamedThinking)
        #expect(response.text == streamedText)
        #expect(!response.text.contains(response.thinking))
        #expect(!response.text.contains("</think>"))
        #expect(response.statistics.thinkingTokens > 0)
        #expect(response.statistics.thinkingTokens <= 6 + 8)
        let unbudgeted = try await Self.conversation().respond(
            to: "Hi", options: .init(maximumResponseTokens: 40, sampling: .greedy), thinking: .enabled())
        #expect(unbudgeted.thinking.count > response.thinking.count)
    }

    @Test("the thinking stays out of the transcript's answer")
    func transcript() async throws {
        let conversation = try await Self.conversation()
        let response = try await conversation.respond(
            to: "Hi", options: .init(maximumResponseTokens: 30, sampling: .greedy), thinking: .enabled(budget: 4))
        let answer = try #require(await conversation.transcript.last)
        #expect(answer.role == .assistant)
        #expect(answer.content == response.text)
        #expect(answer.thinking == response.thinking)
    }

    @Test("a negative budget is rejected")
    func negativeBudget() async throws {
        await #expect(throws: LocalModel.Error.invalidOption(name: "thinking.budget", reason: "-1 is negative")) {
            _ = try await Self.conversation().respond(to: "Hi", options: .init(), thinking: .enabled(budget: -1))
        }
    }
}

@Suite("Saving and restoring conversations")
struct ConversationPersistenceTests {
    static let greedy = CompletionOptions.greedy(maximumResponseTokens: 16)

    @Test("a restored conversation continues exactly, without re-evaluating the saved prefix")
    func roundTrip() async throws {
        let model = try await TestModel.load()
        let directory = try TemporaryDirectory()
        let original = try Conversation(model: model, instructions: "Be brief.")
        _ = try await original.respond(to: "Hello.", options: Self.greedy)
        _ = try await original.respond(to: "Tell me about rivers.", options: Self.greedy)
        try await original.save(to: directory.file("saved.llmconv"))
        let expected = try await original.respond(to: "And lakes?", options: Self.greedy)

        let restored = try await Conversation(restoringFrom: directory.file("saved.llmconv"), model: model)
        #expect(await restored.turnCount == 2)
        #expect(await restored.transcript.count == 5)
        let continued = try await restored.respond(to: "And lakes?", options: Self.greedy)
        #expect(continued.text == expected.text)
        #expect(continued.statistics.cachedPromptTokens == expected.statistics.cachedPromptTokens)
        #expect(continued.statistics.evaluatedPromptTokens < 30)
    }

    enum Damage: CaseIterable { case missing, notAnArchive, truncated, flippedByte, otherModel }

    @Test("bad files give typed errors and leave the conversation usable", arguments: Damage.allCases)
    func badFiles(damage: Damage) async throws {
        let model = try await TestModel.load()
        let directory = try TemporaryDirectory()
        let source = try Conversation(model: model)
        _ = try await source.respond(to: "Hello.", options: Self.greedy)
        let url = directory.file("saved.llmconv")
        try await source.save(to: url)
        var data = try Data(contentsOf: url)
        var loadModel = model
        switch damage {
        case .missing: try FileManager.default.removeItem(at: url)
        case .notAnArchive: try Data("hello".utf8).write(to: url)
        case .truncated: try data.prefix(data.count / 2).write(to: url)
        case .flippedByte:
            data[data.count / 2] ^= 0xFF
            try data.write(to: url)
        case .otherModel:
            let copy = directory.file("other.gguf")
            try GGUFRewriter.copy(TestModel.url(), to: copy, settingString: "general.name", to: "Another model")
            loadModel = try await LocalModel.load(from: copy, configuration: .init(contextLength: 1024))
        }
        await #expect {
            _ = try await Conversation(restoringFrom: url, model: loadModel)
        } throws: { error in
            switch (damage, error) {
            case (.otherModel, Conversation.Error.incompatibleFile(let path, _)): return path == url.path
            case (.otherModel, _): return false
            case (_, Conversation.Error.invalidFile(let path, _)): return path == url.path
            default: return false
            }
        }
        // Loading into a live conversation fails the same way and changes nothing.
        let live = try Conversation(model: loadModel)
        _ = try await live.respond(to: "Hi.", options: Self.greedy)
        await #expect(throws: Conversation.Error.self) { try await live.load(from: url) }
        #expect(await live.turnCount == 1)
        let next = try await live.respond(to: "Again.", options: Self.greedy)
        #expect(next.statistics.cachedPromptTokens > 0)
    }

    @Test("saving replaces a file atomically")
    func atomicSave() async throws {
        let model = try await TestModel.load()
        let directory = try TemporaryDirectory()
        let url = directory.file("saved.llmconv")
        try Data("previous contents".utf8).write(to: url)
        let conversation = try Conversation(model: model)
        _ = try await conversation.respond(to: "Hello.", options: Self.greedy)
        try await conversation.save(to: url)
        #expect(try ConversationArchive(contentsOf: url).header.turnCount == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["saved.llmconv"])
        await #expect(throws: Conversation.Error.self) { try await conversation.save(to: directory.file("no/such/dir/x.llmconv")) }
    }
}

@Suite("Reply tracking")
struct ReplyTrackerTests {
    @Test("extensions become deltas, rewrites become snapshots")
    func tracking() {
        var tracker = ReplyTracker()
        #expect(tracker.update(to: .init(content: "", reasoningContent: "Let", toolCalls: [])) == [.thinking("Let")])
        #expect(tracker.update(to: .init(content: "", reasoningContent: "Let me", toolCalls: [])) == [.thinking(" me")])
        #expect(tracker.update(to: .init(content: "Hi", reasoningContent: "Let me", toolCalls: [])) == [.text("Hi")])
        #expect(tracker.update(to: .init(content: "Hi", reasoningContent: "Let me", toolCalls: [])) == [])
        #expect(tracker.update(to: .init(content: "Ho", reasoningContent: "Let me", toolCalls: []))
                == [.snapshot(text: "Ho", thinking: "Let me")])
        #expect(tracker.update(to: .init(content: "Ho 👩", reasoningContent: "Let me", toolCalls: [])) == [.text(" 👩")])
        #expect(tracker.update(to: .init(content: "Ho 👩‍👧", reasoningContent: "Let me", toolCalls: [])) == [.text("\u{200D}👧")])
    }
}
