// The connection gate: what stands between accepted connections and the worker threads that
// answer requests.
//
// cpp-httplib gives every accepted connection a worker thread at once, which then waits for the
// request to arrive. A few hundred clients that connect and send nothing (or a byte a second)
// then hold every worker, and every other request, /health included, waits for their timeouts.
// Here one thread watches every connection with poll instead, and reads each request whole
// (head and body, see RequestFraming) before a worker sees it: a worker only ever answers a
// request that is ready, so all of them stay in reserve for those.
//
// Bounds, each with a deadline of its own:
// - a connection must deliver its request head within the header timeout, and the whole request
//   within the request timeout, counted from its first byte; an idle kept-alive connection is
//   closed after the keep-alive timeout;
// - open connections that are not being answered are bounded per client address and in total;
//   past a bound, the oldest such connection that has never completed a request is closed first
//   (then the oldest idle one), so that a flood of silent connections only displaces itself;
// - bytes buffered for requests still arriving are bounded in total: past it, reading from the
//   connections still arriving pauses until answers free room.
#pragma once

#include "request_framing.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace llmkit_http {

struct GateLimits {
    size_t workers;                   // requests answered at once
    size_t max_connections;           // open connections not being answered, in total
    size_t max_connections_per_address;
    size_t max_buffered_bytes;        // bytes of requests still arriving, in total
    size_t max_head_bytes;
    size_t max_body_bytes;
    std::chrono::milliseconds header_timeout;
    std::chrono::milliseconds request_timeout;
    std::chrono::milliseconds keep_alive_timeout;
    size_t keep_alive_max_requests;   // requests per connection
};

/// A connection handed to a worker, its request whole at the start of `bytes`.
struct ReadyConnection {
    int fd;
    std::string address;              // the client's address, without the port
    int port;
    std::string bytes;                // the request (and anything sent after it)
    size_t served;                    // requests answered on this connection before
};

class ConnectionGate {
public:
    /// Answers one request on a worker thread. Returns whether the connection stays open for
    /// another request, and leaves in `connection.bytes` what was read but not used.
    using Serve = std::function<bool(ReadyConnection & connection, bool last_request)>;

    ConnectionGate(const GateLimits & limits, Serve serve);
    ~ConnectionGate();

    /// Takes an accepted connection (from the accepting thread).
    void admit(int fd);
    /// Closes every connection and waits for the workers to finish the requests they answer.
    void stop();

private:
    struct Connection {
        int fd;
        std::string address;
        int port;
        std::string bytes;
        std::unique_ptr<RequestFraming> framing;
        size_t served = 0;
        bool receiving = false;                 // a request has begun to arrive
        bool paused = false;                    // not read while the buffer bound is reached
        std::chrono::steady_clock::time_point opened, started, idle_since;
        uint64_t order;                         // admission order: lower is older
    };

    void watch();
    void wake_up();
    void accept_pending();
    void read_from(Connection & connection);
    void hand_over(int fd);
    void close_connection(int fd);
    void make_room(const std::string & address);
    void expire(std::chrono::steady_clock::time_point now);
    void resume_paused();
    void work();
    void give_back(ReadyConnection && connection);
    RequestFraming * new_framing();

    const GateLimits limits;
    const Serve serve;
    int wake[2] = {-1, -1};                     // a pipe that wakes the watcher for new work

    // Shared with the accepting thread and the workers.
    std::mutex inbox_mutex;
    std::vector<int> admitted;
    std::vector<ReadyConnection> returned;
    bool stopping = false;

    // The watcher thread's own.
    std::unordered_map<int, Connection> connections;
    std::map<std::string, size_t> per_address;
    size_t buffered = 0;
    uint64_t next_order = 0;

    // The workers' queue.
    std::mutex queue_mutex;
    std::condition_variable queue_changed;
    std::deque<ReadyConnection> ready;
    bool draining = false;

    std::thread watcher;
    std::vector<std::thread> workers;
};

/// "address" and port of a socket's peer; false when it has none.
bool peer_of_socket(int fd, std::string & address, int & port);

}  // namespace llmkit_http
