import CLlama
import Foundation

extension Speculator {
    /// Why speculation cannot work with `model`, or nil when it can: a rejected draft must be
    /// cut from the cache, which a recurrent state cannot do.
    package static func unsupportedReason(for model: ModelHandle) -> String? {
        if llama_model_is_recurrent(model.pointer) { return "it is recurrent: its state cannot drop a rejected draft" }
        if llama_model_is_hybrid(model.pointer) {
            return "it is a hybrid with recurrent layers: their state cannot drop a rejected draft"
        }
        return nil
    }

    /// How `draft`'s vocabulary differs from `target`'s where llama.cpp's speculation requires
    /// them to agree (the rules of its `common_speculative_are_compatible`, checked first so that
    /// the error names the difference); nil when they agree.
    package static func vocabularyMismatch(target: ModelHandle, draft: ModelHandle) -> String? {
        let (t, d) = (target.vocabulary, draft.vocabulary)
        if llama_vocab_type(t) != llama_vocab_type(d) {
            return "its tokenizer is of another type (\(llama_vocab_type(d).rawValue), the model's is \(llama_vocab_type(t).rawValue))"
        }
        if llama_vocab_get_add_bos(t) != llama_vocab_get_add_bos(d)
            || (llama_vocab_get_add_bos(t) && llama_vocab_bos(t) != llama_vocab_bos(d)) {
            return "it starts sequences differently (beginning-of-sequence token \(llama_vocab_bos(d)), the model's is \(llama_vocab_bos(t)))"
        }
        if llama_vocab_get_add_eos(t) != llama_vocab_get_add_eos(d)
            || (llama_vocab_get_add_eos(t) && llama_vocab_eos(t) != llama_vocab_eos(d)) {
            return "it ends sequences differently (end-of-sequence token \(llama_vocab_eos(d)), the model's is \(llama_vocab_eos(t)))"
        }
        let (targetSize, draftSize) = (Int(llama_vocab_n_tokens(t)), Int(llama_vocab_n_tokens(d)))
        if abs(targetSize - draftSize) > 128 {
            return "its vocabulary has \(draftSize) tokens, the model's \(targetSize) (at most 128 apart)"
        }
        for token in Int32(5)..<Int32(min(targetSize, draftSize)) {
            guard let a = llama_vocab_get_text(t, token), let b = llama_vocab_get_text(d, token) else { continue }
            if strcmp(a, b) != 0 {
                return "token \(token) is \(String(reflecting: String(cString: b))) in it but \(String(reflecting: String(cString: a))) in the model"
            }
        }
        return nil
    }
}
