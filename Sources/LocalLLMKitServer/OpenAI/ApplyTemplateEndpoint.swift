import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /apply-template`, llama-server's: a chat completion's body (messages, tools,
    /// `tool_choice`, thinking) answers `{"prompt": "…"}`, the text the model would be given,
    /// without generating anything.
    func applyTemplate(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: body)
            try entry.checkGenerates()
            let served = try await entry.resolve()
            let (request, round) = try await BlockingWorkPool.shared.run { [served] in
                let request = try ChatCompletionRequest(body, vocabularySize: served.vocabularySize,
                                                        templateThinks: served.template.supportsThinking)
                return (request, try ChatRound(model: served.model, template: served.template, tools: request.tools))
            }
            let prompt = try await round.replyPrompt(for: request.messages, thinking: request.thinking,
                                                     toolChoice: request.toolChoice)
            return succeed(exchange, .object([("prompt", .string(prompt))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }
}
