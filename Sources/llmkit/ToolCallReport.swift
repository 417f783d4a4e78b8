import LocalLLMKit

/// One tool call in `run --json` and `chat --json` output; every key is present, null where a
/// value is absent.
struct ToolCallReport: Encodable {
    /// The call's id (`call-1`, …).
    let id: String
    /// The tool's name.
    let name: String
    /// The arguments, as JSON text.
    let arguments: String
    /// The tool's output, or nil when it failed.
    let output: String?
    /// The error the model was given, or nil when the call succeeded.
    let error: String?

    /// The call as reported.
    init(_ invocation: ToolInvocation) {
        id = invocation.id
        name = invocation.name
        arguments = invocation.arguments
        output = invocation.isError ? nil : invocation.output
        error = invocation.isError ? invocation.output : nil
    }

    /// Encodes every key, null where a value is absent.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(arguments, forKey: .arguments)
        try container.encode(output, forKey: .output)
        try container.encode(error, forKey: .error)
    }

    private enum CodingKeys: String, CodingKey { case id, name, arguments, output, error }
}
