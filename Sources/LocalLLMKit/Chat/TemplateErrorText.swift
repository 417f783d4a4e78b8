/// llama.cpp's Jinja errors span several lines: a headline, the source around the error, a
/// caret under it, and the error itself. An error of LocalLLMKit is one line: the error and
/// where it happened.
enum TemplateErrorText {
    /// `message` on one line: the error (the text after `Error:`, else the first line), then the
    /// place (`line L, column C`) and the source excerpt when llama.cpp gave them.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.allSatisfy { "-^".contains($0) } }
        guard lines.count > 1 else { return lines.first ?? message }
        let error = lines.last { $0.hasPrefix("Error:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
            ?? lines[0]
        var place: [String] = []
        if let line = lines.first(where: { $0.contains(" at line ") }),
           let start = line.range(of: " at line ")?.upperBound {
            let rest = line[start...]
            place.append("line " + (rest.range(of: " in source").map { String(rest[..<$0.lowerBound]) } ?? String(rest)))
        }
        if let excerpt = lines.first(where: { $0.hasPrefix("...") }) { place.append("near \(excerpt)") }
        return place.isEmpty ? error : "\(error) (\(place.joined(separator: ", ")))"
    }
}
