import Foundation
import Synchronization
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Templates run in workers of the model's helper process, forked at load while no inference
/// context exists; otherwise, and when the helper is gone, in a child forked per run.
@Suite("Template workers", .serialized)
struct TemplateWorkerTests {
    private static let messages: [ChatMessage] = [.system("Be brief."), .user("What is the capital of France?")]

    /// The processes whose parent is `pid`.
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let status = try? String(contentsOfFile: "/proc/\(candidate)/status", encoding: .utf8) else { return false }
            return status.split(separator: "\n").contains { $0 == "PPid:\t\(pid)" }
        }
    }

    /// Whether `pid` has ended (gone, or a zombie).
    private static func hasEnded(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        return status.contains("State:\tZ")
    }

    @Test("renders run in the helper's workers, a few processes for many renders, and equal a one-shot child's")
    func rendersRunInWorkers() async throws {
        let contextsBefore = LlamaRuntime.liveContextCount
        let model = try await TestModel.vocabulary()
        guard let helper = model.handle.helperProcessID else {
            // Another test's context is still alive: the policy says no helper then.
            #expect(contextsBefore > 0, "no helper although no inference context existed")
            return
        }
        #expect(contextsBefore == 0)
        let template = try ChatTemplate(model: model)
        let before = ChatTemplate.runCounts()
        var prompts: Set<String> = [try template.render(Self.messages).text]
        let worker = Self.children(of: helper)
        for _ in 0..<30 { prompts.insert(try template.render(Self.messages).text) }
        let after = ChatTemplate.runCounts()
        #expect(after.inWorkers - before.inWorkers >= 31)
        #expect(after.inChildren == before.inChildren)
        #expect(prompts.count == 1 && prompts.first?.contains("capital of France") == true)
        // One worker served them all (it stays idle for the next render): the one that served the first.
        #expect(worker.count == 1 && Self.children(of: helper) == worker, "\(worker) then \(Self.children(of: helper))")

        // The same render in a one-shot child (a model loaded while a context exists has no helper).
        let generating = try await TestModel.load(.init(contextLength: 256))
        _ = try await generating.complete("Hi", options: .greedy(maximumResponseTokens: 1))
        let late = try await TestModel.vocabulary()
        #expect(late.handle.helper == nil)
        let inChild = try ChatTemplate(model: late).render(Self.messages).text
        #expect(ChatTemplate.runCounts().inChildren > after.inChildren)
        #expect(inChild == prompts.first)
    }

    /// A ChatML template that loops first: slow enough (tens of ms a render) that renders started
    /// together overlap.
    private static let slowTemplate = """
        {% for i in range(300) %}{% endfor %}{% for m in messages %}<|im_start|>{{ m.role }}
        {{ m.content }}<|im_end|>
        {% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
        {% endif %}
        """

    /// Renders `count` chats at once, each on its own thread; true for each render whose prompt
    /// holds its own question.
    private static func burst(_ count: Int, of template: ChatTemplate) -> [Bool] {
        let results = Mutex<[Int: Bool]>([:])
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                let text = "Question number \(index) about the sea?"
                let prompt = try? template.render([.user(text)]).text
                results.withLock { $0[index] = prompt?.contains(text) == true }
                group.leave()
            }.start()
        }
        group.wait()
        return (0..<count).map { index in results.withLock { $0[index] ?? false } }
    }

    /// The live workers of `helper`, once those past the idle limit have ended (or 10 s passed).
    private static func settledWorkers(of helper: Int32, atMost limit: Int) async throws -> Set<Int32> {
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.children(of: helper).filter({ !Self.hasEnded($0) }).count > limit, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return Set(Self.children(of: helper).filter { !Self.hasEnded($0) })
    }

    @Test("renders at once from many threads each get their own prompt; a burst's workers stay for the next burst, up to 16")
    func concurrentRenders() async throws {
        let contextsBefore = LlamaRuntime.liveContextCount
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: Self.slowTemplate)
        #expect(Self.burst(6, of: template).allSatisfy { $0 })
        guard let helper = model.handle.helperProcessID else {
            #expect(contextsBefore > 0, "no helper although no inference context existed")
            return
        }
        // As many workers as were busy at once stay idle: the next burst forks none.
        let first = try await Self.settledWorkers(of: helper, atMost: 6)
        #expect(first.count == 6, "\(first)")
        #expect(Self.burst(6, of: template).allSatisfy { $0 })
        #expect(try await Self.settledWorkers(of: helper, atMost: 6) == first)
        // Never more than 16 stay.
        #expect(Self.burst(20, of: template).allSatisfy { $0 })
        #expect(try await Self.settledWorkers(of: helper, atMost: 16).count == 16)
    }

    @Test("a helper killed from outside leaves renders working, in one-shot children")
    func killedHelper() async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model)
        let expected = try template.render(Self.messages).text
        guard let helper = model.handle.helperProcessID else { return }   // no helper: nothing to kill
        kill(helper, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.hasEnded(helper), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.hasEnded(helper))
        let before = ChatTemplate.runCounts().inChildren
        #expect(try template.render(Self.messages).text == expected)
        #expect(ChatTemplate.runCounts().inChildren == before + 1)
        // A template created now works the same way.
        #expect(try ChatTemplate(model: model).render(Self.messages).text == expected)
    }

    @Test("a template that exceeds a bound ends its worker only: the next render gets a new one")
    func boundEndsTheWorker() async throws {
        let model = try await TestModel.vocabulary()
        let good = try ChatTemplate(model: model)
        let expected = try good.render(Self.messages).text
        #expect {
            _ = try ChatTemplate(model: model, override: AdversarialTemplate.endlessLoop.source,
                                 limits: TemplateBoundsTests.quick).render([.user("Hi")])
        } throws: { error in
            if case ChatTemplate.Error.boundExceeded(.time, _) = error { true } else { false }
        }
        #expect(try good.render(Self.messages).text == expected)
        if let helper = model.handle.helperProcessID {
            // The worker that looped was killed and reaped; only idle ones are left.
            #expect(Self.children(of: helper).filter { !Self.hasEnded($0) }.count <= 2)
        }
    }
}
