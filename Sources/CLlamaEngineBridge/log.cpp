// llama.cpp's `common` library logs through its own logger (common_log), which a worker
// thread prints straight to stdout/stderr; it has no callback. LocalLLMKit keeps it silent
// unless the app asked for llama.cpp's log on standard error.
#include "llmkit_bridge_support.hpp"

#include "log.h"

extern "C" void llmkit_common_log_set_verbosity(int verbosity) {
    common_log_set_verbosity_thold(verbosity);
}
