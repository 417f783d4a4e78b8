import Foundation

/// A tool a conversation's model may call: a name, a description, typed arguments
/// (their JSON Schema is derived from the `Decodable` type), and the call itself.
///
/// ```swift
/// struct GetWeather: ConversationTool {
///     let name = "get_weather"
///     let description = "Current weather for a city"
///     struct Arguments: Decodable, StructuredOutput { var city: String }
///     func call(_ arguments: Arguments) async throws -> String { "Sunny in \(arguments.city)" }
/// }
/// let conversation = try Conversation(model: model, tools: [GetWeather()])
/// ```
///
/// The output is text, or any `Encodable` value (sent to the model as JSON). A tool
/// that throws, arguments that do not decode, or an unknown tool name become an error
/// message the model reads as the tool's result; nothing is thrown to the caller.
public protocol ConversationTool: Sendable {
    /// The arguments the model must supply.
    associatedtype Arguments: Decodable
    /// What the tool returns.
    associatedtype Output: Encodable & Sendable = String

    /// The name the model calls it by (letters, digits, `_` and `-`).
    var name: String { get }
    /// What it does, for the model.
    var description: String { get }
    /// The JSON Schema of the arguments; derived from `Arguments` by default.
    var parametersSchema: String { get throws }

    /// Runs the tool.
    func call(_ arguments: Arguments) async throws -> Output
}

extension ConversationTool {
    /// The schema derived from `Arguments` (see ``OutputSchema/init(deriving:name:)``).
    public var parametersSchema: String {
        get throws { try OutputSchema(deriving: Arguments.self, name: name).jsonSchema() }
    }

    /// Decodes JSON arguments, calls the tool, and renders its output as text.
    func invoke(arguments json: String) async throws -> String {
        let arguments: Arguments
        do {
            arguments = try StructuredDecoding.decoder.decode(Arguments.self, from: Data(json.utf8))
        } catch {
            throw ToolFailure.badArguments("\(error)")
        }
        return try ToolOutput.text(of: await call(arguments))
    }
}

/// A tool defined at run time: a name, a JSON Schema for its arguments, and a closure
/// that receives the arguments as JSON text.
public struct DynamicTool: ConversationTool {
    /// The name the model calls it by.
    public let name: String
    /// What it does, for the model.
    public let description: String
    private let schema: String
    private let body: @Sendable (String) async throws -> String

    /// Creates a tool.
    /// - Parameters:
    ///   - name: the name the model calls it by.
    ///   - description: what it does.
    ///   - parametersSchema: the JSON Schema of its arguments (an object).
    ///   - body: receives the arguments as JSON text and returns the result as text.
    public init(name: String, description: String, parametersSchema: String,
                body: @escaping @Sendable (String) async throws -> String) {
        self.name = name
        self.description = description
        self.schema = parametersSchema
        self.body = body
    }

    /// The JSON Schema given at creation.
    public var parametersSchema: String { schema }

    /// Calls the body with re-encoded arguments. A conversation does not go through here: it
    /// passes the model's JSON text to the body unchanged (key order and numbers as written).
    public func call(_ arguments: JSONArguments) async throws -> String { try await body(arguments.json) }

    /// The model's arguments as they were written, once they are known to be JSON.
    func invoke(rawArguments json: String) async throws -> String {
        do {
            _ = try OrderedJSONParser.parse(json)
        } catch {
            throw ToolFailure.badArguments("\(error)")
        }
        return try await body(json)
    }

    /// Arguments as JSON text, re-encoded from the decoded value.
    public struct JSONArguments: Decodable {
        /// The arguments as JSON text.
        public let json: String

        /// Keeps the JSON text as it is.
        public init(from decoder: any Decoder) throws {
            json = try OrderedJSON(from: decoder).serialized()
        }
    }
}

/// How a tool's failure is reported to the model.
enum ToolFailure: Error {
    case badArguments(String)
}

/// Turns tool output into the text of a tool message.
enum ToolOutput {
    static func text(of output: some Encodable) throws -> String {
        if let text = output as? String { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(output), as: UTF8.self)
    }
}
