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
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import stop_all  # noqa: E402
from wrk_against_proxies import start_proxies, wrk_targets, wrk_under_perf  # noqa: E402

HZ = 4999  # samples per second


def record(tmp, lua, url, connections, seconds):
    """Requests wrk completed, samples by symbol, and irq-off samples by the path that ended them."""
    data = os.path.join(tmp, "perf.data")
    requests = wrk_under_perf(["-g", "-C", "0", "-F", str(HZ), "-o", data], lua, url, connections, seconds)
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
        targets = wrk_targets(tmp, args.mode, start_proxies(tmp, args.bin, procs))
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
