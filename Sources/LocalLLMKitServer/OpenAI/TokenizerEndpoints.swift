import Foundation
import LocalLLMKit

extension ModelServer {
    /// The most tokens `/detokenize` takes, and the most strings and ids in a `/tokenize` array.
    static let maximumTokenizerItems = 1 << 20

    /// `POST /tokenize`, in llama-server's shape: `{"content": "…" or ["text", 42, …],
    /// "add_special": false, "parse_special": true, "with_pieces": false, "model": …}` answers
    /// `{"tokens": [ids]}`, or with pieces `{"tokens": [{"id", "piece"}]}` where a piece that is
    /// not valid UTF-8 on its own is an array of its bytes.
    func tokenize(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let body = try await RequestBody.parse(exchange.body)
            let served = try await servedModel(requestedBy: body).resolve()
            let addSpecial = try body.bool("add_special") ?? false
            let parseSpecial = try body.bool("parse_special") ?? true
            let withPieces = try body.bool("with_pieces") ?? false
            let parts = try Self.contentParts(body, vocabularySize: served.vocabularySize)
            // A body of megabytes tokenizes for a while: off Swift's shared pool.
            let tokens: [OrderedJSON] = try await BlockingWorkPool.shared.run {
                var tokens: [LocalModel.Token] = []
                for (index, part) in parts.enumerated() {
                    switch part {
                    case .text(let text):
                        // llama-server adds the special tokens to the first text only.
                        tokens += try served.model.tokenize(text, addingBeginningOfSequence: addSpecial && index == 0,
                                                            parsingSpecialTokens: parseSpecial)
                    case .token(let token):
                        tokens.append(token)
                    }
                }
                guard withPieces else { return tokens.map { .integer(Int($0)) } }
                return try tokens.map { token in
                    let bytes = try served.model.tokenizer.piece(token, renderSpecial: true)
                    let piece: OrderedJSON = String(validating: bytes, as: UTF8.self).map(OrderedJSON.string)
                        ?? .array(bytes.map { .integer(Int($0)) })
                    return .object([("id", .integer(Int(token))), ("piece", piece)])
                }
            }
            return succeed(exchange, .object([("tokens", .array(tokens))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// `POST /detokenize`: `{"tokens": [ids]}` answers `{"content": "…"}`, the pieces' bytes
    /// joined (special tokens as their text), as llama-server does. An id outside the
    /// vocabulary is a 400.
    func detokenize(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let body = try await RequestBody.parse(exchange.body)
            let served = try await servedModel(requestedBy: body).resolve()
            var tokens: [LocalModel.Token] = []
            if let value = body["tokens"] {
                guard case .array(let items) = value, items.count <= Self.maximumTokenizerItems else {
                    throw APIError.invalid("'tokens' must be an array of at most \(Self.maximumTokenizerItems) token ids.", param: "tokens")
                }
                tokens = try items.map { try Self.tokenID($0, vocabularySize: served.vocabularySize, param: "tokens") }
            }
            let content = try await BlockingWorkPool.shared.run { [tokens] in
                try served.model.detokenize(tokens, renderingSpecialTokens: true)
            }
            return succeed(exchange, .object([("content", .string(content))]))
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// One part of `/tokenize`'s content: text to tokenize, or a token id taken as it is.
    private enum ContentPart: Sendable {
        case text(String)
        case token(LocalModel.Token)
    }

    private static func contentParts(_ body: RequestBody, vocabularySize: Int) throws(APIError) -> [ContentPart] {
        switch body["content"] {
        case nil: return []
        case .string(let text)?: return [.text(text)]
        case .array(let items)?:
            guard items.count <= maximumTokenizerItems else {
                throw .invalid("'content' holds more than \(maximumTokenizerItems) items.", param: "content")
            }
            var parts: [ContentPart] = []
            for item in items {
                if case .string(let text) = item {
                    parts.append(.text(text))
                } else {
                    parts.append(.token(try tokenID(item, vocabularySize: vocabularySize, param: "content")))
                }
            }
            return parts
        default:
            throw .invalid("'content' must be a string, or an array of strings and token ids.", param: "content")
        }
    }

    private static func tokenID(_ value: OrderedJSON, vocabularySize: Int, param: String) throws(APIError) -> LocalModel.Token {
        guard case .integer(let id) = value, id >= 0, id < vocabularySize else {
            throw .invalid("'\(param)' holds \(value.serialized().prefix(40)), which is not a token id of this model (0..<\(vocabularySize)).",
                           param: param)
        }
        return LocalModel.Token(id)
    }
}
