#!/usr/bin/env python3
"""Sends the same ranking requests to a server (llmkit serve) and to llama-server --reranking on
the same reranker file, which this script starts on a free port of 127.0.0.1:

  - 10 query-document sets through /v1/rerank, each document alone (one pair per decode on both
    sides): every relevance_score within 1e-4 of llama-server's, and the same usage;
  - the same sets whole (many pairs per decode): the same order, and every score within 1e-3 of
    llama-server's (which packs a request's pairs into its batch in an order of its own: the
    order of the sequences in a decode moves the last bits, by up to 4e-4 in llama-server's own
    answers between -np 1 and -np 4);
  - top_n and return_documents on ours (llama-server sends no documents), and /rerank as a path;
  - --embedding-model ID (a served model without a ranking head) and empty documents get a 400.

Usage:
  rerank_parity.py --base-url http://127.0.0.1:PORT/v1 --model ID --model-file RERANKER.gguf
                   [--embedding-model ID] [--llama-server PATH]

Prints a JSON summary on its last line ({"compared": N, "largest_difference": x, "largest_packed_difference": y,
"failures": [...]});
exits 0 only when every check passed.
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_server_parity import post, start_llama_server  # noqa: E402

SETS = [
    ("What do giant pandas eat?", ["Giant pandas eat bamboo almost exclusively.", "Paris is the capital of France.",
                                   "Pandas is a Python library for data frames.", ""]),
    ("capital of France", ["Berlin is in Germany.", "The capital of France is Paris.", "France borders Spain."]),
    ("how to boil an egg", ["Place the egg in boiling water for nine minutes.", "Eggs are laid by hens."]),
    ("Swift concurrency", ["Actors protect mutable state.", "async let starts a child task.", "Tea is a drink.",
                           "Structured concurrency ties tasks to scopes.", "Sendable marks values safe to share."]),
    ("héllo wörld 🦙", ["llama 🦙 emoji", "plain ascii text", "wörld"]),
    ("a", ["a", "b", "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a"]),
    ("What is the boiling point of water?", ["100 degrees Celsius at sea level.", "Water freezes at 0 °C.",
                                             "Mount Everest is high.", "Pressure changes the boiling point."]),
    ("python sort a list", ["Use sorted(items) or items.sort().", "Snakes are reptiles.", "Lists keep order."]),
    ("weather tomorrow", ["Rain is expected tomorrow afternoon.", "Yesterday was sunny.", "Climate is long-term weather.",
                          "Bring an umbrella."]),
    ("long document", ["word " * 120, "short", "medium length sentence about documents and ranking them well"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--model-file", required=True)
    parser.add_argument("--embedding-model")
    parser.add_argument("--llama-server", default=os.path.join(os.environ.get("LLMKIT_PREFIX", "/usr/local"), "bin/llama-server"))
    args = parser.parse_args()
    ours = args.base_url.rstrip("/")
    ours = ours[:-3] if ours.endswith("/v1") else ours
    failures, compared, largest, packed_largest = [], 0, 0.0, 0.0
    with tempfile.TemporaryFile() as log:
        process, theirs = start_llama_server(args.llama_server, args.model_file, log,
                                             ["--reranking", "-t", "2", "-c", "512", "-ub", "512", "-b", "512"])
        try:
            for query, documents in SETS:
                for index, document in enumerate(documents):
                    body = {"model": args.model, "query": query, "documents": [document]}
                    status_theirs, reference = post(theirs, "/v1/rerank", body)
                    status_ours, answer = post(ours, "/v1/rerank", body)
                    if status_theirs != 200 or status_ours != 200:
                        failures.append(f"{query!r} {index}: status {status_ours}, llama-server {status_theirs}: {answer}")
                        continue
                    difference = abs(answer["results"][0]["relevance_score"] - reference["results"][0]["relevance_score"])
                    largest = max(largest, difference)
                    compared += 1
                    if difference > 1e-4:
                        failures.append(f"{query!r}: document {index} alone scores {answer['results'][0]['relevance_score']}, "
                                        f"llama-server {reference['results'][0]['relevance_score']}")
                    if answer["usage"] != reference["usage"]:
                        failures.append(f"{query!r} {index}: usage {answer['usage']}, llama-server {reference['usage']}")
                body = {"model": args.model, "query": query, "documents": documents, "top_n": len(documents)}
                _, reference = post(theirs, "/v1/rerank", body)
                status, answer = post(ours, "/v1/rerank", body)
                if status != 200 or [item["index"] for item in answer["results"]] != [item["index"] for item in reference["results"]]:
                    failures.append(f"{query!r} whole: {answer}, llama-server {reference}")
                    continue
                for mine, theirs_item in zip(answer["results"], reference["results"]):
                    packed_largest = max(packed_largest, abs(mine["relevance_score"] - theirs_item["relevance_score"]))
                if packed_largest > 1e-3:
                    failures.append(f"{query!r} whole: scores {answer['results']}, llama-server {reference['results']}")
                if answer["usage"] != reference["usage"]:
                    failures.append(f"{query!r} whole: usage {answer['usage']}, llama-server {reference['usage']}")
            query, documents = SETS[0]
            status, top = post(ours, "/rerank", {"model": args.model, "query": query, "documents": documents,
                                                 "top_n": 2, "return_documents": True})
            if status != 200 or len(top["results"]) != 2 or any(
                    item["document"]["text"] != documents[item["index"]] for item in top["results"]):
                failures.append(f"top_n 2 with return_documents on /rerank: {status} {top}")
            status, error = post(ours, "/v1/rerank", {"model": args.model, "query": "q", "documents": []})
            if status != 400 or error.get("error", {}).get("param") != "documents":
                failures.append(f"empty documents: {status} {error}")
            if args.embedding_model:
                status, error = post(ours, "/v1/rerank", {"model": args.embedding_model, "query": "q", "documents": ["a"]})
                message = error.get("error", {}).get("message", "") if isinstance(error, dict) else ""
                if status != 400 or "no ranking head" not in message:
                    failures.append(f"a model without a ranking head: {status} {error}")
        finally:
            process.kill()
            process.wait()
    print(json.dumps({"compared": compared, "largest_difference": largest, "largest_packed_difference": packed_largest,
                      "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
