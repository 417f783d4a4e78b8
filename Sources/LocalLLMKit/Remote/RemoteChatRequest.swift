import Foundation

/// The JSON body of one streamed `POST /chat/completions`: OpenAI's fields, plus llama.cpp's
/// names for the sampling settings OpenAI lacks (sent only when they are set).
struct RemoteChatRequest {
    var model: String
    var messages: [ChatMessage]
    var options: CompletionOptions
    /// The seed to send: the options' own, or one picked for the request (so the response can say it).
    var seed: UInt32
    var format: OutputFormat
    /// The tool definitions offered, and the `tool_choice` (absent without tools).
    var tools: [OrderedJSON] = []
    var toolChoice: String?
    /// Thinking on or off (`chat_template_kwargs.enable_thinking`, as llama-server and vLLM
    /// read it); nil sends nothing, leaving the server's default.
    var thinking: Conversation.Thinking?

    /// The request body.
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a schema that cannot be read,
    ///   ``LocalModel/Error/invalidOption(name:reason:)`` for an option no server has.
    func body() throws -> Data {
        var fields: [(String, OrderedJSON)] = [
            ("model", .string(model)),
            ("messages", .array(try messages.map(Self.encode))),
            ("stream", .bool(true)),
            ("stream_options", .object([("include_usage", .bool(true))])),
        ]
        fields += try samplingFields()
        if !tools.isEmpty {
            fields.append(("tools", .array(tools)))
            if let toolChoice { fields.append(("tool_choice", .string(toolChoice))) }
        }
        if case .grammar(let grammar) = format {
            fields.append(("grammar", .string(grammar)))     // llama-server's own field
        } else if let responseFormat = try Self.responseFormat(format) {
            fields.append(("response_format", responseFormat))
        }
        if let thinking {
            fields.append(("chat_template_kwargs", .object([("enable_thinking", .bool(thinking.isEnabled))])))
            if thinking.isEnabled, let budget = thinking.budget {
                fields.append(("thinking_budget_tokens", .integer(budget)))
                if let message = thinking.budgetMessage { fields.append(("reasoning_budget_message", .string(message))) }
            }
        }
        return Data(OrderedJSON.object(fields).serialized().utf8)
    }

    /// Length, seed and sampling (every field of ``SamplingWireField/all`` that is set), stops,
    /// the logit bias, log-probabilities (`logprobs`, `top_logprobs`) and adapter scales
    /// (llama-server's `lora`, which `llmkit serve` reads too).
    private func samplingFields() throws -> [(String, OrderedJSON)] {
        if options.stopsAtBalancedJSON {
            throw LocalModel.Error.invalidOption(name: "stopsAtBalancedJSON",
                                                 reason: "a server cannot stop at balanced JSON; ask for a JSON Schema format instead")
        }
        var options = options
        options.sampling.seed = seed
        var fields = SamplingWireField.all.compactMap { field in field.value(options).map { (field.name, $0) } }
        if !options.stopSequences.isEmpty { fields.append(("stop", .array(options.stopSequences.map(OrderedJSON.string)))) }
        let sampling = options.sampling
        if !sampling.logitBias.isEmpty {
            // OpenAI's range is [-100, 100], where -100 bans the token.
            let biases = sampling.logitBias.sorted { $0.key < $1.key }
                .map { (String($0.key), OrderedJSON.number($0.value.isFinite ? $0.value : -100)) }
            fields.append(("logit_bias", .object(biases)))
        }
        if let alternatives = options.logProbabilityAlternatives {
            fields += [("logprobs", .bool(true)), ("top_logprobs", .integer(alternatives))]
        }
        if let scales = options.adapterScales {
            fields.append(("lora", .array(scales.enumerated().map { index, scale in
                .object([("id", .integer(index)), ("scale", .number(Double(scale)))])
            })))
        }
        return fields
    }

    /// An OpenAI message, without its thinking: servers regenerate it, and some refuse
    /// `reasoning_content` in requests.
    private static func encode(_ message: ChatMessage) throws -> OrderedJSON {
        var message = message
        message.thinking = nil
        return try OrderedJSONParser.parse(String(decoding: JSONEncoder().encode(message), as: UTF8.self))
    }

    /// `response_format` for a JSON Schema format; nil for free text and for a grammar (sent as
    /// llama-server's `grammar` field instead).
    /// - Throws: ``OutputFormat/Error/invalidSchema(property:reason:)`` for a schema that cannot be read.
    static func responseFormat(_ format: OutputFormat) throws -> OrderedJSON? {
        let name: String
        let schema: OrderedJSON
        switch format {
        case .text, .grammar:
            return nil
        case .schema(let outputSchema):
            (name, schema) = (outputSchema.name, try outputSchema.jsonSchemaValue())
        case .jsonSchema(let document):
            (name, schema) = ("schema", try JSONSchemaChecker.parse(document))
        }
        // OpenAI wants a name of at most 64 letters, digits, `_` and `-`.
        let safeName = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" }.prefix(64))
        return .object([
            ("type", .string("json_schema")),
            ("json_schema", .object([("name", .string(safeName.isEmpty ? "schema" : safeName)), ("strict", .bool(true)),
                                     ("schema", schema)])),
        ])
    }
}
