"""Which system calls each process makes per proxied request: the proxy, and wrk and the upstream.

gateway_overhead.py measures time; on these virtual machines a system call costs 0.5 to 3 µs,
so what a proxy asks of the kernel, and what it makes the client and the upstream ask, is much of
where its time goes. This runs infergate and haproxy in turn, each alone on core 1, in front of the
instant nginx upstream of gateway_overhead.py on core 0, and loads each with wrk on core 0 (16
connections, plain and streamed answers). While wrk runs, `perf record` takes every system call's
entry and every context switch on both cores; the table gives each per request, by process and
system call, and the rounds alternate between the proxies.

Usage: /usr/bin/python3 bench/proxy_syscalls.py [--bin build/src/cli/infergate] [--connections 16]
           [--seconds 2] [--rounds 2] [--modes plain,stream] [--least 0.05]
Needs nginx, haproxy, wrk and perf (apt-get install nginx-light haproxy wrk linux-perf), and root
(perf records every process on the two cores)."""
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


def syscall_names():
    """x86-64 system call numbers to names, from the kernel headers (linux-libc-dev)."""
    names = {}
    with open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h") as f:
        for m in re.finditer(r"#define __NR_(\w+) (\d+)", f.read()):
            names[int(m.group(2))] = m.group(1)
    return names


def record(tmp, lua, url, connections, seconds):
    """Requests wrk completed, and what perf saw on cores 0 and 1 meanwhile: a Counter of
    (process name, system call number or "switch")."""
    data = os.path.join(tmp, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-o", data, "-e", "raw_syscalls:sys_enter",
                             "-e", "sched:sched_switch", "-C", "0,1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # perf is recording
    out = subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-s", lua, url],
                         capture_output=True, text=True, check=True).stdout
    perf.send_signal(2)
    perf.wait(timeout=60)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    if re.search(r"Non-2xx or 3xx responses", out):
        raise RuntimeError("errors during the run:\n" + out)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,event,trace"], capture_output=True, text=True,
                            check=True).stdout
    seen = collections.Counter()
    for line in script.splitlines():
        m = re.match(r"\s*(.+?)\s+(raw_syscalls:sys_enter|sched:sched_switch):\s*(.*)", line)
        if not m:
            continue
        comm, event, trace = m.groups()
        if event == "sched:sched_switch":
            seen[(comm, "switch")] += 1
        else:
            nr = re.search(r"NR (\d+)", trace)
            seen[(comm, int(nr.group(1)) if nr else -1)] += 1
    return requests, seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--seconds", type=int, default=2)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--modes", default="plain,stream")
    p.add_argument("--least", type=float, default=0.05, help="leave out what happens less often per request")
    args = p.parse_args()
    names = syscall_names()
    tmp = tempfile.mkdtemp(prefix="ig-syscalls-")
    procs = []
    try:
        upstream = free_port()
        procs.append(subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)],
                                      stderr=subprocess.DEVNULL))
        gateway, haproxy = free_port(), free_port()
        config = write_gateway(tmp, upstream)
        procs.append(subprocess.Popen(["taskset", "-c", "1", args.bin, "serve", "--config", config, "--port",
                                       str(gateway)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen(["taskset", "-c", "1", "haproxy", "-f", write_haproxy(tmp, haproxy, upstream),
                                       "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in (upstream, gateway, haproxy):
            wait_port(port)
        for mode in args.modes.split(","):
            model = "plain" if mode == "plain" else "sse"
            body = json.dumps(json.dumps({"model": model, "messages": [{"role": "user", "content": "hello " * 100}],
                                          "max_tokens": 64, "stream": mode == "stream"}))
            targets = {}
            for name, port, prefix in (("infergate", gateway, ""), ("haproxy", haproxy, "/" + model)):
                lua = os.path.join(tmp, "%s-%s.lua" % (name, mode))
                with open(lua, "w") as f:
                    f.write('wrk.method = "POST"\nwrk.path = "%s/v1/chat/completions"\nwrk.body = %s\n'
                            'wrk.headers["Content-Type"] = "application/json"\n' % (prefix, body))
                targets[name] = (lua, "http://127.0.0.1:%d" % port)
            totals = {name: collections.Counter() for name in targets}
            requests = dict.fromkeys(targets, 0)
            for r in range(args.rounds):
                for name in (("infergate", "haproxy") if r % 2 == 0 else ("haproxy", "infergate")):
                    n, seen = record(tmp, *targets[name], args.connections, args.seconds)
                    requests[name] += n
                    totals[name].update(seen)
            print("\n%s, %d connections, wrk, %d rounds of %d s; per request:" % (mode, args.connections, args.rounds,
                                                                               args.seconds))
            keys = {key for seen in totals.values() for key in seen if key[0] != "perf"}
            # By process, the most frequent first, context switches last.
            rows = sorted(keys, key=lambda k: (k[0], k[1] == "switch", -sum(totals[n][k] for n in totals)))
            print("  %-12s %-16s %10s %10s" % ("process", "what", "infergate", "haproxy"))
            for comm, what in rows:
                per = [totals[name][(comm, what)] / requests[name] for name in ("infergate", "haproxy")]
                if max(per) < args.least:
                    continue
                label = "switch" if what == "switch" else names.get(what, "NR %d" % what)
                print("  %-12s %-16s %10.2f %10.2f" % (comm[:12], label, per[0], per[1]))
            sys.stdout.flush()
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
