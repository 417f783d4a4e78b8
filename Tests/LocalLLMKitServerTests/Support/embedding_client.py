#!/usr/bin/env python3
"""Embeds texts through a server's /v1/embeddings with the official `openai` Python client, and
prints what the client got as one JSON object on stdout (EmbeddingsEndpointTests compares it
with the library's own vectors).

Usage:
  embedding_client.py --base-url http://127.0.0.1:PORT/v1 --model ID --texts '["a", "b"]'

Output keys:
  default   client.embeddings.create(model, input=texts): the client asks for base64 and decodes
            it; vectors, prompt_tokens, total_tokens, model, indices, and raw_base64 (whether
            every raw `embedding` on the wire was a base64 string)
  float     the same with encoding_format="float"; raw_float (whether every raw one was a list)
  single    input=texts[0] as one string: count, index, dimensions
  empty     input=[]: the status and the error's param and message that the client raised
"""
import argparse
import json
import os
import sys

CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
sys.path.insert(0, os.path.join(CACHE, "python"))

import openai  # noqa: E402


def described(response) -> dict:
    return {
        "vectors": [item.embedding for item in response.data],
        "indices": [item.index for item in response.data],
        "objects": sorted({item.object for item in response.data}),
        "object": response.object,
        "model": response.model,
        "prompt_tokens": response.usage.prompt_tokens,
        "total_tokens": response.usage.total_tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--texts", required=True, help="a JSON array of strings")
    parser.add_argument("--api-key", default="no-key")
    args = parser.parse_args()
    texts = json.loads(args.texts)
    client = openai.OpenAI(base_url=args.base_url, api_key=args.api_key, max_retries=0, timeout=120)

    result = {}
    result["default"] = described(client.embeddings.create(model=args.model, input=texts))
    raw = client.embeddings.with_raw_response.create(model=args.model, input=texts)
    result["default"]["raw_base64"] = all(isinstance(item["embedding"], str) for item in json.loads(raw.text)["data"])

    result["float"] = described(client.embeddings.create(model=args.model, input=texts, encoding_format="float"))
    raw = client.embeddings.with_raw_response.create(model=args.model, input=texts, encoding_format="float")
    result["float"]["raw_float"] = all(isinstance(item["embedding"], list) for item in json.loads(raw.text)["data"])

    single = client.embeddings.create(model=args.model, input=texts[0])
    result["single"] = {"count": len(single.data), "index": single.data[0].index,
                        "dimensions": len(single.data[0].embedding)}

    try:
        client.embeddings.create(model=args.model, input=[], encoding_format="float")
        result["empty"] = {"status": 200}
    except openai.APIStatusError as error:
        body = error.body if isinstance(error.body, dict) else {}
        body = body.get("error", body) if isinstance(body.get("error"), dict) else body
        result["empty"] = {"status": error.status_code, "param": body.get("param"), "message": body.get("message")}

    print(json.dumps(result))


if __name__ == "__main__":
    main()
