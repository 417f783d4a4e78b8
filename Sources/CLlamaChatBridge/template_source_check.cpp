// The static check of a template's source, before llama.cpp's parser sees it: the parser
// follows brackets, prefix operators and blocks by recursion, and builds left-deep trees for
// operator chains, so their depth is bounded here, where it is cheap to say what was wrong.
#include "template_guard.hpp"

#include "jinja/lexer.h"

namespace llmkit {

void check_template_source(const std::string & source, const template_limits & limits) {
    check_template_size(source, limits);
    jinja::lexer lexer;
    const auto lexed = lexer.tokenize(source);
    std::size_t brackets = 0, blocks = 0, prefixes = 0, tag_tokens = 0;
    bool in_statement = false, statement_start = false;
    auto too_deep = [&](const char * what) {
        throw template_limit_error(template_bound::depth,
                                   std::string("the template nests ") + what + " more than " +
                                   std::to_string(limits.nesting_depth) + " deep (depth bound)");
    };
    for (std::size_t i = 0; i < lexed.tokens.size(); ++i) {
        const auto & token = lexed.tokens[i];
        using type = jinja::token;
        switch (token.t) {
            case type::open_statement:
            case type::open_expression:
                in_statement = token.t == type::open_statement;
                statement_start = in_statement;
                tag_tokens = 0;
                brackets = 0;
                prefixes = 0;
                continue;
            case type::close_statement:
            case type::close_expression:
                in_statement = false;
                continue;
            case type::open_paren:
            case type::open_square_bracket:
            case type::open_curly_bracket:
                ++brackets;
                break;
            case type::close_paren:
            case type::close_square_bracket:
            case type::close_curly_bracket:
                brackets -= brackets > 0 ? 1 : 0;
                break;
            default:
                break;
        }
        // Prefix operators nest in the parser like brackets: count runs of them.
        const bool prefix = token.t == type::unary_operator || (token.t == type::identifier && token.value == "not");
        prefixes = prefix ? prefixes + 1 : 0;
        if (brackets + prefixes > limits.nesting_depth) {
            too_deep("brackets and prefix operators");
        }
        if (++tag_tokens > limits.tag_tokens) {
            throw template_limit_error(template_bound::depth,
                                       "a template tag has more than " + std::to_string(limits.tag_tokens) +
                                       " tokens (depth bound)");
        }
        if (statement_start && token.t == type::identifier) {
            statement_start = false;
            const std::string & word = token.value;
            bool opens = word == "if" || word == "for" || word == "macro" || word == "call" || word == "filter" ||
                         word == "generation";
            if (word == "set") { // `{% set x %}…{% endset %}` is a block; `{% set x = … %}` is not
                opens = true;
                for (std::size_t k = i + 1; k < lexed.tokens.size() && lexed.tokens[k].t != type::close_statement; ++k) {
                    if (lexed.tokens[k].t == type::equals) {
                        opens = false;
                        break;
                    }
                }
            }
            if (opens && ++blocks > limits.nesting_depth) {
                too_deep("blocks");
            }
            if (word.rfind("end", 0) == 0 && blocks > 0) {
                --blocks;
            }
        }
    }
}

} // namespace llmkit
