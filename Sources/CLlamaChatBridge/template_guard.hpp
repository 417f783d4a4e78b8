// Bounds on llama.cpp's Jinja engine, which has none of its own.
//
// Every template parse and render runs in another process: a worker forked by the model's helper
// process (template_worker.cpp), or else a child forked for it; on a thread with a known large
// stack, under a memory limit (RLIMIT_DATA), a CPU limit and a deadline. Whatever the template
// does there (deep recursion, gigabytes of text, endless loops, an engine assertion), only the
// child dies; the caller gets a typed error naming the bound.
//
// Why a process and not a budget inside this one: the engine cannot be stopped from inside. An
// interposed `operator new` that throws once a budget is spent reaches `std::terminate` (checked
// by failing every allocation of real renders in turn): nlohmann::json's destructor allocates, and
// an exception cannot leave a destructor. Work that never allocates (`'' * 10**15`) cannot be
// interrupted at all. A child process can be killed at any instant, and frees everything it held.
#pragma once

#include "llmkit_engine.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace llmkit {

/// Which bound a template exceeded.
enum class template_bound : int32_t { depth = 1, size = 2, time = 3 };

/// The bounds a template parse or render runs under.
struct template_limits {
    /// Longest template source accepted.
    std::size_t source_bytes;
    /// Deepest nesting of brackets, prefix operators and blocks in the source.
    std::size_t nesting_depth;
    /// Most tokens in one `{{ }}` or `{% %}` tag: bounds left-deep operator chains.
    std::size_t tag_tokens;
    /// Most memory a run may add to the process's data.
    std::size_t memory_bytes;
    /// Longest time a run may take, in seconds.
    double seconds;
    /// The stack of the thread that runs the engine.
    std::size_t stack_bytes;
};

/// A template exceeded a bound.
struct template_limit_error : std::runtime_error {
    template_bound bound;
    template_limit_error(template_bound bound, const std::string & what) : std::runtime_error(what), bound(bound) {}
};

/// Checks a template's size: cheap, so done before starting a process.
inline void check_template_size(const std::string & source, const template_limits & limits) {
    if (source.size() > limits.source_bytes) {
        throw template_limit_error(template_bound::size, "the template has " + std::to_string(source.size()) +
                                                         " bytes (size bound: " + std::to_string(limits.source_bytes) +
                                                         ")");
    }
}

/// Checks a template's source before llama.cpp parses it: its size, the nesting of brackets,
/// prefix operators and blocks (which the parser follows by recursion), and the length of each tag.
/// Throws template_limit_error.
void check_template_source(const std::string & source, const template_limits & limits);

/// What a template worker does for a request.
enum class template_work_kind : std::uint64_t {
    /// Check, parse and describe the model's templates for a source (template_work.hpp).
    describe = 1,
    /// Render a JSON array of requests with the templates for a source.
    render = 2,
};

/// Runs template work in one of the workers of `helper` (template_worker.cpp), which inherited
/// `model`, under `limits`, and stores its bytes in `result`. Returns false when no worker can be
/// had (no helper, or it cannot fork) or the worker was killed from outside before it answered:
/// the caller then runs the work with run_contained. Throws like run_contained.
bool run_in_worker(llmkit_helper * helper, const struct llama_model * model, const template_limits & limits,
                   template_work_kind work, const std::string & source, const std::string & payload,
                   std::string & result);

/// How many runs went to workers, and to one-shot children, in this process.
std::uint64_t worker_run_count();
std::uint64_t child_run_count();

/// Runs `body` in a child process under `limits` and returns the bytes it produced.
/// Throws template_limit_error when a bound is exceeded, and std::runtime_error with the child's
/// message when `body` threw, or naming the signal when the child crashed.
std::string run_contained(const template_limits & limits, const std::function<std::string()> & body);

} // namespace llmkit
