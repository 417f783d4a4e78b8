#!/usr/bin/env python3
"""Constrained generation speed, LocalLLMKit next to llama.cpp's llama-completion.

Both tools generate up to N tokens at temperature 1 from the same prompt and seeds,
with and without a JSON Schema, alternated. For llama-completion the time per token
is (sampling time + eval time) / eval runs, from its own performance report; for
LocalLLMKit it is the generation rate that `llmkit bench --schema` reports (decode
plus sampling, after the first token). Each tool's ratio is constrained speed over
unconstrained speed.

Usage: bench/schema_compare.py [--schema FILE] [-r N] [-n N] [--model PATH] [--threads N]
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from compare import default_model

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "Here is a JSON document describing a product review:\n"


def llama_completion(binary, model, threads, tokens, seed, schema):
    command = [binary, "-m", model, "-p", PROMPT, "-n", str(tokens), "--temp", "1", "--seed", str(seed),
               "-no-cnv", "-t", str(threads)]
    if schema:
        command += ["--json-schema", schema]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"llama-completion failed: {result.stderr[-1000:]}")
    sampling = float(re.search(r"sampling time =\s+([\d.]+) ms", result.stderr).group(1))
    match = re.search(r"\beval time =\s+([\d.]+) ms /\s+(\d+) runs", result.stderr)
    return sampling + float(match.group(1)), int(match.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", default=str(ROOT / "bench/schemas/review.json"))
    parser.add_argument("-r", type=int, default=5, help="runs per mode and tool")
    parser.add_argument("-n", type=int, default=200, help="most tokens per run")
    parser.add_argument("--model", default=default_model())
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    args = parser.parse_args()
    schema = Path(args.schema).read_text()
    binary = os.path.join(args.prefix, "bin", "llama-completion")

    totals = {"unconstrained": [0.0, 0], "constrained": [0.0, 0]}
    for run in range(args.r):
        for mode in (["unconstrained", "constrained"] if run % 2 == 0 else ["constrained", "unconstrained"]):
            ms, tokens = llama_completion(binary, args.model, args.threads, args.n, run + 1,
                                          schema if mode == "constrained" else None)
            totals[mode][0] += ms
            totals[mode][1] += tokens
    llama = {mode: total[1] * 1000 / total[0] for mode, total in totals.items()}

    output = subprocess.run([args.llmkit, "bench", "--schema", args.schema, "-r", str(args.r), "--max-tokens", str(args.n),
                             "--model", args.model, "--threads", str(args.threads), "--json"],
                            capture_output=True, text=True, check=True).stdout
    ours = {row["mode"]: row["tokens_per_second"] for row in json.loads(output)}

    print(f"schema: {args.schema}, {args.r} runs per mode, up to {args.n} tokens, temperature 1, {args.threads} threads\n")
    print("| tool | unconstrained t/s | constrained t/s | constrained ÷ unconstrained |")
    print("|---|---:|---:|---:|")
    for name, rates in (("llama-completion", llama), ("llmkit", ours)):
        print(f"| {name} | {rates['unconstrained']:.2f} | {rates['constrained']:.2f} | "
              f"**{rates['constrained'] / rates['unconstrained']:.3f}** |")


if __name__ == "__main__":
    main()
