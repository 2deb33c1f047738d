"""What proxy_syscalls.py and core0_profile.py share: infergate and haproxy, each alone on core 1,
in front of gateway_overhead.py's instant nginx upstream on core 0, and wrk on core 0 driving one
of them while `perf record` watches."""
import json
import os
import re
import subprocess
import time

from gateway_overhead import free_port, wait_port, write_gateway, write_haproxy, write_upstream


def start_proxies(tmp, binary, procs):
    """Starts the upstream and both proxies (appending them to `procs`); their ports by name."""
    upstream = free_port()
    procs.append(subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", write_upstream(tmp, upstream)],
                                  stderr=subprocess.DEVNULL))
    gateway, haproxy = free_port(), free_port()
    procs.append(subprocess.Popen(["taskset", "-c", "1", binary, "serve", "--config", write_gateway(tmp, upstream),
                                   "--port", str(gateway)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    procs.append(subprocess.Popen(["taskset", "-c", "1", "haproxy", "-f", write_haproxy(tmp, haproxy, upstream), "-db"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for port in (upstream, gateway, haproxy):
        wait_port(port)
    return {"infergate": gateway, "haproxy": haproxy}


def wrk_targets(tmp, mode, ports):
    """For `mode` (plain or stream): each proxy's wrk script and URL, by name."""
    model = "plain" if mode == "plain" else "sse"
    body = json.dumps(json.dumps({"model": model, "messages": [{"role": "user", "content": "hello " * 100}],
                                  "max_tokens": 64, "stream": mode == "stream"}))
    targets = {}
    for name, prefix in (("infergate", ""), ("haproxy", "/" + model)):
        lua = os.path.join(tmp, "%s-%s.lua" % (name, mode))
        with open(lua, "w") as f:
            f.write('wrk.method = "POST"\nwrk.path = "%s/v1/chat/completions"\nwrk.body = %s\n'
                    'wrk.headers["Content-Type"] = "application/json"\n' % (prefix, body))
        targets[name] = (lua, "http://127.0.0.1:%d" % ports[name])
    return targets


def wrk_under_perf(perf_args, lua, url, connections, seconds):
    """Runs wrk on core 0 while `perf record perf_args` records; the requests wrk completed."""
    perf = subprocess.Popen(["perf", "record", "-q", *perf_args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # perf is recording
    out = subprocess.run(["taskset", "-c", "0", "wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-s", lua, url],
                         capture_output=True, text=True, check=True).stdout
    perf.send_signal(2)
    perf.wait(timeout=60)
    if re.search(r"Non-2xx or 3xx responses", out):
        raise RuntimeError("errors during the run:\n" + out)
    return int(re.search(r"(\d+) requests in", out).group(1))
