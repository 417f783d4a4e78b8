// A deadline for receiving each whole request (line, headers, body).
//
// cpp-httplib bounds each read, not a request: a client that sends one byte a second
// (slowloris) would hold a worker forever. A watchdog thread finds the server's open connections
// (the process's sockets whose local port is the server's and that have a peer), and shuts down
// any connection that has not delivered a complete request within the limit since it was first
// seen or since its previous answer was written. Connections are named by their peer address,
// which is what the request handler knows; a socket is checked against that name again just
// before it is shut down, so a reused descriptor is never touched.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace llmkit_http {

class RequestDeadlines {
public:
    using Clock = std::chrono::steady_clock;

    RequestDeadlines(int port, std::chrono::milliseconds limit, std::chrono::milliseconds keep_alive);
    ~RequestDeadlines();

    /// A request of this connection has fully arrived: no deadline while it is answered.
    void received(const std::string & peer);
    /// Its answer has been written: the next request must arrive within keep-alive plus the limit.
    void answered(const std::string & peer);

private:
    struct Connection {
        int fd;
        Clock::time_point deadline;
        bool answering;
        bool seen;
    };

    void watch();
    void scan(Clock::time_point now);

    const int port;
    const std::chrono::milliseconds limit;
    const std::chrono::milliseconds keep_alive;
    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
    std::map<std::string, Connection> connections;
    std::thread thread;
};

/// "address:port" of a socket's peer, or "" when it is not a connected TCP socket whose local
/// port is `local_port`.
std::string peer_name(int fd, int local_port);

}  // namespace llmkit_http
