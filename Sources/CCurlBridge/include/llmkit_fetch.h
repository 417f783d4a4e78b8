// One HTTP GET through libcurl, for load_webpage. Plain C types only: Swift never sees
// libcurl's headers (its option setters are variadic, which Swift cannot call).
#ifndef LLMKIT_FETCH_H
#define LLMKIT_FETCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Decides whether a peer address may be connected to: `address` is 4 bytes (IPv4) or
/// 16 (IPv6), in network order. Returns nonzero to allow.
typedef int (*llmkit_fetch_address_check)(const unsigned char * address, size_t length);

/// What to fetch. Redirects are never followed: the caller checks and follows them.
typedef struct llmkit_fetch_request {
    const char * url;
    /// The whole transfer (name lookup, connection, headers and body) must end within this.
    long timeout_milliseconds;
    /// The body is cut beyond this many bytes (after content decoding).
    size_t maximum_bytes;
    /// Called for every address libcurl is about to open a connection to, just before
    /// the socket is created; a refused address is never contacted. NULL allows all.
    llmkit_fetch_address_check allows_address;
    const char * user_agent;
    const char * accept;
} llmkit_fetch_request;

/// How a fetch ended.
typedef enum llmkit_fetch_outcome {
    LLMKIT_FETCH_COMPLETE = 0,   ///< a whole response (or one cut at maximum_bytes)
    LLMKIT_FETCH_REDIRECT,       ///< a redirect (3xx with Location): the body was not read
    LLMKIT_FETCH_REFUSED,        ///< every address was refused by `allows_address`
    LLMKIT_FETCH_TIMED_OUT,      ///< the timeout passed
    LLMKIT_FETCH_CANCELLED,      ///< `llmkit_fetch_cancel` was called
    LLMKIT_FETCH_FAILED          ///< anything else: see `error`
} llmkit_fetch_outcome;

/// What a fetch returned. Strings and body are malloc'ed; release with `llmkit_fetch_response_free`.
typedef struct llmkit_fetch_response {
    llmkit_fetch_outcome outcome;
    /// libcurl's message when `outcome` is LLMKIT_FETCH_FAILED.
    char error[256];
    long status;
    char * content_type;
    char * location;
    unsigned char * body;
    size_t body_length;
    int truncated;
    /// The last address `allows_address` refused (4 or 16 bytes; length 0 when none).
    unsigned char refused_address[16];
    size_t refused_address_length;
} llmkit_fetch_response;

/// A cancellable fetch: create it, run it on one thread, cancel it from any thread.
typedef struct llmkit_fetch llmkit_fetch;

/// Creates a fetch (NULL when out of memory). Initializes libcurl once per process.
llmkit_fetch * llmkit_fetch_create(void);

/// Runs one GET to completion, on the calling thread. The response is always filled in.
void llmkit_fetch_run(llmkit_fetch * fetch, const llmkit_fetch_request * request, llmkit_fetch_response * response);

/// Makes a running (or the next) `llmkit_fetch_run` stop soon with LLMKIT_FETCH_CANCELLED.
/// Safe from any thread.
void llmkit_fetch_cancel(llmkit_fetch * fetch);

/// Frees a fetch that no thread is running.
void llmkit_fetch_destroy(llmkit_fetch * fetch);

/// Frees the strings and body of a response.
void llmkit_fetch_response_free(llmkit_fetch_response * response);

#ifdef __cplusplus
}
#endif

#endif
