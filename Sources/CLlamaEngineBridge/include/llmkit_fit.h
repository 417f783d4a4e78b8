// Fitting a model to memory through llama.cpp's common/fit.h: what a model and context would use
// on each device (loaded with no_alloc, no weights read), and the context length and GPU layers
// that fit the free memory. Plain C; every function catches every C++ exception.
#ifndef LLMKIT_FIT_H
#define LLMKIT_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "llmkit_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The most devices a projection reports (the model's devices, then the host).
#define LLMKIT_FIT_MAX_DEVICES 17

/// What one device would hold, in bytes.
typedef struct llmkit_device_use {
    char    name[64];           // ggml's device name ("CUDA0", "RPC0"…); "Host" for the last entry
    char    description[128];
    int64_t free;               // as the device reports it now (the host: its physical memory)
    int64_t total;
    int64_t weights;
    int64_t cache;              // the KV cache (and recurrent state)
    int64_t compute;            // compute buffers
} llmkit_device_use;

/// A model's projected memory use with given parameters.
typedef struct llmkit_memory_projection {
    int32_t           device_count;         // entries in `devices`, the host last
    llmkit_device_use devices[LLMKIT_FIT_MAX_DEVICES];
    uint32_t          layer_count;          // the layers that can be offloaded (llama.cpp's n_gpu_layers for all)
    uint32_t          training_context;     // the model's training context length
} llmkit_memory_projection;

/// Projects the memory that `path` with `model`'s and `context`'s parameters would use, without
/// allocating or reading weights (common_get_device_memory_data). `model` points to a
/// `llama_model_params`, `context` to a `llama_context_params` (untyped here, so that this header
/// needs no llama.h). False and `*error` on failure.
bool llmkit_project_memory(const char * path, const void * model, const void * context,
                           llmkit_memory_projection * projection, llmkit_error * error);

/// The buffers that a fit's model parameters point to (tensor split, buffer overrides): they must
/// stay alive until the model is loaded.
typedef struct llmkit_fit llmkit_fit;

/// Fits `model` (a `llama_model_params`) and `context` (a `llama_context_params`) to the devices'
/// free memory with llama.cpp's common_fit_params:
/// `context->n_ctx` 0 is chosen (at least `minimum_context`), `model->n_gpu_layers` -1 is
/// chosen; other values are kept. `margins[i]` is what device i must keep free (for a build
/// without GPUs, `margins[0]` is what the host must keep of its physical memory); `margin_count`
/// values, the rest 0. Sets `*status` to llama.cpp's (0 fits, 1 does not fit, 2 error) and
/// returns the buffers to free after loading; NULL and `*error` when llama.cpp throws.
llmkit_fit * llmkit_fit_params(const char * path, void * model, void * context,
                               const int64_t * margins, int32_t margin_count, uint32_t minimum_context,
                               int32_t * status, llmkit_error * error);

/// Frees what a fit allocated. Accepts NULL.
void llmkit_fit_free(llmkit_fit * fit);

#ifdef __cplusplus
}
#endif

#endif // LLMKIT_FIT_H
