import Foundation
import LocalLLMKit

/// `--tools` on a model whose chat template cannot render tools: the error names an installed
/// model whose own template can (the smallest of the catalog's), or says how to get one.
struct ToolSupportError: LocalizedError {
    /// The template in use, as ``ChatTemplate/Source`` describes it.
    let template: String
    /// The model's file.
    let model: URL
    /// The catalog id of an installed model that calls tools, other than this one; nil for none.
    let alternative: String?

    var errorDescription: String? {
        let remedy = alternative.map { "use a model whose template can, such as -m \($0)" }
            ?? "use a model whose template can (`llmkit list --catalog` shows which: calls_tools), or --chat-template with one that can"
        return "the chat template (\(template)) of \(TerminalText.escaped(model.lastPathComponent)) cannot render tools; \(remedy)"
    }

    /// The first catalog model (smallest first) that calls tools and is installed, other than `url`.
    static func installedAlternative(to url: URL, in library: ModelLibrary = ModelLibrary()) async -> String? {
        let current = url.resolvingSymlinksInPath().path
        for entry in ModelCatalog.all where entry.callsTools {
            if let installed = try? await library.installed(entry), installed.url.resolvingSymlinksInPath().path != current {
                return entry.id
            }
        }
        return nil
    }
}
