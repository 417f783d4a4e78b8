#!/usr/bin/env python3
"""Load test of an OpenAI-compatible server (`llmkit serve` or llama-server).

--clients threads send --requests chat requests in all (default 32 and 200): each asks the
model to repeat a unique marker (e.g. "Repeat exactly: ZX-1234-QW") after a filler of
varying length, with max_tokens from a seeded RNG in [8, 96] (--max-tokens), temperature 0, half streamed.
Checks:
  isolation   no response contains another request's marker
  completion  every request completes or gets a documented error (429: queue full)
  memory      resident memory after the second round grows < 10 % over the first
              (llmkit: /metrics process_resident_memory_bytes; llama: /proc/PID/status VmRSS
              with --pid; skipped without either)
The whole workload runs twice (--rounds) and each round reports requests ok / errors by
status, prompt and generated tokens, wall time and aggregate generated tokens per second.

Usage:
  load_test.py --base-url http://127.0.0.1:PORT/v1 --model ID [--api-key KEY]
               [--server llmkit|llama] [--pid PID] [--clients 32] [--requests 200]
               [--rounds 2] [--seed 7] [--timeout S] [--only NAME,NAME]

Prints a JSON summary on stdout and notes on stderr; exits 0 only when every check passed.
"""
import os
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import Skipped, Suite, common_arguments, expect, note, user  # noqa: E402

import openai  # noqa: E402  (on the path openai_checks set up)

MARKER = re.compile(r"[A-Z]{2}-\d{4}-[A-Z]{2}")
DOCUMENTED_ERRORS = {"429"}  # statuses other than 200 a request may end with
FILLER = ("The harbour was quiet in the early morning, and the fishing boats rocked gently against the pier. ",
          "A gull circled twice over the lighthouse before landing on the old stone wall. ",
          "Somewhere in the town a bakery opened its shutters and the smell of bread drifted down the street. ")


def workload(count: int, seed: int, tokens: tuple[int, int] = (8, 96), filler: int = 30) -> list[dict]:
    """The requests of one round: unique markers, prompt lengths (up to `filler` sentences before
    the instruction) and max_tokens from a seeded RNG."""
    maximum_filler = filler
    rng = random.Random(seed)
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    markers: list[str] = []
    while len(markers) < count:
        marker = (f"{rng.choice(letters)}{rng.choice(letters)}-{rng.randrange(10000):04d}-"
                  f"{rng.choice(letters)}{rng.choice(letters)}")
        if marker not in markers:
            markers.append(marker)
    requests = []
    for index, marker in enumerate(markers):
        sentences = rng.choice([0, 1, 4, 12, 30])
        filler = "".join(rng.choice(FILLER) for _ in range(min(sentences, maximum_filler)))
        requests.append({"index": index, "marker": marker, "stream": index % 2 == 0,
                         "max_tokens": rng.randint(*tokens),
                         "prompt": f"{filler}Repeat exactly: {marker}"})
    return requests


def send(client: openai.OpenAI, model: str, request: dict) -> dict:
    """One request; its text and token counts, or the error's status (or class name)."""
    options = {"model": model, "messages": user(request["prompt"]), "temperature": 0,
               "max_tokens": request["max_tokens"]}
    try:
        if request["stream"]:
            text, usage = [], None
            for chunk in client.chat.completions.create(**options, stream=True,
                                                        stream_options={"include_usage": True}):
                usage = chunk.usage or usage
                text += [choice.delta.content or "" for choice in chunk.choices]
            text = "".join(text)
        else:
            response = client.chat.completions.create(**options)
            text, usage = response.choices[0].message.content or "", response.usage
    except openai.APIStatusError as error:
        return {"status": error.status_code}
    except openai.APIError as error:  # connection errors and timeouts
        return {"status": type(error).__name__}
    return {"status": 200, "text": text,
            "prompt_tokens": usage.prompt_tokens if usage else 0,
            "completion_tokens": usage.completion_tokens if usage else 0}


def resident_bytes(suite: Suite) -> int | None:
    if suite.llmkit:
        return int(suite.metrics()["process_resident_memory_bytes"])
    if suite.args.pid:
        with open(f"/proc/{suite.args.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    return None


def run_round(suite: Suite, requests: list[dict]) -> dict:
    client = suite.client()
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=suite.args.clients) as pool:
        results = list(pool.map(lambda request: send(client, suite.args.model, request), requests))
    wall = time.monotonic() - started
    by_status: dict[str, int] = {}
    for result in results:
        by_status[str(result["status"])] = by_status.get(str(result["status"]), 0) + 1
    ok = [result for result in results if result["status"] == 200]
    generated = sum(result["completion_tokens"] for result in ok)
    markers = {request["marker"]: request["index"] for request in requests}
    leaks = []
    for request, result in zip(requests, results):
        for found in set(MARKER.findall(result.get("text", ""))):
            if found in markers and found != request["marker"]:
                leaks.append({"request": request["index"], "contains": found, "of_request": markers[found]})
    return {
        "requests": len(requests), "ok": len(ok), "by_status": by_status,
        "prompt_tokens": sum(result["prompt_tokens"] for result in ok), "generated_tokens": generated,
        "wall_s": round(wall, 2), "generated_tokens_per_s": round(generated / wall, 1),
        "echoed_own_marker": sum(request["marker"] in result.get("text", "")
                                 for request, result in zip(requests, results)),
        "leaks": leaks, "resident_bytes": resident_bytes(suite),
    }


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--clients", type=int, default=32, help="concurrent client threads")
    parser.add_argument("--requests", type=int, default=200, help="requests per round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the whole workload (>= 2 for memory)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the workload's RNG")
    parser.add_argument("--pid", type=int, help="llama-server's process id, for its resident memory")
    parser.add_argument("--max-tokens", default="8,96", help="the range of max_tokens, LOW,HIGH (default 8,96)")
    parser.add_argument("--max-filler", type=int, default=30,
                        help="the most filler sentences before a prompt's instruction (0, 1, 4, 12 or 30 drawn; default 30)")
    parser.set_defaults(timeout=600)  # a request may wait behind the others: --clients beyond --parallel
    suite = Suite(parser.parse_args())
    low, high = (int(part) for part in suite.args.max_tokens.split(","))
    requests = workload(suite.args.requests, suite.args.seed, (low, high), suite.args.max_filler)
    rounds = []
    for number in range(1, suite.args.rounds + 1):
        rounds.append(run_round(suite, requests))
        summary = {key: value for key, value in rounds[-1].items() if key != "leaks"}
        note(f"round {number}: {summary}, {len(rounds[-1]['leaks'])} leaks")

    def isolation() -> dict:
        leaks = [leak for round_ in rounds for leak in round_["leaks"]]
        expect(not leaks, f"{len(leaks)} responses contain another request's marker, e.g. {leaks[:5]}")
        return {"echoed_own_marker": [round_["echoed_own_marker"] for round_ in rounds]}

    def completion() -> dict:
        undocumented: dict[str, int] = {}
        for round_ in rounds:
            for status, count in round_["by_status"].items():
                if status != "200" and status not in DOCUMENTED_ERRORS:
                    undocumented[status] = undocumented.get(status, 0) + count
        expect(not undocumented, f"undocumented outcomes: {undocumented}")
        return {"by_status": [round_["by_status"] for round_ in rounds]}

    def memory() -> dict:
        if len(rounds) < 2:
            raise Skipped("needs --rounds >= 2")
        first, second = rounds[0]["resident_bytes"], rounds[1]["resident_bytes"]
        if first is None:
            raise Skipped("llama-server's memory needs --pid")
        growth = (second - first) / first
        note(f"resident memory after round 1: {first / 2**20:.1f} MiB, after round 2: {second / 2**20:.1f} MiB "
             f"({growth:+.1%})")
        expect(growth < 0.10, f"resident memory grew {growth:.1%} from round 1 to round 2 ({first} -> {second} B)")
        return {"after_round_1": first, "after_round_2": second, "growth": round(growth, 4)}

    suite.run("isolation", lambda _: isolation())
    suite.run("completion", lambda _: completion())
    suite.run("memory", lambda _: memory())
    suite.finish(clients=suite.args.clients, rounds=[
        {key: value for key, value in round_.items() if key != "leaks"} for round_ in rounds])


if __name__ == "__main__":
    main()
