import Foundation
import LocalLLMKit

/// The slash commands of `llmkit chat`.
extension ChatCommand {
    /// What a command asks of the chat loop.
    enum CommandOutcome {
        case done, failed, quit
        /// An image for the next message.
        case attach(MediaAttachment)
    }

    /// The list of commands, for `--help` and `/help`.
    static let commandHelp = """
    Commands, on a line of their own:
      /help        show these commands
      /save PATH   save the conversation (transcript and KV cache) to PATH
      /load PATH   continue a saved conversation
      /reset       forget every turn (keeps the system message)
      /image PATH  attach an image to the next message (the model needs a projector)
      /quit, /exit leave (so does end of input)
    A line that is exactly \(ChatInput.blockDelimiter) starts a multi-line message; the next \(ChatInput.blockDelimiter) line sends it.
    """

    /// Runs one command line; problems are reported on stderr and the chat goes on.
    static func command(_ line: String, conversation: Conversation) async throws -> CommandOutcome {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        do {
            switch parts[0] {
            case "/quit", "/exit":
                return .quit
            case "/help":
                Console.err(commandHelp + "\n")
            case "/reset":
                await conversation.reset()
                Console.err("conversation reset\n")
            case "/save" where argument.isEmpty:
                Console.err("usage: /save PATH   (saves the conversation to PATH)\n")
            case "/load" where argument.isEmpty:
                Console.err("usage: /load PATH   (continues the conversation saved in PATH)\n")
            case "/image" where argument.isEmpty:
                Console.err("usage: /image PATH   (attaches the image at PATH to the next message)\n")
            case "/image":
                guard conversation.model.acceptsImages else {
                    throw LocalModel.Error.noProjector(path: conversation.model.url.path)
                }
                let attachment = try MediaAttachment.image(contentsOf: URL(filePath: argument))
                Console.err("attached \(argument) to the next message\n")
                return .attach(attachment)
            case "/save":
                try await conversation.save(to: URL(filePath: argument))
                Console.err("saved to \(argument)\n")
            case "/load":
                try await conversation.load(from: URL(filePath: argument))
                Console.err("loaded \(argument) (\(await conversation.turnCount) turns)\n")
            default:
                Console.message("llmkit chat: unknown command '\(line)'; /help lists the commands")
                return .failed
            }
            return .done
        } catch let error where ErrorWording.isLibraryError(error) {
            Console.message("llmkit chat: \(ErrorWording.describe(error))")
            return .failed
        }
    }
}
