// The chat half of LocalLLMKit's C++ bridge: chat templates (parse, render and output
// parsing, each contained in a child process with bounds) and JSON Schema to GBNF.
// It builds on the engine half (errors, strings) and never the other way round.
//
// Everything here is plain C so that Swift can import it. Every function catches
// every C++ exception and reports it through an `llmkit_error` out-parameter;
// no exception ever crosses into Swift.
#ifndef LLMKIT_CHAT_H
#define LLMKIT_CHAT_H

#include "llmkit_engine.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llama_model;

/// Bounds on chat template work. llama.cpp's Jinja engine has none of its own, so every
/// template parse and render runs in another process, on a thread with a stack of
/// `stack_bytes`, with at most `memory_bytes` more memory, for at most `seconds`.
/// Start from `llmkit_template_limits_default()`.
typedef struct llmkit_template_limits {
    uint64_t source_bytes;   // longest template source
    uint32_t nesting_depth;  // deepest nesting of brackets, prefix operators and blocks
    uint32_t tag_tokens;     // most tokens in one {{ }} or {% %} tag
    uint64_t memory_bytes;
    double   seconds;
    uint64_t stack_bytes;
} llmkit_template_limits;

/// The bound a template exceeded, reported next to the error.
enum {
    LLMKIT_TEMPLATE_BOUND_NONE  = 0,
    LLMKIT_TEMPLATE_BOUND_DEPTH = 1,
    LLMKIT_TEMPLATE_BOUND_SIZE  = 2,
    LLMKIT_TEMPLATE_BOUND_TIME  = 3,
};

/// Generous bounds that every real template shipped with llama.cpp stays far within.
llmkit_template_limits llmkit_template_limits_default(void);

/// How many template runs (parses and renders) this process has had done so far in workers of a
/// model's helper process, and in a child forked for the run.
void llmkit_template_run_counts(uint64_t * in_workers, uint64_t * in_children);

/// llama.cpp's chat templates for one model: immutable after creation, safe to use from
/// several threads. The model must outlive them.
typedef struct llmkit_chat_templates llmkit_chat_templates;

/// Creates the templates, checking that llama.cpp can parse them within `limits` (NULL for the
/// defaults). `source` is a Jinja template, or NULL / "" for the model's embedded template
/// (ChatML when it has none), or the name of one of llama.cpp's built-in templates (rendered by
/// `llama_chat_apply_template` when the request says `"use_jinja": false`). `helper` (may be
/// NULL) is the model's helper process: its workers parse and render the templates; without one,
/// each parse and render forks a child. The helper must outlive the templates. Returns NULL and
/// sets `*error` on failure, and `*bound` (may be NULL) to the bound exceeded, if any.
llmkit_chat_templates * llmkit_chat_templates_create(const struct llama_model * model, llmkit_helper * helper,
                                                     const char * source, const llmkit_template_limits * limits,
                                                     int32_t * bound, llmkit_error * error);

/// A JSON object describing the templates: `{"source", "supports_thinking", "caps": {...}}`.
char * llmkit_chat_templates_describe(const llmkit_chat_templates * templates, llmkit_error * error);

/// Frees templates. Accepts NULL.
void llmkit_chat_templates_free(llmkit_chat_templates * templates);

/// A rendered prompt with its output parser (common_chat_params).
typedef struct llmkit_chat_render llmkit_chat_render;

/// Renders `count` requests, a JSON array of objects
/// `{"messages": [OpenAI-style messages], "add_generation_prompt": bool, "enable_thinking": bool,
///   "use_jinja": bool, "kwargs": {name: JSON text}, "tools": [OpenAI tools], "tool_choice": "auto"}`,
/// in one contained run, into `renders[0..<count]`. A request the template rejects gets a NULL
/// render and its message in `request_errors[i]` (else NULL). Returns false, sets `*error` and
/// `*bound` (as for creation) and fills nothing when the run itself fails.
bool llmkit_chat_renders_create(const llmkit_chat_templates * templates, const char * requests_json,
                                llmkit_chat_render ** renders, llmkit_error * request_errors, int32_t count,
                                int32_t * bound, llmkit_error * error);

/// The rendered prompt and its parameters as a JSON object: `{"prompt", "format",
/// "generation_prompt", "supports_thinking", "thinking_start_tag", "thinking_end_tags",
/// "additional_stops", "preserved_tokens", "grammar", "grammar_lazy",
/// "grammar_triggers": [{"kind": LLMKIT_TRIGGER_*, "value"}]}`. The grammar of a required call (not lazy) has
/// no triggers and no leading free text.
char * llmkit_chat_render_describe(const llmkit_chat_render * render, llmkit_error * error);

/// Parses model output with the template's parser (reasoning split out automatically).
/// Returns `{"content", "reasoning_content", "tool_calls": [{"name", "arguments", "id"}]}`.
char * llmkit_chat_render_parse(const llmkit_chat_render * render, const char * text, bool is_partial,
                                llmkit_error * error);

/// Model output split by a template's parser, as plain texts: nothing to decode but UTF-8.
typedef struct llmkit_chat_parts {
    bool   valid_utf8;        // false: the parts were not filled (use llmkit_chat_render_parse)
    char * content;           // the answer, NUL-terminated
    size_t content_length;    // its length in bytes
    char * reasoning;         // the thinking, NUL-terminated
    size_t reasoning_length;
    char * tool_calls;        // JSON array [{"name", "arguments", "id"}], "[]" when none
} llmkit_chat_parts;

/// Parses like `llmkit_chat_render_parse`, into `*parts` (free them with `llmkit_chat_parts_free`).
/// When the answer or the thinking is not valid UTF-8, sets `valid_utf8` to false and fills nothing
/// else. Returns false and sets `*error` when parsing fails.
bool llmkit_chat_render_parse_parts(const llmkit_chat_render * render, const char * text, bool is_partial,
                                    llmkit_chat_parts * parts, llmkit_error * error);

/// Frees the texts of `parts` and empties it. Accepts NULL and empty parts.
void llmkit_chat_parts_free(llmkit_chat_parts * parts);

/// The texts at which the template's output parser can change how it splits the output, as a
/// JSON object `{"delimiters": [...], "markers": [...]}`: the delimiters where the parser's
/// free-text scanners stop (a scan holds back the start of one at the end of the output), and
/// the thinking tags, preserved tokens, extra stops and grammar triggers (the literal start of a
/// pattern) the template names. Output that contains none of them (nor the start of a delimiter
/// at its end) only extends the text before it.
char * llmkit_chat_render_markers(const llmkit_chat_render * render, llmkit_error * error);

/// Frees a render. Accepts NULL.
void llmkit_chat_render_free(llmkit_chat_render * render);

/// Converts a JSON Schema document to a GBNF grammar (root rule `root`) with llama.cpp's
/// json_schema_to_grammar. Returns NULL and sets `*error` when the schema is invalid or
/// falls outside what llama.cpp supports.
char * llmkit_json_schema_to_grammar(const char * schema_json, llmkit_error * error);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_CHAT_H
