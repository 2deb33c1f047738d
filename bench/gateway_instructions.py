"""Two infergate builds, one load: how many instructions the gateway executes per proxied request.

Time per request on these machines drifts by tens of percent from minute to minute (shared hosts);
an instruction count does not. Each build runs as the gateway under valgrind's callgrind, alone on
core 1, in front of the instant nginx upstream of gateway_overhead.py on core 0, driven by wrk
(also on core 0). After a warm-up the counters are zeroed, wrk runs for --seconds, and the counts
are dumped: instructions per request, in the gateway's own threads, user space only (system calls
are the kernel's and are not counted), and the functions whose own instructions changed most.
Busy polling is off in both (its wait loop spins on the clock, so its count is the time it
waited, not work).

Instructions are not time: a cache miss costs more than an add, and the kernel's share of a
proxied request (about two thirds here) is not in the count. Use it to tell whether a change to
the request path does less work, and gateway_versions.py for what that is worth in CPU time.

Usage: /usr/bin/python3 bench/gateway_instructions.py --baseline OTHER_BUILD/src/cli/infergate
           [--candidate build/src/cli/infergate] [--modes plain,stream] [--auth] [--connections 16]
           [--seconds 4] [--top 15]
Needs valgrind, nginx and wrk (apt-get install valgrind nginx-light wrk)."""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import create_unlimited_key, free_port, stop_all, wait_port, write_upstream  # noqa: E402

MASTER = "bench-master-key-0123456789"


def self_costs(path):
    """Instructions each function executed itself, from a callgrind output file."""
    names, cost, fn, call_line = {}, collections.Counter(), None, False
    with open(path) as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("fn="):
                    fn = names[m.group(1)]
            elif line.startswith("calls="):
                call_line = True  # the next cost line is the callee's, not this function's
            elif line[:1].isdigit() or line[:1] in "+-*":
                if call_line:
                    call_line = False
                elif fn is not None:
                    fields = line.split()
                    if len(fields) > 1:
                        cost[fn] += int(fields[1])
    return cost


def measure(binary, mode, auth, connections, seconds):
    """Instructions per request and per function of one gateway build under callgrind."""
    tmp = tempfile.mkdtemp(prefix="ig-instructions-")
    upstream, port = free_port(), free_port()
    procs = [subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)])]
    try:
        wait_port(upstream)
        config = os.path.join(tmp, "gateway.yaml")
        with open(config, "w") as f:
            f.write("server: {access_log: '%s/access.jsonl', threads: 1, busy_poll_us: 0}\n" % tmp)
            if auth:
                f.write("auth:\n  master_key: %s\n  keys_db: %s/keys.db\n" % (MASTER, tmp))
            f.write("providers:\n  plain: {base_url: 'http://127.0.0.1:%d/plain/v1'}\n"
                    "  sse: {base_url: 'http://127.0.0.1:%d/sse/v1'}\n"
                    "models:\n  plain: {deployments: [{provider: plain, model: bench}], price: {input: 0.1, output: 0.2}}\n"
                    "  sse: {deployments: [{provider: sse, model: bench}], price: {input: 0.1, output: 0.2}}\n"
                    % (upstream, upstream))
        gateway = subprocess.Popen(["taskset", "-c", "1", "valgrind", "--tool=callgrind",
                                    "--callgrind-out-file=%s/callgrind.%%p" % tmp, binary, "serve", "--config",
                                    config, "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs.append(gateway)
        wait_port(port, 60)
        lua = os.path.join(tmp, "request.lua")
        with open(lua, "w") as f:
            f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                    'wrk.body = [[{"model":"%s","messages":[{"role":"user","content":"%s"}],"max_tokens":64%s}]]\n'
                    % ("plain" if mode == "plain" else "sse", "hello " * 100,
                       ',"stream":true' if mode == "stream" else ""))
            if auth:
                f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % create_unlimited_key(port, MASTER))
        url = "http://127.0.0.1:%d/v1/chat/completions" % port

        def wrk(duration):
            return subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % duration,
                                   "-s", lua, url], capture_output=True, text=True, check=True).stdout

        wrk(2)
        subprocess.run(["callgrind_control", "-z", str(gateway.pid)], capture_output=True, check=True)
        out = wrk(seconds)
        subprocess.run(["callgrind_control", "-d", str(gateway.pid)], capture_output=True, check=True)
        if "Non-2xx" in out:
            raise RuntimeError("errors during the run:\n" + out)
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        deadline = time.monotonic() + 30
        dumps = []
        while not dumps and time.monotonic() < deadline:
            time.sleep(0.2)
            dumps = glob.glob(os.path.join(tmp, "callgrind.*.1"))
        if not dumps:
            raise RuntimeError("callgrind wrote no dump")
        time.sleep(0.5)  # the dump is written once the file appears; let it finish
        cost = self_costs(dumps[0])
        return requests, {name: n / requests for name, n in cost.items()}
    finally:
        stop_all(procs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", default="build/src/cli/infergate")
    p.add_argument("--modes", default="plain,stream")
    p.add_argument("--auth", action="store_true", help="a virtual key with limits, and the usage ledger, on")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args()
    for mode in args.modes.split(","):
        results = {}
        for name, binary in (("baseline", args.baseline), ("candidate", args.candidate)):
            results[name] = measure(binary, mode, args.auth, args.connections, args.seconds)
        base, cand = results["baseline"][1], results["candidate"][1]
        total_base, total_cand = sum(base.values()), sum(cand.values())
        print("\n%s, %d connections, wrk%s (callgrind, user-space instructions of the gateway)"
              % (mode, args.connections, ", keys on" if args.auth else ""))
        print("  %-10s %9s %18s" % ("build", "requests", "instructions/req"))
        for name in ("baseline", "candidate"):
            print("  %-10s %9d %18.0f" % (name, results[name][0], sum(results[name][1].values())))
        print("  candidate / baseline: %.3f" % (total_cand / total_base))
        print("  functions whose own instructions per request changed most (baseline -> candidate):")
        names = sorted(set(base) | set(cand), key=lambda n: -abs(cand.get(n, 0) - base.get(n, 0)))
        for n in names[:args.top]:
            print("    %+7.0f  %7.0f -> %7.0f  %s" % (cand.get(n, 0) - base.get(n, 0), base.get(n, 0), cand.get(n, 0),
                                                   n[:110]))


if __name__ == "__main__":
    main()
