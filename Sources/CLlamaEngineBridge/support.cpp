// Strings the bridge hands to Swift are malloc'ed; Swift releases them here.
#include "llmkit_bridge_support.hpp"

extern "C" void llmkit_string_free(char * string) {
    std::free(string);
}
