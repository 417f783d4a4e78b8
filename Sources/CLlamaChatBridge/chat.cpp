// The chat half of the bridge: llama.cpp's chat templates (Jinja engine, built-in
// templates) and per-model output parsers, behind a C ABI that speaks JSON. Templates are
// parsed and rendered only in contained child processes (template_guard.hpp).
#include "llmkit_bridge_support.hpp"
#include "llmkit_chat.h"
#include "chat_params_codec.hpp"
#include "chat_render.hpp"
#include "template_guard.hpp"
#include "template_work.hpp"

#include <cctype>
#include <cstdlib>
#include <new>
#include <memory>
#include <vector>

#include "json.h"

#include <regex>

struct llmkit_chat_templates {
    /// Borrowed: the caller keeps the model alive as long as the templates.
    const llama_model * model;
    /// Borrowed, may be null: the model's helper process, whose workers run the templates.
    llmkit_helper * helper;
    /// The override as given: Jinja source, a built-in name, or "" for the model's own.
    std::string source;
    llmkit::template_limits limits;
    /// What the child that parsed the template reported (JSON).
    std::string description;
};

namespace {

llmkit::template_limits limits_from(const llmkit_template_limits * limits) {
    const llmkit_template_limits given = limits ? *limits : llmkit_template_limits_default();
    return {std::size_t(given.source_bytes), std::size_t(given.nesting_depth), std::size_t(given.tag_tokens),
            std::size_t(given.memory_bytes), given.seconds, std::size_t(given.stack_bytes)};
}

/// Runs `body` like llmkit::guarded, and reports in `*bound` which bound a template exceeded.
template <typename Result, typename Body>
Result guarded_template(int32_t * bound, llmkit_error * error, Result fallback, Body && body) {
    if (bound) {
        *bound = LLMKIT_TEMPLATE_BOUND_NONE;
    }
    return llmkit::guarded<Result>(error, fallback, [&]() -> Result {
        try {
            return body();
        } catch (const llmkit::template_limit_error & e) {
            if (bound) {
                *bound = int32_t(e.bound);
            }
            throw;
        }
    });
}

} // namespace

extern "C" llmkit_template_limits llmkit_template_limits_default(void) {
    llmkit_template_limits limits;
    limits.source_bytes  = 256u << 10;  // the largest real template is about 17 KiB
    limits.nesting_depth = 100;         // real ones: under 15
    limits.tag_tokens    = 2048;        // real ones: a few hundred
    limits.memory_bytes  = 512u << 20;  // real ones: about 20 times the prompt
    limits.seconds       = 20;          // real ones: under 1 s for a 300 KB prompt with 40 tools
    limits.stack_bytes   = 64u << 20;   // real ones: under 64 KiB
    return limits;
}

extern "C" void llmkit_template_run_counts(uint64_t * in_workers, uint64_t * in_children) {
    if (in_workers) {
        *in_workers = llmkit::worker_run_count();
    }
    if (in_children) {
        *in_children = llmkit::child_run_count();
    }
}

extern "C" llmkit_chat_templates * llmkit_chat_templates_create(const llama_model * model, llmkit_helper * helper,
                                                                const char * source,
                                                                const llmkit_template_limits * limits,
                                                                int32_t * bound, llmkit_error * error) {
    return guarded_template<llmkit_chat_templates *>(bound, error, nullptr, [&]() -> llmkit_chat_templates * {
        if (!model) {
            throw std::invalid_argument("chat templates need a model"); // init would assert without one
        }
        auto templates = std::make_unique<llmkit_chat_templates>();
        templates->model = model;
        templates->helper = helper;
        templates->source = source ? source : "";
        templates->limits = limits_from(limits);
        for (const auto & text : llmkit::parsed_sources(model, templates->source)) {
            llmkit::check_template_size(text, templates->limits);
        }
        if (!llmkit::run_in_worker(helper, model, templates->limits, llmkit::template_work_kind::describe,
                                   templates->source, "", templates->description)) {
            templates->description = llmkit::run_contained(templates->limits, [&]() -> std::string {
                return llmkit::describe_templates(model, templates->source, templates->limits);
            });
        }
        return templates.release();
    });
}

extern "C" char * llmkit_chat_templates_describe(const llmkit_chat_templates * templates, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!templates) {
            throw std::invalid_argument("no templates");
        }
        return llmkit::copy_string(templates->description);
    });
}

extern "C" void llmkit_chat_templates_free(llmkit_chat_templates * templates) {
    delete templates;
}

extern "C" bool llmkit_chat_renders_create(const llmkit_chat_templates * templates, const char * requests_json,
                                           llmkit_chat_render ** renders, llmkit_error * request_errors,
                                           int32_t count, int32_t * bound, llmkit_error * error) {
    return guarded_template<bool>(bound, error, false, [&]() -> bool {
        if (!templates || !requests_json || !renders || !request_errors || count < 0) {
            throw std::invalid_argument("render needs templates, requests and room for the renders");
        }
        const common_json requests = common_json::parse(requests_json);
        if (!requests.is_array() || requests.size() != std::size_t(count)) {
            throw std::invalid_argument("render needs a JSON array of " + std::to_string(count) + " requests");
        }
        // Each request is parsed here, so that bad JSON is reported before a process starts.
        for (const auto & request : requests) {
            llmkit::inputs_from_request(request);
        }
        std::string rendered;
        if (!llmkit::run_in_worker(templates->helper, templates->model, templates->limits,
                                   llmkit::template_work_kind::render, templates->source, requests_json, rendered)) {
            rendered = llmkit::run_contained(templates->limits, [&]() -> std::string {
                const auto impl = llmkit::init_templates(templates->model, templates->source);
                return llmkit::render_requests(impl.get(), requests_json);
            });
        }
        llmkit::byte_reader in(rendered);
        std::vector<std::unique_ptr<llmkit_chat_render>> made;
        std::vector<std::string> failures;
        for (int32_t i = 0; i < count; ++i) {
            if (in.u64() == 0) {
                failures.push_back(in.text());
                made.emplace_back();
                continue;
            }
            // Owned until complete, so that a throwing parser load frees it.
            auto render = std::make_unique<llmkit_chat_render>(llmkit_chat_render{llmkit::decode_chat_params(in), {}});
            render->parser = common_chat_parser_params(render->params);
            render->parser.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
            if (!render->params.parser.empty()) {
                render->parser.parser.load(render->params.parser);
            }
            failures.emplace_back();
            made.push_back(std::move(render));
        }
        if (!in.at_end()) {
            throw std::runtime_error("the rendered prompts came back with extra bytes");
        }
        for (int32_t i = 0; i < count; ++i) {
            renders[i] = made[std::size_t(i)].release();
            request_errors[i] = renders[i] ? nullptr : llmkit::copy_string(failures[std::size_t(i)]);
        }
        return true;
    });
}

namespace {

// A required tool call (a grammar that is not lazy) should start at once, but llama.cpp's
// generated root rule lets free text come first (`... until-12? tool-calls`); a small
// model then writes text until the token limit and never calls. This removes that
// optional text from the root rule, leaving the thinking block and the calls.
std::string without_leading_content(const std::string & grammar) {
    static const std::regex leading(R"( until-[0-9]+\??( space)? (tool-call))");
    std::string out;
    size_t start = 0;
    while (start < grammar.size()) {
        size_t end = grammar.find('\n', start);
        if (end == std::string::npos) end = grammar.size();
        std::string line = grammar.substr(start, end - start);
        if (line.rfind("root ::=", 0) == 0) {
            line = std::regex_replace(line, leading, "$1 $2");
        }
        out += line;
        if (end < grammar.size()) out += '\n';
        start = end + 1;
    }
    return out;
}

} // namespace

extern "C" char * llmkit_chat_render_describe(const llmkit_chat_render * render, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!render) {
            throw std::invalid_argument("no render");
        }
        const auto & p = render->params;
        common_json out = common_json::object();
        out["prompt"]             = p.prompt;
        out["format"]             = common_chat_format_name(p.format);
        out["generation_prompt"]  = p.generation_prompt;
        out["supports_thinking"]  = p.supports_thinking;
        out["thinking_start_tag"] = p.thinking_start_tag;
        out["thinking_end_tags"]  = p.thinking_end_tags;
        out["additional_stops"]   = p.additional_stops;
        out["preserved_tokens"]   = p.preserved_tokens;
        // The tool-call grammar as the engine's sampler takes it: lazy with its triggers, or
        // (a required call) without triggers and without the leading free text.
        out["grammar"]            = p.grammar_lazy ? p.grammar : without_leading_content(p.grammar);
        out["grammar_lazy"]       = p.grammar_lazy;
        common_json triggers = common_json::array();
        if (p.grammar_lazy) {
            for (const auto & trigger : p.grammar_triggers) {
                int kind = LLMKIT_TRIGGER_WORD;
                switch (trigger.type) {
                    case COMMON_GRAMMAR_TRIGGER_TYPE_WORD:         kind = LLMKIT_TRIGGER_WORD; break;
                    case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN:      kind = LLMKIT_TRIGGER_PATTERN; break;
                    case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL: kind = LLMKIT_TRIGGER_PATTERN_FULL; break;
                    case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN:        kind = LLMKIT_TRIGGER_WORD; break;  // its text, as a word
                }
                triggers.push_back({{"kind", kind}, {"value", trigger.value}});
            }
            if (triggers.empty() && !p.grammar.empty()) {
                throw std::runtime_error("the template's tool-call grammar is lazy but has no trigger");
            }
        }
        out["grammar_triggers"]   = triggers;
        return llmkit::copy_string(out.dump_safe());
    });
}

namespace {

/// The tool calls of a parsed message, as the JSON array both parse functions return.
common_json tool_calls_json(const common_chat_msg & msg) {
    common_json calls = common_json::array();
    for (const auto & call : msg.tool_calls) {
        common_json item = common_json::object();
        item["name"]      = call.name;
        item["arguments"] = call.arguments;
        item["id"]        = call.id;
        calls.push_back(item);
    }
    return calls;
}

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool is_valid_utf8(const std::string & text) {
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;
        if (c < 0x80) { i += 1; continue; }
        else if (c >= 0xC2 && c <= 0xDF) length = 2;
        else if (c >= 0xE0 && c <= 0xEF) { length = 3; if (c == 0xE0) low = 0xA0; if (c == 0xED) high = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { length = 4; if (c == 0xF0) low = 0x90; if (c == 0xF4) high = 0x8F; }
        else return false;
        if (i + length > text.size()) return false;
        for (size_t k = 1; k < length; ++k) {
            const unsigned char next = static_cast<unsigned char>(text[i + k]);
            if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) return false;
        }
        i += length;
    }
    return true;
}

} // namespace

extern "C" char * llmkit_chat_render_parse(const llmkit_chat_render * render, const char * text, bool is_partial,
                                           llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!render || !text) {
            throw std::invalid_argument("parse needs a render and text");
        }
        const common_chat_msg msg = common_chat_parse(text, is_partial, render->parser);
        common_json out = common_json::object();
        out["content"]           = msg.content;
        out["reasoning_content"] = msg.reasoning_content;
        out["tool_calls"]        = tool_calls_json(msg);
        return llmkit::copy_string(out.dump_safe());
    });
}

extern "C" bool llmkit_chat_render_parse_parts(const llmkit_chat_render * render, const char * text, bool is_partial,
                                               llmkit_chat_parts * parts, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!render || !text || !parts) {
            throw std::invalid_argument("parse needs a render, text and room for the parts");
        }
        *parts = llmkit_chat_parts{};
        const common_chat_msg msg = common_chat_parse(text, is_partial, render->parser);
        parts->valid_utf8 = is_valid_utf8(msg.content) && is_valid_utf8(msg.reasoning_content);
        if (!parts->valid_utf8) {
            return true;
        }
        const std::string calls = msg.tool_calls.empty() ? std::string("[]") : tool_calls_json(msg).dump_safe();
        parts->content = llmkit::copy_string(msg.content);
        parts->reasoning = llmkit::copy_string(msg.reasoning_content);
        parts->tool_calls = llmkit::copy_string(calls);
        if (!parts->content || !parts->reasoning || !parts->tool_calls) {
            llmkit_chat_parts_free(parts);
            throw std::bad_alloc();
        }
        parts->content_length = msg.content.size();
        parts->reasoning_length = msg.reasoning_content.size();
        return true;
    });
}

extern "C" void llmkit_chat_parts_free(llmkit_chat_parts * parts) {
    if (!parts) {
        return;
    }
    std::free(parts->content);
    std::free(parts->reasoning);
    std::free(parts->tool_calls);
    *parts = llmkit_chat_parts{};
}

namespace {

// The literal text a grammar trigger pattern starts with (after a leading `^`), up to the first
// regex construct: `>>>(?!all)` gives `>>>`, `^\s+to$` gives nothing.
std::string literal_prefix(const std::string & pattern) {
    static const std::string meta = ".^$|?*+()[]{}\\";
    std::string out;
    size_t i = !pattern.empty() && pattern[0] == '^' ? 1 : 0;
    while (i < pattern.size()) {
        char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size() && std::ispunct(static_cast<unsigned char>(pattern[i + 1]))) {
            c = pattern[i + 1];
            i += 2;
        } else if (meta.find(c) != std::string::npos) {
            break;
        } else {
            i += 1;
        }
        // A quantifier after a character makes it optional or repeated: it is not part of the prefix.
        if (i < pattern.size() && (pattern[i] == '?' || pattern[i] == '*' || pattern[i] == '{')) {
            break;
        }
        out += c;
    }
    return out;
}

} // namespace

extern "C" char * llmkit_chat_render_markers(const llmkit_chat_render * render, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!render) {
            throw std::invalid_argument("no render");
        }
        const auto & p = render->params;
        std::vector<std::string> delimiters, markers;
        auto add = [](std::vector<std::string> & list, const std::string & marker) {
            if (!marker.empty()) {
                list.push_back(marker);
            }
        };
        // Free text ends where the parser's scanners (`until`, `ac`) stop: at their delimiters.
        if (!p.parser.empty()) {
            common_json arena = common_json::parse(p.parser);
            common_json parsers = arena.contains("parsers") ? arena.at("parsers") : common_json::array();
            for (size_t i = 0; i < parsers.size(); ++i) {
                common_json parser = parsers[i];
                const std::string type = parser.contains("type") ? parser.at("type").get<std::string>() : "";
                if ((type == "until" || type == "ac") && parser.contains("delimiters")) {
                    common_json found = parser.at("delimiters");
                    for (size_t k = 0; k < found.size(); ++k) {
                        add(delimiters, found[k].get<std::string>());
                    }
                }
            }
        }
        add(markers, p.thinking_start_tag);
        for (const auto & tag : p.thinking_end_tags) add(markers, tag);
        for (const auto & token : p.preserved_tokens) add(markers, token);
        for (const auto & stop : p.additional_stops) add(markers, stop);
        for (const auto & trigger : p.grammar_triggers) {
            const bool pattern = trigger.type == COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN
                || trigger.type == COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL;
            add(markers, pattern ? literal_prefix(trigger.value) : trigger.value);
        }
        common_json out = common_json::object();
        out["delimiters"] = delimiters;
        out["markers"] = markers;
        return llmkit::copy_string(out.dump_safe());
    });
}

extern "C" void llmkit_chat_render_free(llmkit_chat_render * render) {
    delete render;
}
