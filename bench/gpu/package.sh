#!/usr/bin/env bash
# Prepares what the GPU machine needs (it has no Swift toolchain and no network) in
# .gpu-payload/ (ignored by git, under 64 MiB), for bench/gpu/h200.sh:
#   llmkit.xz          a release llmkit with the Swift runtime linked statically
#   llama-src.tar.xz   the pinned llama.cpp tree, without models, docs, tests and examples
#   gemma-header.xz    the default model's bytes before its tensor data
#   synth_llama_gguf.py  the 7B-shaped model generator (from ../shared/bench)
#   fallback-libs/     this machine's libxml2 (and its ICU), used there only if missing
#   python-gguf.tar.xz PyPI's gguf and what it imports (pure Python), for scripts/synth-mtp-model
#   llmkit-baseline.xz with LLMKIT_GPU_BASELINE=PATH: another static llmkit (an earlier build,
#                      `swift build -c release --static-swift-stdlib --product llmkit -Xlinker -lcurl`
#                      in a worktree), which the batched phase then measures in the same pairs
# Run it here, after scripts/bootstrap.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
payload="$root/.gpu-payload"
cache="${LLMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit}"
# Everything but a prefix built on a GPU machine earlier (h200.sh save) is made afresh.
mkdir -p "$payload"
find "$payload" -mindepth 1 -maxdepth 1 ! -name 'gpu-prefix.tar.xz.part-*' -exec rm -rf {} +
mkdir -p "$payload/fallback-libs"

# Static Swift runtime: Foundation's networking needs libcurl's link-time file.
if [ ! -e /usr/lib/x86_64-linux-gnu/libcurl.so ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev >/dev/null
fi
swift build -c release --static-swift-stdlib --scratch-path "${TMPDIR:-/tmp}/llmkit-static-build" \
    --product llmkit -Xlinker -lcurl 2>&1 | { grep -E "error|warning: |Compiling|complete" || true; } | tail -3
binary="${TMPDIR:-/tmp}/llmkit-static-build/release/llmkit"
strip -o "$payload/llmkit" "$binary"
xz -T0 -6 "$payload/llmkit"
if [ -n "${LLMKIT_GPU_BASELINE:-}" ]; then
    strip -o "$payload/llmkit-baseline" "$LLMKIT_GPU_BASELINE"
    xz -T0 -6 "$payload/llmkit-baseline"
fi

src="$cache/src/llama_cpp_python-0.3.36/vendor/llama.cpp"
[ -f "$src/include/llama.h" ] || { echo "package.sh: run scripts/bootstrap first" >&2; exit 1; }
tar -C "$(dirname "$src")" -cJf "$payload/llama-src.tar.xz" \
    --exclude='llama.cpp/models/*.gguf' --exclude='llama.cpp/docs' --exclude='llama.cpp/tests' \
    --exclude='llama.cpp/media' --exclude='llama.cpp/benches' \
    --exclude='llama.cpp/gguf-py' --exclude='llama.cpp/tools/ui/src' --exclude='llama.cpp/tools/ui/tests' \
    --exclude='llama.cpp/tools/ui/static' --exclude='llama.cpp/.git*' llama.cpp

# The bootstrap's gguf 0.19.0 and the pure-Python packages it imports (numpy is on the GPU machine).
tar -C "$cache/python-convert" -cJf "$payload/python-gguf.tar.xz" gguf yaml tqdm requests urllib3 idna certifi charset_normalizer

head -c 6525120 "$cache/models/gemma.gguf" | xz -T0 -6 > "$payload/gemma-header.xz"
cp /work/shared/bench/synth_llama_gguf.py "$payload/" 2>/dev/null || cp "$root/../shared/bench/synth_llama_gguf.py" "$payload/"

for library in libxml2.so.2 libicuuc.so.72 libicudata.so.72; do
    cp -L "/usr/lib/x86_64-linux-gnu/$library" "$payload/fallback-libs/"
done
tar -C "$payload" -cJf "$payload/fallback-libs.tar.xz" fallback-libs && rm -rf "$payload/fallback-libs"
du -ch "$payload"/* | tail -n 20
