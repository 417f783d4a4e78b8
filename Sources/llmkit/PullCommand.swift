import Foundation
import LocalLLMKit

/// `llmkit pull`: downloads a model into the library, verified and resumable.
enum PullCommand {
    static let spec = CommandSpec(
        name: "pull",
        usage: "usage: llmkit pull REF [--sha256 HEX] [--mirror URL]... [--name NAME] [--listing FILE] [--json]",
        help: """
        Download a model into the library (see `llmkit list`). An interrupted download
        (Ctrl-C, a broken connection) resumes where it stopped when pulled again.

          REF             a catalog id (\(ModelCatalog.all.map(\.id).joined(separator: ", "))), an https:// URL,
                          hf:org/repo/path/file.gguf, or org/repo:QUANT (e.g. LiquidAI/LFM2-2.6B-GGUF:Q4_K_M)
          --sha256 HEX    the file's expected SHA-256 (a mismatch deletes the file)
          --mirror URL    another URL of the same file, tried when the previous one fails (repeatable)
          --name NAME     the display name in the library
          --listing FILE  file names of the repository, one per line, to resolve org/repo:QUANT offline
          --json          print the registered model as JSON
          -h, --help      show this help

        The library is $LLMKIT_HOME/models, else ~/.local/share/llmkit/models.
        """,
        valueOptions: ["--sha256", "--mirror", "--name", "--listing"],
        flagOptions: ["--json"],
        repeatableOptions: ["--mirror"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let reference = arguments.positionals.first else {
            throw UsageError(message: "missing REF (a catalog id, URL, hf:org/repo/file.gguf or org/repo:QUANT)")
        }
        let mirrors = try arguments.allValues("--mirror").map { text in
            guard let url = URL(string: text) else { throw UsageError(message: "--mirror expects a URL, got '\(text)'") }
            return url
        }
        let listing = try arguments.value("--listing").map { path in
            do {
                return try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } catch {
                throw LLMKitError.libraryFailure(path: path, reason: "cannot read the listing: \(error.localizedDescription)")
            }
        }
        let request = try ModelDownloadRequest(reference: reference, sha256: arguments.value("--sha256"), mirrors: mirrors,
                                               name: arguments.value("--name"), listing: listing)
        let library = ModelLibrary()
        Console.err("pulling \(request.urls[0].absoluteString) into \(library.root.path)\n")
        let download = library.download(request)
        var view = DownloadProgressView()
        let record: ModelRecord
        do {
            record = try await InterruptHandler.shared.whileRunning(cancel: { download.cancel() }) {
                for await progress in download.progress { view.show(progress) }
                return try await download.value
            }
        } catch is CancellationError {
            view.finish()
            Console.err("cancelled; the bytes downloaded so far are kept, and pulling again resumes\n")
            return .interrupted
        }
        view.finish()
        if arguments.has("--json") {
            try Console.printJSON(ModelReport(record, in: library))
        } else {
            Console.err("verified \(ByteCount.format(record.bytes)), sha256 \(record.sha256)\n")
            Console.out(record.id + "\n")
        }
        return .success
    }
}
