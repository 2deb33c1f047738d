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

--cache also simulates the caches (32 KiB 8-way L1 for instructions and data, 1 MiB L2) and adds
first-level misses per request: the request path's code is larger than the instruction cache, so
every request fetches most of it again, and the lines a change adds or removes from that path
count as well as its instructions. The simulation knows nothing of the kernel's own use of the
caches between system calls; real misses are more.

--nginx adds Debian's nginx as the proxy under test (buffering off, keep-alive upstream, access
log off, as in gateway_overhead.py), measured the same way: the reference the gateway issue sets.
It has no keys, so --auth changes nothing for it.

Usage: /usr/bin/python3 bench/gateway_instructions.py --baseline OTHER_BUILD/src/cli/infergate
           [--candidate build/src/cli/infergate] [--modes plain,stream] [--auth] [--cache] [--nginx]
           [--connections 16] [--seconds 4] [--top 15]
Needs valgrind, nginx and wrk (apt-get install valgrind nginx-light wrk)."""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import (create_unlimited_key, free_port, nginx_head, stop_all, wait_port,  # noqa: E402
                              write_upstream)

MASTER = "bench-master-key-0123456789"


def self_costs(path):
    """Events (Ir, and the cache misses with --cache) each function incurred itself, from a callgrind
    output file: {event: {function: count}}."""
    names, events, fn, call_line = {}, [], None, False
    cost = collections.defaultdict(collections.Counter)
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("fn=", "cfn=")):
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
                    for event, value in zip(events, line.split()[1:]):
                        cost[event][fn] += int(value)
    return cost


def gateway_under_test(binary, tmp, upstream, port, auth):
    """The command that runs an infergate build as the gateway, and the path prefix of its models."""
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
    return [binary, "serve", "--config", config, "--port", str(port)], False


def nginx_under_test(tmp, upstream, port):
    """The command that runs nginx as the proxy, in one process (valgrind follows no fork)."""
    conf = os.path.join(tmp, "proxy.conf")
    with open(conf, "w") as f:
        f.write("master_process off;\n" + nginx_head(tmp, "proxy") + """
  upstream backend { server 127.0.0.1:%(up)d; keepalive 128; }
  server { listen 127.0.0.1:%(port)d;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection "";
                 proxy_buffering off; proxy_request_buffering off; }
  }
}
""" % {"port": port, "up": upstream})
    return ["nginx", "-c", conf], True


def measure(binary, mode, auth, connections, seconds, cache):
    """Events per request and per function of one proxy under callgrind: an infergate build, or
    nginx when `binary` is None."""
    tmp = tempfile.mkdtemp(prefix="ig-instructions-")
    upstream, port = free_port(), free_port()
    procs = [subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)])]
    try:
        wait_port(upstream)
        command, by_path = (nginx_under_test(tmp, upstream, port) if binary is None
                            else gateway_under_test(binary, tmp, upstream, port, auth))
        simulate = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"] if cache else []
        proxy = subprocess.Popen(["taskset", "-c", "1", "valgrind", "--tool=callgrind"] + simulate +
                                 ["--callgrind-out-file=%s/callgrind.%%p" % tmp] + command,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs.append(proxy)
        wait_port(port, 60)
        lua = os.path.join(tmp, "request.lua")
        with open(lua, "w") as f:
            f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                    'wrk.body = [[{"model":"%s","messages":[{"role":"user","content":"%s"}],"max_tokens":64%s}]]\n'
                    % ("plain" if mode == "plain" else "sse", "hello " * 100,
                       ',"stream":true' if mode == "stream" else ""))
            if auth and binary is not None:
                f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % create_unlimited_key(port, MASTER))
        prefix = ("/plain" if mode == "plain" else "/sse") if by_path else ""
        url = "http://127.0.0.1:%d%s/v1/chat/completions" % (port, prefix)

        def wrk(duration):
            return subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % duration,
                                   "-s", lua, url], capture_output=True, text=True, check=True).stdout

        wrk(2)
        subprocess.run(["callgrind_control", "-z", str(proxy.pid)], capture_output=True, check=True)
        out = wrk(seconds)
        subprocess.run(["callgrind_control", "-d", str(proxy.pid)], capture_output=True, check=True)
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
        return requests, {event: {name: n / requests for name, n in by_fn.items()} for event, by_fn in cost.items()}
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)  # the logs of a run take gigabytes


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", default="build/src/cli/infergate")
    p.add_argument("--modes", default="plain,stream")
    p.add_argument("--auth", action="store_true", help="a virtual key with limits, and the usage ledger, on")
    p.add_argument("--cache", action="store_true", help="simulate the caches and report first-level misses")
    p.add_argument("--nginx", action="store_true", help="measure nginx as the proxy too, for reference")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args()
    targets = [("baseline", args.baseline), ("candidate", args.candidate)] + ([("nginx", None)] if args.nginx else [])
    events = [("Ir", "instructions")] + ([("I1mr", "I1 misses"), ("D1mr+D1mw", "D1 misses")] if args.cache else [])
    for mode in args.modes.split(","):
        results = {name: measure(binary, mode, args.auth, args.connections, args.seconds, args.cache)
                   for name, binary in targets}

        def total(name, event):
            return sum(sum(results[name][1].get(e, {}).values()) for e in event.split("+"))

        print("\n%s, %d connections, wrk%s (callgrind, user space of the proxy, per request)"
              % (mode, args.connections, ", keys on" if args.auth else ""))
        print("  %-10s %9s" % ("proxy", "requests") + "".join(" %14s" % label for _, label in events))
        for name, _ in targets:
            print("  %-10s %9d" % (name, results[name][0]) + "".join(" %14.0f" % total(name, e) for e, _ in events))
        for event, label in events:
            print("  candidate / baseline, %s: %.3f" % (label, total("candidate", event) / total("baseline", event)))
            if args.nginx:
                print("  candidate / nginx, %s: %.3f" % (label, total("candidate", event) / total("nginx", event)))
        for event, label in events[:2]:
            base, cand = results["baseline"][1].get(event, {}), results["candidate"][1].get(event, {})
            print("  functions whose own %s per request changed most (baseline -> candidate):" % label)
            names = sorted(set(base) | set(cand), key=lambda n: -abs(cand.get(n, 0) - base.get(n, 0)))
            for n in names[:args.top]:
                print("    %+7.0f  %7.0f -> %7.0f  %s" % (cand.get(n, 0) - base.get(n, 0), base.get(n, 0),
                                                       cand.get(n, 0), n[:110]))


if __name__ == "__main__":
    main()
