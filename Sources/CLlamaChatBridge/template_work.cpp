// The contained template work (template_work.hpp).
#include "template_work.hpp"

#include "chat_params_codec.hpp"

#include "json.h"
#include "llama.h"

#include <stdexcept>

namespace llmkit {

std::vector<std::string> parsed_sources(const llama_model * model, const std::string & source) {
    if (!source.empty()) {
        return {source};
    }
    std::vector<std::string> sources;
    for (const char * name : {static_cast<const char *>(nullptr), "tool_use"}) {
        if (const char * text = llama_model_chat_template(model, name)) {
            sources.emplace_back(text);
        }
    }
    return sources;
}

common_chat_templates_inputs inputs_from_request(const common_json & request) {
    common_chat_templates_inputs inputs;
    inputs.messages              = common_chat_msgs_parse_oaicompat(request.at("messages"));
    inputs.add_generation_prompt = request.value("add_generation_prompt", true);
    inputs.enable_thinking       = request.value("enable_thinking", false);
    inputs.use_jinja             = request.value("use_jinja", true);
    inputs.reasoning_format      = COMMON_REASONING_FORMAT_AUTO;
    if (request.contains("kwargs")) {
        for (const auto & [name, value] : request.at("kwargs").items()) {
            inputs.chat_template_kwargs[name] = value.get<std::string>();
        }
    }
    if (request.contains("tools") && !request.at("tools").empty()) {
        inputs.tools = common_chat_tools_parse_oaicompat(request.at("tools"));
        inputs.tool_choice = common_chat_tool_choice_parse_oaicompat(request.value("tool_choice", "auto"));
        inputs.parallel_tool_calls = request.value("parallel_tool_calls", false);
    }
    return inputs;
}

common_chat_templates_ptr init_templates(const llama_model * model, const std::string & source) {
    auto templates = common_chat_templates_init(model, source);
    if (!templates) {
        throw std::runtime_error("llama.cpp could not initialize the chat template");
    }
    return templates;
}

std::string describe_templates(const llama_model * model, const std::string & source, const template_limits & limits,
                               common_chat_templates_ptr * parsed) {
    const auto sources = parsed_sources(model, source);
    for (const auto & text : sources) {
        check_template_source(text, limits);
    }
    // llama.cpp rethrows a parse error as a plain std::exception (its message lost, only
    // logged): parse the main template once here, so that the error says what is wrong.
    if (!sources.empty()) {
        try {
            common_chat_template probe(sources.front(), "", "");
        } catch (const template_limit_error &) {
            throw;
        } catch (const std::exception & e) {
            throw std::runtime_error(std::string("the template cannot be parsed: ") + e.what());
        }
    }
    auto templates = init_templates(model, source);
    common_json caps = common_json::object();
    for (const auto & [name, value] : common_chat_templates_get_caps(templates.get())) {
        caps[name] = value;
    }
    common_json out = common_json::object();
    out["source"] = common_chat_templates_source(templates.get());
    out["supports_thinking"] = common_chat_templates_support_enable_thinking(templates.get());
    out["caps"] = caps;
    if (parsed) {
        *parsed = std::move(templates);
    }
    return out.dump_safe();
}

std::string render_requests(const common_chat_templates * templates, const std::string & requests_json,
                            const direct_renders & direct) {
    const common_json requests = common_json::parse(requests_json);
    std::vector<common_chat_templates_inputs> inputs;
    for (const auto & request : requests) {
        inputs.push_back(inputs_from_request(request));
        auto & input = inputs.back();
        if (request.value("prompt_only", false)) {
            input.force_pure_content = input.tools.empty() ? direct.without_tools : direct.with_tools;
        }
    }
    // A request the template rejects (raise_exception…) fails alone; a bound ends the run.
    byte_writer out;
    for (const auto & input : inputs) {
        byte_writer one;
        try {
            encode_chat_params(one, common_chat_templates_apply(templates, input));
            out.u64(1);
            out.bytes += one.bytes;
        } catch (const template_limit_error &) {
            throw;
        } catch (const std::exception & e) {
            out.u64(0);
            out.text(e.what());
        }
    }
    return out.bytes;
}

} // namespace llmkit
