"""Where core 0's time per proxied request goes, behind infergate and behind haproxy.

Under wrk, core 0 (wrk and the instant nginx upstream of gateway_overhead.py) is what limits
requests/s, and it spends more per request behind infergate than behind haproxy though both ask
the same of it (proxy_syscalls.py). This samples core 0 with `perf record -g` (the cpu-clock
event: these guests have no hardware counters) while wrk drives each proxy in turn, alone on core
1, and prints microseconds per request: in total, by symbol, and, for the time with interrupts
off, by the kernel path that turned them back on. A software clock cannot sample where interrupts
are off, so that time lands on the guest's irq-enable call (`pvm_irq_enable` here); its caller
says what it was: waking a socket's reader (`sock_def_readable`, which on a virtual machine means
an interrupt to the sleeping reader's core), a context switch (`finish_task_switch`), a system
call's return.

Usage: /usr/bin/python3 bench/core0_profile.py [--bin build/src/cli/infergate] [--connections 16]
           [--seconds 4] [--rounds 2] [--mode stream|plain] [--rows 12]
Needs nginx, haproxy, wrk and perf (apt-get install nginx-light haproxy wrk linux-perf), and root."""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import free_port, stop_all, wait_port, write_gateway, write_haproxy, write_upstream  # noqa: E402

HZ = 4999  # samples per second


def record(tmp, lua, url, connections, seconds):
    """Requests wrk completed, samples by symbol, and irq-off samples by the path that ended them."""
    data = os.path.join(tmp, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-g", "-C", "0", "-F", str(HZ), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # perf is recording
    out = subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-s", lua, url],
                         capture_output=True, text=True, check=True).stdout
    perf.send_signal(2)
    perf.wait(timeout=60)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True,
                            check=True).stdout
    symbols, irq_off = collections.Counter(), collections.Counter()
    for block in script.split("\n\n"):
        frames = [line.split(None, 1)[1].split("+")[0].strip() for line in block.strip().splitlines()
                  if len(line.split(None, 1)) > 1]
        if not frames:
            continue
        symbols[frames[0]] += 1
        if "irq_enable" in frames[0]:
            path = [f for f in frames[1:4] if "irq_enable" not in f]
            irq_off[" < ".join(path[:2])] += 1
    return requests, symbols, irq_off


def table(title, counts, requests, rows):
    """Rows of microseconds per request, the largest difference between the proxies first."""
    per = {name: {k: v * 1e6 / HZ / requests[name] for k, v in counts[name].items()} for name in counts}
    keys = {k for name in per for k in per[name]}
    diff = {k: per["infergate"].get(k, 0) - per["haproxy"].get(k, 0) for k in keys}
    print("  %-70s %9s %9s %9s" % (title, "infergate", "haproxy", "diff"))
    for k in sorted(keys, key=lambda k: -abs(diff[k]))[:rows]:
        print("  %-70s %9.2f %9.2f %+9.2f" % (k[:70], per["infergate"].get(k, 0), per["haproxy"].get(k, 0), diff[k]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--mode", default="stream", choices=("stream", "plain"))
    p.add_argument("--rows", type=int, default=12)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="ig-core0-")
    procs = []
    try:
        upstream = free_port()
        procs.append(subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)],
                                      stderr=subprocess.DEVNULL))
        gateway, haproxy = free_port(), free_port()
        procs.append(subprocess.Popen(["taskset", "-c", "1", args.bin, "serve", "--config", write_gateway(tmp, upstream),
                                       "--port", str(gateway)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen(["taskset", "-c", "1", "haproxy", "-f", write_haproxy(tmp, haproxy, upstream),
                                       "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in (upstream, gateway, haproxy):
            wait_port(port)
        model = "plain" if args.mode == "plain" else "sse"
        body = json.dumps(json.dumps({"model": model, "messages": [{"role": "user", "content": "hello " * 100}],
                                      "max_tokens": 64, "stream": args.mode == "stream"}))
        targets = {}
        for name, port, prefix in (("infergate", gateway, ""), ("haproxy", haproxy, "/" + model)):
            lua = os.path.join(tmp, name + ".lua")
            with open(lua, "w") as f:
                f.write('wrk.method = "POST"\nwrk.path = "%s/v1/chat/completions"\nwrk.body = %s\n'
                        'wrk.headers["Content-Type"] = "application/json"\n' % (prefix, body))
            targets[name] = (lua, "http://127.0.0.1:%d" % port)
        requests = dict.fromkeys(targets, 0)
        symbols = {name: collections.Counter() for name in targets}
        irq_off = {name: collections.Counter() for name in targets}
        for r in range(args.rounds):
            for name in (("infergate", "haproxy") if r % 2 == 0 else ("haproxy", "infergate")):
                n, s, i = record(tmp, *targets[name], args.connections, args.seconds)
                requests[name] += n
                symbols[name].update(s)
                irq_off[name].update(i)
        print("\n%s, %d connections, wrk, %d rounds of %d s; core 0, microseconds per request" % (
            args.mode, args.connections, args.rounds, args.seconds))
        print("  total: infergate %.1f, haproxy %.1f; requests/s %.0f and %.0f" % (
            sum(symbols["infergate"].values()) * 1e6 / HZ / requests["infergate"],
            sum(symbols["haproxy"].values()) * 1e6 / HZ / requests["haproxy"],
            requests["infergate"] / (args.rounds * args.seconds), requests["haproxy"] / (args.rounds * args.seconds)))
        table("with interrupts off, by the path that turned them on", irq_off, requests, args.rows)
        table("by symbol", symbols, requests, args.rows)
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
