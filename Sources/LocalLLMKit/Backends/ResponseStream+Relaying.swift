extension GenerationStream where Element == Conversation.Event, Output == ModelResponse<String> {
    /// A stream that relays another's events and result: how a backend answers with a
    /// conversation it makes for the request (``LocalBackend`` with a ``Conversation``,
    /// ``RemoteBackend`` with a ``RemoteConversation``). Making it may throw; the stream then
    /// ends with that error before its first event.
    static func relaying(_ make: @escaping @Sendable () async throws -> Conversation.ResponseStream) -> Self {
        Self { emit in
            let inner = try await make()
            for try await event in inner { emit(event) }
            return try await inner.result
        }
    }
}
