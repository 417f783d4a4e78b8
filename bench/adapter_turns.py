#!/usr/bin/env python3
"""Per-request LoRA scales under load: `llmkit serve` against llama-server, both started here
on the same model with the same adapters (--lora A --lora B), 4 slots each, in one run.

llama.cpp applies adapters to a whole batch, so requests of different scales cannot share a
decode: llmkit takes turns between the groups, a step each; llama-server decodes the group of
its first busy slot and makes the others wait. Three workloads of --clients clients, each
sending --requests greedy /v1/completions of --max-tokens tokens:
  same   every request with the loaded scales (no `lora` field): one batch;
  two    half the clients ask for [{"id": 0, "scale": 0.5}]: two groups;
  each   every client asks for scales of its own: as many groups as clients.
Each workload runs on one server, then the other, in ABBA order (--pairs pairs). Reported:
tokens per second of the round's wall time (medians), each server's own ratio to its `same`,
and llmkit's ratio to llama-server's.

Usage: bench/adapter_turns.py --adapter A.gguf --adapter B.gguf [--model-path GGUF] [--threads T]
                              [--clients 4] [--requests 2] [--max-tokens 48] [--pairs 2] [--json FILE]
"""
import argparse
import http.client
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import PROMPTS, ROOT, Server, default_model, threaded  # noqa: E402

SERVERS = ["llmkit", "llama"]
WORKLOADS = ["same", "two", "each"]


def lora_for(workload: str, client: int) -> list | None:
    if workload == "same" or (workload == "two" and client % 2 == 0):
        return None
    if workload == "two":
        return [{"id": 0, "scale": 0.5}]
    return [{"id": 0, "scale": 0.25 * (client + 1)}, {"id": 1, "scale": 0.5}]


def complete(server: Server, prompt: str, lora, max_tokens: int) -> int:
    body = {"model": server.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0}
    if lora is not None:
        body["lora"] = lora
    connection = http.client.HTTPConnection(server.host, server.port, timeout=600)
    try:
        connection.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            raise RuntimeError(f"{server.name}: status {response.status}: {answer[:300]!r}")
        return json.loads(answer)["usage"]["completion_tokens"]
    finally:
        connection.close()


def run(server: Server, workload: str, clients: int, requests: int, max_tokens: int) -> float:
    """Generated tokens per second of `clients` threads sending `requests` requests each."""
    def work(index: int) -> int:
        return sum(complete(server, PROMPTS[(index + number) % len(PROMPTS)], lora_for(workload, index), max_tokens)
                   for number in range(requests))

    tokens, elapsed = threaded(clients, work)
    return sum(tokens) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-path", default=default_model())
    parser.add_argument("--adapter", action="append", required=True, help="a LoRA adapter (give two)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--json")
    args = parser.parse_args()
    if len(args.adapter) != 2:
        sys.exit("give two --adapter files")
    adapters = [flag for path in args.adapter for flag in ("--lora", path)]
    commands = {
        "llmkit": [args.llmkit, "serve", "--model", args.model_path, "--port", "{port}", "--parallel", str(args.clients),
                   "--context", "1024", "--threads", str(args.threads), "--no-prompt-cache", *adapters],
        "llama": [os.path.join(args.prefix, "bin", "llama-server"), "-m", args.model_path, "--host", "127.0.0.1",
                  "--port", "{port}", "-np", str(args.clients), "-c", str(1024 * args.clients), "-t", str(args.threads),
                  "--no-webui", *adapters],
    }
    servers: dict[str, Server] = {}
    rounds = {workload: {name: [] for name in SERVERS} for workload in WORKLOADS}
    try:
        for name in SERVERS:
            servers[name] = Server(name, commands[name])
            run(servers[name], "each", args.clients, 1, 8)            # warm-up
        for _ in range(args.pairs):
            for workload in WORKLOADS:
                for name in ["llmkit", "llama", "llama", "llmkit"]:
                    rate = run(servers[name], workload, args.clients, args.requests, args.max_tokens)
                    rounds[workload][name].append(rate)
                    print(f"{workload}, {name}: {rate:.1f} tokens/s", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    median = {workload: {name: statistics.median(rates) for name, rates in by.items()} for workload, by in rounds.items()}
    print("| workload | llmkit tokens/s | of its `same` | llama-server tokens/s | of its `same` | llmkit / llama-server |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for workload in WORKLOADS:
        ours, theirs = median[workload]["llmkit"], median[workload]["llama"]
        print(f"| {workload} | {ours:.1f} | {ours / median['same']['llmkit']:.2f} | {theirs:.1f} | "
              f"{theirs / median['same']['llama']:.2f} | {ours / theirs:.3f} |")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rounds": rounds, "median": median, "arguments": vars(args)}, file, indent=2)


if __name__ == "__main__":
    main()
