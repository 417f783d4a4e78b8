import Foundation
@testable import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// What a request body may hold, checked before any model runs: each bad value is a 400 that
/// names its parameter. Pure logic, no model.
struct RequestParsingTests {
    private func body(_ json: String) throws(APIError) -> RequestBody { try RequestBody(Data(json.utf8)) }

    private func chat(_ extra: String) throws(APIError) -> ChatCompletionRequest {
        try ChatCompletionRequest(body(#"{"model":"m","messages":[{"role":"user","content":"hi"}]\#(extra)}"#),
                                  vocabularySize: 1000, templateThinks: false)
    }

    private func rejection(_ extra: String) -> APIError? {
        do throws(APIError) {
            _ = try chat(extra)
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedBodiesAreRejectedWithoutCrashing() throws {
        for bad in ["", "{", "[1,2]", "\"text\"", String(repeating: "[", count: 100_000), "{\"a\":1}x"] {
            #expect(throws: APIError.self) { try self.body(bad) }
        }
        #expect(throws: APIError.self) { _ = try RequestBody(Data([0x7B, 0xFF, 0xFE, 0x7D])) }   // not UTF-8
    }

    @Test func parametersOutOfRangeNameThemselves() {
        let cases: [(String, String)] = [
            (#","temperature":-3"#, "temperature"), (#","temperature":"hot""#, "temperature"), (#","top_p":1.5"#, "top_p"),
            (#","n":17"#, "n"), (#","max_tokens":0"#, "max_tokens"), (#","logprobs":"yes""#, "logprobs"),
            (#","top_logprobs":3"#, "top_logprobs"), (#","logprobs":true,"top_logprobs":21"#, "top_logprobs"),
            (#","presence_penalty":3"#, "presence_penalty"), (#","logit_bias":{"99999":5}"#, "logit_bias"),
            (#","logit_bias":{"5":500}"#, "logit_bias"), (#","stop":[1]"#, "stop"), (#","tool_choice":"sometimes""#, "tool_choice"),
            (#","response_format":{"type":"yaml"}"#, "response_format"), (#","tools":[{"type":"search"}]"#, "tools[0]"),
            (#","reasoning_effort":"extreme""#, "reasoning_effort"), (#","stream":"yes""#, "stream"),
        ]
        for (extra, param) in cases {
            let error = rejection(extra)
            #expect(error?.status == 400, "\(extra)")
            #expect(error?.param == param, "\(extra): \(String(describing: error))")
        }
        #expect(rejection(#","messages":[]"#)?.param == "messages")
        #expect(rejection(#","messages":[{"role":"wizard","content":"x"}]"#)?.param == "messages[0]")
    }

    @Test("Daemon #10: numbers beyond a Double (1e400) and whole numbers beyond any range are refused, naming the field")
    func numbersBeyondADoubleAreRefused() {
        let cases: [(String, String, String)] = [
            (#","temperature":1e400"#, "temperature", "beyond the range of a 64-bit float"),
            (#","top_p":-1e400"#, "top_p", "beyond the range of a 64-bit float"),
            (#","presence_penalty":1e400"#, "presence_penalty", "beyond the range of a 64-bit float"),
            (#","frequency_penalty":-1e999"#, "frequency_penalty", "beyond the range of a 64-bit float"),
            (#","max_tokens":1e400"#, "max_tokens", "beyond the range of a 64-bit float"),
            (#","max_completion_tokens":1e30"#, "max_completion_tokens", "1e+30"),
            (#","seed":1e400"#, "seed", "beyond the range of a 64-bit float"),
            (#","n":1e400"#, "n", "beyond the range of a 64-bit float"),
            (#","logit_bias":{"42":1e400}"#, "logit_bias", "'logit_bias[42]' is a number beyond"),
        ]
        for (extra, param, words) in cases {
            let error = rejection(extra)
            #expect(error?.status == 400, "\(extra)")
            #expect(error?.param == param, "\(extra): \(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(extra): \(error?.message ?? "")")
            #expect(error?.message.contains("not valid JSON") == false)
        }
        // Structurally, such a number is no null (which is how it serializes).
        #expect(OrderedJSON.number(.infinity) != .null)
        #expect(OrderedJSON.integer(2) == .number(2.0))
        #expect(OrderedJSON.object([("a", .integer(1))]) != .object([("b", .integer(1))]))
    }

    @Test func openAIParametersBecomeLibraryOptions() throws {
        let request = try chat(#","temperature":0.5,"top_p":0.9,"max_completion_tokens":7,"stop":"END","seed":42,"#
                               + #""logit_bias":{"17":-100},"stream":true,"stream_options":{"include_usage":true},"#
                               + #""tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"#
                               + #""tool_choice":{"type":"function","function":{"name":"f"}},"#
                               + #""response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object"}}}"#)
        let options = request.parameters.options
        #expect(options.sampling.temperature == 0.5)
        #expect(options.sampling.topP == 0.9)
        #expect(options.maximumResponseTokens == 7)
        #expect(options.stopSequences == ["END"])
        #expect(options.sampling.seed == 42)
        #expect(options.sampling.logitBias == [17: -100])
        #expect(request.parameters.stream && request.parameters.includeUsage)
        #expect(request.tools.map(\.name) == ["f"])
        #expect(request.toolChoice == .named("f"))
        #expect(request.format == .jsonSchema(#"{"type":"object"}"#))
        // OpenAI's "developer" role is the system role.
        let developer = try chat(#","messages":[{"role":"developer","content":"be brief"},{"role":"user","content":"hi"}]"#)
        #expect(developer.messages.first?.role == .system)
    }

    @Test func thinkingFollowsTheTemplateUnlessTheRequestTurnsItOff() throws {
        let on = try ChatCompletionRequest(body(#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#),
                                           vocabularySize: 10, templateThinks: true)
        #expect(on.thinking.isEnabled)
        for off in [#","reasoning_effort":"none""#, #","chat_template_kwargs":{"enable_thinking":false}"#] {
            let request = try ChatCompletionRequest(body(#"{"model":"m","messages":[{"role":"user","content":"hi"}]\#(off)}"#),
                                                    vocabularySize: 10, templateThinks: true)
            #expect(!request.thinking.isEnabled)
        }
        #expect(try !chat("").thinking.isEnabled)
    }

    @Test func aThinkingBudgetIsReadUnderEitherOfLlamaServersNames() throws {
        for name in ["thinking_budget_tokens", "reasoning_budget_tokens"] {
            let request = try ChatCompletionRequest(
                body(#"{"model":"m","messages":[{"role":"user","content":"hi"}],"\#(name)":64,"reasoning_budget_message":"Now answer."}"#),
                vocabularySize: 10, templateThinks: true)
            #expect(request.thinking.budget == 64 && request.thinking.budgetMessage == "Now answer.", "\(name)")
        }
        let unlimited = try ChatCompletionRequest(body(#"{"model":"m","messages":[{"role":"user","content":"hi"}],"thinking_budget_tokens":-1}"#),
                                                  vocabularySize: 10, templateThinks: true)
        #expect(unlimited.thinking.isEnabled && unlimited.thinking.budget == nil)
    }

    @Test func llamaServersSamplingFieldsAreReadAndCheckedByTheirWireNames() throws {
        let request = try ChatCompletionRequest(body(#"""
            {"model":"m","messages":[{"role":"user","content":"hi"}],"top_k":5,"min_p":0.1,"typical_p":0.5,"repeat_penalty":1.2,
             "repeat_last_n":32,"dry_multiplier":0.8,"dry_sequence_breakers":["\n"],"xtc_probability":0.5,"mirostat":2,
             "mirostat_tau":3,"grammar":"root ::= \"x\""}
            """#), vocabularySize: 10, templateThinks: false)
        let sampling = request.parameters.options.sampling
        #expect(sampling.topK == 5 && sampling.minP == 0.1 && sampling.typicalP == 0.5 && sampling.repetitionPenalty == 1.2)
        #expect(sampling.penaltyWindow == 32)
        #expect(sampling.repetitionGuard == .init(multiplier: 0.8, sequenceBreakers: ["\n"]))
        #expect(sampling.topChoiceExclusion == .init(probability: 0.5))
        #expect(sampling.mirostat == .init(version: .v2, tau: 3))
        #expect(request.format == .grammar(#"root ::= "x""#))
        for (field, bad) in [("typical_p", "0"), ("mirostat", "3"), ("dry_base", "0.5"), ("dry_sequence_breakers", #"[""]"#),
                             ("xtc_threshold", "2"), ("mirostat_eta", "0"), ("top_k", "-1")] {
            let prefix = field == "mirostat_eta" ? #","mirostat":1"# : ""
            #expect {
                _ = try ChatCompletionRequest(body(#"{"model":"m","messages":[{"role":"user","content":"hi"}]\#(prefix),"\#(field)":\#(bad)}"#),
                                              vocabularySize: 10, templateThinks: false)
            } throws: { error in
                (error as? APIError)?.param == field && (error as? APIError)?.status == 400
            }
        }
        let both = #"{"model":"m","messages":[{"role":"user","content":"hi"}],"grammar":"root ::= \"x\"","response_format":{"type":"json_object"}}"#
        #expect(throws: APIError.self) { try ChatCompletionRequest(body(both), vocabularySize: 10, templateThinks: false) }
    }

    @Test func onlyAZeroKeepAliveUnloadsAndNoValueTraps() throws {
        for zero in ["0", "0.0", #""0""#, #""0s""#, #""0m""#] {
            #expect(ModelServer.unloadsNow(try body(#"{"keep_alive":\#(zero)}"#)), "\(zero)")
        }
        for other in ["5", "1e300", "-1", #""5m""#, #""1e400s""#, #""m""#, #""""#, "null", "true"] {
            #expect(!ModelServer.unloadsNow(try body(#"{"keep_alive":\#(other)}"#)), "\(other)")
        }
    }

    @Test func theAPIKeyMustMatchExactly() {
        // The scheme is case-insensitive (RFC 7235, Daemon #11); the key is not.
        for right in ["Bearer s3cret", "bearer s3cret", "BEARER s3cret"] {
            #expect(ModelServer.authorizes(right, key: "s3cret"), "\(right)")
        }
        for wrong in [nil, "", "s3cret", "Bearer s3cre", "Bearer s3cret2", "Bearer S3cret", "bearers3cret", "Basic s3cret"] {
            #expect(!ModelServer.authorizes(wrong, key: "s3cret"), "\(String(describing: wrong))")
        }
    }

    @Test func errorsHaveOpenAIsShape() throws {
        let error = APIError.busy(queued: 3, retryAfter: 1)
        let json = try #require(JSONSerialization.jsonObject(with: Data(error.body.utf8)) as? [String: [String: Any]])
        #expect(json["error"]?["type"] as? String == "rate_limit_error")
        #expect(json["error"]?["code"] as? String == "rate_limit_exceeded")
        #expect(json["error"]?.keys.sorted() == ["code", "message", "param", "type"])
        #expect(error.headers.contains { $0 == ("Retry-After", "1") })
        #expect(APIError(LocalModel.Error.promptTooLong(tokens: 9000, limit: 4096)).code == "context_length_exceeded")
        #expect(APIError(LocalModel.Error.busy(queuedRequests: 2)).status == 429)
        #expect(APIError(CancellationError()).status == 500)
    }

    @Test("Daemon #8: an address other machines reach needs a key, unless unauthenticated access is allowed; an empty key is refused")
    func exposureNeedsAKey() throws {
        for host in ["0.0.0.0", "::", "192.168.1.20", "example.org"] {
            #expect(ModelServer.Configuration(host: host).isExposed)
            #expect(throws: ModelServer.Error.self) { try ModelServer.Configuration(host: host).validate() }
            try ModelServer.Configuration(host: host, apiKey: "k-1").validate()
            try ModelServer.Configuration(host: host, allowsUnauthenticatedRemoteAccess: true).validate()
        }
        for host in ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"] {
            #expect(!ModelServer.Configuration(host: host).isExposed, "\(host)")
            try ModelServer.Configuration(host: host).validate()
        }
        #expect {
            try ModelServer.Configuration(apiKey: "").validate()
        } throws: { error in
            guard case ModelServer.Error.invalidConfiguration("apiKey", let reason) = error else { return false }
            return reason.contains("turn authentication off")
        }
    }

    @Test func badServerSettingsAreNamed() {
        let bad: [(ModelServer.Configuration, String)] = [
            (.init(port: 70000), "port"), (.init(apiKey: ""), "apiKey"), (.init(apiKey: "has space"), "apiKey"),
            (.init(maximumBodyBytes: 10), "maximumBodyBytes"), (.init(requestTimeout: .zero), "requestTimeout"),
            (.init(maximumConnections: 0), "maximumConnections"), (.init(host: ""), "host"),
            (.init(maximumConcurrentRequests: 0), "maximumConcurrentRequests"),
            (.init(maximumConnections: 16, maximumConnectionsPerClient: 17), "maximumConnectionsPerClient"),
            (.init(allowedHosts: ["bad host"]), "allowedHosts"),
        ]
        for (configuration, name) in bad {
            #expect(throws: ModelServer.Error.invalidConfiguration(name: name, reason: "")) {
                do {
                    try configuration.validate()
                } catch ModelServer.Error.invalidConfiguration(let found, _) {
                    throw ModelServer.Error.invalidConfiguration(name: found, reason: "")
                }
            }
        }
    }
}

/// The other direction of the wire model: every field `RemoteModel` writes into a chat request
/// is one this server reads. Each field of a request with every setting set is, in turn, given
/// a value of the wrong kind; the server must refuse it naming that field, which it can only do
/// by reading it. A field added to the client that the server ignores fails here.
struct RemoteRequestFieldTests {
    @Test("every field RemoteModel writes, nested ones too, is read by the server")
    func everyClientFieldIsRead() throws {
        var options = CompletionOptions(maximumResponseTokens: 5, stopSequences: ["END"])
        for field in SamplingWireField.all {
            switch field.kind {
            case .number(let range): field.apply(&options, .number((range.lowerBound + range.upperBound) / 2))
            case .integer(let range): field.apply(&options, .integer(min(max(range.lowerBound, 1), range.upperBound)))
            case .strings: field.apply(&options, .array([.string(",")]))
            }
        }
        options.sampling.logitBias = [5: -2]
        options.adapterScales = [0.5]
        let tool = ChatCompletionBody.Tool(name: "f", description: "", parameters: .object([("type", .string("object")), ("properties", .object([]))]))
        let request = try ChatCompletionBody(model: "m", sending: [.user("hi")], options: options, seed: 7,
                                             format: .jsonSchema(#"{"type":"object"}"#), thinking: .enabled(budget: 10, budgetMessage: "enough"),
                                             offer: ([tool], "auto"))
        guard case .object(let fields) = try request.json() else {
            Issue.record("the client's body is not an object")
            return
        }
        func parse(_ fields: [(String, OrderedJSON)]) throws(APIError) -> ChatCompletionRequest {
            try ChatCompletionRequest(RequestBody(Data(OrderedJSON.object(fields).serialized().utf8)),
                                      vocabularySize: 1000, adapterCount: 1, templateThinks: true)
        }
        // As sent, it is accepted, with every setting the client made.
        let read = try parse(fields)
        #expect(read.parameters.options.stopSequences == ["END"] && read.parameters.options.adapterScales == [0.5])
        #expect(read.thinking.budget == 10 && read.thinking.budgetMessage == "enough" && read.tools.map(\.name) == ["f"])
        #expect(fields.count >= SamplingWireField.all.count + 10, "\(fields.map(\.0))")

        // A value of the wrong kind for each field, and for each field of an object field.
        var poisoned: [(path: String, fields: [(String, OrderedJSON)])] = []
        for (index, (name, value)) in fields.enumerated() {
            var copy = fields
            copy[index].1 = Self.wrongKind(for: value)
            poisoned.append((name, copy))
            if case .object(let inner) = value, name != "logit_bias" {
                for (innerIndex, (innerName, innerValue)) in inner.enumerated() {
                    var nested = inner
                    nested[innerIndex].1 = Self.wrongKind(for: innerValue)
                    var copy = fields
                    copy[index].1 = .object(nested)
                    poisoned.append(("\(name).\(innerName)", copy))
                }
            }
        }
        for (path, fields) in poisoned {
            do throws(APIError) {
                _ = try parse(fields)
                Issue.record("the server ignored \(path), which RemoteModel sends")
            } catch {
                let names = path.split(separator: ".").map(String.init)
                #expect(error.status == 400 && names.contains { error.param?.hasPrefix($0) == true || error.message.contains($0) },
                        "\(path): \(error.message) (param \(String(describing: error.param)))")
            }
        }
    }

    /// A value no field of the kind of `value` takes.
    private static func wrongKind(for value: OrderedJSON) -> OrderedJSON {
        if case .object = value { return .string("not an object") }
        return .object([("not", .string("a \(value)"))])
    }
}
