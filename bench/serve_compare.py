#!/usr/bin/env python3
"""`llmkit serve` against llama.cpp's llama-server: streaming chat throughput and time to first token.

Starts both servers on free ports with the same model, sequences (--parallel N: `-np N` for
llama-server), context per sequence (llama-server's -c is the total, N times it) and threads,
and waits for their /health. For every concurrency C in --clients, C client threads each send
--requests streaming chat requests (fixed prompts, temperature 0, fixed max_tokens,
include_usage) to one server, then to the other, ABBA-paired (llmkit, llama, llama, llmkit per
pair) so that drift in the machine's speed hits both alike. A run's throughput is its generated
tokens (from usage) over its wall time; time to first token (TTFT) is from sending a request
to its first content delta. Each server first answers every prompt once (a warm-up: the
same prompts come back, and a server's prompt cache should not decide the comparison);
llmkit runs with --no-prompt-cache, as llama-server keeps no prompts on disk and a restarted
server must not start warm from an earlier pair's.

Prints a markdown table per concurrency: aggregate tokens/s and p50/p95 TTFT of both, and the
ratios llmkit/llama (goals: throughput >= 0.95, TTFT <= 1.1); --json writes every run too.
--llmkit-url / --llama-url use a server already running (its /v1 URL) instead of starting one:
pointing both at llama-servers checks the script itself.

Usage: bench/serve_compare.py [--model-path PATH] [--parallel N] [--context C] [--threads T]
                              [--clients 1,4,8] [--requests R] [--max-tokens M] [--pairs K]
                              [--gpu-layers N] [--llmkit PATH] [--prefix DIR] [--llmkit-url URL] [--llama-url URL]
                              [--json FILE]
"""
import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ["llmkit", "llama"]
PROMPTS = [
    "Explain in a few sentences how a bicycle gear works.",
    "Write a short story about a robot learning to paint.",
    "List some tips for keeping houseplants healthy, with a sentence on each.",
    "Describe the water cycle to a ten-year-old.",
]


def default_model() -> str:
    cache = os.environ.get("LLMKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
    return os.path.realpath(os.path.join(cache, "models", "default.gguf"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A server to measure: started here (and stopped at the end) or already running at a URL."""

    def __init__(self, name: str, command: list[str] | None = None, url: str | None = None) -> None:
        self.name, self.process, self.log = name, None, None
        if url is None:
            port = free_port()
            url = f"http://127.0.0.1:{port}/v1"
            command = [part.replace("{port}", str(port)) for part in command]
            self.log = tempfile.NamedTemporaryFile(prefix=f"serve_compare-{name}-", suffix=".log", delete=False)
            print(f"{name}: {' '.join(command)}", file=sys.stderr)
            try:
                self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL)
            except OSError as error:  # no such binary
                self.fail(f"cannot start: {error}")
        parts = urlsplit(url)
        self.host, self.port, self.prefix = parts.hostname, parts.port or 80, parts.path.rstrip("/")
        self.wait_healthy()
        self.model = self.get_json(self.prefix + "/models")["data"][0]["id"]

    def get_json(self, path: str) -> dict:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"GET {path}: {response.status} {body[:200]!r}")
            return json.loads(body)
        finally:
            connection.close()

    def wait_healthy(self, seconds: float = 300) -> None:
        root = self.prefix.removesuffix("/v1")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process and self.process.poll() is not None:
                self.fail(f"exited ({self.process.returncode})")
            try:
                self.get_json(root + "/health")
                return
            except (OSError, RuntimeError, ValueError):  # not listening or still loading (503)
                time.sleep(0.5)
        self.fail(f"did not become healthy within {seconds:.0f} s")

    def fail(self, why: str) -> None:
        tail = self.log_tail()
        self.stop()
        sys.exit(f"{self.name} {why}; log:\n{tail}")

    def timing_lines(self) -> list[list[float]]:
        """The numbers of llmkit's `first content` log lines so far: first content, before the
        model, waiting for a sequence, prompt (ms), evaluated and prompt tokens, after the first
        token (ms)."""
        if not self.log:
            return []
        lines = Path(self.log.name).read_text(errors="replace").splitlines()
        return [[float(number) for number in re.findall(r"\d+(?:\.\d+)?", line)]
                for line in lines if line.startswith("first content ")]

    def log_tail(self) -> str:
        return Path(self.log.name).read_text(errors="replace")[-2000:] if self.log else ""

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log:
            os.unlink(self.log.name)

    def stream_chat(self, prompt: str, max_tokens: int) -> tuple[float, int, float]:
        """One streaming chat request: (seconds to the first content delta, generated tokens,
        seconds to the first event of any kind)."""
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt}],
                           "temperature": 0, "max_tokens": max_tokens, "stream": True,
                           "stream_options": {"include_usage": True}})
        connection = http.client.HTTPConnection(self.host, self.port, timeout=600)
        try:
            started = time.perf_counter()
            connection.request("POST", self.prefix + "/chat/completions", body,
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"{self.name}: status {response.status}: {response.read()[:300]!r}")
            first, deltas, usage, first_event = None, 0, None, None
            for line in response:
                if not line.startswith(b"data: ") or line.strip() == b"data: [DONE]":
                    continue
                first_event = first_event if first_event is not None else time.perf_counter() - started
                event = json.loads(line[6:])
                usage = event.get("usage") or usage
                for choice in event.get("choices") or []:
                    if (choice.get("delta") or {}).get("content"):
                        deltas += 1
                        first = first if first is not None else time.perf_counter() - started
            if first is None:
                raise RuntimeError(f"{self.name}: a stream without content")
            return first, usage["completion_tokens"] if usage else deltas, first_event
        finally:
            connection.close()


def threaded(clients: int, work) -> tuple[list, float]:
    """Runs `work(index)` on `clients` threads at once: their results, in index order, and the
    seconds from the first start to the last end. The first error ends the script."""
    results: list = [None] * clients
    errors: list[str] = []

    def client(index: int) -> None:
        try:
            results[index] = work(index)
        except Exception as error:  # reported below
            errors.append(str(error))

    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        sys.exit(errors[0])
    return results, time.perf_counter() - started


def run_clients(server: Server, clients: int, requests: int, max_tokens: int) -> dict:
    """clients threads, each sending requests streaming requests one after another."""
    ttfts: list[float] = []
    first_events: list[float] = []
    tokens = [0] * clients
    errors: list[str] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        for number in range(requests):
            try:
                first, generated, first_event = server.stream_chat(PROMPTS[(index + number) % len(PROMPTS)], max_tokens)
            except Exception as error:  # reported after the run; it fails the comparison
                with lock:
                    errors.append(f"{type(error).__name__}: {error}")
                return
            with lock:
                ttfts.append(first)
                first_events.append(first_event)
                tokens[index] += generated

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    if errors:
        raise RuntimeError(f"{server.name}, {clients} clients: {len(errors)} requests failed: {errors[:3]}")
    return {"tokens": sum(tokens), "wall_s": wall, "ttft_s": ttfts, "first_event_s": first_events}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def summarize(runs: list[dict]) -> dict:
    ttfts = [value for run in runs for value in run["ttft_s"]]
    return {"tokens_per_s": sum(run["tokens"] for run in runs) / sum(run["wall_s"] for run in runs),
            "ttft_p50_ms": 1000 * percentile(ttfts, 0.50), "ttft_p95_ms": 1000 * percentile(ttfts, 0.95)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-path", default=default_model(), help="GGUF model for both servers")
    parser.add_argument("--parallel", type=int, help="sequences of each server (default: the most clients)")
    parser.add_argument("--context", type=int, default=2048, help="context per sequence")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--clients", default="1,4,8", help="concurrencies to measure")
    parser.add_argument("--requests", type=int, default=4, help="requests per client in each run")
    parser.add_argument("--max-tokens", type=int, default=128, help="max_tokens of every request")
    parser.add_argument("--pairs", type=int, default=1, help="ABBA pairs per concurrency")
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"), help="the llmkit binary")
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"),
                        help="where llama-server is installed (PREFIX/bin)")
    parser.add_argument("--gpu-layers", type=int, help="layers offloaded to the GPU by both (-ngl; default: each one's own)")
    parser.add_argument("--llmkit-url", help="use this running server (its /v1 URL) as llmkit's")
    parser.add_argument("--llama-url", help="use this running server (its /v1 URL) as llama-server's")
    parser.add_argument("--json", help="also write every run and the summary to this file")
    parser.add_argument("--trace", action="store_true",
                        help="also print where llmkit's time to first content goes (its --log-requests lines)")
    args = parser.parse_args()

    concurrencies = [int(count) for count in args.clients.split(",")]
    parallel = args.parallel or max(concurrencies)
    commands = {
        "llmkit": [args.llmkit, "serve", "--model", args.model_path, "--port", "{port}", "--parallel", str(parallel),
                   "--context", str(args.context), "--threads", str(args.threads), "--no-prompt-cache"],
        "llama": [os.path.join(args.prefix, "bin", "llama-server"), "-m", args.model_path, "--host", "127.0.0.1",
                  "--port", "{port}", "-np", str(parallel), "-c", str(args.context * parallel),
                  "-t", str(args.threads), "--jinja", "--no-webui"],
    }
    if args.trace:
        commands["llmkit"] += ["--log-requests"]
    traces: dict[int, list[list[float]]] = {}
    if args.gpu_layers is not None:
        commands["llmkit"] += ["--gpu-layers", str(args.gpu_layers)]
        commands["llama"] += ["-ngl", str(args.gpu_layers)]
    urls = {"llmkit": args.llmkit_url, "llama": args.llama_url}
    servers: dict[str, Server] = {}
    try:
        for name in SERVERS:
            servers[name] = Server(name, commands[name], urls[name])
            for prompt in PROMPTS:  # warm-up: every prompt once, so both prompt caches start warm
                servers[name].stream_chat(prompt, args.max_tokens)
        runs: dict[int, dict[str, list[dict]]] = {}
        pair_ratios: dict[int, list[float]] = {}
        for clients in concurrencies:
            runs[clients] = {name: [] for name in SERVERS}
            for _ in range(args.pairs):
                for name in ["llmkit", "llama", "llama", "llmkit"]:
                    seen = len(servers[name].timing_lines()) if args.trace and name == "llmkit" else 0
                    run = run_clients(servers[name], clients, args.requests, args.max_tokens)
                    if args.trace and name == "llmkit":
                        traces.setdefault(clients, []).extend(servers[name].timing_lines()[seen:])
                    runs[clients][name].append(run)
                    print(f"{clients} clients, {name}: {run['tokens']} tokens in {run['wall_s']:.1f} s "
                          f"({run['tokens'] / run['wall_s']:.1f} t/s)", file=sys.stderr)
                this_pair = {name: summarize(runs[clients][name][-2:]) for name in SERVERS}
                pair_ratios.setdefault(clients, []).append(
                    this_pair["llmkit"]["tokens_per_s"] / this_pair["llama"]["tokens_per_s"])
    finally:
        for server in servers.values():
            server.stop()

    print(f"\nmodel: {args.model_path}\nsequences: {parallel}, context per sequence: {args.context}, "
          f"threads: {args.threads}, requests per client: {args.requests}, max_tokens: {args.max_tokens}, "
          f"ABBA pairs: {args.pairs}\n")
    print("| clients | llmkit t/s | llama t/s | ratio (≥ 0.95) | llmkit TTFT p50 / p95 ms "
          "| llama TTFT p50 / p95 ms | TTFT p50 ratio (≤ 1.1) | TTFT p95 ratio | per-pair t/s ratios |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    summary = {}
    for clients in concurrencies:
        ours, theirs = summarize(runs[clients]["llmkit"]), summarize(runs[clients]["llama"])
        ratios = {"tokens_per_s": ours["tokens_per_s"] / theirs["tokens_per_s"],
                  "ttft_p50": ours["ttft_p50_ms"] / theirs["ttft_p50_ms"],
                  "ttft_p95": ours["ttft_p95_ms"] / theirs["ttft_p95_ms"]}
        summary[clients] = {"llmkit": ours, "llama": theirs, "ratios": ratios, "pair_ratios": pair_ratios[clients]}
        print(f"| {clients} | {ours['tokens_per_s']:.1f} | {theirs['tokens_per_s']:.1f} "
              f"| **{ratios['tokens_per_s']:.3f}** | {ours['ttft_p50_ms']:.0f} / {ours['ttft_p95_ms']:.0f} "
              f"| {theirs['ttft_p50_ms']:.0f} / {theirs['ttft_p95_ms']:.0f} | **{ratios['ttft_p50']:.3f}** "
              f"| {ratios['ttft_p95']:.3f} | {', '.join(f'{r:.3f}' for r in pair_ratios[clients])} |")
    if args.trace:
        print("\nllmkit's time to first content, medians of its --log-requests lines (ms), and the first "
              "event of any kind as both clients saw it\n")
        print("| clients | first content | before the model | waiting for a sequence | prompt "
              "| evaluated / prompt tokens | after the first token | first event llmkit / llama |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for clients in concurrencies:
            rows = traces.get(clients, [])
            if not rows:
                continue
            med = [percentile([row[column] for row in rows], 0.5) for column in range(7)]
            events = {name: 1000 * percentile([v for run in runs[clients][name] for v in run["first_event_s"]], 0.5)
                      for name in SERVERS}
            print(f"| {clients} | {med[0]:.1f} | {med[1]:.1f} | {med[2]:.1f} | {med[3]:.1f} "
                  f"| {med[4]:.0f} / {med[5]:.0f} | {med[6]:.1f} | {events['llmkit']:.1f} / {events['llama']:.1f} |")
        summary["trace"] = {clients: rows for clients, rows in traces.items()}
    if args.json:
        Path(args.json).write_text(json.dumps({
            "model": args.model_path, "parallel": parallel, "context": args.context, "threads": args.threads,
            "requests": args.requests, "max_tokens": args.max_tokens, "pairs": args.pairs,
            "summary": summary, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
