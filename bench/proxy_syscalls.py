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
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import stop_all  # noqa: E402
from wrk_against_proxies import start_proxies, wrk_targets, wrk_under_perf  # noqa: E402


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
    requests = wrk_under_perf(["-o", data, "-e", "raw_syscalls:sys_enter", "-e", "sched:sched_switch", "-C", "0,1"],
                              lua, url, connections, seconds)
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
        ports = start_proxies(tmp, args.bin, procs)
        for mode in args.modes.split(","):
            targets = wrk_targets(tmp, mode, ports)
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
