#!/usr/bin/env python3
"""The prompt cache on disk: a second process whose prompt starts with the same long document
starts warm. `llmkit run` (its prompt cache is on by default) against `llama-completion
--prompt-cache FILE`, same model and threads, greedy, a few tokens, ABBA-paired (llmkit, llama,
llama, llmkit, …).

Each measurement is two processes on an emptied cache: the first evaluates the document and a
question and writes the cache, the second asks another question after the same document. Per
tool: the first (cold) and the second (warm) process's wall time, warm ÷ cold, and llmkit's own
time to the first token (from its --json) in both. The two tools' prompts differ by the chat
template llmkit applies (llama-completion takes the text as it is), a few tokens. llmkit's
measurement starts with a third process, the first question with --no-prompt-cache, so that
the default's cost to a first process (writing the entry before it exits) shows: cold ÷ off.

Usage: bench/prompt_cache.py [--model GGUF] [--words 1700] [--pairs 3] [--threads N] [--llmkit PATH]
       [--prefix DIR]
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
QUESTIONS = ["How many ships passed?", "What happened to the lamp?"]


def run(command, environment=None):
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, done.stdout


def ours(args, document, work):
    home = os.path.join(work, "llmkit-home")
    shutil.rmtree(home, ignore_errors=True)
    environment = dict(os.environ, LLMKIT_HOME=home)
    figures = []
    for question, flags in ((QUESTIONS[0], ["--no-prompt-cache"]), (QUESTIONS[0], []), (QUESTIONS[1], [])):
        wall, out = run([args.llmkit, "run", "-m", args.model, *flags, "--system", document, "-n", "4",
                         "--temperature", "0", "--threads", str(args.threads), "--json", question], environment)
        report = json.loads(out)
        statistics_ = report.get("statistics", report)
        figures.append((wall, statistics_["time_to_first_token_ms"], statistics_["cached_prompt_tokens"]))
    off = figures.pop(0)
    if off[2] != 0 or figures[0][2] != 0:
        sys.exit("llmkit started warm with --no-prompt-cache or on an emptied cache")
    if figures[1][2] == 0:
        sys.exit("llmkit's second process found nothing in the cache")
    return figures + [off]


def theirs(args, document, work):
    cache = os.path.join(work, "llama-cache.bin")
    if os.path.exists(cache):
        os.remove(cache)
    figures = []
    for question in QUESTIONS:
        prompt = os.path.join(work, "prompt.txt")
        with open(prompt, "w") as file:
            file.write(document + "\n" + question)
        wall, _ = run([os.path.join(args.prefix, "bin", "llama-completion"), "-m", args.model, "-f", prompt,
                       "--prompt-cache", cache, "-n", "4", "--temp", "0", "-t", str(args.threads), "-no-cnv"])
        figures.append((wall, None, None))
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=os.path.realpath(os.path.join(CACHE, "models", "default.gguf")))
    parser.add_argument("--words", type=int, default=1700, help="the document's length in words (about as many tokens)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--llmkit", default=os.path.join(ROOT, ".build", "release", "llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    args = parser.parse_args()
    random.seed(3)
    words = "lighthouse keeper weather ships lamp harbour storm tide signal rope island gull morning evening log entry".split()
    document = "You answer questions about this logbook.\n" + " ".join(random.choice(words) for _ in range(args.words))
    samples = {"llmkit": [], "llama": []}
    with tempfile.TemporaryDirectory() as work:
        for pair in range(args.pairs):
            for tool in ("llmkit", "llama", "llama", "llmkit"):
                samples[tool].append((ours if tool == "llmkit" else theirs)(args, document, work))
            print(f"pair {pair + 1}/{args.pairs} done", file=sys.stderr)
    print(f"model {os.path.basename(args.model)}, a document of {args.words} words, {args.threads} threads, "
          f"{2 * args.pairs} runs of two processes each (ABBA)\n")
    print("| tool | cold process s | warm process s | warm ÷ cold | first token, cold ms | first token, warm ms |")
    print("|---|---:|---:|---:|---:|---:|")
    medians = {}
    for tool, runs in samples.items():
        cold = statistics.median(r[0][0] for r in runs)
        warm = statistics.median(r[1][0] for r in runs)
        medians[tool] = warm
        first = [statistics.median(r[i][1] for r in runs) if runs[0][i][1] is not None else None for i in (0, 1)]
        cells = " | ".join("" if value is None else f"{value:.1f}" for value in first)
        print(f"| {'llmkit (default)' if tool == 'llmkit' else 'llama-completion --prompt-cache'} | {cold:.2f} | {warm:.2f} | "
              f"{warm / cold:.3f} | {cells} |")
    off = statistics.median(r[2][0] for r in samples["llmkit"])
    cold = statistics.median(r[0][0] for r in samples["llmkit"])
    print(f"| llmkit --no-prompt-cache | {off:.2f} | | | {statistics.median(r[2][1] for r in samples['llmkit']):.1f} | |")
    print(f"\nthe default's cost to a first process, llmkit cold ÷ --no-prompt-cache: **{cold / off:.3f}**")
    print(f"\nwarm process, llama-completion ÷ llmkit (above 1: llmkit is faster): **{medians['llama'] / medians['llmkit']:.3f}**")


if __name__ == "__main__":
    main()
