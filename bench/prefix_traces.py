#!/usr/bin/env python3
"""Writes two request traces for `infergate bench --replay` that differ only in what their prompts
share. Each has 200 requests 50 ms apart, with 2,400 prompt tokens in five 512-token blocks and 16
output tokens. In shared.jsonl every request opens with blocks 1-4 and only its fifth block is its
own; in unique.jsonl all five blocks are each request's own (bench/RESULTS.md, 2026-12-07).

usage: bench/prefix_traces.py [DIR]   (default: the current directory)
"""
import json
import os
import sys


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, shared in (("shared", True), ("unique", False)):
        with open(os.path.join(folder, name + ".jsonl"), "w") as out:
            fresh = 1000  # ids no other request names
            for i in range(200):
                ids = [1, 2, 3, 4, fresh] if shared else list(range(fresh, fresh + 5))
                fresh += 5
                out.write(json.dumps({"timestamp": i * 50, "input_length": 2400, "output_length": 16,
                                      "hash_ids": ids}) + "\n")


if __name__ == "__main__":
    main()
