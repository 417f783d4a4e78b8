// Runs template work in a forked child process under bounds (see template_guard.hpp). The child
// (template_child.cpp) reports one message on a pipe: status (ok, error, bound), the bound, a
// length and the payload. The parent enforces the deadline with SIGKILL.
#include "template_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

namespace llmkit {
namespace {

std::atomic<std::uint64_t> runs_in_children{0};

struct stack_job {
    const std::function<std::string()> * body;
    std::string result;
    std::exception_ptr error;
};

void * stack_worker(void * argument) {
    auto * job = static_cast<stack_job *>(argument);
    try {
        job->result = (*job->body)();
    } catch (...) {
        job->error = std::current_exception();
    }
    return nullptr;
}

/// Runs `body` on a thread with the limits' stack and waits for it.
std::string run_on_stack(const template_limits & limits, const std::function<std::string()> & body) {
    stack_job job{&body, {}, nullptr};
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) != 0 || pthread_attr_setstacksize(&attributes, limits.stack_bytes) != 0 ||
        pthread_create(&thread, &attributes, stack_worker, &job) != 0) {
        throw std::runtime_error("cannot start the thread that renders the chat template");
    }
    pthread_attr_destroy(&attributes);
    pthread_join(thread, nullptr);
    if (job.error) {
        std::rethrow_exception(job.error);
    }
    return job.result;
}

std::string describe_exit(int status) {
    if (WIFSIGNALED(status)) {
        const int signal_number = WTERMSIG(status);
        const char * name = strsignal(signal_number);
        return "llama.cpp's template engine crashed (signal " + std::to_string(signal_number) + ": " +
               (name ? name : "unknown") + ")";
    }
    return "llama.cpp's template engine ended without an answer (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
}

} // namespace

std::chrono::steady_clock::time_point deadline_after(const template_limits & limits) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limits.seconds));
}

read_outcome read_report(int fd, const template_limits & limits, std::chrono::steady_clock::time_point deadline,
                         std::string & message, const std::function<bool(bool)> & gone) {
    bool ended = false;         // end of file seen
    auto drain = [&] {
        char buffer[1 << 16];
        for (;;) {
            const ssize_t got = read(fd, buffer, sizeof(buffer));
            if (got > 0) {
                message.append(buffer, std::size_t(got));
                if (message.size() > limits.memory_bytes + header_size) {
                    return; // more than the child may build
                }
            } else if (got < 0 && errno == EINTR) {
                continue;
            } else {
                ended = ended || got == 0;
                return;
            }
        }
    };
    while (!report_complete(message)) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            return read_outcome::timed_out;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        pollfd ready{fd, POLLIN, 0};
        const int polled = poll(&ready, 1, int(std::min<long long>(left, 50)) + 1);
        if (polled > 0) {
            drain();
            if (message.size() > limits.memory_bytes + header_size) {
                return read_outcome::oversized;
            }
            if (!ended || report_complete(message)) {
                continue;
            }
        }
        if (gone(ended)) {
            drain(); // what it wrote before it ended
            return report_complete(message) ? read_outcome::complete : read_outcome::gone;
        }
    }
    return read_outcome::complete;
}

[[noreturn]] void throw_incomplete(const template_limits & limits, read_outcome outcome, int status) {
    if (outcome == read_outcome::oversized) {
        throw template_limit_error(template_bound::size, size_bound_message(limits));
    }
    if (outcome == read_outcome::timed_out || (status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)) {
        char text[120];
        std::snprintf(text, sizeof(text), "the template runs too long (time bound: %g s)", limits.seconds);
        throw template_limit_error(template_bound::time, text);
    }
    if (status == -1) {
        throw std::runtime_error("llama.cpp's template engine ended without an answer");
    }
    throw std::runtime_error(describe_exit(status));
}

std::uint64_t child_run_count() {
    return runs_in_children.load(std::memory_order_relaxed);
}

std::string run_contained(const template_limits & limits, const std::function<std::string()> & body) {
    runs_in_children.fetch_add(1, std::memory_order_relaxed);
    int fds[2];
    if (pipe(fds) != 0) {
        throw std::runtime_error(std::string("cannot create a pipe for the chat template: ") + std::strerror(errno));
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) {
        const int error = errno;
        close(fds[0]);
        close(fds[1]);
        if (error == ENOSYS || error == EPERM) {
            // A platform without processes of one's own (iOS): the static checks of the source
            // still apply, and the engine runs on a thread with the bounded stack; time and
            // memory are not bounded there.
            return run_on_stack(limits, body);
        }
        throw std::runtime_error(std::string("cannot start a process for the chat template: ") + std::strerror(error));
    }
    if (child == 0) {
        close(fds[0]);
        child_main(fds[1], parent, limits, body);
    }
    close(fds[1]);
    const int input = fds[0];
    fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK);

    // Read the child's message until it is complete, the child is gone, or the deadline passes.
    // End of file is not awaited: a child forked at the same time by another thread may hold
    // the pipe too.
    int status = 0;
    bool exited = false;
    std::string message;
    const auto outcome = read_report(input, limits, deadline_after(limits), message, [&](bool) {
        const pid_t waited = waitpid(child, &status, WNOHANG);
        exited = waited == child;
        return exited || (waited < 0 && errno == ECHILD);
    });
    if (!exited) {
        if (outcome != read_outcome::complete) {
            kill(child, SIGKILL);
        }
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
    }
    close(input);
    if (outcome != read_outcome::complete) {
        throw_incomplete(limits, outcome, status);
    }
    return take_report(message);
}

std::string take_report(const std::string & message) {
    const unsigned char kind = static_cast<unsigned char>(message[0]);
    const auto bound = static_cast<template_bound>(static_cast<unsigned char>(message[1]));
    std::string payload = message.substr(header_size, announced_length(message));
    if (kind == status_ok || kind == status_ok_retiring) {
        return payload;
    }
    if (kind == status_bound) {
        throw template_limit_error(bound, payload);
    }
    throw std::runtime_error(payload);
}

} // namespace llmkit
