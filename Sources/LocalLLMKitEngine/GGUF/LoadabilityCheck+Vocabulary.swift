/// The vocabulary (llama.cpp src/llama-vocab.cpp, `llama_vocab::impl::load` and `tokenize`).
extension LoadabilityCheck {
    /// What llama.cpp assumes for each tokenizer type when the file says nothing:
    /// the default special token ids and whether it adds BOS, EOS and SEP tokens.
    package struct TokenizerDefaults {
        var bos: Int?
        var eos: Int?
        var sep: Int?
        var addsBOS = false
        var addsEOS = false
        var addsSEP = false
    }

    /// The tokenizer types llama.cpp knows, with its defaults. BPE defaults to adding
    /// BOS for some pre-tokenizers; assuming it always may only reject vocabularies of
    /// fewer than 12 tokens.
    package static let tokenizers: [String: TokenizerDefaults] = [
        "llama": .init(bos: 1, eos: 2, addsBOS: true),
        "bert": .init(bos: 101, sep: 102, addsBOS: true, addsSEP: true),
        "gpt2": .init(bos: 11, eos: 11, addsBOS: true),
        "hybriddna": .init(bos: 11, eos: 11, addsBOS: true),
        "whitespace": .init(bos: 11, eos: 11, addsBOS: true),
        "t5": .init(eos: 1, addsEOS: true),
        "rwkv": .init(),
        "test": .init(),
        "plamo2": .init(bos: 1, eos: 2),
        "gemma4": .init(addsBOS: true),   // llama.cpp forces add_bos for Gemma 4
    ]

    package static let tokensKey = GGUFVocabularyScan.key

    package func checkVocabulary() throws {
        let modelKey = "tokenizer.ggml.model"
        guard let model = file.metadata[modelKey]?.stringValue else {
            throw reject(modelKey, file.metadata[modelKey]?.description ?? "missing", "llama.cpp needs the tokenizer type")
        }
        if model == "none" || model == "no_vocab" {
            throw reject(modelKey, "\"\(model)\"", "the model has no vocabulary, so it cannot take text")
        }
        guard let defaults = Self.tokenizers[model] else {
            throw reject(modelKey, "\"\(model)\"",
                         "unknown tokenizer (llama.cpp knows \(Self.tokenizers.keys.sorted().joined(separator: ", ")))")
        }
        let scan = file.vocabulary
        guard let count = scan.tokenCount, count > 0 else {
            throw reject(Self.tokensKey, file.metadata[Self.tokensKey]?.description ?? "missing",
                         "the vocabulary must be a non-empty array of strings")
        }
        guard count <= Int(Int32.max) else {
            throw reject(Self.tokensKey, "\(count) tokens", "more tokens than a 32-bit token id can name")
        }
        if let duplicate = scan.duplicate {
            throw reject(Self.tokensKey, "\"\(duplicate.text.prefix(40))\" at \(duplicate.index)",
                         "repeats token \(duplicate.firstIndex) (llama.cpp asserts that token texts are unique)")
        }
        for arrayKey in ["tokenizer.ggml.scores", "tokenizer.ggml.token_type"] {
            guard let entry = file.metadata[arrayKey] else { continue }
            let length: Int
            switch entry {
            case .array(let items): length = items.count
            case .largeArray(_, let size): length = size
            default: throw reject(arrayKey, entry.description, "must be an array with one value per token")
            }
            guard length >= count else {
                throw reject(arrayKey, "\(length) values", "the vocabulary has \(count) tokens, one value per token is needed")
            }
        }
        // BPE vocabularies merge by rank; llama.cpp throws without the list (Kimi-K2 needs none).
        let mergesKey = "tokenizer.ggml.merges"
        if ["gpt2", "hybriddna", "whitespace", "gemma4"].contains(model),
           file.metadata["tokenizer.ggml.pre"]?.stringValue != "kimi-k2" {
            switch file.metadata[mergesKey] {
            case .largeArray("str", _)?: break
            case .array(let items)? where items.allSatisfy({ $0.stringValue != nil }): break
            case let other: throw reject(mergesKey, other?.description ?? "missing", "a \(model) tokenizer needs its merges as an array of strings")
            }
        }
        if model == "llama", let byte = scan.missingByteTokens.first {
            throw reject(Self.tokensKey, "no token for byte 0x\(String(byte, radix: 16, uppercase: true))",
                         "SPM tokenizers fall back to <0xXX> byte tokens for unknown text, and llama.cpp aborts when one is missing")
        }
        if model == "t5", let problem = scan.charsmapProblem {
            throw reject(GGUFVocabularyScan.charsmapKey, "\(scan.charsmapSize ?? 0) bytes",
                         "\(problem); llama.cpp would throw while tokenizing, which ends the process")
        }
        try checkSpecialTokens(count: count, defaults: defaults)
    }

    /// Special token ids must name tokens of the vocabulary. llama.cpp replaces a bad one
    /// by its default, or by none; tokenizing then asserts that the BOS (EOS, SEP)
    /// token it must add exists (GGML_ASSERT(special_bos_id != LLAMA_TOKEN_NULL)).
    private func checkSpecialTokens(count: Int, defaults: TokenizerDefaults) throws {
        for (name, entry) in file.metadata where name.hasPrefix("tokenizer.ggml.") && name.hasSuffix("_token_id") {
            guard let id = entry.intValue, (0..<count).contains(id) else {
                throw reject(name, entry.description, "is not a token of the \(count)-token vocabulary")
            }
        }
        let added: [(kind: String, key: String, adds: Bool, fallback: Int?)] = [
            ("BOS", "bos", defaults.addsBOS, defaults.bos),
            ("EOS", "eos", defaults.addsEOS, defaults.eos),
            ("SEP", "sep", defaults.addsSEP, defaults.sep),
        ]
        for (kind, name, defaultAdds, fallback) in added {
            var adds = defaultAdds
            if case .bool(let flag) = file.metadata["tokenizer.ggml.add_\(name)_token"] { adds = flag }
            if name == "bos", file.metadata["tokenizer.ggml.model"]?.stringValue == "gemma4" { adds = true }
            let idKey = name == "sep" ? "tokenizer.ggml.seperator_token_id" : "tokenizer.ggml.\(name)_token_id"
            let id = file.metadata[idKey]?.intValue ?? fallback
            if adds, id.map({ !(0..<count).contains($0) }) ?? true {
                throw reject(idKey, id.map(String.init) ?? "missing",
                             "the tokenizer adds a \(kind) token, but the \(count)-token vocabulary has none")
            }
        }
    }
}
