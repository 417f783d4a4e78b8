#!/usr/bin/env bash
# `make bench`: llmkit against llama.cpp's own tools, on the default model.
# Extra arguments go to compare.py (see `bench/compare.py --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/compare.py "$@"
