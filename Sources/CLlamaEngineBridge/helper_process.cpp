// The helper process of a loaded model (llmkit_engine.h): forked once, right after the model
// loads, it forks workers on request and hands this process one end of a socket to each.
//
// Why a helper and not a fork of this process per worker: a fork copies the page tables of
// everything this process holds (KV caches, compute buffers: hundreds of megabytes), and every
// page this process writes afterwards is copied once more while the child lives; a long-lived
// child would keep those copies, doubling the memory of the caches. The helper is forked while
// the process is small, and stays small: it only reads commands and forks.
//
// The helper and its workers end on their own when this process goes: their sockets reach end of
// file, and a worker is killed when the helper dies (PR_SET_PDEATHSIG on Linux).
#include "llmkit_engine.h"
#include "llmkit_bridge_support.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace {

enum : std::uint8_t { op_spawn = 1, op_end = 2 };

/// A command from this process to the helper.
struct command {
    std::uint64_t op;
    std::uint64_t entry;
    std::uint64_t argument;
    std::uint64_t variant;
    std::int64_t  pid;
};

/// The helper's answer: a new worker's process id (its socket comes with it), or a wait status;
/// negative on failure.
struct answer {
    std::int64_t value;
};

/// Workers kept idle per kind: at least this many, and as many as were ever busy at once (a
/// server's requests arrive together and render together: a burst of eight needs eight, and
/// forking and parsing the template anew for each took longer than the render), up to
/// `most_idle_per_kind`. More would only hold memory.
constexpr std::size_t idle_per_kind = 2;
constexpr std::size_t most_idle_per_kind = 16;
/// Ended workers whose wait status the helper remembers until asked.
constexpr std::size_t remembered_ends = 256;

void set_close_on_exec(int fd) {
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

/// Closes every descriptor from 3 up but `keep`: the helper must hold none of this process's
/// files (a listening socket would stay bound; another worker's socket would never reach end of file).
void close_other_descriptors(int keep) {
#if defined(__linux__) && defined(SYS_close_range)
    const bool below = keep <= 3 || syscall(SYS_close_range, 3u, unsigned(keep - 1), 0u) == 0;
    if (below && syscall(SYS_close_range, unsigned(keep + 1), ~0u, 0u) == 0) {
        return;
    }
#endif
    long limit = sysconf(_SC_OPEN_MAX);
    if (limit < 0 || limit > 65536) {
        limit = 65536;
    }
    for (int fd = 3; fd < limit; ++fd) {
        if (fd != keep) {
            close(fd);
        }
    }
}

/// Sends `value`, with descriptor `fd` attached when it is not negative.
bool send_answer(int control, std::int64_t value, int fd) {
    answer message{value};
    iovec part{&message, sizeof(message)};
    msghdr header{};
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
    if (fd >= 0) {
        header.msg_control = space;
        header.msg_controllen = sizeof(space);
        cmsghdr * attached = CMSG_FIRSTHDR(&header);
        attached->cmsg_level = SOL_SOCKET;
        attached->cmsg_type = SCM_RIGHTS;
        attached->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(attached), &fd, sizeof(int));
    }
    for (;;) {
        if (sendmsg(control, &header, 0) == ssize_t(sizeof(message))) {
            return true;
        }
        if (errno != EINTR) {
            return false;
        }
    }
}

/// Receives an answer and the descriptor attached to it (-1 when none).
bool receive_answer(int control, std::int64_t & value, int & fd) {
    answer message{};
    iovec part{&message, sizeof(message)};
    msghdr header{};
    header.msg_iov = &part;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
    header.msg_control = space;
    header.msg_controllen = sizeof(space);
    ssize_t got;
    while ((got = recvmsg(control, &header, 0)) < 0 && errno == EINTR) {
    }
    fd = -1;
    for (cmsghdr * attached = got > 0 ? CMSG_FIRSTHDR(&header) : nullptr; attached;
         attached = CMSG_NXTHDR(&header, attached)) {
        if (attached->cmsg_level == SOL_SOCKET && attached->cmsg_type == SCM_RIGHTS) {
            std::memcpy(&fd, CMSG_DATA(attached), sizeof(int));
        }
    }
    if (got != ssize_t(sizeof(message))) {
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    if (fd >= 0) {
        set_close_on_exec(fd);
    }
    value = message.value;
    return true;
}

/// The helper: forks a worker per spawn command, reaps them, and reports how they ended.
[[noreturn]] void helper_main(int control) {
    close_other_descriptors(control);
    // The workers it forks (chat templates) run below the process's own threads: a burst of
    // slow renders then slows itself, not the answers to other requests.
    setpriority(PRIO_PROCESS, 0, llmkit_background_niceness);
    // Nor its input and output: a reader of this process's output must see it end with the process.
    const int nothing = open("/dev/null", O_RDWR);
    if (nothing >= 0) {
        dup2(nothing, STDIN_FILENO);
        dup2(nothing, STDOUT_FILENO);
        if (nothing > STDERR_FILENO) {
            close(nothing);
        }
    }
    // Handlers of this process (Swift code among them) must never run here. The helper and its
    // workers end by end of file or SIGKILL, not by the terminal's or a supervisor's signals.
    for (int number = 1; number < NSIG; ++number) {
        if (number != SIGKILL && number != SIGSTOP) {
            signal(number, SIG_DFL);
        }
    }
    for (int number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGUSR1, SIGUSR2}) {
        signal(number, SIG_IGN);
    }
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);   // the forking thread's mask is not the workers' business
    std::set<pid_t> running;
    std::map<pid_t, int> ended;
    std::deque<pid_t> ended_order;
    auto reap = [&] {
        int status = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            running.erase(pid);
            ended[pid] = status;
            ended_order.push_back(pid);
            if (ended_order.size() > remembered_ends) {
                ended.erase(ended_order.front());
                ended_order.pop_front();
            }
        }
    };
    for (;;) {
        command order{};
        if (!llmkit::read_fully(control, &order, sizeof(order))) {
            _exit(0);   // this process is gone, or stopped the helper
        }
        reap();
        if (order.op == op_spawn) {
            int ends[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) {
                send_answer(control, -errno, -1);
                continue;
            }
            const pid_t pid = fork();
            if (pid == 0) {
                close(control);
                close(ends[0]);
#ifdef __linux__
                prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
                reinterpret_cast<llmkit_worker_entry>(order.entry)(ends[1], reinterpret_cast<const void *>(order.argument),
                                                                   order.variant);
                _exit(0);
            }
            const int error = errno;
            close(ends[1]);
            if (pid < 0) {
                close(ends[0]);
                send_answer(control, -error, -1);
                continue;
            }
            running.insert(pid);
            send_answer(control, pid, ends[0]);
            close(ends[0]);
        } else if (order.op == op_end) {
            std::int64_t status = -1;
            const pid_t pid = pid_t(order.pid);
            if (running.count(pid)) {
                kill(pid, SIGKILL);
                int waited = 0;
                while (waitpid(pid, &waited, 0) < 0 && errno == EINTR) {
                }
                running.erase(pid);
                status = waited;
            } else if (auto found = ended.find(pid); found != ended.end()) {
                status = found->second;
                ended.erase(found);
            }
            send_answer(control, status, -1);
        } else {
            send_answer(control, -EINVAL, -1);
        }
    }
}

} // namespace

struct llmkit_helper {
    /// What a worker runs: its entry, argument and variant.
    struct kind {
        std::uint64_t entry, argument, variant;
        bool operator==(const kind & other) const {
            return entry == other.entry && argument == other.argument && variant == other.variant;
        }
    };
    struct idle_worker {
        kind of;
        llmkit_worker worker;
    };
    struct busy_worker {
        kind of;
        std::int64_t pid;
    };
    /// The most workers of a kind that were ever busy at once.
    struct peak {
        kind of;
        std::size_t busy;
    };

    int control;
    pid_t pid;
    std::mutex mutex;                // one command at a time; guards the lists below
    std::vector<idle_worker> idle;
    std::vector<busy_worker> busy;
    std::vector<peak> peaks;

    /// Records `worker` as busy with work of kind `of`.
    void mark_busy(const kind & of, const llmkit_worker & worker) {
        busy.push_back({of, worker.pid});
        std::size_t same = 0;
        for (const auto & other : busy) {
            same += other.of == of;
        }
        for (auto & known : peaks) {
            if (known.of == of) {
                known.busy = std::max(known.busy, same);
                return;
            }
        }
        peaks.push_back({of, same});
    }

    /// Forgets `pid` as busy.
    void mark_done(std::int64_t done) {
        for (auto entry = busy.begin(); entry != busy.end(); ++entry) {
            if (entry->pid == done) {
                busy.erase(entry);
                return;
            }
        }
    }

    /// How many idle workers of kind `of` to keep.
    std::size_t idle_limit(const kind & of) const {
        for (const auto & known : peaks) {
            if (known.of == of) {
                return std::clamp(known.busy, idle_per_kind, most_idle_per_kind);
            }
        }
        return idle_per_kind;
    }
};

extern "C" llmkit_helper * llmkit_helper_start(void) {
    try {
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) {
            return nullptr;
        }
        const pid_t pid = fork();
        if (pid == 0) {
            close(ends[0]);
            helper_main(ends[1]);
        }
        close(ends[1]);
        if (pid < 0) {
            close(ends[0]);
            return nullptr;
        }
        set_close_on_exec(ends[0]);
        return new llmkit_helper{ends[0], pid, {}, {}, {}, {}};
    } catch (...) {
        return nullptr;
    }
}

extern "C" int64_t llmkit_helper_pid(const llmkit_helper * helper) {
    return helper ? helper->pid : -1;
}

extern "C" void llmkit_helper_stop(llmkit_helper * helper) {
    if (!helper) {
        return;
    }
    for (const auto & kept : helper->idle) {
        close(kept.worker.socket);
    }
    close(helper->control);          // the helper reads end of file and exits; its workers follow
    while (waitpid(helper->pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    delete helper;
}

extern "C" bool llmkit_helper_acquire(llmkit_helper * helper, llmkit_worker_entry entry, const void * argument,
                                      uint64_t variant, llmkit_worker * worker) {
    if (!helper || !entry || !worker) {
        return false;
    }
    try {
        std::lock_guard<std::mutex> lock(helper->mutex);
        const llmkit_helper::kind of{reinterpret_cast<std::uint64_t>(entry), reinterpret_cast<std::uint64_t>(argument),
                                     variant};
        for (auto kept = helper->idle.rbegin(); kept != helper->idle.rend(); ++kept) {
            if (kept->of == of) {
                *worker = kept->worker;
                helper->idle.erase(std::next(kept).base());
                helper->mark_busy(of, *worker);
                return true;
            }
        }
        const command order{op_spawn, of.entry, of.argument, variant, 0};
        std::int64_t pid = -1;
        int socket = -1;
        if (!llmkit::send_fully(helper->control, &order, sizeof(order)) || !receive_answer(helper->control, pid, socket)) {
            return false;
        }
        if (pid <= 0 || socket < 0) {
            if (socket >= 0) {
                close(socket);
            }
            return false;
        }
        *worker = llmkit_worker{socket, pid};
        helper->mark_busy(of, *worker);
        return true;
    } catch (...) {
        return false;
    }
}

extern "C" void llmkit_helper_release(llmkit_helper * helper, llmkit_worker_entry entry, const void * argument,
                                      uint64_t variant, llmkit_worker worker) {
    if (!helper) {
        close(worker.socket);
        return;
    }
    try {
        std::lock_guard<std::mutex> lock(helper->mutex);
        const llmkit_helper::kind of{reinterpret_cast<std::uint64_t>(entry), reinterpret_cast<std::uint64_t>(argument),
                                     variant};
        helper->mark_done(worker.pid);
        std::size_t same = 0;
        for (const auto & kept : helper->idle) {
            same += kept.of == of;
        }
        if (same < helper->idle_limit(of)) {
            helper->idle.push_back({of, worker});
            return;
        }
    } catch (...) {
    }
    close(worker.socket);            // end of file: the worker exits, and the helper reaps it
}

extern "C" int llmkit_helper_end(llmkit_helper * helper, llmkit_worker worker) {
    close(worker.socket);
    if (!helper) {
        return -1;
    }
    try {
        std::lock_guard<std::mutex> lock(helper->mutex);
        helper->mark_done(worker.pid);
        const command order{op_end, 0, 0, 0, worker.pid};
        std::int64_t status = -1;
        int socket = -1;
        if (!llmkit::send_fully(helper->control, &order, sizeof(order)) || !receive_answer(helper->control, status, socket)) {
            return -1;
        }
        if (socket >= 0) {
            close(socket);
        }
        return int(status);
    } catch (...) {
        return -1;
    }
}
