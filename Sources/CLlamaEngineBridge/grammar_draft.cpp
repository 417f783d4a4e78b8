// Drafts from a grammar (grammar jump-forward): where a grammar leaves one way on, say the keys
// and punctuation of a JSON Schema's object, the tokens of that text need no sampling to be
// known, and the scheduler decodes them as a draft in one step. The sampler still draws at
// every position of the draft, so the output is what decoding one token a step gives; the
// draft only saves steps.
//
// The walk reads the grammar's stacks: each stack's top is the element it expects next. The
// next character is certain when every top is the same single character. JSON grammars also
// allow optional whitespace between tokens (llama.cpp's `space` rule), so at a choice between a
// few single characters the walk takes the one that followed the same context last in the text
// accepted so far (a model that wrote `": "` once writes it again): a guess that costs one
// draft row when it is wrong, never a wrong token.
#include "grammar_draft.hpp"

#include <algorithm>
#include <vector>

namespace llmkit {
namespace {

// Characters a stack top may stand for when it is a short list of single characters ([ \t]).
constexpr size_t most_listed_characters = 4;
// The contexts (bytes before the draft's end) looked up in the history, longest first.
constexpr size_t context_lengths[] = {12, 8, 6, 4, 3, 2, 1};

// The characters the stacks allow next, when each top is one character or a short list of them;
// false for a range, a negated class, any character, a token, or a stack that may end.
bool next_characters(const llama_grammar_stacks & stacks, std::vector<uint32_t> & allowed) {
    allowed.clear();
    if (stacks.empty()) {
        return false;
    }
    for (const auto & stack : stacks) {
        if (stack.empty()) {
            return false;                       // the grammar may end here
        }
        const llama_grammar_element * element = stack.back();
        if (element->type != LLAMA_GRETYPE_CHAR) {
            return false;
        }
        size_t listed = 0;
        while (true) {
            if (element[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER || ++listed > most_listed_characters) {
                return false;
            }
            if (std::find(allowed.begin(), allowed.end(), element->value) == allowed.end()) {
                allowed.push_back(element->value);
            }
            if (element[1].type != LLAMA_GRETYPE_CHAR_ALT) {
                break;
            }
            ++element;
        }
    }
    return !allowed.empty();
}

// An allowed ASCII character that followed the end of `text` earlier in `text`: after the
// longest context of the end that occurred before with an allowed character after it, the
// latest such occurrence.
bool predict(const std::string & text, const std::vector<uint32_t> & allowed, uint32_t & chosen) {
    for (size_t length : context_lengths) {
        if (text.size() <= length) {
            continue;
        }
        const char * key = text.data() + text.size() - length;
        for (size_t start = text.size() - length; start-- > 0;) {
            const auto next = static_cast<unsigned char>(text[start + length]);
            if (next < 0x80 && std::find(allowed.begin(), allowed.end(), next) != allowed.end()
                && text.compare(start, length, key, length) == 0) {
                chosen = next;
                return true;
            }
        }
    }
    return false;
}

void append_utf8(std::string & text, uint32_t code) {
    if (code < 0x80) {
        text += static_cast<char>(code);
    } else if (code < 0x800) {
        text += static_cast<char>(0xC0 | (code >> 6));
        text += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        text += static_cast<char>(0xE0 | (code >> 12));
        text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        text += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        text += static_cast<char>(0xF0 | (code >> 18));
        text += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        text += static_cast<char>(0x80 | (code & 0x3F));
    }
}

}  // namespace

std::string grammar_draft(llama_grammar & grammar, const std::string & history, size_t max_chars) {
    std::vector<uint32_t> allowed;
    if (grammar.partial_utf8.n_remain != 0 || grammar.awaiting_trigger || !next_characters(grammar.stacks, allowed)) {
        return "";                          // the common case inside free text: no copy of the stacks
    }
    const llama_grammar_stacks saved = grammar.stacks;
    std::string text = history;
    const size_t start = text.size();
    try {
        for (size_t count = 0; count < max_chars && next_characters(grammar.stacks, allowed); ++count) {
            uint32_t chosen = allowed.front();
            // Not at the start: right after the model's own token, its choice among a few
            // characters (a comma or a space after a value) is its own, and seldom the history's.
            if (allowed.size() > 1 && (count == 0 || !predict(text, allowed, chosen))) {
                break;
            }
            llama_grammar_accept(&grammar, chosen);
            if (grammar.stacks.empty()) {
                break;                          // not reached: every allowed character leaves a stack
            }
            append_utf8(text, chosen);
        }
    } catch (...) {
        grammar.stacks = saved;
        throw;
    }
    grammar.stacks = saved;
    return text.substr(start);
}

}  // namespace llmkit
