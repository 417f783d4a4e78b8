/// Follows streamed text until the first top-level JSON object or array is complete,
/// respecting strings and escapes.
package struct BalancedJSONScanner: Sendable, Equatable {
    private var depth = 0
    private var started = false
    private var inString = false
    private var escaped = false
    /// Whether a complete top-level value has been seen.
    private(set) var isComplete = false

    /// Scans more text; returns the index just after the closing bracket once the value is complete.
    package mutating func scan(_ text: String) -> String.Index? {
        guard !isComplete else { return text.startIndex }
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if inString {
                if escaped { escaped = false }
                else if character == "\\" { escaped = true }
                else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"" where started: inString = true
            case "{", "[":
                depth += 1
                started = true
            case "}", "]":
                guard started else { break }
                depth -= 1
                if depth == 0 {
                    isComplete = true
                    return index
                }
            default: break
            }
        }
        return nil
    }
}
