// The server half of llmkit_http.h: cpp-httplib routes every request to one handler, which hands
// it to Swift as an exchange and puts Swift's answer on the wire.
#include "llmkit_http.h"
#include "connection_gate.hpp"

#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

char * copy_string(const std::string & text) {
    char * copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy) std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

/// cpp-httplib's server with the connection gate in front: the accepting thread hands each
/// connection to the gate (instead of to a worker thread that would wait for its request), and the
/// gate's workers answer whole requests through cpp-httplib's request processing.
class GatedServer final : public httplib::Server {
public:
    llmkit_http::ConnectionGate * gate = nullptr;

    /// Answers the request at the start of `stream`; false when the connection must close.
    bool answer(httplib::Stream & stream, const std::string & remote_address, int remote_port, bool last_request,
                bool & connection_closed) {
        std::string local_address;
        int local_port = 0;
        sockaddr_storage local{};
        socklen_t length = sizeof(local);
        if (getsockname(stream.socket(), reinterpret_cast<sockaddr *>(&local), &length) == 0) {
            char text[INET6_ADDRSTRLEN] = {0};
            if (local.ss_family == AF_INET) {
                inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(&local)->sin_addr, text, sizeof(text));
                local_port = ntohs(reinterpret_cast<sockaddr_in *>(&local)->sin_port);
            } else if (local.ss_family == AF_INET6) {
                inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(&local)->sin6_addr, text, sizeof(text));
                local_port = ntohs(reinterpret_cast<sockaddr_in6 *>(&local)->sin6_port);
            }
            local_address = text;
        }
        return serve_guarded([&] {
            return process_request(stream, remote_address, remote_port, local_address, local_port, last_request,
                                   connection_closed, nullptr);
        });
    }

private:
    bool process_and_close_socket(socket_t sock) override {
        if (gate) gate->admit(sock);
        else close(sock);
        return true;
    }
};

/// Runs each accepted connection's job at once on the accepting thread: the job only hands the
/// connection to the gate.
class InlineQueue final : public httplib::TaskQueue {
public:
    bool enqueue(std::function<void()> job) override {
        job();
        return true;
    }
    void shutdown() override {}
};

/// A request read whole by the gate, then the socket: what cpp-httplib reads and writes.
class GateStream final : public httplib::Stream {
public:
    GateStream(int fd, std::string bytes, int read_timeout_ms, int write_timeout_ms)
        : fd_(fd), bytes_(std::move(bytes)), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms),
          start_(std::chrono::steady_clock::now()) {}

    /// What was read from the client and not used (the start of its next request).
    std::string remaining() { return bytes_.substr(offset_); }

    bool is_readable() const override { return offset_ < bytes_.size(); }
    bool wait_readable() const override { return is_readable() || wait(POLLIN, read_timeout_ms_); }
    bool wait_writable() const override { return wait(POLLOUT, write_timeout_ms_); }
    bool is_peer_alive() const override {
        pollfd entry{fd_, POLLIN, 0};
        if (poll(&entry, 1, 0) <= 0) return true;
        char byte;
        return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
    }
    ssize_t read(char * pointer, size_t size) override {
        if (offset_ < bytes_.size()) {
            size_t count = std::min(size, bytes_.size() - offset_);
            std::memcpy(pointer, bytes_.data() + offset_, count);
            offset_ += count;
            return static_cast<ssize_t>(count);
        }
        if (!wait(POLLIN, read_timeout_ms_)) {
            error_ = httplib::Error::Timeout;
            return -1;
        }
        ssize_t count = recv(fd_, pointer, size, 0);
        if (count == 0) error_ = httplib::Error::ConnectionClosed;
        else if (count < 0) error_ = httplib::Error::Read;
        return count;
    }
    ssize_t write(const char * pointer, size_t size) override {
        if (!wait(POLLOUT, write_timeout_ms_)) return -1;
        return send(fd_, pointer, size, MSG_NOSIGNAL);
    }
    void get_remote_ip_and_port(std::string & ip, int & port) const override {
        llmkit_http::peer_of_socket(fd_, ip, port);
    }
    void get_local_ip_and_port(std::string & ip, int & port) const override {
        ip.clear();
        port = 0;
    }
    socket_t socket() const override { return fd_; }
    time_t duration() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
    }
    void set_read_timeout(time_t seconds, time_t microseconds) override {
        read_timeout_ms_ = static_cast<int>(seconds * 1000 + microseconds / 1000);
    }
    const char * buffered_data(size_t & size) const override {
        size = bytes_.size() - offset_;
        return size ? bytes_.data() + offset_ : nullptr;
    }
    void consume_buffered(size_t size) override { offset_ += std::min(size, bytes_.size() - offset_); }

private:
    bool wait(short events, int timeout_ms) const {
        pollfd entry{fd_, events, 0};
        while (true) {
            int ready = poll(&entry, 1, timeout_ms);
            if (ready < 0 && errno == EINTR) continue;
            return ready > 0;
        }
    }

    int fd_;
    std::string bytes_;
    size_t offset_ = 0;
    int read_timeout_ms_;
    int write_timeout_ms_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace

/// One request and its answer, shared by the worker that serves it and by Swift.
struct llmkit_http_exchange {
    std::string method, path, body, remote;
    httplib::Headers headers;

    std::mutex mutex;
    std::condition_variable changed;
    bool begun = false, streaming = false, finished = false, closed = false;
    int status = 500;
    std::string content_type;
    httplib::Headers response_headers;
    std::string pending;  // written, not yet sent
    llmkit_http_close_handler on_close = nullptr;
    void * close_context = nullptr;
    bool calling_close = false;  // the close handler runs; finish waits for it (its context may go with finish)

    /// Marks the client gone and calls the close handler once, outside the lock.
    void close(std::unique_lock<std::mutex> & lock) {
        if (closed) return;
        closed = true;
        pending.clear();
        auto handler = on_close;
        auto context = close_context;
        on_close = nullptr;
        if (!handler) return;
        calling_close = true;
        lock.unlock();
        handler(context);
        lock.lock();
        calling_close = false;
        changed.notify_all();
    }
};

struct llmkit_http_server {
    GatedServer http;
    std::unique_ptr<llmkit_http::ConnectionGate> gate;
    std::thread listener;
    int port = 0;
};

namespace {

using Exchange = std::shared_ptr<llmkit_http_exchange>;

/// Swift's reference to an exchange: released by llmkit_http_finish.
struct Handle {
    Exchange exchange;
};

/// Waits for Swift's answer to start, watching the client meanwhile. Returns false when the client
/// went away first (the close handler has run).
bool wait_for_begin(const Exchange & exchange, const httplib::Request & request) {
    std::unique_lock<std::mutex> lock(exchange->mutex);
    while (!exchange->begun) {
        exchange->changed.wait_for(lock, std::chrono::milliseconds(50));
        if (!exchange->begun && request.is_connection_closed()) {
            exchange->close(lock);
            return false;
        }
    }
    return true;
}

/// Answers one request. Returns whether the answer is a stream (still being written).
bool serve(llmkit_http_handler handler, void * context,
           const httplib::Request & request, httplib::Response & response) {
    auto exchange = std::make_shared<llmkit_http_exchange>();
    exchange->method = request.method;
    exchange->path = request.path;
    exchange->body = request.body;
    exchange->remote = request.remote_addr;
    exchange->headers = request.headers;
    handler(context, reinterpret_cast<llmkit_http_exchange *>(new Handle{exchange}));
    if (!wait_for_begin(exchange, request)) {
        response.status = 499;
        return false;
    }
    std::unique_lock<std::mutex> lock(exchange->mutex);
    response.status = exchange->status;
    for (const auto & header : exchange->response_headers) response.set_header(header.first, header.second);
    if (!exchange->streaming) {
        while (!exchange->finished) {
            exchange->changed.wait_for(lock, std::chrono::milliseconds(50));
            if (!exchange->finished && request.is_connection_closed()) {
                exchange->close(lock);
                response.status = 499;
                return false;
            }
        }
        response.set_content(std::move(exchange->pending), exchange->content_type);
        return false;
    }
    response.set_chunked_content_provider(exchange->content_type, [exchange](size_t, httplib::DataSink & sink) {
        std::unique_lock<std::mutex> lock(exchange->mutex);
        while (exchange->pending.empty() && !exchange->finished && !exchange->closed) {
            exchange->changed.wait_for(lock, std::chrono::milliseconds(50));
            if (exchange->pending.empty() && !exchange->finished && !sink.is_writable()) {
                exchange->close(lock);
            }
        }
        if (exchange->closed) return false;
        if (!exchange->pending.empty()) {
            std::string bytes;
            bytes.swap(exchange->pending);
            lock.unlock();
            bool written = sink.write(bytes.data(), bytes.size());
            lock.lock();
            if (!written) {
                exchange->close(lock);
                return false;
            }
            return true;
        }
        sink.done();
        return true;
    }, [exchange](bool) {
        // The library ends a stream by itself when the socket stops being writable, without
        // asking the provider again: an answer not finished by then lost its client.
        std::unique_lock<std::mutex> lock(exchange->mutex);
        if (!exchange->finished) exchange->close(lock);
    });
    return true;
}

std::string json_escape(const std::string & text) {
    std::string out;
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
        else if (c < 0x20) { char buffer[8]; std::snprintf(buffer, sizeof(buffer), "\\u%04x", c); out += buffer; }
        else out += static_cast<char>(c);
    }
    return out;
}

/// Errors the library answers by itself (413, 400 for a bad request line, 414, 431…), in OpenAI's shape.
void library_error(const httplib::Request &, httplib::Response & response) {
    if (!response.body.empty() || response.status == 499) return;
    std::string type = response.status == 413 ? "request_too_large" : "invalid_request_error";
    std::string message = std::to_string(response.status) + " " + httplib::status_message(response.status);
    if (response.status == 413) message = "the request body is larger than the server accepts";
    response.set_content("{\"error\":{\"message\":\"" + json_escape(message) + "\",\"type\":\"" + type +
                         "\",\"param\":null,\"code\":null}}", "application/json");
}

}  // namespace

extern "C" {

llmkit_http_options llmkit_http_default_options(void) {
    llmkit_http_options options;
    options.host = "127.0.0.1";
    options.port = 8080;
    options.max_body_bytes = 8u << 20;
    options.header_timeout_ms = 5000;
    options.request_timeout_ms = 15000;
    options.io_timeout_ms = 30000;
    options.keep_alive_timeout_ms = 5000;
    options.keep_alive_max_requests = 1000;
    options.worker_threads = 128;
    options.max_open_connections = 1024;
    options.max_connections_per_address = 256;
    options.max_buffered_bytes = 256u << 20;
    return options;
}

llmkit_http_server * llmkit_http_server_start(const llmkit_http_options * options, llmkit_http_handler handler,
                                              void * context, char ** error) {
    if (error) *error = nullptr;
    try {
        auto server = std::make_unique<llmkit_http_server>();
        auto & http = server->http;
        http.new_task_queue = [] { return new InlineQueue(); };
        http.set_payload_max_length(options->max_body_bytes);
        const auto io = std::chrono::milliseconds(options->io_timeout_ms);
        http.set_read_timeout(io);
        http.set_write_timeout(io);
        http.set_keep_alive_timeout(static_cast<time_t>((options->keep_alive_timeout_ms + 999) / 1000));
        http.set_keep_alive_max_count(options->keep_alive_max_requests > 0 ? options->keep_alive_max_requests : 1);
        http.set_tcp_nodelay(true);
        // SO_REUSEADDR only: the library's default, SO_REUSEPORT, would let a second server bind
        // a port already in use and silently share its connections.
        http.set_socket_options([](socket_t sock) {
            int on = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        });
        http.set_error_handler(library_error);
        http.set_exception_handler([](const httplib::Request &, httplib::Response & response, std::exception_ptr) {
            response.status = 500;
            response.set_content("{\"error\":{\"message\":\"internal server error\",\"type\":\"server_error\","
                                 "\"param\":null,\"code\":null}}", "application/json");
        });
        llmkit_http_server * raw = server.get();
        auto route = [handler, context](const httplib::Request & request, httplib::Response & response) {
            serve(handler, context, request, response);
        };
        const std::string any = ".*";
        http.Get(any, route);
        http.Post(any, route);
        http.Put(any, route);
        http.Patch(any, route);
        http.Delete(any, route);
        http.Options(any, route);
        const std::string host = options->host ? options->host : "127.0.0.1";
        int port = options->port;
        if (port == 0) {
            port = http.bind_to_any_port(host);
            if (port < 0) throw std::runtime_error("could not bind " + host + " to a free port");
        } else if (!http.bind_to_port(host, port)) {
            throw std::runtime_error("could not bind " + host + ":" + std::to_string(port) +
                                     " (in use, or not an address of this machine)");
        }
        server->port = port;
        auto positive = [](long long value) { return static_cast<size_t>(value > 0 ? value : 1); };
        llmkit_http::GateLimits limits;
        limits.workers = positive(options->worker_threads);
        limits.max_connections = positive(static_cast<long long>(options->max_open_connections));
        limits.max_connections_per_address = positive(static_cast<long long>(options->max_connections_per_address));
        limits.max_buffered_bytes = std::max<size_t>(options->max_buffered_bytes, options->max_body_bytes + (64u << 10));
        limits.max_head_bytes = 64u << 10;
        limits.max_body_bytes = options->max_body_bytes;
        limits.header_timeout = std::chrono::milliseconds(std::min(options->header_timeout_ms, options->request_timeout_ms));
        limits.request_timeout = std::chrono::milliseconds(options->request_timeout_ms);
        limits.keep_alive_timeout = std::chrono::milliseconds(options->keep_alive_timeout_ms);
        limits.keep_alive_max_requests = positive(options->keep_alive_max_requests);
        const int io_ms = options->io_timeout_ms;
        server->gate = std::make_unique<llmkit_http::ConnectionGate>(limits,
            [raw, io_ms](llmkit_http::ReadyConnection & connection, bool last_request) {
                GateStream stream(connection.fd, std::move(connection.bytes), io_ms, io_ms);
                bool closed = false;
                bool kept = raw->http.answer(stream, connection.address, connection.port, last_request, closed);
                connection.bytes = stream.remaining();
                return kept && !closed;
            });
        http.gate = server->gate.get();
        server->listener = std::thread([raw] {
            try { raw->http.listen_after_bind(); } catch (...) {}
        });
        return server.release();
    } catch (const std::exception & e) {
        if (error) *error = copy_string(e.what());
    } catch (...) {
        if (error) *error = copy_string("unknown error while starting the HTTP server");
    }
    return nullptr;
}

int llmkit_http_server_port(const llmkit_http_server * server) { return server->port; }

void llmkit_http_server_stop(llmkit_http_server * server) {
    if (!server) return;
    try {
        server->http.stop();
        if (server->listener.joinable()) server->listener.join();
        if (server->gate) server->gate->stop();
    } catch (...) {}
    delete server;
}

void llmkit_http_string_free(char * string) { std::free(string); }

static llmkit_http_exchange & exchange_of(const llmkit_http_exchange * handle) {
    return *reinterpret_cast<const Handle *>(handle)->exchange;
}

const char * llmkit_http_request_method(const llmkit_http_exchange * handle) { return exchange_of(handle).method.c_str(); }
const char * llmkit_http_request_path(const llmkit_http_exchange * handle) { return exchange_of(handle).path.c_str(); }
const char * llmkit_http_request_remote_address(const llmkit_http_exchange * handle) { return exchange_of(handle).remote.c_str(); }

const char * llmkit_http_request_body(const llmkit_http_exchange * handle, size_t * length) {
    auto & exchange = exchange_of(handle);
    if (length) *length = exchange.body.size();
    return exchange.body.data();
}

const char * llmkit_http_request_header(const llmkit_http_exchange * handle, const char * name) {
    auto & exchange = exchange_of(handle);
    try {
        auto found = exchange.headers.find(name);
        return found == exchange.headers.end() ? nullptr : found->second.c_str();
    } catch (...) {
        return nullptr;
    }
}

bool llmkit_http_set_close_handler(llmkit_http_exchange * handle, llmkit_http_close_handler handler, void * context) {
    auto & exchange = exchange_of(handle);
    std::lock_guard<std::mutex> lock(exchange.mutex);
    if (exchange.closed) return false;
    exchange.on_close = handler;
    exchange.close_context = context;
    return true;
}

void llmkit_http_begin(llmkit_http_exchange * handle, int status, const char * content_type,
                       const char * const * header_names, const char * const * header_values, size_t header_count,
                       bool streaming) {
    auto & exchange = exchange_of(handle);
    try {
        std::lock_guard<std::mutex> lock(exchange.mutex);
        if (exchange.begun) return;
        exchange.status = status;
        exchange.content_type = content_type ? content_type : "application/json";
        for (size_t i = 0; i < header_count; ++i) exchange.response_headers.emplace(header_names[i], header_values[i]);
        exchange.streaming = streaming;
        exchange.begun = true;
    } catch (...) {}
    exchange.changed.notify_all();
}

bool llmkit_http_write(llmkit_http_exchange * handle, const char * bytes, size_t length) {
    auto & exchange = exchange_of(handle);
    try {
        std::lock_guard<std::mutex> lock(exchange.mutex);
        if (exchange.closed) return false;
        exchange.pending.append(bytes, length);
    } catch (...) {
        return false;
    }
    exchange.changed.notify_all();
    return true;
}

void llmkit_http_finish(llmkit_http_exchange * handle) {
    auto * owned = reinterpret_cast<Handle *>(handle);
    {
        auto & exchange = *owned->exchange;
        std::unique_lock<std::mutex> lock(exchange.mutex);
        exchange.changed.wait(lock, [&] { return !exchange.calling_close; });
        if (!exchange.begun) {
            exchange.begun = true;
            exchange.status = 500;
        }
        exchange.finished = true;
        exchange.on_close = nullptr;
    }
    owned->exchange->changed.notify_all();
    delete owned;
}

}  // extern "C"
