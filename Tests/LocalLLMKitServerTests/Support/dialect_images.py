#!/usr/bin/env python3
"""One image, three dialects: the same user turn (an image and a question) through OpenAI's chat
completions (an `image_url` data URL, with the `openai` client), Anthropic's Messages (a base64
`image` block, with the `anthropic` client) and Ollama's /api/chat (`images`, with the `ollama`
client), greedy, on one server with a vision projector.

Checks: for each image, the three answers are the same text; the image changes the answer (it
differs from the same question without an image, in at least one dialect's answer per image, and
two images do not all answer alike); a PNG that is not an image is refused by each dialect with
its own client's error for a 400.

Usage:
  dialect_images.py --base-url http://127.0.0.1:PORT/v1 --model ID IMAGE.png [IMAGE.png …]

Prints a JSON summary on stdout and notes on stderr; exits 0 only when every check passed.
"""
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openai_checks import Suite, common_arguments, expect, expect_status, note  # noqa: E402

import anthropic  # noqa: E402
import ollama  # noqa: E402
import openai  # noqa: E402

QUESTION = "Describe this picture in a few words."
TOKENS = 16


def openai_answer(suite: Suite, data: bytes | None) -> str:
    content = [{"type": "text", "text": QUESTION}]
    if data is not None:
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        content = [{"type": "image_url", "image_url": {"url": url}}] + content
    answer = suite.client().chat.completions.create(model=suite.args.model, messages=[{"role": "user", "content": content}],
                                                    max_tokens=TOKENS, temperature=0)
    return answer.choices[0].message.content


def anthropic_client(suite: Suite) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=suite.root_url, api_key="no-key", max_retries=0, timeout=suite.args.timeout)


def anthropic_answer(suite: Suite, data: bytes | None) -> str:
    content = [{"type": "text", "text": QUESTION}]
    if data is not None:
        source = {"type": "base64", "media_type": "image/png", "data": base64.b64encode(data).decode()}
        content = [{"type": "image", "source": source}] + content
    answer = anthropic_client(suite).messages.create(model=suite.args.model, max_tokens=TOKENS, extra_body={"temperature": 0},
                                                     messages=[{"role": "user", "content": content}])
    return "".join(block.text for block in answer.content if block.type == "text")


def ollama_client(suite: Suite) -> ollama.Client:
    return ollama.Client(host=suite.root_url, timeout=suite.args.timeout)


def ollama_answer(suite: Suite, data: bytes | None) -> str:
    message = {"role": "user", "content": QUESTION} | ({} if data is None else {"images": [data]})
    answer = ollama_client(suite).chat(model=suite.args.model, messages=[message],
                                       options={"temperature": 0, "num_predict": TOKENS})
    return answer.message.content


def check_same(suite: Suite) -> dict:
    plain = {name: answer(suite, None) for name, answer in
             [("openai", openai_answer), ("anthropic", anthropic_answer), ("ollama", ollama_answer)]}
    expect(len(set(plain.values())) == 1, f"without an image the dialects differ: {plain}")
    answers = {}
    for path in suite.args.images:
        with open(path, "rb") as file:
            data = file.read()
        texts = {"openai": openai_answer(suite, data), "anthropic": anthropic_answer(suite, data),
                 "ollama": ollama_answer(suite, data)}
        note(f"{os.path.basename(path)}: {texts['openai']!r}")
        expect(len(set(texts.values())) == 1, f"{os.path.basename(path)}: the dialects answer differently: {texts}")
        expect(texts["openai"] != plain["openai"], f"{os.path.basename(path)} changed nothing: {texts['openai']!r}")
        answers[os.path.basename(path)] = texts["openai"]
    expect(len(suite.args.images) < 2 or len(set(answers.values())) > 1, f"every image answers alike: {answers}")
    return answers


def check_refused(suite: Suite) -> dict:
    junk = b"\x89PNG\r\n\x1a\n" + b"not an image" * 8
    found = {}
    found["openai"] = expect_status(lambda: openai_answer(suite, junk), openai.BadRequestError, 400)["status"]
    try:
        anthropic_answer(suite, junk)
        raise AssertionError("anthropic: a broken image was answered")
    except anthropic.BadRequestError as error:
        found["anthropic"] = error.status_code
    try:
        ollama_answer(suite, junk)
        raise AssertionError("ollama: a broken image was answered")
    except ollama.ResponseError as error:
        expect(error.status_code == 400, f"ollama: status {error.status_code}: {error}")
        found["ollama"] = error.status_code
    return found


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("images", nargs="+")
    suite = Suite(parser.parse_args())
    suite.run("same", check_same)
    suite.run("refused", check_refused)
    suite.finish()


if __name__ == "__main__":
    main()
