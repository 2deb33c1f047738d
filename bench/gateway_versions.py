"""Two infergate builds, one load: which spends less CPU per proxied request.

The machines here drift by tens of percent from minute to minute (shared hosts), more than most
single changes move the gateway's cost. This runs a baseline and a candidate build side by side
against the instant nginx upstream of gateway_overhead.py, in interleaved rounds (A B, B A, ...),
each gateway alone on core 1 and wrk with the upstream on core 0, and reports the medians of the
gateways' user and system CPU per request and their ratio. Build the baseline from another commit
in a separate tree, for example:

  git worktree add /tmp/base <commit> && cmake -S /tmp/base -B /tmp/base/build -G Ninja \\
      -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C /tmp/base/build infergate

With --auth both gateways check a virtual key with limits far above the load and write every
request to their usage ledger (control_plane_overhead.py's "local"); each round's CPU is read
after a pause of two ledger flush intervals, so the rows it writes after the load count too.
--redis is --auth with the RPM/TPM counters in a redis-server beside the upstream ("redis").

Usage: /usr/bin/python3 bench/gateway_versions.py --baseline /tmp/base/build/src/cli/infergate
           [--candidate build/src/cli/infergate] [--seconds 3] [--rounds 6] [--connections 16] [--auth | --redis]
           [--load wrk|bench [--client BUILD]] [--candidate-server 'busy_poll_us: 0']
Needs nginx and wrk (apt-get install nginx-light wrk)."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import (cpu_split, create_unlimited_key, free_port, run_bench, run_wrk,  # noqa: E402
                              stop_all, wait_port, write_upstream)


MASTER = "bench-master-key-0123456789"
LEDGER_FLUSH_MS = 500


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baseline", required=True)
    p.add_argument("--candidate", default="build/src/cli/infergate")
    p.add_argument("--seconds", type=int, default=3)
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--auth", action="store_true", help="virtual keys, limits and the usage ledger on")
    p.add_argument("--redis", action="store_true",
                   help="--auth with the rate-limit state in a redis-server (on core 0, beside the upstream)")
    p.add_argument("--load", choices=("wrk", "bench"), default="wrk",
                   help="load generator: wrk, or `infergate bench` (closed loop, below saturation) run by --client")
    p.add_argument("--candidate-server", default="", metavar="SETTINGS",
                   help="more of the candidate's `server:` settings, as YAML flow items (e.g. 'busy_poll_us: 0'): "
                   "to compare a setting with one build as both --baseline and --candidate")
    p.add_argument("--client", help="the infergate build that runs --load bench (default: --baseline), the same "
                   "for both gateways")
    args = p.parse_args()
    args.auth = args.auth or args.redis
    tmp = tempfile.mkdtemp(prefix="ig-versions-")
    upstream = free_port()
    procs = [subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)],
                              stderr=subprocess.DEVNULL)]
    try:
        wait_port(upstream)
        state = ""
        if args.redis:
            redis_port = free_port()
            procs.append(subprocess.Popen(["taskset", "-c", "0", "redis-server", "--port", str(redis_port), "--bind",
                                           "127.0.0.1", "--save", "", "--appendonly", "no"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_port(redis_port)
            state = ", state: 'redis://127.0.0.1:%d'" % redis_port
        gateways = {}
        for name, binary in (("baseline", args.baseline), ("candidate", args.candidate)):
            port = free_port()
            server = ", " + args.candidate_server if name == "candidate" and args.candidate_server else ""
            config = os.path.join(tmp, name + ".yaml")
            auth = ("auth: {master_key: %s, keys_db: '%s/%s.db', ledger_flush_ms: %d%s}\n"
                    % (MASTER, tmp, name, LEDGER_FLUSH_MS, state)) if args.auth else ""
            with open(config, "w") as f:
                f.write("server: {access_log: '%s/%s.jsonl', threads: 1%s}\n%s"
                        "providers:\n  plain: {base_url: 'http://127.0.0.1:%d/plain/v1'}\n"
                        "  sse: {base_url: 'http://127.0.0.1:%d/sse/v1'}\n"
                        "models:\n  plain: {deployments: [{provider: plain, model: bench}], price: {input: 0.1, output: 0.2}}\n"
                        "  sse: {deployments: [{provider: sse, model: bench}], price: {input: 0.1, output: 0.2}}\n" % (tmp, name, server, auth, upstream, upstream))
            proc = subprocess.Popen(["taskset", "-c", "1", binary, "serve", "--config", config, "--port", str(port)],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            procs.append(proc)
            wait_port(port)
            gateways[name] = (proc.pid, port, create_unlimited_key(port, MASTER) if args.auth else None)
        for mode in ("plain", "stream"):
            body = {"model": "plain" if mode == "plain" else "sse",
                    "messages": [{"role": "user", "content": "hello " * 100}], "max_tokens": 64,
                    "stream": mode == "stream"}
            scripts = {}
            for name, (_, _, key) in gateways.items():
                scripts[name] = os.path.join(tmp, "%s-%s.lua" % (name, mode))
                with open(scripts[name], "w") as f:
                    f.write('wrk.method = "POST"\nwrk.path = "/v1/chat/completions"\nwrk.body = %s\n'
                            'wrk.headers["Content-Type"] = "application/json"\n' % json.dumps(json.dumps(body)))
                    if key:
                        f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % key)
            runs = {name: [] for name in gateways}
            for r in range(args.rounds):
                for name in (("baseline", "candidate") if r % 2 == 0 else ("candidate", "baseline")):
                    pid, port, key = gateways[name]
                    user0, system0 = cpu_split([pid])
                    if args.load == "bench":
                        w = run_bench(args.client or args.baseline, "http://127.0.0.1:%d/v1" % port, body["model"], mode,
                                      args.connections, args.seconds, key)
                    else:
                        w = run_wrk("http://127.0.0.1:%d" % port, scripts[name], args.connections, args.seconds)
                    if args.auth:
                        time.sleep(2 * LEDGER_FLUSH_MS / 1000)
                    user1, system1 = cpu_split([pid])
                    n = w["requests"]
                    runs[name].append({"user": (user1 - user0) * 1e6 / n, "system": (system1 - system0) * 1e6 / n,
                                       "rps": w["rps"], "p50": w["p50"], "p99": w["p99"]})

            def median(name, field):
                return statistics.median(run[field] for run in runs[name])

            print("\n%s, %d connections, %s (medians of %d interleaved rounds)" % (mode, args.connections, args.load,
                                                                                 args.rounds))
            print("  %-10s %10s %12s %12s %10s %9s %9s" % ("build", "req/s", "user us/req", "sys us/req",
                                                          "CPU us/req", "p50 ms", "p99 ms"))
            for name in gateways:
                print("  %-10s %10.0f %12.1f %12.1f %10.1f %9.3f %9.3f" % (
                    name, median(name, "rps"), median(name, "user"), median(name, "system"),
                    median(name, "user") + median(name, "system"), median(name, "p50"), median(name, "p99")))
            print("  candidate / baseline: user %.2f, CPU %.2f, req/s %.2f" % (
                median("candidate", "user") / median("baseline", "user"),
                (median("candidate", "user") + median("candidate", "system")) /
                (median("baseline", "user") + median("baseline", "system")),
                median("candidate", "rps") / median("baseline", "rps")))
            sys.stdout.flush()
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)  # the logs of a run take gigabytes


if __name__ == "__main__":
    main()
