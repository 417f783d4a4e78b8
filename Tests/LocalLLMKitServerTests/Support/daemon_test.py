#!/usr/bin/env python3
"""Checks of `llmkit serve` as a daemon people leave running (issue 32's second review).

Checks (--only selects some):
  halfopen    300 connections that send nothing or half a request head are held open while
              /health and a chat request are answered; past --per-client the server closes the
              oldest of them (at least 300 - per-client are closed), and those still open are
              closed within the header timeout (--header-timeout) plus 3 s
  framing     a chunked request body, an `Expect: 100-continue` request (the 100 comes before the
              body is sent) and two pipelined requests on one connection are all answered
  origin      a Host header naming another site gets 403 (/health excepted), loopback names and IP
              addresses are answered, a text/plain POST gets 415, a lower-case `bearer` scheme
              passes (with --api-key), and /v1/ps shows no file path
  responsive  8 concurrent chat requests (with a slow template, when the model has one) leave
              /health, /metrics and an embeddings request (--embed-model) answering: typically
              within 1 s, and none waits a third as long as the shortest chat
  abuse       a chat workload alone, then the same workload while hostile schema bursts, decoder
              embedding bursts (--embed-model: the chat model), 300 half-open connections and
              cross-site requests arrive: every chat request completes, and the server's resident
              memory returns to within 10 % of its start once the burst ends. The p95 latency
              under abuse against alone is reported (`latency_ratio`), and is a check only with
              --latency-goal (a benchmark's reading, not a test's: a shared 2-core machine's
              jitter decides it)

Usage:
  daemon_test.py --base-url http://127.0.0.1:PORT/v1 --model ID [--embed-model ID] [--api-key KEY]
                 [--per-client N] [--header-timeout S] [--only NAME,NAME]

Prints a JSON summary on stdout and notes on stderr; exits 0 only when every check passed.
"""
import json
import os
import select
import socket
import statistics
import sys
import threading
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import Suite, common_arguments, expect, note, user  # noqa: E402


# ---------------------------------------------------------------- helpers

def address(suite: Suite) -> tuple[str, int]:
    url = urlsplit(suite.root_url)
    return url.hostname, url.port


def connect(suite: Suite, timeout: float = 30) -> socket.socket:
    return socket.create_connection(address(suite), timeout=timeout)


def host_header(suite: Suite) -> str:
    return urlsplit(suite.root_url).netloc


def request_bytes(suite: Suite, method: str, path: str, body: bytes = b"", headers: dict | None = None,
                  close: bool = True) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host_header(suite)}"]
    headers = dict(headers or {})
    if body and "Transfer-Encoding" not in headers:
        headers.setdefault("Content-Length", str(len(body)))
    if suite.args.api_key:
        headers.setdefault("Authorization", f"Bearer {suite.args.api_key}")
    if close:
        headers.setdefault("Connection", "close")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def read_all(sock: socket.socket, timeout: float = 60) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def status_of(reply: bytes) -> int:
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def chat_body(model: str, prompt: str, max_tokens: int, **extra) -> bytes:
    return json.dumps({"model": model, "messages": user(prompt), "max_tokens": max_tokens, "temperature": 0} | extra).encode()


def timed_chat(suite: Suite, prompt: str = "Name three colors.", max_tokens: int = 16) -> float:
    started = time.monotonic()
    response = suite.client().chat.completions.create(model=suite.args.model, messages=user(prompt),
                                                      max_tokens=max_tokens, temperature=0)
    expect(response.choices[0].finish_reason in ("stop", "length"), f"chat ended with {response.choices[0].finish_reason}")
    return time.monotonic() - started


def timed_get(suite: Suite, path: str) -> float:
    started = time.monotonic()
    with suite.http() as http:
        response = http.get(path)
    expect(response.status_code == 200, f"GET {path}: {response.status_code}")
    return time.monotonic() - started


def open_half_open(suite: Suite, count: int) -> list[socket.socket]:
    """`count` connections: two of three send nothing, one sends half a request head."""
    sockets = []
    for index in range(count):
        sock = connect(suite)
        if index % 3 == 0:
            sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host_header(suite)}\r\nContent-".encode())
        sockets.append(sock)
    return sockets


def closed_by_server(sockets: list[socket.socket]) -> int:
    closed = 0
    for sock in sockets:
        readable, _, _ = select.select([sock], [], [], 0)
        if readable:
            try:
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    closed += 1
            except OSError:
                closed += 1
    return closed


def resident_bytes(suite: Suite) -> float:
    return suite.metrics().get("process_resident_memory_bytes", 0.0)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def reference_chain(links: int) -> dict:
    """A $defs chain in which each definition refers to the next (the review's hostile schema)."""
    definitions = {f"d{index}": {"$ref": f"#/$defs/d{index + 1}"} for index in range(links)}
    definitions[f"d{links}"] = {"type": "string"}
    return {"$ref": "#/$defs/d0", "$defs": definitions}


WORDS = ("river stone lantern orchard meadow copper whistle harbor velvet candle thunder maple "
         "compass saffron glacier pepper violin marble falcon ember").split()


def long_text(words: int, seed: int) -> str:
    return " ".join(WORDS[(seed * 7 + index * 3) % len(WORDS)] for index in range(words))


# ---------------------------------------------------------------- checks

def check_halfopen(suite: Suite) -> dict:
    sockets = open_half_open(suite, 300)
    try:
        time.sleep(0.5)
        health = timed_get(suite, "/health")
        chat = timed_chat(suite)
        time.sleep(0.5)
        displaced = closed_by_server(sockets)
        note(f"halfopen: /health {health:.3f} s, chat {chat:.2f} s, {displaced} of 300 closed by the server")
        expect(displaced >= 300 - suite.args.per_client, f"only {displaced} of 300 connections were closed past the "
               f"per-client bound of {suite.args.per_client}")
        time.sleep(suite.args.header_timeout + 3)
        remaining = len(sockets) - closed_by_server(sockets)
        expect(remaining == 0, f"{remaining} silent connections were still open after the header timeout")
        health_after = timed_get(suite, "/health")
        return {"health_s": round(health, 3), "chat_s": round(chat, 2), "displaced": displaced,
                "health_after_s": round(health_after, 3)}
    finally:
        for sock in sockets:
            sock.close()


def check_framing(suite: Suite) -> dict:
    body = chat_body(suite.args.model, "Say hi.", 4)
    # Chunked: the body in three chunks, with an extension and a trailer.
    chunks = [body[:10], body[10:40], body[40:]]
    coded = b"".join(f"{len(part):x};ext=1\r\n".encode() + part + b"\r\n" for part in chunks) + b"0\r\nX-Trailer: 1\r\n\r\n"
    with connect(suite) as sock:
        sock.sendall(request_bytes(suite, "POST", "/v1/chat/completions", coded,
                                   {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
        chunked = status_of(read_all(sock))
    expect(chunked == 200, f"a chunked body got {chunked}")
    # Expect: 100-continue: the head alone first; the body only after the server invites it.
    with connect(suite) as sock:
        head = request_bytes(suite, "POST", "/v1/chat/completions", body,
                             {"Content-Type": "application/json", "Expect": "100-continue"})
        sock.sendall(head[:-len(body)])
        sock.settimeout(10)
        interim = sock.recv(4096)
        expect(interim.startswith(b"HTTP/1.1 100"), f"no 100 Continue before the body: {interim[:60]!r}")
        sock.sendall(body)
        final = read_all(sock)
    expect(status_of(final) == 200, f"the body after 100 Continue got {final[:60]!r}")
    expect(final.count(b"HTTP/1.1 100") == 0, "the server sent 100 Continue twice")
    # Two requests in one write on a kept-alive connection.
    with connect(suite) as sock:
        sock.sendall(request_bytes(suite, "GET", "/health", close=False) + request_bytes(suite, "GET", "/health"))
        replies = read_all(sock)
    expect(replies.count(b"HTTP/1.1 200") == 2, f"pipelined requests: {replies.count(b'HTTP/1.1 200')} answers")
    return {"chunked": chunked, "continue": status_of(final), "pipelined": 2}


def check_origin(suite: Suite) -> dict:
    outcomes = {}
    with suite.http(Host="evil.example") as http:
        outcomes["models_evil"] = http.get("/v1/models").status_code
        outcomes["health_evil"] = http.get("/health").status_code
        outcomes["ps_evil"] = http.get("/v1/ps").status_code
    expect(outcomes["models_evil"] == 403, f"Host evil.example on /v1/models: {outcomes['models_evil']}")
    expect(outcomes["ps_evil"] == 403, f"Host evil.example on /v1/ps: {outcomes['ps_evil']}")
    expect(outcomes["health_evil"] == 200, f"/health with another Host: {outcomes['health_evil']}")
    port = address(suite)[1]
    for name in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", f"10.0.0.7:{port}", "localhost"):
        with suite.http(Host=name) as http:
            status = http.get("/v1/models").status_code
        expect(status == 200, f"Host {name}: {status}")
    with suite.http() as http:
        plain = http.post("/v1/chat/completions", content=chat_body(suite.args.model, "Hi", 2),
                          headers={"Content-Type": "text/plain"})
        outcomes["text_plain"] = plain.status_code
        charset = http.post("/v1/chat/completions", content=chat_body(suite.args.model, "Hi", 2),
                            headers={"Content-Type": "application/json; charset=utf-8"})
        outcomes["json_charset"] = charset.status_code
        ps = http.get("/v1/ps")
    expect(outcomes["text_plain"] == 415, f"a text/plain POST: {outcomes['text_plain']}")
    expect(outcomes["json_charset"] == 200, f"application/json; charset=utf-8: {outcomes['json_charset']}")
    expect(ps.status_code == 200 and "/" not in json.dumps(ps.json()["models"]).replace("\\/", "/").replace(
        "application/", ""), f"/v1/ps shows a path: {ps.text[:200]}")
    if suite.args.api_key:
        with suite.http(Authorization=f"bearer {suite.args.api_key}") as http:
            outcomes["lowercase_bearer"] = http.get("/v1/models").status_code
        expect(outcomes["lowercase_bearer"] == 200, f"a lower-case bearer scheme: {outcomes['lowercase_bearer']}")
    return outcomes


def check_responsive(suite: Suite) -> dict:
    expect(suite.args.embed_model, "--embed-model is needed")
    results: list[object] = []

    def chat(index: int) -> None:
        try:
            results.append(timed_chat(suite, f"Count to {index + 3}.", 8))
        except Exception as error:  # reported below
            results.append(error)

    threads = [threading.Thread(target=chat, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    probes = {"health": [], "metrics": [], "embeddings": []}
    while any(thread.is_alive() for thread in threads):
        probes["health"].append(timed_get(suite, "/health"))
        probes["metrics"].append(timed_get(suite, "/metrics"))
        started = time.monotonic()
        vectors = suite.client().embeddings.create(model=suite.args.embed_model, input=["a short text"])
        expect(len(vectors.data) == 1, "no vector")
        probes["embeddings"].append(time.monotonic() - started)
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    failures = [result for result in results if isinstance(result, Exception)]
    expect(not failures, f"chat requests failed: {failures[:3]}")
    worst = {name: round(max(values), 3) if values else None for name, values in probes.items()}
    note(f"responsive: {len(probes['health'])} probe rounds, worst {worst}, chats {sorted(round(r, 1) for r in results)}")
    expect(probes["health"], "the chats ended before any probe")
    # Blocked behind the chats, a probe would wait about as long as a chat; a shared 2-core
    # machine adds jitter of a fraction of a second. So the typical probe must be quick and
    # none may wait anywhere near as long as the shortest chat took.
    shortest = min(results)
    for name, values in probes.items():
        typical = statistics.median(values)
        expect(typical < 1.0, f"{name} typically took {typical:.3f} s while 8 chats rendered")
        expect(max(values) < shortest / 3, f"{name} took {max(values):.3f} s once, near a whole chat's {shortest:.1f} s")
    return {"rounds": len(probes["health"]), "worst_s": worst}


def workload(suite: Suite, clients: int, requests: int) -> list[float]:
    """`requests` short chats from `clients` threads; their latencies (every one must complete)."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def client() -> None:
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            try:
                seconds = timed_chat(suite, f"Give one word that rhymes with {WORDS[index % len(WORDS)]}.", 12)
                with lock:
                    latencies.append(seconds)
            except Exception as error:  # counted below
                with lock:
                    failures.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expect(not failures, f"{len(failures)} chat requests failed: {failures[:3]}")
    return latencies


def check_abuse(suite: Suite) -> dict:
    expect(suite.args.embed_model, "--embed-model is needed (the chat model, for decoder embeddings)")
    texts = [long_text(suite.args.embed_words, seed) for seed in range(suite.args.embed_texts)]
    # Warm: the template workers, the generation context, and one request of each kind, so that
    # the buffers that stay (the embedding context's, the allocator's arenas) have their working
    # size; memory is measured from here, and must come back to it after the burst.
    timed_chat(suite)
    with suite.http() as http:
        http.post("/v1/embeddings", json={"model": suite.args.embed_model, "input": texts}, timeout=600)
    start_rss = resident_bytes(suite)
    alone = workload(suite, clients=3, requests=18)
    stop = threading.Event()
    counts = {"schema": {}, "embeddings": {}, "cross_site": {}}
    lock = threading.Lock()

    def count(kind: str, status: int) -> None:
        with lock:
            counts[kind][status] = counts[kind].get(status, 0) + 1

    schema_body = json.dumps({"model": suite.args.model, "messages": user("Hi"), "max_tokens": 4,
                              "response_format": {"type": "json_schema",
                                                  "json_schema": {"name": "x", "schema": reference_chain(10_000)}}})

    def schema_bursts() -> None:
        with suite.http() as http:
            while not stop.is_set():
                burst = [threading.Thread(target=lambda: count("schema", http.post(
                    "/v1/chat/completions", content=schema_body, headers={"Content-Type": "application/json"}).status_code))
                    for _ in range(4)]
                for thread in burst:
                    thread.start()
                for thread in burst:
                    thread.join()
                stop.wait(1.0)

    def embedding_bursts() -> None:
        with suite.http() as http:
            while not stop.is_set():
                response = http.post("/v1/embeddings", json={"model": suite.args.embed_model, "input": texts}, timeout=600)
                count("embeddings", response.status_code)
                stop.wait(0.5)

    def cross_site() -> None:
        with suite.http(Host="evil.example") as rebound, suite.http() as http:
            while not stop.is_set():
                count("cross_site", rebound.get("/v1/ps").status_code)
                count("cross_site", http.post("/v1/chat/completions", content=chat_body(suite.args.model, "Hi", 2),
                                              headers={"Content-Type": "text/plain"}).status_code)
                stop.wait(0.2)

    kinds = suite.args.attackers.split(",")
    targets = {"schema": [schema_bursts, schema_bursts], "embeddings": [embedding_bursts, embedding_bursts],
               "cross_site": [cross_site], "halfopen": []}
    attackers = [threading.Thread(target=target) for kind in kinds for target in targets[kind]]
    sockets = open_half_open(suite, 300) if "halfopen" in kinds else []
    for thread in attackers:
        thread.start()
    try:
        abused = workload(suite, clients=3, requests=18)
    finally:
        stop.set()
        for thread in attackers:
            thread.join()
        for sock in sockets:
            sock.close()
    time.sleep(3)
    end_rss = resident_bytes(suite)
    p95_alone, p95_abused = percentile(alone, 0.95), percentile(abused, 0.95)
    note(f"abuse: p95 alone {p95_alone:.2f} s, under abuse {p95_abused:.2f} s; RSS {start_rss / 2**20:.0f} -> "
         f"{end_rss / 2**20:.0f} MiB; attackers' answers {counts}")
    expect(set(counts["schema"]) <= {400}, f"hostile schemas were not all refused with 400: {counts['schema']}")
    expect(set(counts["cross_site"]) <= {403, 415}, f"cross-site requests got {counts['cross_site']}")
    expect(set(counts["embeddings"]) <= {200, 429}, f"embedding bursts got {counts['embeddings']}")
    if suite.args.latency_goal is not None:
        expect(p95_abused <= suite.args.latency_goal * p95_alone,
               f"p95 under abuse {p95_abused:.2f} s is more than {suite.args.latency_goal}x alone ({p95_alone:.2f} s)")
    expect(end_rss <= 1.10 * start_rss, f"resident memory {end_rss / 2**20:.0f} MiB is more than 10 % over its start "
           f"({start_rss / 2**20:.0f} MiB)")
    return {"p95_alone_s": round(p95_alone, 2), "p95_abused_s": round(p95_abused, 2),
            "latency_ratio": round(p95_abused / p95_alone, 2),
            "median_alone_s": round(statistics.median(alone), 2), "median_abused_s": round(statistics.median(abused), 2),
            "rss_start_mib": round(start_rss / 2**20), "rss_end_mib": round(end_rss / 2**20), "attackers": counts}


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--embed-model", help="model id for /v1/embeddings (responsive: any; abuse: the chat model)")
    parser.add_argument("--embed-texts", type=int, default=8, help="abuse: texts in each decoder-embedding burst")
    parser.add_argument("--embed-words", type=int, default=1_500, help="abuse: words in each of those texts")
    parser.add_argument("--per-client", type=int, default=256, help="the server's maximumConnectionsPerClient")
    parser.add_argument("--header-timeout", type=float, default=5, help="the server's headerTimeout, in seconds")
    parser.add_argument("--latency-goal", type=float,
                        help="abuse: fail when p95 under abuse exceeds this multiple of p95 alone")
    parser.add_argument("--attackers", default="schema,embeddings,halfopen,cross_site",
                        help="abuse: which attacks run beside the workload (for finding where time goes)")
    suite = Suite(parser.parse_args())
    suite.run("halfopen", check_halfopen)
    suite.run("framing", check_framing)
    suite.run("origin", check_origin)
    suite.run("responsive", check_responsive)
    suite.run("abuse", check_abuse)
    suite.finish()


if __name__ == "__main__":
    main()
