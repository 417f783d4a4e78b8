// Speculative decoding through llama.cpp's `common_speculative`: drafts from n-grams of a
// sequence's own tokens (prompt lookup) or from a draft model's context. Plain C, like the rest
// of the engine bridge: every function catches every C++ exception and reports it through an
// `llmkit_error` out-parameter.
#ifndef LLMKIT_SPECULATOR_H
#define LLMKIT_SPECULATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "llmkit_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Where drafts come from.
enum {
    LLMKIT_SPECULATOR_PROMPT_LOOKUP = 0,  // llama.cpp's `ngram-simple`: the tokens that followed the last n-gram before
    LLMKIT_SPECULATOR_DRAFT_MODEL   = 1,  // llama.cpp's `draft-simple`: a smaller model with the same vocabulary
    LLMKIT_SPECULATOR_MTP           = 2,  // llama.cpp's `draft-mtp`: the model's own next-token-prediction layers
};

/// One `common_speculative` over every sequence of a target context.
typedef struct llmkit_speculator llmkit_speculator;

/// Creates a speculator for `sequence_count` sequences that drafts at most `maximum_draft`
/// tokens. Prompt lookup matches the last `ngram_length` tokens; a draft model needs `target`
/// and `draft` (a context of the draft model with as many sequences), whose vocabularies
/// llama.cpp checks here; multi-token prediction needs `target` and `draft`, an MTP context
/// (`LLAMA_CONTEXT_TYPE_MTP`) of the same model, loaded with `load_mtp`. Returns NULL and sets
/// `*error` when llama.cpp refuses.
llmkit_speculator * llmkit_speculator_create(int32_t kind, struct llama_context * target, struct llama_context * draft,
                                             int32_t sequence_count, int32_t maximum_draft, int32_t ngram_length,
                                             llmkit_error * error);

/// Frees a speculator. Accepts NULL.
void llmkit_speculator_free(llmkit_speculator * speculator);

/// Tells the speculator that `sequence` starts a new generation from `tokens`.
bool llmkit_speculator_begin(llmkit_speculator * speculator, int32_t sequence, const int32_t * tokens, int32_t count,
                             llmkit_error * error);

/// Feeds tokens the target has decoded to the speculator (a draft model decodes them too, so
/// that its cache follows the target's). At most the draft context's batch size. For
/// multi-token prediction this must be the target's last decoded batch itself, right after
/// that decode: the prediction layers read the target's hidden states of those very rows.
bool llmkit_speculator_process(llmkit_speculator * speculator, const int32_t * tokens, const int32_t * positions,
                               const int32_t * sequences, int32_t count, llmkit_error * error);

/// One sequence to draft for: the tokens in its cache (positions 0..<history_count), the
/// token sampled last (to be decoded at position history_count), and the most tokens to draft.
typedef struct llmkit_draft_request {
    int32_t         sequence;
    const int32_t * history;
    int32_t         history_count;
    int32_t         last_token;
    int32_t         maximum;
} llmkit_draft_request;

/// Drafts for every request at once (a draft model decodes all of them in the same batches).
/// Request i's draft goes to `drafts + i * stride`, its length to `counts[i]` (at most its
/// maximum and `stride`). Returns false and sets `*error` on failure.
bool llmkit_speculator_draft(llmkit_speculator * speculator, const llmkit_draft_request * requests, int32_t count,
                             int32_t * drafts, int32_t stride, int32_t * counts, llmkit_error * error);

/// Tells the speculator how many tokens of the last draft of `sequence` the target accepted.
void llmkit_speculator_accept(llmkit_speculator * speculator, int32_t sequence, int32_t accepted);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_SPECULATOR_H
