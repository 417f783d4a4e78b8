#!/usr/bin/env bash
# `make bench`: llmkit against llama.cpp's own tools on the reference model (Gemma 3 270M), a 10-turn
# conversation with and without KV-cache reuse, schema-constrained generation, continuous
# batching against llama-batched-bench, and model downloads against curl.
# Extra arguments go to compare.py (see `bench/compare.py --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 bench/compare.py "$@"
echo
echo "10-turn conversation, KV-cache reuse against re-evaluating the whole history:"
model="${LLMKIT_MODEL:-${LLMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit}/models/gemma.gguf}"
.build/release/llmkit bench --conversation 10 --model "$model"
echo
echo "Generation constrained by a JSON Schema, next to unconstrained:"
python3 bench/schema_compare.py
echo
echo "Continuous batching, llmkit bench --parallel against llama-batched-bench, and a mixed workload:"
python3 bench/batched.py --model "$model" --parallel 1,2,4,8 -p 128 -n 64 --pairs 2 --mixed 8 --duration 40
echo
echo "Model download from 127.0.0.1, llmkit pull against curl + sha256sum:"
python3 bench/download_compare.py
