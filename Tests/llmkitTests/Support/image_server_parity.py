#!/usr/bin/env python3
"""Sends the same image requests to llmkit serve and to llama-server with OpenAI's official
client, and prints one JSON object: both servers' answers and usage, what llmkit said to an
image URL it may not fetch, and llmkit's /v1/models.

usage: image_server_parity.py --ours URL --reference URL --model ID IMAGE...
"""
import argparse
import base64
import json
import os
import sys
import urllib.request

# OpenAI's client, which scripts/bootstrap-test installs into the cache.
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
sys.path.insert(0, os.path.join(CACHE, "python"))

import openai  # noqa: E402


def data_url(path: str) -> str:
    kind = "image/bmp" if path.endswith(".bmp") else "image/png"
    with open(path, "rb") as file:
        return f"data:{kind};base64," + base64.b64encode(file.read()).decode()


def ask(client: openai.OpenAI, model: str, image: str, prompt: str) -> dict:
    response = client.chat.completions.create(
        model=model, temperature=0, max_tokens=24, seed=1,
        messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url(image)}},
                                               {"type": "text", "text": prompt}]}])
    return {"text": response.choices[0].message.content, "prompt_tokens": response.usage.prompt_tokens}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("images", nargs="+")
    args = parser.parse_args()
    ours = openai.OpenAI(base_url=args.ours, api_key="none", max_retries=0)
    reference = openai.OpenAI(base_url=args.reference, api_key="none", max_retries=0)
    result = {"pairs": [], "refused": None, "models": None}
    for image in args.images:
        for prompt in ("Describe this image.", "What colours do you see?"):
            result["pairs"].append({"image": image, "prompt": prompt, "ours": ask(ours, args.model, image, prompt),
                                    "reference": ask(reference, args.model, image, prompt)})
    try:
        ours.chat.completions.create(model=args.model, max_tokens=4, messages=[{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "http://127.0.0.1:9/cat.png"}}, {"type": "text", "text": "Hi"}]}])
    except openai.BadRequestError as error:
        result["refused"] = {"status": error.status_code, "message": str(error)}
    with urllib.request.urlopen(args.ours + "/models") as response:
        result["models"] = json.load(response)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
