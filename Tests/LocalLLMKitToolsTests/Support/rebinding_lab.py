#!/usr/bin/env python3
"""A DNS-rebinding lab for load_webpage's tests. Run it inside new network and mount
namespaces (we are root):

    unshare -n -m python3 rebinding_lab.py PROBE URL [PROBE ARGUMENTS...]

Inside, only loopback exists. `lo` gets an extra "public" address, 93.184.216.34, with an
HTTP server on port 80 (the public site); another HTTP server on 127.0.0.1:80 stands for
the user's private network and records every request it gets. /etc/resolv.conf is
bind-mounted (in this mount namespace only) to point at a tiny DNS server on 127.0.0.1:53
whose answers all have TTL 0:

    public.test   A 93.184.216.34, always
    rebind.test   A 93.184.216.34 to the first client socket that asks, A 127.0.0.1 to every later one
    rebind6.test  A 93.184.216.34 to the first client socket, then AAAA ::ffff:127.0.0.1 (no A)
    silent.test   never answered (the resolver waits 30 s per try)

Public routes: /page (a page), /to-rebind, /to-rebind6, /to-loopback, /to-mapped
(redirects to http://rebind.test/secret, http://rebind6.test/secret,
http://127.0.0.1/secret and http://[::ffff:127.0.0.1]/secret).

Runs PROBE URL ARGUMENTS (bounded to 60 s) and prints one JSON object: the probe's
output ("probe", parsed), its run time in seconds, the requests each server got and the
DNS answers given.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PUBLIC = "93.184.216.34"
lock = threading.Lock()
log = {"public_hits": [], "private_hits": [], "dns": []}


def setup_namespace():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", PUBLIC + "/32", "dev", "lo"], check=True)
    # A global IPv6 address, so that resolvers using AI_ADDRCONFIG still ask for AAAA.
    subprocess.run(["ip", "-6", "addr", "add", "2606:2800:220:1::1/128", "dev", "lo"], check=True)
    conf = tempfile.NamedTemporaryFile("w", suffix=".resolv.conf", delete=False)
    conf.write("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    conf.close()
    subprocess.run(["mount", "--bind", conf.name, "/etc/resolv.conf"], check=True)
    os.unlink(conf.name)   # the mount keeps the file alive for as long as the namespace lives


# --- DNS ---------------------------------------------------------------------------

A, AAAA = 1, 28
first_client = {}


def answers(name, qtype, client):
    """The records (type, rdata) for a question, or None for NXDOMAIN, or "drop"."""
    if name == "silent.test":
        return "drop"
    if name == "public.test":
        return [(A, socket.inet_aton(PUBLIC))] if qtype == A else []
    if name in ("rebind.test", "rebind6.test"):
        with lock:
            first = first_client.setdefault(name, client)
        if client == first:
            return [(A, socket.inet_aton(PUBLIC))] if qtype == A else []
        if name == "rebind.test":
            return [(A, socket.inet_aton("127.0.0.1"))] if qtype == A else []
        return [(AAAA, socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.1"))] if qtype == AAAA else []
    return None


def dns_reply(query, client):
    (ident, flags, qdcount) = struct.unpack("!HHH", query[:6])
    if qdcount != 1:
        return None
    labels, offset = [], 12
    while query[offset] != 0:
        length = query[offset]
        labels.append(query[offset + 1:offset + 1 + length].decode("ascii", "replace").lower())
        offset += 1 + length
    qtype, _ = struct.unpack("!HH", query[offset + 1:offset + 5])
    question = query[12:offset + 5]
    name = ".".join(labels)
    records = answers(name, qtype, client)
    if records == "drop":
        return None
    rcode = 3 if records is None else 0
    records = records or []
    with lock:
        log["dns"].append({"name": name, "type": qtype,
                           "answers": [socket.inet_ntop(socket.AF_INET if t == A else socket.AF_INET6, r) for t, r in records]})
    header = struct.pack("!HHHHHH", ident, 0x8180 | (flags & 0x0100) | rcode, 1, len(records), 0, 0)
    body = b"".join(struct.pack("!HHHIH", 0xC00C, t, 1, 0, len(r)) + r for t, r in records)   # TTL 0
    return header + question + body


def serve_dns():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 53))
    while True:
        query, client = sock.recvfrom(2048)
        try:
            reply = dns_reply(query, client)
        except (IndexError, struct.error):
            reply = None
        if reply:
            sock.sendto(reply, client)


# --- HTTP --------------------------------------------------------------------------

REDIRECTS = {"/to-rebind": "http://rebind.test/secret", "/to-rebind6": "http://rebind6.test/secret",
             "/to-loopback": "http://127.0.0.1/secret", "/to-mapped": "http://[::ffff:127.0.0.1]/secret"}


def handler(kind):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            with lock:
                log[kind + "_hits"].append(self.path)
            if kind == "private":
                self.reply(200, b"<html><head><title>Private</title></head><body>private secret</body></html>")
            elif self.path in REDIRECTS:
                self.reply(302, b"", [("Location", REDIRECTS[self.path])])
            elif self.path == "/page":
                self.reply(200, b"<html><head><title>Public</title></head><body>public page</body></html>")
            else:
                self.reply(404, b"not found")

        def reply(self, status, body, headers=()):
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
    return Handler


def serve_http(address, kind):
    server = ThreadingHTTPServer((address, 80), handler(kind))
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    probe, arguments = sys.argv[1], sys.argv[2:]
    setup_namespace()
    threading.Thread(target=serve_dns, daemon=True).start()
    serve_http(PUBLIC, "public")
    serve_http("127.0.0.1", "private")
    started = time.monotonic()
    try:
        run = subprocess.run([probe] + arguments, capture_output=True, text=True, timeout=60)
        output, status, errors = run.stdout, run.returncode, run.stderr
    except subprocess.TimeoutExpired as expired:
        output, status, errors = expired.stdout or "", "timeout", "the probe ran for 60 s"
    seconds = time.monotonic() - started
    try:
        probe_result = json.loads(output)
    except ValueError:
        probe_result = {"error": "unreadable probe output: " + str(output)[:2000], "kind": "probe"}
    with lock:
        print(json.dumps({"probe": probe_result, "probe_status": status, "probe_stderr": str(errors)[-2000:],
                          "seconds": seconds, **log}), flush=True)
    os._exit(0)


main()
