// Whether llama.cpp can parse a GBNF grammar. llama.cpp reports why not through its log
// callback (LLAMA_LOG_ERROR), which the Swift side collects for the task that asked; nothing
// is redirected. (LocalLLMKit's own grammar scanner names most problems before this runs.)
#include "llmkit_bridge_support.hpp"

#include "llama.h"

extern "C" bool llmkit_grammar_check(const llama_model * model, const char * grammar, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!model || !grammar) {
            throw std::invalid_argument("grammar check needs a model and a grammar");
        }
        llama_sampler * sampler = llama_sampler_init_grammar(llama_model_get_vocab(model), grammar, "root");
        if (!sampler) {
            throw std::invalid_argument("llama.cpp cannot parse the grammar");
        }
        llama_sampler_free(sampler);
        return true;
    });
}
