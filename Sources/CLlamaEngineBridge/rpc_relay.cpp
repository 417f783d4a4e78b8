// The relay between ggml-rpc's client and a remote server (rpc_relay.hpp).
//
// ggml-rpc's protocol is a sequence of requests, one at a time on a connection:
//   request:  | command (1 byte) | size (8 bytes) | payload (size bytes) |
//   response: | size (8 bytes) | payload (size bytes) |        (only for some commands)
// The relay forwards each request and, where one comes, its response. Once the server is gone it
// keeps reading the client's requests and answers those that expect an answer with one of the
// right size (zeros, or values that let llama.cpp finish its call), so that the client never sees
// a failure: ggml-rpc aborts the process on any.
#include "rpc_relay.hpp"

#include "ggml-rpc.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace llmkit::rpc {

// The commands of ggml-rpc's protocol 7 (ggml-rpc.cpp's enum rpc_cmd, private to it). Another
// protocol version must be checked against that enum before this relay may forward it.
static_assert(RPC_PROTO_MAJOR_VERSION == 7, "review the relay's command table for this ggml-rpc protocol");
enum : std::uint8_t {
    cmd_alloc_buffer = 0, cmd_get_alignment, cmd_get_max_size, cmd_buffer_get_base, cmd_free_buffer,
    cmd_buffer_clear, cmd_set_tensor, cmd_set_tensor_hash, cmd_get_tensor, cmd_copy_tensor,
    cmd_graph_compute, cmd_get_device_memory, cmd_init_tensor, cmd_get_alloc_size, cmd_hello,
    cmd_device_count, cmd_graph_recompute, cmd_memset_tensor, cmd_count = 19,
};
constexpr std::size_t caps_size = 24;                       // transport.h's RPC_CONN_CAPS_SIZE
constexpr std::size_t hello_response_size = 4 + caps_size;

namespace {

bool expects_response(std::uint8_t command) {
    switch (command) {
    case cmd_alloc_buffer: case cmd_get_alignment: case cmd_get_max_size: case cmd_buffer_get_base:
    case cmd_set_tensor_hash: case cmd_get_tensor: case cmd_copy_tensor: case cmd_get_device_memory:
    case cmd_get_alloc_size: case cmd_hello: case cmd_device_count:
        return true;
    default:
        return false;
    }
}

std::string describe_errno(const char * what) {
    return std::string(what) + ": " + std::strerror(errno);
}

/// Waits until `fd` is ready for `events`; false on timeout (negative: wait forever).
bool wait_for(int fd, short events, int timeout_ms) {
    pollfd entry{fd, events, 0};
    while (true) {
        int ready = ::poll(&entry, 1, timeout_ms);
        if (ready > 0) return true;
        if (ready == 0) return false;
        if (errno != EINTR) return false;
    }
}

/// Reads exactly `size` bytes; false at end of file or on an error (or past `timeout_ms` when
/// one is given).
bool read_full(int fd, void * data, std::size_t size, int timeout_ms = -1) {
    auto * bytes = static_cast<std::uint8_t *>(data);
    while (size > 0) {
        if (timeout_ms >= 0 && !wait_for(fd, POLLIN, timeout_ms)) return false;
        ssize_t n = ::recv(fd, bytes, size, 0);
        if (n == 0) return false;
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        bytes += n;
        size -= std::size_t(n);
    }
    return true;
}

bool write_full(int fd, const void * data, std::size_t size) {
    const auto * bytes = static_cast<const std::uint8_t *>(data);
    while (size > 0) {
        ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        bytes += n;
        size -= std::size_t(n);
    }
    return true;
}

void set_option(int fd, int level, int name, int value) {
    ::setsockopt(fd, level, name, &value, sizeof value);
}

}  // namespace

endpoint endpoint::parse(const std::string & text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        throw std::invalid_argument("'" + text + "' is not host:port");
    }
    endpoint result;
    result.host = text.substr(0, colon);
    if (result.host.size() > 2 && result.host.front() == '[' && result.host.back() == ']') {
        result.host = result.host.substr(1, result.host.size() - 2);
    }
    const std::string port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })
        || std::stoi(port) < 1 || std::stoi(port) > 65535) {
        throw std::invalid_argument("'" + text + "' has no port between 1 and 65535");
    }
    if (result.host.empty() || result.host.size() > 253) {
        throw std::invalid_argument("'" + text + "' has no host");
    }
    result.port = std::stoi(port);
    return result;
}

int connect_to(const endpoint & target, double timeout_seconds) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo * found = nullptr;
    const std::string port = std::to_string(target.port);
    if (int code = ::getaddrinfo(target.host.c_str(), port.c_str(), &hints, &found); code != 0) {
        throw std::runtime_error("cannot resolve " + target.host + ": " + ::gai_strerror(code));
    }
    std::string failure = "no address";
    const int timeout_ms = int(std::clamp(timeout_seconds, 0.001, 3600.0) * 1000);
    for (addrinfo * address = found; address; address = address->ai_next) {
        int fd = ::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol);
        if (fd < 0) { failure = describe_errno("socket"); continue; }
        int flags = ::fcntl(fd, F_GETFL, 0);
        ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        int rc = ::connect(fd, address->ai_addr, address->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            if (!wait_for(fd, POLLOUT, timeout_ms)) {
                failure = "no answer within " + std::to_string(timeout_ms / 1000.0).substr(0, 5) + " s";
                ::close(fd);
                continue;
            }
            int error = 0;
            socklen_t length = sizeof error;
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
            rc = error == 0 ? 0 : -1;
            errno = error;
        }
        if (rc != 0) {
            failure = std::strerror(errno);
            ::close(fd);
            continue;
        }
        ::fcntl(fd, F_SETFL, flags);
        set_option(fd, IPPROTO_TCP, TCP_NODELAY, 1);
        // A peer that vanishes without closing (a host switched off, a cable pulled) is noticed
        // within about half a minute instead of the kernel's hours.
        set_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
#ifdef __linux__
        set_option(fd, IPPROTO_TCP, TCP_KEEPIDLE, 10);
        set_option(fd, IPPROTO_TCP, TCP_KEEPINTVL, 5);
        set_option(fd, IPPROTO_TCP, TCP_KEEPCNT, 3);
        set_option(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, 30000);
#endif
        ::freeaddrinfo(found);
        return fd;
    }
    ::freeaddrinfo(found);
    throw std::runtime_error("cannot connect to " + target.host + ":" + port + ": " + failure);
}

void check_hello(int fd, const std::string & name, double timeout_seconds) {
    const int timeout_ms = int(std::clamp(timeout_seconds, 0.001, 3600.0) * 1000);
    std::uint8_t request[1 + 8 + caps_size] = {cmd_hello};
    const std::uint64_t size = caps_size;
    std::memcpy(request + 1, &size, sizeof size);
    if (!write_full(fd, request, sizeof request)) {
        throw std::runtime_error(name + " closed the connection (" + std::strerror(errno) + ")");
    }
    std::uint64_t answer_size = 0;
    if (!read_full(fd, &answer_size, sizeof answer_size, timeout_ms)) {
        throw std::runtime_error(name + " did not answer ggml-rpc's HELLO within " + std::to_string(int(timeout_seconds))
                                 + " s (not an RPC server, or busy with another client: it serves one at a time)");
    }
    if (answer_size != hello_response_size) {
        throw std::runtime_error(name + " is not a ggml-rpc server of protocol " + std::to_string(RPC_PROTO_MAJOR_VERSION)
                                 + " (its HELLO answer has " + std::to_string(answer_size) + " bytes)");
    }
    std::uint8_t answer[hello_response_size];
    if (!read_full(fd, answer, sizeof answer, timeout_ms)) {
        throw std::runtime_error(name + " closed the connection during HELLO");
    }
    if (answer[0] != RPC_PROTO_MAJOR_VERSION || answer[1] > RPC_PROTO_MINOR_VERSION) {
        throw std::runtime_error(name + " speaks ggml-rpc protocol " + std::to_string(answer[0]) + "." + std::to_string(answer[1])
                                 + "." + std::to_string(answer[2]) + "; this llama.cpp speaks "
                                 + std::to_string(RPC_PROTO_MAJOR_VERSION) + "." + std::to_string(RPC_PROTO_MINOR_VERSION)
                                 + " (run the same llama.cpp on both ends)");
    }
}

relay::relay(std::string name, endpoint target) : name_(std::move(name)), target_(std::move(target)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_ < 0) throw std::runtime_error(describe_errno("relay socket"));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
        || ::listen(listener_, 16) != 0
        || ::getsockname(listener_, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
        std::string failure = describe_errno("relay listen");
        ::close(listener_);
        throw std::runtime_error(failure);
    }
    local_ = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
    std::thread([this] { accept_loop(); }).detach();
}

bool relay::lost(std::string * reason) const {
    if (!lost_.load()) return false;
    if (reason) {
        std::lock_guard<std::mutex> lock(mutex_);
        *reason = reason_;
    }
    return true;
}

void relay::mark_lost(const std::string & reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!lost_.exchange(true)) reason_ = reason;
}

void relay::accept_loop() {
    while (true) {
        int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return;         // the listener failed: later connections are refused
        }
        set_option(client, IPPROTO_TCP, TCP_NODELAY, 1);
        std::thread([this, client] { serve(client); }).detach();
    }
}

void relay::serve(int client) {
    int server = -1;
    auto lose = [&](const std::string & reason) {
        mark_lost(reason);
        if (server >= 0) ::close(server);
        server = -1;
    };
    if (!lost_.load()) {
        try {
            server = connect_to(target_, 10);
        } catch (const std::exception & e) {
            mark_lost(e.what());
        }
    }
    std::vector<std::uint8_t> buffer(1 << 20);
    while (true) {
        std::uint8_t header[9];
        if (!read_full(client, header, sizeof header)) break;       // the client is done
        const std::uint8_t command = header[0];
        std::uint64_t size;
        std::memcpy(&size, header + 1, sizeof size);
        if (server >= 0 && !write_full(server, header, sizeof header)) lose("the connection to " + name_ + " failed while sending");
        // The request's last 8 bytes: the size asked for by GET_TENSOR and ALLOC_BUFFER.
        std::uint8_t tail[8] = {};
        bool complete = true;
        for (std::uint64_t remaining = size; remaining > 0;) {
            const std::size_t chunk = std::size_t(std::min<std::uint64_t>(remaining, buffer.size()));
            if (!read_full(client, buffer.data(), chunk)) { complete = false; break; }
            if (server >= 0 && !write_full(server, buffer.data(), chunk)) lose("the connection to " + name_ + " failed while sending");
            remaining -= chunk;
            if (chunk >= 8) {
                std::memcpy(tail, buffer.data() + chunk - 8, 8);
            } else {
                std::memmove(tail, tail + chunk, 8 - chunk);
                std::memcpy(tail + 8 - chunk, buffer.data(), chunk);
            }
        }
        if (!complete) break;
        if (command >= cmd_count) {
            // Nothing this relay can answer for: the client is of another protocol.
            lose(name_ + ": the client sent command " + std::to_string(command) + ", unknown to protocol "
                 + std::to_string(RPC_PROTO_MAJOR_VERSION));
            break;
        }
        if (!expects_response(command)) continue;
        if (server >= 0) {
            std::uint64_t answer_size;
            if (read_full(server, &answer_size, sizeof answer_size)) {
                if (!write_full(client, &answer_size, sizeof answer_size)) break;
                std::uint64_t remaining = answer_size;
                while (remaining > 0) {
                    const std::size_t chunk = std::size_t(std::min<std::uint64_t>(remaining, buffer.size()));
                    if (server >= 0 && !read_full(server, buffer.data(), chunk)) {
                        lose(name_ + " closed the connection while answering");
                    }
                    if (server < 0) std::memset(buffer.data(), 0, chunk);
                    if (!write_full(client, buffer.data(), chunk)) { complete = false; break; }
                    remaining -= chunk;
                }
                if (!complete) break;
                continue;
            }
            lose(name_ + " closed the connection (the server stopped or crashed)");
        }
        // The server is gone: an answer of the size the client expects.
        std::uint64_t asked;
        std::memcpy(&asked, tail, sizeof asked);
        std::vector<std::uint8_t> answer;
        auto put = [&answer](std::uint64_t value) {
            const auto * bytes = reinterpret_cast<const std::uint8_t *>(&value);
            answer.insert(answer.end(), bytes, bytes + sizeof value);
        };
        switch (command) {
        case cmd_hello:
            answer.assign(hello_response_size, 0);
            answer[0] = RPC_PROTO_MAJOR_VERSION;
            answer[1] = RPC_PROTO_MINOR_VERSION;
            break;
        case cmd_device_count: answer = {1, 0, 0, 0}; break;
        case cmd_alloc_buffer: put(next_fake_pointer()); put(asked); break;
        case cmd_get_alignment: put(64); break;
        case cmd_get_max_size: put(std::uint64_t(1) << 48); break;
        case cmd_buffer_get_base: put(next_fake_pointer()); break;
        case cmd_get_alloc_size: put(0); break;
        case cmd_set_tensor_hash: case cmd_copy_tensor: answer = {1}; break;
        case cmd_get_device_memory: put(0); put(0); break;
        case cmd_get_tensor:
            if (asked > (std::uint64_t(1) << 32)) { complete = false; break; }
            answer.assign(std::size_t(asked), 0);
            break;
        default: complete = false; break;
        }
        if (!complete) break;
        const std::uint64_t answer_size = answer.size();
        if (!write_full(client, &answer_size, sizeof answer_size) || !write_full(client, answer.data(), answer.size())) break;
    }
    ::close(client);
    if (server >= 0) ::close(server);
}

}  // namespace llmkit::rpc
