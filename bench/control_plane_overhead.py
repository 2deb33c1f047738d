"""Control-plane overhead: infergate serve with virtual keys and limits on vs off, in one run.

The instant nginx upstream of gateway_overhead.py (a 700-byte chat completion, or a 68-event SSE
stream) sits on core 0 with the load generator (wrk and infergate bench, as in
gateway_overhead.py: wrk saturates the gateway, infergate bench leaves it below saturation); one
infergate gateway at a time runs alone on core 1 with one thread. "off" has no auth section;
"local" checks a virtual key with RPM, TPM, max_parallel and a budget (every limit far above the
load, so every request is admitted and its usage reconciled and written to the ledger); "redis" is
"local" with the RPM/TPM counters in a redis-server (also on core 0), one script per request;
"lease" is "redis" with auth.state_leases (a round trip per lease of up to 64 requests). Runs
are interleaved (off, local, redis, lease, then local, redis, lease, off, ...) so machine drift
hits each alike; the median over rounds is reported with the added latency over direct and the
ratio to "off", and the difference and CPU ratio to "off" as medians of each round's pair.
A gateway's CPU is read two ledger flush intervals after its run, so the rows its ledger and
access log write after the load count too; after each table, that CPU split by thread (the I/O
thread "infergate", the ledger's, the access log's) and into user and system time, over all rounds,
tells where keys on spend theirs.

With --loads open and --rates, infergate bench also offers requests at fixed Poisson rates (open
loop): there the gateway is below saturation, so its added latency is its own work and not the
queue a saturating closed loop builds in front of it, which a closed loop's added latency
multiplies by every percent of throughput lost.

Usage: /usr/bin/python3 bench/control_plane_overhead.py [--bin build/src/cli/infergate] [--seconds 4] [--rounds 3]
           [--loads wrk,bench,open] [--modes plain,stream] [--connections 1,16,64] [--rates 5000,20000]
           [--open-cap 256] [--variants local,redis,lease]
Needs nginx, wrk and redis-server (apt-get install nginx-light wrk redis-server)."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_overhead import (LOAD_NAMES, add_load_arguments, children, create_unlimited_key,  # noqa: E402
                              free_port, load_levels, run_load, stop_all, thread_cpu, wait_port, warn_if_behind,
                              write_upstream)

MASTER = "bench-master-key-0123456789"
LEDGER_FLUSH_MS = 500  # the gateway's default


def report(runs, load, mode, level, variants, rounds):
    def median(variant, field):
        return statistics.median(r[field] for r in runs[(load, variant)])

    def paired(variant, pair):
        """The median over rounds of `pair`(this variant's run, off's run of the same round): runs
        minutes apart see different machines, runs of one round nearly the same."""
        return statistics.median(pair(v, o) for v, o in zip(runs[(load, variant)], runs[(load, "off")]))

    direct_p50, direct_p99 = median("direct", "p50"), median("direct", "p99")
    print("\n%s, %s, %s (direct p50 %.3f ms, p99 %.3f ms; medians of %d rounds)" %
          (mode, level, LOAD_NAMES[load], direct_p50, direct_p99, rounds))
    print("  %-6s %9s %10s %10s %11s %14s %13s %13s" % ("auth", "req/s", "+p50 ms", "+p99 ms", "CPU us/req",
                                                     "+p50 / off", "p50 - off ms", "CPU / off"))
    off_added = median("off", "p50") - direct_p50
    for variant in variants:
        added = median(variant, "p50") - direct_p50
        # A ratio to an added latency below the load generator's resolution says nothing: the
        # difference does.
        ratio = "%.2f" % (added / off_added) if off_added >= 0.02 else "-"
        print("  %-6s %9.0f %10.3f %10.3f %11.1f %14s %13.3f %13.2f" % (
            variant, median(variant, "rps"), added, median(variant, "p99") - direct_p99,
            median(variant, "cpu"), ratio, paired(variant, lambda v, o: v["p50"] - o["p50"]),
            paired(variant, lambda v, o: v["cpu"] / o["cpu"])))
    warn_if_behind([r for variant in ("direct",) + tuple(variants) for r in runs[(load, variant)]])
    print("  CPU by thread, us per request (user + system), all rounds:")
    for variant in variants:
        requests = sum(r["requests"] for r in runs[(load, variant)])
        threads = {}
        for r in runs[(load, variant)]:
            for name, (user, system) in r["threads"].items():
                total = threads.setdefault(name, [0.0, 0.0])
                total[0] += user
                total[1] += system
        print("    %-6s " % variant + ", ".join(
            "%s %.2f + %.2f" % (name, user * 1e6 / requests, system * 1e6 / requests)
            for name, (user, system) in sorted(threads.items()) if user + system > 0))
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    add_load_arguments(p)
    p.add_argument("--modes", default="plain,stream", help="bodies: plain, stream or both")
    p.add_argument("--connections", default="1,16,64", help="connection counts, comma-separated")
    p.add_argument("--variants", default="local,redis,lease", help="variants compared with off: local, redis, lease")
    args = p.parse_args()
    levels = load_levels(p, args, [int(c) for c in args.connections.split(",")])
    variants = ("off",) + tuple(args.variants.split(","))
    tmp = tempfile.mkdtemp(prefix="ig-control-")
    procs = []

    def start(cmd, cpu, port, **kw):
        proc = subprocess.Popen(["taskset", "-c", str(cpu)] + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                **kw)
        procs.append(proc)
        wait_port(port)
        return proc

    upstream_port, redis_port = free_port(), free_port()
    upstream_conf = write_upstream(tmp, upstream_port)

    def gateway_config(variant, port):
        path = os.path.join(tmp, "%s.yaml" % variant)
        auth = ""
        if variant != "off":
            auth = ("auth:\n  master_key: %s\n  keys_db: %s/%s.db\n" % (MASTER, tmp, variant) +
                    ("  state: redis://127.0.0.1:%d\n" % redis_port if variant in ("redis", "lease") else "") +
                    ("  state_leases: true\n" if variant == "lease" else ""))
        with open(path, "w") as f:
            f.write("server: {access_log: '%s/%s.jsonl', threads: 1, port: %d}\n%s"
                    "providers:\n  plain: {base_url: 'http://127.0.0.1:%d/plain/v1'}\n"
                    "  sse: {base_url: 'http://127.0.0.1:%d/sse/v1'}\n"
                    "models:\n  plain: {deployments: [{provider: plain, model: bench}], price: {input: 0.1, output: 0.2}}\n"
                    "  sse: {deployments: [{provider: sse, model: bench}], price: {input: 0.1, output: 0.2}}\n"
                    % (tmp, variant, port, auth, upstream_port, upstream_port))
        return path

    try:
        start(["nginx", "-c", upstream_conf], 0, upstream_port)
        start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
              0, redis_port)
        gateways = {}
        for variant in variants:
            port = free_port()
            gw = start([args.bin, "serve", "--config", gateway_config(variant, port)], 1, port)
            key = create_unlimited_key(port, MASTER) if variant != "off" else None
            gateways[variant] = (gw.pid, "http://127.0.0.1:%d" % port, key)

        direct = "http://127.0.0.1:%d" % upstream_port
        for mode in args.modes.split(","):
            for loads, connections, rate, level in levels:
                runs = {(load, v): [] for load in loads for v in ("direct",) + variants}
                for round_index in range(args.rounds):
                    for load in loads:
                        runs[(load, "direct")].append(
                            run_load(load, args.bin, tmp, "direct", direct, mode, connections, args.seconds,
                                     gateway=False, rate=rate))
                        # Rotated each round, so that no variant always follows another.
                        shift = round_index % len(variants)
                        for variant in variants[shift:] + variants[:shift]:
                            pid, base, key = gateways[variant]
                            pids = children(pid)
                            before = thread_cpu(pids)
                            r = run_load(load, args.bin, tmp, variant, base, mode, connections, args.seconds, key,
                                         rate=rate)
                            # The ledger and the access log write a run's last rows after it: their
                            # CPU counts too (a ledger that fell behind the load would otherwise
                            # look free).
                            time.sleep(2 * LEDGER_FLUSH_MS / 1000)
                            after = thread_cpu(pids)
                            r["threads"] = {name: [t - b for t, b in zip(times, before.get(name, [0.0, 0.0]))]
                                            for name, times in after.items()}
                            r["cpu"] = sum(sum(t) for t in r["threads"].values()) * 1e6 / r["requests"]
                            runs[(load, variant)].append(r)
                for load in loads:
                    report(runs, load, mode, level, variants, args.rounds)
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)  # the logs of a run take gigabytes


if __name__ == "__main__":
    main()
