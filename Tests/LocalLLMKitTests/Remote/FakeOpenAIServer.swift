import Foundation
import LocalLLMKit

/// A small OpenAI-compatible HTTP server on 127.0.0.1 (Python's http.server, a real socket)
/// with canned answers and faults on purpose, for as long as the value lives. The first path
/// segment picks the behaviour: `RemoteModel(baseURL: server.url("flaky"), …)` talks to
/// `/flaky/v1/chat/completions`. Every request is logged; `log()` returns the log.
final class FakeOpenAIServer {
    /// One request the server received, or a `disconnected` note when a client went away mid-stream.
    struct Entry: Decodable {
        var event: String
        var path: String
        var authorization: String?
        var body: String?

        /// The request's JSON body.
        func json() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data((body ?? "").utf8)) as? [String: Any] ?? [:]
        }
    }

    private let process: Process
    private let folder: TemporaryDirectory
    let port: Int

    init() throws {
        folder = try TemporaryDirectory()
        let script = folder.file("fake_openai_server.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        (process, port) = try PythonServer.start(script)
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }

    /// The base URL of a behaviour, e.g. `http://127.0.0.1:PORT/flaky/v1`.
    func url(_ mode: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(mode)/v1")! }

    /// A remote model on a behaviour.
    func model(_ mode: String, apiKey: String? = nil, configuration: RemoteModel.Configuration = .init()) throws -> RemoteModel {
        try RemoteModel(baseURL: url(mode), model: "fake", apiKey: apiKey, configuration: configuration)
    }

    /// Everything logged so far for `mode`, in order.
    func log(_ mode: String) throws -> [Entry] {
        let data = try Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/log")!)
        return try JSONDecoder().decode([Entry].self, from: data).filter { $0.path.hasPrefix("/\(mode)/") }
    }

    /// Waits until the server noticed that the client of a `mode` stream went away (at most 30 s).
    func waitForDisconnect(_ mode: String) async throws -> Bool {
        for _ in 0..<300 {
            if try log(mode).contains(where: { $0.event == "disconnected" }) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    static let script = #"""
    import json
    import sys
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    log = []
    counts = {}
    lock = threading.Lock()


    def chunk(delta=None, finish=None, **extra):
        body = {"object": "chat.completion.chunk", "model": "fake",
                "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
        body.update(extra)
        return body


    USAGE = {"object": "chat.completion.chunk", "choices": [],
             "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13,
                       "prompt_tokens_details": {"cached_tokens": 4}}}
    HELLO = [chunk({"role": "assistant", "content": None}), chunk({"content": "Hello"}), chunk({"content": " world"}),
             chunk(finish="stop"), USAGE]


    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def note(self, event, body=None):
            with lock:
                log.append({"event": event, "path": self.path, "authorization": self.headers.get("Authorization"),
                            "body": body})

        def send_json(self, status, body, headers=()):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def start_stream(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

        def event(self, body):
            text = body if isinstance(body, str) else json.dumps(body)
            self.wfile.write(("data: " + text + "\r\n\r\n").encode())
            self.wfile.flush()

        def stream(self, chunks, done=True):
            self.start_stream()
            self.wfile.write(b": keep-alive\n\n")
            for body in chunks:
                self.event(body)
            if done:
                self.event("[DONE]")

        def do_GET(self):
            if self.path == "/log":
                with lock:
                    self.send_json(200, log)
                return
            self.note("request")
            if self.path.endswith("/v1/models"):
                self.send_json(200, {"object": "list", "data": [{"id": "qwen", "object": "model"},
                                                                {"id": "other", "object": "model"}]})
            else:
                self.send_json(404, {"error": {"message": "no route " + self.path, "type": "not_found_error"}})

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            self.note("request", body)
            mode = self.path.split("/")[1]
            with lock:
                counts[mode] = counts.get(mode, 0) + 1
                count = counts[mode]
            try:
                self.answer(mode, count, json.loads(body))
            except (BrokenPipeError, ConnectionResetError):
                self.note("disconnected")

        def answer(self, mode, count, request):
            if mode == "ok":
                self.stream(HELLO)
            elif mode == "flaky":
                if count == 1:
                    self.send_json(503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}},
                                   [("Retry-After", "1")])
                else:
                    self.stream(HELLO)
            elif mode == "ratelimit":
                self.send_json(429, {"error": {"message": "slow down", "type": "rate_limit_error"}}, [("Retry-After", "1")])
            elif mode == "badrequest":
                self.send_json(400, {"error": {"message": "'messages' is required", "type": "invalid_request_error",
                                               "param": None, "code": None}})
            elif mode == "unauthorized":
                if self.headers.get("Authorization") == "Bearer right-key":
                    self.stream(HELLO)
                else:
                    self.send_json(401, {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}})
            elif mode == "silent":
                time.sleep(120)
            elif mode == "stall":
                self.start_stream()
                self.event(chunk({"content": "Hel"}))
                time.sleep(120)
            elif mode == "trickle":
                self.start_stream()
                self.event(chunk({"role": "assistant", "content": None}))
                for _ in range(3000):
                    self.event(chunk({"content": "."}))
                    time.sleep(0.05)
            elif mode == "midstream":
                self.stream([chunk({"content": "Hel"}),
                             {"error": {"code": 500, "message": "the slot was lost", "type": "server_error"}}], done=False)
            elif mode == "garbage":
                self.stream(["{not json"], done=False)
            elif mode == "huge":
                self.stream([chunk({"content": "x" * (2 << 20)})])
            elif mode == "truncated":
                self.stream([chunk({"content": "Hel"})], done=False)
            elif mode == "json":
                self.send_json(200, {"object": "chat.completion", "model": "fake",
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": "Hello world"}}],
                                     "usage": {"prompt_tokens": 11, "completion_tokens": 2}})
            elif mode == "thinking":
                self.stream([chunk({"reasoning_content": "Paris is "}), chunk({"reasoning_content": "the capital."}),
                             chunk({"content": "Paris."}), chunk(finish="stop"), USAGE])
            elif mode == "stop":
                self.stream([chunk({"content": "one two"}),
                             {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "stop_reason": "END"}]}, USAGE])
            elif mode == "length":
                self.stream([chunk({"content": "one two"}), chunk(finish="length"), USAGE])
            elif mode == "tools":
                if request["messages"][-1]["role"] != "tool":
                    self.stream([
                        chunk({"role": "assistant", "content": None}),
                        chunk({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
                                               "function": {"name": "get_weather", "arguments": ""}}]}),
                        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": "}}]}),
                        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}),
                        chunk(finish="tool_calls"), USAGE])
                else:
                    self.stream([chunk({"content": "It is " + json.loads(request["messages"][-1]["content"])["sky"] + "."}),
                                 chunk(finish="stop"), USAGE])
            else:
                self.send_json(404, {"error": {"message": "no mode " + mode, "type": "not_found_error"}})


    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """#
}
