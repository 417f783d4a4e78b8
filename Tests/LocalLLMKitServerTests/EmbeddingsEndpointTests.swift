import Foundation
import LocalLLMKit
import Testing
@testable import LocalLLMKitServer

/// `POST /v1/embeddings` through a real server over real models: all-MiniLM-L6-v2 (384
/// dimensions, mean pooling) and SmolLM2 (a chat model, last-token pooling), compared with what
/// ``LocalModel/embeddings(for:options:)`` gives in-process; OpenAI's official Python client;
/// the 400s of bad requests; and completions refused by an embedding model.
@Suite(.serialized) struct EmbeddingsEndpointTests {
    static let texts = ["A cat sits on the mat.", "Stocks fell sharply on Monday.", "Ein Hund bellt im Garten.",
                        "The kitten is sleeping on a rug."]

    /// A JSON string literal of `text`.
    private static func quoted(_ text: String) -> String {
        OrderedJSON.string(text).serialized()
    }

    /// A body for the embedding model with `input` (JSON text) and extra members.
    private static func body(input: String, _ extra: String = "") -> String {
        #"{"model":"minilm","input":\#(input)\#(extra)}"#
    }

    // MARK: Through the official client

    @Test func theOfficialClientGetsTheLibrarysVectorsAsBase64AndAsFloats() async throws {
        let model = try await ServerHarness.embeddingModel()
        let server = try ServerHarness.serve(["minilm": model])
        let textsJSON = OrderedJSON.array(Self.texts.map(OrderedJSON.string)).serialized()
        let outcome = try await ServerHarness.python("embedding_client.py", [
            "--base-url", server.baseURL.absoluteString, "--model", "minilm", "--texts", textsJSON,
        ], timeout: .seconds(300))
        let expected = try await model.embeddings(for: Self.texts)
        await server.stop()
        #expect(outcome.status == 0, "\(outcome.output.suffix(1000))\n\(outcome.errors.suffix(2000))")
        let summary = try #require(outcome.summary, "no JSON from the client: \(outcome.output.suffix(1000))\n\(outcome.errors.suffix(2000))")
        #expect(expected.dimensions == 384)

        for format in ["default", "float"] {
            let part = try #require(summary[format] as? [String: Any], "\(format) missing: \(summary)")
            let vectors = ((part["vectors"] as? [[Double]]) ?? []).map { $0.map(Float.init) }
            try #require(vectors.count == Self.texts.count, "\(format): \(vectors.count) vectors")
            for (index, vector) in vectors.enumerated() {
                #expect(vector.count == 384, "\(format) \(index)")
                let cosine = ServerHarness.cosine(vector, expected.vectors[index])
                #expect(cosine > 0.9999, "\(format) \(index): cosine \(cosine)")
            }
            #expect(part["indices"] as? [Int] == Array(0..<Self.texts.count))
            #expect(part["objects"] as? [String] == ["embedding"])
            #expect(part["object"] as? String == "list")
            #expect(part["model"] as? String == "minilm")
            #expect(part["prompt_tokens"] as? Int == expected.totalTokenCount, "\(part["prompt_tokens"] ?? "none")")
            #expect(part["total_tokens"] as? Int == expected.totalTokenCount)
        }
        let base64 = try #require(summary["default"] as? [String: Any])
        let float = try #require(summary["float"] as? [String: Any])
        // The client asks for base64 unless told otherwise, and decodes it; floats come as numbers.
        #expect(base64["raw_base64"] as? Bool == true)
        #expect(float["raw_float"] as? Bool == true)
        // Both encodings carry the same float32 values, bit for bit.
        let fromBase64 = ((base64["vectors"] as? [[Double]]) ?? []).map { $0.map(Float.init) }
        let fromNumbers = ((float["vectors"] as? [[Double]]) ?? []).map { $0.map(Float.init) }
        #expect(fromBase64 == fromNumbers)
        let single = try #require(summary["single"] as? [String: Any])
        #expect(single["count"] as? Int == 1 && single["index"] as? Int == 0 && single["dimensions"] as? Int == 384)
        let empty = try #require(summary["empty"] as? [String: Any])
        #expect(empty["status"] as? Int == 400, "\(empty)")
        #expect(empty["param"] as? String == "input", "\(empty)")
    }

    // MARK: Shape and order

    @Test func aStringAndAnArrayKeepTheirOrderAndAreCounted() async throws {
        let model = try await ServerHarness.embeddingModel()
        let server = try ServerHarness.serve(["minilm": model])
        let expected = try await model.embeddings(for: Self.texts)

        let one = try await ServerHarness.post(server, "embeddings", Self.body(input: Self.quoted(Self.texts[1])))
        #expect(one.status == 200, "\(one.body)")
        let oneData = try #require(one.json?["data"] as? [[String: Any]])
        #expect(oneData.count == 1 && oneData[0]["index"] as? Int == 0 && oneData[0]["object"] as? String == "embedding")
        #expect(ServerHarness.cosine(one.vectors[0], expected.vectors[1]) > 0.9999)
        #expect((one.json?["usage"] as? [String: Int]) == ["prompt_tokens": expected.tokenCounts[1],
                                                           "total_tokens": expected.tokenCounts[1]])

        // Reversed, so that the order cannot come out right by chance; without the /v1 prefix.
        let reversed = Array(Self.texts.reversed())
        let array = try await ServerHarness.post(server, "embeddings",
                                                 Self.body(input: OrderedJSON.array(reversed.map(OrderedJSON.string)).serialized()))
        #expect(array.status == 200, "\(array.body)")
        let json = try #require(array.json)
        #expect(json["object"] as? String == "list")
        #expect(json["model"] as? String == "minilm")
        #expect(((json["data"] as? [[String: Any]]) ?? []).compactMap { $0["index"] as? Int } == Array(0..<reversed.count))
        let vectors = array.vectors
        try #require(vectors.count == reversed.count)
        for (index, text) in reversed.enumerated() {
            let own = Self.texts.firstIndex(of: text)!
            for other in Self.texts.indices {
                let cosine = ServerHarness.cosine(vectors[index], expected.vectors[other])
                if other == own {
                    #expect(cosine > 0.9999, "data[\(index)] is not '\(text)': cosine \(cosine)")
                } else {
                    #expect(cosine < 0.99, "data[\(index)] matches '\(Self.texts[other])' too: cosine \(cosine)")
                }
            }
        }
        #expect((json["usage"] as? [String: Int])?["prompt_tokens"] == expected.totalTokenCount)

        // `dimensions` equal to the model's, `user` and `encoding_format: "float"` are accepted.
        let extras = try await ServerHarness.post(server, "embeddings",
                                                  Self.body(input: #""hi""#, #","dimensions":384,"user":"u-1","encoding_format":"float""#))
        #expect(extras.status == 200, "\(extras.body)")
        #expect(extras.vectors.first?.count == 384)

        let metrics = try await ServerHarness.get(server, "metrics")
        await server.stop()
        #expect(metrics.body.contains(#"llmkit_requests_total{endpoint="/v1/embeddings",status="200"} 3"#), "\(metrics.body)")
        #expect(metrics.body.contains("llmkit_embedded_inputs_total \(1 + reversed.count + 1)"), "\(metrics.body)")
    }

    // MARK: Bad requests

    @Test func badRequestsGet400NamingTheField() async throws {
        let model = try await ServerHarness.embeddingModel()
        let server = try ServerHarness.serve(["minilm": model])
        let limit = model.embeddingInputLimit
        #expect(limit == 512)
        let long = String(repeating: "word ", count: 700)
        let tooMany = OrderedJSON.array(Array(repeating: .string("a"), count: EmbeddingsRequest.maximumInputs + 1)).serialized()
        let cases: [(body: String, param: String, mentions: [String])] = [
            (Self.body(input: "[]"), "input", ["empty"]),
            (Self.body(input: #"["a",5]"#), "input", ["input[1]", "string"]),
            (Self.body(input: "[1,2,3]"), "input", ["token ids"]),
            (Self.body(input: "[[1,2],[3]]"), "input", ["input[0]", "token ids"]),
            (Self.body(input: "5"), "input", ["string"]),
            (#"{"model":"minilm"}"#, "input", ["required"]),
            (Self.body(input: tooMany), "input", ["\(EmbeddingsRequest.maximumInputs + 1)", "at most \(EmbeddingsRequest.maximumInputs)"]),
            (Self.body(input: #""a""#, #","encoding_format":"int8""#), "encoding_format", ["int8", "base64"]),
            (Self.body(input: #""a""#, #","encoding_format":3"#), "encoding_format", ["string"]),
            (Self.body(input: #""a""#, #","dimensions":256"#), "dimensions", ["256", "384"]),
            (Self.body(input: #""a""#, #","dimensions":0"#), "dimensions", ["0"]),
            (Self.body(input: #""a""#, #","truncate":"yes""#), "truncate", ["true or false"]),
            (Self.body(input: #"["short",\#(Self.quoted(long))]"#), "input", ["input[1]", "\(limit)", "truncate"]),
            (#"{"model":5,"input":"a"}"#, "model", ["string"]),
        ]
        for (body, param, mentions) in cases {
            let reply = try await ServerHarness.post(server, "embeddings", body)
            let shown = body.count > 120 ? String(body.prefix(120)) + "…" : body
            #expect(reply.status == 400, "\(shown): \(reply.status) \(reply.body)")
            #expect(reply.error?["type"] as? String == "invalid_request_error", "\(shown): \(reply.body)")
            #expect(reply.errorParam == param, "\(shown): \(reply.body)")
            for word in mentions {
                #expect(reply.errorMessage.contains(word), "\(shown): '\(word)' not in \(reply.errorMessage)")
            }
        }
        let tooLong = try await ServerHarness.post(server, "embeddings", Self.body(input: Self.quoted(long)))
        #expect(tooLong.error?["code"] as? String == "context_length_exceeded", "\(tooLong.body)")
        // A server of one model answers any name with it (as llama-server does).
        let anyName = try await ServerHarness.post(server, "embeddings", #"{"model":"text-embedding-3-small","input":"a"}"#)
        #expect(anyName.status == 200 && anyName.json?["model"] as? String == "minilm", "\(anyName.body)")
        let wrongMethod = try await ServerHarness.get(server, "v1/embeddings")
        #expect(wrongMethod.status == 405, "\(wrongMethod.body)")

        // llama-server's and text-embeddings-inference's `truncate` cuts the text to the limit instead.
        let truncated = try await ServerHarness.post(server, "embeddings", Self.body(input: Self.quoted(long), #","truncate":true"#))
        await server.stop()
        #expect(truncated.status == 200, "\(truncated.body)")
        #expect((truncated.json?["usage"] as? [String: Int])?["prompt_tokens"] == limit)
    }

    // MARK: Embedding model and chat model

    @Test func anEmbeddingModelRefusesCompletionsClearlyAndKeepsEmbedding() async throws {
        let model = try await ServerHarness.embeddingModel()
        let server = try ServerHarness.serve(["minilm": model])
        let chat = #"{"model":"minilm","messages":[{"role":"user","content":"Hi"}],"max_tokens":4"#
        for (path, body) in [("chat/completions", chat + "}"), ("chat/completions", chat + #","stream":true}"#),
                             ("completions", #"{"model":"minilm","prompt":"Hi","max_tokens":4}"#)] {
            let reply = try await ServerHarness.post(server, path, body)
            #expect(reply.status == 400, "\(path): \(reply.status) \(reply.body)")
            #expect(reply.errorParam == "model", "\(path): \(reply.body)")
            #expect(reply.error?["code"] as? String == "model_not_supported", "\(path): \(reply.body)")
            #expect(reply.errorMessage.contains("'minilm' cannot generate text"), "\(path): \(reply.errorMessage)")
            #expect(reply.errorMessage.contains("/v1/embeddings"), "\(path): \(reply.errorMessage)")
            #expect(!reply.errorMessage.contains("/.cache/"), "the server's file path leaked: \(reply.errorMessage)")
        }
        let health = try await ServerHarness.get(server, "health")
        let models = try await ServerHarness.get(server, "v1/models")
        let embedded = try await ServerHarness.post(server, "embeddings", Self.body(input: #""still here""#))
        let expected = try await model.embedding(for: "still here")
        await server.stop()
        #expect(health.status == 200)
        #expect(models.status == 200 && models.body.contains(#""id":"minilm""#), "\(models.body)")
        #expect(embedded.status == 200, "\(embedded.body)")
        #expect(ServerHarness.cosine(embedded.vectors.first ?? [], expected) > 0.9999)
    }

    @Test func aChatModelEmbedsWithItsLastTokenAndStillChats() async throws {
        let model = try await ServerHarness.chatModel(parallel: 2)
        let server = try ServerHarness.serve(["smollm": model])
        let texts = Array(Self.texts.prefix(3))
        let input = OrderedJSON.array(texts.map(OrderedJSON.string)).serialized()
        // A chat answer and embeddings at the same time, on the same model.
        async let chatting = ServerHarness.post(server, "chat/completions",
                                                #"{"model":"smollm","messages":[{"role":"user","content":"Count to ten."}],"max_tokens":24}"#)
        async let embedding = ServerHarness.post(server, "embeddings", #"{"model":"smollm","input":\#(input)}"#)
        async let encoding = ServerHarness.post(server, "embeddings",
                                                #"{"model":"smollm","input":\#(input),"encoding_format":"base64"}"#)
        let (chat, reply, base64) = try await (chatting, embedding, encoding)
        let expected = try await model.embeddings(for: texts)
        // Alone (units of the same shape), numbers and base64 carry the same floats bit for bit.
        // Beside a chat, units are cut to its steps (see LocalModel.embeddings(for:options:)): other
        // batch shapes round differently, by up to about 2e-4 in cosine on this 135M Q4_1 model.
        let alone = try await ServerHarness.post(server, "embeddings", #"{"model":"smollm","input":\#(input)}"#)
        let aloneBase64 = try await ServerHarness.post(server, "embeddings",
                                                       #"{"model":"smollm","input":\#(input),"encoding_format":"base64"}"#)
        await server.stop()
        #expect(expected.pooling == .last)
        #expect(reply.status == 200, "\(reply.body)")
        let vectors = reply.vectors
        try #require(vectors.count == texts.count)
        for (index, vector) in vectors.enumerated() {
            #expect(vector.count == expected.dimensions)
            #expect(ServerHarness.cosine(vector, expected.vectors[index]) > 0.999, "\(index)")
            #expect(ServerHarness.cosine(alone.vectors[index], expected.vectors[index]) > 0.99999, "\(index)")
        }
        #expect((reply.json?["usage"] as? [String: Int])?["prompt_tokens"] == expected.totalTokenCount)
        // base64: little-endian float32, the same values as the numbers.
        func decoded(_ answer: ServerHarness.Reply) throws -> [[Float]] {
            let encoded = ((answer.json?["data"] as? [[String: Any]]) ?? []).compactMap { $0["embedding"] as? String }
            try #require(encoded.count == texts.count, "\(answer.body.prefix(300))")
            return encoded.map { text -> [Float] in
                let bytes = [UInt8](Data(base64Encoded: text) ?? Data())
                return stride(from: 0, to: bytes.count, by: 4).map { offset in
                    Float(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                                      | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
                }
            }
        }
        for (index, vector) in try decoded(base64).enumerated() {
            #expect(ServerHarness.cosine(vector, expected.vectors[index]) > 0.999, "\(index)")
        }
        #expect(try decoded(aloneBase64) == alone.vectors)
        #expect(chat.status == 200, "\(chat.body)")
    }

    // MARK: Parsing and encoding, without a model

    @Test func aRequestBecomesTextsAndOptions() throws {
        func request(_ json: String) throws(APIError) -> EmbeddingsRequest {
            try EmbeddingsRequest(RequestBody(Data(json.utf8)))
        }
        let plain = try request(#"{"model":"m","input":"hello"}"#)
        #expect(plain.inputs == ["hello"] && plain.encodingFormat == .float && plain.dimensions == nil && !plain.truncates)
        let full = try request(#"{"model":"m","input":["a",""],"encoding_format":"base64","dimensions":384,"truncate":true,"user":"x"}"#)
        #expect(full.inputs == ["a", ""] && full.encodingFormat == .base64 && full.dimensions == 384 && full.truncates)
        #expect(try request(#"{"input":"a","encoding_format":null,"dimensions":null}"#).encodingFormat == .float)
        #expect(throws: APIError.self) { try request(#"{"input":["a",null]}"#) }
        #expect(throws: APIError.self) { try request(#"{"input":{"text":"a"}}"#) }
    }

    @Test func vectorsAreWrittenAsLittleEndianFloat32AndShortestDecimals() {
        // 1.0 = 0x3F800000 and -2.0 = 0xC0000000, least significant byte first.
        #expect(EmbeddingJSON.base64([1, -2]) == "AACAPwAAAMA=")
        #expect(EmbeddingJSON.base64([]) == "")
        #expect(OrderedJSON.array([0.1, -0.25, 3e-8, 0].map(EmbeddingJSON.number)).serialized() == "[0.1,-0.25,3e-08,0]")
        let embeddings = LocalModel.Embeddings(vectors: [[0.5, 0.5], [1, 0]], dimensions: 2, pooling: .mean, isNormalized: false,
                                               tokenCounts: [3, 4], truncatedIndices: [], decodeCount: 1, duration: .zero)
        #expect(EmbeddingJSON.response(embeddings, model: "m", format: .float).serialized()
                == #"{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.5]},"#
                + #"{"object":"embedding","index":1,"embedding":[1,0]}],"model":"m","usage":{"prompt_tokens":7,"total_tokens":7}}"#)
    }

    @Test func embeddingErrorsNameTheInputOrTheModel() {
        let long = APIError.embedding(.inputTooLong(index: 3, tokenCount: 600, limit: 512), model: "minilm")
        #expect(long.status == 400 && long.param == "input" && long.code == "context_length_exceeded")
        #expect(long.message.contains("'input[3]' has 600 tokens") && long.message.contains("the model 'minilm' embeds at most 512"))
        #expect(APIError(LocalModel.EmbeddingError.noTokens(index: 2)).message.contains("input[2]"))
        let unsupported = APIError(LocalModel.EmbeddingError.unsupportedModel(path: "/secret/m.gguf", reason: "no weights"))
        #expect(unsupported.param == "model" && !unsupported.message.contains("/secret"))
        let generate = APIError(LocalModel.Error.cannotGenerate(path: "/secret/m.gguf", reason: "a BERT encoder"))
        #expect(generate.status == 400 && generate.param == "model" && !generate.message.contains("/secret"))
    }
}
