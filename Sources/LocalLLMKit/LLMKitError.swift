import Foundation

/// Every error that LocalLLMKit throws.
///
/// Each case carries what went wrong and names the file, option or value at fault,
/// and each has a human-readable `errorDescription`.
public enum LLMKitError: Error, Sendable, Equatable {
    /// A configuration or generation option has a value that cannot work.
    case invalidOption(name: String, reason: String)
    /// No model was given and no default model is installed.
    case noDefaultModel(searched: [String])
    /// The chat template could not be loaded or could not render the messages.
    case templateFailed(reason: String)
    /// The template's parser could not make sense of the model's output.
    case outputParsingFailed(reason: String)
    /// A saved conversation file is missing, damaged, truncated or not one at all.
    case invalidConversationFile(path: String, reason: String)
    /// A saved conversation file belongs to another model or other settings.
    case incompatibleConversationFile(path: String, reason: String)
    /// An output schema cannot be met or compiled; `property` is its path, e.g. `Letter.steps`.
    case invalidSchema(property: String, reason: String)
    /// A GBNF grammar that llama.cpp cannot parse.
    case invalidGrammar(reason: String)
    /// The model's output does not decode into the requested type (possible only without a grammar),
    /// or breaks a schema rule that is checked after generation (`uniqueItems` on items other than listed values).
    case invalidOutput(raw: String, reason: String)
    /// Generation stopped (token limit or cancellation) before the structured answer was complete.
    case incompleteOutput(raw: String, stopReason: StopReason)
    /// Tools were given, but the chat template cannot render them.
    case toolsUnsupported(template: String)
    /// A tool is unusable: a bad or repeated name, or arguments that have no schema.
    case invalidTool(name: String, reason: String)
    /// A model reference (URL, `hf:` path, `org/repo:QUANT`, file name) that cannot be used.
    case invalidModelReference(String, reason: String)
    /// A download from `url` failed.
    case downloadFailed(url: String, reason: String)
    /// A downloaded or imported file's SHA-256 is not the one expected.
    case checksumMismatch(url: String, expected: String, actual: String)
    /// Not enough free disk space at `path`.
    case insufficientDiskSpace(path: String, needed: Int64, available: Int64)
    /// No model in the library has this id or name.
    case modelNotInLibrary(String)
    /// The model belongs to another program's cache (Hugging Face, Ollama) and is never changed.
    case readOnlyModel(String)
    /// The model library's folder could not be read or written.
    case libraryFailure(path: String, reason: String)
    /// A chat template exceeded a bound it is parsed and rendered under (see ``ChatTemplate/Limits``).
    case templateBoundExceeded(ChatTemplate.Bound, reason: String)
    /// A transcript given to ``Conversation/init(model:transcript:tools:configuration:)`` has a
    /// message at `index` that cannot be part of a conversation; `reason` says why.
    case invalidTranscript(index: Int, reason: String)
}

extension LLMKitError: LocalizedError {
    /// A one-line description that names what was wrong.
    public var errorDescription: String? {
        switch self {
        case .invalidOption(let name, let reason):
            return "invalid value for \(name): \(reason)"
        case .noDefaultModel(let searched):
            return "no model given and no default model installed (looked at \(searched.joined(separator: ", "))); run scripts/bootstrap or name a model file"
        case .templateFailed(let reason):
            return "chat template failed: \(reason)"
        case .outputParsingFailed(let reason):
            return "could not parse the model's output: \(reason)"
        case .invalidConversationFile(let path, let reason):
            return "invalid conversation file \(path): \(reason)"
        case .incompatibleConversationFile(let path, let reason):
            return "conversation file \(path) does not fit: \(reason)"
        case .invalidSchema(let property, let reason):
            return "invalid schema at \(property): \(reason)"
        case .invalidGrammar(let reason):
            return "invalid grammar: \(reason)"
        case .invalidOutput(let raw, let reason):
            return "the output does not match the requested type (\(reason)): \(raw.prefix(200))"
        case .incompleteOutput(let raw, let stopReason):
            return "generation stopped (\(stopReason.rawValue)) before the answer was complete: \(raw.suffix(120))"
        case .toolsUnsupported(let template):
            return "the chat template (\(template)) cannot render tools; pass a template that supports tool calls"
        case .invalidTool(let name, let reason):
            return "invalid tool \(name): \(reason)"
        case .invalidModelReference(let reference, let reason):
            return "invalid model reference \(reference): \(reason)"
        case .downloadFailed(let url, let reason):
            return "download of \(url) failed: \(reason)"
        case .checksumMismatch(let url, let expected, let actual):
            return "\(url) has SHA-256 \(actual), expected \(expected); the file was deleted"
        case .insufficientDiskSpace(let path, let needed, let available):
            return "not enough disk space at \(path): \(needed) bytes needed, \(available) available"
        case .modelNotInLibrary(let id):
            return "no model \(id) in the library"
        case .readOnlyModel(let id):
            return "\(id) belongs to another program's model cache and is never changed or deleted"
        case .libraryFailure(let path, let reason):
            return "model library \(path): \(reason)"
        case .templateBoundExceeded(let bound, let reason):
            return "chat template stopped at its \(bound) bound: \(reason)"
        case .invalidTranscript(let index, let reason):
            return "transcript message \(index): \(reason)"
        }
    }
}
