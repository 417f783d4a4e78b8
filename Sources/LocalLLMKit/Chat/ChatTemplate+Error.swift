import Foundation

extension ChatTemplate {
    /// What can go wrong while loading a chat template, rendering messages with it, or parsing
    /// a model's output with its parser.
    ///
    /// Each case names the value at fault; `errorDescription` says it in one line.
    public enum Error: Swift.Error, Sendable, Equatable {
        /// The template could not be loaded, or could not render the messages.
        case failed(reason: String)
        /// The template exceeded a bound it is parsed and rendered under (see ``Limits``).
        case boundExceeded(Bound, reason: String)
        /// A ``Limits`` value that cannot work; `name` is the property.
        case invalidLimit(name: String, reason: String)
        /// A template argument that cannot be passed to the template; `name` is its key.
        case invalidArgument(name: String, reason: String)
        /// Tools were given, but the template cannot render them.
        case toolsUnsupported(template: String)
        /// The template's parser could not make sense of the model's finished output `raw`.
        case unparsableOutput(raw: String, reason: String)
    }
}

extension ChatTemplate.Error: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .failed(let reason):
            return "chat template failed: \(reason)"
        case .boundExceeded(let bound, let reason):
            return "chat template stopped at its \(bound) bound: \(reason)"
        case .invalidLimit(let name, let reason):
            return "invalid chat template limit \(name): \(reason)"
        case .invalidArgument(let name, let reason):
            return "invalid template argument \(name): \(reason)"
        case .toolsUnsupported(let template):
            return "the chat template (\(template)) cannot render tools; pass a template that supports tool calls"
        case .unparsableOutput(let raw, let reason):
            return "the chat template's parser could not read the model's output (\(reason)): \(raw.suffix(200))"
        }
    }
}
