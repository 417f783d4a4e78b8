// Helpers shared by the bridge's translation units: exception capture into C strings.
#pragma once

#include "llmkit_engine.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

namespace llmkit {

/// Copies `message` into a malloc'ed C string that Swift releases with llmkit_string_free.
inline char * copy_string(const std::string & message) {
    char * out = static_cast<char *>(std::malloc(message.size() + 1));
    if (out) {
        std::memcpy(out, message.data(), message.size());
        out[message.size()] = '\0';
    }
    return out;
}

/// Stores `message` in `*error` when the caller asked for errors.
inline void set_error(llmkit_error * error, const std::string & message) {
    if (error) {
        *error = copy_string(message);
    }
}

/// Runs `body`, turning any exception into an error message and `fallback`.
template <typename Result, typename Body>
Result guarded(llmkit_error * error, Result fallback, Body && body) noexcept {
    if (error) {
        *error = nullptr;
    }
    try {
        return body();
    } catch (const std::exception & e) {
        set_error(error, e.what());
    } catch (...) {
        set_error(error, "unknown C++ exception");
    }
    return fallback;
}

} // namespace llmkit
