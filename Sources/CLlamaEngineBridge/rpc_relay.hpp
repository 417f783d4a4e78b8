// The relay between ggml-rpc's client in this process and one remote server (see llmkit_rpc.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace llmkit::rpc {

/// A remote endpoint split into host and port: "host:port" or "[v6 address]:port".
struct endpoint {
    std::string host;
    int port = 0;

    /// Parses `text`; throws std::invalid_argument naming what is wrong.
    static endpoint parse(const std::string & text);
};

/// Opens a TCP connection to `target` within `timeout_seconds`, tuned to notice a vanished peer
/// (keep-alive probes, a bound on unacknowledged data); throws std::runtime_error.
int connect_to(const endpoint & target, double timeout_seconds);

/// Asks the server on `fd` for ggml-rpc's HELLO and checks its protocol version, within
/// `timeout_seconds`; throws std::runtime_error naming what it got instead.
void check_hello(int fd, const std::string & name, double timeout_seconds);

/// Listens on loopback and relays each connection ggml-rpc's client opens to the server.
class relay {
public:
    relay(std::string name, endpoint target);
    relay(const relay &) = delete;
    relay & operator=(const relay &) = delete;

    /// "127.0.0.1:port", the endpoint ggml-rpc's client is given.
    const std::string & local_endpoint() const { return local_; }
    const std::string & name() const { return name_; }
    /// Whether the server was lost, and how.
    bool lost(std::string * reason) const;
    /// Records the loss (the first reason stays).
    void mark_lost(const std::string & reason);

private:
    void accept_loop();
    void serve(int client);
    std::uint64_t next_fake_pointer() { return fake_pointer_.fetch_add(1 << 20); }

    std::string name_;
    endpoint target_;
    int listener_ = -1;
    std::string local_;
    std::atomic<bool> lost_{false};
    mutable std::mutex mutex_;
    std::string reason_;                       // guarded by mutex_
    std::atomic<std::uint64_t> fake_pointer_{1ull << 40};
};

}  // namespace llmkit::rpc
