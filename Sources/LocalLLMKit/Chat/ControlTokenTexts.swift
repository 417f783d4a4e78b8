import Foundation
import LocalLLMKitEngine
import Synchronization

/// The texts that llama.cpp's tokenizer turns into control tokens when it parses special
/// tokens (tokens marked control or unknown, such as `<start_of_turn>` or `<|im_end|>`), and
/// where they, or pieces of them, occur in a string.
struct ControlTokenTexts: Sendable {
    /// A byte trie over the texts.
    private struct Trie: Sendable {
        var children: [[UInt8: Int32]] = [[:]]
        var terminal: [Bool] = [false]

        mutating func insert<S: Sequence<UInt8>>(_ bytes: S) {
            var node = 0
            for byte in bytes {
                if let next = children[node][byte] {
                    node = Int(next)
                } else {
                    children.append([:])
                    terminal.append(false)
                    children[node][byte] = Int32(children.count - 1)
                    node = children.count - 1
                }
            }
            terminal[node] = true
        }

        func child(_ node: Int, _ byte: UInt8) -> Int? { children[node][byte].map(Int.init) }
    }

    private let forward: Trie
    private let backward: Trie
    private let texts: [[UInt8]]
    private let longest: Int

    /// The control-token texts of `model`'s vocabulary, read once per model: a vocabulary has
    /// up to a few hundred thousand tokens.
    static func of(_ model: ModelHandle) -> ControlTokenTexts {
        if let texts = cache.withLock({ $0[ObjectIdentifier(model)] }), texts.model === model {
            return texts.texts
        }
        let texts = ControlTokenTexts(model: model)
        cache.withLock { entries in
            entries = entries.filter { $0.value.model != nil }
            entries[ObjectIdentifier(model)] = CacheEntry(model: model, texts: texts)
        }
        return texts
    }

    private struct CacheEntry: @unchecked Sendable {
        weak var model: ModelHandle?
        let texts: ControlTokenTexts
    }

    private static let cache = Mutex<[ObjectIdentifier: CacheEntry]>([:])

    /// The control-token texts of `model`'s vocabulary.
    init(model: ModelHandle) {
        self.init(texts: model.controlTokenTexts())
    }

    /// Control-token texts given directly.
    init(texts: [[UInt8]]) {
        var forward = Trie()
        var backward = Trie()
        for text in texts {
            forward.insert(text)
            backward.insert(text.reversed())
        }
        self.forward = forward
        self.backward = backward
        self.texts = texts
        longest = texts.map(\.count).max() ?? 0
    }

    /// Every whole occurrence in `bytes`, leftmost and longest first, without overlaps: once
    /// each is replaced, no control-token text is left.
    func occurrences(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = 0
        while start < bytes.count {
            var node = 0
            var end: Int?
            var index = start
            while index < bytes.count, let next = forward.child(node, bytes[index]) {
                node = next
                index += 1
                if forward.terminal[node] { end = index }
            }
            if let end {
                found.append(start..<end)
                start = end
            } else {
                start += 1
            }
        }
        return found
    }

    /// The pieces of `bytes` that could become part of a control-token text together with text
    /// placed around them: an end that begins one, a start that ends one, or the whole of
    /// `bytes` inside one. Whitespace at either end is ignored, since templates trim it.
    func fragments(in bytes: [UInt8]) -> [Range<Int>] {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let lower = bytes.firstIndex { !isSpace($0) } ?? bytes.count
        let upper = (bytes.lastIndex { !isSpace($0) }).map { $0 + 1 } ?? lower
        var found = bytes.isEmpty ? [] : fragments(in: bytes, from: 0, to: bytes.count)
        if lower < upper && (lower, upper) != (0, bytes.count) {
            found += fragments(in: bytes, from: lower, to: upper)
        }
        return found
    }

    private func fragments(in bytes: [UInt8], from low: Int, to high: Int) -> [Range<Int>] {
        var found: [Range<Int>] = []
        // The end begins a text: bytes[start..<high] is a proper prefix of one.
        for start in max(low, high - longest)..<high {
            var node = 0
            var index = start
            while index < high, let next = forward.child(node, bytes[index]) {
                node = next
                index += 1
            }
            if index == high && !forward.children[node].isEmpty {
                found.append(start..<high)
                break
            }
        }
        // The start ends a text: bytes[low..<end] is a proper suffix of one.
        for end in stride(from: min(high, low + longest), to: low, by: -1) {
            var node = 0
            var index = end
            while index > low, let next = backward.child(node, bytes[index - 1]) {
                node = next
                index -= 1
            }
            if index == low && !backward.children[node].isEmpty {
                found.append(low..<end)
                break
            }
        }
        // The whole lies inside a text.
        if high - low < longest {
            let piece = bytes[low..<high]
            if texts.contains(where: { $0.count > piece.count && $0.firstRange(of: piece) != nil }) {
                found.append(low..<high)
            }
        }
        return found
    }
}
