// libedit (BSD editline) through its readline-compatible API, for `llmkit chat` on a
// terminal. The helpers below touch libedit's global variables here in C, so that Swift
// never refers to shared mutable C state directly.
#ifndef LLMKIT_CEDITLINE_SHIM_H
#define LLMKIT_CEDITLINE_SHIM_H

#include <locale.h>
#include <stdio.h>
#include <editline/readline.h>

/// Prepares libedit once, before the first `readline` call: UTF-8 aware input (the
/// character type of the user's locale), the prompt and echo on stderr (stdout carries
/// only answers), no signal handlers of libedit's own (the caller handles Ctrl-C), and a
/// history bounded to `limit` entries.
static inline void llmkit_editline_prepare(int limit) {
    setlocale(LC_CTYPE, "");
    rl_readline_name = "llmkit";
    rl_catch_signals = 0;
    rl_outstream = stderr;
    using_history();
    stifle_history(limit);
}

#endif
