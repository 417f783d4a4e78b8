/// `logprobs` of a choice, in OpenAI's and llama-server's shape: `{"content": [{"id", "token",
/// "bytes", "logprob", "top_logprobs": [{"id", "token", "bytes", "logprob"}]}]}`. A token's
/// text stops before a trailing incomplete UTF-8 sequence (its `bytes` hold all of it), as
/// llama-server's does. Written by `llmkit serve`, read back by `RemoteModel` (``entries(from:)``).
package enum LogProbabilityJSON {
    package static func chat(_ entries: [TokenLogProbability]) -> OrderedJSON {
        .object([("content", .array(entries.map { entry in
            .object(candidate(entry.chosen) + [("top_logprobs", .array(entry.alternatives.map { .object(candidate($0)) }))])
        }))])
    }

    /// For `/v1/completions`: the chat shape, plus OpenAI's older fields (`tokens`,
    /// `token_logprobs`, `top_logprobs` as token → logprob maps, `text_offset`) that its
    /// completions clients read. `textOffset` is where the first entry's text starts (a streamed
    /// chunk's entries continue the choice's).
    package static func completion(_ entries: [TokenLogProbability], textOffset: Int = 0) -> OrderedJSON {
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
    package static func text(_ bytes: [UInt8]) -> String {
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

    /// The entries of OpenAI's `logprobs` value (`{"content": [{"id", "token", "bytes",
    /// "logprob", "top_logprobs": […]}]}`); none for `null`.
    /// - Throws: ``RemoteModel/Error/invalidResponse(reason:)`` for a value of another shape.
    package static func entries(from value: OrderedJSON?) throws -> [TokenLogProbability] {
        guard let value, value != .null else { return [] }
        guard case .object(let fields) = value, let content = fields.first(where: { $0.0 == "content" })?.1 else {
            throw RemoteModel.Error.invalidResponse(reason: "logprobs is not an object with content")
        }
        guard case .array(let entries) = content else {
            if content == .null { return [] }
            throw RemoteModel.Error.invalidResponse(reason: "logprobs.content is not an array")
        }
        return try entries.map { entry in
            guard case .object(let fields) = entry else {
                throw RemoteModel.Error.invalidResponse(reason: "a logprobs entry is not an object")
            }
            var alternatives: [TokenLogProbability.Candidate] = []
            if case .array(let top)? = fields.first(where: { $0.0 == "top_logprobs" })?.1 {
                alternatives = try top.map(readCandidate)
            }
            return TokenLogProbability(chosen: try readCandidate(entry), alternatives: alternatives)
        }
    }

    /// One candidate: its id (-1 where the server sends none), its bytes (or its text's), its log-probability.
    private static func readCandidate(_ value: OrderedJSON) throws -> TokenLogProbability.Candidate {
        guard case .object(let fields) = value else {
            throw RemoteModel.Error.invalidResponse(reason: "a logprobs entry is not an object")
        }
        func field(_ name: String) -> OrderedJSON? { fields.first { $0.0 == name }?.1 }
        guard let logProbability = field("logprob")?.doubleValue else {
            throw RemoteModel.Error.invalidResponse(reason: "a logprobs entry has no logprob")
        }
        var bytes: [UInt8] = []
        if case .array(let values)? = field("bytes") {
            bytes = try values.map { value in
                guard let byte = value.integerValue.flatMap(UInt8.init(exactly:)) else {
                    throw RemoteModel.Error.invalidResponse(reason: "a logprobs entry has bytes that are not 0 to 255")
                }
                return byte
            }
        } else if case .string(let text)? = field("token") {
            bytes = Array(text.utf8)
        }
        let token = field("id")?.integerValue.flatMap { Int32(exactly: $0) } ?? -1
        return TokenLogProbability.Candidate(token: token, bytes: bytes, logProbability: logProbability)
    }
}
