import Foundation
import Testing
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Output that the template's parser cannot read reaches the caller as a typed error, instead
/// of being dropped or passed on as text.
@Suite("Unparsable output")
struct UnparsableOutputTests {
    /// A tool call whose arguments never close, in Qwen 3's format.
    static let brokenCall = "<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"\n</tool_call>"

    static func echo() -> DynamicTool {
        DynamicTool(name: "echo", description: "Repeats the text.",
                    parametersSchema: #"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#) { $0 }
    }

    @Test("complete output that does not parse is an error naming the output; cut-off output is parsed as partial")
    func parser() async throws {
        let model = try await TestModel.vocabulary()
        let template = try ChatTemplate(model: model, override: TestTemplates.source("Qwen-Qwen3-0.6B"))
        let tools = try ToolBox([Self.echo()])
        let rendered = try template.render([.user("Say hi.")], tools: tools.definitions.map(\.json), toolChoice: "auto")
        var stream = ReplyStream(rendered: rendered, parsing: .incremental)
        _ = stream.append(Self.brokenCall)
        var partial = stream
        #expect(throws: Never.self) { _ = try partial.finish(isComplete: false) }
        #expect {
            _ = try stream.finish(isComplete: true)
        } throws: { error in
            guard case ChatTemplate.Error.unparsableOutput(let raw, let reason) = error else { return false }
            return raw == Self.brokenCall && !reason.isEmpty
        }
    }

    @Test("a turn whose output does not follow the template's format throws it to the caller and keeps its transcript")
    func conversation() async throws {
        let model = try await TestModel.load()
        // gpt-oss's parser expects the harmony format (`<|channel|>final<|message|>…`); the
        // grammar makes the model end its turn on plain text instead.
        let conversation = try Conversation(model: model, instructions: "Be brief.",
                                            configuration: .init(chatTemplate: TestTemplates.source("openai-gpt-oss-120b")))
        await #expect {
            _ = try await conversation.respond(to: "Say hello.", format: .grammar(#"root ::= "hello""#),
                                               options: .init(maximumResponseTokens: 16, sampling: .greedy))
        } throws: { error in
            guard case ChatTemplate.Error.unparsableOutput(let raw, let reason) = error else { return false }
            return raw == "hello" && reason.contains("format")
        }
        #expect(await conversation.transcript == [.system("Be brief.")])
        #expect(await conversation.turnCount == 0)
    }
}
