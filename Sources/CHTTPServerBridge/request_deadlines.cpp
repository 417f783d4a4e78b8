#include "request_deadlines.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace llmkit_http {

std::string peer_name(int fd, int local_port) {
    sockaddr_storage local{}, peer{};
    socklen_t local_length = sizeof(local), peer_length = sizeof(peer);
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&local), &local_length) != 0) return "";
    int port = 0;
    if (local.ss_family == AF_INET) port = ntohs(reinterpret_cast<sockaddr_in *>(&local)->sin_port);
    else if (local.ss_family == AF_INET6) port = ntohs(reinterpret_cast<sockaddr_in6 *>(&local)->sin6_port);
    else return "";
    if (port != local_port) return "";
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peer_length) != 0) return "";
    char address[INET6_ADDRSTRLEN] = {0};
    int peer_port = 0;
    if (peer.ss_family == AF_INET) {
        auto * in = reinterpret_cast<sockaddr_in *>(&peer);
        inet_ntop(AF_INET, &in->sin_addr, address, sizeof(address));
        peer_port = ntohs(in->sin_port);
    } else {
        auto * in = reinterpret_cast<sockaddr_in6 *>(&peer);
        inet_ntop(AF_INET6, &in->sin6_addr, address, sizeof(address));
        peer_port = ntohs(in->sin6_port);
    }
    return std::string(address) + ":" + std::to_string(peer_port);
}

namespace {

/// The process's open descriptors (Linux: /proc/self/fd; elsewhere the first 4096).
std::vector<int> open_descriptors() {
    std::vector<int> fds;
    if (DIR * dir = opendir("/proc/self/fd")) {
        while (dirent * entry = readdir(dir)) {
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
            fds.push_back(std::atoi(entry->d_name));
        }
        closedir(dir);
        return fds;
    }
    for (int fd = 0; fd < 4096; ++fd) fds.push_back(fd);
    return fds;
}

}  // namespace

RequestDeadlines::RequestDeadlines(int port, std::chrono::milliseconds limit, std::chrono::milliseconds keep_alive)
    : port(port), limit(limit), keep_alive(keep_alive) {
    thread = std::thread([this] { watch(); });
}

RequestDeadlines::~RequestDeadlines() {
    {
        std::lock_guard<std::mutex> lock(mutex);
        stopping = true;
    }
    wake.notify_all();
    if (thread.joinable()) thread.join();
}

void RequestDeadlines::received(const std::string & peer) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = connections.find(peer);
    if (found != connections.end()) {
        found->second.answering = true;
        found->second.deadline = Clock::now();
    } else {
        connections[peer] = Connection{-1, Clock::now(), true, true};
    }
}

void RequestDeadlines::answered(const std::string & peer) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = connections.find(peer);
    if (found == connections.end()) return;
    found->second.answering = false;
    found->second.deadline = Clock::now() + keep_alive + limit;
}

void RequestDeadlines::watch() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
        wake.wait_for(lock, std::chrono::milliseconds(250));
        if (stopping) break;
        lock.unlock();
        scan(Clock::now());
        lock.lock();
    }
}

void RequestDeadlines::scan(Clock::time_point now) {
    // Outside the lock: the descriptors and their peers.
    std::map<std::string, int> open;
    for (int fd : open_descriptors()) {
        std::string peer = peer_name(fd, port);
        if (!peer.empty()) open[peer] = fd;
    }
    std::vector<std::pair<int, std::string>> expired;
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (auto & entry : connections) entry.second.seen = false;
        for (const auto & entry : open) {
            auto found = connections.find(entry.first);
            if (found == connections.end()) {
                connections[entry.first] = Connection{entry.second, now + limit, false, true};
            } else {
                found->second.fd = entry.second;
                found->second.seen = true;
            }
        }
        for (auto it = connections.begin(); it != connections.end();) {
            // A connection gone from the table is forgotten, unless its request is being answered:
            // it may have been accepted after the descriptors were listed.
            if (!it->second.seen && (!it->second.answering || now - it->second.deadline > std::chrono::minutes(10))) {
                it = connections.erase(it);
                continue;
            }
            if (!it->second.answering && now >= it->second.deadline) expired.emplace_back(it->second.fd, it->first);
            ++it;
        }
    }
    for (const auto & entry : expired) {
        // The same connection still, not a descriptor reused since the scan.
        if (peer_name(entry.first, port) == entry.second) shutdown(entry.first, SHUT_RDWR);
    }
}

}  // namespace llmkit_http
