#!/usr/bin/env python3
"""How long a server takes to refuse a hostile JSON Schema: a $defs chain in which each
definition refers to the next (issue 32's review: 10,000 links, 358 KB, took 36 s to refuse).

Posts a chat request whose response_format carries chains of --links links (each size --repeat
times) to a running server, and prints the body size and the seconds to each answer. Linear
checking shows as times that grow with the size, not with its square.

Usage:
  bench/schema_chain.py --base-url http://127.0.0.1:8080/v1 --model ID [--links 5000,10000,20000] [--repeat 3]
"""
import argparse
import json
import time
import urllib.error
import urllib.request


def reference_chain(links: int) -> dict:
    definitions = {f"d{index}": {"$ref": f"#/$defs/d{index + 1}"} for index in range(links)}
    definitions[f"d{links}"] = {"type": "string"}
    return {"$ref": "#/$defs/d0", "$defs": definitions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--links", default="5000,10000,20000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| links | body (KB) | status | seconds to the answer |")
    print("|---:|---:|---:|---|")
    for links in (int(text) for text in args.links.split(",")):
        body = json.dumps({"model": args.model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4,
                           "response_format": {"type": "json_schema",
                                               "json_schema": {"name": "chain", "schema": reference_chain(links)}}}).encode()
        seconds, status = [], 0
        for _ in range(args.repeat):
            request = urllib.request.Request(args.base_url.rstrip("/") + "/chat/completions", data=body,
                                             headers={"Content-Type": "application/json"})
            started = time.monotonic()
            try:
                with urllib.request.urlopen(request, timeout=600) as answer:
                    status = answer.status
                    answer.read()
            except urllib.error.HTTPError as error:
                status = error.code
                error.read()
            seconds.append(time.monotonic() - started)
        print(f"| {links} | {len(body) // 1000} | {status} | {', '.join(f'{value:.3f}' for value in seconds)} |")


if __name__ == "__main__":
    main()
