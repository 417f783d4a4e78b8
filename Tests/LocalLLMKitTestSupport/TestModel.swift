import Foundation
import LocalLLMKitEngine

/// The real reference model (Gemma 3 270M, see ``ReferenceModel``) that scripts/bootstrap installs.
package enum TestModel {
    /// The model file; tests fail (not skip) when it is missing: `make test` installs it.
    package static func url() throws -> URL {
        try ReferenceModel.url()
    }

    /// Loads only the reference model's vocabulary: enough for templates and tokenizing.
    package static func vocabulary() async throws -> LocalModel {
        try await LocalModel.load(from: url(), configuration: .init(vocabularyOnly: true))
    }

    /// The reference model's vocabulary, loaded once per test process and shared by the grammar
    /// and schema tests, which use nothing else of it. Each load builds the whole tokenizer again
    /// (Gemma's 262,144 tokens), which well over a hundred of their cases would otherwise repeat.
    /// Not for template tests: templates render in the model's helper process, whose state a
    /// shared model carries from one test to the next (with it, ChatTemplateTests'
    /// prompt-only renders no longer took their shortcut).
    package static func grammarVocabulary() async throws -> LocalModel {
        try await sharedVocabulary.value
    }

    private static let sharedVocabulary = Task { try await vocabulary() }

    /// Loads the reference model with a small context, to keep tests quick.
    package static func load(_ configuration: LocalModel.Configuration = .init(contextLength: 1024)) async throws -> LocalModel {
        try await LocalModel.load(from: url(), configuration: configuration)
    }
}

/// llama.cpp's chat templates, installed by scripts/bootstrap under `$LLMKIT_PREFIX/share/llmkit/templates`.
package enum TestTemplates {
    package static var directory: URL {
        URL(filePath: ProcessInfo.processInfo.environment["LLMKIT_PREFIX"] ?? "/usr/local")
            .appending(path: "share/llmkit/templates")
    }

    /// The Jinja source of a template, e.g. `Qwen-Qwen3-0.6B`.
    package static func source(_ name: String) throws -> String {
        try String(contentsOf: directory.appending(path: "\(name).jinja"), encoding: .utf8)
    }

    /// Every template's name.
    package static func all() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".jinja") }.map { String($0.dropLast(6)) }.sorted()
    }
}

/// A temporary folder, removed when the value goes away.
package final class TemporaryDirectory {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "llmkit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    package func file(_ name: String) -> URL { url.appending(path: name) }
}

/// Reads this process's resident memory and thread count from /proc.
package enum ProcessStatus {
    package static func value(_ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.dropFirst(key.count + 1).split(whereSeparator: \.isWhitespace).first ?? "")
        }
        return nil
    }

    /// Resident set size in KiB.
    package static var residentKiB: Int? { value("VmRSS") }
    /// Number of threads.
    package static var threads: Int? { value("Threads") }
}
