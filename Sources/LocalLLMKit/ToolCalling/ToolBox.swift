import Foundation
/// The tools of a conversation: checked once, rendered for the template, and run.
struct ToolBox: Sendable {
    let tools: [any ConversationTool]
    /// OpenAI-style definitions, in the order given.
    let definitions: [ChatCompletionBody.Tool]

    /// Checks names and schemas up front, so that a bad tool fails before any turn.
    /// - Throws: ``Conversation/Error/invalidTool(name:reason:)``.
    init(_ tools: [any ConversationTool]) throws {
        var seen = Set<String>()
        var definitions: [ChatCompletionBody.Tool] = []
        for tool in tools {
            let name = tool.name
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw Conversation.Error.invalidTool(name: name, reason: "a name may hold only letters, digits, _ and -")
            }
            guard seen.insert(name).inserted else {
                throw Conversation.Error.invalidTool(name: name, reason: "two tools have this name")
            }
            let schema: OrderedJSON
            do {
                schema = try OrderedJSONParser.parse(try tool.parametersSchema)
            } catch {
                throw Conversation.Error.invalidTool(name: name, reason: "no usable parameters schema: \(error)")
            }
            // llama.cpp turns the schema into a tool-call grammar: the same bounds and keywords as output schemas.
            do {
                _ = try SchemaNormalizer.prepare(schema, name: name)
            } catch OutputFormat.Error.invalidSchema(let property, let reason) {
                throw Conversation.Error.invalidTool(name: name, reason: "parameters schema at \(property): \(reason)")
            }
            definitions.append(ChatCompletionBody.Tool(name: name, description: tool.description, parameters: schema))
        }
        self.tools = tools
        self.definitions = definitions
    }


    /// The definitions a round offers, and the template's tool choice, for `choice`.
    func offer(_ choice: Conversation.ToolChoice) throws -> (tools: [ChatCompletionBody.Tool], choice: String) {
        switch choice {
        case .auto: return (definitions, definitions.isEmpty ? "none" : "auto")
        case .none: return ([], "none")
        case .required:
            guard !definitions.isEmpty else {
                throw Conversation.Error.invalidToolChoice(reason: "a tool call is required, but the conversation has no tools")
            }
            return (definitions, "required")
        case .named(let name):
            guard let definition = definitions.first(where: { $0.name == name }) else {
                throw Conversation.Error.invalidToolChoice(reason: "no tool is named \(name)")
            }
            return ([definition], "required")
        }
    }

    /// Runs one call. Failures become an error message for the model.
    func run(name: String, arguments: String) async -> (output: String, isError: Bool) {
        guard let tool = tools.first(where: { $0.name == name }) else {
            return (Self.error("unknown tool \(name); the tools are: \(tools.map(\.name).joined(separator: ", "))"), true)
        }
        do {
            if let dynamic = tool as? DynamicTool {
                return (try await dynamic.invoke(rawArguments: arguments), false)
            }
            return (try await tool.invoke(arguments: arguments), false)
        } catch ToolFailure.badArguments(let reason) {
            return (Self.error("the arguments do not match the tool's parameters: \(reason)"), true)
        } catch is CancellationError {
            return (Self.error("cancelled"), true)
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription
                ?? String(describing: error)
            return (Self.error("\(name) failed: \(reason)"), true)
        }
    }

    /// Runs one round's calls concurrently, reporting each start and finish.
    /// - Returns: the calls with their outputs, in the order given (they finish in any order).
    func run(_ calls: [ToolInvocation], emit: @escaping @Sendable (Conversation.Event) -> Void) async -> [ToolInvocation] {
        await withTaskGroup(of: (Int, ToolInvocation).self) { group in
            for (index, call) in calls.enumerated() {
                emit(.toolCallStarted(call))
                group.addTask {
                    var finished = call
                    (finished.output, finished.isError) = await self.run(name: call.name, arguments: call.arguments)
                    emit(.toolCallFinished(finished))
                    return (index, finished)
                }
            }
            var results = calls
            for await (index, finished) in group { results[index] = finished }
            return results
        }
    }

    /// A tool error as the model sees it: `{"error": "…"}`.
    static func error(_ message: String) -> String {
        OrderedJSON.object([("error", .string(message))]).serialized()
    }
}
