// The grammar half of the bridge: JSON Schema to GBNF, and GBNF checks.
#include "bridge_support.hpp"

#include "json-schema-to-grammar.h"
#include "json.h"
#include "llama.h"

#include <cstdio>
#include <string>
#include <unistd.h>

namespace {

// llama.cpp's grammar parser reports errors with fprintf(stderr). While checking a
// grammar, standard error goes to a temporary file instead, so that the reason can be
// returned as an error (and nothing leaks to the terminal).
class StandardErrorCapture {
  public:
    StandardErrorCapture() {
        std::fflush(stderr);
        file_ = std::tmpfile();
        saved_ = dup(STDERR_FILENO);
        if (file_ && saved_ >= 0) {
            dup2(fileno(file_), STDERR_FILENO);
        }
    }

    ~StandardErrorCapture() { restore(); }

    /// Restores standard error and returns what was written meanwhile.
    std::string restore() {
        std::string text;
        if (saved_ >= 0) {
            std::fflush(stderr);
            dup2(saved_, STDERR_FILENO);
            close(saved_);
            saved_ = -1;
            if (file_) {
                std::rewind(file_);
                char buffer[512];
                size_t count;
                while ((count = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) {
                    text.append(buffer, count);
                }
            }
        }
        if (file_) {
            std::fclose(file_);
            file_ = nullptr;
        }
        return text;
    }

  private:
    std::FILE * file_ = nullptr;
    int saved_ = -1;
};

// The first line of llama.cpp's message, without the function name.
std::string first_line(const std::string & text) {
    std::string line = text.substr(0, text.find('\n'));
    const size_t colon = line.find(": ");
    return colon == std::string::npos ? line : line.substr(colon + 2);
}

} // namespace

extern "C" char * llmkit_json_schema_to_grammar(const char * schema_json, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!schema_json) {
            throw std::invalid_argument("no schema");
        }
        const common_json schema = common_json::parse(schema_json);
        // The converter only warns on stderr when it drops part of a schema (a pattern it
        // cannot express becomes "any string"): that is an error here, never a silent loss.
        StandardErrorCapture capture;
        const std::string grammar = json_schema_to_grammar(schema, true);
        const std::string output = capture.restore();
        const size_t warning = output.find("JSON schema conversion was incomplete");
        if (warning != std::string::npos) {
            const std::string rest = output.substr(warning);
            throw std::invalid_argument(rest.substr(0, rest.find('\n')));
        }
        return llmkit::copy_string(grammar);
    });
}

extern "C" bool llmkit_grammar_check(const llama_model * model, const char * grammar, llmkit_error * error) {
    return llmkit::guarded<bool>(error, false, [&]() -> bool {
        if (!model || !grammar) {
            throw std::invalid_argument("grammar check needs a model and a grammar");
        }
        StandardErrorCapture capture;
        llama_sampler * sampler = llama_sampler_init_grammar(llama_model_get_vocab(model), grammar, "root");
        const std::string output = capture.restore();
        if (!sampler) {
            throw std::invalid_argument(output.empty() ? "llama.cpp cannot parse the grammar" : first_line(output));
        }
        llama_sampler_free(sampler);
        return true;
    });
}
