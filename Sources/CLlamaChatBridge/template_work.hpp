// The template work that runs contained (in a one-shot child or a worker process): parsing a
// model's templates and describing them, and rendering requests. Never run in the caller's
// process: a template is untrusted code (template_guard.hpp).
#pragma once

#include "template_guard.hpp"

#include "chat.h"

#include <string>
#include <vector>

struct llama_model;

namespace llmkit {

/// The template sources llama.cpp will parse for `source` (the model's own when it is empty).
std::vector<std::string> parsed_sources(const llama_model * model, const std::string & source);

/// One render request (JSON, as the Swift side sends it) as llama.cpp's inputs.
common_chat_templates_inputs inputs_from_request(const common_json & request);

/// Checks the sources, parses the templates, and describes them (JSON: source,
/// supports_thinking, caps). The parsed templates are left in `*parsed` when it is not null.
std::string describe_templates(const llama_model * model, const std::string & source, const template_limits & limits,
                               common_chat_templates_ptr * parsed = nullptr);

/// llama.cpp's templates for `source`; throws when they cannot be initialized.
common_chat_templates_ptr init_templates(const llama_model * model, const std::string & source);

/// Which of a model's templates llama.cpp's full path renders with one direct render: those
/// without a handler of their own, whose output parser comes from analyzing the template (which
/// renders it many times). For them, a request that wants only the prompt ("prompt_only") skips
/// the analysis and gets the same prompt.
struct direct_renders {
    /// The template of requests without tools.
    bool without_tools = false;
    /// The template of requests with tools (the `tool_use` variant where there is one).
    bool with_tools = false;
};

/// Works out `direct_renders` for `templates` (it parses the templates once more).
direct_renders find_direct_renders(const common_chat_templates * templates);

/// Renders each request (a JSON array); a request the template rejects fails alone. The
/// result, per request: 1 and the encoded parameters, or 0 and the reason (chat_params_codec).
/// A prompt-only request renders directly where `direct` says that gives the same prompt.
std::string render_requests(const common_chat_templates * templates, const std::string & requests_json,
                            const direct_renders & direct = {});

} // namespace llmkit
