import LocalLLMKit

/// `logprobs` of a choice, in OpenAI's and llama-server's shape: `{"content": [{"id", "token",
/// "bytes", "logprob", "top_logprobs": [{"id", "token", "bytes", "logprob"}]}]}`. A token's
/// text stops before a trailing incomplete UTF-8 sequence (its `bytes` hold all of it), as
/// llama-server's does.
enum LogProbabilityJSON {
    static func chat(_ entries: [TokenLogProbability]) -> OrderedJSON {
        .object([("content", .array(entries.map { entry in
            .object(candidate(entry.chosen) + [("top_logprobs", .array(entry.alternatives.map { .object(candidate($0)) }))])
        }))])
    }

    /// For `/v1/completions`: the chat shape, plus OpenAI's older fields (`tokens`,
    /// `token_logprobs`, `top_logprobs` as token → logprob maps, `text_offset`) that its
    /// completions clients read. `textOffset` is where the first entry's text starts (a streamed
    /// chunk's entries continue the choice's).
    static func completion(_ entries: [TokenLogProbability], textOffset: Int = 0) -> OrderedJSON {
        guard case .object(var fields) = chat(entries) else { return .null }
        var offsets: [OrderedJSON] = []
        var offset = textOffset
        for entry in entries {
            offsets.append(.integer(offset))
            offset += text(entry.chosen.bytes).count
        }
        fields += [
            ("tokens", .array(entries.map { .string(text($0.chosen.bytes)) })),
            ("token_logprobs", .array(entries.map { .number($0.chosen.logProbability) })),
            ("top_logprobs", .array(entries.map { entry in
                .object(entry.alternatives.map { (text($0.bytes), .number($0.logProbability)) })
            })),
            ("text_offset", .array(offsets)),
        ]
        return .object(fields)
    }

    private static func candidate(_ candidate: TokenLogProbability.Candidate) -> [(String, OrderedJSON)] {
        [("id", .integer(Int(candidate.token))), ("token", .string(text(candidate.bytes))),
         ("bytes", .array(candidate.bytes.map { .integer(Int($0)) })),
         // A probability of 0 has no logarithm; JSON has no -infinity (llama-server sends the lowest float).
         ("logprob", .number(candidate.logProbability.isFinite ? candidate.logProbability : -Double(Float.greatestFiniteMagnitude)))]
    }

    /// The longest prefix of `bytes` that does not end inside a UTF-8 sequence, as text.
    static func text(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        var end = bytes.count
        // Look back at most 3 bytes for the lead byte of a sequence that the end cuts short.
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0x80 { continue }                 // a continuation byte
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if length > back { end = bytes.count - back }
            break
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
