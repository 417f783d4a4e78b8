// The text a grammar allows next, as a draft (see grammar_draft.cpp).
#pragma once

#include "llama-grammar.h"

#include <cstddef>
#include <string>

namespace llmkit {

/// The most characters a grammar draft walks at once.
constexpr size_t grammar_draft_characters = 64;

/// The text `grammar` allows next, at most `max_chars` characters, where the grammar allows one
/// character, or a few single characters of which `history` (the text accepted so far) shows
/// which one followed the same context last. Empty mid-character, while a lazy grammar waits
/// for its trigger, and where the grammar allows a class of characters, a token or the end.
/// The grammar's state is as it was when this returns.
std::string grammar_draft(llama_grammar & grammar, const std::string & history, size_t max_chars);

}  // namespace llmkit
