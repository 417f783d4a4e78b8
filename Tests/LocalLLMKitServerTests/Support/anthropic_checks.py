#!/usr/bin/env python3
"""Checks of Anthropic's Messages API on a server (`llmkit serve`) with Anthropic's official
Python client (`anthropic` from PyPI), which sends its key as `x-api-key`.

Checks (--only selects some):
  messages      a whole message: a text block, end_turn or max_tokens, usage
  stream        the same streamed: the event types in order, the client's final message
  tools         a real tool round: tool_choice "any" gives a tool_use block with an input
                object, whose tool_result the next request sends back for an answer
  tools_stream  the call streamed: input_json_delta pieces the client joins into the input
  count_tokens  /v1/messages/count_tokens counts the prompt a message request evaluates
  thinking      (--thinking: the server's template thinks) a thinking block within its
                budget_tokens, before the text
  errors        400 (no max_tokens), 401 (a wrong key), 404 (an unknown path) as the client's
                typed errors, with Anthropic's error shape

Usage:
  anthropic_checks.py --base-url http://127.0.0.1:PORT --model ID --api-key KEY [--thinking] [--only NAME,...]

Prints a JSON summary on its last line (passed, failed, skipped, reasons, details); exits 0 only
when no check failed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import CACHE, Skipped, Suite, common_arguments, expect  # noqa: E402,F401

import anthropic  # noqa: E402

WEATHER = {"name": "get_weather", "description": "Get the current weather in a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def client(suite: Suite, **overrides) -> anthropic.Anthropic:
    options = {"base_url": suite.root_url, "api_key": suite.args.api_key or "no-key", "max_retries": 0,
               "timeout": suite.args.timeout} | overrides
    return anthropic.Anthropic(**options)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def check_messages(suite: Suite) -> dict:
    message = client(suite).messages.create(model=suite.args.model, max_tokens=16, extra_body={"temperature": 0},
                                            system="Be brief.", messages=ask("Name a color."))
    expect(message.type == "message" and message.role == "assistant", f"{message}")
    expect(message.content and message.content[0].type == "text" and message.content[0].text, f"{message.content}")
    expect(message.stop_reason in ("end_turn", "max_tokens"), f"stop_reason {message.stop_reason}")
    expect(message.usage.input_tokens > 0 and 0 < message.usage.output_tokens <= 16, f"{message.usage}")
    return {"text": message.content[0].text, "stop_reason": message.stop_reason}


def check_stream(suite: Suite) -> dict:
    types = []
    with client(suite).messages.stream(model=suite.args.model, max_tokens=16, extra_body={"temperature": 0},
                                       messages=ask("Count to five.")) as stream:
        for event in stream:
            types.append(event.type)
        final = stream.get_final_message()
    order = [t for t in types if t in ("message_start", "content_block_start", "content_block_stop", "message_delta",
                                       "message_stop")]
    expect(order[:2] == ["message_start", "content_block_start"] and order[-3:] == ["content_block_stop", "message_delta",
                                                                                   "message_stop"], f"events {order}")
    expect("content_block_delta" in types, f"no delta among {types}")
    expect(final.content[0].type == "text" and final.content[0].text, f"{final.content}")
    expect(final.stop_reason in ("end_turn", "max_tokens") and final.usage.output_tokens > 0, f"{final}")
    return {"text": final.content[0].text, "events": len(types)}


def tool_round(suite: Suite, stream: bool) -> dict:
    api = client(suite)
    arguments = dict(model=suite.args.model, max_tokens=128, extra_body={"temperature": 0}, tools=[WEATHER],
                     tool_choice={"type": "any"}, messages=ask("What is the weather in Paris?"))
    pieces = 0
    if stream:
        with api.messages.stream(**arguments) as events:
            for event in events:
                if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    pieces += 1
            first = events.get_final_message()
    else:
        first = api.messages.create(**arguments)
    calls = [block for block in first.content if block.type == "tool_use"]
    expect(first.stop_reason == "tool_use" and calls, f"no tool call: {first}")
    call = calls[0]
    expect(call.name == "get_weather" and isinstance(call.input, dict) and isinstance(call.input.get("city"), str),
           f"call {call}")
    expect(call.id, "the call has no id")
    if stream:
        expect(pieces >= 2, f"the input came in {pieces} piece(s), not incrementally")
    messages = arguments["messages"] + [
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                      "content": '{"temperature_c": 18, "condition": "sunny"}'}]},
    ]
    final = api.messages.create(model=suite.args.model, max_tokens=64, extra_body={"temperature": 0}, tools=[WEATHER], messages=messages)
    texts = [block.text for block in final.content if block.type == "text"]
    expect(final.stop_reason in ("end_turn", "max_tokens") and texts and texts[0].strip(), f"final {final}")
    return {"input": call.input, "answer": texts[0], "pieces": pieces}


def check_tools(suite: Suite) -> dict:
    return tool_round(suite, stream=False)


def check_tools_stream(suite: Suite) -> dict:
    return tool_round(suite, stream=True)


def check_count_tokens(suite: Suite) -> dict:
    api = client(suite)
    counted = api.messages.count_tokens(model=suite.args.model, system="Be brief.", messages=ask("Name a color."))
    message = api.messages.create(model=suite.args.model, max_tokens=1, system="Be brief.", messages=ask("Name a color."))
    total = message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0)
    expect(counted.input_tokens == total, f"count_tokens {counted.input_tokens}, the request's prompt {total}")
    return {"input_tokens": counted.input_tokens}


def check_thinking(suite: Suite) -> dict:
    if not suite.args.thinking:
        raise Skipped("needs --thinking (a server whose template thinks)")
    message = client(suite).messages.create(model=suite.args.model, max_tokens=48, extra_body={"temperature": 0},
                                            thinking={"type": "enabled", "budget_tokens": 8}, messages=ask("Hi"))
    kinds = [block.type for block in message.content]
    expect(kinds[:1] == ["thinking"] and message.content[0].thinking.strip(), f"blocks {message.content}")
    expect("</think>" not in "".join(getattr(block, "text", "") for block in message.content), f"{message.content}")
    plain = client(suite).messages.create(model=suite.args.model, max_tokens=16, extra_body={"temperature": 0}, messages=ask("Hi"))
    expect(all(block.type != "thinking" for block in plain.content), f"thinking without asking: {plain.content}")
    return {"blocks": kinds, "thinking": message.content[0].thinking}


def check_errors(suite: Suite) -> dict:
    detail = {}
    try:
        client(suite).messages.create(model=suite.args.model, messages=ask("Hi"), max_tokens=0)
        expect(False, "max_tokens 0 was accepted")
    except anthropic.BadRequestError as error:
        expect(error.status_code == 400 and error.body["type"] == "error"
               and error.body["error"]["type"] == "invalid_request_error" and "max_tokens" in error.body["error"]["message"],
               f"{error.body}")
        detail["400"] = error.body
    if suite.args.api_key:
        try:
            client(suite, api_key=suite.args.api_key + "-wrong").messages.create(model=suite.args.model, max_tokens=4,
                                                                                messages=ask("Hi"))
            expect(False, "a wrong key was accepted")
        except anthropic.AuthenticationError as error:
            expect(error.body["error"]["type"] == "authentication_error", f"{error.body}")
            detail["401"] = error.body
    try:
        client(suite).post("/v1/messages/nowhere", body={}, cast_to=object)
        expect(False, "an unknown path answered")
    except anthropic.NotFoundError as error:
        expect(error.body["error"]["type"] == "not_found_error", f"{error.body}")
        detail["404"] = error.body
    return detail


CHECKS = [("messages", check_messages), ("stream", check_stream), ("tools", check_tools),
          ("tools_stream", check_tools_stream), ("count_tokens", check_count_tokens), ("thinking", check_thinking),
          ("errors", check_errors)]


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--thinking", action="store_true", help="the server's template thinks")
    suite = Suite(parser.parse_args())
    for name, check in CHECKS:
        suite.run(name, check)
    suite.finish(anthropic_version=anthropic.__version__)


if __name__ == "__main__":
    main()
