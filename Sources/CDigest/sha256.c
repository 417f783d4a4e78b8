// SHA-256 through libcrypto's EVP interface.
#include "llmkit_digest.h"

#include <openssl/evp.h>

struct llmkit_sha256 {
    EVP_MD_CTX * context;
};

llmkit_sha256 * llmkit_sha256_new(void) {
    EVP_MD_CTX * context = EVP_MD_CTX_new();
    if (!context) return NULL;
    if (EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    llmkit_sha256 * digest = OPENSSL_malloc(sizeof(llmkit_sha256));
    if (!digest) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    digest->context = context;
    return digest;
}

int llmkit_sha256_update(llmkit_sha256 * digest, const void * bytes, size_t count) {
    return digest && EVP_DigestUpdate(digest->context, bytes, count) == 1;
}

int llmkit_sha256_finish(llmkit_sha256 * digest, unsigned char out[32]) {
    if (!digest) return 0;
    unsigned int length = 0;
    int ok = EVP_DigestFinal_ex(digest->context, out, &length) == 1 && length == 32;
    llmkit_sha256_free(digest);
    return ok;
}

void llmkit_sha256_free(llmkit_sha256 * digest) {
    if (!digest) return;
    EVP_MD_CTX_free(digest->context);
    OPENSSL_free(digest);
}
