#!/usr/bin/env python3
"""LocalLLMKit against llama.cpp on the same model, threads and sizes, in one run.

Throughput: `llmkit bench` and `llama-bench`, ABBA-paired (llmkit, llama-bench,
llama-bench, llmkit) so that drift in the machine's speed hits both alike; every
sample of every run is pooled per test; the ratio is llmkit's mean over
llama-bench's.

Memory: peak resident memory (ru_maxrss of the finished child) of
`llmkit run --raw` against `llama-completion` generating the same tokens at the
same context length, alternated; the ratio is of the medians.

With --cache-type T (both keys and values) and --flash-attn on|off, both tools run with that
KV cache (llama-bench -ctk T -ctv T -fa 1|0; llmkit bench and run -ctk T -ctv T -fa on|off;
llama-completion -ctk T -ctv T -fa on|off).

Usage: bench/compare.py [--model PATH] [--threads N] [-p N] [-n N] [-r N]
                        [--pairs N] [--context N] [--llmkit PATH] [--prefix DIR]
                        [--cache-type T] [--flash-attn on|off]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def default_model() -> str:
    if os.environ.get("LLMKIT_MODEL"):
        return os.environ["LLMKIT_MODEL"]
    cache = os.environ.get("LLMKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
    return os.path.realpath(os.path.join(cache, "models", "gemma.gguf"))


def run(command: list[str]) -> str:
    """Runs a command and returns its stdout."""
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr.decode()[-2000:]}")
    return result.stdout.decode()


def peak_rss(command: list[str]) -> int:
    """Runs a command and returns its peak resident memory in KiB."""
    with tempfile.TemporaryFile() as errors:     # a file, not a pipe: a long log cannot block the child
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        if status != 0:
            errors.seek(0)
            sys.exit(f"failed: {' '.join(command)}\n{errors.read().decode(errors='replace')[-2000:]}")
    return usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=default_model())
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-p", type=int, default=512, help="prompt tokens (pp test)")
    parser.add_argument("-n", type=int, default=128, help="generated tokens (tg test)")
    parser.add_argument("-r", type=int, default=5, help="repetitions inside each run")
    parser.add_argument("--pairs", type=int, default=3, help="ABBA pairs")
    parser.add_argument("--context", type=int, default=4096, help="context length for the memory runs")
    parser.add_argument("--memory-runs", type=int, default=3)
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--json-out", help="write all samples here")
    parser.add_argument("--cache-type", help="the KV cache type of keys and values (f16, q8_0, q4_0, ...)")
    parser.add_argument("--flash-attn", choices=["on", "off"])
    args = parser.parse_args()

    llama_bench = os.path.join(args.prefix, "bin", "llama-bench")
    llama_completion = os.path.join(args.prefix, "bin", "llama-completion")
    common = ["-m", args.model, "-t", str(args.threads), "-p", str(args.p), "-n", str(args.n), "-r", str(args.r)]
    cache = ["-ctk", args.cache_type, "-ctv", args.cache_type] if args.cache_type else []
    flash = ["-fa", args.flash_attn] if args.flash_attn else []
    bench_flash = ["-fa", "1" if args.flash_attn == "on" else "0"] if args.flash_attn else []
    commands = {
        "llmkit": [args.llmkit, "bench", *common, *cache, *flash, "--json"],
        "llama-bench": [llama_bench, *common, *cache, *bench_flash, "-o", "json"],
    }
    samples: dict[tuple[str, str], list[float]] = {}
    backends: dict[str, str] = {}
    pair_ratios: dict[str, list[float]] = {}
    for pair in range(args.pairs):
        means: dict[tuple[str, str], float] = {}
        for tool in ["llmkit", "llama-bench", "llama-bench", "llmkit"]:
            output = run(commands[tool])
            for test in json.loads(output):
                backends[tool] = f"{test.get('backends', '?')}, ngl {test.get('n_gpu_layers', '?')}" + (
                    f", {test['gpu_info']}" if test.get("gpu_info") else "")
                name = f"pp{test['n_prompt']}" if test["n_prompt"] else f"tg{test['n_gen']}"
                samples.setdefault((tool, name), []).extend(test["samples_ts"])
                means.setdefault((tool, name), 0.0)
                means[(tool, name)] += test["avg_ts"] / 2
        for (tool, name), mean in means.items():
            if tool == "llmkit":
                pair_ratios.setdefault(name, []).append(mean / means[("llama-bench", name)])
        print(f"pair {pair + 1}/{args.pairs}: " + ", ".join(
            f"{name} {ratios[-1]:.3f}" for name, ratios in pair_ratios.items()), file=sys.stderr)

    prompt = "Once upon a time"
    memory_commands = {
        "llmkit run": [args.llmkit, "run", "--raw", "--model", args.model, "--threads", str(args.threads),
                       "--context", str(args.context), "--max-tokens", str(args.n), "--temperature", "0", *cache, *flash, prompt],
        "llama-completion": [llama_completion, "-m", args.model, "-t", str(args.threads), "-c", str(args.context),
                             "-n", str(args.n), "--temp", "0", "-no-cnv", *cache, *flash, "-p", prompt],
    }
    peaks: dict[str, list[int]] = {name: [] for name in memory_commands}  # --memory-runs 0 skips them
    for index in range(args.memory_runs):
        order = list(memory_commands) if index % 2 == 0 else list(reversed(memory_commands))
        for name in order:
            peaks[name].append(peak_rss(memory_commands[name]))

    print(f"\nmodel: {args.model}\nthreads: {args.threads}, repetitions per run: {args.r}, ABBA pairs: {args.pairs}"
          + (f", KV cache {args.cache_type}" if args.cache_type else "") + (f", flash attention {args.flash_attn}" if args.flash_attn else ""))
    for tool, backend in backends.items():
        print(f"{tool}: {backend}")
    print()
    print("| test | llmkit bench t/s | llama-bench t/s | ratio | per-pair ratios |")
    print("|---|---:|---:|---:|---|")
    for name in pair_ratios:
        ours, theirs = samples[("llmkit", name)], samples[("llama-bench", name)]
        ratio = statistics.mean(ours) / statistics.mean(theirs)
        print(f"| {name} | {statistics.mean(ours):.2f} ± {statistics.stdev(ours):.2f} "
              f"| {statistics.mean(theirs):.2f} ± {statistics.stdev(theirs):.2f} | **{ratio:.3f}** "
              f"| {', '.join(f'{r:.3f}' for r in pair_ratios[name])} |")
    if args.memory_runs > 0:
        print_memory(args, peaks)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "samples": {f"{tool}/{name}": values for (tool, name), values in samples.items()},
            "pair_ratios": pair_ratios, "peak_rss_kib": peaks, "backends": backends}, indent=2))


def print_memory(args, peaks: dict[str, list[int]]) -> None:
    ours_peak, theirs_peak = statistics.median(peaks["llmkit run"]), statistics.median(peaks["llama-completion"])
    print(f"\n| peak RSS, context {args.context}, {args.n} tokens | llmkit run | llama-completion | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| median of {args.memory_runs} (MiB) | {ours_peak / 1024:.1f} | {theirs_peak / 1024:.1f} "
          f"| **{ours_peak / theirs_peak:.3f}** |")


if __name__ == "__main__":
    main()
