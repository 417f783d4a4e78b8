#!/usr/bin/env python3
"""Embedding throughput: `llmkit embed` against llama.cpp's `llama-embedding`, same model,
same texts, same batch settings (512 tokens and up to 256 texts to a decode, llmkit's default,
given to llama-embedding as -b 512 -ub 512 -c 512; the model's pooling, L2-normalised), in one
run, alternating, as a ratio. --llama-batch 2048 also shows llama-embedding's own default.

Two figures per tool, each the median of --runs runs:
  * end to end: the whole process (load, tokenize, embed, print every vector as JSON to
    /dev/null): `llmkit embed < texts` against `llama-embedding -f texts --embd-output-format array`;
  * decoding: the time in llama_decode. llmkit's `--stats` reports it; llama-embedding reports
    no timing for an encoder model, so it is read from its log's timestamps: the first
    `batch_decode` line to the last, plus the last decode estimated at the average per token.

Usage: bench/embeddings.py [--model GGUF] [--texts 1000] [--runs 5] [--threads N]
"""
import argparse, os, random, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
PREFIX = os.environ.get("LLMKIT_PREFIX", "/usr/local")


def sentences(count):
    """`count` short English sentences, the same every run (8 to 14 words)."""
    rng = random.Random(1234)
    subjects = ["The cat", "A young engineer", "My neighbour", "The old train", "Every student", "The river",
                "A small robot", "The committee", "Our team", "The lighthouse keeper"]
    verbs = ["quietly watched", "carefully repaired", "suddenly noticed", "happily painted", "slowly crossed",
             "proudly presented", "nervously opened", "gently lifted", "quickly sorted", "patiently explained"]
    objects = ["the broken fence", "a map of the city", "the morning news", "an unusual letter", "the garden path",
               "a bright red kite", "the final report", "the heavy wooden door", "a box of old photos", "the recipe"]
    tails = ["before lunch.", "in the rain.", "after the meeting.", "for the third time.", "without a word.",
             "near the station.", "at dawn.", "with great care.", "on Sunday.", "while humming a song."]
    return [f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)} {rng.choice(tails)}" for _ in range(count)]


def timed(command, stdin=None):
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL
    start = time.perf_counter()
    done = subprocess.run(command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if stdin:
        source.close()
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, done.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.path.join(CACHE, "models", "embedding.gguf"))
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--llama-batch", type=int, default=512, help="llama-embedding's -b and -ub (default 512)")
    parser.add_argument("--llmkit", default=os.path.join(ROOT, ".build", "release", "llmkit"))
    args = parser.parse_args()
    texts = sentences(args.texts)
    with tempfile.TemporaryDirectory() as folder:
        many = os.path.join(folder, "texts.txt")
        with open(many, "w") as f:
            f.write("\n".join(texts))         # no final newline: llama-embedding would read one more, empty, text
        def ours(path):
            return [args.llmkit, "embed", "--model", args.model, "--stats", "-t", str(args.threads)], path
        def theirs(path):
            return [os.path.join(PREFIX, "bin", "llama-embedding"), "-m", args.model, "-f", path,
                    "-t", str(args.threads), "-b", str(args.llama_batch), "-ub", str(args.llama_batch),
                    "-c", str(min(args.llama_batch, 512)), "--embd-output-format", "array"], None
        for tool in (ours, theirs):
            timed(*tool(many))                  # warm the page cache
        rows = {"llmkit": ([], []), "llama-embedding": ([], [])}
        tokens = decodes = 0
        for _ in range(args.runs):
            for name, tool in (("llmkit", ours), ("llama-embedding", theirs)):
                wall, err = timed(*tool(many))
                if name == "llmkit":
                    m = re.search(r"embedded (\d+) texts \((\d+) tokens\) in (\d+) decodes, [\d.]+ s \(decoding ([\d.]+) s\)", err)
                    if not m or int(m.group(1)) != args.texts:
                        sys.exit(f"unexpected llmkit --stats: {err[-500:]}")
                    tokens, decodes, decoding = int(m.group(2)), int(m.group(3)), float(m.group(4))
                else:
                    lines = re.findall(r"(\d+)\.(\d+)\.(\d+)\.(\d+) I batch_decode: n_tokens = (\d+), n_seq = \d+", err)
                    # common/log.cpp's stamps: minutes.seconds.milliseconds.microseconds
                    stamps = [int(mi) * 60 + int(se) + int(ms) / 1e3 + int(us) / 1e6 for mi, se, ms, us, _ in lines]
                    counts = [int(line[4]) for line in lines]
                    if len(lines) < 2:
                        sys.exit(f"no batch_decode lines from llama-embedding: {err[-500:]}")
                    decoding = (stamps[-1] - stamps[0]) * sum(counts) / sum(counts[:-1])
                    if (sum(counts), len(counts)) != (tokens, decodes):
                        print(f"note: llama-embedding decoded {sum(counts)} tokens in {len(counts)} decodes, "
                              f"llmkit {tokens} in {decodes}", file=sys.stderr)
                rows[name][0].append(wall)
                rows[name][1].append(decoding)
    print(f"{args.texts} texts, {tokens} tokens, {decodes} decodes, model {os.path.basename(os.path.realpath(args.model))}, "
          f"{args.threads} threads, median of {args.runs} runs")
    print(f"{'tool':<16} {'end to end s':>12} {'texts/s':>9} {'decoding s':>11} {'texts/s':>9}")
    medians = {}
    for name, (walls, extra) in rows.items():
        wall, work = statistics.median(walls), statistics.median(extra)
        medians[name] = (wall, work)
        print(f"{name:<16} {wall:>12.3f} {args.texts / wall:>9.1f} {work:>11.3f} {args.texts / work:>9.1f}")
    (ow, ok), (tw, tk) = medians["llmkit"], medians["llama-embedding"]
    print(f"ratio llmkit/llama-embedding (texts per second): end to end {tw / ow:.3f}, decoding {tk / ok:.3f}")

if __name__ == "__main__":
    main()
