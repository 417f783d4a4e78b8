#!/usr/bin/env bash
# How long `make demo` or `make test` takes from a clean cache, as on a fresh machine:
#
#   bench/fresh-setup.sh demo|test
#
# It REMOVES the bootstrap's cache (LLMKIT_CACHE, default ~/.cache/llmkit: llama.cpp's source and
# builds, the models), what the bootstraps installed into LLMKIT_PREFIX (scripts/uninstall) and
# this checkout's .build, then times the command with bash's `time`. Packages that apt installed
# stay (a fresh machine without them adds their download). The model library is not touched.
# Its output goes to fresh-setup-TARGET.log in the current folder; the last lines are the times.
set -euo pipefail
target="${1:-}"
case "$target" in demo|test) ;; *) echo "usage: bench/fresh-setup.sh demo|test" >&2; exit 2 ;; esac
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${LLMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit}"
log="$PWD/fresh-setup-$target.log"
cd "$root"
scripts/uninstall >/dev/null
rm -rf "$cache" .build
sync
echo "fresh-setup: make $target from a clean cache on $(nproc) cores ($(date -u +%FT%TZ)); log: $log" >&2
TIMEFORMAT="fresh-setup: make $target: %R s wall, %U s user, %S s system"
{ time make "$target" >"$log" 2>&1; } 2>>"$log" || { tail -n 30 "$log" >&2; echo "fresh-setup: make $target FAILED" >&2; exit 1; }
tail -n 1 "$log"
