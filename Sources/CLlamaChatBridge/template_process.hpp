// What the parent and the child of a contained template run share (template_guard.cpp,
// template_child.cpp): the message they exchange, and the child's entry point.
#pragma once

#include "template_guard.hpp"

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace llmkit {

/// The child's message: status, bound, payload length (8 bytes, little-endian), payload.
enum : unsigned char { status_ok = 0, status_error = 1, status_bound = 2 };
constexpr std::size_t header_size = 10;

/// The message of the size bound.
inline std::string size_bound_message(const template_limits & limits) {
    return "the template builds too much text or data (size bound: " + std::to_string(limits.memory_bytes >> 20) +
           " MiB of memory)";
}

/// The child's entry point after fork: runs `body` under `limits`, reports on `report_fd`, exits.
[[noreturn]] void child_main(int report_fd, pid_t parent, const template_limits & limits,
                             const std::function<std::string()> & body);

} // namespace llmkit
