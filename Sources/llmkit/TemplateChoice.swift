import Foundation
import LocalLLMKit

/// What `--chat-template` names: a template file, a template installed by scripts/bootstrap
/// (by its file's stem, e.g. `Qwen-Qwen3-0.6B`), or one of llama.cpp's built-in templates
/// (e.g. `chatml`). `--chat-template list` prints the names.
enum TemplateChoice: Equatable {
    /// A Jinja template file.
    case file(String)
    /// A llama.cpp built-in template, by name.
    case builtin(String)

    /// The value of `--chat-template` that lists the names instead of choosing one.
    static let listRequest = "list"

    /// The installed templates: `$LLMKIT_PREFIX/share/llmkit/templates` (default prefix /usr/local).
    static var directory: URL {
        let prefix = ProcessInfo.processInfo.environment["LLMKIT_PREFIX"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local"
        return URL(filePath: prefix).appending(path: "share/llmkit/templates")
    }

    /// The names of the installed templates (file stems of `*.jinja`), sorted; none when the
    /// folder is missing.
    static func installedNames() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".jinja") }.map { String($0.dropLast(".jinja".count)) }.sorted()
    }

    /// The choice `value` names: an existing file first, then a built-in name, then an
    /// installed template's name; a value with a `/` or a `.jinja` ending is a file either way
    /// (reading it names the missing file).
    /// - Throws: ``UsageError`` for a name that is none of these, listing the nearest names.
    static func resolve(_ value: String) throws -> TemplateChoice {
        if FileManager.default.fileExists(atPath: value) { return .file(value) }
        let builtins = ChatTemplate.builtinNames()
        if builtins.contains(value) { return .builtin(value) }
        let installed = installedNames()
        if installed.contains(value) { return .file(directory.appending(path: value + ".jinja").path) }
        if value.contains("/") || value.hasSuffix(".jinja") { return .file(value) }
        let names = Suggestion.ranked(Set(installed).union(builtins), by: value)
        let shown = names.prefix(8).joined(separator: ", ")
        let more = names.count > 8 ? ", … (\(names.count) in all; --chat-template list shows them)" : ""
        throw UsageError(message: "--chat-template '\(value)' is not a file, an installed template or a llama.cpp "
                         + "built-in template; nearest names: \(shown)\(more)")
    }

    /// What `--chat-template list` prints: the installed names, then the built-in ones.
    static func listing() -> String {
        let installed = installedNames()
        var text = "installed templates (\(directory.path)):\n"
        text += installed.isEmpty ? "  (none)\n" : installed.map { "  \($0)\n" }.joined()
        text += "llama.cpp built-in templates:\n"
        text += ChatTemplate.builtinNames().sorted().map { "  \($0)\n" }.joined()
        return text
    }
}
