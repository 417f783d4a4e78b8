import Foundation

/// The CLI's one rule for the keys of its JSON: Swift's camelCase property names are written in
/// snake_case (`promptTokens` → `prompt_tokens`), so report types declare plain properties and no
/// hand-written keys; the keys of a data map (a GGUF file's `metadata`) are data and are written as
/// they are.
enum JSONKeyPolicy {
    /// Properties whose dictionaries hold data keys, to be written unchanged.
    static let verbatimMaps: Set<String> = ["metadata"]

    /// The encoder's strategy: snake_case, except inside ``verbatimMaps``.
    static let strategy = JSONEncoder.KeyEncodingStrategy.custom { path in
        let key = path[path.count - 1]
        if path.dropLast().contains(where: { verbatimMaps.contains($0.stringValue) }) { return key }
        return PlainKey(snakeCase(key.stringValue))
    }

    /// `name` in snake_case, as Foundation's `convertToSnakeCase` writes it: a word starts at an
    /// uppercase letter after a lowercase one or a digit, and at the last uppercase letter of an
    /// acronym followed by a lowercase one (`myURLValue` → `my_url_value`).
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    result.append("_")
                }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// A key given by its text.
    private struct PlainKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ stringValue: String) { self.stringValue = stringValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
