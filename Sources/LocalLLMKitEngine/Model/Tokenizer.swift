import CLlama
import Foundation

/// The model's tokenizer: text to tokens and back, through llama.cpp.
package struct Tokenizer: Sendable {
    package let handle: ModelHandle

    private var vocabulary: OpaquePointer { handle.vocabulary }

    /// The number of tokens in the vocabulary.
    package var vocabularySize: Int { Int(llama_vocab_n_tokens(vocabulary)) }

    /// Whether the model expects a beginning-of-sequence token at the start of a prompt.
    package var addsBeginningOfSequence: Bool { llama_vocab_get_add_bos(vocabulary) }

    /// Whether tokenizing with special tokens closes the text with an end or separator token
    /// (BERT's `[SEP]`).
    package var addsClosingToken: Bool { llama_vocab_get_add_eos(vocabulary) || llama_vocab_get_add_sep(vocabulary) }

    /// The tokens of a query–document pair for a reranker, as llama-server's `/rerank` makes
    /// them: the model's rerank template (`tokenizer.chat_template.rerank`, with `{query}` and
    /// `{document}`) when it has one, else the start token, the query, the end token (or the
    /// separator), the separator, the document and the end token, each where the model adds it.
    /// User text is never parsed for special tokens outside a template.
    package func rankingPair(query: String, document: String, template: String?) throws -> [Int32] {
        if let template {
            let prompt = template.replacingOccurrences(of: "{query}", with: query).replacingOccurrences(of: "{document}", with: document)
            return try tokenize(prompt, addSpecial: false, parseSpecial: true)
        }
        var end = llama_vocab_eos(vocabulary)
        if end == LLAMA_TOKEN_NULL { end = llama_vocab_sep(vocabulary) }
        let (addsEnd, addsSeparator) = (llama_vocab_get_add_eos(vocabulary), llama_vocab_get_add_sep(vocabulary))
        var tokens: [Int32] = addsBeginningOfSequence ? [llama_vocab_bos(vocabulary)] : []
        tokens += try tokenize(query, addSpecial: false, parseSpecial: false)
        if addsEnd { tokens.append(end) }
        if addsSeparator { tokens.append(llama_vocab_sep(vocabulary)) }
        tokens += try tokenize(document, addSpecial: false, parseSpecial: false)
        if addsEnd { tokens.append(end) }
        return tokens
    }

    /// Whether `token` ends generation (end of sequence, end of turn…).
    package func isEndOfGeneration(_ token: Int32) -> Bool { llama_vocab_is_eog(vocabulary, token) }

    /// Tokenizes `text`.
    /// - Parameters:
    ///   - addSpecial: add the model's beginning-of-sequence token (if it uses one).
    ///   - parseSpecial: turn texts such as `<start_of_turn>` into their special tokens.
    ///     Only template text should be parsed that way, never user text.
    package func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
        let utf8 = Array(text.utf8)
        guard utf8.count < Int32.max / 2 else {
            throw LocalModel.Error.tokenizationFailed(reason: "text of \(utf8.count) bytes is too long")
        }
        var capacity = utf8.count + 8
        while true {
            var tokens = [Int32](repeating: 0, count: capacity)
            let count = utf8.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    llama_tokenize(vocabulary, chars.baseAddress, Int32(utf8.count), &tokens,
                                   Int32(capacity), addSpecial, parseSpecial)
                }
            }
            if count >= 0 { return Array(tokens.prefix(Int(count))) }
            if count == Int32.min {
                throw LocalModel.Error.tokenizationFailed(reason: "too many tokens")
            }
            capacity = Int(-count)
        }
    }

    /// The bytes of one token's text. Special tokens render as their text only
    /// when `renderSpecial` is true; otherwise they are empty.
    package func piece(_ token: Int32, renderSpecial: Bool = false) throws -> [UInt8] {
        guard token >= 0 && Int(token) < vocabularySize else {
            throw LocalModel.Error.invalidToken(token, vocabularySize: vocabularySize)
        }
        var buffer = [CChar](repeating: 0, count: 64)
        var count = llama_token_to_piece(vocabulary, token, &buffer, Int32(buffer.count), 0, renderSpecial)
        if count < 0 {
            buffer = [CChar](repeating: 0, count: Int(-count))
            count = llama_token_to_piece(vocabulary, token, &buffer, Int32(buffer.count), 0, renderSpecial)
        }
        return buffer.prefix(Int(max(count, 0))).map { UInt8(bitPattern: $0) }
    }

    /// Turns tokens back into text.
    package func detokenize(_ tokens: [Int32], renderSpecial: Bool) throws -> String {
        var bytes: [UInt8] = []
        for token in tokens { bytes += try piece(token, renderSpecial: renderSpecial) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws if any token id lies outside the vocabulary; llama.cpp would abort on it.
    package func validate(_ tokens: [Int32]) throws {
        let size = vocabularySize
        if let bad = tokens.first(where: { $0 < 0 || Int($0) >= size }) {
            throw LocalModel.Error.invalidToken(bad, vocabularySize: size)
        }
    }
}
