// What the parent and the child of a contained template run share (template_guard.cpp,
// template_worker.cpp, template_child.cpp): the message they exchange, and the child's parts.
#pragma once

#include "template_guard.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace llmkit {

/// The child's message: status, bound, payload length (8 bytes, little-endian), payload.
/// `status_ok_retiring`: a worker's result, after which it exits (see template_worker.cpp).
enum : unsigned char { status_ok = 0, status_error = 1, status_bound = 2, status_ok_retiring = 3 };
constexpr std::size_t header_size = 10;

/// The payload length a message's header announces (0 when the header is incomplete).
inline std::uint64_t announced_length(const std::string & message) {
    if (message.size() < header_size) {
        return 0;
    }
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {
        length = length << 8 | static_cast<unsigned char>(message[2 + i]);
    }
    return length;
}

/// Whether `message` holds a whole report.
inline bool report_complete(const std::string & message) {
    return message.size() >= header_size && message.size() - header_size >= announced_length(message);
}

/// The payload of a whole report of success; throws what a report of failure says.
std::string take_report(const std::string & message);

/// How reading a report ended.
enum class read_outcome { complete, timed_out, oversized, gone };

/// When work under `limits` that starts now must be done.
std::chrono::steady_clock::time_point deadline_after(const template_limits & limits);

/// Reads a report from `fd` (non-blocking) into `message` until it is whole, the deadline
/// passes, it grows past the memory bound, or `gone(end_of_file)` says that its writer is gone
/// (asked at end of file, and whenever nothing arrived for 50 ms).
read_outcome read_report(int fd, const template_limits & limits, std::chrono::steady_clock::time_point deadline,
                         std::string & message, const std::function<bool(bool)> & gone);

/// Throws what a child that left no whole report did: the size or time bound, or how it
/// ended (`status` from waitpid; -1 when unknown).
[[noreturn]] void throw_incomplete(const template_limits & limits, read_outcome outcome, int status);

/// The message of the size bound.
inline std::string size_bound_message(const template_limits & limits) {
    return "the template builds too much text or data (size bound: " + std::to_string(limits.memory_bytes >> 20) +
           " MiB of memory)";
}

/// The child's entry point after fork: runs `body` under `limits`, reports on `report_fd`, exits.
[[noreturn]] void child_main(int report_fd, pid_t parent, const template_limits & limits,
                             const std::function<std::string()> & body);

// The parts of a child (template_child.cpp), for the one-shot child and the workers.

/// Writes one report to the child's report descriptor (async-signal-safe).
void report(unsigned char status, template_bound bound, const char * data, std::size_t length);
/// Reports and exits the child at once, without unwinding (async-signal-safe).
[[noreturn]] void report_and_exit(unsigned char status, template_bound bound, const char * message);
/// The data size of this process (brk and private writable mappings), which RLIMIT_DATA counts.
std::size_t current_data_bytes();
/// Sends reports to `report_fd`, and turns faults, aborts, failed allocations, the CPU limit and
/// std::terminate into reports.
void prepare_child(int report_fd);
/// Bounds the child's work from now on: data to `base_data_bytes` plus the stack and memory
/// bounds, CPU time to what it used so far plus the time bound; names the bounds in the reports.
void limit_child(const template_limits & limits, std::size_t base_data_bytes);
/// Runs `body` on a thread with `stack_bytes` of stack (a fault at its end is the depth bound);
/// an exception it throws is reported. Exits the child afterwards.
[[noreturn]] void run_child_thread(std::size_t stack_bytes, const std::function<void()> & body);

} // namespace llmkit
