#!/usr/bin/env python3
"""Download speed and memory: `llmkit pull` next to `curl` + `sha256sum` doing the same work.

A local server (the tests' download server) serves the default model on 127.0.0.1. Each
round, alternating, llmkit pulls it into an empty library (download, size check, SHA-256,
GGUF header, register), and curl downloads it and sha256sum hashes it. Reports the median
wall time of each, their ratio, and llmkit's peak resident memory.

Usage: bench/download_compare.py [-r N] [--model PATH] [--llmkit PATH]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compare import default_model

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "Tests/LocalLLMKitTestSupport/download_server.py"


def timed(command, env=None):
    """Runs a command; returns (seconds, peak RSS in KiB, stdout)."""
    # Files, not pipes: output the child writes cannot block it while we wait.
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        stdout.seek(0)
        stderr.seek(0)
        out, err = stdout.read().decode(), stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed: {err[-800:]}")
    return elapsed, usage.ru_maxrss, out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-r", "--rounds", type=int, default=5)
    parser.add_argument("--model", default=None)
    parser.add_argument("--llmkit", default=str(ROOT / ".build/release/llmkit"))
    args = parser.parse_args()
    model = Path(args.model or default_model()).resolve()
    sha = subprocess.run(["sha256sum", str(model)], capture_output=True, text=True, check=True).stdout.split()[0]

    with tempfile.TemporaryDirectory(prefix="llmkit-download-bench-") as work:
        work = Path(work)
        served = work / "served"
        served.mkdir()
        (served / "model.gguf").symlink_to(model)
        server = subprocess.Popen([sys.executable, str(SERVER), str(served)], stdout=subprocess.PIPE)
        try:
            port = int(server.stdout.readline())
            url = f"http://127.0.0.1:{port}/files/model.gguf"
            llmkit_times, curl_times, rss = [], [], []
            for round_ in range(args.rounds):
                home = work / "home"
                shutil.rmtree(home, ignore_errors=True)
                env = dict(os.environ, LLMKIT_HOME=str(home))
                seconds, peak, out = timed([args.llmkit, "pull", url, "--sha256", sha], env=env)
                llmkit_times.append(seconds)
                rss.append(peak)
                target = work / "curl.gguf"
                start = time.perf_counter()
                subprocess.run(["curl", "-sf", "-o", str(target), url], check=True)
                digest = subprocess.run(["sha256sum", str(target)], capture_output=True, text=True, check=True).stdout.split()[0]
                curl_times.append(time.perf_counter() - start)
                target.unlink()
                if digest != sha:
                    sys.exit("curl downloaded a different file")
                print(f"round {round_ + 1}: llmkit pull {seconds:.3f} s, curl + sha256sum {curl_times[-1]:.3f} s", file=sys.stderr)
        finally:
            server.kill()

    size = model.stat().st_size / 1048576
    llmkit_median, curl_median = statistics.median(llmkit_times), statistics.median(curl_times)
    print(f"file: {model} ({size:.1f} MiB), {args.rounds} rounds, medians")
    print(f"{'tool':<24} {'seconds':>8} {'MiB/s':>8}")
    print(f"{'llmkit pull':<24} {llmkit_median:>8.3f} {size / llmkit_median:>8.1f}")
    print(f"{'curl + sha256sum':<24} {curl_median:>8.3f} {size / curl_median:>8.1f}")
    print(f"ratio (curl time / llmkit time; above 1 means llmkit is faster): {curl_median / llmkit_median:.3f}")
    print(f"llmkit pull peak RSS: {max(rss) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
