// JSON Schema to GBNF, with llama.cpp's converter. The Swift side normalizes every schema
// first (OutputSchema's normalizer): it rejects what the converter would drop, and rewrites
// patterns into the dialect the converter turns into an exact grammar, so the converter's
// "conversion was incomplete" warning (printed to stderr) cannot arise from a schema we pass.
#include "llmkit_bridge_support.hpp"

#include "json-schema-to-grammar.h"
#include "json.h"

#include <string>

extern "C" char * llmkit_json_schema_to_grammar(const char * schema_json, llmkit_error * error) {
    return llmkit::guarded<char *>(error, nullptr, [&]() -> char * {
        if (!schema_json) {
            throw std::invalid_argument("no schema");
        }
        const common_json schema = common_json::parse(schema_json);
        return llmkit::copy_string(json_schema_to_grammar(schema, true));
    });
}
