#!/usr/bin/env python3
"""Writes a Gemma-3-270M-shaped GGUF: the real model's header (metadata, vocabulary, tensor
table) followed by random tensor data, for throughput benchmarks on machines that cannot
download the real model. Every data byte is below 0x7C, so that no F16/F32 value is an
infinity or a NaN.

Usage: gemma_shaped.py HEADER OUT.gguf SIZE
  HEADER  the real model's first bytes, before the tensor data (may be .xz-compressed)
  SIZE    the real model's size in bytes (253113024 for Gemma 3 270M Q4_K_M)
"""
import lzma
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    header_path, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opener = lzma.open if header_path.endswith(".xz") else open
    with opener(header_path, "rb") as handle:
        header = handle.read()
    if header[:4] != b"GGUF":
        sys.exit(f"{header_path} does not start with a GGUF header")
    table = bytes(value % 0x7C for value in range(256))
    with open(out + ".partial", "wb") as handle:
        handle.write(header)
        remaining = size - len(header)
        while remaining > 0:
            chunk = os.urandom(min(remaining, 16 << 20)).translate(table)
            handle.write(chunk)
            remaining -= len(chunk)
    os.replace(out + ".partial", out)


if __name__ == "__main__":
    main()
