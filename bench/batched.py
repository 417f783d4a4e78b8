#!/usr/bin/env python3
"""Continuous batching: `llmkit bench --parallel` against `llama-batched-bench`, in one run.

Both run the same test (-npp P -ntg T -npl B…, the same KV cache layout: cells of each
sequence's own, or with --kv-unified one pool for all (-kvu), same threads and batch sizes) and print llama-batched-bench's JSONL lines. They are ABBA-paired (llmkit,
batched-bench, batched-bench, llmkit, …) so that drift in the machine's speed hits both
alike. For every B the ratio is llmkit's median over batched-bench's median, for prompt
(S_PP), generation (S_TG) and total (S) throughput.

With --mixed, it also runs `llmkit bench --parallel B --mixed`: B clients sending real
requests (different prompt lengths, arriving over time, each with its own sampler), and
compares its steady-state throughput with batched-bench's at the same B and the workload's
mean prompt and answer lengths: generated tokens per second against batched-bench's
generated tokens over its whole time (B·T / (t_pp + t_tg)), since both include the prompts'
evaluation, and all tokens per second against S.

With --baseline PATH, another llmkit binary (an earlier build) runs in the same pairs, in the
order llmkit, baseline, batched-bench and back, and its ratios are printed after llmkit's: a
change's effect measured on one machine in one session.

Usage: bench/batched.py [--model PATH] [--threads N] [-p P] [-n T] [--parallel 1,2,4,8]
                        [--pairs N] [--kv-unified] [--mixed [B]] [--duration S] [--ngl N] [--llmkit PATH]
                        [--baseline PATH] [--prefix DIR] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from compare import default_model, run  # noqa: E402


def jsonl(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=default_model())
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-p", type=int, default=128, help="prompt tokens per sequence")
    parser.add_argument("-n", type=int, default=64, help="generated tokens per sequence")
    parser.add_argument("--parallel", default="1,2,4,8", help="sequence counts B")
    parser.add_argument("--pairs", type=int, default=2, help="ABBA pairs")
    parser.add_argument("--kv-unified", action="store_true",
                        help="one pool of KV cells for all sequences on both sides (-kvu); default: cells per sequence")
    parser.add_argument("--mixed", type=int, nargs="?", const=0, default=None,
                        help="also the mixed workload, at this B (default: the largest)")
    parser.add_argument("--duration", type=int, default=40, help="seconds of the mixed workload")
    parser.add_argument("--ngl", type=int, default=None, help="GPU layers for both (default: each tool's own)")
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--baseline", help="another llmkit binary, measured in the same pairs")
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--json", help="also write every line and the ratios to this file")
    args = parser.parse_args()

    counts = [int(b) for b in args.parallel.split(",")]
    batched = os.path.join(args.prefix, "bin", "llama-batched-bench")
    context = max(counts) * (args.p + args.n + 1)
    gpu = ["-ngl", str(args.ngl)] if args.ngl is not None else []
    unified = ["-kvu"] if args.kv_unified else []
    # The layout is always named for llmkit, whose default depends on the device.
    gpu_ours = gpu + (["--kv-unified"] if args.kv_unified else ["--no-kv-unified"])
    ours_arguments = ["bench", "--model", args.model, "--threads", str(args.threads), "-p", str(args.p),
                      "-n", str(args.n), "--parallel", args.parallel, "--jsonl", *gpu_ours]
    programs = {"llmkit": args.llmkit} | ({"baseline": args.baseline} if args.baseline else {})
    theirs = [batched, "-m", args.model, "-t", str(args.threads), "-tb", str(args.threads), "-c", str(context),
              "-b", "2048", "-ub", "512", "-npp", str(args.p), "-ntg", str(args.n), "-npl", args.parallel,
              *unified, "--output-format", "jsonl", *gpu]

    lines = {name: [] for name in programs} | {"llama-batched-bench": []}
    for pair in range(args.pairs):
        order = [(name, [path, *ours_arguments]) for name, path in programs.items()] + [("llama-batched-bench", theirs)]
        for name, command in (order if pair % 2 == 0 else order[::-1]) + (order[::-1] if pair % 2 == 0 else order):
            found = jsonl(run(command))
            if len(found) != len(counts):
                sys.exit(f"{name} printed {len(found)} lines for {len(counts)} values of B")
            lines[name] += found
            print(f"pair {pair + 1}: {name}: " + ", ".join(f"B={l['pl']} S_TG {l['speed_tg']:.1f}" for l in found),
                  file=sys.stderr)

    def median(name: str, b: int, key: str) -> float:
        return statistics.median(l[key] for l in lines[name] if l["pl"] == b)

    ratios = []
    layout = "one KV pool (-kvu)" if args.kv_unified else "KV cells per sequence"
    print(f"\n{os.path.basename(args.model)}, pp{args.p} tg{args.n}, {args.threads} threads, {layout}, {args.pairs} ABBA pairs "
          f"(medians of {2 * args.pairs} runs each)\n")
    print("|  B | llmkit S_PP | batched S_PP | ratio | llmkit S_TG | batched S_TG | ratio | llmkit S | batched S | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for b in counts:
        row = {"pl": b}
        cells = []
        for key in ("speed_pp", "speed_tg", "speed"):
            a, c = median("llmkit", b, key), median("llama-batched-bench", b, key)
            row[key] = {"llmkit": a, "llama-batched-bench": c, "ratio": a / c}
            cells += [f"{a:.1f}", f"{c:.1f}", f"**{a / c:.3f}**"]
        ratios.append(row)
        print(f"| {b} | " + " | ".join(cells) + " |")
    if args.baseline:
        print(f"\nbaseline {args.baseline}, the same runs:\n")
        print("|  B | baseline S_PP | ratio | baseline S_TG | ratio | baseline S | ratio |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for row in ratios:
            cells = []
            for key in ("speed_pp", "speed_tg", "speed"):
                a, c = median("baseline", row["pl"], key), row[key]["llama-batched-bench"]
                row[key]["baseline"] = a
                cells += [f"{a:.1f}", f"**{a / c:.3f}**"]
            print(f"| {row['pl']} | " + " | ".join(cells) + " |")

    mixed = None
    if args.mixed is not None:
        b = args.mixed or max(counts)
        mixed_arguments = ["bench", "--model", args.model, "--threads", str(args.threads),
                           "--parallel", str(b), "--mixed", "--duration", str(args.duration), "--json", *gpu_ours]
        # ABBA pairs (BAAB every other one; with a baseline A C B B C A); the reference takes the
        # first run's mean lengths.
        reports, baseline_reports, references, reference_command = [], [], [], None
        pattern = "ACB" if args.baseline else "AB"
        for letter in "".join(pattern + pattern[::-1] if pair % 2 == 0 else pattern[::-1] + pattern
                              for pair in range(args.pairs)):
            if letter in "AC":
                report = json.loads(run([programs["llmkit" if letter == "A" else "baseline"], *mixed_arguments]))
                (reports if letter == "A" else baseline_reports).append(report)
                continue
            if reference_command is None:
                pp, tg = round(reports[0]["mean_prompt_tokens"]), round(reports[0]["mean_generated_tokens"])
                reference_command = [batched, "-m", args.model, "-t", str(args.threads), "-tb", str(args.threads),
                                     "-c", str(b * (pp + tg + 1)), "-b", "2048", "-ub", "512", "-npp", str(pp),
                                     "-ntg", str(tg), "-npl", str(b), *unified, "--output-format", "jsonl", *gpu]
            references.append(jsonl(run(reference_command))[0])
        # B·T over its whole time: like the steady state's generated tokens, it includes the prompts.
        generated = statistics.median(r["pl"] * r["tg"] / r["t"] for r in references)
        speed = statistics.median(r["speed"] for r in references)
        ours_generated = statistics.median(r["generation_tokens_per_second"] for r in reports)
        ours_speed = statistics.median(r["tokens_per_second"] for r in reports)
        mixed = {"llmkit": reports, "llama-batched-bench": references,
                 "generation_ratio": ours_generated / generated, "total_ratio": ours_speed / speed}
        print(f"\nmixed workload: {b} clients, {reports[0]['requests']} requests in the first run, mean prompt {pp} and "
              f"answer {tg} tokens; medians of {len(reports)} and {len(references)} runs, alternated")
        for report, reference in zip(reports, references):
            print(f"  run: llmkit {report['generation_tokens_per_second']:.1f} t/s, batched-bench "
                  f"{reference['pl'] * reference['tg'] / reference['t']:.1f}", file=sys.stderr)
        print(f"  generated tokens: llmkit {ours_generated:.1f} t/s (steady state) vs "
              f"batched-bench {generated:.1f} (B·T over t_pp + t_tg): **{mixed['generation_ratio']:.3f}**")
        print(f"  all tokens: llmkit {ours_speed:.1f} t/s (evaluated prompt and generated, steady "
              f"state) vs batched-bench S {speed:.1f}: **{mixed['total_ratio']:.3f}**")
        if baseline_reports:
            base_generated = statistics.median(r["generation_tokens_per_second"] for r in baseline_reports)
            base_speed = statistics.median(r["tokens_per_second"] for r in baseline_reports)
            mixed |= {"baseline": baseline_reports, "baseline_generation_ratio": base_generated / generated,
                      "baseline_total_ratio": base_speed / speed}
            print(f"  baseline (runs: " + ", ".join(f"{r['generation_tokens_per_second']:.1f}" for r in baseline_reports)
                  + f" t/s): generated {base_generated:.1f} t/s: **{base_generated / generated:.3f}**; all tokens "
                  f"{base_speed:.1f} t/s: **{base_speed / speed:.3f}**")

    if args.json:
        Path(args.json).write_text(json.dumps({"kv_unified": args.kv_unified, "lines": lines, "ratios": ratios, "mixed": mixed}, indent=2))


if __name__ == "__main__":
    main()
