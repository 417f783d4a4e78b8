#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for load_webpage's tests, with faults on purpose.

Prints its port on the first line of stdout, then serves until killed; with
`--tls CERTIFICATE KEY`, serves HTTPS.
Routes: /page, /redirect-file, /redirect-page, /big, /slow, /binary, /plain, /hits,
/trickle (a body of 480 bytes at 8 bytes a second: 60 s), /trickle-headers (headers at
one byte every 0.25 s, without end), /chain/N (waits 1 s, then redirects to /chain/N+1,
up to 60), /loop (redirects to itself).
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"""<!DOCTYPE html><html><head><title>Garden Notes</title>
<style>body { color: red; }</style><script>var secret = "do not show";</script></head>
<body><h1>Tomatoes</h1><p>Plant them in <b>full sun</b> &amp; water often.</p>
<ul><li>Basil grows well beside them.</li><li>Stake them early</ul><p>Last paragraph</body></html>"""

hits = []
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="text/html; charset=utf-8", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/hits":
            with lock:
                hits.append(self.path)
        if self.path == "/page":
            self.send(200, PAGE)
        elif self.path == "/plain":
            self.send(200, b"just text", "text/plain")
        elif self.path == "/redirect-file":
            self.send(302, b"", headers=[("Location", "file:///etc/passwd")])
        elif self.path == "/redirect-page":
            self.send(302, b"", headers=[("Location", "/page")])
        elif self.path == "/big":
            self.send(200, b"<html><body><p>" + b"word " * 1_000_000 + b"</p></body></html>")
        elif self.path == "/slow":
            time.sleep(4)
            self.send(200, PAGE)
        elif self.path == "/binary":
            self.send(200, bytes(range(256)) * 64, "image/png")
        elif self.path == "/loop":
            self.send(302, b"", headers=[("Location", "/loop")])
        elif self.path == "/trickle":
            self.trickle_body()
        elif self.path == "/trickle-headers":
            self.trickle_headers()
        elif self.path.startswith("/chain/"):
            step = int(self.path[len("/chain/"):])
            time.sleep(1)
            if step < 60:
                self.send(302, b"", headers=[("Location", "/chain/%d" % (step + 1))])
            else:
                self.send(200, PAGE)
        elif self.path == "/hits":
            with lock:
                body = json.dumps(hits).encode()
            self.send(200, body, "application/json")
        else:
            self.send(404, b"not found", "text/plain")


    def trickle_body(self):
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "480")
            self.end_headers()
            self.wfile.flush()
            for _ in range(60):
                self.wfile.write(b"12345678")
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            pass   # the client gave up, as it should

    def trickle_headers(self):
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            while True:
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(0.25)
        except OSError:
            pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if len(sys.argv) == 4 and sys.argv[1] == "--tls":
    # HTTPS with the certificate and key given (a self-signed one, in the tests).
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
