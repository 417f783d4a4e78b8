// The sampler half of the bridge: llama.cpp's common_sampler behind a C ABI.
#include "bridge_support.hpp"

#include "common.h"
#include "sampling.h"

struct llmkit_sampler {
    common_sampler * impl;
};

// Tokenizes the thinking tags the way llama-server does, so that common_sampler's
// reasoning-budget sampler can recognize and force them.
static void configure_reasoning_budget(const llama_model * model, const llmkit_sampling_params & params,
                                       common_params_sampling & sp) {
    if (params.generation_prompt) {
        sp.generation_prompt = params.generation_prompt;
    }
    if (params.reasoning_budget < 0 || !params.reasoning_start_tag || params.reasoning_end_tag_count <= 0) {
        return;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    sp.reasoning_budget_tokens = params.reasoning_budget;
    sp.reasoning_budget_start  = common_tokenize(vocab, params.reasoning_start_tag, false, true);
    for (int32_t i = 0; i < params.reasoning_end_tag_count; ++i) {
        if (params.reasoning_end_tags[i] && params.reasoning_end_tags[i][0] != '\0') {
            sp.reasoning_budget_end.push_back(common_tokenize(vocab, params.reasoning_end_tags[i], false, true));
        }
    }
    if (sp.reasoning_budget_end.empty()) {
        return;
    }
    llama_tokens forced = sp.reasoning_budget_end.front();
    if (params.reasoning_budget_message && params.reasoning_budget_message[0] != '\0') {
        llama_tokens message = common_tokenize(vocab, params.reasoning_budget_message, false, true);
        forced.insert(forced.begin(), message.begin(), message.end());
    }
    sp.reasoning_budget_forced = std::move(forced);
}

extern "C" void llmkit_string_free(char * string) {
    std::free(string);
}

extern "C" llmkit_sampling_params llmkit_sampling_defaults(void) {
    const common_params_sampling defaults;
    llmkit_sampling_params params;
    params.seed              = defaults.seed;
    params.temperature       = defaults.temp;
    params.top_k             = defaults.top_k;
    params.top_p             = defaults.top_p;
    params.min_p             = defaults.min_p;
    params.typical_p         = defaults.typ_p;
    params.penalty_last_n    = defaults.penalty_last_n;
    params.penalty_repeat    = defaults.penalty_repeat;
    params.penalty_frequency = defaults.penalty_freq;
    params.penalty_presence  = defaults.penalty_present;
    params.grammar           = nullptr;
    params.logit_bias_tokens = nullptr;
    params.logit_bias_values = nullptr;
    params.logit_bias_count  = 0;
    params.reasoning_budget         = -1;
    params.reasoning_start_tag      = nullptr;
    params.reasoning_end_tags       = nullptr;
    params.reasoning_end_tag_count  = 0;
    params.reasoning_budget_message = nullptr;
    params.generation_prompt        = nullptr;
    return params;
}

extern "C" llmkit_sampler * llmkit_sampler_create(const llama_model * model,
                                                  const llmkit_sampling_params * params,
                                                  llmkit_error * error) {
    return llmkit::guarded<llmkit_sampler *>(error, nullptr, [&]() -> llmkit_sampler * {
        if (!model || !params) {
            throw std::invalid_argument("sampler needs a model and parameters");
        }
        common_params_sampling sp;
        sp.seed            = params->seed;
        sp.temp            = params->temperature;
        sp.top_k           = params->top_k;
        sp.top_p           = params->top_p;
        sp.min_p           = params->min_p;
        sp.typ_p           = params->typical_p;
        sp.penalty_last_n  = params->penalty_last_n;
        sp.penalty_repeat  = params->penalty_repeat;
        sp.penalty_freq    = params->penalty_frequency;
        sp.penalty_present = params->penalty_presence;
        sp.no_perf         = true;
        if (params->grammar && params->grammar[0] != '\0') {
            sp.grammar = common_grammar(COMMON_GRAMMAR_TYPE_USER, params->grammar);
        }
        for (int32_t i = 0; i < params->logit_bias_count; ++i) {
            sp.logit_bias.push_back({params->logit_bias_tokens[i], params->logit_bias_values[i]});
        }
        configure_reasoning_budget(model, *params, sp);
        common_sampler * impl = common_sampler_init(model, sp);
        if (!impl) {
            throw std::runtime_error("llama.cpp could not build the sampler chain");
        }
        return new llmkit_sampler{impl};
    });
}

extern "C" int32_t llmkit_sampler_sample(llmkit_sampler * sampler, llama_context * context,
                                         int32_t index, llmkit_error * error) {
    return llmkit::guarded<int32_t>(error, -1, [&]() -> int32_t {
        if (!sampler || !context) {
            throw std::invalid_argument("sample needs a sampler and a context");
        }
        return common_sampler_sample(sampler->impl, context, index);
    });
}

extern "C" bool llmkit_sampler_accept(llmkit_sampler * sampler, int32_t token, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!sampler) {
            throw std::invalid_argument("accept needs a sampler");
        }
        common_sampler_accept(sampler->impl, token, true);
        return true;
    });
}

extern "C" void llmkit_sampler_reset(llmkit_sampler * sampler) {
    llmkit::guarded<int>(nullptr, 0, [&]() -> int {
        if (sampler) {
            common_sampler_reset(sampler->impl);
        }
        return 0;
    });
}

extern "C" uint32_t llmkit_sampler_seed(const llmkit_sampler * sampler) {
    return sampler ? common_sampler_get_seed(sampler->impl) : 0;
}

extern "C" void llmkit_sampler_free(llmkit_sampler * sampler) {
    if (sampler) {
        common_sampler_free(sampler->impl);
        delete sampler;
    }
}
