// LocalLLMKit's HTTP server bridge: cpp-httplib (the library llama-server uses) behind a plain C
// interface that Swift imports.
//
// The library does the HTTP: parsing, keep-alive, chunked transfer, body-size limits and socket
// timeouts. Each request becomes an exchange that Swift answers, from any thread and at any time,
// with llmkit_http_begin, then zero or more llmkit_http_write, then llmkit_http_finish. A worker
// thread of the library waits for that answer and puts it on the wire (streamed as it comes when
// the answer is a stream). No C++ exception crosses into Swift: every function catches them.
#ifndef LLMKIT_HTTP_H
#define LLMKIT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct llmkit_http_server llmkit_http_server;
typedef struct llmkit_http_exchange llmkit_http_exchange;

/// Limits and timeouts of a server. Start from llmkit_http_default_options().
///
/// A connection is watched by one thread until its request has arrived whole (head and body);
/// only then does a worker thread answer it. So slow or silent clients hold sockets, never
/// workers, and within the bounds below they only displace each other.
typedef struct llmkit_http_options {
    const char * host;             // address to bind, e.g. "127.0.0.1"
    int          port;             // 0 = any free port (read it back with llmkit_http_server_port)
    size_t       max_body_bytes;   // larger bodies get 413 before they are read
    int          header_timeout_ms;    // the request line and headers must arrive within this
    int          request_timeout_ms;   // the whole request (line, headers, body) must arrive within this
    int          io_timeout_ms;    // while answering, one read or one write may wait this long
    int          keep_alive_timeout_ms; // an idle kept-alive connection is closed after this
    int          keep_alive_max_requests; // requests per connection before it is closed
    int          worker_threads;   // requests answered at once
    size_t       max_open_connections; // connections not being answered (arriving, idle), in total
    size_t       max_connections_per_address; // the same, per client address
    size_t       max_buffered_bytes; // bytes of requests still arriving, in total
} llmkit_http_options;

/// Sensible defaults: 127.0.0.1:8080, 8 MiB bodies, 5 s for the head and 15 s for the whole
/// request, 30 s per read or write while answering, 5 s keep-alive, 1000 requests per connection,
/// 128 workers, 1024 connections waiting (256 per client address), 256 MiB buffered.
llmkit_http_options llmkit_http_default_options(void);

/// Called on a worker thread for each request. The exchange belongs to the callee until it calls
/// llmkit_http_finish (exactly once), which may happen later on any thread.
typedef void (*llmkit_http_handler)(void * context, llmkit_http_exchange * exchange);

/// Called at most once, from a library thread, when the client of an exchange goes away before
/// its answer is finished.
typedef void (*llmkit_http_close_handler)(void * context);

/// Binds and starts serving on a thread of its own. Returns NULL and sets *error (a malloc'ed
/// message, released with llmkit_http_string_free) when the address cannot be bound.
llmkit_http_server * llmkit_http_server_start(const llmkit_http_options * options, llmkit_http_handler handler,
                                              void * context, char ** error);

/// The port the server listens on.
int llmkit_http_server_port(const llmkit_http_server * server);

/// Stops accepting connections, waits until every exchange has been finished and every worker
/// has returned, then releases the server. Blocks; call it off the threads that finish exchanges.
void llmkit_http_server_stop(llmkit_http_server * server);

/// Releases a string returned by this bridge. Accepts NULL.
void llmkit_http_string_free(char * string);

// ------------------------------------------------------------------ the request of an exchange
// Valid until llmkit_http_finish. Strings are NUL-terminated; the body may hold NUL bytes.

/// The method, e.g. "POST".
const char * llmkit_http_request_method(const llmkit_http_exchange * exchange);
/// The path, without the query string.
const char * llmkit_http_request_path(const llmkit_http_exchange * exchange);
/// The body and its length in bytes.
const char * llmkit_http_request_body(const llmkit_http_exchange * exchange, size_t * length);
/// The first value of a header (case-insensitive name), or NULL when absent.
const char * llmkit_http_request_header(const llmkit_http_exchange * exchange, const char * name);
/// The client's address.
const char * llmkit_http_request_remote_address(const llmkit_http_exchange * exchange);

// ------------------------------------------------------------------ the answer of an exchange

/// Registers the handler called if the client goes away. Returns false (and registers nothing)
/// when it has already gone.
bool llmkit_http_set_close_handler(llmkit_http_exchange * exchange, llmkit_http_close_handler handler, void * context);

/// Starts the answer: status, content type, extra headers. With `streaming`, each write is sent
/// as it comes (chunked transfer encoding); otherwise the body is sent at finish, with its length.
void llmkit_http_begin(llmkit_http_exchange * exchange, int status, const char * content_type,
                       const char * const * header_names, const char * const * header_values, size_t header_count,
                       bool streaming);

/// Adds to the body. Returns false once the client has gone (the bytes are dropped).
bool llmkit_http_write(llmkit_http_exchange * exchange, const char * bytes, size_t length);

/// Ends the answer and gives the exchange back; it must not be used afterwards.
void llmkit_http_finish(llmkit_http_exchange * exchange);

#ifdef __cplusplus
}
#endif

#endif
