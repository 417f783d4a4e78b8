import Foundation
import LocalLLMKit

extension ModelServer {
    /// `POST /api/pull` `{"model": REF}`: downloads a model into the library (a catalog id, a
    /// URL, `hf:…`, `ORG/REPO:QUANT` or Ollama's `hf.co/ORG/REPO:QUANT`), streaming progress
    /// as NDJSON (`pulling manifest`, then `pulling FILE` lines with `total` and `completed`,
    /// then `success`), or one `{"status": "success"}` with `"stream": false`. Requests may
    /// then name the model by `REF`. A client that goes away stops the download, which a
    /// later pull resumes.
    func ollamaPull(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        let download: ModelLibrary.Download
        let request: ModelLibrary.DownloadRequest
        let streams: Bool
        do {
            let access = try changeableLibrary()
            let body = try await RequestBody.parse(exchange.body)
            streams = try body.bool("stream") ?? true
            guard let reference = try body.string("model") ?? body.string("name"), !reference.isEmpty else {
                throw APIError.invalid("'model' is required: the model to pull.", param: "model")
            }
            do {
                request = try ModelLibrary.DownloadRequest(reference: Self.downloadReference(reference))
            } catch {
                throw APIError.invalid((error as? LocalizedError)?.errorDescription ?? "\(error)", param: "model")
            }
            download = access.library.download(request)
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
        guard streams else {
            do {
                _ = try await withTaskCancellationHandler {
                    for await _ in download.progress {}
                    return try await download.addition
                } onCancel: { download.cancel() }
                await refreshLibraryModels()
                return succeed(exchange, .object([("status", .string("success"))]))
            } catch {
                return fail(exchange, APIError(error), cors: cors)
            }
        }
        var lines = EventStream(exchange: exchange, headers: cors, lines: true)
        lines.sendLine(.object([("status", .string("pulling manifest"))]))
        let digest = request.sha256.map { "sha256:" + $0 } ?? request.fileName
        var lastLine = ContinuousClock.now - .seconds(1)
        do {
            let addition = try await withTaskCancellationHandler {
                for await progress in download.progress where ContinuousClock.now - lastLine >= .milliseconds(250) {
                    lastLine = .now
                    var line: [(String, OrderedJSON)] = [("status", .string("pulling \(request.fileName)")), ("digest", .string(digest))]
                    if let total = progress.total ?? request.bytes { line.append(("total", .integer(Int(total)))) }
                    line.append(("completed", .integer(Int(progress.bytes))))
                    lines.sendLine(.object(line))
                }
                return try await download.addition
            } onCancel: { download.cancel() }
            if !addition.wasAlreadyInLibrary {
                let total = OrderedJSON.integer(Int(addition.record.bytes))
                lines.sendLine(.object([("status", .string("pulling \(request.fileName)")), ("digest", .string(digest)),
                                        ("total", total), ("completed", total)]))
                lines.sendLine(.object([("status", .string("verifying sha256 digest"))]))
                lines.sendLine(.object([("status", .string("writing manifest"))]))
            }
            await refreshLibraryModels()
            lines.sendLine(.object([("status", .string("success"))]))
        } catch {
            var failure = APIError(error)
            failure.message = withoutModelPaths(failure.message)
            lines.sendLine(OllamaJSON.error(failure))
        }
        lines.finish(done: false)
        return Task.isCancelled ? 499 : 200
    }

    /// `POST /api/copy` `{"source": …, "destination": NAME}`: a second library model with the
    /// source's file under the name `destination` (see ``ModelLibrary/copy(_:to:)``). `200`
    /// with an empty body, as Ollama answers.
    func ollamaCopy(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let access = try changeableLibrary()
            let body = try await RequestBody.parse(exchange.body)
            let source = try body.requiredString("source")
            let destination = try body.requiredString("destination")
            guard let entry = try await libraryModel(named: source), let id = libraryID(of: entry) else {
                throw APIError.notFound("The model '\(source)' is not in the library.", param: "source", code: "model_not_found")
            }
            do {
                try await access.library.copy(id, to: destination)
            } catch let failure as ModelLibrary.Error {
                throw APIError.invalid(failure.errorDescription ?? "\(failure)", param: "destination")
            }
            await refreshLibraryModels()
            exchange.respond(status: 200, headers: cors, body: "")
            return 200
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// `DELETE /api/delete` `{"model": …}`: deletes a model of the library, after unloading it
    /// (requests in flight on it finish first). A model the server was started with, or one of
    /// another program's cache, is not deleted (`400`). `200` with an empty body.
    func ollamaDelete(_ exchange: HTTPExchange) async -> Int {
        let cors = corsHeaders(for: exchange)
        do {
            let access = try changeableLibrary()
            let body = try await RequestBody.parse(exchange.body)
            let name = try body.string("model") ?? body.requiredString("name")
            if fixedModels.contains(where: { $0.id == name }) {
                throw APIError.invalid("The model '\(name)' is served from the command line, not the library; it cannot be deleted here.",
                                       param: "model")
            }
            guard let entry = try await libraryModel(named: name), let id = libraryID(of: entry) else {
                throw APIError.notFound("The model '\(name)' is not in the library.", param: "model", code: "model_not_found")
            }
            let residency = residency
            try await access.library.delete(id) { record in
                guard let residency else { return }
                let url = access.library.url(of: record).standardizedFileURL.resolvingSymlinksInPath()
                for held in await residency.entries where held.url.standardizedFileURL.resolvingSymlinksInPath() == url {
                    await residency.unload(held.model)
                }
            }
            await refreshLibraryModels()
            exchange.respond(status: 200, headers: cors, body: "")
            return 200
        } catch {
            return fail(exchange, APIError(error), cors: cors)
        }
    }

    /// The library, when clients may change it.
    private func changeableLibrary() throws(APIError) -> LibraryAccess {
        guard let library, library.allowsChanges else {
            throw APIError(status: 403, message: "This server's model library cannot be changed by clients"
                           + (library == nil ? " (it serves no library)." : " (llmkit serve --no-library-changes)."),
                           type: "permission_error", param: nil, code: "library_read_only")
        }
        return library
    }

    /// The library entry id of a served library model.
    private func libraryID(of entry: ServedEntry) -> String? {
        libraryModels.withLock { held in held.first { $0.value === entry }?.key }
    }
}
