/// One request to a ``ModelBackend``: the prompt, with everything that frames it, since a
/// backend keeps no history between requests.
///
/// ```swift
/// let request = BackendRequest("Paris", instructions: "Name the country of the city.",
///                              examples: [.init(input: "Rome", output: "Italy")],
///                              options: .init(maximumResponseTokens: 16))
/// ```
public struct BackendRequest: Sendable {
    /// A worked example: what the user said and what the answer was.
    public struct Example: Sendable, Hashable {
        /// The user's words.
        public var input: String
        /// The answer (JSON, for requests of a `Decodable` type).
        public var output: String

        /// An example of `output` answering `input`.
        public init(input: String, output: String) {
            self.input = input
            self.output = output
        }
    }

    /// The user's words.
    public var prompt: String
    /// The system message, if any.
    public var instructions: String?
    /// Few-shot examples, given as earlier turns (user, then assistant) before the prompt.
    public var examples: [Example]
    /// Tools the model may call (run where the backend runs its turns: in this process).
    public var tools: [any ConversationTool]
    /// Length, stop sequences and sampling.
    public var options: CompletionOptions

    /// A request; only the prompt is required.
    public init(_ prompt: String, instructions: String? = nil, examples: [Example] = [],
                tools: [any ConversationTool] = [], options: CompletionOptions = .init()) {
        self.prompt = prompt
        self.instructions = instructions
        self.examples = examples
        self.tools = tools
        self.options = options
    }

    /// The history a conversation starts from: the instructions, then each example as a user
    /// turn and an assistant turn.
    public var transcript: [ChatMessage] {
        (instructions.map { [ChatMessage.system($0)] } ?? [])
            + examples.flatMap { [ChatMessage.user($0.input), ChatMessage.assistant($0.output)] }
    }
}
