#!/usr/bin/env python3
"""Images: `llmkit run --image` against llama.cpp's `llama-mtmd-cli`, same model, same
projector, same image and prompt, same threads, one token (greedy), in one run, ABBA-paired
(llmkit, mtmd, mtmd, llmkit, …), as ratios of medians (above 1: llmkit is faster).

Three figures per tool:
  * encoding: the projector's encoding of the image. llmkit's `--json` reports it
    (media_encoding_ms); llama-mtmd-cli logs "mtmd batch encoding done in N ms";
  * first token after the image: encoding plus every prompt decode (text and image
    embeddings) until the first token. llmkit's prompt_eval_ms (from the request's start on the
    model, its prompt tokenized, to its first token); llama-mtmd-cli's llama_perf "prompt eval
    time", which runs from its first prompt decode to the synchronization at the first sampling,
    the encoding between them included. Neither holds the template, the image's decoding from
    PNG or its preprocessing; llmkit's time_to_first_token_ms, which does, is printed beside;
  * end to end: the whole process, loading the model and the projector included.

The projector is random (scripts/synth-vision-model --shape base: CLIP ViT-B/14's shape, 256
image tokens), so only the speeds mean something.

Usage: bench/images.py [--model GGUF] [--mmproj GGUF] [--image FILE] [--pairs 5] [--threads N]
       [--llmkit PATH] [--prefix DIR] [--json FILE]
"""
import argparse, json, os, re, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")
PROMPT = "Describe this image."


def run(command):
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, done.stdout, done.stderr


def ours(args):
    template = ["--chat-template", args.chat_template] if args.chat_template else []
    wall, out, _ = run([args.llmkit, "run", "-m", args.model, "--mmproj", args.mmproj, "--image", args.image, "-n", "1",
                        "--temperature", "0", "-t", str(args.threads), "-c", "4096", "--json"] + template + [PROMPT])
    report = json.loads(out)
    if report["encoded_media"] != 1:
        sys.exit(f"llmkit encoded {report['encodedMedia']} images")
    return {"encoding": report["media_encoding_ms"], "first": report["prompt_eval_ms"], "wall": wall * 1e3,
            "prompt_tokens": report["prompt_tokens"], "request_first": report["time_to_first_token_ms"]}


def theirs(args):
    wall, _, err = run([os.path.join(args.prefix, "bin", "llama-mtmd-cli"), "-m", args.model, "--mmproj", args.mmproj,
                        "--image", args.image, "--jinja", "-p", PROMPT, "-n", "1", "--temp", "0", "-t", str(args.threads),
                        "-c", "4096", "--no-repack", "-lv", "4"] + (["-ngl", "0"] if args.cpu else [])
                       + (["--chat-template", args.chat_template] if args.chat_template else []))
    encoding = re.search(r"mtmd batch encoding done in (\d+) ms", err)
    prompt = re.search(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens", err)
    if not encoding or not prompt:
        sys.exit(f"unexpected llama-mtmd-cli log: {err[-1500:]}")
    # llama.cpp's prompt eval time runs from the first prompt decode to the synchronization at
    # the first sampling: the image's encoding, between the text and the image decodes, is in it.
    return {"encoding": float(encoding.group(1)), "first": float(prompt.group(1)),
            "wall": wall * 1e3, "prompt_tokens": int(prompt.group(2))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.path.join(CACHE, "models", "default.gguf"))
    parser.add_argument("--mmproj", default=os.path.join(CACHE, "models", "synthetic-clip-base-mmproj.gguf"),
                        help="default: a CLIP ViT-B/14-shaped random projector for the model, written on first use "
                             "by scripts/synth-vision-model --shape base (the tests' tiny one encodes in milliseconds)")
    parser.add_argument("--image", default=os.path.join(CACHE, "images", "shapes-100x100.png"))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--llmkit", default=os.path.join(ROOT, ".build", "release", "llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--cpu", action="store_true", help="llama-mtmd-cli with -ngl 0 (llmkit: pass -ngl 0 yourself)")
    parser.add_argument("--chat-template", help="a built-in template name for both (chatml), for a model without one")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if not os.path.exists(args.mmproj):
        scratch = os.path.join(os.path.dirname(args.mmproj), ".bench-images")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "synth-vision-model"), "--text-model", args.model,
                        "--output", args.mmproj, "--images-dir", scratch, "--seed", "1", "--shape", "base"], check=True,
                       env=dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH") or os.path.join(CACHE, "python-convert")))
    ours(args), theirs(args)                     # warm the page cache
    rows = {"llmkit": [], "llama-mtmd-cli": []}
    for pair in range(args.pairs):
        order = [("llmkit", ours), ("llama-mtmd-cli", theirs)]
        for name, tool in (order if pair % 2 == 0 else order[::-1]) + (order[::-1] if pair % 2 == 0 else order):
            rows[name].append(tool(args))
    medians = {name: {key: statistics.median(row[key] for row in runs) for key in ("encoding", "first", "wall")}
               for name, runs in rows.items()}
    tokens = {name: runs[0]["prompt_tokens"] for name, runs in rows.items()}
    print(f"model {os.path.basename(os.path.realpath(args.model))}, projector {os.path.basename(args.mmproj)}, "
          f"image {os.path.basename(args.image)}, {args.threads} threads, {2 * args.pairs} runs each (ABBA), "
          f"prompt tokens llmkit {tokens['llmkit']} / llama-mtmd-cli {tokens['llama-mtmd-cli']}")
    print(f"{'tool':<16} {'encoding ms':>12} {'first token ms':>15} {'end to end ms':>14}")
    for name, values in medians.items():
        print(f"{name:<16} {values['encoding']:>12.1f} {values['first']:>15.1f} {values['wall']:>14.1f}")
    print(f"llmkit's time to the first token from the request's start (template, PNG decoding and "
          f"preprocessing included): {statistics.median(r['request_first'] for r in rows['llmkit']):.1f} ms")
    a, b = medians["llmkit"], medians["llama-mtmd-cli"]
    ratios = {key: b[key] / a[key] if a[key] > 0 else float("nan") for key in ("encoding", "first", "wall")}
    print("ratio llama-mtmd-cli/llmkit (above 1: llmkit faster): "
          + ", ".join(f"{key} {value:.3f}" for key, value in ratios.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"medians": medians, "ratios": ratios, "runs": rows, "prompt_tokens": tokens}, f, indent=1)


if __name__ == "__main__":
    main()
