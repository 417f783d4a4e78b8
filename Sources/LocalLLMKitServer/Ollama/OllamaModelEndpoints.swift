import Foundation
import LocalLLMKit

extension ModelServer {
    /// `GET /api/tags`, Ollama's list of models: every served model (the library's too), with
    /// its file's details.
    func ollamaTags(_ exchange: HTTPExchange) async -> Int {
        await refreshLibraryModels()
        return succeed(exchange, .object([("models", .array(models.map(OllamaJSON.tag)))]))
    }

    /// `GET /api/version`.
    func ollamaVersion(_ exchange: HTTPExchange) -> Int {
        succeed(exchange, .object([("version", .string(LLMKitVersion.current))]))
    }

    /// `POST /api/show` `{"model": …}`: the model's details, chat template, `model_info` (its
    /// architecture, parameter count and context length) and capabilities.
    func ollamaShow(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let body = try await RequestBody.parse(exchange.body)
            let entry = try await servedModel(requestedBy: body, strict: true)
            let facts = entry.facts
            var info: [(String, OrderedJSON)] = [("general.parameter_count", .integer(Int(facts.parameterCount)))]
            if let architecture = facts.architecture {
                info.insert(("general.architecture", .string(architecture)), at: 0)
                if let length = facts.trainingContextLength { info.append(("\(architecture).context_length", .integer(length))) }
            }
            return succeed(exchange, .object([
                ("modelfile", .string("")), ("parameters", .string("")), ("template", .string(facts.chatTemplate ?? "")),
                ("details", OllamaJSON.details(facts)), ("model_info", .object(info)),
                ("capabilities", .array(entry.capabilities.map(OrderedJSON.string))),
                ("modified_at", .string((facts.modified ?? Date()).formatted(.iso8601))),
            ]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// `POST /api/embed` (`input`: a string or strings; `truncate`, default true as Ollama's)
    /// and the older `POST /api/embeddings` (`prompt`: one string, answered as one `embedding`).
    func ollamaEmbed(_ exchange: HTTPExchange, legacy: Bool) async -> Int {
        let received = ContinuousClock.now
        let cors = corsHeaders(for: exchange)
        do {
            var body = try await RequestBody.parse(exchange.body)
            if legacy {
                body = RequestBody(fields: body.fields.filter { $0.0 != "input" } + [("input", body["prompt"] ?? .string(""))])
            }
            if body["truncate"] == nil { body = RequestBody(fields: body.fields + [("truncate", .bool(true))]) }
            let entry = try await servedModel(requestedBy: body, strict: true)
            let request = try EmbeddingsRequest(body)
            let served = try await entry.resolve()
            let result = try await served.model.embeddings(for: request.inputs, options: .init(truncates: request.truncates))
            metrics.recordEmbeddings(inputs: result.vectors.count, tokens: result.totalTokenCount)
            if Task.isCancelled { return 499 }
            func vector(_ values: [Float]) -> OrderedJSON { .array(values.map { .number(Double($0)) }) }
            if legacy { return succeed(exchange, .object([("embedding", vector(result.vectors.first ?? []))])) }
            let nanoseconds = Int((ContinuousClock.now - received).components.attoseconds / 1_000_000_000)
                + Int((ContinuousClock.now - received).components.seconds) * 1_000_000_000
            return succeed(exchange, .object([
                ("model", .string(served.id)), ("embeddings", .array(result.vectors.map(vector))),
                ("total_duration", .integer(nanoseconds)), ("load_duration", .integer(0)),
                ("prompt_eval_count", .integer(result.totalTokenCount)),
            ]))
        } catch let failure as LocalModel.EmbeddingError {
            return fail(exchange, .embedding(failure, model: nil), cors: cors)
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }
}
