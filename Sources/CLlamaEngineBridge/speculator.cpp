// Speculative decoding over llama.cpp's `common_speculative` (see llmkit_speculator.h).
#include "llmkit_speculator.h"
#include "llmkit_bridge_support.hpp"

#include "common.h"
#include "speculative.h"
#include "llama.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

struct llmkit_speculator {
    common_params_speculative params;
    common_speculative * speculative = nullptr;
    llama_context * draft = nullptr;
    int32_t sequence_count = 0;
    int32_t maximum_draft = 0;
    // The histories and results that the draft parameters point to during one draft call.
    std::vector<llama_tokens> histories;
    std::vector<llama_tokens> results;
    // Whether the last draft of each sequence had tokens: llama.cpp asserts that a sequence
    // that never had one accepts none.
    std::vector<bool> drafted;

    ~llmkit_speculator() { common_speculative_free(speculative); }

    void check(int32_t sequence) const {
        if (sequence < 0 || sequence >= sequence_count) {
            throw std::out_of_range("sequence " + std::to_string(sequence) + " is not one of the speculator's "
                                    + std::to_string(sequence_count));
        }
    }
};

extern "C" llmkit_speculator * llmkit_speculator_create(int32_t kind, llama_context * target, llama_context * draft,
                                                        int32_t sequence_count, int32_t maximum_draft,
                                                        int32_t ngram_length, llmkit_error * error) {
    return llmkit::guarded<llmkit_speculator *>(error, nullptr, [&]() -> llmkit_speculator * {
        if (sequence_count < 1 || sequence_count > 256) {
            throw std::invalid_argument("the speculator needs between 1 and 256 sequences");
        }
        if (maximum_draft < 1 || maximum_draft > 1024) {
            throw std::invalid_argument("the most tokens to draft must be between 1 and 1024");
        }
        auto result = std::make_unique<llmkit_speculator>();
        result->sequence_count = sequence_count;
        result->maximum_draft = maximum_draft;
        auto & params = result->params;
        switch (kind) {
        case LLMKIT_SPECULATOR_PROMPT_LOOKUP:
            if (ngram_length < 1 || ngram_length > 1024) {
                throw std::invalid_argument("the n-gram length must be between 1 and 1024");
            }
            params.types = { COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE };
            params.ngram_simple.size_n = uint16_t(ngram_length);
            params.ngram_simple.size_m = uint16_t(maximum_draft);
            break;
        case LLMKIT_SPECULATOR_DRAFT_MODEL:
            if (!target || !draft) {
                throw std::invalid_argument("a draft model needs the target's and the draft's contexts");
            }
            if (int32_t(llama_n_seq_max(draft)) != sequence_count) {
                throw std::invalid_argument("the draft context holds another number of sequences than the target's");
            }
            params.types = { COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE };
            params.draft.n_max = maximum_draft;
            params.draft.n_min = 0;
            params.draft.ctx_tgt = target;
            params.draft.ctx_dft = draft;
            result->draft = draft;
            break;
        case LLMKIT_SPECULATOR_MTP:
            if (!target || !draft || llama_get_model(target) != llama_get_model(draft)) {
                throw std::invalid_argument("multi-token prediction needs the model's context and an MTP context of the same model");
            }
            if (llama_model_n_layer_nextn(llama_get_model(target)) < 1) {
                throw std::invalid_argument("the model has no next-token-prediction layers");
            }
            if (int32_t(llama_n_seq_max(draft)) != sequence_count || llama_n_batch(draft) < llama_n_batch(target)) {
                throw std::invalid_argument("the MTP context holds fewer sequences or a smaller batch than the model's");
            }
            params.types = { COMMON_SPECULATIVE_TYPE_DRAFT_MTP };
            params.draft.n_max = maximum_draft;
            params.draft.n_min = 0;
            params.draft.p_min = 0.0f;      // every position up to n_max: the target's draws decide
            params.draft.ctx_tgt = target;
            params.draft.ctx_dft = draft;
            result->draft = draft;
            break;
        default:
            throw std::invalid_argument("unknown kind of speculation " + std::to_string(kind));
        }
        result->speculative = common_speculative_init(params, uint32_t(sequence_count));
        if (!result->speculative) {
            throw std::runtime_error("llama.cpp set up no speculative decoding");
        }
        result->histories.resize(size_t(sequence_count));
        result->results.resize(size_t(sequence_count));
        result->drafted.assign(size_t(sequence_count), false);
        return result.release();
    });
}

extern "C" void llmkit_speculator_free(llmkit_speculator * speculator) {
    delete speculator;
}

extern "C" bool llmkit_speculator_begin(llmkit_speculator * speculator, int32_t sequence, const int32_t * tokens,
                                        int32_t count, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&] {
        speculator->check(sequence);
        const llama_tokens prompt(tokens, tokens + std::max(count, 0));
        common_speculative_begin(speculator->speculative, sequence, prompt);
        return true;
    });
}

extern "C" bool llmkit_speculator_process(llmkit_speculator * speculator, const int32_t * tokens,
                                          const int32_t * positions, const int32_t * sequences, int32_t count,
                                          llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&] {
        if (!speculator->draft || count <= 0) {
            return true;        // lookup keeps no state of its own in a context
        }
        if (uint32_t(count) > llama_n_batch(speculator->draft)) {
            throw std::invalid_argument("more tokens than the draft context's batch size");
        }
        common_batch batch(speculator->draft);
        for (int32_t i = 0; i < count; ++i) {
            speculator->check(sequences[i]);
            batch.add(tokens[i], positions[i], sequences[i], false);
        }
        if (!common_speculative_process(speculator->speculative, batch)) {
            throw std::runtime_error("the draft model could not decode the target's tokens");
        }
        return true;
    });
}

extern "C" bool llmkit_speculator_draft(llmkit_speculator * speculator, const llmkit_draft_request * requests,
                                        int32_t count, int32_t * drafts, int32_t stride, int32_t * counts,
                                        llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&] {
        std::vector<bool> seen(size_t(speculator->sequence_count), false);
        for (int32_t i = 0; i < count; ++i) {
            const auto & request = requests[i];
            speculator->check(request.sequence);
            if (seen[size_t(request.sequence)]) {
                throw std::invalid_argument("sequence " + std::to_string(request.sequence) + " is drafted for twice");
            }
            seen[size_t(request.sequence)] = true;
            counts[i] = 0;
            if (request.maximum < 1 || request.history_count < 0) {
                continue;
            }
            auto & history = speculator->histories[size_t(request.sequence)];
            history.assign(request.history, request.history + request.history_count);
            auto & result = speculator->results[size_t(request.sequence)];
            result.clear();
            common_speculative_get_draft_params(speculator->speculative, request.sequence) = {
                /* .drafting = */ true,
                /* .n_max    = */ std::min({request.maximum, stride, speculator->maximum_draft}),
                /* .pos0     = */ request.history_count,
                /* .id_last  = */ request.last_token,
                /* .prompt   = */ &history,
                /* .result   = */ &result,
            };
        }
        common_speculative_draft(speculator->speculative);
        for (int32_t i = 0; i < count; ++i) {
            const auto & request = requests[i];
            if (request.maximum < 1 || request.history_count < 0) {
                continue;
            }
            const auto & result = speculator->results[size_t(request.sequence)];
            const int32_t length = std::min<int32_t>({int32_t(result.size()), request.maximum, stride});
            std::copy_n(result.begin(), length, drafts + size_t(i) * size_t(stride));
            counts[i] = length;
            speculator->drafted[size_t(request.sequence)] = length > 0;
        }
        return true;
    });
}

extern "C" void llmkit_speculator_accept(llmkit_speculator * speculator, int32_t sequence, int32_t accepted) {
    if (!speculator || sequence < 0 || sequence >= speculator->sequence_count || accepted < 0
        || !speculator->drafted[size_t(sequence)]) {
        return;
    }
    speculator->drafted[size_t(sequence)] = false;
    try {
        common_speculative_accept(speculator->speculative, sequence, uint16_t(std::min(accepted, 65535)));
    } catch (...) {
        // The statistics of an n-gram map are all this updates; nothing to report.
    }
}
