import Foundation

/// A model name that finds nothing, with the known names nearest to it.
struct ModelNameError: LocalizedError {
    let name: String
    let nearest: [String]

    var errorDescription: String? {
        let hint = nearest.isEmpty ? "" : "; did you mean " + nearest.map { "'\($0)'" }.joined(separator: " or ") + "?"
        return "no model \(TerminalText.escaped(name)) in the library, the caches or the catalog\(hint) (`llmkit list` shows them)"
    }
}
