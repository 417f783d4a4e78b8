// Helpers shared by the bridge's translation units: exception capture into C strings.
#pragma once

#include "llmkit_engine.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
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

/// Sends all `length` bytes to the socket `fd` (never raising SIGPIPE where the platform can
/// avoid it); false when the peer is gone or the send fails.
inline bool send_fully(int fd, const void * data, std::size_t length) {
    const char * bytes = static_cast<const char *>(data);
    while (length > 0) {
#ifdef MSG_NOSIGNAL
        const ssize_t written = send(fd, bytes, length, MSG_NOSIGNAL);
#else
        const ssize_t written = write(fd, bytes, length);
#endif
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        bytes += written;
        length -= std::size_t(written);
    }
    return true;
}

/// Reads exactly `length` bytes from `fd`; false at end of file or on an error.
inline bool read_fully(int fd, void * data, std::size_t length) {
    char * bytes = static_cast<char *>(data);
    while (length > 0) {
        const ssize_t got = read(fd, bytes, length);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        bytes += got;
        length -= std::size_t(got);
    }
    return true;
}

} // namespace llmkit
