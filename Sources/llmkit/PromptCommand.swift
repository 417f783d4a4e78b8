import Foundation
import LocalLLMKit

/// `llmkit prompt`: prints exactly the prompt text a chat template renders.
enum PromptCommand {
    static let spec = CommandSpec(
        name: "prompt",
        usage: "usage: llmkit prompt [--model PATH] [--chat-template FILE] [--no-generation-prompt] [--thinking] --messages FILE.json",
        help: """
        Print exactly the prompt text that would be tokenized for a conversation, and nothing else.

          -m, --model PATH          GGUF model (default: $LLMKIT_MODEL, else the bootstrap's model);
                                    only its vocabulary is loaded
              --chat-template T     Jinja template file, installed template name or llama.cpp built-in name
                                    (such as chatml) instead of the model's; `list` prints the names;
                                    also --chat-template-file
              --messages FILE.json  OpenAI-style messages: [{"role", "content"}, …], with "reasoning_content"
                                    and "tool_calls" where present ('-' reads stdin)
              --no-generation-prompt  leave out the marker that starts the assistant's answer
              --thinking            render with enable_thinking
              --template-source     print which template was used (embedded, override, builtin:NAME, chatml)
                                    to stderr
          -v, --verbose             show llama.cpp's log on stderr
          -h, --help                show this help
        """,
        valueOptions: ["--model", "--chat-template", "--messages"],
        flagOptions: ["--no-generation-prompt", "--thinking", "--template-source", "--verbose"]
    )

    static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        guard let messagesPath = arguments.value("--messages") else {
            throw UsageError(message: "missing --messages FILE.json")
        }
        let messages = try readMessages(messagesPath)
        if arguments.has("--verbose") { LlamaLog.logToStandardError(minimumLevel: .info) }
        let model = try await LocalModel.load(from: await ModelOptions.modelURL(arguments),
                                              configuration: .init(vocabularyOnly: true))
        let template = try arguments.value("--chat-template").map {
            try ChatTemplate(model: model, override: GenerationFlags.templateSource($0))
        } ?? ChatTemplate(model: model)
        GenerationFlags.warnAboutReplacedTemplate(template)
        let rendered = try template.render(messages, addGenerationPrompt: !arguments.has("--no-generation-prompt"),
                                           enableThinking: arguments.has("--thinking"))
        if arguments.has("--template-source") { Console.err("template: \(template.source)\n") }
        Console.out(rendered.text)
        return .success
    }

    /// Reads OpenAI-style messages from a file (or stdin for `-`).
    static func readMessages(_ path: String) throws -> [ChatMessage] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try UserFile.read(at: path)
            } catch {
                throw InputFileError(option: "--messages", reason: "cannot read \(path): \(error.reason)")
            }
        }
        // Read as JSON first: a syntax error and a number beyond a Double are told apart from
        // messages of the wrong shape (Foundation's decoder calls all of them "not valid JSON").
        let json: OrderedJSON
        do {
            json = try OrderedJSONParser.parse(String(decoding: data, as: UTF8.self), strict: true)
        } catch {
            throw InputFileError(option: "--messages", reason: "\(path) is not valid JSON (\(error))")
        }
        if let location = json.pathOfNonFiniteNumber {
            throw InputFileError(option: "--messages", reason: "\(path) holds a number beyond the range of a 64-bit float at \(location)")
        }
        do {
            return try JSONDecoder().decode([ChatMessage].self, from: data)
        } catch {
            throw InputFileError(option: "--messages", reason: "\(path) is not an array of chat messages (\(describe(error)))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "\(path.isEmpty ? "" : "at \(path): ")\(context.debugDescription)"
        default:
            return error.localizedDescription
        }
    }
}
