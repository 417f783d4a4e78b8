#!/usr/bin/env python3
"""Reranking throughput: `llmkit serve`'s /v1/rerank against llama-server --reranking on the
same reranker file, with the same requests, in one run, as a ratio.

Starts both servers on free ports (--threads each, llama-server with -np --parallel, -c
--parallel x 512 and -b/-ub 512; llmkit with its defaults: it packs many query-document pairs
per decode, each its own sequence). For every concurrency C in --clients, C client threads each
send --requests rerank requests of one query and --documents documents (fixed sentences of 8 to
14 words), to one server, then the other; the order turns around every pair (llmkit, llama,
llama, llmkit) so that drift in the machine's speed hits both alike. A round's throughput is its
query-document pairs over its wall time. Every request shape is sent once first (a warm-up).

Prints a markdown table: each server's median pairs/s per concurrency and llmkit's ratio to
llama-server's; --json writes every round too.

Usage: bench/rerank.py [--model-path RERANKER.gguf] [--threads T] [--clients 1,4] [--requests 4]
                       [--documents 32] [--pairs 2] [--parallel 4] [--llmkit PATH] [--json FILE]
"""
import argparse
import http.client
import json
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_compare import ROOT, Server, threaded  # noqa: E402

SERVERS = ["llmkit", "llama"]


def sentences(count: int, seed: int) -> list[str]:
    """`count` short English sentences, the same for a seed."""
    rng = random.Random(seed)
    subjects = ["The cat", "A young engineer", "My neighbour", "The old train", "Every student", "The river"]
    verbs = ["quietly watched", "carefully repaired", "suddenly noticed", "happily painted", "slowly crossed"]
    objects = ["the broken fence", "a map of the city", "the morning news", "an unusual letter", "the garden path"]
    tails = ["before lunch.", "in the rain.", "after the meeting.", "for the third time.", "near the station."]
    return [f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)} {rng.choice(tails)}" for _ in range(count)]


def rerank(server: Server, query: str, documents: list[str]) -> int:
    """One rerank request; returns the pairs scored."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=600)
    try:
        body = {"model": server.model, "query": query, "documents": documents, "top_n": len(documents)}
        connection.request("POST", "/v1/rerank", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            raise RuntimeError(f"{server.name}: status {response.status}: {answer[:300]!r}")
        results = json.loads(answer)["results"]
        if len(results) != len(documents):
            raise RuntimeError(f"{server.name}: {len(results)} results for {len(documents)} documents")
        return len(results)
    finally:
        connection.close()


def round_trip(server: Server, clients: int, requests: int, documents: int) -> float:
    """Pairs per second of `clients` threads sending `requests` requests each."""
    def work(index: int) -> int:
        seeds = [index * 1000 + number for number in range(requests)]
        return sum(rerank(server, sentences(1, seed)[0], sentences(documents, seed + 500_000)) for seed in seeds)

    pairs, elapsed = threaded(clients, work)
    return sum(pairs) / elapsed


def main() -> None:
    cache = os.environ.get("LLMKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-path", default=os.path.join(cache, "models", "synthetic-minilm-reranker.gguf"))
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--clients", default="1,4")
    parser.add_argument("--requests", type=int, default=4, help="requests per client in each round")
    parser.add_argument("--documents", type=int, default=32, help="documents in each request")
    parser.add_argument("--pairs", type=int, default=2, help="ABBA pairs per concurrency")
    parser.add_argument("--parallel", type=int, default=4, help="llama-server's slots (-np)")
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--json", help="also write every round to this file")
    args = parser.parse_args()
    commands = {
        "llmkit": [args.llmkit, "serve", "--model", args.model_path, "--port", "{port}", "--threads", str(args.threads),
                   "--insecure-no-auth"],
        "llama": [os.path.join(args.prefix, "bin", "llama-server"), "-m", args.model_path, "--host", "127.0.0.1",
                  "--port", "{port}", "--reranking", "-np", str(args.parallel), "-c", str(args.parallel * 512),
                  "-b", "512", "-ub", "512", "-t", str(args.threads), "--no-webui"],
    }
    servers: dict[str, Server] = {}
    rounds: dict[int, dict[str, list[float]]] = {}
    try:
        for name in SERVERS:
            servers[name] = Server(name, commands[name])
            round_trip(servers[name], 1, 1, args.documents)       # warm-up
        for clients in [int(count) for count in args.clients.split(",")]:
            rounds[clients] = {name: [] for name in SERVERS}
            for _ in range(args.pairs):
                for name in ["llmkit", "llama", "llama", "llmkit"]:
                    rate = round_trip(servers[name], clients, args.requests, args.documents)
                    rounds[clients][name].append(rate)
                    print(f"{clients} clients, {name}: {rate:.1f} pairs/s", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    print(f"| clients | llmkit pairs/s | llama-server pairs/s | ratio |\n| --- | --- | --- | --- |")
    summary = {}
    for clients, by in rounds.items():
        ours, theirs = statistics.median(by["llmkit"]), statistics.median(by["llama"])
        summary[clients] = {"llmkit": ours, "llama": theirs, "ratio": ours / theirs}
        print(f"| {clients} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.3f} |")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"rounds": rounds, "summary": summary, "arguments": vars(args)}, file, indent=2)


if __name__ == "__main__":
    main()
