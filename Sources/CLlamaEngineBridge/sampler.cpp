// The sampler half of the bridge: llama.cpp's common_sampler behind a C ABI.
#include <string>
#include "llmkit_bridge_support.hpp"
#include "grammar_draft.hpp"

#include "common.h"
#include "sampling.h"

#include <cmath>
#include <algorithm>
#include <bitset>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

// Each token's class (see token_class), filled once, on first use, and
// shared by the samplers of one model (llmkit_token_classes_create).
struct llmkit_token_classes {
    const llama_vocab *           vocab = nullptr;
    mutable std::once_flag        filled;
    mutable std::vector<uint16_t> classes;
};

// A common_sampler for the chain (penalties, top-k, top-p, min-p, temperature, draw),
// plus, for output grammars, our own grammar (llama.cpp's, held here rather than in a grammar
// sampler, so that grammar_draft.cpp can read its stacks). When the chain's token breaks
// the grammar, common_sampler would check the grammar against the whole vocabulary
// (262k tokens for Gemma) before sampling again. We first check only the most likely
// tokens (by raw logit, plus any with a positive bias) and run the chain over those
// that fit: the same result whenever enough allowed tokens are among them for the
// chain's top-k, at a fraction of the cost. Only when none fits do we check the whole
// vocabulary. A grammar that allows no token at all is an error, not an abort.
//
// The same idea makes every sample cheap, with an output grammar or without. The chain's top-k keeps the k
// likeliest tokens after the logit bias and the penalties, and neither can lift a token
// unless it is boosted (penalties of at least 1 and 0 only lower logits; the penalty window
// and the negative biases lower at most `slack` tokens). So the k + slack likeliest tokens by
// raw logit, plus the boosted ones, hold every token the chain's top-k can keep, and the chain
// run over them draws what it draws over the whole vocabulary, with the same random state.
// This keeps llama.cpp's chain and order; it only spares building and partially sorting the
// whole vocabulary's array for each token (docs/PERFORMANCE.md, "Sampling over candidates").
//
// A greedy chain (temperature 0, and nothing that can lower the likeliest token: no penalties,
// no logit bias, no suppressed tokens, no typical-p, XTC or DRY) keeps only the token with the
// largest logit, and its final draw takes that one: the arg-max of the logits is the chain's
// token, found without the chain (18 instead of 40 us a draw with a 49k vocabulary, text work
// included). Its accept still runs; the final draw's random state does not advance, and no
// greedy draw reads it.
//
// With an output grammar, such a sampler draws first as though there were none and checks that
// one token; only when it breaks the grammar does it look for allowed tokens, likeliest first,
// in chunks, until the chain's top-k is sure to be among them (resample_likeliest).
struct llmkit_sampler {
    common_sampler *         impl    = nullptr;
    llama_grammar *          grammar = nullptr;
    const llama_vocab *      vocab   = nullptr;
    std::string              grammar_text;  // to build the grammar again on reset
    std::string              history;       // the last accepted text, for grammar drafts
    std::string              draft;         // the last grammar draft, less what was accepted of it since
    std::vector<llama_token> boosted;      // tokens with a positive logit bias
    size_t                   prefilter = 0; // candidates the chain needs; 0: the whole vocabulary
    bool                     greedy    = false; // the chain keeps only the likeliest token (see below)
    std::vector<llama_token_data> heap;    // the candidates; reused by sample_prefiltered and resample_likeliest
    std::vector<llama_token_data> likely;  // the likeliest tokens, in order; reused by resample_likeliest
    const llmkit_token_classes * classes = nullptr;  // the model's, or `own_classes`
    std::unique_ptr<llmkit_token_classes> own_classes;
    std::vector<float>       maxima;       // per block of logits; reused
    std::vector<float>       order;        // a copy of maxima to select from; reused
};

namespace {

constexpr size_t likely_candidates = 1024;

// The accepted text a grammar draft looks back on (see grammar_draft.cpp).
constexpr size_t history_bytes = 512;

bool grammar_allows(llama_grammar * grammar, llama_token token) {
    llama_token_data data = {token, 1.0f, 0.0f};
    llama_token_data_array single = {&data, 1, -1, false};
    llama_grammar_apply_impl(*grammar, &single);
    return std::isfinite(single.data[0].logit);
}

// Applies the grammar, then the chain (logit bias included), to `candidates`;
// LLAMA_TOKEN_NULL when no candidate survives both.
llama_token sample_allowed(llmkit_sampler & s, std::vector<llama_token_data> & candidates) {
    llama_token_data_array array = {candidates.data(), candidates.size(), -1, false};
    llama_grammar_apply_impl(*s.grammar, &array);
    bool any = false;
    for (size_t i = 0; i < array.size && !any; ++i) {
        any = std::isfinite(array.data[i].logit);
    }
    if (!any) {
        return LLAMA_TOKEN_NULL;
    }
    llama_sampler_apply(common_sampler_get(s.impl), &array);
    if (array.selected < 0 || !std::isfinite(array.data[array.selected].logit)) {
        return LLAMA_TOKEN_NULL;       // e.g. every allowed candidate is banned by a logit bias
    }
    return array.data[array.selected].id;
}

llama_token resample_with_grammar(llmkit_sampler & s, llama_context * ctx, int32_t index) {
    const llama_vocab * vocab = llama_model_get_vocab(llama_get_model(ctx));
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    const float * logits = llama_get_logits_ith(ctx, index);
    std::vector<llama_token_data> all(n_vocab);
    for (int32_t id = 0; id < n_vocab; ++id) {
        all[id] = {id, logits[id], 0.0f};
    }
    if (all.size() > likely_candidates) {
        std::vector<llama_token_data> likely(all.begin(), all.end());
        std::nth_element(likely.begin(), likely.begin() + likely_candidates, likely.end(),
                         [](const llama_token_data & a, const llama_token_data & b) { return a.logit > b.logit; });
        likely.resize(likely_candidates);
        for (llama_token id : s.boosted) {
            const bool present = std::any_of(likely.begin(), likely.end(),
                                             [id](const llama_token_data & data) { return data.id == id; });
            if (!present) {
                likely.push_back(all[id]);     // once: a duplicate would double its probability
            }
        }
        const llama_token token = sample_allowed(s, likely);
        if (token != LLAMA_TOKEN_NULL) {
            return token;
        }
    }
    const llama_token token = sample_allowed(s, all);
    if (token == LLAMA_TOKEN_NULL) {
        throw std::runtime_error("no token is both allowed by the grammar and left by the sampling options (logit bias)");
    }
    return token;
}

// Logits are scanned in blocks of this many, eight lanes at a time (the compiler vectorizes it).
constexpr int32_t logit_block = 64;

// The largest of logits[begin..<end] (-inf when all are -inf or NaN); inlined, so that each
// caller's loop vectorizes as one.
[[gnu::always_inline]] inline float block_max(const float * logits, int32_t begin, int32_t end) {
    float lanes[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int32_t i = begin;
    for (; i + 8 <= end; i += 8) {
        for (int lane = 0; lane < 8; ++lane) {
            lanes[lane] = logits[i + lane] > lanes[lane] ? logits[i + lane] : lanes[lane];
        }
    }
    float m = -INFINITY;
    for (int lane = 0; lane < 8; ++lane) m = lanes[lane] > m ? lanes[lane] : m;
    for (; i < end; ++i) m = logits[i] > m ? logits[i] : m;
    return m;
}

// The first token with the largest logit (what a greedy chain draws; see llmkit_sampler).
llama_token arg_max(const float * logits, int32_t n_vocab) {
    constexpr int32_t block = logit_block;
    float best = -INFINITY;
    int32_t best_block = 0;
    for (int32_t begin = 0; begin < n_vocab; begin += block) {
        const float m = block_max(logits, begin, std::min(begin + block, n_vocab));
        if (m > best) {
            best = m;
            best_block = begin;
        }
    }
    for (int32_t id = best_block; id < std::min(best_block + block, n_vocab); ++id) {
        if (logits[id] == best) {
            return id;
        }
    }
    return best_block;             // every logit is -inf or NaN: the first token, as the chain's order has it
}

// Likelier first; among equal logits the lower id, so that every selection below agrees on
// which tokens are the likeliest n.
bool likelier(const llama_token_data & a, const llama_token_data & b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

// The `count` likeliest tokens by raw logit into `out`, in no particular order (all of them
// when the vocabulary is smaller). The maximum of every block of `block` logits; the count-th
// largest of those maxima is a threshold that at least `count` logits reach, so every one of
// the likeliest tokens is in a block whose maximum reaches it.
void collect_likeliest(llmkit_sampler & s, const float * logits, int32_t n_vocab, size_t count, int32_t block,
                       std::vector<llama_token_data> & out) {
    const int32_t n_blocks = (n_vocab + block - 1) / block;
    auto & maxima = s.maxima;
    maxima.resize(n_blocks);
    for (int32_t b = 0; b < n_blocks; ++b) {
        maxima[b] = block_max(logits, b * block, std::min(b * block + block, n_vocab));
    }
    // With fewer blocks than candidates (a small vocabulary), every token is a candidate.
    float threshold = -INFINITY;
    if ((size_t) n_blocks >= count) {
        s.order.assign(maxima.begin(), maxima.end());
        std::nth_element(s.order.begin(), s.order.begin() + (count - 1), s.order.end(), std::greater<float>());
        threshold = s.order[count - 1];
    }
    out.clear();
    for (int32_t b = 0; b < n_blocks; ++b) {
        if (!(maxima[b] >= threshold)) {
            continue;
        }
        const int32_t begin = b * block, end = std::min(begin + block, n_vocab);
        for (int32_t id = begin; id < end; ++id) {
            if (logits[id] >= threshold) {
                out.push_back({id, logits[id], 0.0f});
            }
        }
    }
    if (out.size() > count) {
        std::nth_element(out.begin(), out.begin() + (count - 1), out.end(), likelier);
        out.resize(count);
    }
}

// Adds the tokens with a positive bias that `candidates` lacks (once: a duplicate would double
// its probability).
void add_boosted(const llmkit_sampler & s, const float * logits, std::vector<llama_token_data> & candidates) {
    for (llama_token id : s.boosted) {
        const bool present = std::any_of(candidates.begin(), candidates.end(), [id](const llama_token_data & d) { return d.id == id; });
        if (!present) {
            candidates.push_back({id, logits[id], 0.0f});
        }
    }
}

// Runs the chain over `candidates` in the vocabulary's order (as the whole vocabulary would
// be); LLAMA_TOKEN_NULL when it selects none or a banned one.
llama_token run_chain(llmkit_sampler & s, std::vector<llama_token_data> & candidates) {
    std::sort(candidates.begin(), candidates.end(), [](const llama_token_data & a, const llama_token_data & b) { return a.id < b.id; });
    llama_token_data_array array = {candidates.data(), candidates.size(), -1, false};
    llama_sampler_apply(common_sampler_get(s.impl), &array);
    if (array.selected < 0 || (size_t) array.selected >= array.size || !std::isfinite(array.data[array.selected].logit)) {
        return LLAMA_TOKEN_NULL;
    }
    return array.data[array.selected].id;
}

// The `prefilter` likeliest tokens by raw logit (plus the boosted ones), through the chain.
llama_token sample_prefiltered(llmkit_sampler & s, const float * logits, int32_t n_vocab) {
    if (s.greedy) {
        return arg_max(logits, n_vocab);
    }
    collect_likeliest(s, logits, n_vocab, s.prefilter, logit_block, s.heap);
    add_boosted(s, logits, s.heap);
    const llama_token token = run_chain(s, s.heap);
    if (token == LLAMA_TOKEN_NULL) {
        throw std::runtime_error("the sampling chain selected no token");
    }
    return token;
}

// What the grammar can tell of a token without its whole text: the first byte of its text (0 to
// 255), or one of these.
enum token_class : uint16_t {
    class_end_of_generation = 256,    // allowed exactly where the grammar may end
    class_never             = 257,    // no text, or a NUL first: the grammar never allows it
    class_unknown           = 258,    // a text too long to look at here: always checked
    class_count             = 259,
};

// Each token's class, filled on first use (a look at every token's text, which llama.cpp keeps).
const std::vector<uint16_t> & token_classes(const llmkit_token_classes & shared) {
    std::call_once(shared.filled, [&] {
        const int32_t n_vocab = llama_vocab_n_tokens(shared.vocab);
        shared.classes.resize(n_vocab);
        char piece[64];
        for (int32_t id = 0; id < n_vocab; ++id) {
            const int32_t length = llama_token_to_piece(shared.vocab, id, piece, sizeof piece, 0, true);
            if (llama_vocab_is_eog(shared.vocab, id)) {
                shared.classes[id] = class_end_of_generation;
            } else if (length < 0) {
                shared.classes[id] = class_unknown;
            } else if (length == 0 || piece[0] == 0) {
                shared.classes[id] = class_never;
            } else {
                shared.classes[id] = static_cast<unsigned char>(piece[0]);
            }
        }
    });
    return shared.classes;
}

// Whether the character class that starts at `element` (a stack top) admits `character`.
bool class_admits(const llama_grammar_element * element, uint32_t character) {
    const bool positive = element->type != LLAMA_GRETYPE_CHAR_NOT;
    bool found = false;
    do {
        if (element->type == LLAMA_GRETYPE_CHAR_ANY) {
            found = true;
            element += 1;
        } else if (element[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER) {
            found = found || (element->value <= character && character <= element[1].value);
            element += 2;
        } else {
            found = found || element->value == character;
            element += 1;
        }
    } while (element->type == LLAMA_GRETYPE_CHAR_ALT);
    return found == positive;
}

// Whether it may admit a character beyond ASCII (a negated class or any character: yes).
bool class_admits_beyond_ascii(const llama_grammar_element * element) {
    if (element->type != LLAMA_GRETYPE_CHAR) {
        return true;
    }
    do {
        const bool range = element[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER;
        if ((range ? element[1].value : element->value) >= 0x80) {
            return true;
        }
        element += range ? 2 : 1;
    } while (element->type == LLAMA_GRETYPE_CHAR_ALT);
    return false;
}

// The token classes the grammar may allow next: a token of any other class it rejects. False
// where it cannot tell: in the middle of a character, or at a token element (`<[id]>`).
bool possible_classes(const llama_grammar & grammar, std::bitset<class_count> & possible) {
    possible.reset();
    possible.set(class_unknown);
    if (grammar.partial_utf8.n_remain != 0) {
        return false;
    }
    for (const auto & stack : grammar.stacks) {
        if (stack.empty()) {
            possible.set(class_end_of_generation);
            continue;
        }
        const llama_grammar_element * top = stack.back();
        if (top->type != LLAMA_GRETYPE_CHAR && top->type != LLAMA_GRETYPE_CHAR_NOT && top->type != LLAMA_GRETYPE_CHAR_ANY) {
            return false;
        }
        for (uint32_t byte = 1; byte < 0x80; ++byte) {
            if (!possible.test(byte) && class_admits(top, byte)) {
                possible.set(byte);
            }
        }
        if (class_admits_beyond_ascii(top)) {
            for (uint32_t byte = 0x80; byte < 0x100; ++byte) {
                possible.set(byte);
            }
        }
    }
    return true;
}

// How many of the likeliest tokens a grammar check takes at a time, and how many the first look
// for allowed tokens collects.
constexpr size_t grammar_chunk = 64;

// After the chain's token broke the grammar: the same draw as the chain over the 1,024 likeliest
// tokens (plus the boosted ones) with the grammar applied, as resample_with_grammar does, but
// checking the likeliest first and stopping once `prefilter` of them are allowed (one, greedy).
// The chain's top-k keeps the k likeliest allowed tokens after the bias and the penalties, all of
// them among those (see llmkit_sampler), so it draws the same token with the same random state.
// Where none of the 1,024 is allowed, the whole vocabulary is the candidates, as before. Either
// way, only tokens whose first byte the grammar can take next have their text checked: a forced
// key in the middle of a word (`customer_account_ide|ntifier`) checks the few hundred tokens that
// start with `n`, not every token.
llama_token resample_likeliest(llmkit_sampler & s, const float * logits, int32_t n_vocab) {
    const size_t needed = s.greedy ? 1 : s.prefilter;
    // Tokens whose first byte the grammar cannot take are rejected without decoding their text.
    std::bitset<class_count> possible;
    const bool sorts = possible_classes(*s.grammar, possible);
    const std::vector<uint16_t> * classes = sorts ? &token_classes(*s.classes) : nullptr;
    if (classes && (int32_t) classes->size() != n_vocab) {
        classes = nullptr;                 // logits of another length than the vocabulary: check every token
    }
    auto & allowed = s.heap;
    auto & likely = s.likely;
    allowed.clear();
    size_t checked = 0;
    std::vector<llama_token_data> chunk;
    for (size_t stage : {grammar_chunk, likely_candidates}) {
        // Smaller blocks than sampling's, so that even a 49k vocabulary has 1,024 blocks.
        collect_likeliest(s, logits, n_vocab, stage, 16, likely);
        std::sort(likely.begin(), likely.end(), likelier);
        while (checked < likely.size() && allowed.size() < needed) {
            const size_t end = std::min(checked + grammar_chunk, likely.size());
            chunk.clear();
            for (size_t i = checked; i < end; ++i) {
                if (!classes || possible.test((*classes)[likely[i].id])) {
                    chunk.push_back(likely[i]);
                }
            }
            llama_token_data_array array = {chunk.data(), chunk.size(), -1, false};
            llama_grammar_apply_impl(*s.grammar, &array);     // a rejected token's logit becomes -inf
            for (const auto & data : chunk) {
                if (std::isfinite(data.logit)) {
                    allowed.push_back(data);
                }
            }
            checked = end;
        }
        if (allowed.size() >= needed || likely.size() < stage) {
            break;
        }
    }
    if (s.greedy && !allowed.empty()) {
        return allowed.front().id;        // the likeliest allowed token: what a greedy chain keeps
    }
    for (llama_token id : s.boosted) {
        const bool seen = std::any_of(likely.begin(), likely.begin() + checked, [id](const llama_token_data & d) { return d.id == id; });
        if (!seen && grammar_allows(s.grammar, id)) {
            allowed.push_back({id, logits[id], 0.0f});
        }
    }
    if (!allowed.empty()) {
        const llama_token token = run_chain(s, allowed);
        if (token != LLAMA_TOKEN_NULL) {
            return token;
        }
    }
    likely.clear();
    for (int32_t id = 0; id < n_vocab; ++id) {
        if (!classes || possible.test((*classes)[id])) {
            likely.push_back({id, logits[id], 0.0f});
        }
    }
    const llama_token token = sample_allowed(s, likely);
    if (token == LLAMA_TOKEN_NULL) {
        throw std::runtime_error("no token is both allowed by the grammar and left by the sampling options (logit bias)");
    }
    return token;
}

// One draw from `logits` for a sampler that prefilters: the chain's token, or where it breaks
// the grammar, a draw among the allowed ones.
llama_token draw_prefiltered(llmkit_sampler & s, const float * logits, int32_t n_vocab) {
    const llama_token token = sample_prefiltered(s, logits, n_vocab);
    if (!s.grammar || grammar_allows(s.grammar, token)) {
        return token;
    }
    return resample_likeliest(s, logits, n_vocab);
}

// Whether the penalties of `sp` change any logit.
bool penalizes(const common_params_sampling & sp) {
    return sp.penalty_last_n != 0 && (sp.penalty_repeat != 1 || sp.penalty_freq != 0 || sp.penalty_present != 0);
}

// How many tokens the model's vocabulary always suppresses (the chain gives them a -inf bias).
int32_t suppressed_tokens(const llama_model * model) {
    int32_t count = 0;
    llama_vocab_get_suppress_tokens(llama_model_get_vocab(model), &count);
    return std::max(count, 0);
}

// How many candidates the chain needs for `sp` (see llmkit_sampler), or 0 when it needs the
// whole vocabulary: a continuation grammar (common_sampler's own), a reasoning budget, no top-k,
// or penalties that can raise a logit. An output grammar (ours) does not stop it: see draw_prefiltered.
size_t prefilter_size(const llama_model * model, const common_params_sampling & sp) {
    if (!sp.grammar.empty() || !sp.reasoning_budget_start.empty() || sp.top_k <= 0 || sp.mirostat != 0
        || sp.top_n_sigma > 0 || sp.dry_multiplier != 0 || sp.penalty_repeat < 1 || sp.penalty_freq < 0 || sp.penalty_present < 0) {
        return 0;
    }
    if (penalizes(sp) && sp.penalty_last_n < 0) {
        return 0;                          // a window of the whole context
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    size_t slack = (penalizes(sp) ? (size_t) sp.penalty_last_n : 0) + (size_t) suppressed_tokens(model);
    for (const auto & bias : sp.logit_bias) {
        slack += bias.bias < 0 ? 1 : 0;
    }
    const size_t needed = (size_t) sp.top_k + slack;
    return needed * 8 < (size_t) llama_vocab_n_tokens(vocab) ? needed : 0;
}

// Whether the chain for `sp` keeps only the token with the largest raw logit (see llmkit_sampler).
bool is_plain_greedy(const llama_model * model, const common_params_sampling & sp) {
    return sp.temp <= 0 && sp.dynatemp_range <= 0 && !penalizes(sp) && sp.logit_bias.empty() && suppressed_tokens(model) == 0
        && sp.typ_p >= 1 && sp.xtc_probability <= 0 && sp.dry_multiplier == 0 && sp.mirostat == 0 && sp.top_n_sigma <= 0;
}

} // namespace

// Sets up a grammar that continues the generation prompt (a template's tool-call grammar)
// the way llama-server does: preserved tokens by id, and word triggers that are exactly one
// preserved token become token triggers. With triggers the grammar is lazy.
static void configure_continuation_grammar(const llama_model * model, const llmkit_sampling_params & params,
                                           common_params_sampling & sp) {
    if (!params.continuation_grammar || params.continuation_grammar[0] == '\0') {
        return;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    for (int32_t i = 0; i < params.preserved_token_count; ++i) {
        const llama_token token = params.preserved_tokens[i];
        if (token < 0 || token >= n_vocab) {
            throw std::invalid_argument("preserved token " + std::to_string(token) + " is outside the vocabulary");
        }
        sp.preserved_tokens.insert(token);
    }
    for (int32_t i = 0; i < params.trigger_count; ++i) {
        const char * value = params.trigger_values[i];
        if (!value) {
            throw std::invalid_argument("a grammar trigger has no text");
        }
        common_grammar_trigger trigger;
        trigger.value = value;
        switch (params.trigger_kinds[i]) {
            case LLMKIT_TRIGGER_WORD: {
                trigger.type = COMMON_GRAMMAR_TRIGGER_TYPE_WORD;
                const auto ids = common_tokenize(vocab, trigger.value, false, true);
                if (ids.size() == 1 && sp.preserved_tokens.count(ids[0])) {
                    trigger.type  = COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN;
                    trigger.token = ids[0];
                }
                break;
            }
            case LLMKIT_TRIGGER_PATTERN:      trigger.type = COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN; break;
            case LLMKIT_TRIGGER_PATTERN_FULL: trigger.type = COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL; break;
            default: throw std::invalid_argument("unknown grammar trigger kind " + std::to_string(params.trigger_kinds[i]));
        }
        sp.grammar_triggers.push_back(trigger);
    }
    sp.grammar      = common_grammar(COMMON_GRAMMAR_TYPE_TOOL_CALLS, params.continuation_grammar);
    sp.grammar_lazy = !sp.grammar_triggers.empty();
}

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
    params.xtc_probability   = defaults.xtc_probability;
    params.xtc_threshold     = defaults.xtc_threshold;
    params.dry_multiplier    = defaults.dry_multiplier;
    params.dry_base          = defaults.dry_base;
    params.dry_allowed_length = defaults.dry_allowed_length;
    params.dry_penalty_last_n = defaults.dry_penalty_last_n;
    params.dry_sequence_breakers = nullptr;
    params.dry_sequence_breaker_count = 0;
    params.mirostat          = defaults.mirostat;
    params.mirostat_tau      = defaults.mirostat_tau;
    params.mirostat_eta      = defaults.mirostat_eta;
    params.logit_bias_tokens = nullptr;
    params.logit_bias_values = nullptr;
    params.logit_bias_count  = 0;
    params.reasoning_budget         = -1;
    params.reasoning_start_tag      = nullptr;
    params.reasoning_end_tags       = nullptr;
    params.reasoning_end_tag_count  = 0;
    params.reasoning_budget_message = nullptr;
    params.generation_prompt        = nullptr;
    params.grammar                  = nullptr;
    params.continuation_grammar     = nullptr;
    params.trigger_kinds            = nullptr;
    params.trigger_values           = nullptr;
    params.trigger_count            = 0;
    params.preserved_tokens         = nullptr;
    params.preserved_token_count    = 0;
    params.exhaustive               = false;
    params.token_classes            = nullptr;
    return params;
}

extern "C" llmkit_token_classes * llmkit_token_classes_create(const llama_model * model) {
    return llmkit::guarded<llmkit_token_classes *>(nullptr, nullptr, [&]() -> llmkit_token_classes * {
        if (!model) {
            return nullptr;
        }
        auto * classes = new llmkit_token_classes;
        classes->vocab = llama_model_get_vocab(model);
        return classes;
    });
}

extern "C" void llmkit_token_classes_free(llmkit_token_classes * classes) {
    delete classes;
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
        sp.xtc_probability = params->xtc_probability;
        sp.xtc_threshold   = params->xtc_threshold;
        sp.dry_multiplier  = params->dry_multiplier;
        sp.dry_base        = params->dry_base;
        sp.dry_allowed_length = params->dry_allowed_length;
        sp.dry_penalty_last_n = params->dry_penalty_last_n;
        if (params->dry_sequence_breakers) {
            sp.dry_sequence_breakers.clear();
            for (int32_t i = 0; i < params->dry_sequence_breaker_count; ++i) {
                if (!params->dry_sequence_breakers[i]) {
                    throw std::invalid_argument("a DRY sequence breaker has no text");
                }
                sp.dry_sequence_breakers.emplace_back(params->dry_sequence_breakers[i]);
            }
        }
        if (params->mirostat < 0 || params->mirostat > 2) {
            throw std::invalid_argument("mirostat must be 0, 1 or 2");
        }
        sp.mirostat        = params->mirostat;
        sp.mirostat_tau    = params->mirostat_tau;
        sp.mirostat_eta    = params->mirostat_eta;
        sp.no_perf         = true;
        llama_grammar * grammar = nullptr;
        if (params->grammar && params->grammar[0] != '\0') {
            grammar = llama_grammar_init_impl(llama_model_get_vocab(model), params->grammar, "root", false,
                                              nullptr, 0, nullptr, 0);
            if (!grammar) {
                throw std::invalid_argument("llama.cpp cannot parse the grammar");
            }
        }
        for (int32_t i = 0; i < params->logit_bias_count; ++i) {
            sp.logit_bias.push_back({params->logit_bias_tokens[i], params->logit_bias_values[i]});
        }
        if (grammar && params->continuation_grammar && params->continuation_grammar[0] != '\0') {
            llama_grammar_free_impl(grammar);
            throw std::invalid_argument("a sampler takes one grammar: an output grammar or a continuation grammar");
        }
        try {
            configure_reasoning_budget(model, *params, sp);
            configure_continuation_grammar(model, *params, sp);
        } catch (...) {
            llama_grammar_free_impl(grammar);
            throw;
        }
        common_sampler * impl = nullptr;
        try {
            impl = common_sampler_init(model, sp);
        } catch (...) {
            llama_grammar_free_impl(grammar);
            throw;
        }
        if (!impl) {
            llama_grammar_free_impl(grammar);
            throw std::runtime_error("llama.cpp could not build the sampler chain");
        }
        auto * sampler = new llmkit_sampler;
        sampler->impl = impl;
        sampler->grammar = grammar;
        sampler->vocab = llama_model_get_vocab(model);
        if (grammar) {
            sampler->grammar_text = params->grammar;
        }
        for (int32_t i = 0; i < params->logit_bias_count; ++i) {
            if (params->logit_bias_values[i] > 0) {
                sampler->boosted.push_back(params->logit_bias_tokens[i]);
            }
        }
        if (params->token_classes && params->token_classes->vocab == sampler->vocab) {
            sampler->classes = params->token_classes;
        } else {
            sampler->own_classes = std::make_unique<llmkit_token_classes>();
            sampler->own_classes->vocab = sampler->vocab;
            sampler->classes = sampler->own_classes.get();
        }
        sampler->prefilter = params->exhaustive ? 0 : prefilter_size(model, sp);
        sampler->greedy = sampler->prefilter > 0 && is_plain_greedy(model, sp);
        return sampler;
    });
}

extern "C" int32_t llmkit_sampler_sample(llmkit_sampler * sampler, llama_context * context,
                                         int32_t index, llmkit_error * error) {
    return llmkit::guarded<int32_t>(error, -1, [&]() -> int32_t {
        if (!sampler || !context) {
            throw std::invalid_argument("sample needs a sampler and a context");
        }
        if (sampler->prefilter > 0) {
            const float * logits = llama_get_logits_ith(context, index);
            if (!logits) {
                throw std::invalid_argument("no logits at batch index " + std::to_string(index));
            }
            return draw_prefiltered(*sampler, logits, llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(context))));
        }
        const llama_token token = common_sampler_sample(sampler->impl, context, index);
        if (!sampler->grammar || grammar_allows(sampler->grammar, token)) {
            return token;
        }
        return resample_with_grammar(*sampler, context, index);
    });
}

extern "C" bool llmkit_sampler_samples_logits(const llmkit_sampler * sampler) {
    return sampler && sampler->prefilter > 0;
}

extern "C" bool llmkit_sampler_is_greedy(const llmkit_sampler * sampler) {
    return sampler && sampler->greedy;
}

extern "C" int32_t llmkit_sampler_sample_logits(llmkit_sampler * sampler, const float * logits, int32_t n_vocab,
                                                llmkit_error * error) {
    return llmkit::guarded<int32_t>(error, -1, [&]() -> int32_t {
        if (!sampler || sampler->prefilter == 0 || !logits || n_vocab <= 0) {
            throw std::invalid_argument("sampling from logits needs a sampler that prefilters, and logits");
        }
        return draw_prefiltered(*sampler, logits, n_vocab);
    });
}

extern "C" bool llmkit_sampler_accept(llmkit_sampler * sampler, int32_t token, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!sampler) {
            throw std::invalid_argument("accept needs a sampler");
        }
        if (sampler->grammar) {
            llama_grammar_accept_impl(*sampler->grammar, token);
            char piece[256];
            const int32_t length = llama_token_to_piece(sampler->vocab, token, piece, sizeof piece, 0, true);
            const size_t count = length > 0 ? static_cast<size_t>(length) : 0;
            sampler->history.append(piece, count);
            // A draft whose start was accepted still holds: the grammar allows what it allowed. A
            // piece longer than the buffer (length < 0) is not in the history: the draft goes.
            if (length >= 0 && count <= sampler->draft.size() && sampler->draft.compare(0, count, piece, count) == 0) {
                sampler->draft.erase(0, count);
            } else {
                sampler->draft.clear();
            }
            if (sampler->history.size() > 2 * history_bytes) {
                sampler->history.erase(0, sampler->history.size() - history_bytes);
            }
        }
        common_sampler_accept(sampler->impl, token, true);
        return true;
    });
}

extern "C" void llmkit_sampler_reset(llmkit_sampler * sampler) {
    llmkit::guarded<int>(nullptr, 0, [&]() -> int {
        if (sampler) {
            common_sampler_reset(sampler->impl);
            if (sampler->grammar) {
                llama_grammar * fresh = llama_grammar_init_impl(sampler->vocab, sampler->grammar_text.c_str(), "root",
                                                                false, nullptr, 0, nullptr, 0);
                if (fresh) {
                    llama_grammar_free_impl(sampler->grammar);
                    sampler->grammar = fresh;
                }
                sampler->history.clear();
                sampler->draft.clear();
            }
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
        llama_grammar_free_impl(sampler->grammar);
        delete sampler;
    }
}

extern "C" int32_t llmkit_sampler_grammar_draft(llmkit_sampler * sampler, int32_t max_chars, char * out,
                                                int32_t capacity, llmkit_error * error) {
    return llmkit::guarded<int32_t>(error, -1, [&]() -> int32_t {
        if (!sampler || max_chars < 0 || capacity < 0 || (capacity > 0 && !out)) {
            throw std::invalid_argument("a grammar draft needs a sampler and room for its text");
        }
        if (!sampler->grammar) {
            return 0;
        }
        // Walking the grammar costs a few microseconds a character: a draft is walked once, and
        // what is left of it after the tokens accepted since is drafted again.
        if (sampler->draft.empty()) {
            const size_t from = sampler->history.size() > history_bytes ? sampler->history.size() - history_bytes : 0;
            sampler->draft = llmkit::grammar_draft(*sampler->grammar, sampler->history.substr(from), llmkit::grammar_draft_characters);
        }
        std::string text = sampler->draft;
        size_t characters = 0, end = 0;
        while (end < text.size() && characters < static_cast<size_t>(max_chars)) {
            ++characters;
            do { ++end; } while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80);
        }
        text.resize(end);
        size_t length = std::min(text.size(), static_cast<size_t>(capacity));
        while (length > 0 && length < text.size() && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) {
            --length;                       // never half a character
        }
        std::memcpy(out, text.data(), length);
        return static_cast<int32_t>(length);
    });
}
