/// A suite that runs llmkit over a scratch model library (and scratch Hugging Face and Ollama
/// caches) beside the real bootstrap cache, with `ScratchFolder.libraryEnvironment`.
protocol ScratchLibrarySuite {
    /// The environment every llmkit run of the suite gets.
    var environment: [String: String] { get }
}

extension ScratchLibrarySuite {
    /// Runs the built llmkit with the suite's environment.
    func llmkit(_ arguments: [String], stdin: String? = nil) throws -> CommandRunner.Output {
        try CommandRunner.llmkit(arguments, stdin: stdin, environment: environment)
    }
}
