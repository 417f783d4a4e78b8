// The child side of template_guard and of the template workers: runs template work on a thread
// with the limits' stack, under RLIMIT_DATA and RLIMIT_CPU, and reports each result to the
// parent. Everything that can end the child early reports without unwinding the stack: a failed
// allocation (the new-handler), a fault on the stack's guard page (depth), an engine assertion
// (ggml's abort callback), the CPU limit (SIGXCPU) and std::terminate.
#include "template_process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "ggml.h"
#include "log.h"

namespace llmkit {
namespace {

// The child's state, read by its signal handlers (which may only use async-signal-safe calls).
int child_report_fd = -1;
std::uintptr_t child_stack_low = 0;
std::uintptr_t child_stack_high = 0;
char child_depth_message[160];
char child_size_message[160];
char child_time_message[160];

void write_all(int fd, const char * data, std::size_t length) {
    while (length > 0) {
        const ssize_t written = write(fd, data, length);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        data += written;
        length -= std::size_t(written);
    }
}

void on_allocation_failure() {
    report_and_exit(status_bound, template_bound::size, child_size_message);
}

void on_fault(int, siginfo_t * info, void *) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    // A fault just below the stack is the guard page: the stack ran out.
    if (child_stack_low != 0 && address < child_stack_low + (64u << 10) && address + (1u << 20) >= child_stack_low) {
        report_and_exit(status_bound, template_bound::depth, child_depth_message);
    }
    report_and_exit(status_error, template_bound{}, "llama.cpp's template engine crashed (invalid memory access)");
}

void on_abort_signal(int) {
    report_and_exit(status_error, template_bound{}, "llama.cpp's template engine aborted");
}

void on_ggml_abort(const char * message) {
    char text[600];
    std::snprintf(text, sizeof(text), "llama.cpp's template engine failed an assertion: %s", message);
    report_and_exit(status_error, template_bound{}, text);
}

void on_cpu_limit(int) {
    report_and_exit(status_bound, template_bound::time, child_time_message);
}

void on_terminate() {
    report_and_exit(status_error, template_bound{}, "llama.cpp's template engine terminated (an exception it cannot handle)");
}

/// Runs the job's body on the thread whose stack bounds the fault handler knows.
struct child_job {
    const std::function<void()> * body;
};

void * child_thread(void * argument) {
    const auto * job = static_cast<child_job *>(argument);
    static char alternate_stack[64 << 10];
    stack_t stack{};
    stack.ss_sp = alternate_stack;
    stack.ss_size = sizeof(alternate_stack);
    sigaltstack(&stack, nullptr);

#if defined(__linux__)
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void * address = nullptr;
        std::size_t size = 0;
        if (pthread_attr_getstack(&attributes, &address, &size) == 0) {
            child_stack_low = reinterpret_cast<std::uintptr_t>(address);
            child_stack_high = child_stack_low + size;
        }
        pthread_attr_destroy(&attributes);
    }
#elif defined(__APPLE__)
    child_stack_high = reinterpret_cast<std::uintptr_t>(pthread_get_stackaddr_np(pthread_self()));
    child_stack_low = child_stack_high - pthread_get_stacksize_np(pthread_self());
#endif
    try {
        (*job->body)();
    } catch (const template_limit_error & error) {
        report_and_exit(status_bound, error.bound, error.what());
    } catch (const std::exception & error) {
        report_and_exit(status_error, template_bound{}, error.what());
    } catch (...) {
        report_and_exit(status_error, template_bound{}, "unknown C++ exception");
    }
    _exit(0);
}

} // namespace

void report(unsigned char status, template_bound bound, const char * data, std::size_t length) {
    unsigned char header[header_size] = {status, static_cast<unsigned char>(bound)};
    for (int i = 0; i < 8; ++i) {
        header[2 + i] = static_cast<unsigned char>(std::uint64_t(length) >> (8 * i));
    }
    write_all(child_report_fd, reinterpret_cast<const char *>(header), header_size);
    write_all(child_report_fd, data, length);
}

[[noreturn]] void report_and_exit(unsigned char status, template_bound bound, const char * message) {
    report(status, bound, message, std::strlen(message));
    _exit(0);
}

std::size_t current_data_bytes() {
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    char buffer[256] = {};
    const ssize_t length = read(fd, buffer, sizeof(buffer) - 1);
    close(fd);
    if (length <= 0) {
        return 0;
    }
    unsigned long fields[7] = {};
    if (std::sscanf(buffer, "%lu %lu %lu %lu %lu %lu", &fields[0], &fields[1], &fields[2], &fields[3], &fields[4],
                    &fields[5]) != 6) {
        return 0;
    }
    return std::size_t(fields[5]) * std::size_t(sysconf(_SC_PAGESIZE));
}

void prepare_child(int report_fd) {
    child_report_fd = report_fd;
    // Another thread of the parent may have held the log's lock at the fork: never take it here.
    common_log_set_verbosity_thold(-1);
    ggml_set_abort_callback(on_ggml_abort);
    std::set_terminate(on_terminate);
    std::set_new_handler(on_allocation_failure);

    struct sigaction fault{};
    fault.sa_sigaction = on_fault;
    fault.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&fault.sa_mask);
    sigaction(SIGSEGV, &fault, nullptr);
    sigaction(SIGBUS, &fault, nullptr);
    struct sigaction signal_action{};
    signal_action.sa_handler = on_abort_signal;
    sigemptyset(&signal_action.sa_mask);
    sigaction(SIGABRT, &signal_action, nullptr);
    signal_action.sa_handler = on_cpu_limit;
    sigaction(SIGXCPU, &signal_action, nullptr);
    sigset_t unblocked;
    sigemptyset(&unblocked);
    for (int number : {SIGSEGV, SIGBUS, SIGABRT, SIGXCPU}) {
        sigaddset(&unblocked, number);
    }
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nullptr);
}

void limit_child(const template_limits & limits, std::size_t base_data_bytes) {
    std::snprintf(child_depth_message, sizeof(child_depth_message),
                  "the template recurses or nests too deeply (depth bound: %zu MiB of stack)", limits.stack_bytes >> 20);
    std::snprintf(child_size_message, sizeof(child_size_message), "%s", size_bound_message(limits).c_str());
    std::snprintf(child_time_message, sizeof(child_time_message), "the template runs too long (time bound: %g s)",
                  limits.seconds);
    // Room for the engine's thread stack and its malloc arena, plus the memory bound.
    const rlim_t data = rlim_t(base_data_bytes + limits.stack_bytes + (128u << 20) + limits.memory_bytes);
    struct rlimit memory{};
    if (getrlimit(RLIMIT_DATA, &memory) == 0 && (memory.rlim_max == RLIM_INFINITY || data <= memory.rlim_max)) {
        memory.rlim_cur = data;
        setrlimit(RLIMIT_DATA, &memory);
    }
    // The CPU time limit counts from the process's start: what it used so far, plus the bound.
    struct rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double used = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    struct rlimit cpu{};
    if (getrlimit(RLIMIT_CPU, &cpu) == 0) {
        const rlim_t seconds = rlim_t(used + limits.seconds) + 2;
        if (cpu.rlim_max == RLIM_INFINITY || seconds <= cpu.rlim_max) {
            cpu.rlim_cur = seconds;
            setrlimit(RLIMIT_CPU, &cpu);
        }
    }
}

[[noreturn]] void run_child_thread(std::size_t stack_bytes, const std::function<void()> & body) {
    child_job job{&body};
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) == 0 && pthread_attr_setstacksize(&attributes, stack_bytes) == 0 &&
        pthread_create(&thread, &attributes, child_thread, &job) == 0) {
        pthread_join(thread, nullptr);
    } else {
        report_and_exit(status_error, template_bound{}, "cannot start the thread that renders the chat template");
    }
    _exit(0);
}

[[noreturn]] void child_main(int report_fd, pid_t parent, const template_limits & limits,
                             const std::function<std::string()> & body) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
        _exit(1);
    }
#else
    (void) parent;
#endif
    prepare_child(report_fd);
    limit_child(limits, current_data_bytes());
    run_child_thread(limits.stack_bytes, [&] {
        const std::string result = body();
        report(status_ok, template_bound{}, result.data(), result.size());
    });
}

} // namespace llmkit
