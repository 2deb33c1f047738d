"""Client fidelity: how far each client's TTFT is from the server's ground truth, at rising token
rates, for infergate bench and for a typical Python aiohttp benchmark client, in the same run.

The simulator stamps (CLOCK_MONOTONIC) when it hands each first token to the kernel; a client's
error is the time from there until it has the token timestamped. The simulator runs at increasing
--speedup so the streamed token rate rises; both clients see the same server, load and machine.

Usage: /usr/bin/python3 bench/client_fidelity.py [--bin build/src/cli/infergate] [--speedups 1,2,4,8]
Prints a table per client and speed, the largest rate where each still holds p50 <= 0.2 ms and
p99 <= 1 ms, and the ratios."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = "llama-3.1-8b:fp8@h100"


def percentile(values, p):
    values = sorted(values)
    rank = p / 100 * (len(values) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (rank - lo)


def start_sim(binary, speedup):
    proc = subprocess.Popen([binary, "sim", "--port", "0", "--profile", PROFILE, "--max-num-seqs", "64",
                             "--speedup", str(speedup)], stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def run_ours(binary, url, args):
    with tempfile.TemporaryDirectory() as tmp:
        records = os.path.join(tmp, "r.jsonl")
        summary = os.path.join(tmp, "s.json")
        subprocess.run([binary, "bench", "--base-url", url, "--concurrency", str(args.concurrency), "--requests",
                        str(args.requests), "--input-tokens", "64", "--output-tokens", str(args.output_tokens),
                        "--trace", "--records", records, "--json", summary], check=True, capture_output=True)
        with open(records) as f:
            rows = [json.loads(line) for line in f]
        with open(summary) as f:
            rate = json.load(f)["summary"]["output_tokens_per_s"]
    errors = [(r["first_token_ns"] - r["server_trace"]["first_token_ns"]) / 1e6 for r in rows]
    return errors, rate


def run_baseline(url, args):
    out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "baseline_aiohttp_client.py"), "--base-url", url,
                          "--model", PROFILE.split(":")[0], "--concurrency", str(args.concurrency), "--requests",
                          str(args.requests), "--output-tokens", str(args.output_tokens)],
                         check=True, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    errors = [(first - trace) / 1e6 for first, trace, _ in doc["records"]]
    tokens = sum(t for _, _, t in doc["records"])
    return errors, tokens / ((doc["end_ns"] - doc["start_ns"]) / 1e9)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--speedups", default="1,2,4,8")
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--requests", type=int, default=256)
    p.add_argument("--output-tokens", type=int, default=256)
    args = p.parse_args()

    rows = []
    for speedup in [float(s) for s in args.speedups.split(",")]:
        for client in ("infergate", "aiohttp"):
            proc, url = start_sim(args.bin, speedup)
            try:
                errors, rate = run_ours(args.bin, url, args) if client == "infergate" else run_baseline(url, args)
            finally:
                proc.terminate()
                proc.wait()
            row = {"client": client, "speedup": speedup, "tok_s": rate, "p50": percentile(errors, 50),
                   "p99": percentile(errors, 99), "max": max(errors)}
            row["holds"] = row["p50"] <= 0.2 and row["p99"] <= 1.0
            rows.append(row)
            print("{client:>9}  speedup {speedup:>5g}  {tok_s:>9.0f} tok/s  TTFT error p50 {p50:7.3f} ms  "
                  "p99 {p99:7.3f} ms  max {max:7.3f} ms  {ok}".format(ok="holds" if row["holds"] else "FAILS", **row),
                  flush=True)

    def best(client):
        ok = [r["tok_s"] for r in rows if r["client"] == client and r["holds"]]
        return max(ok) if ok else 0.0

    ours, base = best("infergate"), best("aiohttp")
    print(f"largest token rate holding p50<=0.2ms and p99<=1ms: infergate {ours:.0f} tok/s, aiohttp {base:.0f} tok/s"
          + (f", ratio {ours / base:.1f}x" if base > 0 else ", aiohttp never holds"))
    for speedup in sorted({r["speedup"] for r in rows}):
        pair = {r["client"]: r for r in rows if r["speedup"] == speedup}
        if pair["infergate"]["p50"] > 0:
            print(f"speedup {speedup:g}: TTFT error p50 ratio aiohttp/infergate "
                  f"{pair['aiohttp']['p50'] / pair['infergate']['p50']:.1f}x, p99 ratio "
                  f"{pair['aiohttp']['p99'] / max(pair['infergate']['p99'], 1e-9):.1f}x")


if __name__ == "__main__":
    sys.exit(main())
