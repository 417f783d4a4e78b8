// Which templates llama.cpp renders with one direct render (template_work.hpp: direct_renders).
#include "template_work.hpp"

#include "chat-auto-parser.h"

#include <stdexcept>

namespace llmkit {
namespace {

// Whether llama.cpp's full path renders `source` directly: it has no handler of its own for it
// (common_chat_try_specialized_template picks one by the source alone). A handler may render
// the messages its own way (Ministral moves thinking into the content), so a template whose
// check fails counts as having one.
bool renders_directly(const std::string & source) {
    try {
        common_chat_template tmpl(source, "", "");
        autoparser::generation_params params;
        params.messages = common_json::array({{{"role", "user"}, {"content", "x"}}});
        params.add_generation_prompt = true;
        return !common_chat_try_specialized_template(tmpl, source, params).has_value();
    } catch (const template_limit_error &) {
        throw;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace

direct_renders find_direct_renders(const common_chat_templates * templates) {
    const std::string source = common_chat_templates_source(templates);
    const std::string tool_use = common_chat_templates_source(templates, "tool_use");
    direct_renders found;
    found.without_tools = renders_directly(source);
    found.with_tools = tool_use.empty() ? found.without_tools : renders_directly(tool_use);
    return found;
}

} // namespace llmkit
