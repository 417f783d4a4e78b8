/// The known names closest to a mistyped one, by edit distance.
enum NearestNames {
    /// Up to `limit` names of `candidates` within a third of `name`'s length (at least 2 edits)
    /// of it, nearest first; a candidate that starts with `name` counts as near.
    static func nearest(to name: String, among candidates: [String], limit: Int = 3) -> [String] {
        let lowered = name.lowercased()
        let allowed = max(2, lowered.count / 3)
        var scored: [(name: String, distance: Int)] = []
        for candidate in Set(candidates) {
            let other = candidate.lowercased()
            let distance = other.hasPrefix(lowered) && !lowered.isEmpty ? 1 : editDistance(Array(lowered), Array(other))
            if distance <= allowed { scored.append((candidate, distance)) }
        }
        return scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.prefix(limit).map(\.name)
    }

    /// Levenshtein distance, bounded in cost by the lengths (names are short).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
