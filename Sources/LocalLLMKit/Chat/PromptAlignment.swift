/// Matches a rendering against the template text of a masked rendering: the pieces of template
/// text, in order, with anything in between (see ``PromptIsolation``).
enum PromptAlignment {
    /// The ranges of `rendered` that are template text in every way `literals` (the pieces of
    /// template text, in order) match it, with arbitrary text between consecutive pieces; nil when
    /// they do not match at all.
    ///
    /// The earliest and the latest match bound where each piece can lie; a piece lies at the same
    /// place in every match when both agree, and otherwise only the overlap of its two places is
    /// template text in every match.
    static func templateRanges(of rendered: [UInt8], literals: [[UInt8]]) -> [Range<Int>]? {
        guard let first = literals.first, let last = literals.last else { return nil }
        if literals.count == 1 {
            return rendered == first ? [0..<rendered.count] : nil
        }
        let end = rendered.count - last.count
        guard first.count <= end, rendered.starts(with: first), rendered[end...].elementsEqual(last) else { return nil }
        let inner = literals.dropFirst().dropLast()
        var earliest: [Int] = [0]
        var position = first.count
        for literal in inner {
            guard let found = firstIndex(of: literal, in: rendered[...], from: position, to: end) else { return nil }
            earliest.append(found)
            position = found + literal.count
        }
        earliest.append(end)
        var latest: [Int] = [end]
        var limit = end
        let reversed = Array(rendered.reversed())
        for literal in inner.reversed() {
            // The last occurrence ending by `limit` is the first one in the reversed bytes.
            guard let found = firstIndex(of: Array(literal.reversed()), in: reversed[...], from: rendered.count - limit,
                                         to: rendered.count - first.count) else { return nil }
            let start = rendered.count - found - literal.count
            latest.append(start)
            limit = start
        }
        latest.append(0)
        latest.reverse()
        return literals.indices.compactMap { index in
            let lower = latest[index], upper = earliest[index] + literals[index].count
            return lower < upper ? lower..<upper : nil
        }
    }

    /// The first index of `needle` within `haystack[from..<to]` (Knuth–Morris–Pratt: linear in the
    /// haystack, whatever the text in it).
    static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>, from: Int, to: Int) -> Int? {
        guard !needle.isEmpty else { return from <= to ? from : nil }
        guard to - from >= needle.count else { return nil }
        var failure = [Int](repeating: 0, count: needle.count)
        var k = 0
        for i in 1..<needle.count {
            while k > 0 && needle[i] != needle[k] { k = failure[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            failure[i] = k
        }
        var matched = 0
        for index in from..<to {
            while matched > 0 && haystack[index] != needle[matched] { matched = failure[matched - 1] }
            if haystack[index] == needle[matched] { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
        }
        return nil
    }
}
