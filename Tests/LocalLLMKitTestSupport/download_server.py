#!/usr/bin/env python3
"""An HTTP server on 127.0.0.1 for the model library's download tests, with faults on purpose.

Usage: download_server.py FOLDER [HOST]. Listens on HOST (default 127.0.0.1; another loopback
address such as 127.0.0.2 makes a second host for redirect tests), prints its port on the first
line of stdout, then serves the files of FOLDER until killed. Every request is logged (path,
Range, If-Range, Authorization, the status sent and the time); GET /log returns the log as JSON
and clears it.

Files are served with an ETag (from their content, so a changed file gets a new one) and a
Last-Modified date, and Range requests are honoured unless the If-Range validator names
another version (then the whole current file is sent with 200), as RFC 9110 says.

Routes (NAME, A and B are files of FOLDER):
  /files/NAME          the file
  /drop/N/NAME         without Range: announces the whole file, sends N bytes, closes; with Range: like /files
  /norange/NAME        ignores Range: always 200 and the whole file
  /ignoreifrange/NAME  honours Range but ignores If-Range (a server that can mix versions)
  /lastmod/NAME        like /files, with Last-Modified but no ETag
  /novalidator/NAME    like /files, with neither ETag nor Last-Modified
  /chunked/NAME        200, chunked, no Content-Length, no validators
  /swap/N/A/B          first request: A, dropped after N bytes; later ones: B (If-Range honoured)
  /swapignoring/N/A/B  the same, but later ones ignore If-Range
  /status/CODE/N/NAME  the first N requests of this path get HTTP CODE, later ones the file
  /missing/NAME        404
  /short/NAME          announces 1000 bytes more than it sends, then closes (with or without Range)
  /slow/NAME           like /files, 64 KiB every 20 ms
  /hold/N/NAME         like /files, but pauses after N body bytes until /control/release (at most 120 s)
  /garbage/N           200 with N bytes that are not a GGUF file
  /hf/ORG/REPO/resolve/main/NAME  like /files/NAME: Hugging Face's layout (HF_ENDPOINT=http://HOST:PORT/hf)
  /auth/ROUTE...       401 unless the request has HTTP Basic authentication with the user name and
                       password set by /control/auth; then like /ROUTE...
  /redirect/CODE/NAME?to=LOCATION  HTTP CODE (301, 302, 303, 307, 308) with Location: LOCATION as given
                       (absolute, scheme-relative //host/path, or a path); NAME is not used
Control (not logged):
  /control/drop/N      from now on every response of /files, /lastmod and /slow ends after N body bytes (0: never)
  /control/release     lets /hold responses go on
  /control/auth/USER/PASSWORD  the credentials that /auth/ routes require
"""
import base64
import email.utils
import hashlib
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

FOLDER = sys.argv[1]
HOST = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
credentials = [None]
log = []
counters = {}
drop_after = [0]
released = threading.Event()
etags = {}
lock = threading.Lock()


def entity_tag(path):
    """A strong ETag from the file's content (cached by size and modification time)."""
    info = os.stat(path)
    key = (path, info.st_size, info.st_mtime_ns)
    with lock:
        if key in etags:
            return etags[key]
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    tag = '"' + digest.hexdigest()[:20] + '"'
    with lock:
        etags[key] = tag
    return tag


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, status):
        with lock:
            log.append({"path": self.path, "range": self.headers.get("Range"),
                        "if_range": self.headers.get("If-Range"), "authorization": self.headers.get("Authorization"),
                        "status": status, "time": time.time()})

    def file(self, name):
        path = os.path.join(FOLDER, os.path.basename(name))
        if not os.path.isfile(path):
            self.record(404)
            self.send_error(404)
            return None
        return path

    def requested_start(self):
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
        return int(match.group(1)) if match else None

    def serve(self, path, start, announced_extra=0, limit=None, delay=0.0, validators="both",
              honour_if_range=True, chunked=False, pause_at=None):
        size = os.path.getsize(path)
        tag = entity_tag(path) if validators == "both" else None
        modified = email.utils.formatdate(os.path.getmtime(path), usegmt=True) if validators in ("both", "lastmod") else None
        condition = self.headers.get("If-Range")
        if start is not None and condition is not None and honour_if_range and condition not in (tag, modified):
            start = None                      # another version: the whole current file
        if start is not None and start >= size + announced_extra:
            self.record(416)
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        total = size + announced_extra
        if start is None:
            self.record(200)
            self.send_response(200)
            if not chunked:
                self.send_header("Content-Length", str(total))
            start = 0
        else:
            self.record(206)
            self.send_response(206)
            self.send_header("Content-Length", str(total - start))
            self.send_header("Content-Range", f"bytes {start}-{total - 1}/{total}")
        if tag:
            self.send_header("ETag", tag)
        if modified:
            self.send_header("Last-Modified", modified)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        remaining = (size - start) if limit is None else min(limit, size - start)
        with open(path, "rb") as handle:
            handle.seek(start)
            while remaining > 0:
                chunk = handle.read(min(65536, remaining))
                if not chunk:
                    break
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return
                remaining -= len(chunk)
                if delay:
                    time.sleep(delay)
                if pause_at is not None and handle.tell() - start >= pause_at:
                    pause_at = None
                    self.wfile.flush()
                    released.wait(120)
        if chunked and limit is None:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        self.close_connection = True
        if self.path == "/log":
            with lock:
                body = json.dumps(log).encode()
                log.clear()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        address = urlsplit(self.path)
        parts = address.path.strip("/").split("/")
        route = parts[0]
        if route == "control" and (parts[1:2] == ["release"] or len(parts) == 3 and parts[1] == "drop"
                                   or len(parts) == 4 and parts[1] == "auth"):
            if parts[1] == "release":
                released.set()
            elif parts[1] == "auth":
                credentials[0] = "Basic " + base64.b64encode(f"{unquote(parts[2])}:{unquote(parts[3])}".encode()).decode()
            else:
                drop_after[0] = int(parts[2])
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if route == "auth":
            if credentials[0] is None or self.headers.get("Authorization") != credentials[0]:
                self.record(401)
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="models"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            parts = parts[1:]
            route = parts[0] if parts else ""
        if route == "redirect" and len(parts) == 3:
            self.record(int(parts[1]))
            self.send_response(int(parts[1]))
            self.send_header("Location", parse_qs(address.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start = self.requested_start()
        dropped = drop_after[0] or None
        if route == "hf" and len(parts) == 6 and parts[3:5] == ["resolve", "main"]:
            route, parts = "files", ["files", parts[5]]        # Hugging Face's layout, for HF_ENDPOINT
        if route == "files" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, limit=dropped)
        elif route == "drop" and len(parts) == 3:
            if path := self.file(parts[2]):
                self.serve(path, start, limit=int(parts[1]) if start is None else None)
        elif route == "norange" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, None)
        elif route == "ignoreifrange" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, honour_if_range=False)
        elif route == "lastmod" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, limit=dropped, validators="lastmod")
        elif route == "novalidator" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, validators="none")
        elif route == "chunked" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, None, validators="none", chunked=True)
        elif route in ("swap", "swapignoring") and len(parts) == 4:
            with lock:
                seen = counters.get(self.path, 0)
                counters[self.path] = seen + 1
            if path := self.file(parts[2] if seen == 0 else parts[3]):
                if seen == 0:
                    self.serve(path, None, limit=int(parts[1]))
                else:
                    self.serve(path, start, honour_if_range=route == "swap")
        elif route == "status" and len(parts) == 4:
            with lock:
                seen = counters.get(self.path, 0)
                counters[self.path] = seen + 1
            if seen < int(parts[2]):
                self.record(int(parts[1]))
                self.send_error(int(parts[1]))
            elif path := self.file(parts[3]):
                self.serve(path, start)
        elif route == "short" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, announced_extra=1000)
        elif route == "slow" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, limit=dropped, delay=0.02)
        elif route == "hold" and len(parts) == 3:
            if path := self.file(parts[2]):
                self.serve(path, start, pause_at=int(parts[1]))
        elif route == "garbage" and len(parts) == 2:
            body = bytes((index * 7 + 3) % 251 for index in range(int(parts[1])))
            self.record(200)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.record(404)
            self.send_error(404)


server = ThreadingHTTPServer((HOST, 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
