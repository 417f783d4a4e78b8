import Foundation
@testable import LocalLLMKit
@testable import LocalLLMKitEngine

/// Replays model output chunk by chunk through a ``ReplyStream``, the way a conversation round
/// feeds it, and records what the stream produced.
struct ReplyReplay: Equatable {
    /// The events of each chunk, then those of the final parse.
    var events: [[Conversation.Event]]
    var reply: ParsedReply
    var phases: [ToolInvocation.Phase]
    var parses: Int

    init(_ chunks: [String], render: ChatRenderHandle, thinkingEndTags: [String], parsing: ReplyStream.Parsing) {
        var stream = ReplyStream(render: render, thinkingEndTags: thinkingEndTags, parsing: parsing)
        events = chunks.map { stream.append($0) }
        events.append((try? stream.finish(isComplete: false)) ?? [])   // partial: never throws
        reply = stream.reply
        phases = stream.phases
        parses = stream.parseCount
    }

    /// Everything but the parse count.
    static func == (a: ReplyReplay, b: ReplyReplay) -> Bool {
        a.events == b.events && a.reply == b.reply && a.phases == b.phases
    }

    /// The first chunk whose events differ, for failure messages.
    static func firstDifference(_ a: ReplyReplay, _ b: ReplyReplay, chunks: [String]) -> String {
        guard let index = a.events.indices.first(where: { $0 >= b.events.count || a.events[$0] != b.events[$0] }) else {
            return "same events; replies \(a.reply) vs \(b.reply)"
        }
        let label = index < chunks.count ? "chunk \(index) \(chunks[index].debugDescription)" : "the final parse"
        return "\(label): \(a.events[index]) vs \(b.events[index]), after \(chunks.prefix(index).joined().debugDescription)"
    }
}

/// Ways to cut an output into chunks.
enum Chunking {
    /// The pieces of the tokens `model` reads `text` as, through the engine's UTF-8 decoder: the
    /// chunks generation would emit for that text. Nil when they do not join back into `text`.
    static func tokens(_ text: String, model: LocalModel) -> [String]? {
        guard let tokens = try? model.tokenizer.tokenize(text, addSpecial: false, parseSpecial: true) else { return nil }
        var decoder = UTF8StreamDecoder()
        var chunks: [String] = []
        for token in tokens {
            guard let piece = try? model.tokenizer.piece(token, renderSpecial: true) else { return nil }
            let chunk = decoder.decode(piece)
            if !chunk.isEmpty { chunks.append(chunk) }
        }
        let rest = decoder.finish()
        if !rest.isEmpty { chunks.append(rest) }
        return chunks.joined() == text ? chunks : nil
    }

    /// Chunks of 1 to `longest` Unicode scalars, from a seeded generator.
    static func random(_ text: String, seed: UInt64, longest: Int = 6) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var chunks: [String] = []
        var scalars = text.unicodeScalars[...]
        while !scalars.isEmpty {
            let count = Int.random(in: 1...longest, using: &generator)
            var chunk = String.UnicodeScalarView()
            chunk.append(contentsOf: scalars.prefix(count))
            chunks.append(String(chunk))
            scalars = scalars.dropFirst(count)
        }
        return chunks
    }

    /// One Unicode scalar per chunk: every marker split at every place.
    static func scalars(_ text: String) -> [String] {
        text.unicodeScalars.map { String($0) }
    }
}

/// SplitMix64: reproducible test data.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
