// One HTTP GET through libcurl, for load_webpage: every connection's address is checked
// just before its socket is made (so the address checked is the address connected to,
// whatever the DNS answered before), one deadline bounds the whole transfer, and the
// body stops at a byte cap.
#include "llmkit_fetch.h"

#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

struct llmkit_fetch {
    atomic_int cancelled;
};

/// The state of one transfer, shared by libcurl's callbacks.
typedef struct transfer {
    llmkit_fetch * fetch;
    const llmkit_fetch_request * request;
    llmkit_fetch_response * response;
    size_t capacity;
    long block_status;          // the status line of the header block being read
    int in_headers;
    int stopped_for_redirect;
    int stopped_at_limit;
    int refused_any;
    int out_of_memory;
} transfer;

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

llmkit_fetch * llmkit_fetch_create(void) {
    pthread_once(&global_once, global_init);
    llmkit_fetch * fetch = calloc(1, sizeof(llmkit_fetch));
    if (fetch) atomic_init(&fetch->cancelled, 0);
    return fetch;
}

void llmkit_fetch_cancel(llmkit_fetch * fetch) { atomic_store(&fetch->cancelled, 1); }

void llmkit_fetch_destroy(llmkit_fetch * fetch) { free(fetch); }

void llmkit_fetch_response_free(llmkit_fetch_response * response) {
    free(response->content_type);
    free(response->location);
    free(response->body);
    response->content_type = NULL;
    response->location = NULL;
    response->body = NULL;
    response->body_length = 0;
}

/// Stores a copy of `length` bytes as a C string in `*slot` (freeing the old one).
static int replace(char ** slot, const char * text, size_t length) {
    char * copy = malloc(length + 1);
    if (!copy) return 0;
    memcpy(copy, text, length);
    copy[length] = '\0';
    free(*slot);
    *slot = copy;
    return 1;
}

/// The value of header line `data` when it is named `name`, trimmed; NULL otherwise.
static const char * header_value(const char * data, size_t length, const char * name, size_t * value_length) {
    size_t name_length = strlen(name);
    if (length <= name_length || data[name_length] != ':' || strncasecmp(data, name, name_length) != 0) return NULL;
    const char * start = data + name_length + 1;
    const char * end = data + length;
    while (start < end && (*start == ' ' || *start == '\t')) ++start;
    while (end > start && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) --end;
    *value_length = (size_t)(end - start);
    return start;
}

static int is_redirect(long status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static size_t on_header(char * data, size_t size, size_t count, void * context) {
    transfer * state = context;
    size_t length = size * count;
    llmkit_fetch_response * response = state->response;
    if (length >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        // A new response (after a 1xx one): forget the headers of the previous block.
        free(response->content_type);
        free(response->location);
        response->content_type = NULL;
        response->location = NULL;
        const char * space = memchr(data, ' ', length);
        state->block_status = space ? strtol(space + 1, NULL, 10) : 0;
        state->in_headers = 1;
        return length;
    }
    if (!state->in_headers) return length;   // trailers
    if (length <= 2 && (data[0] == '\r' || data[0] == '\n')) {
        state->in_headers = 0;
        // A redirect's body is never needed: stop here rather than read it (it may be
        // large, or trickle).
        if (is_redirect(state->block_status) && response->location) {
            state->stopped_for_redirect = 1;
            return 0;
        }
        return length;
    }
    size_t value_length = 0;
    const char * value = header_value(data, length, "content-type", &value_length);
    char ** slot = &response->content_type;
    if (!value) {
        value = header_value(data, length, "location", &value_length);
        slot = &response->location;
    }
    if (value && !replace(slot, value, value_length)) {
        state->out_of_memory = 1;
        return 0;
    }
    return length;
}

static size_t on_body(char * data, size_t size, size_t count, void * context) {
    transfer * state = context;
    llmkit_fetch_response * response = state->response;
    size_t length = size * count;
    size_t room = state->request->maximum_bytes - response->body_length;
    size_t take = length < room ? length : room;
    if (take > 0) {
        if (response->body_length + take > state->capacity) {
            size_t capacity = state->capacity ? state->capacity : 16384;
            while (capacity < response->body_length + take) capacity *= 2;
            if (capacity > state->request->maximum_bytes) capacity = state->request->maximum_bytes;
            unsigned char * grown = realloc(response->body, capacity);
            if (!grown) {
                state->out_of_memory = 1;
                return 0;
            }
            response->body = grown;
            state->capacity = capacity;
        }
        memcpy(response->body + response->body_length, data, take);
        response->body_length += take;
    }
    if (take < length) {
        response->truncated = 1;
        state->stopped_at_limit = 1;
        return 0;
    }
    return length;
}

static int on_progress(void * context, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)a; (void)b; (void)c; (void)d;
    transfer * state = context;
    return atomic_load(&state->fetch->cancelled);
}

/// libcurl asks for every socket it connects with: the peer address is checked here, after
/// the name was resolved and before anything is sent to it.
static curl_socket_t on_open_socket(void * context, curlsocktype purpose, struct curl_sockaddr * peer) {
    transfer * state = context;
    unsigned char address[16];
    size_t length = 0;
    if (purpose == CURLSOCKTYPE_IPCXN && peer->family == AF_INET && peer->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(address, &((const struct sockaddr_in *)(const void *)&peer->addr)->sin_addr, 4);
        length = 4;
    } else if (purpose == CURLSOCKTYPE_IPCXN && peer->family == AF_INET6 && peer->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(address, &((const struct sockaddr_in6 *)(const void *)&peer->addr)->sin6_addr, 16);
        length = 16;
    }
    // Anything but an IPv4 or IPv6 connection (a Unix socket, say) is refused outright.
    int allowed = length > 0 && (!state->request->allows_address || state->request->allows_address(address, length));
    if (!allowed) {
        state->refused_any = 1;
        memcpy(state->response->refused_address, address, length);
        state->response->refused_address_length = length;
        return CURL_SOCKET_BAD;
    }
    return socket(peer->family, peer->socktype, peer->protocol);
}

static void configure(CURL * handle, transfer * state, struct curl_slist * headers, char * error) {
    const llmkit_fetch_request * request = state->request;
    curl_easy_setopt(handle, CURLOPT_URL, request->url);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    // Redirects are followed by the caller, which checks each target first.
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    // No proxy, not even from the environment: a proxy would resolve and connect on its
    // own, past the address check.
    curl_easy_setopt(handle, CURLOPT_PROXY, "");
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L);
    // One deadline for everything: name lookup, connection, TLS, headers and body.
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, request->timeout_milliseconds);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, request->timeout_milliseconds);
    curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(handle, CURLOPT_USERAGENT, request->user_agent);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, state);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, state);
    curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(handle, CURLOPT_XFERINFODATA, state);
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, state);
}

static void fail(llmkit_fetch_response * response, const char * message) {
    response->outcome = LLMKIT_FETCH_FAILED;
    snprintf(response->error, sizeof response->error, "%s", message);
}

void llmkit_fetch_run(llmkit_fetch * fetch, const llmkit_fetch_request * request, llmkit_fetch_response * response) {
    memset(response, 0, sizeof *response);
    if (atomic_load(&fetch->cancelled)) {
        response->outcome = LLMKIT_FETCH_CANCELLED;
        return;
    }
    // libcurl reads a zero timeout as "none".
    if (request->timeout_milliseconds <= 0) {
        response->outcome = LLMKIT_FETCH_TIMED_OUT;
        return;
    }
    CURL * handle = curl_easy_init();
    if (!handle) {
        fail(response, "libcurl could not start a transfer");
        return;
    }
    transfer state = {.fetch = fetch, .request = request, .response = response};
    char error[CURL_ERROR_SIZE] = "";
    char accept[512];
    snprintf(accept, sizeof accept, "Accept: %s", request->accept ? request->accept : "*/*");
    struct curl_slist * headers = curl_slist_append(NULL, accept);
    configure(handle, &state, headers, error);
    CURLcode code = curl_easy_perform(handle);
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response->status);
    curl_easy_cleanup(handle);
    curl_slist_free_all(headers);

    if (state.out_of_memory) {
        fail(response, "out of memory");
    } else if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && state.stopped_at_limit)) {
        response->outcome = LLMKIT_FETCH_COMPLETE;
    } else if (code == CURLE_WRITE_ERROR && state.stopped_for_redirect) {
        response->outcome = LLMKIT_FETCH_REDIRECT;
    } else if (code == CURLE_ABORTED_BY_CALLBACK || atomic_load(&fetch->cancelled)) {
        response->outcome = LLMKIT_FETCH_CANCELLED;
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        response->outcome = LLMKIT_FETCH_TIMED_OUT;
    } else if (state.refused_any && code == CURLE_COULDNT_CONNECT) {
        response->outcome = LLMKIT_FETCH_REFUSED;
    } else {
        fail(response, error[0] ? error : curl_easy_strerror(code));
    }
}
