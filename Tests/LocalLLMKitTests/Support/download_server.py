#!/usr/bin/env python3
"""An HTTP server on 127.0.0.1 for the model library's download tests, with faults on purpose.

Usage: download_server.py FOLDER. Prints its port on the first line of stdout, then serves
the files of FOLDER until killed. Every request is logged (path and Range header); GET /log
returns the log as JSON and clears it.

Routes (NAME is a file of FOLDER):
  /files/NAME          the file, honouring Range (206 with Content-Range)
  /drop/N/NAME         without Range: announces the whole file, sends N bytes, closes; with Range: like /files
  /norange/NAME        ignores Range: always 200 and the whole file
  /missing/NAME        404
  /short/NAME          announces 1000 bytes more than it sends, then closes (with or without Range)
  /slow/NAME           like /files, 64 KiB every 20 ms
  /garbage/N           200 with N bytes that are not a GGUF file
"""
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FOLDER = sys.argv[1]
log = []
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def file(self, name):
        path = os.path.join(FOLDER, os.path.basename(name))
        if not os.path.isfile(path):
            self.send_error(404)
            return None
        return path

    def requested_start(self):
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
        return int(match.group(1)) if match else None

    def serve(self, path, start, announced_extra=0, limit=None, delay=0.0):
        size = os.path.getsize(path)
        if start is not None and start >= size + announced_extra:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        total = size + announced_extra
        if start is None:
            self.send_response(200)
            self.send_header("Content-Length", str(total))
            start = 0
        else:
            self.send_response(206)
            self.send_header("Content-Length", str(total - start))
            self.send_header("Content-Range", f"bytes {start}-{total - 1}/{total}")
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        remaining = (size - start) if limit is None else min(limit, size - start)
        with open(path, "rb") as handle:
            handle.seek(start)
            while remaining > 0:
                chunk = handle.read(min(65536, remaining))
                if not chunk:
                    break
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return
                remaining -= len(chunk)
                if delay:
                    time.sleep(delay)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
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
        with lock:
            log.append({"path": self.path, "range": self.headers.get("Range")})
        parts = self.path.strip("/").split("/")
        route = parts[0]
        start = self.requested_start()
        if route == "files" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start)
        elif route == "drop" and len(parts) == 3:
            if path := self.file(parts[2]):
                self.serve(path, start, limit=int(parts[1]) if start is None else None)
        elif route == "norange" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, None)
        elif route == "short" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, announced_extra=1000)
        elif route == "slow" and len(parts) == 2:
            if path := self.file(parts[1]):
                self.serve(path, start, delay=0.02)
        elif route == "garbage" and len(parts) == 2:
            body = bytes((index * 7 + 3) % 251 for index in range(int(parts[1])))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_error(404)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
