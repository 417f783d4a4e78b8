// Template workers: long-lived processes, forked by the model's helper process (llmkit_engine.h),
// that parse and render templates under the same bounds as a one-shot child (template_guard.hpp),
// one request at a time, and keep the templates they parsed.
//
// Forking this process for each render copies its page tables (the KV cache and compute buffers:
// hundreds of megabytes) and makes every page it writes afterwards fault once, on the model's
// thread, for every render (docs/PERFORMANCE.md, "Templates render in long-lived workers").
// A worker forks from the small helper once, and answers each later request in the time the
// template engine itself takes.
//
// A request: its length (8 bytes, little-endian), then the kind of work, the limits, the template
// source and the work's payload (byte_writer). The answer is a report (template_process.hpp). A
// worker exits after a report of failure (a bound, a crash, an engine error), and after a
// success marked `status_ok_retiring` once it has grown or served long enough; the caller then
// ends it. Each request gets the bounds anew: CPU time from what the worker used so far.
#include "template_guard.hpp"
#include "template_process.hpp"
#include "template_work.hpp"

#include "chat_params_codec.hpp"
#include "llmkit_bridge_support.hpp"
#include "llmkit_engine.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <optional>
#include <utility>

namespace llmkit {
namespace {

/// Parsed templates a worker keeps, by source.
constexpr std::size_t kept_templates = 4;
/// Requests a worker serves before it retires.
constexpr std::size_t requests_per_worker = 10000;
/// Growth of a worker's data (fragmentation, kept templates) past which it retires.
constexpr std::size_t growth_per_worker = 64u << 20;
/// Largest request a worker reads (messages and tools of one render).
constexpr std::uint64_t largest_request = 1ull << 30;

void encode_limits(byte_writer & out, const template_limits & limits) {
    std::uint64_t seconds = 0;
    static_assert(sizeof(seconds) == sizeof(limits.seconds));
    std::memcpy(&seconds, &limits.seconds, sizeof(seconds));
    for (const std::uint64_t value : {std::uint64_t(limits.source_bytes), std::uint64_t(limits.nesting_depth),
                                      std::uint64_t(limits.tag_tokens), std::uint64_t(limits.memory_bytes), seconds,
                                      std::uint64_t(limits.stack_bytes)}) {
        out.u64(value);
    }
}

template_limits decode_limits(byte_reader & in) {
    template_limits limits{};
    limits.source_bytes = std::size_t(in.u64());
    limits.nesting_depth = std::size_t(in.u64());
    limits.tag_tokens = std::size_t(in.u64());
    limits.memory_bytes = std::size_t(in.u64());
    const std::uint64_t seconds = in.u64();
    std::memcpy(&limits.seconds, &seconds, sizeof(seconds));
    limits.stack_bytes = std::size_t(in.u64());
    return limits;
}

/// The templates a worker parsed, most recently used last, with which of them render directly.
class template_cache {
  public:
    explicit template_cache(const llama_model * model) : model(model) {}

    struct entry {
        std::string source;
        common_chat_templates_ptr templates;
        /// Worked out at the first render.
        std::optional<direct_renders> direct;
    };

    entry & get(const std::string & source) {
        for (auto kept = entries.begin(); kept != entries.end(); ++kept) {
            if (kept->source == source) {
                entries.splice(entries.end(), entries, kept);
                return entries.back();
            }
        }
        return keep(source, init_templates(model, source));
    }

    entry & keep(const std::string & source, common_chat_templates_ptr templates) {
        if (entries.size() >= kept_templates) {
            entries.pop_front();
        }
        entries.push_back({source, std::move(templates), std::nullopt});
        return entries.back();
    }

  private:
    const llama_model * model;
    std::list<entry> entries;
};

/// A worker's loop, on its bounded thread: a request, its bounds, its work, its report.
void serve_requests(int socket, const llama_model * model, std::size_t base_data_bytes) {
    template_cache cache(model);
    std::size_t settled_data_bytes = 0;
    for (std::size_t served = 1;; ++served) {
        char header[8];
        if (!llmkit::read_fully(socket, header, sizeof(header))) {
            _exit(0);                       // the caller closed its end: done
        }
        std::uint64_t length = 0;
        for (int i = 7; i >= 0; --i) {
            length = length << 8 | static_cast<unsigned char>(header[i]);
        }
        if (length > largest_request) {
            report_and_exit(status_error, template_bound{}, "the template worker got a request it cannot read");
        }
        std::string request(std::size_t(length), '\0');
        if (!llmkit::read_fully(socket, request.data(), request.size())) {
            _exit(0);
        }
        byte_reader in(request);
        const auto work = static_cast<template_work_kind>(in.u64());
        const template_limits limits = decode_limits(in);
        const std::string source = in.text();
        const std::string payload = in.text();
        limit_child(limits, base_data_bytes);
        std::string result;
        if (work == template_work_kind::describe) {
            common_chat_templates_ptr parsed;
            result = describe_templates(model, source, limits, &parsed);
            cache.keep(source, std::move(parsed));
        } else {
            auto & kept = cache.get(source);
            if (!kept.direct) {
                kept.direct = find_direct_renders(kept.templates.get());
            }
            result = render_requests(kept.templates.get(), payload, *kept.direct);
        }
        // Growth counts from the end of the first request: by then this thread's malloc arena
        // (64 MiB of address space, reserved at its first allocation) and a template are in.
        const std::size_t data = current_data_bytes();
        if (served == 1) {
            settled_data_bytes = data;
        }
        const bool retiring = served >= requests_per_worker || data > settled_data_bytes + growth_per_worker;
        report(retiring ? status_ok_retiring : status_ok, template_bound{}, result.data(), result.size());
        if (retiring) {
            _exit(0);
        }
    }
}

/// A worker's entry point (an llmkit_worker_entry): `argument` is the model, `variant` the
/// stack of its bounded thread.
void worker_main(int socket, const void * argument, std::uint64_t variant) {
    prepare_child(socket);
    const std::size_t base = current_data_bytes();
    const auto * model = static_cast<const llama_model *>(argument);
    run_child_thread(std::size_t(variant), [&] { serve_requests(socket, model, base); });
}

std::atomic<std::uint64_t> runs_in_workers{0};

} // namespace

bool run_in_worker(llmkit_helper * helper, const llama_model * model, const template_limits & limits,
                   template_work_kind work, const std::string & source, const std::string & payload,
                   std::string & result) {
    if (!helper) {
        return false;
    }
    byte_writer request;
    request.u64(std::uint64_t(work));
    encode_limits(request, limits);
    request.text(source);
    request.text(payload);
    byte_writer frame;
    frame.u64(request.bytes.size());
    // An idle worker may have ended since it was last used (killed from outside): a request it
    // could not take goes to a new one, once.
    for (int attempt = 0; attempt < 2; ++attempt) {
        llmkit_worker worker{};
        if (!llmkit_helper_acquire(helper, worker_main, model, limits.stack_bytes, &worker)) {
            return false;
        }
        runs_in_workers.fetch_add(1, std::memory_order_relaxed);
        const auto deadline = deadline_after(limits);
        if (!llmkit::send_fully(worker.socket, frame.bytes.data(), frame.bytes.size()) ||
            !llmkit::send_fully(worker.socket, request.bytes.data(), request.bytes.size())) {
            llmkit_helper_end(helper, worker);
            continue;
        }
        fcntl(worker.socket, F_SETFL, fcntl(worker.socket, F_GETFL) | O_NONBLOCK);
        std::string message;
        const auto outcome = read_report(worker.socket, limits, deadline, message, [](bool end_of_file) {
            return end_of_file;         // the worker alone holds the other end
        });
        if (outcome == read_outcome::gone) {
            // Ended without a report: not by the template, whose failures are reported (a fault,
            // an abort, the CPU limit), but from outside (SIGKILL: the helper died, the OOM
            // killer). The caller runs the work in a child of its own instead.
            llmkit_helper_end(helper, worker);
            return false;
        }
        if (outcome != read_outcome::complete) {
            throw_incomplete(limits, outcome, llmkit_helper_end(helper, worker));
        }
        const auto status = static_cast<unsigned char>(message[0]);
        if (status == status_ok) {
            fcntl(worker.socket, F_SETFL, fcntl(worker.socket, F_GETFL) & ~O_NONBLOCK);
            llmkit_helper_release(helper, worker_main, model, limits.stack_bytes, worker);
        } else {
            llmkit_helper_end(helper, worker);   // it exits after this report
        }
        result = take_report(message);
        return true;
    }
    return false;
}

std::uint64_t worker_run_count() {
    return runs_in_workers.load(std::memory_order_relaxed);
}

} // namespace llmkit
