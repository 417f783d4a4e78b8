#!/usr/bin/env python3
"""Fault tests of an OpenAI-compatible server (`llmkit serve` or llama-server).

Checks (--only selects some):
  disconnect  a client that closes a streaming chat (max_tokens 2000) after 3 chunks cancels its
              generation: the same 64-token request takes no longer after the fault than
              2 x before + 1 s, and the busy-sequence gauge (llmkit: llmkit_busy_sequences;
              llama: llamacpp:requests_processing, with --metrics) is back to 0 within 2 s
  slowloris   a connection sending its request header one byte a second is closed within
              --request-timeout + 5 s (llmkit only: llama-server's timeout is per read), and
              normal requests are served meanwhile and afterwards
  malformed   100 malformed requests (random bytes, truncated JSON, wrong types, 100k-deep
              nesting, invalid UTF-8, missing fields, wrong content types) each get a 4xx with
              OpenAI's error shape (llama: outcomes only reported, since it accepts some and
              answers others 500); the server still answers /health and a chat request afterwards

Usage:
  fault_test.py --base-url http://127.0.0.1:PORT/v1 --model ID [--api-key KEY]
                [--server llmkit|llama] [--request-timeout 15] [--seed 11] [--only NAME,NAME]

Prints a JSON summary on stdout and notes on stderr; exits 0 only when every check passed.
"""
import json
import os
import random
import select
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import (  # noqa: E402
    Suite, common_arguments, error_shape_problem, expect, note, user)


# ---------------------------------------------------------------- helpers

def reference_seconds(suite: Suite) -> float:
    """Seconds of one fixed non-streaming 64-token chat request."""
    started = time.monotonic()
    response = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Write a short poem about autumn leaves."), max_tokens=64,
        temperature=0)
    expect(response.choices[0].message.content, "the reference request returned no content")
    return time.monotonic() - started


def raw_request(suite: Suite, path: str, body: bytes) -> bytes:
    """The bytes of an HTTP/1.1 POST of a JSON body to path (under the server's root)."""
    url = urlsplit(suite.root_url)
    headers = [f"POST {url.path}{path} HTTP/1.1", f"Host: {url.netloc}", "Content-Type: application/json",
               f"Content-Length: {len(body)}", "Connection: close"]
    if suite.args.api_key:
        headers.append(f"Authorization: Bearer {suite.args.api_key}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


def connect(suite: Suite) -> socket.socket:
    url = urlsplit(suite.root_url)
    return socket.create_connection((url.hostname, url.port or 80), timeout=suite.args.timeout)


def busy_sequences(suite: Suite) -> float | None:
    """The server's count of sequences being generated; None when it has no such metric."""
    name = "llmkit_busy_sequences" if suite.llmkit else "llamacpp:requests_processing"
    try:
        return suite.metrics().get(name)
    except Exception:  # llama-server without --metrics answers 501
        if suite.llmkit:
            raise
        return None


def chat_works(suite: Suite) -> None:
    with suite.http() as http:
        health = http.get("/health")
    expect(health.status_code == 200, f"/health: status {health.status_code}")
    response = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Say hi."), max_tokens=8, temperature=0)
    expect(response.choices[0].message.content, "a chat request returned no content")


# ---------------------------------------------------------------- disconnect

def check_disconnect(suite: Suite) -> dict:
    # Timings are noisy on a busy machine: the median of three before, the better of two after
    # (a generation left running after the fault goes on for many seconds and slows both).
    reference_seconds(suite)  # warm: the prompt and the code paths
    before = statistics.median(reference_seconds(suite) for _ in range(3))
    body = json.dumps({"model": suite.args.model, "stream": True, "max_tokens": 2000, "temperature": 0,
                       "messages": user("Count from 1 to 2000, one number per line.")}).encode()
    with connect(suite) as stream:
        stream.sendall(raw_request(suite, "/v1/chat/completions", body))
        received = b""
        while received.count(b"data: ") < 3:
            data = stream.recv(4096)
            expect(data, f"the server closed the stream early: {received[-300:]!r}")
            received += data
        expect(b" 200 " in received.split(b"\r\n", 1)[0], f"streaming request: {received[:200]!r}")
        stream.shutdown(socket.SHUT_RDWR)
    disconnected = time.monotonic()
    after = reference_seconds(suite)
    if after > 2 * before + 1:
        after = min(after, reference_seconds(suite))
    detail = {"before_s": round(before, 2), "after_s": round(after, 2)}
    note(f"64-token request: {before:.2f} s before the fault, {after:.2f} s after")
    expect(after <= 2 * before + 1, f"the request after the fault took {after:.2f} s, before it {before:.2f} s: "
                                    "the abandoned generation seems to be still running")
    finished = time.monotonic()
    while (busy := busy_sequences(suite)) and time.monotonic() - finished < 2:
        time.sleep(0.1)
    if busy is None:
        detail["busy_sequences"] = "not reported (llama-server without --metrics)"
    else:
        expect(busy == 0, f"{busy:g} sequences still busy 2 s after the last request")
        detail["idle_after_disconnect_s"] = round(time.monotonic() - disconnected, 2)
    return detail


# ---------------------------------------------------------------- slowloris

def check_slowloris(suite: Suite) -> dict:
    deadline = suite.args.request_timeout + 5
    header = raw_request(suite, "/v1/chat/completions", b"")[:-4] + b"\r\nX-Slow: " + b"a" * 10_000
    outcome: dict[str, object] = {}

    def trickle() -> None:
        started = time.monotonic()
        with connect(suite) as slow:
            for byte in header:
                elapsed = time.monotonic() - started
                if elapsed > deadline:
                    outcome["open_after_s"] = round(elapsed, 1)
                    return
                try:
                    slow.sendall(bytes([byte]))
                    readable, _, _ = select.select([slow], [], [], 1.0)
                    if readable:
                        reply = slow.recv(4096)
                        if not reply:
                            break
                        outcome.setdefault("reply", reply[:120].decode(errors="replace"))
                except OSError as error:  # reset or broken pipe: closed by the server
                    outcome["error"] = type(error).__name__
                    break
            outcome["closed_after_s"] = round(time.monotonic() - started, 1)

    thread = threading.Thread(target=trickle)
    thread.start()
    time.sleep(2)
    meanwhile = time.monotonic()
    chat_works(suite)
    outcome["request_meanwhile_s"] = round(time.monotonic() - meanwhile, 2)
    thread.join()
    chat_works(suite)
    note(f"slowloris: {outcome}")
    if suite.llmkit:
        expect("closed_after_s" in outcome, f"the connection was still open after {deadline} s")
        expect(outcome["closed_after_s"] <= deadline, f"closed after {outcome['closed_after_s']} s, not within {deadline} s")
    return outcome


# ---------------------------------------------------------------- malformed

def malformed_cases(model: str, seed: int) -> list[tuple[str, str, str, bytes]]:
    """100 requests no server should accept: (label, path, content type, body)."""
    rng = random.Random(seed)
    chat, completions, json_type = "/v1/chat/completions", "/v1/completions", "application/json"
    base = {"model": model, "messages": user("hi"), "max_tokens": 4}

    def with_(**fields) -> bytes:
        return json.dumps(base | fields).encode()

    deep = 100_000
    cases = [
        ("empty body", chat, json_type, b""),
        ("null", chat, json_type, b"null"), ("array", chat, json_type, b"[]"), ("number", chat, json_type, b"42"),
        ("string", chat, json_type, b'"hello"'), ("true", chat, json_type, b"true"),
        ("array of object", chat, json_type, b"[" + with_() + b"]"),
        ("trailing garbage", chat, json_type, with_() + b" xyz"),
        ("two objects", chat, json_type, with_() + with_()),
        ("single quotes", chat, json_type, with_().replace(b'"', b"'")),
        ("unquoted keys", chat, json_type, b'{model: "x", messages: []}'),
        ("trailing comma", chat, json_type, with_()[:-1] + b",}"),
        ("comment", chat, json_type, b"/* c */" + with_()),
        ("NaN", chat, json_type, with_()[:-1] + b', "temperature": NaN}'),
        ("raw control character", chat, json_type, with_(messages=user("a\x01b")).replace(b"\\u0001", b"\x01")),
        ("raw newline in string", chat, json_type, with_(messages=user("a\nb")).replace(b"\\n", b"\n")),
        ("nesting as body", chat, json_type, b"[" * deep + b"]" * deep),
        ("nesting as messages", chat, json_type,
         b'{"model": "x", "messages": ' + b"[" * deep + b"]" * deep + b"}"),
        ("nesting of objects", chat, json_type, b'{"a":' * deep + b"1" + b"}" * deep),
        ("unclosed nesting", chat, json_type, b"[" * deep),
        ("invalid UTF-8 in content", chat, json_type, with_(messages=user("@@")).replace(b"@@", b"\xff\xfe")),
        ("overlong UTF-8", chat, json_type, with_(messages=user("@@")).replace(b"@@", b"\xc0\xaf")),
        ("truncated UTF-8", chat, json_type, with_(messages=user("@@")).replace(b"@@", b"\xe2\x82")),
        ("UTF-16 surrogate as UTF-8", chat, json_type, with_(messages=user("@@")).replace(b"@@", b"\xed\xa0\x80")),
        ("invalid UTF-8 in key", chat, json_type, with_()[:-1] + b', "\xff": 1}'),
        ("empty object", chat, json_type, b"{}"),
        ("no messages", chat, json_type, json.dumps({"model": model, "max_tokens": 4}).encode()),
        ("empty messages", chat, json_type, with_(messages=[])),
        ("message without role", chat, json_type, with_(messages=[{"content": "hi"}])),
        ("message without content", chat, json_type, with_(messages=[{"role": "user"}])),
        ("unknown role", chat, json_type, with_(messages=[{"role": "wizard", "content": "hi"}])),
        ("messages: 5", chat, json_type, with_(messages=5)),
        ("messages: string", chat, json_type, with_(messages="hi")),
        ("messages: null", chat, json_type, with_(messages=None)),
        ("messages: object", chat, json_type, with_(messages={"role": "user", "content": "hi"})),
        ("messages: [5]", chat, json_type, with_(messages=[5])),
        ("messages: [string]", chat, json_type, with_(messages=["hi"])),
        ("role: 5", chat, json_type, with_(messages=[{"role": 5, "content": "hi"}])),
        ("content: 5", chat, json_type, with_(messages=[{"role": "user", "content": 5}])),
        ("content: object", chat, json_type, with_(messages=[{"role": "user", "content": {"a": 1}}])),
        ("content part without type", chat, json_type, with_(messages=[{"role": "user", "content": [{"text": "hi"}]}])),
        ("model: 5", chat, json_type, with_(model=5)),
        ("max_tokens: string", chat, json_type, with_(max_tokens="ten")),
        ("max_tokens: fraction", chat, json_type, with_(max_tokens=1.5)),
        ("max_tokens: object", chat, json_type, with_(max_tokens={})),
        ("temperature: string", chat, json_type, with_(temperature="hot")),
        ("top_p: array", chat, json_type, with_(top_p=[])),
        ("stream: string", chat, json_type, with_(stream="yes")),
        ("stop: number", chat, json_type, with_(stop=5)),
        ("stop: numbers", chat, json_type, with_(stop=[1, 2])),
        ("seed: string", chat, json_type, with_(seed="x")),
        ("n: string", chat, json_type, with_(n="two")),
        ("presence_penalty: string", chat, json_type, with_(presence_penalty="x")),
        ("tools: string", chat, json_type, with_(tools="x")),
        ("tools: [5]", chat, json_type, with_(tools=[5])),
        ("tool without function", chat, json_type, with_(tools=[{"type": "function"}])),
        ("tool_choice: 5", chat, json_type, with_(tool_choice=5)),
        ("response_format: 5", chat, json_type, with_(response_format=5)),
        ("response_format: unknown type", chat, json_type, with_(response_format={"type": "bogus"})),
        ("json_schema without schema", chat, json_type,
         with_(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": 5}})),
        ("stream_options: 5", chat, json_type, with_(stream=True, stream_options=5)),
        ("completions: no prompt", completions, json_type, json.dumps({"model": model, "max_tokens": 4}).encode()),
        ("completions: prompt object", completions, json_type,
         json.dumps({"model": model, "prompt": {"a": 1}, "max_tokens": 4}).encode()),
        ("completions: prompt true", completions, json_type,
         json.dumps({"model": model, "prompt": True, "max_tokens": 4}).encode()),
        ("completions: truncated", completions, json_type,
         json.dumps({"model": model, "prompt": "hi", "max_tokens": 4}).encode()[:-3]),
        ("form body", chat, "application/x-www-form-urlencoded", b"model=x&messages=hi"),
        ("XML body", chat, "application/xml", b"<request><model>x</model></request>"),
        ("multipart body", chat, "multipart/form-data; boundary=XX",
         b'--XX\r\nContent-Disposition: form-data; name="model"\r\n\r\nx\r\n--XX--\r\n'),
        ("plain text", chat, "text/plain", b"hello, model"),
    ]
    full = json.dumps(base | {"messages": user("Tell me about the sea. " * 20), "temperature": 0.5}).encode()
    while len(cases) < 100:
        if len(cases) % 2:
            cases.append((f"random bytes {len(cases)}", chat, json_type, rng.randbytes(rng.randint(1, 4000))))
        else:
            cut = rng.randint(1, len(full) - 1)
            cases.append((f"truncated at {cut}", chat, json_type, full[:cut]))
    return cases


def check_malformed(suite: Suite) -> dict:
    statuses: dict[str, int] = {}
    problems: list[str] = []
    not_rejected: list[str] = []  # llama-server: answers other than 4xx and 5xx, reported only
    with suite.http() as http:
        for label, path, content_type, body in malformed_cases(suite.args.model, suite.args.seed):
            try:
                # a connection each: one kept alive after a streamed answer may be closed under us
                response = http.post(path, content=body, headers={"Content-Type": content_type, "Connection": "close"})
                outcome = str(response.status_code)
            except Exception as error:  # no answer at all (a reset, a timeout)
                response, outcome = None, f"{type(error).__name__}: {error}"
            statuses[outcome] = statuses.get(outcome, 0) + 1
            if response is None or response.status_code < 400:
                (problems if suite.llmkit else not_rejected).append(f"{label}: {outcome}")
            elif suite.llmkit and response.status_code >= 500:
                problems.append(f"{label}: status {outcome}")
            elif suite.llmkit and (problem := error_shape_problem(response, strict=True)):
                problems.append(f"{label}: {problem}")
    note(f"malformed: outcomes {statuses}")
    if not_rejected:
        note(f"malformed: llama-server did not reject {not_rejected}")
    try:
        chat_works(suite)
    except Exception as error:  # reported with the problems above
        problems.append(f"afterwards: {type(error).__name__}: {error}")
    expect(not problems, f"{len(problems)} problems: {problems[:10]}")
    return {"outcomes": statuses, "not_rejected": not_rejected}


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--request-timeout", "--header-timeout", dest="request_timeout", type=float, default=15,
                        help="the server's --request-timeout: seconds for a whole request to arrive")
    parser.add_argument("--seed", type=int, default=11, help="seed of the random malformed bodies")
    suite = Suite(parser.parse_args())
    suite.run("disconnect", check_disconnect)
    suite.run("slowloris", check_slowloris)
    suite.run("malformed", check_malformed)
    suite.finish()


if __name__ == "__main__":
    main()
