// SHA-256 with OpenSSL's libcrypto, behind plain C types.
#ifndef LLMKIT_DIGEST_H
#define LLMKIT_DIGEST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A running SHA-256 computation.
typedef struct llmkit_sha256 llmkit_sha256;

/// Starts a computation; NULL when libcrypto cannot.
llmkit_sha256 * llmkit_sha256_new(void);

/// Adds bytes. Returns 0 on failure.
int llmkit_sha256_update(llmkit_sha256 * digest, const void * bytes, size_t count);

/// Writes the 32-byte digest to `out` and frees the computation. Returns 0 on failure.
int llmkit_sha256_finish(llmkit_sha256 * digest, unsigned char out[32]);

/// Frees an unfinished computation. Accepts NULL.
void llmkit_sha256_free(llmkit_sha256 * digest);

#ifdef __cplusplus
}
#endif

#endif
