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

/// Sets the verbosity threshold of llama.cpp's `common` logger, which prints straight to
/// stdout/stderr: -1 silences it, 3 shows errors, warnings and information.
void llmkit_common_log_set_verbosity(int verbosity);

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
    // Thinking budget: after `reasoning_budget` tokens inside the thinking block, the sampler
    // forces `reasoning_budget_message` (optional) and the first end tag. -1 disables it.
    int32_t             reasoning_budget;
    const char *        reasoning_start_tag;      // e.g. "<think>", or NULL
    const char * const * reasoning_end_tags;      // e.g. {"</think>"}
    int32_t             reasoning_end_tag_count;
    const char *        reasoning_budget_message; // or NULL
    const char *        generation_prompt;        // the prompt's assistant prefix, which may open a thinking block
    // A rendered chat prompt whose tool-call grammar (lazy, with its triggers and
    // preserved tokens) constrains sampling; NULL for none. Ignored when `grammar` is set.
    const struct llmkit_chat_render * chat;
} llmkit_sampling_params;

/// llama.cpp's own defaults for `common_params_sampling`.
llmkit_sampling_params llmkit_sampling_defaults(void);

struct llmkit_chat_render;

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

/// llama.cpp's chat templates for one model (common_chat_templates): immutable
/// after creation, safe to use from several threads.
typedef struct llmkit_chat_templates llmkit_chat_templates;

/// Creates the templates. `source` is a Jinja template, or NULL / "" for the model's
/// embedded template (ChatML when it has none), or the name of one of llama.cpp's
/// built-in templates (rendered by `llama_chat_apply_template` when the request
/// says `"use_jinja": false`). Returns NULL and sets `*error` on failure.
llmkit_chat_templates * llmkit_chat_templates_create(const struct llama_model * model, const char * source,
                                                     llmkit_error * error);

/// A JSON object describing the templates: `{"source", "supports_thinking", "caps": {...}}`.
char * llmkit_chat_templates_describe(const llmkit_chat_templates * templates, llmkit_error * error);

/// Frees templates. Accepts NULL.
void llmkit_chat_templates_free(llmkit_chat_templates * templates);

/// A rendered prompt with its output parser (common_chat_params).
typedef struct llmkit_chat_render llmkit_chat_render;

/// Renders a request, a JSON object:
/// `{"messages": [OpenAI-style messages], "add_generation_prompt": bool, "enable_thinking": bool,
///   "use_jinja": bool, "kwargs": {name: JSON text}, "tools": [OpenAI tools], "tool_choice": "auto"}`.
/// Returns NULL and sets `*error` on failure.
llmkit_chat_render * llmkit_chat_render_create(const llmkit_chat_templates * templates, const char * request_json,
                                               llmkit_error * error);

/// The rendered prompt and its parameters as a JSON object: `{"prompt", "format",
/// "generation_prompt", "supports_thinking", "thinking_start_tag", "thinking_end_tags",
/// "additional_stops", "preserved_tokens", "grammar", "grammar_lazy"}`.
char * llmkit_chat_render_describe(const llmkit_chat_render * render, llmkit_error * error);

/// Parses model output with the template's parser (reasoning split out automatically).
/// Returns `{"content", "reasoning_content", "tool_calls": [{"name", "arguments", "id"}]}`.
char * llmkit_chat_render_parse(const llmkit_chat_render * render, const char * text, bool is_partial,
                                llmkit_error * error);

/// Frees a render. Accepts NULL.
void llmkit_chat_render_free(llmkit_chat_render * render);

/// Converts a JSON Schema document to a GBNF grammar (root rule `root`) with llama.cpp's
/// json_schema_to_grammar. Returns NULL and sets `*error` when the schema is invalid or
/// falls outside what llama.cpp supports.
char * llmkit_json_schema_to_grammar(const char * schema_json, llmkit_error * error);

/// Checks that llama.cpp can parse `grammar` (GBNF, root rule `root`) for `model`'s
/// vocabulary. Returns false and sets `*error` when it cannot.
bool llmkit_grammar_check(const struct llama_model * model, const char * grammar, llmkit_error * error);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_BRIDGE_H
