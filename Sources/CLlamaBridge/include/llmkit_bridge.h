// LocalLLMKit's C++ bridge over llama.cpp's `common` library.
//
// Everything here is plain C so that Swift can import it. Every function catches
// every C++ exception and reports it through an `llmkit_error` out-parameter;
// no exception ever crosses into Swift. Strings returned through `llmkit_error`
// are malloc'ed and must be released with `llmkit_string_free`.
#ifndef LLMKIT_BRIDGE_H
#define LLMKIT_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llama_model;
struct llama_context;

/// An error message produced by the bridge, or NULL when the call succeeded.
typedef char * llmkit_error;

/// Releases a string returned by the bridge. Accepts NULL.
void llmkit_string_free(char * string);

/// Sampling parameters, mirroring the subset of llama.cpp's `common_params_sampling`
/// that LocalLLMKit exposes. Start from `llmkit_sampling_defaults()`.
typedef struct llmkit_sampling_params {
    uint32_t seed;              // 0xFFFFFFFF = random
    float    temperature;       // <= 0: greedy
    int32_t  top_k;             // <= 0: whole vocabulary
    float    top_p;             // 1.0: disabled
    float    min_p;             // 0.0: disabled
    float    typical_p;         // 1.0: disabled
    int32_t  penalty_last_n;    // 0: no penalties, -1: whole context
    float    penalty_repeat;    // 1.0: disabled
    float    penalty_frequency; // 0.0: disabled
    float    penalty_presence;  // 0.0: disabled
    const char * grammar;       // GBNF with a `root` rule, or NULL
    const int32_t * logit_bias_tokens;  // token ids whose logits are shifted…
    const float *   logit_bias_values;  // …by these amounts (-INFINITY bans a token)
    int32_t         logit_bias_count;
} llmkit_sampling_params;

/// llama.cpp's own defaults for `common_params_sampling`.
llmkit_sampling_params llmkit_sampling_defaults(void);

/// A sampler chain built by llama.cpp's `common_sampler` (penalties, top-k,
/// typical-p, top-p, min-p, temperature, distribution, optional grammar).
typedef struct llmkit_sampler llmkit_sampler;

/// Creates a sampler, or returns NULL and sets `*error`.
llmkit_sampler * llmkit_sampler_create(const struct llama_model * model,
                                       const llmkit_sampling_params * params,
                                       llmkit_error * error);

/// Samples a token from the logits at output index `index` of the last decode.
/// Returns -1 and sets `*error` on failure.
int32_t llmkit_sampler_sample(llmkit_sampler * sampler, struct llama_context * context,
                              int32_t index, llmkit_error * error);

/// Records an accepted token (penalties and grammar state). Returns false and
/// sets `*error` on failure (for example a token the grammar rejects).
bool llmkit_sampler_accept(llmkit_sampler * sampler, int32_t token, llmkit_error * error);

/// Clears the sampler's history and grammar state.
void llmkit_sampler_reset(llmkit_sampler * sampler);

/// The seed actually used (a random one when 0xFFFFFFFF was requested).
uint32_t llmkit_sampler_seed(const llmkit_sampler * sampler);

/// Frees a sampler. Accepts NULL.
void llmkit_sampler_free(llmkit_sampler * sampler);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_BRIDGE_H
