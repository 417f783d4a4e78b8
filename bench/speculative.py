#!/usr/bin/env python3
"""Speculative decoding: `llmkit bench --speculative` against llama.cpp's own speculative path
(llama-server from the pinned tree, `--spec-type ngram-simple`, `draft-simple` or `draft-mtp`, same settings),
in one run, ABBA between the tools, on llmkit's fixed task set (editing, extraction, quoting,
code generation), greedy, through the model's chat template.

Each tool measures plain and speculative generation on each task; the figures are generated
tokens per second over the generation time (llama-server's `predicted_per_second`, and llmkit's
the same way). Reported per kind of task: plain, speculative, speedup (speculative / plain),
the acceptance rate, and llmkit's speculative t/s over llama-server's.

Both tools keep the weights as the file has them (llmkit with speculation, and llama-server
with --no-repack), threads --threads, --gpu-layers layers on a GPU (default 0), one sequence,
a 4096-token context.

Usage:
  bench/speculative.py --lookup [--draft-max 16] [--model GGUF]
  bench/speculative.py --draft-model DRAFT.gguf [--draft-max 3] [--model TARGET.gguf]
  bench/speculative.py --mtp [--draft-max 3] --model MODEL_WITH_NEXTN_LAYERS.gguf
  options: --fixed-draft (llmkit checks every drafted token, as llama-server; default: the planner's lengths),
           --inexact-greedy (llmkit checks drafts longer than it computes exactly as one token),
           --pairs 2 (ABBA pairs of the tools), --runs 2 (runs per task and mode in each tool's turn),
           --max-tokens 256, --tasks editing,extraction (kinds or names), --json FILE
"""
import argparse, json, os, socket, statistics, subprocess, sys, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
PREFIX = os.environ.get("LLMKIT_PREFIX", "/usr/local")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def llmkit_run(args):
    command = [args.llmkit, "bench", "--speculative", "--json", "-m", args.model, "-t", str(args.threads),
               "-r", str(args.runs), "--max-tokens", str(args.max_tokens), "-c", "4096", "-ngl", str(args.gpu_layers)]
    command += ["--draft-model", args.draft_model] if args.draft_model else ["--mtp"] if args.mtp else ["--lookup"]
    command += ["--draft-max", str(args.draft_max)]
    if args.fixed_draft:
        command += ["--fixed-draft"]
    if args.inexact_greedy:
        command += ["--inexact-greedy"]
    if args.tasks:
        command += ["--tasks", args.tasks]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"llmkit bench failed ({done.returncode}): {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    return {row["task"]: row for row in report["rows"]}, report


class Server:
    def __init__(self, args, speculative):
        self.port = free_port()
        command = [os.path.join(args.prefix, "bin", "llama-server"), "-m", args.model, "--port", str(self.port),
                   "-t", str(args.threads), "-c", "4096", "-np", "1", "--no-webui", "--no-repack", "-ngl", str(args.gpu_layers)]
        if speculative and args.draft_model:
            command += ["--spec-type", "draft-simple", "-md", args.draft_model, "--spec-draft-n-max", str(args.draft_max),
                        "-ngld", str(args.gpu_layers), "-td", str(args.threads)]
        elif speculative and args.mtp:
            command += ["--spec-type", "draft-mtp", "--spec-draft-n-max", str(args.draft_max), "--spec-draft-p-min", "0"]
        elif speculative:
            command += ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", str(args.ngram),
                        "--spec-ngram-simple-size-m", str(args.draft_max)]
        self.log = open(os.devnull, "w")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=self.log)
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1).read()
                return
            except Exception:
                if self.process.poll() is not None:
                    sys.exit(f"llama-server exited ({self.process.returncode}): {' '.join(command)}")
                time.sleep(0.2)
        sys.exit("llama-server did not start")

    def answer(self, message, max_tokens):
        body = {"messages": [{"role": "user", "content": message}], "temperature": 0, "max_tokens": max_tokens}
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/v1/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(request, timeout=600))
        timings = reply["timings"]
        return {"text": reply["choices"][0]["message"]["content"], "tokens": timings["predicted_n"],
                "seconds": timings["predicted_ms"] / 1000, "drafted": timings.get("draft_n", 0),
                "accepted": timings.get("draft_n_accepted", 0)}

    def close(self):
        self.process.terminate()
        self.process.wait()
        self.log.close()


def llama_run(args, tasks):
    """Plain then speculative server; per task, -runs answers each, alternating ABBA."""
    results = {}
    plain, speculative = Server(args, False), Server(args, True)
    try:
        for task in tasks:
            runs = {"plain": [], "speculative": []}
            for _ in range(args.runs):
                for mode, server in (("plain", plain), ("speculative", speculative), ("speculative", speculative), ("plain", plain)):
                    runs[mode].append(server.answer(task["message"], args.max_tokens))
            results[task["task"]] = runs
    finally:
        plain.close()
        speculative.close()
    return results


def rate(runs):
    return sum(r["tokens"] for r in runs) / sum(r["seconds"] for r in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.path.join(CACHE, "models", "qwen2.5-coder-0.5b-instruct.gguf"))
    parser.add_argument("--draft-model")
    parser.add_argument("--lookup", action="store_true")
    parser.add_argument("--mtp", action="store_true", help="multi-token prediction (a model with NextN layers)")
    parser.add_argument("--draft-max", type=int)
    parser.add_argument("--fixed-draft", action="store_true",
                        help="llmkit checks every drafted token, as llama-server does (default: what pays)")
    parser.add_argument("--inexact-greedy", action="store_true",
                        help="llmkit checks drafts longer than it computes exactly as one token (as llama-server); "
                             "default: greedy answers stay plain decoding's")
    parser.add_argument("--ngram", type=int, default=3, help="prompt lookup's n-gram length (llmkit's default)")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--gpu-layers", type=int, default=0, help="layers on the GPU for both tools (default 0: CPU)")
    parser.add_argument("--prefix", default=PREFIX, help="where llama-server is installed")
    parser.add_argument("--llmkit", default=os.path.join(ROOT, ".build", "release", "llmkit"))
    parser.add_argument("--tasks", help="kinds or names of tasks, comma-separated (default: all)")
    parser.add_argument("--json")
    args = parser.parse_args()
    if [bool(args.draft_model), args.lookup, args.mtp].count(True) != 1:
        sys.exit("give one of --lookup, --draft-model and --mtp")
    args.draft_max = args.draft_max or (16 if args.lookup else 3)

    ours, theirs, tasks = [], [], None
    for pair in range(args.pairs):
        # A B, then B A: over two pairs each tool runs first once and last once.
        for tool in ("llmkit", "llama") if pair % 2 == 0 else ("llama", "llmkit"):
            if tool == "llmkit" or tasks is None:
                rows, report = llmkit_run(args)
                ours.append(rows)
                tasks = report["rows"]
            if tool == "llama":
                theirs.append(llama_run(args, tasks))
            print(f"pair {pair + 1}: {tool} done", file=sys.stderr)
    ours = ours[:args.pairs]

    kinds = {"editing": [], "extraction": [], "quoting": [], "generation": []}
    for task in tasks:
        kinds[task["kind"]].append(task["task"])
    kinds["editing+extraction+quoting"] = kinds["editing"] + kinds["extraction"] + kinds["quoting"]
    lines = [f"model {os.path.basename(args.model)}, " + (f"draft model {os.path.basename(args.draft_model)}" if args.draft_model
             else "multi-token prediction" if args.mtp else f"prompt lookup ({args.ngram}-grams)") + f", draft max {args.draft_max}, {args.pairs} ABBA pairs, "
             f"{args.max_tokens} tokens at most, {args.threads} threads, llmkit "
             + ("checking every drafted token" if args.fixed_draft else "checking the planner's draft lengths"), "",
             "| kind | llmkit plain | llmkit spec | llmkit speedup | llmkit accepted | llama plain | llama spec | llama speedup | llama accepted | spec ratio |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary = {}
    for kind, names in kinds.items():
        if not names:
            continue
        def tokens_seconds(rows, field_tokens, field_rate):
            tokens = sum(rows[n][field_tokens] for n in names)
            return tokens, sum(rows[n][field_tokens] / max(rows[n][field_rate], 1e-9) for n in names)
        # llmkit: each run's rows carry means over its own ABBA runs; combine per run, then median over runs.
        ours_plain = [sum(r[n]["generated_tokens"] for n in names) / sum(r[n]["generated_tokens"] / r[n]["plain_tokens_per_second"] for n in names) for r in ours]
        ours_spec = [sum(r[n]["generated_tokens"] for n in names) / sum(r[n]["generated_tokens"] / r[n]["speculative_tokens_per_second"] for n in names) for r in ours]
        ours_accepted = sum(r[n]["accepted_draft_tokens"] for r in ours for n in names) / max(1, sum(r[n]["drafted_tokens"] for r in ours for n in names))
        their_plain = [rate([x for n in names for x in t[n]["plain"]]) for t in theirs]
        their_spec = [rate([x for n in names for x in t[n]["speculative"]]) for t in theirs]
        their_accepted = sum(x["accepted"] for t in theirs for n in names for x in t[n]["speculative"]) / max(1, sum(x["drafted"] for t in theirs for n in names for x in t[n]["speculative"]))
        o_p, o_s, t_p, t_s = (statistics.median(v) for v in (ours_plain, ours_spec, their_plain, their_spec))
        summary[kind] = {"llmkit_plain": o_p, "llmkit_speculative": o_s, "llmkit_speedup": o_s / o_p, "llmkit_acceptance": ours_accepted,
                         "llama_plain": t_p, "llama_speculative": t_s, "llama_speedup": t_s / t_p, "llama_acceptance": their_accepted,
                         "speculative_ratio": o_s / t_s}
        lines.append(f"| {kind} | {o_p:.1f} | {o_s:.1f} | {o_s / o_p:.2f}× | {100 * ours_accepted:.0f}% | {t_p:.1f} | {t_s:.1f} | "
                     f"{t_s / t_p:.2f}× | {100 * their_accepted:.0f}% | **{o_s / t_s:.3f}** |")
    print("\n".join(lines))
    same = [n for n in ours[0] if all(r[n]["identical"] for r in ours)]
    print(f"\nllmkit: speculative text identical to plain on {len(same)} of {len(ours[0])} tasks")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "summary": summary, "llmkit": ours, "llama": theirs}, f, indent=1)


if __name__ == "__main__":
    main()
