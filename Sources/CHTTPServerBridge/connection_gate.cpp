#include "connection_gate.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace llmkit_http {

namespace {

using Clock = std::chrono::steady_clock;

const char kServiceUnavailable[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 115\r\n"
    "Connection: close\r\n\r\n"
    "{\"error\":{\"message\":\"the server has too many requests waiting\",\"type\":\"server_error\",\"param\":null,\"code\":null}}";

/// Closes a connection whose answer may still be on its way: the write side first, then what the
/// client still sends is drained briefly, so that the close does not reset the connection (a reset
/// can discard the answer's last bytes before the client reads them).
void close_gracefully(int fd) {
    shutdown(fd, SHUT_WR);
    char sink[4096];
    for (int rounds = 0; rounds < 16; ++rounds) {
        pollfd entry{fd, POLLIN, 0};
        if (poll(&entry, 1, rounds == 0 ? 50 : 0) <= 0) break;
        if (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0) break;
    }
    close(fd);
}

}  // namespace

bool peer_of_socket(int fd, std::string & address, int & port) {
    sockaddr_storage peer{};
    socklen_t length = sizeof(peer);
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &length) != 0) return false;
    char text[INET6_ADDRSTRLEN] = {0};
    if (peer.ss_family == AF_INET) {
        auto * in = reinterpret_cast<sockaddr_in *>(&peer);
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
        port = ntohs(in->sin_port);
    } else if (peer.ss_family == AF_INET6) {
        auto * in = reinterpret_cast<sockaddr_in6 *>(&peer);
        inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof(text));
        port = ntohs(in->sin6_port);
    } else {
        return false;
    }
    address = text;
    return true;
}

ConnectionGate::ConnectionGate(const GateLimits & limits, Serve serve) : limits(limits), serve(std::move(serve)) {
    if (pipe(wake) != 0) throw std::runtime_error("cannot create the connection gate's wake-up pipe");
    for (int end : wake) {
        fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK);
        fcntl(end, F_SETFD, FD_CLOEXEC);
    }
    for (size_t i = 0; i < std::max<size_t>(limits.workers, 1); ++i) workers.emplace_back([this] { work(); });
    watcher = std::thread([this] { watch(); });
}

ConnectionGate::~ConnectionGate() {
    stop();
    close(wake[0]);
    close(wake[1]);
}

void ConnectionGate::admit(int fd) {
    {
        std::lock_guard<std::mutex> lock(inbox_mutex);
        if (!stopping) {
            admitted.push_back(fd);
            fd = -1;
        }
    }
    if (fd >= 0) {
        close(fd);
        return;
    }
    wake_up();
}

void ConnectionGate::give_back(ReadyConnection && connection) {
    {
        std::lock_guard<std::mutex> lock(inbox_mutex);
        if (!stopping) {
            returned.push_back(std::move(connection));
            connection.fd = -1;
        }
    }
    if (connection.fd >= 0) {
        close_gracefully(connection.fd);
        return;
    }
    wake_up();
}

void ConnectionGate::wake_up() {
    const char byte = 1;
    (void)!write(wake[1], &byte, 1);
}

void ConnectionGate::stop() {
    {
        std::lock_guard<std::mutex> lock(inbox_mutex);
        if (stopping) return;
        stopping = true;
    }
    wake_up();
    if (watcher.joinable()) watcher.join();
    {
        std::lock_guard<std::mutex> lock(queue_mutex);
        draining = true;
        for (auto & waiting : ready) close(waiting.fd);
        ready.clear();
    }
    queue_changed.notify_all();
    for (auto & worker : workers) {
        if (worker.joinable()) worker.join();
    }
}

RequestFraming * ConnectionGate::new_framing() {
    return new RequestFraming(limits.max_head_bytes, limits.max_body_bytes);
}

void ConnectionGate::watch() {
    // poll(2), which every platform has: the connections it watches are bounded (1024 by default).
    std::vector<pollfd> watched;
    while (true) {
        watched.clear();
        watched.push_back(pollfd{wake[0], POLLIN, 0});
        for (const auto & entry : connections) {
            if (!entry.second.paused) watched.push_back(pollfd{entry.first, POLLIN, 0});
        }
        const int count = poll(watched.data(), static_cast<nfds_t>(watched.size()), 100);
        {
            std::lock_guard<std::mutex> lock(inbox_mutex);
            if (stopping) break;
        }
        if (count > 0 && watched[0].revents) {
            char sink[256];
            while (read(wake[0], sink, sizeof(sink)) > 0) {}
        }
        for (size_t i = 1; count > 0 && i < watched.size(); ++i) {
            if (!(watched[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            auto found = connections.find(watched[i].fd);       // closed or handed over meanwhile: gone
            if (found != connections.end()) read_from(found->second);
        }
        accept_pending();
        expire(Clock::now());
        resume_paused();
    }
    // Stopping: every connection the gate holds is closed; those being answered finish.
    std::vector<int> pending;
    {
        std::lock_guard<std::mutex> lock(inbox_mutex);
        pending.swap(admitted);
        for (auto & connection : returned) pending.push_back(connection.fd);
        returned.clear();
    }
    for (int fd : pending) close(fd);
    for (auto & entry : connections) close(entry.first);
    connections.clear();
    per_address.clear();
}

void ConnectionGate::accept_pending() {
    std::vector<int> fresh;
    std::vector<ReadyConnection> back;
    {
        std::lock_guard<std::mutex> lock(inbox_mutex);
        fresh.swap(admitted);
        back.swap(returned);
    }
    const auto now = Clock::now();
    auto add = [&](int fd, std::string address, int port, std::string bytes, size_t served) {
        make_room(address);
        Connection connection{fd, address, port, std::move(bytes), nullptr, served, false, false, now, now, now, next_order++};
        per_address[address] += 1;
        buffered += connection.bytes.size();
        auto & stored = connections.emplace(fd, std::move(connection)).first->second;
        // Bytes that came with the previous request (pipelined) may hold the next one whole.
        if (!stored.bytes.empty()) {
            stored.receiving = true;
            stored.framing.reset(new_framing());
            auto state = stored.framing->advance(stored.bytes);
            if (state == RequestFraming::State::complete || state == RequestFraming::State::unframable) hand_over(fd);
        }
    };
    for (int fd : fresh) {
        std::string address;
        int port = 0;
        if (!peer_of_socket(fd, address, port)) {
            close(fd);
            continue;
        }
        add(fd, address, port, std::string(), 0);
    }
    for (auto & connection : back) add(connection.fd, connection.address, connection.port, std::move(connection.bytes), connection.served);
}

void ConnectionGate::make_room(const std::string & address) {
    // The victim: the oldest connection that never completed a request (of this address, or of
    // any when the total is reached), else the oldest idle one.
    auto evict = [&](bool same_address) {
        const Connection * victim = nullptr;
        for (auto & entry : connections) {
            const auto & candidate = entry.second;
            if (same_address && candidate.address != address) continue;
            if (!victim) { victim = &candidate; continue; }
            bool candidate_fresh = candidate.served == 0, victim_fresh = victim->served == 0;
            if (candidate_fresh != victim_fresh ? candidate_fresh : candidate.order < victim->order) victim = &candidate;
        }
        if (!victim) return false;
        close_connection(victim->fd);
        return true;
    };
    while (per_address[address] >= std::max<size_t>(limits.max_connections_per_address, 1) && evict(true)) {}
    while (connections.size() >= std::max<size_t>(limits.max_connections, 1) && evict(false)) {}
}

void ConnectionGate::read_from(Connection & connection) {
    const int fd = connection.fd;
    char chunk[65536];
    size_t taken = 0;
    while (taken < (256u << 10)) {        // then other connections get their turn
        ssize_t n = recv(fd, chunk, sizeof(chunk), MSG_DONTWAIT);
        if (n == 0) {
            close_connection(fd);
            return;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) close_connection(fd);
            return;
        }
        taken += static_cast<size_t>(n);
        if (!connection.receiving) {
            connection.receiving = true;
            connection.started = Clock::now();
            connection.framing.reset(new_framing());
        }
        connection.bytes.append(chunk, static_cast<size_t>(n));
        buffered += static_cast<size_t>(n);
        auto & framing = *connection.framing;
        const auto before = framing.state();
        const auto state = framing.advance(connection.bytes);
        if (before == RequestFraming::State::head && state != RequestFraming::State::head &&
            state != RequestFraming::State::unframable && framing.expects_continue()) {
            // The gate reads the body, so the gate invites it; cpp-httplib must not invite it again.
            connection.bytes[framing.expect_offset()] = 'X';
            if (state == RequestFraming::State::body) {
                static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
                (void)!send(fd, kContinue, sizeof(kContinue) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
            }
        }
        if (state == RequestFraming::State::complete || state == RequestFraming::State::unframable) {
            hand_over(fd);
            return;
        }
        if (buffered > limits.max_buffered_bytes) {
            // Past the bound on bytes still arriving: this connection waits, unread, for room.
            connection.paused = true;
            return;
        }
    }
}

void ConnectionGate::resume_paused() {
    if (buffered > limits.max_buffered_bytes / 2) return;
    for (auto & entry : connections) entry.second.paused = false;
}

void ConnectionGate::hand_over(int fd) {
    auto found = connections.find(fd);
    if (found == connections.end()) return;
    Connection connection = std::move(found->second);
    connections.erase(found);
    if (--per_address[connection.address] == 0) per_address.erase(connection.address);
    buffered -= connection.bytes.size();
    bool queued = false;
    {
        std::lock_guard<std::mutex> lock(queue_mutex);
        if (!draining && ready.size() < std::max<size_t>(limits.max_connections, 1)) {
            ready.push_back(ReadyConnection{fd, connection.address, connection.port, std::move(connection.bytes), connection.served});
            queued = true;
        }
    }
    if (queued) {
        queue_changed.notify_one();
        return;
    }
    (void)!send(fd, kServiceUnavailable, sizeof(kServiceUnavailable) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    close_gracefully(fd);
}

void ConnectionGate::close_connection(int fd) {
    auto found = connections.find(fd);
    if (found == connections.end()) return;
    if (--per_address[found->second.address] == 0) per_address.erase(found->second.address);
    buffered -= found->second.bytes.size();
    connections.erase(found);
    close(fd);
}

void ConnectionGate::expire(Clock::time_point now) {
    std::vector<int> expired;
    for (auto & entry : connections) {
        const auto & connection = entry.second;
        Clock::time_point deadline;
        if (!connection.receiving) {
            deadline = connection.idle_since + (connection.served == 0 ? limits.header_timeout : limits.keep_alive_timeout);
        } else if (connection.framing && connection.framing->state() == RequestFraming::State::head) {
            deadline = connection.started + limits.header_timeout;
        } else {
            deadline = connection.started + limits.request_timeout;
        }
        if (now >= deadline) expired.push_back(entry.first);
    }
    for (int fd : expired) close_connection(fd);
}

void ConnectionGate::work() {
    while (true) {
        ReadyConnection connection;
        {
            std::unique_lock<std::mutex> lock(queue_mutex);
            queue_changed.wait(lock, [this] { return draining || !ready.empty(); });
            if (ready.empty()) return;
            connection = std::move(ready.front());
            ready.pop_front();
        }
        const bool last = connection.served + 1 >= std::max<size_t>(limits.keep_alive_max_requests, 1);
        bool keep = false;
        try {
            keep = serve(connection, last);
        } catch (...) {
            keep = false;
        }
        connection.served += 1;
        if (keep && !last) give_back(std::move(connection));
        else close_gracefully(connection.fd);
    }
}

}  // namespace llmkit_http
