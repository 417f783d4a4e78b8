import Foundation

/// A ``ModelBackend`` over a model on this machine (llama.cpp): a loaded ``LocalModel``, or a
/// file or library name that ``LoadedModels`` loads on first use (and can unload when idle).
/// Structured answers are constrained by the grammar of the type's schema.
///
/// ```swift
/// let local = LocalBackend(named: "qwen2.5-coder-0.5b-instruct", configuration: .init(contextLength: 2048))
/// print(await local.availability())        // unavailable: … when the model is not downloaded
/// ```
public struct LocalBackend: ModelBackend {
    private enum Source: Sendable {
        case model(LocalModel)
        case file(URL)
        case named(String)
    }

    private let source: Source
    private let configuration: LocalModel.Configuration
    private let residency: LoadedModels
    private let library: ModelLibrary
    /// What conversations of this backend are configured with (template override, context cap).
    public let conversationConfiguration: Conversation.Configuration
    public let name: String

    /// A backend over a model already loaded.
    public init(model: LocalModel, conversationConfiguration: Conversation.Configuration = .init()) {
        source = .model(model)
        configuration = model.configuration
        residency = .shared
        library = ModelLibrary()
        self.conversationConfiguration = conversationConfiguration
        name = "local \(model.url.deletingPathExtension().lastPathComponent)"
    }

    /// A backend over the GGUF file at `url`, loaded with `configuration` through `residency`
    /// on first use.
    public init(url: URL, configuration: LocalModel.Configuration = .init(), residency: LoadedModels = .shared,
                conversationConfiguration: Conversation.Configuration = .init()) {
        source = .file(url)
        self.configuration = configuration
        self.residency = residency
        library = ModelLibrary()
        self.conversationConfiguration = conversationConfiguration
        name = "local \(url.deletingPathExtension().lastPathComponent)"
    }

    /// A backend over the model that `name` names in `library` (see ``ModelLibrary/file(named:)``),
    /// loaded with `configuration` through `residency` on first use.
    public init(named name: String, configuration: LocalModel.Configuration = .init(), library: ModelLibrary = ModelLibrary(),
                residency: LoadedModels = .shared, conversationConfiguration: Conversation.Configuration = .init()) {
        source = .named(name)
        self.configuration = configuration
        self.residency = residency
        self.library = library
        self.conversationConfiguration = conversationConfiguration
        self.name = "local \(name)"
    }

    /// Available when the model is loaded, or its file exists, is a model llama.cpp can load
    /// (its header checked, nothing loaded), and generates text.
    public func availability() async -> BackendAvailability {
        let file: GGUFFile
        do {
            switch source {
            case .model(let model): file = model.file
            case .file(let url): file = try GGUFFile(modelAt: url)
            case .named(let name): file = try GGUFFile(modelAt: try await library.file(named: name))
            }
            try file.checkLoadability()
        } catch {
            return .unavailable(reason: (error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
        if let problem = file.generationProblem { return .unavailable(reason: "it cannot generate text: \(problem)") }
        return .available
    }

    public func streamResponse(to request: BackendRequest) -> Conversation.ResponseStream {
        .relaying { try await conversation(for: request).streamResponse(to: request.prompt, options: request.options) }
    }

    public func respond(to request: BackendRequest) async throws -> ModelResponse<String> {
        try await conversation(for: request).respond(to: request.prompt, options: request.options)
    }

    public func respond<T: Decodable & Sendable>(to request: BackendRequest, generating type: T.Type) async throws -> ModelResponse<T> {
        try await conversation(for: request).respond(to: request.prompt, generating: type, options: request.options)
    }

    /// The model, loading it if it is not.
    public func model() async throws -> LocalModel {
        switch source {
        case .model(let model): model
        case .file(let url): try await residency.model(at: url, configuration: configuration)
        case .named(let name): try await residency.model(at: try await library.file(named: name), configuration: configuration)
        }
    }

    private func conversation(for request: BackendRequest) async throws -> Conversation {
        try Conversation(model: try await model(), transcript: request.transcript, tools: request.tools,
                         configuration: conversationConfiguration)
    }
}
