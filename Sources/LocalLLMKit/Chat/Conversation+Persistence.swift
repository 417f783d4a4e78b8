import Foundation

extension Conversation {
    /// Saves the transcript, the settings and the KV cache to one file, atomically
    /// (a temporary file, then a rename): an existing file is replaced whole or not at all, and
    /// only a regular file is replaced (a link, a folder, a FIFO or a device is refused).
    /// The cache is saved when the model still holds this conversation's last turn in a
    /// sequence that no other request has taken since; otherwise the file has none, and a
    /// restored conversation evaluates its history again on its next turn.
    /// - Throws: ``Conversation/Error/notRegularFile(path:kind:)`` when something other than a
    ///   regular file is at `url`, ``Conversation/Error/invalidFile(path:reason:)`` when it cannot be written.
    public func save(to url: URL) async throws {
        await turnLock.lock()                  // after the turn in progress, if any
        defer { turnLock.unlock() }
        var saved = configuration
        saved.contextLength = contextLength
        let snapshot = cachedTokens.isEmpty ? nil
            : try await model.cacheSnapshot(matching: cachedTokens)
        let archive = ConversationArchive(
            header: .init(model: try ModelFingerprint(model.file), configuration: saved,
                          instructions: instructions, transcript: transcript, turnCount: turnCount,
                          cachedTokens: snapshot?.tokens ?? [], savedAt: Date()),
            state: snapshot?.state ?? [])
        let data: Data
        do {
            data = try archive.encoded()
        } catch {
            throw Conversation.Error.invalidFile(path: url.path, reason: "cannot encode it: \(error.localizedDescription)")
        }
        do {
            try FileReplacement.write(data, to: url)
        } catch .notRegularFile(let kind) {
            throw Conversation.Error.notRegularFile(path: url.path, kind: kind)
        } catch .failed(let reason) {
            throw Conversation.Error.invalidFile(path: url.path, reason: reason)
        }
    }

    /// Restores a conversation saved by ``save(to:)``, with its settings, transcript and
    /// KV cache: the next turn evaluates only its new tokens. (The cache goes into an idle
    /// sequence of the model; when every sequence is busy it is left out.) Tools are code, not saved:
    /// pass them again. Every saved value is checked as a new conversation's would be.
    /// - Throws: ``Conversation/Error/invalidFile(path:reason:)`` for a missing, damaged,
    ///   truncated or forged file, naming the field at fault; ``ChatTemplate/Error/boundExceeded(_:reason:)``
    ///   when its chat template exceeds a bound; ``Conversation/Error/incompatibleFile(path:reason:)``
    ///   when it was saved with another model.
    public init(restoringFrom url: URL, model: LocalModel, tools: [any ConversationTool] = []) async throws {
        let archive = try await Self.readArchive(url, for: model)
        let header = archive.header
        let template = try Self.restoredTemplate(header.configuration, model: model, path: url.path)
        try self.init(model: model, instructions: header.instructions, tools: tools, configuration: header.configuration,
                      template: template, transcript: header.transcript, turnCount: header.turnCount, cachedTokens: [])
        try await restoreCache(archive, path: url.path)
    }

    /// A saved conversation's template, built and checked as a new conversation's, with errors
    /// that name the file.
    private static func restoredTemplate(_ configuration: Configuration, model: LocalModel, path: String) throws -> ChatTemplate {
        do {
            return try makeTemplate(model: model, configuration: configuration)
        } catch ChatTemplate.Error.boundExceeded(let bound, let reason) {
            throw ChatTemplate.Error.boundExceeded(bound, reason: "saved conversation \(path): \(reason)")
        } catch ChatTemplate.Error.failed(let reason) {
            throw Conversation.Error.invalidFile(path: path, reason: "its chat template: \(reason)")
        } catch Conversation.Error.invalidConfiguration(let name, let reason) {
            throw Conversation.Error.invalidFile(path: path, reason: "its \(name): \(reason)")
        } catch ChatTemplate.Error.invalidArgument(let name, let reason) {
            throw Conversation.Error.invalidFile(path: path, reason: "its template argument \(name): \(reason)")
        }
    }

    /// Replaces this conversation's transcript and cache with a saved one. On any
    /// error the conversation is left as it was.
    /// - Throws: as ``init(restoringFrom:model:)``, and ``Conversation/Error/incompatibleFile(path:reason:)``
    ///   when the file's context length, template, template arguments or instructions differ
    ///   from this conversation's.
    public func load(from url: URL) async throws {
        await turnLock.lock()                  // after the turn in progress, if any
        defer { turnLock.unlock() }
        let archive = try await Self.readArchive(url, for: model)
        let header = archive.header
        func incompatible(_ reason: String) -> Conversation.Error { .incompatibleFile(path: url.path, reason: reason) }
        let saved = header.configuration
        guard saved.contextLength == contextLength else {
            throw incompatible("it has a context of \(saved.contextLength ?? 0) tokens, this conversation \(contextLength)")
        }
        guard saved.chatTemplate == configuration.chatTemplate else {
            throw incompatible("it was saved with another chat template")
        }
        guard header.instructions == instructions else {
            throw incompatible("its instructions differ from this conversation's")
        }
        guard saved.templateArguments == configuration.templateArguments else {
            throw incompatible("its template arguments differ from this conversation's")
        }
        try await restoreCache(archive, path: url.path)
        transcript = header.transcript
        turnCount = header.turnCount
    }

    /// Reads an archive and checks its header (see ``ConversationArchive/Header/validate(for:path:)``),
    /// reading no more cache data than the model can hold.
    private static func readArchive(_ url: URL, for model: LocalModel) async throws -> ConversationArchive {
        let limit = model.maximumCacheStateBytes
        let archive = try await BlockingWorkPool.shared.run { try ConversationArchive(contentsOf: url, maximumStateBytes: limit) }
        try archive.header.validate(for: model, path: url.path)
        return archive
    }

    /// Loads the archive's cache into an idle sequence of the model.
    private func restoreCache(_ archive: ConversationArchive, path: String) async throws {
        let tokens = archive.header.cachedTokens
        guard !tokens.isEmpty else {
            cachedTokens = []
            return
        }
        do {
            _ = try await model.restoreCache(archive.state, tokens: tokens)
        } catch {
            throw Conversation.Error.invalidFile(path: path, reason: "llama.cpp could not restore its cache")
        }
        cachedTokens = tokens
    }
}
