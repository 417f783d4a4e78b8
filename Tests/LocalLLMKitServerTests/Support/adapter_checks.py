#!/usr/bin/env python3
"""Per-request LoRA adapters on `llmkit serve`, with the official `openai` client, against
llama-server started on the same model and adapter files (on a free port of 127.0.0.1).

Checks (--only selects some):
  parity      greedy /v1/completions with each `lora` list (absent, all off, one adapter at 0.5, the
              other at 1, both, and an empty list, which asks for the loaded scales) on three
              prompts: the same text as llama-server's
  together    the five lists at once on one prompt (the model takes turns between scales, a step
              each): every answer starts with the token it starts with alone, most are the same
              text (with --exact, every one: a server whose sequences each have cells of their
              own decodes each alone), and the five lists give five texts
  endpoints   GET /lora-adapters lists both files (names only) at the loaded scales; POST sets
              the scales of requests that name none (those not listed: 0), and GET shows them;
              a chat request without `lora` then answers as one with that list does
  errors      an unknown adapter id, a `lora` that is no array, a scale that is no number, and
              POST bodies of the wrong shape: 400s naming what is wrong

Usage:
  adapter_checks.py --base-url http://127.0.0.1:PORT/v1 --model ID --model-file MODEL.gguf
                    --adapter A.gguf --adapter B.gguf [--llama-server PATH] [--exact]

Prints a JSON summary on stdout and notes on stderr; exits 0 only when every check passed.
"""
import concurrent.futures
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_server_parity import post, start_llama_server  # noqa: E402
from openai_checks import Suite, common_arguments, expect, expect_status, note, user  # noqa: E402
import openai  # noqa: E402

# None: no `lora` field (the loaded scales); [{id 0, scale 0}]: every adapter off (those not listed: 0).
LISTS = [None, [{"id": 0, "scale": 0}], [{"id": 0, "scale": 0.5}], [{"id": 1, "scale": 1.0}],
         [{"id": 0, "scale": 1.0}, {"id": 1, "scale": 0.5}]]
PROMPTS = ["The capital of France is", "Once upon a time", "def add(a, b):"]


def complete(suite: Suite, prompt: str, lora, tokens: int = 24, **extra) -> tuple[str, str]:
    """Greedy text and its first token from ours, with `lora` in the body when it is not None."""
    extra |= {} if lora is None else {"lora": lora}
    answer = suite.client().completions.create(model=suite.args.model, prompt=prompt, max_tokens=tokens, temperature=0,
                                               logprobs=0, extra_body=extra)
    choice = answer.choices[0]
    return choice.text, (choice.logprobs.tokens[0] if choice.logprobs and choice.logprobs.tokens else "")


def check_parity(suite: Suite) -> dict:
    with tempfile.TemporaryFile() as log:
        adapters = [flag for path in suite.args.adapter for flag in ("--lora", path)]
        process, theirs = start_llama_server(suite.args.llama_server, suite.args.model_file, log,
                                             ["-c", "2048", "-np", "1", "-t", "2", "--no-repack", *adapters])
        try:
            compared, texts = 0, set()
            for prompt in PROMPTS:
                for lora in LISTS:
                    body = {"prompt": prompt, "max_tokens": 24, "temperature": 0} | ({} if lora is None else {"lora": lora})
                    status, reference = post(theirs, "/v1/completions", body)
                    expect(status == 200, f"llama-server answered {status}: {reference}")
                    ours, _ = complete(suite, prompt, lora)
                    expected = reference["choices"][0]["text"]
                    expect(ours == expected, f"{prompt!r} with lora {lora}: ours {ours!r}, llama-server {expected!r}")
                    compared += 1
                    texts.add((prompt, ours))
                # An empty list is the loaded scales. (llama-server then keeps the cache of the
                # scales its slot used last, so its answer depends on the request before.) Both
                # evaluate the whole prompt: a prompt half from the cache rounds differently.
                empty, _ = complete(suite, prompt, [], cache_prompt=False)
                loaded, _ = complete(suite, prompt, None, cache_prompt=False)
                expect(empty == loaded, f"{prompt!r}: an empty list {empty!r}, no list {loaded!r}")
        finally:
            process.kill()
            process.wait()
    expect(len(texts) == compared, f"the lists gave {len(texts)} texts for {compared} requests: some changed nothing")
    return {"compared": compared}


def check_together(suite: Suite) -> dict:
    prompt = "The three primary colors are"
    # Each evaluates its whole prompt: one taken in part from the cache rounds differently.
    alone = [complete(suite, prompt, lora, 32, cache_prompt=False) for lora in LISTS]
    with concurrent.futures.ThreadPoolExecutor(len(LISTS)) as pool:
        together = list(pool.map(lambda lora: complete(suite, prompt, lora, 32, cache_prompt=False), LISTS))
    for lora, (text, first), (text_alone, first_alone) in zip(LISTS, together, alone):
        expect(first == first_alone, f"lora {lora}: the first token {first!r} together, {first_alone!r} alone")
    same = sum(a == b for a, b in zip(alone, together))
    note(f"together: {same} of {len(LISTS)} answers as alone")
    # In a unified cache, a sequence decoded beside others has its cells elsewhere, which moves
    # the logits' last bits; a random adapter's flat distributions have near ties that this flips.
    expect(same * 2 > len(LISTS), f"only {same} of {len(LISTS)} answers were the same as alone")
    expect(not suite.args.exact or same == len(LISTS), f"{same} of {len(LISTS)} answers were the same as alone")
    expect(len({text for text, _ in alone}) == len(LISTS), "two lists gave the same text")
    return {"same": same}


def check_endpoints(suite: Suite) -> dict:
    names = [os.path.basename(path) for path in suite.args.adapter]
    with suite.http() as http:
        listed = http.get("/lora-adapters").json()
        expect(listed == [{"id": index, "path": name, "scale": 1} for index, name in enumerate(names)],
               f"GET /lora-adapters: {listed}")
        answer = http.post("/lora-adapters", json=[{"id": 1, "scale": 0.5}])
        expect(answer.status_code == 200 and answer.json() == {"success": True}, f"POST: {answer.status_code} {answer.text}")
        listed = http.get("/lora-adapters").json()
        expect([entry["scale"] for entry in listed] == [0, 0.5], f"GET after POST: {listed}")
        messages = user("Name a color.")
        chat = suite.client().chat.completions.create
        default = chat(model=suite.args.model, messages=messages, max_tokens=16, temperature=0).choices[0].message.content
        named = chat(model=suite.args.model, messages=messages, max_tokens=16, temperature=0,
                     extra_body={"lora": [{"id": 1, "scale": 0.5}]}).choices[0].message.content
        loaded = chat(model=suite.args.model, messages=messages, max_tokens=16, temperature=0,
                      extra_body={"lora": [{"id": 0, "scale": 1}, {"id": 1, "scale": 1}]}).choices[0].message.content
        expect(default == named, f"after POST, no lora {default!r}, the same list {named!r}")
        expect(default != loaded, f"after POST, no lora answers as the loaded scales: {default!r}")
        restored = http.post("/lora-adapters", json={"model": suite.args.model, "lora": [{"id": 0, "scale": 1}, {"id": 1, "scale": 1}]})
        expect(restored.status_code == 200, f"POST with a model: {restored.status_code} {restored.text}")
        expect([entry["scale"] for entry in http.get("/lora-adapters").json()] == [1, 1], "the scales were not restored")
    return {"default": default}


def check_errors(suite: Suite) -> dict:
    client = suite.client()
    found = {}
    for name, lora, words in [("id", [{"id": 2, "scale": 1}], "names adapter 2, but the model has 2"),
                              ("shape", {"id": 0}, "'lora' must be an array"),
                              ("scale", [{"id": 0, "scale": "high"}], "'lora[0].scale' must be a number")]:
        body = expect_status(lambda: client.completions.create(model=suite.args.model, prompt="Hi", max_tokens=2,
                                                               extra_body={"lora": lora}), openai.BadRequestError, 400)
        message = body["body"]["message"] if isinstance(body["body"], dict) and "message" in body["body"] else str(body["body"])
        expect(words in message, f"{name}: {message}")
        found[name] = message
    with suite.http() as http:
        for body, words in [(5, "must be an array"), ([{"id": 9, "scale": 1}], "names adapter 9"),
                            ({"model": suite.args.model}, "'lora' is required"),
                            ({"model": "nobody", "lora": []}, "does not exist")]:
            answer = http.post("/lora-adapters", json=body)
            expect(answer.status_code in (400, 404) and words in answer.text, f"POST {body}: {answer.status_code} {answer.text}")
    return found


def main() -> None:
    parser = common_arguments(__doc__)
    parser.add_argument("--model-file", required=True)
    parser.add_argument("--adapter", action="append", required=True)
    parser.add_argument("--exact", action="store_true", help="together: every answer as alone")
    parser.add_argument("--llama-server", default=os.path.join(os.environ.get("LLMKIT_PREFIX", "/usr/local"), "bin/llama-server"))
    suite = Suite(parser.parse_args())
    suite.run("parity", check_parity)
    suite.run("together", check_together)
    suite.run("endpoints", check_endpoints)
    suite.run("errors", check_errors)
    suite.finish()


if __name__ == "__main__":
    main()
