// The chat half of the bridge: llama.cpp's chat templates (Jinja engine, built-in
// templates) and per-model output parsers, behind a C ABI that speaks JSON.
#include "bridge_support.hpp"
#include "chat_render.hpp"

#include <memory>

#include "json.h"

struct llmkit_chat_templates {
    common_chat_templates_ptr impl;
};

extern "C" llmkit_chat_templates * llmkit_chat_templates_create(const llama_model * model, const char * source,
                                                                llmkit_error * error) {
    return llmkit::guarded<llmkit_chat_templates *>(error, nullptr, [&]() -> llmkit_chat_templates * {
        if (!model) {
            throw std::invalid_argument("chat templates need a model"); // init would assert without one
        }
        std::string override_source = source ? source : "";
        auto impl = common_chat_templates_init(model, override_source);
        if (!impl) {
            throw std::runtime_error("llama.cpp could not initialize the chat template");
        }
        return new llmkit_chat_templates{std::move(impl)};
    });
}

extern "C" char * llmkit_chat_templates_describe(const llmkit_chat_templates * templates, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!templates) {
            throw std::invalid_argument("no templates");
        }
        common_json caps = common_json::object();
        for (const auto & [name, value] : common_chat_templates_get_caps(templates->impl.get())) {
            caps[name] = value;
        }
        common_json out = common_json::object();
        out["source"] = common_chat_templates_source(templates->impl.get());
        out["supports_thinking"] = common_chat_templates_support_enable_thinking(templates->impl.get());
        out["caps"] = caps;
        return llmkit::copy_string(out.dump_safe());
    });
}

extern "C" void llmkit_chat_templates_free(llmkit_chat_templates * templates) {
    delete templates;
}

extern "C" llmkit_chat_render * llmkit_chat_render_create(const llmkit_chat_templates * templates,
                                                          const char * request_json, llmkit_error * error) {
    return llmkit::guarded<llmkit_chat_render *>(error, nullptr, [&]() -> llmkit_chat_render * {
        if (!templates || !request_json) {
            throw std::invalid_argument("render needs templates and a request");
        }
        const common_json request = common_json::parse(request_json);
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
        // Owned until it is complete, so that a throwing parser load frees it.
        auto render = std::make_unique<llmkit_chat_render>(
            llmkit_chat_render{common_chat_templates_apply(templates->impl.get(), inputs), {}});
        render->parser = common_chat_parser_params(render->params);
        render->parser.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
        if (!render->params.parser.empty()) {
            render->parser.parser.load(render->params.parser);
        }
        return render.release();
    });
}

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
        out["grammar"]            = p.grammar;
        out["grammar_lazy"]       = p.grammar_lazy;
        common_json triggers = common_json::array();
        for (const auto & trigger : p.grammar_triggers) {
            triggers.push_back(trigger.value);
        }
        out["grammar_triggers"]   = triggers;
        return llmkit::copy_string(out.dump_safe());
    });
}

extern "C" char * llmkit_chat_render_parse(const llmkit_chat_render * render, const char * text, bool is_partial,
                                           llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!render || !text) {
            throw std::invalid_argument("parse needs a render and text");
        }
        const common_chat_msg msg = common_chat_parse(text, is_partial, render->parser);
        common_json calls = common_json::array();
        for (const auto & call : msg.tool_calls) {
            common_json item = common_json::object();
            item["name"]      = call.name;
            item["arguments"] = call.arguments;
            item["id"]        = call.id;
            calls.push_back(item);
        }
        common_json out = common_json::object();
        out["content"]           = msg.content;
        out["reasoning_content"] = msg.reasoning_content;
        out["tool_calls"]        = calls;
        return llmkit::copy_string(out.dump_safe());
    });
}

extern "C" void llmkit_chat_render_free(llmkit_chat_render * render) {
    delete render;
}
