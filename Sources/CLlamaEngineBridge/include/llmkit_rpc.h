// llama.cpp's RPC backend (ggml-rpc): remote devices for a model, and the server that offers this
// machine's devices to others. Plain C; every function catches every C++ exception.
//
// ggml-rpc's client aborts the process when a server goes away (RPC_STATUS_ASSERT). So this
// process never talks to a server directly: each server is reached through a relay of ours on
// loopback, which forwards the protocol's messages and, once the server is gone, answers the
// client's requests itself with well-formed empty answers. llama.cpp then finishes the call it
// was in; the caller asks llmkit_rpc_link_lost after each call and reports the loss.
#ifndef LLMKIT_RPC_H
#define LLMKIT_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmkit_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Whether this llama.cpp was built with its RPC backend (GGML_RPC=ON).
bool llmkit_rpc_supported(void);

/// One remote server, reached through its relay. Links live as long as the process: a model
/// freed after its server was lost still sends its last requests to the relay.
typedef struct llmkit_rpc_link llmkit_rpc_link;

/// The link to `endpoint` ("host:port"): checks that a ggml-rpc server of this protocol version
/// answers there within `timeout_seconds`, then starts the relay and lists the server's devices.
/// A live link to the same endpoint is shared; a lost one is replaced. NULL with `*error` when the
/// endpoint is malformed, nothing answers, the answer is not ggml-rpc's or of another version.
llmkit_rpc_link * llmkit_rpc_connect(const char * endpoint, double timeout_seconds, llmkit_error * error);

/// The link's devices (ggml_backend_dev_t), in the server's order; `*count` of them.
void * const * llmkit_rpc_link_devices(const llmkit_rpc_link * link, size_t * count);

/// The endpoint the link reaches, as given.
const char * llmkit_rpc_link_endpoint(const llmkit_rpc_link * link);

/// Whether the server was lost (its connection closed or failed); `*reason` then says how
/// (a malloc'ed string for llmkit_string_free), when asked for.
bool llmkit_rpc_link_lost(const llmkit_rpc_link * link, llmkit_error * reason);

/// Runs ggml-rpc's server on `endpoint` ("host:port") for the devices named in `device_names`
/// (ggml's names, "CPU", "CUDA0"…; none: the GPUs, else the CPU), with `threads` CPU threads and
/// ggml-rpc's tensor cache in `cache_directory` (NULL: none). Checks first that the devices exist
/// and that the address can be bound. Serves one client at a time and returns only when it cannot
/// start or accept: false with `*error`.
bool llmkit_rpc_serve(const char * endpoint, const char * const * device_names, size_t device_count,
                      size_t threads, const char * cache_directory, llmkit_error * error);

#ifdef __cplusplus
}
#endif

#endif
