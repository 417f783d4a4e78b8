// llama.cpp's build information, from llama-common's build-info (C++ linkage there).
#include "llmkit_engine.h"

#include "build-info.h"

extern "C" int llmkit_llama_build_number(void) {
    return llama_build_number();
}

extern "C" const char * llmkit_llama_commit(void) {
    return llama_commit();
}
