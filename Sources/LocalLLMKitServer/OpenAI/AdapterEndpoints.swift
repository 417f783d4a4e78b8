import Foundation
import LocalLLMKit

extension ModelServer {
    /// `GET /lora-adapters`, in llama-server's shape: the first served model's LoRA adapters,
    /// `[{"id": 0, "path": "FILE.gguf", "scale": 1.0}, …]`, with the scales that requests naming
    /// none (no `lora` field) generate with. `path` is the file's name only: clients never see
    /// this machine's folders.
    func listAdapters(_ exchange: HTTPExchange) async -> Int {
        guard let entry = fixedModels.first else { return succeed(exchange, .array([])) }
        let scales = await entry.adapterScales
        let list = entry.adapters.enumerated().map { index, adapter in
            OrderedJSON.object([("id", .integer(index)), ("path", .string(adapter.url.lastPathComponent)),
                                ("scale", .number(Double(scales[index])))])
        }
        return succeed(exchange, .array(list))
    }

    /// `POST /lora-adapters`, in llama-server's shape: a body `[{"id": 0, "scale": 0.5}, …]` sets
    /// the scales of the first served model's adapters (those not listed: 0) for the requests
    /// that follow and name none; `{"model": ID, "lora": […]}` names another model. Requests
    /// already generating keep theirs. Answers `{"success": true}`; an id the model lacks is a 400.
    func setAdapters(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let entry: ServedEntry, list: OrderedJSON
            switch try await RequestBody.parseValue(exchange.body) {
            case .array(let items):
                guard let first = fixedModels.first else { throw APIError.notFound("This server serves no model.", param: "model") }
                (entry, list) = (first, .array(items))
            case .object(let fields):
                let body = RequestBody(fields: fields)
                entry = try await servedModel(named: body.requiredString("model"))
                guard let value = body["lora"] else { throw APIError.invalid("'lora' is required.", param: "lora") }
                list = value
            default:
                throw APIError.invalid("The request body must be an array of objects with 'id' and 'scale'.")
            }
            let scales = try AdapterScaleList.scales(list, adapterCount: entry.adapters.count, param: "lora")
            try await entry.setAdapterScales(scales)
            return succeed(exchange, .object([("success", .bool(true))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }
}
