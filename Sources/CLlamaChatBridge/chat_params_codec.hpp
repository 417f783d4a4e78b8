// Carries rendered prompts (common_chat_params) from the child process that renders them
// (template_guard) back to the bridge, byte for byte: a template may emit any bytes, including
// invalid UTF-8, which JSON could not carry exactly.
#pragma once

#include "chat.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace llmkit {

/// Appends values to a byte string: integers little-endian, strings and lists with their length first.
class byte_writer {
  public:
    std::string bytes;

    void u64(std::uint64_t value) {
        for (int i = 0; i < 8; ++i) {
            bytes.push_back(static_cast<char>(value >> (8 * i)));
        }
    }
    void text(const std::string & value) {
        u64(value.size());
        bytes += value;
    }
    void texts(const std::vector<std::string> & values) {
        u64(values.size());
        for (const auto & value : values) {
            text(value);
        }
    }
};

/// Reads what byte_writer wrote; throws std::runtime_error when the bytes end early.
class byte_reader {
  public:
    explicit byte_reader(const std::string & bytes) : bytes(bytes) {}

    std::uint64_t u64() {
        need(8);
        std::uint64_t value = 0;
        for (int i = 7; i >= 0; --i) {
            value = value << 8 | static_cast<unsigned char>(bytes[offset + i]);
        }
        offset += 8;
        return value;
    }
    std::string text() {
        const std::uint64_t length = u64();
        need(length);
        std::string value = bytes.substr(offset, length);
        offset += length;
        return value;
    }
    std::vector<std::string> texts() {
        std::vector<std::string> values(count());
        for (auto & value : values) {
            value = text();
        }
        return values;
    }
    /// A list length, checked against the bytes left (each item takes at least 8).
    std::size_t count() {
        const std::uint64_t n = u64();
        need(n > (bytes.size() - offset) / 8 ? bytes.size() + 1 : 0);
        return std::size_t(n);
    }
    bool at_end() const { return offset == bytes.size(); }

  private:
    const std::string & bytes;
    std::size_t offset = 0;

    void need(std::uint64_t length) const {
        if (length > bytes.size() - offset) {
            throw std::runtime_error("the rendered prompt came back truncated");
        }
    }
};

/// Writes every field of `params` that the bridge uses.
inline void encode_chat_params(byte_writer & out, const common_chat_params & params) {
    out.u64(std::uint64_t(params.format));
    out.text(params.prompt);
    out.text(params.grammar);
    out.u64(params.grammar_lazy);
    out.text(params.generation_prompt);
    out.u64(params.supports_thinking);
    out.text(params.thinking_start_tag);
    out.texts(params.thinking_end_tags);
    out.u64(params.grammar_triggers.size());
    for (const auto & trigger : params.grammar_triggers) {
        out.u64(std::uint64_t(trigger.type));
        out.text(trigger.value);
        out.u64(std::uint64_t(std::int64_t(trigger.token)));
    }
    out.texts(params.preserved_tokens);
    out.texts(params.additional_stops);
    out.text(params.parser);
    out.u64(params.message_delimiters.delimiters.size());
    for (const auto & delimiter : params.message_delimiters.delimiters) {
        out.u64(std::uint64_t(delimiter.role));
        out.text(delimiter.delimiter);
    }
}

/// Reads what encode_chat_params wrote.
inline common_chat_params decode_chat_params(byte_reader & in) {
    common_chat_params params;
    params.format = common_chat_format(in.u64());
    params.prompt = in.text();
    params.grammar = in.text();
    params.grammar_lazy = in.u64() != 0;
    params.generation_prompt = in.text();
    params.supports_thinking = in.u64() != 0;
    params.thinking_start_tag = in.text();
    params.thinking_end_tags = in.texts();
    params.grammar_triggers.resize(in.count());
    for (auto & trigger : params.grammar_triggers) {
        trigger.type = common_grammar_trigger_type(in.u64());
        trigger.value = in.text();
        trigger.token = llama_token(std::int64_t(in.u64()));
    }
    params.preserved_tokens = in.texts();
    params.additional_stops = in.texts();
    params.parser = in.text();
    const std::size_t delimiters = in.count();
    for (std::size_t i = 0; i < delimiters; ++i) {
        const auto role = common_chat_role(in.u64());
        params.message_delimiters.add(role, in.text());
    }
    return params;
}

} // namespace llmkit
