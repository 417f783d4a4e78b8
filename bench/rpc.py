#!/usr/bin/env python3
"""A model split over llama.cpp RPC servers on loopback: what RPC costs, and llmkit against
llama.cpp on the same split, in one run.

Two servers of each kind run on 127.0.0.1: `llmkit rpc-server` for llmkit, and llama.cpp's own
`ggml-rpc-server` for `llama-bench --rpc`. Each tool measures the model locally (every layer on
this CPU, -ngl 0) and split (--gpu-layers layers on the servers, shared by their free memory, the
rest on this CPU), with llama-bench's method (`llmkit bench --json`, `llama-bench -o json`).
The four runs go in ABBA order (reversed every other pair) so that drift hits all alike.

Reported per test (pp, tg): tokens/s of each run; the RPC overhead of each tool (split ÷ local);
and llmkit's split over llama-bench's split.

On a GPU machine (bench/gpu/h200.sh rpc) the servers offer the GPU, the local runs keep every
layer on it (--local-gpu-layers 999), and --tensor-split 1,1,0 puts every offloaded layer on the
two servers.

Usage: bench/rpc.py [--model GGUF] [--gpu-layers 20] [--local-gpu-layers 0] [--tensor-split A,B,…]
                    [--threads 2] [--server-threads 2]
                    [-p 512] [-n 128] [-r 3] [--pairs 2] [--llmkit PATH] [--prefix DIR] [--json FILE]
"""
import argparse, json, os, socket, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = os.environ.get("LLMKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "llmkit")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(command, port):
    process = subprocess.Popen(command + ["--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit(f"{command[0]} exited ({process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit(f"{command[0]} did not listen on {port}")


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.path.realpath(os.path.join(CACHE, "models", "default.gguf")))
    parser.add_argument("--gpu-layers", type=int, default=20, help="layers offloaded in the split runs")
    parser.add_argument("--local-gpu-layers", type=int, default=0, help="layers on this machine's GPU in the local runs")
    parser.add_argument("--tensor-split", help="shares of the offloaded layers, e.g. 1,1,0: the servers' devices, then local GPUs")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--server-threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-p", type=int, default=512)
    parser.add_argument("-n", type=int, default=128)
    parser.add_argument("-r", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    parser.add_argument("--prefix", default=os.environ.get("LLMKIT_PREFIX", "/usr/local"))
    parser.add_argument("--json", help="write every sample here")
    args = parser.parse_args()

    servers = []
    ours = [start_server([args.llmkit, "rpc-server", "--threads", str(args.server_threads)], free_port()) for _ in range(2)]
    servers += ours
    ours_endpoints = ",".join(f"127.0.0.1:{p.args[-1]}" for p in ours)
    theirs = [start_server([os.path.join(args.prefix, "bin", "ggml-rpc-server"), "-t", str(args.server_threads)], free_port())
              for _ in range(2)]
    servers += theirs
    theirs_endpoints = ",".join(f"127.0.0.1:{p.args[-1]}" for p in theirs)
    try:
        common = ["-m", args.model, "-t", str(args.threads), "-p", str(args.p), "-n", str(args.n), "-r", str(args.r)]
        llama_bench = os.path.join(args.prefix, "bin", "llama-bench")
        split = ["-ts", args.tensor_split.replace("/", ",")] if args.tensor_split else []
        commands = {
            "llmkit local": [args.llmkit, "bench", *common, "-ngl", str(args.local_gpu_layers), "--json"],
            "llmkit rpc": [args.llmkit, "bench", *common, "-ngl", str(args.gpu_layers), "--rpc", ours_endpoints, *split, "--json"],
            "llama-bench local": [llama_bench, *common, "-ngl", str(args.local_gpu_layers), "-o", "json"],
            "llama-bench rpc": [llama_bench, *common, "-ngl", str(args.gpu_layers), "--rpc", theirs_endpoints,
                                *[x.replace(",", "/") for x in split], "-o", "json"],
        }
        samples = {}
        for pair in range(args.pairs):
            order = list(commands) if pair % 2 == 0 else list(reversed(commands))
            for name in order:
                for test in run(commands[name]):
                    kind = f"pp{test['n_prompt']}" if test["n_prompt"] else f"tg{test['n_gen']}"
                    samples.setdefault((name, kind), []).extend(test["samples_ts"])
            print(f"pair {pair + 1}/{args.pairs} done", file=sys.stderr)
    finally:
        for server in servers:
            server.kill()

    mean = lambda name, kind: statistics.mean(samples[(name, kind)])
    print(f"model: {args.model}\nthreads: {args.threads} here, {args.server_threads} per server; "
          f"{args.gpu_layers} layers offloaded with 2 servers on 127.0.0.1 (tensor split {args.tensor_split or 'by free memory'}), "
          f"local runs with {args.local_gpu_layers}; -r {args.r}, {args.pairs} ABBA pairs\n")
    print("| test | llmkit local | llmkit RPC | RPC ÷ local | llama-bench local | llama-bench RPC | RPC ÷ local | llmkit RPC ÷ llama-bench RPC |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind in sorted({kind for _, kind in samples}, key=lambda k: (k[:2], int(k[2:]))):
        a, b = mean("llmkit local", kind), mean("llmkit rpc", kind)
        c, d = mean("llama-bench local", kind), mean("llama-bench rpc", kind)
        print(f"| {kind} | {a:.1f} | {b:.1f} | {b / a:.3f} | {c:.1f} | {d:.1f} | {d / c:.3f} | **{b / d:.3f}** |")
    if args.json:
        Path(args.json).write_text(json.dumps({f"{n}/{k}": v for (n, k), v in samples.items()}, indent=2))


if __name__ == "__main__":
    main()
