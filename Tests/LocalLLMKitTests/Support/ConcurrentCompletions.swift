import LocalLLMKit

/// Completions sent to one model at once, so that they decode together.
enum ConcurrentCompletions {
    /// The tokens of each request, in the order given.
    static func tokens(_ model: LocalModel, _ requests: [(prompt: String, options: CompletionOptions)]) async throws -> [[Int32]] {
        try await withThrowingTaskGroup(of: (Int, [Int32]).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try await model.complete(request.prompt, options: request.options).tokens) }
            }
            var tokens = Array(repeating: [Int32](), count: requests.count)
            for try await (index, answer) in group { tokens[index] = answer }
            return tokens
        }
    }
}
