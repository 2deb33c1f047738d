"""How often each proxy sleeps, and how often the client and upstream behind it do, per request.

Under `infergate bench` (closed loop, the client and an instant nginx upstream sharing core 0, the
proxy alone on core 1) requests/s depend on how often core 0 is woken: every wake-up costs the
waker a system call and an interrupt. This runs plain requests through infergate (once per
`--busy-poll` limit) and haproxy, and reports per request: voluntary context switches of the
proxy's threads and of the upstream's worker (from /proc/PID/task/*/status) and the client's
context switches (perf stat -e context-switches). Each gateway runs alone on core 1 while it is
measured.

Usage: /usr/bin/python3 bench/proxy_wakeups.py [--bin build/src/cli/infergate] [--connections 16]
           [--seconds 3] [--busy-poll 0,5,10,20]
Needs nginx, haproxy and perf (apt-get install nginx-light haproxy linux-perf)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import (children, free_port, run_bench, stop_all, wait_port, write_haproxy,  # noqa: E402
                              write_upstream)


def switches(pid):
    """Voluntary context switches of every thread of `pid`."""
    total = 0
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, task)) as f:
            total += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", f.read(), re.M).group(1))
    return total


def bench(binary, url, model, connections, seconds):
    """requests completed, requests/s, and the client's context switches."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as stat:
        r = run_bench(binary, url, model, "plain", connections, seconds,
                      wrapper=["perf", "stat", "-x,", "-o", stat.name, "-e", "context-switches"])
        counted = [line for line in open(stat.name).read().splitlines() if "context-switches" in line]
    return r["requests"], r["rps"], int(counted[0].split(",")[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--seconds", type=int, default=3)
    p.add_argument("--busy-poll", default="0,5,10,20", help="server.busy_poll_us values to run infergate with")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="ig-wakeups-")
    procs = []

    def start(cmd, port):
        proc = subprocess.Popen(["taskset", "-c", "1" if cmd[0] != "nginx" else "0"] + cmd,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        wait_port(port)
        return proc

    upstream = free_port()
    try:
        worker = children(start(["nginx", "-c", write_upstream(tmp, upstream)], upstream).pid)[-1]
        targets = []
        haproxy_port = free_port()
        targets.append(("haproxy", ["haproxy", "-f", write_haproxy(tmp, haproxy_port, upstream), "-db"], haproxy_port,
                        "/plain/v1", "bench"))
        for limit in args.busy_poll.split(","):
            port = free_port()
            config = os.path.join(tmp, "gateway-%s.yaml" % limit)
            with open(config, "w") as f:
                f.write("server: {access_log: '%s/access-%s.jsonl', threads: 1, busy_poll_us: %s}\n"
                        "providers:\n  plain: {base_url: 'http://127.0.0.1:%d/plain/v1'}\n"
                        "models:\n  plain: {deployments: [{provider: plain, model: bench}]}\n"
                        % (tmp, limit, limit, upstream))
            targets.append(("infergate, busy poll %s us" % limit, [args.bin, "serve", "--config", config, "--port",
                                                                  str(port)], port, "/v1", "plain"))
        print("plain, %d connections, infergate bench, %d s each; per request:" % (args.connections, args.seconds))
        print("  %-28s %9s %14s %16s %14s" % ("proxy", "req/s", "proxy sleeps", "upstream sleeps", "client switches"))
        for name, cmd, port, path, model in targets:
            proxy = start(cmd, port)
            proxy_before, upstream_before = switches(proxy.pid), switches(worker)
            n, rps, client = bench(args.bin, "http://127.0.0.1:%d%s" % (port, path), model, args.connections,
                                   args.seconds)
            proxy_after, upstream_after = switches(proxy.pid), switches(worker)
            print("  %-28s %9.0f %14.2f %16.2f %14.2f" % (name, rps, (proxy_after - proxy_before) / n,
                                                         (upstream_after - upstream_before) / n, client / n))
            proxy.terminate()
            proxy.wait(timeout=10)
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)  # the logs of a run take gigabytes


if __name__ == "__main__":
    main()
