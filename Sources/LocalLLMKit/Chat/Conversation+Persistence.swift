import Foundation

extension Conversation {
    /// Saves the transcript, the settings and the KV cache to one file, atomically
    /// (a temporary file, then a rename): an existing file is replaced whole or not at all.
    /// - Throws: ``LLMKitError/invalidConversationFile(path:reason:)`` when it cannot be written.
    public func save(to url: URL) async throws {
        await turnLock.lock()                  // after the turn in progress, if any
        defer { turnLock.unlock() }
        var saved = configuration
        saved.contextLength = contextLength
        let archive = ConversationArchive(
            header: .init(model: try ModelFingerprint(model.file), configuration: saved,
                          instructions: instructions, transcript: transcript, turnCount: turnCount,
                          cachedTokens: cache?.cachedTokens ?? [], savedAt: Date()),
            state: cache.map { $0.cachedTokens.isEmpty ? [] : $0.sequenceState() } ?? [])
        do {
            try archive.encoded().write(to: url, options: .atomic)
        } catch {
            throw LLMKitError.invalidConversationFile(path: url.path, reason: "cannot write it: \(error.localizedDescription)")
        }
    }

    /// Restores a conversation saved by ``save(to:)``, with its settings, transcript and
    /// KV cache: the next turn evaluates only its new tokens. Tools are code, not saved:
    /// pass them again.
    /// - Throws: ``LLMKitError/invalidConversationFile(path:reason:)`` for a missing, damaged or
    ///   truncated file; ``LLMKitError/incompatibleConversationFile(path:reason:)`` when it was
    ///   saved with another model.
    public init(restoringFrom url: URL, model: LocalModel, tools: [any ConversationTool] = []) throws {
        let archive = try Self.readArchive(url, for: model)
        let header = archive.header
        do {
            try header.configuration.validate()
        } catch {
            throw LLMKitError.invalidConversationFile(path: url.path, reason: "its configuration: \(error.localizedDescription)")
        }
        var context: InferenceContext?
        if !header.cachedTokens.isEmpty {
            context = try model.makeContext(contextLength: header.configuration.contextLength ?? model.contextLength,
                                            fullSlidingWindowCache: header.configuration.usesFullSlidingWindowCache)
            try Self.restore(archive, into: context!, path: url.path)
        }
        try self.init(model: model, instructions: header.instructions, tools: tools, configuration: header.configuration,
                      transcript: header.transcript, turnCount: header.turnCount, cache: context)
    }

    /// Replaces this conversation's transcript and cache with a saved one. On any
    /// error the conversation is left as it was.
    /// - Throws: as ``init(restoringFrom:model:)``, and ``LLMKitError/incompatibleConversationFile(path:reason:)``
    ///   when the file's context length or template differs from this conversation's.
    public func load(from url: URL) async throws {
        await turnLock.lock()                  // after the turn in progress, if any
        defer { turnLock.unlock() }
        let archive = try Self.readArchive(url, for: model)
        let header = archive.header
        func incompatible(_ reason: String) -> LLMKitError { .incompatibleConversationFile(path: url.path, reason: reason) }
        let saved = header.configuration
        guard saved.contextLength == contextLength else {
            throw incompatible("it has a context of \(saved.contextLength ?? 0) tokens, this conversation \(contextLength)")
        }
        guard saved.chatTemplate == configuration.chatTemplate else {
            throw incompatible("it was saved with another chat template")
        }
        guard saved.usesFullSlidingWindowCache == configuration.usesFullSlidingWindowCache else {
            throw incompatible("its sliding-window cache setting differs from this conversation's")
        }
        if header.cachedTokens.isEmpty {
            cache?.clearMemory()
        } else {
            try Self.restore(archive, into: inferenceContext(), path: url.path)
        }
        transcript = header.transcript
        turnCount = header.turnCount
    }

    private static func readArchive(_ url: URL, for model: LocalModel) throws -> ConversationArchive {
        let archive = try ConversationArchive(contentsOf: url)
        if let mismatch = archive.header.model.mismatch(with: try ModelFingerprint(model.file)) {
            throw LLMKitError.incompatibleConversationFile(path: url.path, reason: mismatch)
        }
        let tokens = archive.header.cachedTokens
        guard tokens.count <= archive.header.configuration.contextLength ?? 0 else {
            throw LLMKitError.invalidConversationFile(path: url.path, reason: "more cached tokens than its context holds")
        }
        do {
            try model.tokenizer.validate(tokens)
        } catch {
            throw LLMKitError.invalidConversationFile(path: url.path, reason: "cached tokens outside the vocabulary")
        }
        return archive
    }

    private static func restore(_ archive: ConversationArchive, into context: InferenceContext, path: String) throws {
        do {
            try context.restoreSequenceState(archive.state, tokens: archive.header.cachedTokens)
        } catch {
            throw LLMKitError.invalidConversationFile(path: path, reason: "llama.cpp could not restore its cache")
        }
    }
}
