"""Gateway memory per open stream: RSS of `infergate serve` with N streaming requests held open,
idle (queued upstream, no bytes flowing) and slow (tokens trickling), against its RSS with none.

The simulator is the upstream. Idle: it runs one sequence at a time and a long first request
keeps it busy, so every other stream waits with no bytes flowing. Slow: it runs them all in one
batch, slowed down so each stream gets a token about every 100 ms.

Usage: /usr/bin/python3 bench/gateway_memory.py [--bin build/src/cli/infergate] [--streams 10000]"""
import argparse
import json
import os
import resource
import selectors
import socket
import subprocess
import time


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, proc.stdout.readline().strip()


def open_streams(port, count, body):
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        s.setblocking(False)
        socks.append(s)
    return socks


def drain(socks, seconds):
    """Reads whatever arrives for a while, so slow streams keep flowing; returns bytes read."""
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    total = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.1):
            try:
                total += len(key.fileobj.recv(65536))
            except BlockingIOError:
                pass
    sel.close()
    return total


def measure(args, mode):
    sim_args = [args.bin, "sim", "--port", "0", "--profile", "llama-3.1-8b:int4@h200"]
    if mode == "idle":
        sim_args += ["--max-num-seqs", "1", "--speedup", "1"]
    else:
        sim_args += ["--max-num-seqs", str(args.streams + 1), "--speedup", "2"]
    sim, sim_url = start(sim_args)
    gw, gw_url = start([args.bin, "serve", "--port", "0", "--threads", "1", "--upstream", sim_url])
    port = int(gw_url.rsplit(":", 1)[1])
    try:
        time.sleep(0.5)
        base = rss_kib(gw.pid)
        body = json.dumps({"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "hi"}],
                           "max_tokens": 100000, "ignore_eos": True, "stream": True}).encode()
        socks = open_streams(port, args.streams, body)
        received = drain(socks, args.seconds)
        loaded = rss_kib(gw.pid)
        for s in socks:
            s.close()
        per_stream = (loaded - base) * 1024 / args.streams
        print("%-5s %6d streams: gateway RSS %7.1f MiB -> %7.1f MiB, %6.1f KiB per stream (%d bytes streamed in %ds)"
              % (mode, args.streams, base / 1024, loaded / 1024, per_stream / 1024, received, args.seconds), flush=True)
    finally:
        for proc in (gw, sim):
            proc.terminate()
            proc.wait(timeout=30)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/src/cli/infergate")
    p.add_argument("--streams", type=int, default=10000)
    p.add_argument("--seconds", type=int, default=5)
    args = p.parse_args()
    # Inherited by the simulator and the gateway; each stream holds a client and an upstream socket.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 2 * args.streams + 256
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit("the open-file limit (%d) is too low for %d streams; raise it with ulimit -Hn" % (hard, args.streams))
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    measure(args, "idle")
    measure(args, "slow")


if __name__ == "__main__":
    main()
