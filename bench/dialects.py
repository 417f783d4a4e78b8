#!/usr/bin/env python3
"""One `llmkit serve`, three dialects: streamed chat throughput of Anthropic's /v1/messages and
Ollama's /api/chat against OpenAI's /v1/chat/completions on the same server, model and prompts.

Starts `llmkit serve` (--parallel N) on a free port with the model. For every concurrency C in
--clients, C client threads each send --requests streaming requests (fixed prompts,
temperature 0, fixed max_tokens) in one dialect, then the next; the dialects' order turns
around every pair of rounds (openai, anthropic, ollama, ollama, anthropic, openai, …) so that
drift in the machine's speed hits all alike. A round's throughput is its generated tokens (the
dialect's own count: OpenAI's usage, Anthropic's message_delta usage, Ollama's eval_count)
over its wall time. Every prompt is answered once first (a warm-up); --no-prompt-cache keeps
the runs out of the prompt cache on disk.

Prints a markdown table per concurrency: each dialect's median tokens/s and its ratio to
OpenAI's (goal: >= 0.97); --json writes every round too.

Usage: bench/dialects.py [--model-path PATH] [--parallel 8] [--threads T] [--clients 1,4,8]
                         [--requests 4] [--max-tokens 64] [--pairs 2] [--llmkit PATH] [--json FILE]
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import PROMPTS, ROOT, Server, default_model  # noqa: E402

DIALECTS = ["openai", "anthropic", "ollama"]


def stream(server: Server, dialect: str, prompt: str, max_tokens: int) -> int:
    """One streamed request in `dialect`; returns the tokens the dialect says it generated."""
    messages = [{"role": "user", "content": prompt}]
    if dialect == "openai":
        path, body = "/v1/chat/completions", {"model": server.model, "messages": messages, "temperature": 0,
                                              "max_tokens": max_tokens, "stream": True,
                                              "stream_options": {"include_usage": True}}
    elif dialect == "anthropic":
        path, body = "/v1/messages", {"model": server.model, "messages": messages, "temperature": 0,
                                      "max_tokens": max_tokens, "stream": True}
    else:
        path, body = "/api/chat", {"model": server.model, "messages": messages, "stream": True,
                                   "options": {"temperature": 0, "num_predict": max_tokens}}
    connection = http.client.HTTPConnection(server.host, server.port, timeout=600)
    try:
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            raise RuntimeError(f"{dialect}: status {response.status}: {response.read()[:300]!r}")
        tokens = 0
        for line in response:
            line = line.strip()
            if dialect == "ollama" and line:
                event = json.loads(line)
                tokens = event.get("eval_count", tokens) if event.get("done") else tokens
            elif line.startswith(b"data: ") and line != b"data: [DONE]":
                event = json.loads(line[6:])
                if dialect == "openai" and event.get("usage"):
                    tokens = event["usage"]["completion_tokens"]
                elif dialect == "anthropic" and event.get("type") == "message_delta":
                    tokens = event["usage"]["output_tokens"]
        return tokens
    finally:
        connection.close()


def round_trip(server: Server, dialect: str, clients: int, requests: int, max_tokens: int) -> float:
    totals, errors = [0] * clients, []

    def client(index: int) -> None:
        for number in range(requests):
            try:
                totals[index] += stream(server, dialect, PROMPTS[(index + number) % len(PROMPTS)], max_tokens)
            except Exception as error:
                errors.append(f"{type(error).__name__}: {error}")
                return

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"{dialect}, {clients} clients: {errors[:3]}")
    return sum(totals) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-path", default=default_model())
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--clients", default="1,4,8")
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--llmkit", default=str(ROOT / ".build" / "release" / "llmkit"))
    parser.add_argument("--json")
    args = parser.parse_args()
    server = Server("llmkit", [args.llmkit, "serve", "--model", args.model_path, "--port", "{port}",
                               "--parallel", str(args.parallel), "--threads", str(args.threads), "--no-prompt-cache"])
    results = {}
    try:
        for dialect in DIALECTS:
            for prompt in PROMPTS:
                stream(server, dialect, prompt, args.max_tokens)
        for clients in [int(value) for value in args.clients.split(",")]:
            rates = {dialect: [] for dialect in DIALECTS}
            for pair in range(args.pairs):
                for dialect in DIALECTS + DIALECTS[::-1]:
                    rates[dialect].append(round_trip(server, dialect, clients, args.requests, args.max_tokens))
            results[clients] = rates
            base = statistics.median(rates["openai"])
            print(f"\n{clients} clients ({args.requests} requests each, {args.max_tokens} tokens, {2 * args.pairs} rounds a dialect)\n")
            print("| dialect | tokens/s | ratio to OpenAI's |\n| --- | --- | --- |")
            for dialect in DIALECTS:
                rate = statistics.median(rates[dialect])
                print(f"| {dialect} | {rate:.1f} | {rate / base:.3f} |")
    finally:
        server.stop()
    if args.json:
        Path = __import__("pathlib").Path
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
