import CLlama
import CLlamaEngineBridge
import Foundation

// What the chat layer needs to know of a loaded model from libllama itself, so that only the
// engine calls libllama (`scripts/check-engine-leaf` checks the converse).
extension ModelHandle {
    /// The chat template embedded in the GGUF (`tokenizer.chat_template`), if any.
    package var embeddedChatTemplate: String? {
        llama_model_chat_template(pointer, nil).map { String(cString: $0) }
    }

    /// The texts of the vocabulary's control and unknown tokens (such as `<start_of_turn>` or
    /// `<|im_end|>`), which llama.cpp's tokenizer turns into single tokens when it parses
    /// special tokens; empty texts are left out.
    package func controlTokenTexts() -> [[UInt8]] {
        let special = LLAMA_TOKEN_ATTR_CONTROL.rawValue | LLAMA_TOKEN_ATTR_UNKNOWN.rawValue
        var texts: [[UInt8]] = []
        for token in 0..<llama_vocab_n_tokens(vocabulary) where llama_vocab_get_attr(vocabulary, token).rawValue & special != 0 {
            if let text = llama_vocab_get_text(vocabulary, token) {
                let bytes = Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
                if !bytes.isEmpty { texts.append(bytes) }
            }
        }
        return texts
    }

    /// Whether llama.cpp's grammar parser accepts a GBNF grammar over this model's vocabulary,
    /// and if not, why: the bridge's message, else the errors llama.cpp logged, else nil.
    package func parseGrammar(_ grammar: String) -> (accepted: Bool, reason: String?) {
        var error: llmkit_error?
        let (parsed, errors) = LlamaLog.collectingErrors { llmkit_grammar_check(pointer, grammar, &error) }
        let message = Bridge.take(error)
        return parsed ? (true, nil) : (false, message ?? errors.summary)
    }

    /// The names of llama.cpp's built-in chat templates (rendered by
    /// `llama_chat_apply_template`, not by the Jinja engine).
    package static func builtinChatTemplateNames() -> Set<String> {
        let count = llama_chat_builtin_templates(nil, 0)
        guard count > 0 else { return [] }
        var names = [UnsafePointer<CChar>?](repeating: nil, count: Int(count))
        _ = llama_chat_builtin_templates(&names, names.count)
        return Set(names.compactMap { $0.map { String(cString: $0) } })
    }
}
