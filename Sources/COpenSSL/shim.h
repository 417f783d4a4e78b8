// OpenSSL's libcrypto (SHA-256), found through pkg-config (libcrypto), installed by
// scripts/bootstrap (Debian's libssl-dev). Only CDigest includes it.
#include <openssl/evp.h>
