#!/usr/bin/env python3
"""Sends the same requests to a server (llmkit serve) and to llama-server on the same model
file, which this script starts on a free port of 127.0.0.1:

  - /tokenize, /detokenize and /apply-template: the answers must be equal;
  - greedy chat completions with logprobs (top 5): the same tokens, and every logprob (chosen
    and alternatives) within 1e-4 of llama-server's.

Usage:
  llama_server_parity.py --base-url http://127.0.0.1:PORT/v1 --model-file MODEL.gguf [--llama-server PATH]

Prints a JSON summary on its last line ({"compared": N, "logprobs_compared": N, "largest_logprob_difference": x,
"different": [...]}); exits 0 only when every check passed.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

TEXTS = ["Hello world", "  leading spaces and\ttabs\n\nnew lines", "héllo 🦙 世界 — ünïcödé", "",
         "<|im_start|>user\nHi<|im_end|>", "def f(x):\n    return x ** 2  # squares", "1234567890 3.14159"]

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}},
                   "required": ["city"]}}}

CHATS = [
    {"messages": [{"role": "user", "content": "Hi there"}]},
    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2+2?"},
                  {"role": "assistant", "content": "4."}, {"role": "user", "content": "And 3+3?"}]},
    {"messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [WEATHER]},
    {"messages": [{"role": "user", "content": "Weather in Paris?"},
                  {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {
                      "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
                  {"role": "tool", "tool_call_id": "call_1", "content": "{\"sky\": \"rain\"}"}], "tools": [WEATHER]},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "Parts: "}, {"type": "text", "text": "two of them"}]}]},
]


# Answers longer than 16 tokens: no end-of-generation token among those compared.
LOGPROB_PROMPTS = ["Write a haiku about the sea.", "Explain in two sentences why the sky is blue."]


def compare_logprobs(theirs: list, ours: list) -> tuple[list, float, int]:
    """Problems between two `logprobs.content` lists, the largest difference, and how many
    log-probabilities were compared."""
    problems, largest, count = [], 0.0, 0
    if [entry["id"] for entry in theirs] != [entry["id"] for entry in ours]:
        return [f"tokens differ: {[e['id'] for e in theirs]} vs {[e['id'] for e in ours]}"], largest, count
    for index, (a, b) in enumerate(zip(theirs, ours)):
        pairs = [(a, b)]
        mine = {top["id"]: top for top in b["top_logprobs"]}
        for top in a["top_logprobs"]:
            if top["id"] not in mine:
                # Two alternatives of equal probability may be listed in either order at the end.
                if top["logprob"] - b["top_logprobs"][-1]["logprob"] > 1e-4:
                    problems.append(f"token {index}: alternative {top['id']} missing")
                continue
            pairs.append((top, mine[top["id"]]))
        for x, y in pairs:
            difference = abs(x["logprob"] - y["logprob"])
            largest, count = max(largest, difference), count + 1
            if difference > 1e-4:
                problems.append(f"token {index} ({x['id']}): logprob {x['logprob']} vs {y['logprob']}")
            if x["bytes"] != y["bytes"] or x["token"] != y["token"]:
                problems.append(f"token {index} ({x['id']}): text {x['token']!r}/{x['bytes']} vs {y['token']!r}/{y['bytes']}")
    return problems, largest, count


def post(base: str, path: str, body: dict) -> tuple[int, object]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_llama_server(executable: str, model: str, log, arguments: list[str] | None = None) -> tuple[subprocess.Popen, str]:
    """Starts llama-server on a free port with `arguments` (by default: a 2048-token context, one
    slot, Jinja templates, 2 threads, weights not repacked) and waits until it is healthy."""
    port = free_port()
    # --no-repack: llmkit keeps the file's weight layout (LocalModel.Configuration.repacksWeights),
    # and repacked weights round differently.
    arguments = arguments if arguments is not None else ["-c", "2048", "-np", "1", "--jinja", "-t", "2", "--no-repack"]
    process = subprocess.Popen([executable, "-m", model, "--host", "127.0.0.1", "--port", str(port), *arguments],
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"llama-server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as answer:
                if answer.status == 200:
                    return process, base
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("llama-server did not become healthy in 120 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True, help="the server's /v1 URL")
    parser.add_argument("--model-file", required=True)
    parser.add_argument("--llama-server", default=os.path.join(os.environ.get("LLMKIT_PREFIX", "/usr/local"), "bin/llama-server"))
    args = parser.parse_args()
    ours = args.base_url.rstrip("/")
    if ours.endswith("/v1"):
        ours = ours[:-3]
    compared, different, logprobs_compared, largest = 0, [], 0, 0.0
    with tempfile.TemporaryFile() as log:
        process, theirs = start_llama_server(args.llama_server, args.model_file, log)
        try:
            # First, on fresh caches on both sides: a whole prompt decoded in one batch each.
            for prompt in LOGPROB_PROMPTS:
                body = {"model": "m", "messages": [{"role": "user", "content": prompt}], "max_tokens": 16,
                        "temperature": 0, "logprobs": True, "top_logprobs": 5, "cache_prompt": False}
                expected, got = post(theirs, "/v1/chat/completions", body), post(ours, "/v1/chat/completions", body)
                if expected[0] != 200 or got[0] != 200:
                    different.append({"path": "logprobs", "llama-server": expected, "llmkit": got})
                    continue
                problems, difference, count = compare_logprobs(expected[1]["choices"][0]["logprobs"]["content"],
                                                               got[1]["choices"][0]["logprobs"]["content"])
                largest, logprobs_compared = max(largest, difference), logprobs_compared + count
                if problems:
                    different.append({"path": "logprobs", "prompt": prompt, "problems": problems[:10]})
                    print(f"logprobs differ for {prompt!r}: {problems[:5]}", file=sys.stderr)
            requests = []
            for text in TEXTS:
                requests.append(("/tokenize", {"content": text}))
                requests.append(("/tokenize", {"content": text, "add_special": True, "parse_special": False}))
                requests.append(("/tokenize", {"content": text, "with_pieces": True}))
            requests.append(("/tokenize", {"content": ["Hello", 42, " world", 151645]}))
            for path, body in list(requests):
                status, answer = post(theirs, path, body)
                if status == 200 and not body.get("with_pieces"):
                    requests.append(("/detokenize", {"tokens": answer["tokens"]}))
            requests += [("/apply-template", chat) for chat in CHATS]
            for path, body in requests:
                expected = post(theirs, path, body)
                got = post(ours, path, body)
                compared += 1
                if expected != got:
                    different.append({"path": path, "body": body, "llama-server": expected, "llmkit": got})
                    print(f"different: {path} {json.dumps(body)[:120]}\n  llama-server: {json.dumps(expected)[:400]}\n"
                          f"  llmkit:       {json.dumps(got)[:400]}", file=sys.stderr)
        finally:
            process.kill()
            process.wait()
    print(json.dumps({"compared": compared, "logprobs_compared": logprobs_compared,
                      "largest_logprob_difference": largest, "different": different}))
    return 0 if not different and compared > 0 and logprobs_compared > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
