/// Finds stop sequences in streamed text, holding back any tail that could be
/// the start of one so that a stop sequence never reaches the output.
package struct StopSequenceMatcher: Sendable {
    private let stops: [[UInt8]]
    private var buffer: [UInt8] = []

    package init(stopSequences: [String]) {
        stops = stopSequences.map { Array($0.utf8) }.filter { !$0.isEmpty }
    }

    /// The outcome of adding text.
    package struct Step: Equatable {
        /// Text that is safe to emit.
        var text: String
        /// The stop sequence that was found, if any; generation should end.
        var stop: String?
    }

    /// Adds `text`; returns what can be emitted and whether a stop sequence was reached.
    package mutating func append(_ text: String) -> Step {
        guard !stops.isEmpty else { return Step(text: text, stop: nil) }
        buffer.append(contentsOf: text.utf8)
        if let (position, stop) = earliestMatch() {
            let emitted = String(decoding: buffer[..<position], as: UTF8.self)
            buffer.removeAll()
            return Step(text: emitted, stop: String(decoding: stop, as: UTF8.self))
        }
        let keep = longestSuffixThatStartsAStop()
        let emitted = String(decoding: buffer[..<(buffer.count - keep)], as: UTF8.self)
        buffer.removeFirst(buffer.count - keep)
        return Step(text: emitted, stop: nil)
    }

    /// Returns the held-back text once generation ends without a stop.
    package mutating func finish() -> String {
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    private func earliestMatch() -> (Int, [UInt8])? {
        var best: (Int, [UInt8])?
        for stop in stops where stop.count <= buffer.count {
            for start in 0...(buffer.count - stop.count) where best.map({ start < $0.0 }) ?? true {
                if buffer[start..<(start + stop.count)].elementsEqual(stop) {
                    best = (start, stop)
                    break
                }
            }
        }
        return best
    }

    private func longestSuffixThatStartsAStop() -> Int {
        var longest = 0
        for stop in stops {
            let limit = min(stop.count - 1, buffer.count)
            guard limit > longest else { continue }
            for length in stride(from: limit, to: longest, by: -1)
            where buffer[(buffer.count - length)...].elementsEqual(stop[..<length]) {
                longest = length
                break
            }
        }
        return longest
    }
}
