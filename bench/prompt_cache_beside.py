#!/usr/bin/env python3
"""A prompt-cache hit on a busy server: what the other streams feel while `llmkit serve` finds,
reads and restores a disk entry for one request.

For each binary given (--llmkit, and --baseline to compare builds in one run, alternated
ABBA): a fresh `$LLMKIT_HOME`; one server answers a request after a long document (a system
prompt of --words words) and stops, which leaves the document's entry on disk. Then, --runs
times, a fresh server (nothing in memory) with two sequences: one client streams a story
(--max-tokens tokens, greedy), and once it has 24 tokens a second client asks a question after
the same document, whose prompt is found in the disk cache. Reported per binary, medians over
the runs: the story's longest gap between two tokens while the second request was being
admitted (sent until answered), its usual gap (the median of all), and the second request's
latency and cached tokens.

Usage: bench/prompt_cache_beside.py [--model GGUF] [--llmkit PATH] [--baseline PATH] [--runs 5]
       [--words 1700] [--threads N] [--max-tokens 96]
"""
import argparse, http.client, json, os, random, signal, statistics, subprocess, sys, tempfile, threading, time
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")


def start(binary, args, home):
    process = subprocess.Popen([binary, "serve", "--model", f"chat={args.model}", "--no-library", "--port", "0",
                                "--parallel", "2", "--context", "4096", "--threads", str(args.threads), "--prompt-cache"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, LLMKIT_HOME=home))
    for line in process.stderr:
        if "listening on " in line:
            url = line.split("listening on ")[1].split(" ")[0]
            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
            return process, urlsplit(url)
    sys.exit(f"{binary} serve did not start")


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)


def post(url, body, on_delta=None):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    connection.request("POST", url.path.rstrip("/") + "/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    if not body.get("stream"):
        return json.loads(response.read())
    for raw in response:
        line = raw.decode().strip()
        if line.startswith("data: ") and line != "data: [DONE]":
            choices = json.loads(line[6:]).get("choices") or [{}]
            if choices[0].get("delta", {}).get("content"):
                on_delta(time.perf_counter())
    return None


def ask(url, document, question, max_tokens=1):
    return post(url, {"model": "chat", "max_tokens": max_tokens, "temperature": 0,
                      "messages": [{"role": "system", "content": document}, {"role": "user", "content": question}]})


def measure(binary, args, document, work):
    home = os.path.join(work, "home")
    subprocess.run(["rm", "-rf", home])
    process, url = start(binary, args, home)
    ask(url, document, "How many ships passed?")
    stop(process)                      # writes the entry before it exits
    rows = []
    for _ in range(args.runs):
        process, url = start(binary, args, home)
        times, hit = [], {}
        ready = threading.Event()

        def story():
            def delta(moment):
                times.append(moment)
                if len(times) == 24:
                    ready.set()
            post(url, {"model": "chat", "max_tokens": args.max_tokens, "temperature": 0, "stream": True,
                       "messages": [{"role": "user", "content": "Tell a long story about a lighthouse keeper."}]}, delta)
        thread = threading.Thread(target=story)
        thread.start()
        ready.wait(timeout=300)
        hit["sent"] = time.perf_counter()
        answer = ask(url, document, "What happened to the lamp?")
        hit["done"] = time.perf_counter()
        thread.join()
        stop(process)
        gaps = [b - a for a, b in zip(times, times[1:])]
        during = [b - a for a, b in zip(times, times[1:]) if b >= hit["sent"] and a <= hit["done"]]
        cached = answer["usage"].get("prompt_tokens_details", {}).get("cached_tokens", 0)
        rows.append((max(during or [0]) * 1000, statistics.median(gaps) * 1000, (hit["done"] - hit["sent"]) * 1000, cached))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=os.path.realpath(os.path.join(CACHE, "models", "default.gguf")))
    parser.add_argument("--llmkit", default=os.path.join(ROOT, ".build", "release", "llmkit"))
    parser.add_argument("--baseline", help="another llmkit binary, measured alternately in the same run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--words", type=int, default=1700)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args()
    random.seed(3)
    words = "lighthouse keeper weather ships lamp harbour storm tide signal rope island gull morning evening log entry".split()
    document = "You answer questions about this logbook.\n" + " ".join(random.choice(words) for _ in range(args.words))
    binaries = {"llmkit": args.llmkit} | ({"baseline": args.baseline} if args.baseline else {})
    results = {name: [] for name in binaries}
    with tempfile.TemporaryDirectory() as work:
        order = list(binaries) + list(reversed(binaries))
        for name in order:
            results[name] += measure(binaries[name], args, document, work)
            print(f"{name} done", file=sys.stderr)
    print(f"model {os.path.basename(args.model)}, a document of {args.words} words, {args.threads} threads, "
          f"{2 * args.runs} runs per binary, medians\n")
    print("| binary | longest story gap during the hit, ms | usual story gap, ms | hit latency, ms | cached tokens |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in results.items():
        print(f"| {name} | {statistics.median(r[0] for r in rows):.1f} | {statistics.median(r[1] for r in rows):.1f} | "
              f"{statistics.median(r[2] for r in rows):.0f} | {statistics.median(r[3] for r in rows):.0f} |")


if __name__ == "__main__":
    main()
