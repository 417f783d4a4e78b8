/// "Did you mean …?": the known names nearest to a misspelled one, by edit distance.
enum Suggestion {
    /// The known name nearest to `name`, when it is close enough to be a likely misspelling:
    /// at most one edit for a name of up to 5 characters, about one edit per 3 characters beyond.
    /// Leading dashes do not count toward the length; case differences count as edits.
    static func nearest(to name: String, in candidates: some Sequence<String>) -> String? {
        let length = name.drop(while: { $0 == "-" }).count
        let limit = max(1, min(3, length / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let edits = distance(name, candidate)
            guard edits <= limit else { continue }
            if let current = best, current.distance < edits || (current.distance == edits && current.name <= candidate) { continue }
            best = (candidate, edits)
        }
        return best?.name
    }

    /// Up to `limit` names of `candidates` close to `name` (ignoring case): those that start with
    /// it, then those within a third of its length (at least 2 edits), nearest first. For model
    /// names, whose ids are long (`gemma-3-270m`), where one best guess is too little.
    static func nearestNames(to name: String, among candidates: [String], limit: Int = 3) -> [String] {
        let query = name.lowercased()
        let allowed = max(2, query.count / 3)
        let scored = Set(candidates).compactMap { candidate -> (String, Int)? in
            let lowered = candidate.lowercased()
            let score = !query.isEmpty && lowered.hasPrefix(query) ? 1 : distance(query, lowered)
            return score <= allowed ? (candidate, score) : nil
        }
        return scored.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.prefix(limit).map(\.0)
    }

    /// `candidates` ordered nearest first: names that contain `name` (ignoring case) first,
    /// then by the case-insensitive edit distance, then alphabetically.
    static func ranked(_ candidates: some Sequence<String>, by name: String) -> [String] {
        let query = name.lowercased()
        return candidates.map { candidate -> (String, Bool, Int) in
            let lowered = candidate.lowercased()
            return (candidate, !query.isEmpty && lowered.contains(query), distance(query, lowered))
        }
        .sorted { left, right in
            if left.1 != right.1 { return left.1 }
            if left.2 != right.2 { return left.2 < right.2 }
            return left.0 < right.0
        }
        .map(\.0)
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps
    /// of two neighbouring characters each count 1 (`rnu` is one edit from `run`).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
