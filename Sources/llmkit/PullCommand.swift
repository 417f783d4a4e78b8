import Foundation
import LocalLLMKit

/// `llmkit pull`: downloads a model into the library, verified and resumable.
enum PullCommand {
    static let spec = CommandSpec(
        name: "pull",
        usage: "usage: llmkit pull REF [--sha256 HEX] [--mirror URL]... [--name NAME] [--listing FILE] [--json]\n       llmkit pull --clean [--json]",
        help: """
        Download a model into the library (see `llmkit list`). An interrupted download
        (Ctrl-C, a broken connection) resumes where it stopped when pulled again, if the
        server still has the same version of the file. A second pull of the same URL waits
        for the first and reuses its model. Without --sha256 the file is checked against
        the size the server announced. On a terminal the progress line shows the rate and
        the time left (ETA, from the average rate so far).

        A model already in the library (downloaded from the same URL or a mirror, or with
        the same SHA-256) is not downloaded again: stderr says "already in the library as
        ID" and stdout prints its id (or its JSON) as usual; with --name it is renamed.

        A URL naming the first part of a split model (NAME-00001-of-0000N.gguf, as llama.cpp's
        gguf-split writes them) downloads every part, from URLs named the same way, into the
        model's one folder; --model ID then loads them all. --sha256 cannot be given for a split
        model (one digest cannot verify several files): each part is checked against its size
        and its split metadata.

          REF             a catalog id (\(ModelCatalog.all.filter { !$0.urls.isEmpty }.map(\.id).joined(separator: ", "))), an https:// URL,
                          hf:org/repo/path/file.gguf, or org/repo:QUANT (e.g. LiquidAI/LFM2-2.6B-GGUF:Q4_K_M);
                          a user:password@ in a URL is sent to that host only (never after a redirect
                          elsewhere) and is neither stored nor printed
          --sha256 HEX    the file's expected SHA-256 (a mismatch deletes the file)
          --mirror URL    another URL of the same file, tried when the previous one fails (repeatable)
          --name NAME     the display name in the library (renames a model already there); not
                          default, a path, a selection (library:…), another model's id or name,
                          or a catalog id unless it is that model
          --listing FILE  file names of the repository, one per line, to resolve org/repo:QUANT offline;
                          an mmproj*.gguf among them (a vision model's projector) is pulled with the
                          model, into its folder, where --image finds it
          --json          print the registered model as JSON
          --clean         remove what failed or interrupted pulls and imports left (partial
                          downloads kept for resuming, unfinished files); models stay
          -h, --help      show this help

        The library is $LLMKIT_HOME/models, else ~/.local/share/llmkit/models.
        """,
        valueOptions: ["--sha256", "--mirror", "--name", "--listing"],
        flagOptions: ["--json", "--clean"],
        repeatableOptions: ["--mirror"],
        maximumPositionals: 1
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        if arguments.has("--clean") {
            guard arguments.positionals.isEmpty else { throw UsageError(message: "--clean takes no REF") }
            return try await clean(json: arguments.has("--json"))
        }
        guard let reference = arguments.positionals.first else {
            throw UsageError(message: "missing REF (a catalog id, URL, hf:org/repo/file.gguf or org/repo:QUANT)")
        }
        let mirrors = try arguments.allValues("--mirror").map { text in
            guard let url = URL(string: text) else {
                throw UsageError(message: "--mirror expects a URL, got '\(DownloadCredential.redacted(text))'")
            }
            return url
        }
        let listing = try arguments.value("--listing").map { path in
            do throws(UserFile.Failure) {
                return try UserFile.text(at: path).split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } catch {
                throw ModelLibrary.Error.storageFailed(path: path, reason: "cannot read the listing: \(error.reason)")
            }
        }
        if let sha256 = arguments.value("--sha256"), !(sha256.utf8.count == 64 && sha256.allSatisfy(\.isHexDigit)) {
            throw UsageError(message: "--sha256 expects 64 hexadecimal digits, got '\(sha256)'")
        }
        let request: ModelLibrary.DownloadRequest
        do {
            request = try ModelLibrary.DownloadRequest(reference: reference, sha256: arguments.value("--sha256"), mirrors: mirrors,
                                                       name: arguments.value("--name"), listing: listing)
        } catch ModelLibrary.Error.checksumForSplitModel {
            throw UsageError(message: "--sha256 cannot be used with a split model (NAME-00001-of-0000N.gguf): it has one file per part, "
                             + "so one SHA-256 cannot verify it; each part is checked against its size and split metadata instead")
        }
        let library = ModelLibrary()
        Console.message("pulling \(request.urls[0].absoluteString) into \(library.root.path)")
        let download = library.download(request)
        var view = DownloadProgressView()
        let addition: ModelLibrary.Addition
        do {
            addition = try await InterruptHandler.shared.whileRunning(cancel: { download.cancel() }) {
                for await progress in download.progress { view.show(progress) }
                return try await download.addition
            }
        } catch is CancellationError {
            view.finish()
            Console.err("cancelled; the bytes downloaded so far are kept, and pulling again resumes\n")
            return .interrupted
        } catch {
            view.finish()
            let urls = Set(request.urls.map(\.absoluteString))
            for partial in await library.partialDownloads() where partial.url.map(urls.contains) == true {
                Console.message("kept \(ByteCount.format(partial.bytes)) of \(partial.url ?? "the download") to resume; pull again to resume, or `llmkit pull --clean` to remove it")
            }
            throw error
        }
        view.finish()
        let record = try await DuplicateModel.report(addition, name: arguments.value("--name"), in: library)
        if arguments.has("--json") {
            try Console.printJSON(ModelReport(record, in: library))
        } else {
            if !addition.wasAlreadyInLibrary {
                Console.err("verified \(ByteCount.format(record.bytes)), sha256 \(record.sha256)\n")
                if let projector = request.projector {
                    Console.err("with its projector \(projector.fileName) (images), from the repository's listing\n")
                }
            }
            Console.out(record.id + "\n")
        }
        return .success
    }

    /// `llmkit pull --clean`: removes leftovers, printing each removed path on stdout.
    private static func clean(json: Bool) async throws -> ExitCode {
        let library = ModelLibrary()
        let cleanup = try await library.removeLeftovers()
        if json {
            try Console.printJSON(CleanupReport(removed: cleanup.removed.map(\.path), freedBytes: cleanup.freedBytes,
                                                inUse: cleanup.inUse.map(\.path)))
        } else {
            for url in cleanup.removed { Console.out(TerminalText.escaped(url.path) + "\n") }
            Console.err("removed \(cleanup.removed.count) leftover\(cleanup.removed.count == 1 ? "" : "s"), \(ByteCount.format(cleanup.freedBytes)) freed\n")
        }
        if !cleanup.inUse.isEmpty {
            Console.err("left \(cleanup.inUse.count) in use by a pull or import that is still running\n")
        }
        return .success
    }

    /// What `pull --clean --json` prints.
    private struct CleanupReport: Encodable {
        let removed: [String]
        let freedBytes: Int64
        let inUse: [String]
    }
}
