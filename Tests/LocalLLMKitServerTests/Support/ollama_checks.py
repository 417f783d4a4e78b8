#!/usr/bin/env python3
"""Checks of Ollama's native API on a server (`llmkit serve`) with Ollama's official Python
client (`ollama` from PyPI).

Checks (--only selects some):
  chat          a whole chat answer: content, done, done_reason and counts
  chat_stream   the same streamed as NDJSON: pieces, then a last line with done
  generate      /api/generate through the template and raw, whole and streamed
  format        format "json" and a JSON Schema give JSON that fits
  tools         a real tool round: a call with an arguments object, then an answer to its result
  embed         /api/embed (several inputs) and the older /api/embeddings
  models        /api/tags, /api/show, /api/ps and /api/version
  think         (--think: the server's template thinks) think true gives thinking apart, false none
  keep_alive    (--unloadable: the server loads on demand) an empty generate loads the model
                (done_reason load); keep_alive 0 unloads it (unload), and /api/ps no longer lists it
  errors        a bad option (400), a missing key (401, with --api-key), an unknown endpoint and
                an unknown model (404) as the client's ResponseError
  library       (--pull-folder: a folder of GGUF files and --pull-file, one of them; the server has a
                library) pull over HTTP from a server on 127.0.0.1 with streamed progress, chat with
                the model by the reference it was pulled from, copy it, list, delete (unloading it),
                and the errors of a bad reference, a failed download and an unknown model

Usage:
  ollama_checks.py --base-url http://127.0.0.1:PORT/v1 --model ID [--api-key KEY] [--think] [--unloadable]
                   [--pull-folder DIR --pull-file NAME] [--only ...]

Prints a JSON summary on its last line; exits 0 only when no check failed.
"""
import functools
import http.server
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import CACHE, Skipped, Suite, common_arguments, expect  # noqa: E402,F401

import httpx2  # noqa: E402
import ollama  # noqa: E402

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
GREEDY = {"temperature": 0, "num_predict": 24}


def client(suite: Suite) -> ollama.Client:
    headers = {"Authorization": f"Bearer {suite.args.api_key}"} if suite.args.api_key else {}
    return ollama.Client(host=suite.root_url, headers=headers, timeout=suite.args.timeout)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def check_chat(suite: Suite) -> dict:
    answer = client(suite).chat(model=suite.args.model, messages=ask("Name a color."), options=GREEDY)
    expect(answer.done and answer.done_reason in ("stop", "length"), f"{answer}")
    expect(answer.message.role == "assistant" and answer.message.content, f"{answer.message}")
    expect(answer.prompt_eval_count > 0 and 0 < answer.eval_count <= 24 and answer.total_duration > 0, f"{answer}")
    return {"content": answer.message.content}


def check_chat_stream(suite: Suite) -> dict:
    parts = list(client(suite).chat(model=suite.args.model, messages=ask("Count to five."), options=GREEDY, stream=True))
    expect(len(parts) >= 3 and parts[-1].done and not any(part.done for part in parts[:-1]), f"{len(parts)} lines")
    text = "".join(part.message.content for part in parts)
    whole = client(suite).chat(model=suite.args.model, messages=ask("Count to five."), options=GREEDY)
    expect(text == whole.message.content, f"streamed {text!r}, whole {whole.message.content!r}")
    return {"lines": len(parts), "text": text}


def check_generate(suite: Suite) -> dict:
    api = client(suite)
    templated = api.generate(model=suite.args.model, prompt="Name a color.", system="Be brief.", options=GREEDY)
    expect(templated.done and templated.response, f"{templated}")
    raw = api.generate(model=suite.args.model, prompt="The capital of France is", raw=True,
                       options={"temperature": 0, "num_predict": 4})
    expect(raw.done and "Paris" in raw.response, f"raw {raw.response!r}")
    streamed = "".join(part.response for part in api.generate(model=suite.args.model, prompt="The capital of France is",
                                                              raw=True, options={"temperature": 0, "num_predict": 4},
                                                              stream=True))
    expect(streamed == raw.response, f"streamed {streamed!r}, whole {raw.response!r}")
    return {"templated": templated.response, "raw": raw.response}


def check_format(suite: Suite) -> dict:
    api = client(suite)
    loose = api.chat(model=suite.args.model, messages=ask("Describe a cat in JSON."), format="json", options=GREEDY | {"num_predict": 64})
    expect(isinstance(json.loads(loose.message.content), dict), f"{loose.message.content!r}")
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "legs": {"type": "integer"}}, "required": ["name", "legs"]}
    typed = api.chat(model=suite.args.model, messages=ask("Describe a cat."), format=schema, options=GREEDY | {"num_predict": 64})
    value = json.loads(typed.message.content)
    expect(isinstance(value.get("name"), str) and isinstance(value.get("legs"), int), f"{value}")
    return {"json": loose.message.content, "schema": value}


def check_tools(suite: Suite) -> dict:
    api = client(suite)
    messages = ask("What is the weather in Paris? Use the tool.")
    first = api.chat(model=suite.args.model, messages=messages, tools=[WEATHER], options=GREEDY | {"num_predict": 128})
    calls = first.message.tool_calls or []
    expect(calls and calls[0].function.name == "get_weather", f"no call: {first.message}")
    arguments = calls[0].function.arguments
    expect(isinstance(arguments, dict) and isinstance(arguments.get("city"), str), f"arguments {arguments}")
    messages = messages + [first.message.model_dump(exclude_none=True),
                           {"role": "tool", "tool_name": "get_weather", "content": '{"temperature_c": 18, "condition": "sunny"}'}]
    final = api.chat(model=suite.args.model, messages=messages, tools=[WEATHER], options=GREEDY | {"num_predict": 64})
    expect(final.message.content.strip(), f"final {final.message}")
    return {"arguments": arguments, "answer": final.message.content}


def check_embed(suite: Suite) -> dict:
    api = client(suite)
    many = api.embed(model=suite.args.model, input=["a cat", "a dog"])
    expect(len(many.embeddings) == 2 and len(many.embeddings[0]) == len(many.embeddings[1]) > 0, f"{len(many.embeddings)}")
    one = api.embeddings(model=suite.args.model, prompt="a cat")
    expect(len(one.embedding) == len(many.embeddings[0]), "the older endpoint's vector has another length")
    difference = max(abs(x - y) for x, y in zip(one.embedding, many.embeddings[0]))
    expect(difference < 1e-3, f"the same text embeds {difference} apart")
    return {"dimensions": len(one.embedding)}


def check_models(suite: Suite) -> dict:
    api = client(suite)
    listed = api.list().models
    expect([model.model for model in listed] == [suite.args.model], f"{listed}")
    expect(listed[0].details.format == "gguf" and listed[0].size > 0, f"{listed[0]}")
    shown = api.show(suite.args.model)
    expect(shown.details.family and "completion" in (shown.capabilities or []), f"{shown}")
    expect(shown.modelinfo.get("general.architecture") == shown.details.family, f"{shown.modelinfo}")
    running = api.ps().models
    expect(any(model.model == suite.args.model for model in running), f"ps {running}")
    with httpx2.Client(base_url=suite.root_url, timeout=suite.args.timeout) as http:
        version = http.get("/api/version", headers=client(suite)._client.headers).json()
    expect(isinstance(version.get("version"), str), f"{version}")
    return {"family": shown.details.family, "version": version["version"]}


def check_think(suite: Suite) -> dict:
    if not suite.args.think:
        raise Skipped("needs --think (a server whose template thinks)")
    api = client(suite)
    thought = api.chat(model=suite.args.model, messages=ask("Hi"), think=True, options={"temperature": 0, "num_predict": 48})
    expect(thought.message.thinking and "</think>" not in thought.message.content, f"{thought.message}")
    plain = api.chat(model=suite.args.model, messages=ask("Hi"), think=False, options={"temperature": 0, "num_predict": 16})
    expect(not plain.message.thinking, f"thinking without asking: {plain.message}")
    return {"thinking": thought.message.thinking}


def check_keep_alive(suite: Suite) -> dict:
    if not suite.args.unloadable:
        raise Skipped("needs --unloadable (a server that loads models on demand)")
    api = client(suite)
    loaded = api.generate(model=suite.args.model, prompt="")
    expect(loaded.done and loaded.done_reason == "load", f"{loaded}")
    expect([model.model for model in api.ps().models] == [suite.args.model], "not loaded after the empty generate")
    unloaded = api.generate(model=suite.args.model, prompt="", keep_alive=0)
    expect(unloaded.done_reason == "unload", f"{unloaded}")
    expect(not api.ps().models, f"still loaded: {api.ps().models}")
    return {"load": loaded.done_reason, "unload": unloaded.done_reason}


def check_errors(suite: Suite) -> dict:
    detail = {}
    try:
        client(suite).chat(model=suite.args.model, messages=ask("Hi"), options={"top_k": -1})
        expect(False, "top_k -1 was accepted")
    except ollama.ResponseError as error:
        expect(error.status_code == 400 and "options.top_k" in error.error, f"{error.status_code} {error.error}")
        detail["400"] = error.error
    try:
        client(suite)._request_raw("POST", "/api/nowhere", json={})
        expect(False, "an unknown endpoint answered")
    except ollama.ResponseError as error:
        expect(error.status_code == 404, f"{error.status_code} {error.error}")
        detail["404"] = error.error
    detail["404_model"] = expect_error(lambda: client(suite).chat(model="no-such-model", messages=ask("Hi")), 404)
    if suite.args.api_key:
        anonymous = ollama.Client(host=suite.root_url, timeout=suite.args.timeout)
        detail["401"] = expect_error(lambda: anonymous.chat(model=suite.args.model, messages=ask("Hi")), 401)
    return detail


def file_server(folder: str) -> http.server.ThreadingHTTPServer:
    """A plain HTTP file server of `folder` on 127.0.0.1, in a thread of its own."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def expect_error(action, status: int) -> str:
    try:
        action()
    except ollama.ResponseError as error:
        expect(error.status_code == status, f"status {error.status_code} ({error.error}), expected {status}")
        return error.error
    raise AssertionError(f"no error; expected {status}")


def check_library(suite: Suite) -> dict:
    if not suite.args.pull_folder:
        raise Skipped("needs --pull-folder and --pull-file (and a server with a library)")
    files = file_server(suite.args.pull_folder)
    try:
        url = f"http://127.0.0.1:{files.server_address[1]}/{suite.args.pull_file}"
        api = client(suite)
        progress = list(api.pull(url, stream=True))
        statuses = [part.status for part in progress]
        expect(statuses[0] == "pulling manifest" and statuses[-1] == "success", f"{statuses}")
        sizes = [(part.completed, part.total) for part in progress if part.total]
        expect(sizes and sizes[-1][0] == sizes[-1][1] == os.path.getsize(os.path.join(suite.args.pull_folder, suite.args.pull_file)),
               f"progress {sizes}")
        expect("verifying sha256 digest" in statuses, f"{statuses}")
        answer = api.chat(model=url, messages=ask("Name a color."), options=GREEDY)
        expect(answer.done and answer.message.content, f"{answer}")
        expect(any(model.model == answer.model for model in api.ps().models), f"ps {api.ps().models}")
        again = api.pull(url)
        expect(again.status == "success", f"second pull {again}")
        expect(api.copy(url, "copied-model").status == "success", "copy")
        names = [model.model for model in api.list().models]
        expect("copied-model" in names and answer.model in names, f"tags {names}")
        copied = api.chat(model="copied-model:latest", messages=ask("Name a color."), options=GREEDY)
        expect(copied.message.content == answer.message.content, f"{copied.message.content!r} != {answer.message.content!r}")
        expect(api.delete("copied-model").status == "success", "delete the copy")
        missing = expect_error(lambda: api.show("copied-model"), 404)
        expect(api.delete(url).status == "success", "delete the pulled model")
        expect(not any(model.model == answer.model for model in api.ps().models), "still loaded after its deletion")
        names = [model.model for model in api.list().models]
        expect(answer.model not in names and "copied-model" not in names, f"tags after deleting {names}")
        errors = {
            "unknown_delete": expect_error(lambda: api.delete("no-such-model"), 404),
            "bad_reference": expect_error(lambda: api.pull("ftp://example.com/model.gguf"), 400),
            "failed_download": expect_error(lambda: api.pull(url + ".missing"), 500),
            # A streamed pull has sent its status already: the error comes as a line, which the
            # client raises without a status code.
            "failed_stream": expect_error(lambda: list(api.pull(url + ".missing", stream=True)), -1),
            "copy_unknown": expect_error(lambda: api.copy("no-such-model", "other"), 404),
            "show_deleted": missing,
        }
        return {"served_as": answer.model, "lines": len(progress), "errors": errors}
    finally:
        files.shutdown()


CHECKS = [("chat", check_chat), ("chat_stream", check_chat_stream), ("generate", check_generate), ("format", check_format),
          ("tools", check_tools), ("embed", check_embed), ("models", check_models), ("think", check_think),
          ("keep_alive", check_keep_alive), ("errors", check_errors), ("library", check_library)]


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--think", action="store_true", help="the server's template thinks")
    parser.add_argument("--unloadable", action="store_true", help="the server loads its model on demand")
    parser.add_argument("--pull-folder", help="a folder of GGUF files to pull from, over HTTP on 127.0.0.1")
    parser.add_argument("--pull-file", help="the file of --pull-folder to pull")
    suite = Suite(parser.parse_args())
    for name, check in CHECKS:
        suite.run(name, check)
    suite.finish(ollama_version=getattr(ollama, "__version__", "0.6.3"))


if __name__ == "__main__":
    main()
