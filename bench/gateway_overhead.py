"""Gateway overhead: infergate serve vs nginx and haproxy as OpenAI proxies, in one run.

An instant upstream (nginx answering a realistic chat completion, or a 68-event SSE stream when the
request streams) sits on core 0 with the load generator; the proxy under test runs alone on core 1.
For each target (direct, infergate, nginx, haproxy), each body (plain, stream), 16 and 64
connections and each load generator it reports requests/s, p50/p99 latency added over direct, and
the proxy's CPU time per request (utime + stime from /proc, over the run), and core 0's (the
load generator and the upstream, busy time from /proc/stat). Each figure is the
median of interleaved rounds: this machine's speed drifts from one minute to the next (the ratios
to the better of nginx and haproxy are also given round by round, with their range). infergate
runs with request IDs, metrics, access log (to a file) and usage parsing on, as in production.

Two load generators, closed loop with the same connections: wrk, light enough to saturate the
proxy's core, so its latencies are mostly queueing in the proxy; and `infergate bench` (the
binary under test's own client, E2E latency), which does more per request and makes core 0 the
bottleneck, so the proxy runs below saturation and its added latency is its own processing time.
With --loads open and --rates, `infergate bench` also offers requests at fixed Poisson rates (open
loop, at most --open-cap in flight): every proxy gets the same arrivals, whatever its pace.

Usage: /usr/bin/python3 bench/gateway_overhead.py [--bin build/src/cli/infergate] [--seconds 4] [--rounds 3]
           [--loads wrk,bench,open] [--rates 5000,20000] [--open-cap 256]
Needs nginx, haproxy and wrk: apt-get install nginx-light haproxy wrk (not needed by the tests)."""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

CHAT = {"id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": " ".join(["word"] * 60)},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 128, "completion_tokens": 60, "total_tokens": 188}}


def sse_body():
    def chunk(delta, finish=None):
        return {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": " word"}) for _ in range(64)]
    events.append(chunk({}, "length"))
    events.append({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                   "choices": [], "usage": {"prompt_tokens": 128, "completion_tokens": 64, "total_tokens": 192}})
    text = "".join("data: %s\n\n" % json.dumps(e, separators=(",", ":")) for e in events)
    return text + "data: [DONE]\n\n"  # 68 events


def nginx_head(tmp, name):
    """The start of an nginx config for one worker in the foreground, all its files under `tmp`."""
    return ("daemon off; worker_processes 1; pid %(tmp)s/%(name)s.pid; error_log /dev/null;\n"
            "events { worker_connections 4096; }\n"
            "http { access_log off; keepalive_requests 1000000;\n"
            "  client_body_temp_path %(tmp)s; proxy_temp_path %(tmp)s; fastcgi_temp_path %(tmp)s;\n"
            "  uwsgi_temp_path %(tmp)s; scgi_temp_path %(tmp)s;" % {"tmp": tmp, "name": name})


def write_upstream(tmp, port):
    """The instant upstream's nginx config (a chat completion under /plain, a 68-event SSE stream
    under /sse, a model list under both); returns its path."""
    plain_body = json.dumps(CHAT, separators=(",", ":"))
    models = json.dumps({"object": "list", "data": [{"id": "bench", "object": "model"}]})
    conf = os.path.join(tmp, "upstream.conf")
    with open(conf, "w") as f:
        f.write(nginx_head(tmp, "upstream") + """
  server { listen 127.0.0.1:%(port)d;
    location ~ ^/(plain|sse)/v1/models$ { default_type application/json; return 200 '%(models)s'; }
    location = /plain/v1/chat/completions { default_type application/json; return 200 '%(plain)s'; }
    location = /sse/v1/chat/completions { default_type text/event-stream; alias %(tmp)s/sse.txt;
                                          error_page 405 =200 $uri; }
  }
}
""" % {"tmp": tmp, "port": port, "models": models, "plain": plain_body})
    # nginx refuses a 13 kB string in its config and POST to a static file; the error_page
    # redirect serves the file to a POST as if it were a GET.
    with open(os.path.join(tmp, "sse.txt"), "w") as f:
        f.write(sse_body())
    return conf


def write_haproxy(tmp, port, upstream):
    """haproxy's config as the proxy under test (one thread, kept-alive upstream connections)
    listening on `port` in front of the upstream on `upstream`; its path."""
    path = os.path.join(tmp, "haproxy.cfg")
    with open(path, "w") as f:
        f.write("""global
  nbthread 1
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  http-reuse always
frontend f
  bind 127.0.0.1:%d
  default_backend b
backend b
  server up 127.0.0.1:%d maxconn 1024
""" % (port, upstream))
    return path


def write_gateway(tmp, upstream):
    """The gateway's config as the proxy under test (one I/O thread, the access log on) with the
    public models "plain" and "sse" in front of the upstream on `upstream`; its path."""
    path = os.path.join(tmp, "gateway.yaml")
    with open(path, "w") as f:
        f.write("server: {access_log: '%s/access.jsonl', threads: 1}\n"
                "providers:\n  plain: {base_url: 'http://127.0.0.1:%d/plain/v1'}\n"
                "  sse: {base_url: 'http://127.0.0.1:%d/sse/v1'}\n"
                "models:\n  plain: {deployments: [{provider: plain, model: bench}]}\n"
                "  sse: {deployments: [{provider: sse, model: bench}]}\n" % (tmp, upstream, upstream))
    return path


def stop_all(procs):
    """Terminates every process, then kills those still running after 10 s."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %d" % port)


def thread_cpu(pids):
    """{thread name: [user, system] CPU seconds} over every thread of `pids`."""
    cpu = {}
    for pid in pids:
        for task in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, task)) as f:
                    name = f.read().strip()
                with open("/proc/%d/task/%s/stat" % (pid, task)) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # a thread that ended between the listing and the read
            times = cpu.setdefault(name, [0.0, 0.0])
            times[0] += int(fields[11]) / os.sysconf("SC_CLK_TCK")
            times[1] += int(fields[12]) / os.sysconf("SC_CLK_TCK")
    return cpu


def cpu_split(pids):
    """(user, system) CPU seconds of every thread of `pids`."""
    threads = thread_cpu(pids).values()
    return sum(t[0] for t in threads), sum(t[1] for t in threads)


def core_busy_seconds(core):
    """CPU seconds core `core` has spent on anything but idling, from /proc/stat."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % core):
                ticks = [int(x) for x in line.split()[1:]]
                return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait
    raise RuntimeError("no cpu%d in /proc/stat" % core)


def children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [int(p) for p in out]


def create_unlimited_key(port, master_key):
    """A virtual key of the gateway on `port` whose limits and budget no benchmark load reaches."""
    request = urllib.request.Request(
        "http://127.0.0.1:%d/admin/keys" % port, method="POST",
        data=json.dumps({"rpm": 100000000, "tpm": 1000000000000, "max_parallel": 100000,
                         "budget_usd": 1e9}).encode(),
        headers={"Authorization": "Bearer " + master_key})
    with urllib.request.urlopen(request) as r:
        return json.loads(r.read())["key"]


def parse_latency(text, label):
    m = re.search(r"^\s+%s\s+([\d.]+)(us|ms|s)" % re.escape(label), text, re.M)
    value, unit = float(m.group(1)), m.group(2)
    return value * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]


LOAD_NAMES = {"wrk": "wrk", "bench": "infergate bench", "open": "infergate bench at a fixed Poisson rate"}


def run_wrk(url, lua, connections, seconds):
    out = subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "--latency",
                          "-s", lua, url], capture_output=True, text=True, check=True).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise RuntimeError("errors during the run:\n" + out)
    return {"requests": requests, "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": parse_latency(out, "50%"), "p99": parse_latency(out, "99%")}


def run_bench(binary, url, model, mode, connections, seconds, key=None, wrapper=(), rate=None):
    """One `infergate bench` run on core 0, closed loop with `connections` requests in flight, as
    run_wrk, or with `rate` open loop: requests arrive at that Poisson rate whatever the answers'
    pace, at most `connections` in flight, so that a latency is the proxy's own and not the wait of
    a saturated queue. Its latencies are whole responses (E2E). It sleeps in epoll between events
    (--no-busy-poll): spinning would take core 0 from the upstream that shares it. `wrapper`
    comes first on the command line (perf stat, to count the client's own events)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = list(wrapper) + ["taskset", "-c", "0", binary, "bench", "--base-url", url, "--model", model,
               "--duration", str(seconds), "--input-tokens", "100", "--output-tokens", "64", "--no-busy-poll",
               "--json", out.name]
        if rate:
            cmd += ["--rate", str(rate), "--arrival", "poisson", "--max-concurrency", str(connections)]
        else:
            cmd += ["--concurrency", str(connections)]
        if mode == "plain":
            cmd.append("--no-stream")
        if key:
            cmd += ["--api-key", key]
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
        summary = json.load(out)["summary"]
    if summary["failed"]:
        raise RuntimeError("%d of %d requests failed during the run against %s" %
                           (summary["failed"], summary["failed"] + summary["completed"], url))
    client = summary.get("client") or {}
    # Open loop only: a closed loop here makes core 0 the bottleneck on purpose.
    behind = client.get("reason") if rate and client.get("bound") else None
    return {"requests": summary["completed"], "rps": summary["requests_per_s"],
            "p50": summary["e2e_ms"]["p50"], "p99": summary["e2e_ms"]["p99"], "behind": behind}


def warn_if_behind(runs):
    """Says so when the open-loop generator could not keep its schedule in some of `runs`: their
    latencies are then the generator's queue, not the target's."""
    reasons = [r["behind"] for r in runs if r.get("behind")]
    if reasons:
        print("  ! the load generator fell behind in %d of %d runs (%s): these latencies are its own" %
              (len(reasons), len(runs), reasons[0]))


def add_load_arguments(parser):
    """--loads, --rates and --open-cap, as both overhead benchmarks take them."""
    parser.add_argument("--loads", default="wrk,bench",
                        help="load generators: wrk, bench (infergate bench), open (infergate bench at --rates)")
    parser.add_argument("--rates", default="", help="open loop: requests/s offered, comma-separated")
    parser.add_argument("--open-cap", type=int, default=256, help="open loop: the most requests in flight")


def load_levels(parser, args, connections):
    """The levels to run, each (loads, connections, rate, label): the closed loads of --loads at
    each of `connections`, then the open load at each of --rates."""
    loads = args.loads.split(",")
    unknown = [load for load in loads if load not in LOAD_NAMES]
    if unknown:
        parser.error("unknown load %s: the loads are %s" % (", ".join(unknown), ", ".join(LOAD_NAMES)))
    closed = [load for load in loads if load != "open"]
    levels = [(closed, c, None, "%d connections" % c) for c in connections if closed]
    if "open" in loads:
        try:
            rates = [int(rate) for rate in args.rates.split(",")]
        except ValueError:
            parser.error("--loads open needs --rates: whole requests/s, comma-separated (got %r)" % args.rates)
        levels += [(["open"], args.open_cap, rate, "%d requests/s offered" % rate) for rate in rates]
    return levels


def run_load(load, binary, tmp, name, base, mode, connections, seconds, key=None, gateway=True, rate=None):
    """One run of `load` (wrk, bench, or open: bench at `rate`) against a target: an infergate
    gateway (`gateway`) serves the public models "plain" and "sse"; any other target forwards /plain
    and /sse to the upstream."""
    prefix = "" if gateway else ("/plain" if mode == "plain" else "/sse")
    if load in ("bench", "open"):
        return run_bench(binary, base + prefix + "/v1", ("plain" if mode == "plain" else "sse") if gateway else "bench",
                         mode, connections, seconds, key, rate=rate if load == "open" else None)
    body = {"model": "plain" if mode == "plain" else "sse",
            "messages": [{"role": "user", "content": "hello " * 100}],
            "max_tokens": 64, "stream": mode == "stream"}
    lua = os.path.join(tmp, "%s-%s.lua" % (name, mode))
    with open(lua, "w") as f:
        f.write('wrk.method = "POST"\nwrk.path = "%s/v1/chat/completions"\nwrk.body = %s\n'
                'wrk.headers["Content-Type"] = "application/json"\n' % (prefix, json.dumps(json.dumps(body))))
        if key:
            f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % key)
    return run_wrk(base, lua, connections, seconds)


def measure(load, binary, tmp, name, pid, base, mode, connections, seconds, rate=None):
    """One run against one target; the proxy's user and system CPU µs per request with it."""
    pids = children(pid) if pid else []
    before, core0_before = cpu_split(pids), core_busy_seconds(0)
    r = run_load(load, binary, tmp, name, base, mode, connections, seconds, gateway=name == "infergate", rate=rate)
    after, core0_after = cpu_split(pids), core_busy_seconds(0)
    r["user_us"] = (after[0] - before[0]) * 1e6 / r["requests"]
    r["sys_us"] = (after[1] - before[1]) * 1e6 / r["requests"]
    r["cpu_us"] = r["user_us"] + r["sys_us"]
    # Core 0 runs the load generator and the upstream: when it is the bottleneck, requests/s is
    # what it can do per request, which depends on how the proxy talks to them.
    r["core0_us"] = (core0_after - core0_before) * 1e6 / r["requests"]
    return r


def report(load, mode, level, results, rounds):
    """Medians over the rounds of each figure, taken one figure at a time."""
    def med(name, key):
        return statistics.median(r[key] for r in results[(load, mode, level, name)])

    print("\n%s, %s, %s, medians of %d rounds (direct: %.0f req/s, p50 %.3f ms, p99 %.3f ms)" %
          (mode, level, LOAD_NAMES[load], rounds, med("direct", "rps"), med("direct", "p50"),
           med("direct", "p99")))
    print("  %-10s %10s %10s %10s %22s %14s" % ("proxy", "req/s", "+p50 ms", "+p99 ms", "CPU us/req (user+sys)",
                                                "core 0 us/req"))
    for name in ("infergate", "nginx", "haproxy"):
        print("  %-10s %10.0f %10.3f %10.3f %8.1f (%4.1f + %4.1f) %14.1f" % (
            name, med(name, "rps"), med(name, "p50") - med("direct", "p50"),
            med(name, "p99") - med("direct", "p99"), med(name, "cpu_us"), med(name, "user_us"), med(name, "sys_us"),
            med(name, "core0_us")))
    best = min(med(n, "cpu_us") for n in ("nginx", "haproxy"))
    best_rps = max(med(n, "rps") for n in ("nginx", "haproxy"))
    warn_if_behind([r for name in ("direct", "infergate", "nginx", "haproxy")
                    for r in results[(load, mode, level, name)]])
    print("  infergate / best of nginx, haproxy: CPU per request %.2f, req/s %.2f" %
          (med("infergate", "cpu_us") / best, med("infergate", "rps") / best_rps))
    # The same ratios within each round, whose runs are seconds apart: the machine's drift
    # between rounds cancels, and their spread says how far a ratio above is from noise.
    runs = [results[(load, mode, level, n)] for n in ("infergate", "nginx", "haproxy")]
    cpu = sorted(ours["cpu_us"] / min(a["cpu_us"], b["cpu_us"]) for ours, a, b in zip(*runs))
    rps = sorted(ours["rps"] / max(a["rps"], b["rps"]) for ours, a, b in zip(*runs))
    print("  the same, round by round: CPU per request %.2f [%.2f-%.2f], req/s %.2f [%.2f-%.2f] (median [range])" %
          (statistics.median(cpu), cpu[0], cpu[-1], statistics.median(rps), rps[0], rps[-1]))
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--client", help="the infergate build that runs the bench load (default: --bin), to change the "
                   "gateway without changing its load")
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3, help="runs per target, load generator and load, interleaved")
    add_load_arguments(p)
    args = p.parse_args()
    levels = load_levels(p, args, (16, 64))
    tmp = tempfile.mkdtemp(prefix="ig-overhead-")
    ports = {name: free_port() for name in ("upstream", "infergate", "nginx", "haproxy")}
    procs = []

    def start(cmd, cpu, port, **kw):
        proc = subprocess.Popen(["taskset", "-c", str(cpu)] + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                **kw)
        procs.append(proc)
        wait_port(port)
        return proc

    upstream_conf = write_upstream(tmp, ports["upstream"])
    nginx_conf = os.path.join(tmp, "proxy.conf")
    with open(nginx_conf, "w") as f:
        f.write(nginx_head(tmp, "proxy") + """
  upstream backend { server 127.0.0.1:%(up)d; keepalive 128; }
  server { listen 127.0.0.1:%(port)d;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection "";
                 proxy_buffering off; proxy_request_buffering off; }
  }
}
""" % {"tmp": tmp, "port": ports["nginx"], "up": ports["upstream"]})
    haproxy_conf = write_haproxy(tmp, ports["haproxy"], ports["upstream"])
    gateway_conf = write_gateway(tmp, ports["upstream"])

    try:
        start(["nginx", "-c", upstream_conf], 0, ports["upstream"])
        targets = {"direct": (None, "http://127.0.0.1:%d" % ports["upstream"])}
        gw = start([args.bin, "serve", "--config", gateway_conf, "--port", str(ports["infergate"])], 1,
                   ports["infergate"])
        targets["infergate"] = (gw.pid, "http://127.0.0.1:%d" % ports["infergate"])
        ng = start(["nginx", "-c", nginx_conf], 1, ports["nginx"])
        targets["nginx"] = (ng.pid, "http://127.0.0.1:%d" % ports["nginx"])
        hp = start(["haproxy", "-f", haproxy_conf, "-db"], 1, ports["haproxy"])
        targets["haproxy"] = (hp.pid, "http://127.0.0.1:%d" % ports["haproxy"])

        results = {}
        for mode in ("plain", "stream"):
            for loads, connections, rate, level in levels:
                names = list(targets)
                for round_index in range(args.rounds):
                    # Rotated each round so that no target always runs first or last.
                    shift = round_index % len(names)
                    for name in names[shift:] + names[:shift]:
                        pid, base = targets[name]
                        for load in loads:
                            r = measure(load, args.client or args.bin, tmp, name, pid, base, mode, connections,
                                        args.seconds, rate)
                            results.setdefault((load, mode, level, name), []).append(r)
                for load in loads:
                    report(load, mode, level, results, args.rounds)
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)  # the logs of a run take gigabytes


if __name__ == "__main__":
    main()
