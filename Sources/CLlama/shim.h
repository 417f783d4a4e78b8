// The llama.cpp C API as one Swift module: headers come from the prefix that
// scripts/bootstrap installs, found through pkg-config (llama.pc).
#include <llama.h>
#include <ggml.h>
#include <ggml-backend.h>
#include <gguf.h>
