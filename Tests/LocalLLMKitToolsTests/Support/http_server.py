#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for load_webpage's tests, with faults on purpose.

Prints its port on the first line of stdout, then serves until killed.
Routes: /page, /redirect-file, /redirect-page, /big, /slow, /binary, /plain, /hits.
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
        elif self.path == "/hits":
            with lock:
                body = json.dumps(hits).encode()
            self.send(200, body, "application/json")
        else:
            self.send(404, b"not found", "text/plain")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
