#!/usr/bin/env bash
# The whole GPU comparison, on the GPU machine (no Swift toolchain, no network), in one
# command: `bash bench/gpu/h200.sh [env|build|models|bench|kv|batched|serve|steps|speculative|schema|images|fit|rpc|save|all]` (default: all), with the
# payload from bench/gpu/package.sh in .gpu-payload/. Each phase is skipped when its output
# exists, so the phases can also run as separate calls.
#
#   env     GPU, CUDA, Python and the libraries llmkit needs
#   build   llama.cpp with CUDA through scripts/bootstrap-test (LLMKIT_STEPS=llama, LLMKIT_CUDA=1,
#           the GPU's architecture from nvidia-smi), into .gpu-work/prefix
#   models  a Llama-7B-shaped Q4_0 file and a Gemma-270M-shaped file, random weights
#   bench   bench/compare.py on each model: llmkit bench against llama-bench, ABBA-paired
#   kv      bench/compare.py on the 7B-shaped model with a q8_0 KV cache and flash attention
#           (llmkit bench -ctk q8_0 -ctv q8_0 -fa on against llama-bench -ctk q8_0 -ctv q8_0 -fa 1)
#   batched bench/batched.py on the 7B-shaped model: llmkit bench --parallel against
#           llama-batched-bench, B = 1 … 32, ABBA-paired, then the mixed workload at B = 8 (KV cells
#           per sequence on both sides; LLMKIT_GPU_KVU=1: one unified pool, -kvu); with a baseline
#           in the payload (package.sh's LLMKIT_GPU_BASELINE), that build runs in the same pairs
#   serve   bench/serve_compare.py on the 7B-shaped model: llmkit serve against llama-server, 8
#           sequences each, 1/4/8 streaming clients, ABBA-paired (LLMKIT_GPU_SERVE_TRACE=1: also
#           where llmkit's time to first content goes, --trace)
#   steps   where a generation step's time goes on the 7B-shaped model (llmkit bench --parallel
#           --step-times, B = 1, 8, 16, 32), next to llama-batched-bench's time per step; then steps
#           with idle sequences between generating ones, with filler rows and without (--gaps)
#   speculative  bench/speculative.py with all layers on the GPU: prompt lookup on SmolLM2-135M-Instruct
#           (the real model, carried in parts as .gpu-smol/part-* since a call carries 64 MiB at most) on
#           the editing, extraction and quoting tasks, and multi-token prediction on the synthetic mimo2
#           that scripts/synth-mtp-model writes there, each against llama-server's own
#   schema  llmkit bench --schema on SmolLM2-135M-Instruct (as for speculative), all layers on the GPU:
#           bench/schemas/review.json and long_keys.json, raw and through the chat template, greedy
#           and at temperature 1, unconstrained against constrained with grammar drafts and one token a step
#           (with a baseline in the payload, that build too, ABBA)
#   images  bench/images.py on the 7B-shaped model with a CLIP ViT-B/14-shaped random projector
#           (scripts/synth-vision-model --shape base): image encoding and the first token after it,
#           against llama-mtmd-cli, ABBA-paired
#           (LLMKIT_GPU_IMAGE_PAIRS, default 24: a single GPU run's encoding time is bimodal, see docs/PERFORMANCE.md)
#   fit     llmkit fit on the 7B-shaped model as the GPU's free memory shrinks (--memory), and a load
#           with the plan (run --fit)
#   rpc     bench/rpc.py on the 7B-shaped model: every layer on two RPC servers that both offer this
#           GPU (llmkit rpc-server for llmkit, llama.cpp's ggml-rpc-server for llama-bench --rpc), against
#           every layer on the GPU directly; one GPU stands in for the two of a two-GPU host
#   save    the built prefix, xz-compressed in 15 MiB parts, to $OUT: put the parts in
#           .gpu-payload/ (package.sh keeps them) and the next build phase unpacks them instead
#           of building llama.cpp again (about 5 minutes of the GPU machine)
#
# Results go to $OUT (or .gpu-work/out): bench-<model>.md and .json, env.txt.
# LLMKIT_GPU_PAIRS (default 5) and LLMKIT_GPU_MODELS ("name:repetitions …") tune the bench phase.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
payload="${LLMKIT_GPU_PAYLOAD:-$root/.gpu-payload}"
work="${LLMKIT_GPU_WORK:-$root/.gpu-work}"
out="${OUT:-$work/out}"
phase="${1:-all}"
pairs="${LLMKIT_GPU_PAIRS:-5}"
mkdir -p "$work" "$out"
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

libraries() {
    export LD_LIBRARY_PATH="$work/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # This machine's libxml2 is used only when the GPU machine has none.
    if ! ldconfig -p | grep -q 'libxml2.so.2 '; then
        [ -d "$work/fallback-libs" ] || tar -C "$work" -xJf "$payload/fallback-libs.tar.xz"
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$work/fallback-libs"
    fi
}

phase_env() {
    {
        date -u +"%Y-%m-%dT%H:%M:%SZ"
        nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv || true
        (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -n 2 || true
        python3 -c 'import numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__)' || true
        nproc; cmake --version | head -n 1; grep PRETTY /etc/os-release || true
    } | tee "$out/env.txt" >&2
}

phase_build() {
    if [ ! -x "$work/llmkit" ]; then
        xz -dc "$payload/llmkit.xz" > "$work/llmkit.partial" && chmod +x "$work/llmkit.partial" && mv "$work/llmkit.partial" "$work/llmkit"
    fi
    if [ -f "$payload/llmkit-baseline.xz" ] && [ ! -x "$work/llmkit-baseline" ]; then
        xz -dc "$payload/llmkit-baseline.xz" > "$work/llmkit-baseline.partial" && chmod +x "$work/llmkit-baseline.partial" \
            && mv "$work/llmkit-baseline.partial" "$work/llmkit-baseline"
    fi
    if [ ! -f "$work/prefix/share/llmkit/backend" ] && compgen -G "$payload/gpu-prefix.tar.xz.part-*" >/dev/null; then
        log "unpacking the prefix built on an earlier GPU machine"
        cat "$payload"/gpu-prefix.tar.xz.part-* | tar -C "$work" -xJf -
        libraries
        "$work/llmkit" --version >&2
        return
    fi
    if [ ! -f "$work/llama.cpp/include/llama.h" ]; then
        tar -C "$work" -xJf "$payload/llama-src.tar.xz"
    fi
    local start=$SECONDS
    PATH="$PATH:/usr/local/cuda/bin" LLMKIT_STEPS=llama LLMKIT_CUDA=1 LLMKIT_LLAMA_SOURCE="$work/llama.cpp" \
        LLMKIT_PREFIX="$work/prefix" LLMKIT_CACHE="$work/cache" LLMKIT_JOBS="$(nproc)" bash "$root/scripts/bootstrap-test"
    log "llama.cpp ready after $((SECONDS - start)) s: $(cat "$work/prefix/share/llmkit/backend")"
    libraries
    ldd "$work/llmkit" | grep -E 'not found|llama|ggml|xml|curl|crypto' >&2 || true
    "$work/llmkit" --version >&2
}

phase_models() {
    if [ ! -f "$work/synth-7b-q4_0.gguf" ]; then
        log "generating the 7B-shaped Q4_0 model"
        python3 "$payload/synth_llama_gguf.py" "$work/synth-7b-q4_0.gguf.partial" && mv "$work/synth-7b-q4_0.gguf.partial" "$work/synth-7b-q4_0.gguf"
    fi
    if [ ! -f "$work/gemma-shaped.gguf" ] && [ ! -f "$payload/gemma-header.xz" ]; then
        log "no gemma-header.xz in the payload: no Gemma-270M-shaped model (the bench phase needs it)"
    elif [ ! -f "$work/gemma-shaped.gguf" ]; then
        log "generating the Gemma-270M-shaped model"
        python3 "$root/bench/gpu/gemma_shaped.py" "$payload/gemma-header.xz" "$work/gemma-shaped.gguf" 253113024
    fi
    ls -l "$work"/*.gguf >&2
}

phase_bench() {
    libraries
    "$work/llmkit" info "$work/gemma-shaped.gguf" | tail -n 3 >&2
    # Repetitions per run: a Gemma pp512 takes about 9 ms, so it needs many to average out noise.
    for spec in ${LLMKIT_GPU_MODELS:-gemma-shaped:30 synth-7b-q4_0:5}; do
        model="${spec%%:*}" repetitions="${spec##*:}"
        log "comparing on $model ($pairs ABBA pairs, -r $repetitions)"
        python3 "$root/bench/compare.py" --model "$work/$model.gguf" --prefix "$work/prefix" --llmkit "$work/llmkit" \
            --threads "$(nproc)" --pairs "$pairs" -r "$repetitions" --memory-runs 0 --json-out "$out/bench-$model.json" \
            | tee "$out/bench-$model.md"
    done
    "$work/llmkit" bench --model "$work/gemma-shaped.gguf" -p 512 -n 128 -r 3 | tee "$out/llmkit-bench-table.md"
}

phase_kv() {
    libraries
    log "comparing with a q8_0 KV cache and flash attention ($pairs ABBA pairs)"
    python3 "$root/bench/compare.py" --model "$work/synth-7b-q4_0.gguf" --prefix "$work/prefix" --llmkit "$work/llmkit" \
        --threads "$(nproc)" --pairs "$pairs" -r 5 --memory-runs 0 --cache-type q8_0 --flash-attn on \
        --json-out "$out/bench-kv-q8_0.json" | tee "$out/bench-kv-q8_0.md"
}

phase_batched() {
    libraries
    log "continuous batching on synth-7b-q4_0 (${LLMKIT_GPU_BATCHED_PAIRS:-2} ABBA pairs)"
    python3 "$root/bench/batched.py" --model "$work/synth-7b-q4_0.gguf" --prefix "$work/prefix" --llmkit "$work/llmkit" \
        --threads "$(nproc)" -p 128 -n 128 --parallel "${LLMKIT_GPU_PARALLEL:-1,2,4,8,16,32}" \
        --pairs "${LLMKIT_GPU_BATCHED_PAIRS:-2}" --mixed 8 --duration "${LLMKIT_GPU_MIXED_SECONDS:-30}" ${LLMKIT_GPU_KVU:+--kv-unified} \
        $([ -x "$work/llmkit-baseline" ] && echo --baseline "$work/llmkit-baseline") \
        --json "$out/batched${LLMKIT_GPU_KVU:+-kvu}-synth-7b-q4_0.json" | tee "$out/batched${LLMKIT_GPU_KVU:+-kvu}-synth-7b-q4_0.md"
}

phase_serve() {
    libraries
    log "llmkit serve against llama-server on synth-7b-q4_0 (${LLMKIT_GPU_SERVE_PAIRS:-2} ABBA pairs)"
    python3 "$root/bench/serve_compare.py" --model-path "$work/synth-7b-q4_0.gguf" --prefix "$work/prefix" \
        --llmkit "$work/llmkit" --threads "$(nproc)" --gpu-layers 999 --parallel 8 --context 1024 --clients 1,4,8 \
        --requests 4 --max-tokens 128 --pairs "${LLMKIT_GPU_SERVE_PAIRS:-2}" ${LLMKIT_GPU_SERVE_TRACE:+--trace} --json "$out/serve-synth-7b-q4_0.json" \
        | tee "$out/serve-synth-7b-q4_0.md"
}

phase_steps() {
    libraries
    local model="$work/synth-7b-q4_0.gguf" threads
    threads="$(nproc)"
    log "time per generation step on synth-7b-q4_0"
    {
        echo "## llama-batched-bench"
        "$work/prefix/bin/llama-batched-bench" -m "$model" -t "$threads" -tb "$threads" -c 8224 -b 2048 -ub 512 \
            -npp 128 -ntg 128 -npl 1,8,16,32 2>/dev/null | grep '^|'
        echo; echo "## llmkit bench --parallel --step-times"
        "$work/llmkit" bench --model "$model" --threads "$threads" -p 128 -n 128 --parallel 1,8,16,32 --step-times
        echo; echo "## llmkit bench --parallel --gaps (KV cells per sequence)"
        "$work/llmkit" bench --model "$model" --threads "$threads" -p 128 -n 64 --parallel 8,32 --gaps --no-kv-unified
    } | tee "$out/steps-synth-7b-q4_0.md"
}

# SmolLM2-135M-Instruct, from the parts a call carries (.gpu-smol*/part-*: 64 MiB a call at most).
smol_model() {
    local smol="$work/smollm2-135m-instruct-q4_1.gguf"
    if [ ! -f "$smol" ]; then
        cat "$root"/.gpu-smol*/part-* > "$smol.partial"
        echo "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53  $smol.partial" | sha256sum -c --quiet \
            || { rm -f "$smol.partial"; echo "SmolLM2's parts do not add up to the model" >&2; exit 1; }
        mv "$smol.partial" "$smol"
    fi
    echo "$smol"
}

phase_speculative() {
    libraries
    local smol mtp="$work/synthetic-mimo2-mtp.gguf" threads
    threads="$(nproc)"
    smol="$(smol_model)"
    if [ ! -f "$mtp" ]; then
        [ -d "$work/python-gguf" ] || { mkdir -p "$work/python-gguf" && tar -C "$work/python-gguf" -xJf "$payload/python-gguf.tar.xz"; }
        PYTHONPATH="$work/python-gguf" python3 "$root/scripts/synth-mtp-model" --tokenizer "$smol" --output "$mtp" >&2
    fi
    log "speculative decoding on the GPU (${LLMKIT_GPU_SPEC_PAIRS:-2} ABBA pairs)"
    python3 "$root/bench/speculative.py" --lookup --model "$smol" --prefix "$work/prefix" --llmkit "$work/llmkit" \
        --threads "$threads" --gpu-layers 999 --pairs "${LLMKIT_GPU_SPEC_PAIRS:-2}" --tasks editing,extraction,quoting \
        --json "$out/speculative-lookup-smollm2.json" | tee "$out/speculative-lookup-smollm2.md"
    python3 "$root/bench/speculative.py" --mtp --model "$mtp" --prefix "$work/prefix" --llmkit "$work/llmkit" \
        --threads "$threads" --gpu-layers 999 --pairs "${LLMKIT_GPU_SPEC_PAIRS:-2}" --max-tokens 128 \
        --json "$out/speculative-mtp-synthetic.json" | tee "$out/speculative-mtp-synthetic.md"
}

phase_schema() {
    libraries
    local smol
    smol="$(smol_model)"
    # With a baseline in the payload, each setting runs llmkit, the baseline, the baseline, llmkit.
    local builds=(llmkit)
    [ -x "$work/llmkit-baseline" ] && builds=(llmkit llmkit-baseline llmkit-baseline llmkit)
    log "constrained generation with grammar drafts on the GPU (${builds[*]})"
    for prompt in raw chat; do
        for schema in review long_keys; do
            for temperature in 0 1; do
                for build in "${builds[@]}"; do
                    echo "## $schema.json, $prompt prompt, temperature $temperature, $build"
                    "$work/$build" bench --schema "$root/bench/schemas/$schema.json" --model "$smol" -ngl 999 \
                        --threads "$(nproc)" -r "${LLMKIT_GPU_SCHEMA_RUNS:-6}" --temperature "$temperature" \
                        $([ "$prompt" = chat ] && echo --chat)
                done
            done
        done
    done | tee "$out/schema-smollm2.md"
}

phase_images() {
    libraries
    local model="$work/synth-7b-q4_0.gguf" mmproj="$work/synthetic-clip-base-mmproj-4096.gguf"
    if [ ! -f "$mmproj" ]; then
        [ -d "$work/python-gguf" ] || { mkdir -p "$work/python-gguf" && tar -C "$work/python-gguf" -xJf "$payload/python-gguf.tar.xz"; }
        PYTHONPATH="$work/python-gguf" python3 "$root/scripts/synth-vision-model" --text-model "$model" --output "$mmproj" \
            --images-dir "$work/images" --seed 1 --shape base >&2
    fi
    log "images on the GPU: a CLIP ViT-B/14-shaped projector before the 7B-shaped model (${LLMKIT_GPU_IMAGE_PAIRS:-24} ABBA pairs)"
    python3 "$root/bench/images.py" --model "$model" --mmproj "$mmproj" --image "$work/images/shapes-100x100.png" \
        --prefix "$work/prefix" --llmkit "$work/llmkit" --threads "$(nproc)" --pairs "${LLMKIT_GPU_IMAGE_PAIRS:-24}" \
        --chat-template chatml --json "$out/images-synth-7b-q4_0.json" | tee "$out/images-synth-7b-q4_0.md"
}

phase_fit() {
    libraries
    local model="$work/synth-7b-q4_0.gguf"
    log "fitting synth-7b-q4_0 to the GPU's memory"
    {
        for memory in "" 8G 5G 4G 3G 1G; do
            echo "## llmkit fit ${memory:+--memory $memory}"
            LLMKIT_HOME="$work/fit-home" "$work/llmkit" fit "$model" --context 4096 ${memory:+--memory $memory} || true
            LLMKIT_HOME="$work/fit-home" "$work/llmkit" fit "$model" ${memory:+--memory $memory} --json \
                | python3 -c 'import json,sys; p=json.load(sys.stdin); print("fitted:", p["context_length"], "tokens,", p["gpu_layers"], "of", p["layer_count"], "layers, fits", p["fits"])' || true
            echo
        done
        echo "## llmkit run --fit"
        LLMKIT_HOME="$work/fit-home" "$work/llmkit" run --fit -m "$model" -n 8 --temperature 0 --stats "Hello" 2>&1 | tail -n 4
    } 2>&1 | tee "$out/fit-synth-7b-q4_0.md"
}

phase_rpc() {
    libraries
    log "the 7B-shaped model over two RPC servers on the GPU"
    python3 "$root/bench/rpc.py" --model "$work/synth-7b-q4_0.gguf" --prefix "$work/prefix" --llmkit "$work/llmkit" \
        --threads "$(nproc)" --server-threads "$(nproc)" --gpu-layers 999 --local-gpu-layers 999 --tensor-split 1,1,0 \
        -p 512 -n 128 -r "${LLMKIT_GPU_RPC_REPETITIONS:-3}" --pairs "${LLMKIT_GPU_RPC_PAIRS:-2}" \
        --json "$out/rpc-synth-7b-q4_0.json" | tee "$out/rpc-synth-7b-q4_0.md"
}

phase_save() {
    log "packing the prefix"
    tar -C "$work" -cf - prefix | xz -T0 -6 | split -b 15M - "$out/gpu-prefix.tar.xz.part-"
    ls -l "$out"/gpu-prefix.tar.xz.part-* >&2
}

case "$phase" in
    env) phase_env ;;
    build) phase_build ;;
    models) phase_models ;;
    bench) phase_bench ;;
    kv) phase_kv ;;
    batched) phase_batched ;;
    serve) phase_serve ;;
    speculative) phase_speculative ;;
    schema) phase_schema ;;
    images) phase_images ;;
    fit) phase_fit ;;
    rpc) phase_rpc ;;
    steps) phase_steps ;;
    save) phase_save ;;
    all) phase_env; phase_build; phase_models; phase_bench; phase_batched; phase_serve ;;
    *) echo "usage: bench/gpu/h200.sh [env|build|models|bench|batched|serve|steps|speculative|images|fit|rpc|save|all]" >&2; exit 2 ;;
esac
