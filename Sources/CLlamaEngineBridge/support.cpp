// Strings the bridge hands to Swift are malloc'ed; Swift releases them here.
#include "llmkit_bridge_support.hpp"

extern "C" void llmkit_string_free(char * string) {
    std::free(string);
}

#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern "C" void llmkit_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
