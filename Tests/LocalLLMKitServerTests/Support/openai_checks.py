#!/usr/bin/env python3
"""Functional checks of an OpenAI-compatible server (`llmkit serve` or llama.cpp's
llama-server) with the official `openai` Python client.

Usage:
  openai_checks.py --base-url http://127.0.0.1:PORT/v1 --model ID [--api-key KEY]
                   [--server llmkit|llama] [--only NAME,NAME] [--timeout S]
                   [--max-body BYTES] [--expect-429 --parallel N --queue Q]

Checks (run in this order; --only selects some):
  chat            non-streaming chat: content, finish_reason, usage
  chat_stream     streaming chat with include_usage: deltas, one finish_reason, usage chunk last
  tools           a get_weather tool round (call, tool result, final text answer)
  tools_stream    the same round, streamed, tool-call deltas assembled
  json_schema     response_format json_schema (strict), validated with jsonschema
  json_object     response_format json_object parses as an object
  models          GET /v1/models lists --model
  completions     legacy /v1/completions returns text
  seed            same seed at temperature 0.8 gives the same text twice
  stop            stop=["\\n"] leaves no newline in the content
  max_tokens      max_tokens=5 stops with finish_reason "length"
  auth            (needs --api-key) wrong or missing key: 401; /health needs no key
  unknown_model   (llmkit) unknown model: 404
  bad_params      (llmkit) temperature=-3 and n=2: 400
  http_errors     (llmkit) unknown path: 404, wrong method: 405, both with OpenAI's error shape
  oversize        (needs --max-body, the limit the server was started with) larger body: 413
  rate_limit      (needs --expect-429, --parallel, --queue; llmkit) a burst beyond
                  parallel + queue gets 429 with Retry-After, the others complete

Prints a JSON summary on stdout (passed, failed and skipped: lists of names; reasons: why each
failed or skipped one did; details) and notes on stderr; exits 0 only when no check failed.
load_test.py and fault_test.py import the harness (Suite, expect, common_arguments, ...) from here.
"""
import argparse
import json
import os
import sys
import threading
import time
import traceback
from typing import Callable, NoReturn

CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
sys.path.insert(0, os.path.join(CACHE, "python"))

import httpx2  # noqa: E402  (the HTTP client openai 3 is built on, installed with it)
import jsonschema  # noqa: E402
import openai  # noqa: E402


# ---------------------------------------------------------------- harness

class CheckFailed(Exception):
    """A check's expectation did not hold."""


class Skipped(Exception):
    """A check does not apply to this server or to these flags."""


def expect(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def common_arguments(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1", help="the server's /v1 URL")
    parser.add_argument("--model", required=True, help="model id to request")
    parser.add_argument("--api-key", help="bearer key the server was started with")
    parser.add_argument("--server", choices=["llmkit", "llama"], default="llmkit",
                        help="which server this is; llama skips checks of behaviour llama-server lacks")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per request")
    parser.add_argument("--only", help="comma-separated names of the checks to run")
    return parser


def error_shape_problem(response: httpx2.Response, strict: bool) -> str | None:
    """None when the body is OpenAI's {"error": {"message", "type", "param", "code"}}; else why not.
    Without strict, only message and type are required (llama-server omits param)."""
    try:
        body = response.json()
    except ValueError:
        return f"body is not JSON: {response.text[:120]!r}"
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return f"no error object: {str(body)[:120]}"
    if not isinstance(error.get("message"), str) or not isinstance(error.get("type"), str):
        return f"error.message or error.type is not a string: {error}"
    if strict and not {"param", "code"} <= error.keys():
        return f"error lacks param or code: {error}"
    return None


class Suite:
    """Runs named checks, records passed / failed / skipped with details, prints the summary."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.llmkit = args.server == "llmkit"
        self.root_url = args.base_url.rstrip("/").removesuffix("/v1")
        self.only = set(args.only.split(",")) if args.only else None
        self.passed: list[str] = []
        self.failed: dict[str, str] = {}
        self.skipped: dict[str, str] = {}
        self.details: dict[str, object] = {}

    def client(self, **overrides) -> openai.OpenAI:
        options = {"base_url": self.args.base_url, "api_key": self.args.api_key or "no-key",
                   "max_retries": 0, "timeout": self.args.timeout} | overrides
        return openai.OpenAI(**options)

    def http(self, **headers: str) -> httpx2.Client:
        """A raw client for the server's root URL, with the bearer key when one was given."""
        if self.args.api_key:
            headers = {"Authorization": f"Bearer {self.args.api_key}"} | headers
        return httpx2.Client(base_url=self.root_url, headers=headers, timeout=self.args.timeout)

    def metrics(self) -> dict[str, float]:
        """GET /metrics as {name: value}, the samples of a name summed over their labels."""
        with self.http() as http:
            response = http.get("/metrics")
        response.raise_for_status()
        values = {}
        for line in response.text.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            if "{" in line:  # name{labels} value [timestamp]
                name, value = line[:line.index("{")], line[line.rindex("}") + 1:].split()[0]
            else:            # name value [timestamp]
                name, value = line.split()[:2]
            values[name] = values.get(name, 0.0) + float(value)
        return values

    def run(self, name: str, check: Callable[["Suite"], object]) -> None:
        if self.only is not None and name not in self.only:
            return
        started = time.monotonic()
        try:
            detail = check(self)
        except Skipped as reason:
            self.skipped[name] = str(reason)
            note(f"skip  {name}: {reason}")
            return
        except CheckFailed as failure:
            self.failed[name] = str(failure)
        except Exception as error:  # any other error fails the check, with its type
            self.failed[name] = f"{type(error).__name__}: {error}"
            note(traceback.format_exc(limit=3))
        else:
            self.passed.append(name)
            if detail is not None:
                self.details[name] = detail
        seconds = time.monotonic() - started
        verdict = "FAIL" if name in self.failed else "ok"
        note(f"{verdict:5} {name} ({seconds:.1f} s){': ' + self.failed[name] if name in self.failed else ''}")

    def finish(self, **extra: object) -> NoReturn:
        if self.only is not None:
            ran = set(self.passed) | self.failed.keys() | self.skipped.keys()
            for name in sorted(self.only - ran):
                self.failed[name] = "no such check"
        summary = {"server": self.args.server, "base_url": self.args.base_url, "model": self.args.model,
                   **extra, "passed": self.passed, "failed": list(self.failed), "skipped": list(self.skipped),
                   "reasons": self.failed | self.skipped, "details": self.details}
        print(json.dumps(summary, indent=2, default=str))
        for name, why in self.failed.items():
            note(f"FAILED: {name}: {why}")
        note(f"{len(self.passed)} passed, {len(self.failed)} failed, {len(self.skipped)} skipped")
        sys.exit(1 if self.failed else 0)


# ---------------------------------------------------------------- helpers

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city's name, e.g. Paris"}},
            "required": ["city"],
        },
    },
}

PERSON_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "city": {"type": "string"},
        "employed": {"type": "boolean"},
        "languages": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age", "city", "employed", "languages"],
    "additionalProperties": False,
}


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def collect_stream(stream) -> dict:
    """Assembles a streamed chat completion the way the openai SDK does (string fields of
    deltas concatenated, tool calls by index) and keeps what the checks look at."""
    chunks = list(stream)
    content, calls, finishes = [], {}, []
    for chunk in chunks:
        for choice in chunk.choices:
            if choice.delta.content:
                content.append(choice.delta.content)
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, {"id": "", "name": "", "arguments": "", "pieces": 0})
                entry["id"] += call.id or ""
                if call.function:
                    entry["name"] += call.function.name or ""
                    entry["arguments"] += call.function.arguments or ""
                    entry["pieces"] += 1 if call.function.arguments else 0
            if choice.finish_reason:
                finishes.append(choice.finish_reason)
    return {"chunks": chunks, "content": "".join(content), "finishes": finishes,
            "tool_calls": [calls[index] for index in sorted(calls)]}


def chat_round(suite: Suite, messages: list[dict], stream: bool, **options) -> dict:
    """One chat request, streamed or not, as {"content", "finish_reason", "tool_calls": [{id, name, arguments}]}."""
    client = suite.client()
    if not stream:
        response = client.chat.completions.create(model=suite.args.model, messages=messages, **options)
        expect(len(response.choices) == 1, f"{len(response.choices)} choices")
        message = response.choices[0].message
        return {"content": message.content or "", "finish_reason": response.choices[0].finish_reason,
                "tool_calls": [{"id": call.id, "name": call.function.name, "arguments": call.function.arguments}
                               for call in message.tool_calls or []]}
    result = collect_stream(client.chat.completions.create(model=suite.args.model, messages=messages,
                                                           stream=True, **options))
    expect(len(result["finishes"]) == 1, f"{len(result['finishes'])} chunks carry a finish_reason")
    return {"content": result["content"], "finish_reason": result["finishes"][0], "tool_calls": result["tool_calls"]}


def untagged_call(content: str) -> bool:
    """Whether content starts with {"name": "get_weather", "arguments": …} (a call without its
    template's <tool_call> tags, which Qwen2.5-Coder-0.5B writes and llmkit accepts)."""
    try:
        value, _ = json.JSONDecoder().raw_decode(content.strip())
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("name") == "get_weather" and "arguments" in value


def expect_status(call: Callable[[], object], error_type: type, status: int) -> dict:
    """Runs a client call that must raise error_type with this status; returns the error body."""
    try:
        call()
    except openai.APIStatusError as error:
        expect(isinstance(error, error_type) and error.status_code == status,
               f"expected {error_type.__name__} ({status}), got {type(error).__name__} ({error.status_code}): {error}")
        return {"status": error.status_code, "body": error.body}
    raise CheckFailed(f"expected {error_type.__name__} ({status}), the request succeeded")


def require_llmkit(suite: Suite, what: str) -> None:
    if not suite.llmkit:
        raise Skipped(f"llama-server {what}")


# ---------------------------------------------------------------- checks

def check_chat(suite: Suite) -> dict:
    response = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Say hello in one short sentence."), max_tokens=32, temperature=0)
    choice = response.choices[0]
    expect((choice.message.content or "").strip(), "empty content")
    expect(choice.finish_reason in ("stop", "length"), f"finish_reason {choice.finish_reason!r}")
    usage = response.usage
    expect(usage and usage.prompt_tokens > 0 and usage.completion_tokens > 0, f"usage {usage}")
    expect(response.object == "chat.completion", f"object {response.object!r}")
    return {"content": choice.message.content, "finish_reason": choice.finish_reason,
            "usage": [usage.prompt_tokens, usage.completion_tokens]}


def check_chat_stream(suite: Suite) -> dict:
    stream = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Name three colors."), max_tokens=32, temperature=0,
        stream=True, stream_options={"include_usage": True})
    result = collect_stream(stream)
    chunks = result["chunks"]
    expect(result["content"].strip(), "the deltas concatenate to nothing")
    expect(len(result["finishes"]) == 1, f"{len(result['finishes'])} chunks carry a finish_reason")
    expect(result["finishes"][0] in ("stop", "length"), f"finish_reason {result['finishes'][0]!r}")
    last = chunks[-1]
    expect(last.usage and not last.choices, f"the last chunk is not the usage chunk: {last}")
    expect(last.usage.prompt_tokens > 0 and last.usage.completion_tokens > 0, f"usage {last.usage}")
    expect(all(chunk.usage is None for chunk in chunks[:-1]), "a chunk before the last one carries usage")
    expect(len({chunk.id for chunk in chunks}) == 1, "the chunks do not share one id")
    return {"chunks": len(chunks), "content": result["content"],
            "usage": [last.usage.prompt_tokens, last.usage.completion_tokens]}


def tool_round(suite: Suite, stream: bool) -> dict:
    messages = user("What is the weather in Paris?")
    first = chat_round(suite, messages, stream, tools=[WEATHER_TOOL], tool_choice="required",
                       temperature=0, max_tokens=128)
    if not first["tool_calls"] and not suite.llmkit and untagged_call(first["content"]):
        raise Skipped(f"llama-server leaves the untagged tool call this model writes in content: "
                      f"{first['content'][:80]!r}")
    expect(first["tool_calls"], f"no tool call; content {first['content'][:200]!r}")
    call = first["tool_calls"][0]
    expect(call["name"] == "get_weather", f"tool call names {call['name']!r}")
    if stream and suite.llmkit:
        # The arguments stream as the model writes them, as OpenAI and llama-server stream them.
        expect(call["pieces"] >= 2, f"the arguments came in {call['pieces']} piece(s), not incrementally")
    expect(call["id"], "the tool call has no id")
    try:
        arguments = json.loads(call["arguments"])
    except ValueError:
        raise CheckFailed(f"arguments are not JSON: {call['arguments']!r}")
    expect(isinstance(arguments, dict) and isinstance(arguments.get("city"), str),
           f"arguments lack a city: {arguments}")
    expect(first["finish_reason"] == "tool_calls", f"finish_reason {first['finish_reason']!r} after a tool call")
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}]},
        {"role": "tool", "tool_call_id": call["id"],
         "content": json.dumps({"city": arguments["city"], "temperature_c": 18, "condition": "sunny"})},
    ]
    final = chat_round(suite, messages, stream, tools=[WEATHER_TOOL], temperature=0, max_tokens=128)
    expect(not final["tool_calls"], f"the answer to the tool result is another tool call: {final['tool_calls']}")
    expect(final["content"].strip(), "the answer to the tool result is empty")
    expect(final["finish_reason"] == "stop", f"final finish_reason {final['finish_reason']!r}")
    return {"call": call, "answer": final["content"]}


def check_tools(suite: Suite) -> dict:
    return tool_round(suite, stream=False)


def check_tools_stream(suite: Suite) -> dict:
    return tool_round(suite, stream=True)


def check_json_schema(suite: Suite) -> dict:
    response = suite.client().chat.completions.create(
        model=suite.args.model, temperature=0, max_tokens=256,
        messages=user("Invent a person who lives in Lisbon and describe them."),
        response_format={"type": "json_schema",
                         "json_schema": {"name": "person", "strict": True, "schema": PERSON_SCHEMA}})
    choice = response.choices[0]
    expect(choice.finish_reason == "stop", f"finish_reason {choice.finish_reason!r}")
    try:
        person = json.loads(choice.message.content)
    except ValueError:
        raise CheckFailed(f"content is not JSON: {choice.message.content!r}")
    errors = list(jsonschema.Draft202012Validator(PERSON_SCHEMA).iter_errors(person))
    expect(not errors, "; ".join(f"{'/'.join(map(str, e.path)) or '(root)'}: {e.message}" for e in errors))
    return person


def check_json_object(suite: Suite) -> dict:
    response = suite.client().chat.completions.create(
        model=suite.args.model, temperature=0, max_tokens=128, response_format={"type": "json_object"},
        messages=user("Give the capital of France and of Spain as a JSON object."))
    content = response.choices[0].message.content
    try:
        value = json.loads(content)
    except ValueError:
        raise CheckFailed(f"content is not JSON: {content!r}")
    expect(isinstance(value, dict), f"content is JSON but not an object: {content!r}")
    return value


def check_models(suite: Suite) -> list[str]:
    ids = [model.id for model in suite.client().models.list()]
    expect(suite.args.model in ids, f"{suite.args.model!r} not among {ids}")
    return ids


def check_completions(suite: Suite) -> dict:
    response = suite.client().completions.create(
        model=suite.args.model, prompt="The capital of France is", max_tokens=8, temperature=0)
    choice = response.choices[0]
    expect(choice.text, "empty text")
    expect(choice.finish_reason in ("stop", "length"), f"finish_reason {choice.finish_reason!r}")
    expect(response.usage and response.usage.completion_tokens > 0, f"usage {response.usage}")
    return {"text": choice.text, "finish_reason": choice.finish_reason}


def check_seed(suite: Suite) -> list[str]:
    # A prompt cache changes the logits slightly (a cached prompt is not evaluated again, so the
    # last prompt token is evaluated in a batch of another shape), enough for sampling to diverge:
    # compare with the cache off (llama-server's `cache_prompt`, which llmkit serve honours too).
    extra = {"cache_prompt": False}

    def sample() -> str:
        response = suite.client().chat.completions.create(
            model=suite.args.model, messages=user("Write one sentence about a cat."), seed=1234,
            temperature=0.8, max_tokens=32, extra_body=extra)
        return response.choices[0].message.content
    texts = [sample(), sample()]
    expect(texts[0] == texts[1], f"the same seed gave different texts: {texts}")
    return texts


def check_stop(suite: Suite) -> dict:
    response = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Write three short lines about the sea, one per line."),
        stop=["\n"], temperature=0, max_tokens=64)
    choice = response.choices[0]
    expect("\n" not in (choice.message.content or ""), f"newline in content {choice.message.content!r}")
    expect(choice.finish_reason == "stop", f"finish_reason {choice.finish_reason!r}")
    return {"content": choice.message.content}


def check_max_tokens(suite: Suite) -> dict:
    response = suite.client().chat.completions.create(
        model=suite.args.model, messages=user("Tell me a long story about a dragon."), max_tokens=5, temperature=0)
    choice = response.choices[0]
    expect(choice.finish_reason == "length", f"finish_reason {choice.finish_reason!r}")
    expect(0 < response.usage.completion_tokens <= 5, f"completion_tokens {response.usage.completion_tokens}")
    return {"content": choice.message.content, "completion_tokens": response.usage.completion_tokens}


def check_logprobs(suite: Suite) -> dict:
    """Greedy chat with logprobs: one entry per generated token, its top alternatives, the chosen
    token first among them; streamed, the chunks' logprobs join to the same list, and arrive as
    the text does (with llmkit: the first content chunk carries its token's, and several chunks
    carry some), not all in the last chunk."""
    create = suite.client().chat.completions.create
    arguments = dict(model=suite.args.model, messages=user("Name a color."), max_tokens=8, temperature=0,
                     logprobs=True, top_logprobs=3)
    whole = create(**arguments)
    entries = whole.choices[0].logprobs.content
    expect(len(entries) == whole.usage.completion_tokens, f"{len(entries)} entries for {whole.usage.completion_tokens} tokens")
    for entry in entries:
        expect(entry.logprob <= 0 and len(entry.top_logprobs) == 3, f"entry {entry}")
        expect(entry.top_logprobs[0].token == entry.token, f"greedy token {entry.token!r} is not the likeliest")
        expect(abs(entry.top_logprobs[0].logprob - entry.logprob) < 1e-9, f"{entry}")
    streamed, carrying, first_content_carries = [], 0, None
    for chunk in create(stream=True, **arguments):
        if not chunk.choices:
            continue
        carried = chunk.choices[0].logprobs.content if chunk.choices[0].logprobs else None
        if chunk.choices[0].delta.content and first_content_carries is None:
            first_content_carries = bool(carried)
        if carried:
            streamed += carried
            carrying += 1
    expect([e.token for e in streamed] == [e.token for e in entries], "streamed logprobs differ from the whole answer's")
    if suite.llmkit:
        expect(first_content_carries and carrying >= 2,
               f"streamed logprobs did not come with the text: {carrying} chunks carried them")
    completion = suite.client().completions.create(model=suite.args.model, prompt="The sky is", max_tokens=4,
                                                   temperature=0, logprobs=2)
    legacy = completion.choices[0].logprobs
    expect(len(legacy.tokens) == len(legacy.token_logprobs) == len(legacy.top_logprobs) == 4, f"{legacy}")
    expect("".join(legacy.tokens) == completion.choices[0].text, f"{legacy.tokens} vs {completion.choices[0].text!r}")
    # Streamed text completions: each chunk's `logprobs` are its own tokens', with offsets that
    # continue the text so far; joined, the same as the whole answer's.
    tokens, offsets, text, carrying = [], [], "", 0
    for chunk in suite.client().completions.create(model=suite.args.model, prompt="The sky is", max_tokens=4,
                                                   temperature=0, logprobs=2, stream=True):
        if not chunk.choices:
            continue
        carried = chunk.choices[0].logprobs
        if carried and carried.tokens:
            carrying += 1
            tokens += carried.tokens
            offsets += carried.text_offset
        text += chunk.choices[0].text
    expect(tokens == legacy.tokens, f"streamed completion tokens {tokens} vs {legacy.tokens}")
    expect(offsets == [len("".join(tokens[:i])) for i in range(len(tokens))], f"text offsets {offsets} for {tokens}")
    expect(text == completion.choices[0].text, f"streamed text {text!r}")
    if suite.llmkit:
        expect(carrying >= 2, f"streamed completion logprobs did not come with the text: {carrying} chunks carried them")
    return {"tokens": [e.token for e in entries], "logprobs": [e.logprob for e in entries],
            "streamed_completion_chunks_with_logprobs": carrying}


def check_choices(suite: Suite) -> dict:
    """`n` choices: as many as asked, indexed, each with its finish reason; usage counts the
    prompt once and every choice's tokens; streamed, each index opens with the role and ends
    with its finish reason."""
    create = suite.client().chat.completions.create
    # Without the prompt cache, so that the seed alone decides each text (see check_seed).
    arguments = dict(model=suite.args.model, messages=user("Name an animal."), max_tokens=6, temperature=1.0, seed=5,
                     extra_body={"cache_prompt": False})
    whole = create(n=3, **arguments)
    expect([choice.index for choice in whole.choices] == [0, 1, 2], f"indices {[c.index for c in whole.choices]}")
    expect(all(choice.finish_reason in ("stop", "length") for choice in whole.choices), f"{whole.choices}")
    single = create(n=1, **arguments)
    expect(whole.choices[0].message.content == single.choices[0].message.content,
           "the first of n choices is not the single choice of the same seed")
    expect(whole.usage.prompt_tokens == single.usage.prompt_tokens, f"prompt counted {whole.usage.prompt_tokens} times")
    roles, finishes = set(), {}
    for chunk in create(n=2, stream=True, **arguments):
        for choice in chunk.choices:
            if choice.delta.role == "assistant":
                roles.add(choice.index)
            if choice.finish_reason:
                finishes[choice.index] = choice.finish_reason
    expect(roles == {0, 1} and set(finishes) == {0, 1}, f"streamed roles {roles}, finishes {finishes}")
    return {"choices": [choice.message.content for choice in whole.choices]}


def check_auth(suite: Suite) -> dict:
    if not suite.args.api_key:
        raise Skipped("needs --api-key (the key the server was started with)")
    wrong = suite.client(api_key=suite.args.api_key + "-wrong")
    detail = {"wrong_key": expect_status(lambda: wrong.models.list(), openai.AuthenticationError, 401)}
    with httpx2.Client(base_url=suite.root_url, timeout=suite.args.timeout) as http:
        missing = http.post("/v1/chat/completions", json={"model": suite.args.model, "messages": user("hi")})
        health = http.get("/health")
    expect(missing.status_code == 401, f"no key: status {missing.status_code}")
    problem = error_shape_problem(missing, strict=suite.llmkit)
    expect(problem is None, f"no key: {problem}")
    expect(health.status_code == 200, f"/health without a key: status {health.status_code}")
    suite.client().models.list()  # the right key works
    detail["missing_key"] = missing.json()
    return detail


def check_unknown_model(suite: Suite) -> dict:
    """A server of one model answers whatever name a client sends, as llama-server does; asking
    for an unknown model's description is still a 404."""
    require_llmkit(suite, "has no GET /v1/models/{id}")
    answer = suite.client().chat.completions.create(model="gpt-4o-mini", messages=user("hi"), max_tokens=2)
    expect(answer.model == suite.args.model, f"answered as {answer.model!r}, not as the one served model")
    return {"any_name": answer.model,
            "retrieve": expect_status(lambda: suite.client().models.retrieve("no-such-model"), openai.NotFoundError, 404)}


def check_bad_params(suite: Suite) -> dict:
    require_llmkit(suite, "accepts temperature=-3 (as greedy) and n=17")
    create = suite.client().chat.completions.create
    return {
        "temperature": expect_status(lambda: create(model=suite.args.model, messages=user("hi"), max_tokens=4,
                                                    temperature=-3), openai.BadRequestError, 400),
        "n": expect_status(lambda: create(model=suite.args.model, messages=user("hi"), max_tokens=4, n=17),
                           openai.BadRequestError, 400),
    }


def check_http_errors(suite: Suite) -> dict:
    require_llmkit(suite, "answers a wrong method with 404, and its errors have no param")
    detail = {}
    with suite.http() as http:
        for label, response, status in [
            ("unknown_path", http.get("/v1/no-such-path"), 404),
            ("wrong_method", http.get("/v1/chat/completions"), 405),
        ]:
            expect(response.status_code == status, f"{label}: status {response.status_code}, expected {status}")
            problem = error_shape_problem(response, strict=True)
            expect(problem is None, f"{label}: {problem}")
            detail[label] = response.json()
    return detail


def check_oversize(suite: Suite) -> dict:
    if not suite.args.max_body:
        raise Skipped("needs --max-body (the body limit the server was started with)")
    padding = "x" * (suite.args.max_body + 1024)
    detail = expect_status(lambda: suite.client().chat.completions.create(
        model=suite.args.model, messages=user(padding), max_tokens=4), openai.APIStatusError, 413)
    check_chat(suite)  # still serving
    return detail


def check_rate_limit(suite: Suite) -> dict:
    args = suite.args
    if not args.expect_429:
        raise Skipped("needs --expect-429 (and the server's --parallel and --queue)")
    require_llmkit(suite, "has no queue bound")
    expect(args.parallel and args.queue is not None, "--expect-429 needs --parallel and --queue")
    count = args.parallel + args.queue + 4
    barrier = threading.Barrier(count)
    outcomes: list[object] = [None] * count
    client = suite.client()

    def request(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = client.chat.completions.create(
                model=args.model, messages=user("Write a long story about a lighthouse keeper."),
                max_tokens=200, temperature=0)
        except Exception as error:  # recorded and judged below
            outcomes[index] = error

    threads = [threading.Thread(target=request, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    limited = [o for o in outcomes if isinstance(o, openai.RateLimitError)]
    others = [o for o in outcomes if isinstance(o, Exception) and not isinstance(o, openai.RateLimitError)]
    expect(limited, f"none of {count} concurrent requests got 429")
    for error in limited:
        retry_after = error.response.headers.get("retry-after", "")
        expect(retry_after.isdigit(), f"429 with Retry-After {retry_after!r}")
    expect(not others, f"requests failed otherwise: {[f'{type(e).__name__}: {e}' for e in others]}")
    return {"requests": count, "rate_limited": len(limited), "completed": count - len(limited),
            "retry_after": limited[0].response.headers["retry-after"]}


CHECKS = [
    ("chat", check_chat), ("chat_stream", check_chat_stream), ("tools", check_tools),
    ("tools_stream", check_tools_stream), ("json_schema", check_json_schema), ("json_object", check_json_object),
    ("models", check_models), ("completions", check_completions), ("seed", check_seed), ("stop", check_stop),
    ("max_tokens", check_max_tokens), ("logprobs", check_logprobs), ("choices", check_choices), ("auth", check_auth), ("unknown_model", check_unknown_model),
    ("bad_params", check_bad_params), ("http_errors", check_http_errors), ("oversize", check_oversize),
    ("rate_limit", check_rate_limit),
]


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--max-body", type=int, help="the server's --max-body, for the 413 check")
    parser.add_argument("--expect-429", action="store_true", help="run the 429 burst check")
    parser.add_argument("--parallel", type=int, help="the server's --parallel, for --expect-429")
    parser.add_argument("--queue", type=int, help="the server's --queue, for --expect-429")
    suite = Suite(parser.parse_args())
    for name, check in CHECKS:
        suite.run(name, check)
    suite.finish(openai_version=openai.__version__)


if __name__ == "__main__":
    main()
