// The engine half of LocalLLMKit's C++ bridge over llama.cpp's `common` library: the
// sampler, the logger switch and the grammar check. It takes plain data only and knows
// nothing of chat templates (that is CLlamaChatBridge, which depends on this half).
//
// Everything here is plain C so that Swift can import it. Every function catches
// every C++ exception and reports it through an `llmkit_error` out-parameter;
// no exception ever crosses into Swift. Strings returned through `llmkit_error`
// are malloc'ed and must be released with `llmkit_string_free`.
#ifndef LLMKIT_ENGINE_H
#define LLMKIT_ENGINE_H

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

/// How much lower than the process background work runs (Linux `nice`): the model's helper and
/// its template workers, and the threads of the Swift side's blocking-work pool.
#define llmkit_background_niceness 10

/// Gives memory that the process freed back to the system where the allocator keeps it for reuse
/// (glibc's malloc_trim); does nothing elsewhere.
void llmkit_release_free_memory(void);

/// The build number of the llama.cpp that llama-common was built from (`LLAMA_BUILD_NUMBER`).
int llmkit_llama_build_number(void);

/// The commit of the llama.cpp that llama-common was built from (`LLAMA_COMMIT`, a short
/// hash); a static string, never freed.
const char * llmkit_llama_commit(void);

/// Sets the verbosity threshold of llama.cpp's `common` logger, which prints straight to
/// stdout/stderr: -1 silences it, 3 shows errors, warnings and information.
void llmkit_common_log_set_verbosity(int verbosity);

/// How a trigger starts a lazy grammar (llama.cpp's `common_grammar_trigger_type`).
enum {
    LLMKIT_TRIGGER_WORD         = 0,  // the text appears in the output
    LLMKIT_TRIGGER_PATTERN      = 1,  // a regular expression matches part of the output
    LLMKIT_TRIGGER_PATTERN_FULL = 2,  // a regular expression matches the whole output
};

/// Each token's first byte (or whether it ends generation), which an output grammar's sampler
/// reads to reject tokens without decoding their text: built once per model, on first use (a
/// look at every token's text), and read by any number of samplers at once.
typedef struct llmkit_token_classes llmkit_token_classes;

/// Creates the model's token classes (empty until a sampler first needs them), or NULL.
llmkit_token_classes * llmkit_token_classes_create(const struct llama_model * model);

/// Frees token classes, after every sampler given them. Accepts NULL.
void llmkit_token_classes_free(llmkit_token_classes * classes);

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
    float    xtc_probability;   // 0.0: disabled (exclude top choices)
    float    xtc_threshold;     // above 0.5: disabled
    float    dry_multiplier;    // 0.0: disabled (DRY: "don't repeat yourself")
    float    dry_base;
    int32_t  dry_allowed_length;
    int32_t  dry_penalty_last_n;              // -1: whole context, 0: disabled
    const char * const * dry_sequence_breakers; // NULL: llama.cpp's ("\n", ":", "\"", "*")
    int32_t  dry_sequence_breaker_count;
    int32_t  mirostat;          // 0: off, 1: Mirostat, 2: Mirostat 2.0 (replaces top-k … min-p)
    float    mirostat_tau;      // target entropy
    float    mirostat_eta;      // learning rate
    const int32_t * logit_bias_tokens;  // token ids whose logits are shifted…
    const float *   logit_bias_values;  // …by these amounts (-INFINITY bans a token)
    int32_t         logit_bias_count;
    // The one constraint: at most one of `grammar` and `continuation_grammar` is set.
    // `grammar`: GBNF with a `root` rule for the whole output (structured output).
    const char * grammar;
    // `continuation_grammar`: GBNF that continues `generation_prompt` (llama.cpp feeds the
    // prompt's tokens to it first). With triggers it is lazy: it applies only from the first
    // trigger on. A word trigger that is exactly one of `preserved_tokens` becomes a token trigger.
    const char *         continuation_grammar;
    const int32_t *      trigger_kinds;           // LLMKIT_TRIGGER_*
    const char * const * trigger_values;
    int32_t              trigger_count;
    const int32_t *      preserved_tokens;        // special tokens whose text the output keeps
    int32_t              preserved_token_count;
    // Run the chain over the whole vocabulary every time, never over the likeliest candidates
    // only (for tests that compare both ways).
    bool                 exhaustive;
    // What a grammar can tell of each token without its text (llmkit_token_classes_create),
    // shared by the model's samplers; NULL: the sampler builds its own when it first needs it.
    const struct llmkit_token_classes * token_classes;
    // Thinking budget: after `reasoning_budget` tokens inside the thinking block, the sampler
    // forces `reasoning_budget_message` (optional) and the first end tag. -1 disables it.
    int32_t             reasoning_budget;
    const char *        reasoning_start_tag;      // e.g. "<think>", or NULL
    const char * const * reasoning_end_tags;      // e.g. {"</think>"}
    int32_t             reasoning_end_tag_count;
    const char *        reasoning_budget_message; // or NULL
    const char *        generation_prompt;        // the prompt's assistant prefix, which may open a thinking block
} llmkit_sampling_params;

/// llama.cpp's own defaults for `common_params_sampling`.
llmkit_sampling_params llmkit_sampling_defaults(void);

/// A sampler chain built by llama.cpp's `common_sampler` (penalties, DRY, top-k, typical-p,
/// top-p, min-p, XTC, temperature, distribution or Mirostat, optional grammar).
typedef struct llmkit_sampler llmkit_sampler;

/// Creates a sampler, or returns NULL and sets `*error`.
llmkit_sampler * llmkit_sampler_create(const struct llama_model * model,
                                       const llmkit_sampling_params * params,
                                       llmkit_error * error);

/// Samples a token from the logits at output index `index` of the last decode.
/// Returns -1 and sets `*error` on failure.
int32_t llmkit_sampler_sample(llmkit_sampler * sampler, struct llama_context * context,
                              int32_t index, llmkit_error * error);

/// Whether the sampler can sample from a logits array alone (a top-k, no continuation grammar,
/// no reasoning budget; an output grammar is fine): then llmkit_sampler_sample_logits works, and
/// touches nothing but the sampler (and the model's vocabulary, read only), so different
/// samplers can sample on different threads at once.
bool llmkit_sampler_samples_logits(const llmkit_sampler * sampler);

/// Whether the sampler's chain keeps only the likeliest token (temperature 0 and nothing that
/// can lower that token): it then samples the arg-max of the logits, without the chain.
bool llmkit_sampler_is_greedy(const llmkit_sampler * sampler);

/// Samples a token from `logits` (`n_vocab` values, from llama_get_logits_ith). Only for a
/// sampler for which llmkit_sampler_samples_logits is true. Returns -1 and sets `*error` on failure.
int32_t llmkit_sampler_sample_logits(llmkit_sampler * sampler, const float * logits, int32_t n_vocab,
                                     llmkit_error * error);

/// Records an accepted token (penalties and grammar state). Returns false and
/// sets `*error` on failure (for example a token the grammar rejects).
bool llmkit_sampler_accept(llmkit_sampler * sampler, int32_t token, llmkit_error * error);

/// The text the sampler's output grammar allows next (at most `max_chars` characters, UTF-8,
/// at most `capacity` bytes of it into `out`, never half a character): where the grammar allows
/// one character, or a few of which the accepted text shows the likely one. Returns its length
/// in bytes (0 without an output grammar, or where the grammar leaves a choice), or -1 and sets
/// `*error`. The grammar's state does not change.
int32_t llmkit_sampler_grammar_draft(llmkit_sampler * sampler, int32_t max_chars, char * out, int32_t capacity,
                                     llmkit_error * error);

/// Clears the sampler's history and grammar state.
void llmkit_sampler_reset(llmkit_sampler * sampler);

/// The seed actually used (a random one when 0xFFFFFFFF was requested).
uint32_t llmkit_sampler_seed(const llmkit_sampler * sampler);

/// Frees a sampler. Accepts NULL.
void llmkit_sampler_free(llmkit_sampler * sampler);

/// Checks that llama.cpp can parse `grammar` (GBNF, root rule `root`) for `model`'s
/// vocabulary. Returns false when it cannot; llama.cpp logs the reason through its log
/// callback (collect it there), and `*error` gets a short summary.
bool llmkit_grammar_check(const struct llama_model * model, const char * grammar, llmkit_error * error);

/// A helper process, forked right after a model has loaded, while the process holds the model
/// but no inference context: it forks workers on request. A worker inherits the loaded model
/// (the same addresses) and nothing that the process allocated later, such as KV caches and
/// compute buffers, so forking one is cheap and it pins none of that memory. Workers run code
/// that must not run in this process (llama.cpp's template engine over untrusted templates).
/// Thread-safe.
typedef struct llmkit_helper llmkit_helper;

/// The code a worker runs: it talks to this process over `socket` and returns (or exits) when
/// done. `argument` and `variant` are the values given to `llmkit_helper_acquire`.
typedef void (*llmkit_worker_entry)(int socket, const void * argument, uint64_t variant);

/// A worker: this process's end of its socket, and its process id.
typedef struct llmkit_worker {
    int     socket;
    int64_t pid;
} llmkit_worker;

/// Forks the helper. Returns NULL where processes cannot be forked (the callers then do their
/// work another way).
llmkit_helper * llmkit_helper_start(void);

/// The helper's process id (for diagnostics and tests).
int64_t llmkit_helper_pid(const llmkit_helper * helper);

/// Ends the helper and its idle workers. Workers still in use end when their socket is closed.
void llmkit_helper_stop(llmkit_helper * helper);

/// An idle worker that runs `entry` with `argument` and `variant`, or a new one. Returns false
/// when none can be started.
bool llmkit_helper_acquire(llmkit_helper * helper, llmkit_worker_entry entry, const void * argument,
                           uint64_t variant, llmkit_worker * worker);

/// Gives back a worker that answered in full and may serve again (acquired with these values).
void llmkit_helper_release(llmkit_helper * helper, llmkit_worker_entry entry, const void * argument,
                           uint64_t variant, llmkit_worker worker);

/// Ends a worker that must not serve again: closes its socket, kills it, waits for it, and
/// returns its wait status (as from waitpid), or -1 when it is not known.
int llmkit_helper_end(llmkit_helper * helper, llmkit_worker worker);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_ENGINE_H
