extension ConversationArchive.Header {
    /// Checks everything a saved conversation carries the way a new conversation's values are
    /// checked, before any of it reaches llama.cpp: the file is as untrusted as any input (a
    /// forged one fixes its checksum). The chat template and the template arguments are checked
    /// when the conversation builds its template, as for a new one.
    /// - Throws: ``Conversation/Error/invalidFile(path:reason:)`` naming the field, or
    ///   ``Conversation/Error/incompatibleFile(path:reason:)`` when it belongs to another model.
    func validate(for model: LocalModel, path: String) throws {
        func invalid(_ reason: String) -> Conversation.Error { .invalidFile(path: path, reason: reason) }
        if let mismatch = self.model.mismatch(with: try ModelFingerprint(model.file)) {
            throw Conversation.Error.incompatibleFile(path: path, reason: mismatch)
        }
        do {
            try configuration.validate()
        } catch Conversation.Error.invalidConfiguration(let name, let reason) {
            throw invalid("its \(name): \(reason)")
        } catch ChatTemplate.Error.invalidArgument(let name, let reason) {
            throw invalid("its template argument \(name): \(reason)")
        }
        guard let contextLength = configuration.contextLength else {
            throw invalid("it does not say its context length")
        }
        guard (0...Int(Int32.max)).contains(turnCount) else {
            throw invalid("its turn count \(turnCount) is not between 0 and \(Int32.max)")
        }
        if let instructions, transcript.first != .system(instructions) {
            throw invalid("its transcript does not start with its instructions")
        }
        guard cachedTokens.count <= contextLength else {
            throw invalid("more cached tokens (\(cachedTokens.count)) than its context holds (\(contextLength))")
        }
        // Images take stand-in tokens (negative, never -1: see MultimodalPrompt) in the cache of
        // a conversation that has attachments; every other token must be the vocabulary's.
        let hasMedia = transcript.contains { !$0.attachments.isEmpty }
        let vocabularyTokens = hasMedia ? cachedTokens.filter { $0 >= 0 || $0 == -1 } : cachedTokens
        do {
            try model.tokenizer.validate(vocabularyTokens)
        } catch {
            throw invalid("cached tokens outside the vocabulary")
        }
    }
}
