"""Starting infergate processes on loopback port 0 and reading where they listen."""
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

BIN = os.environ.get("INFERGATE_BIN", "build/src/cli/infergate")


class Sim:
    """`infergate sim` in its own process; the base URL is the first line it prints."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([BIN, "sim", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.proc.kill()
            raise RuntimeError("sim did not start: " + self.url + self.proc.stderr.read())
        self.port = int(self.url.rsplit(":", 1)[1])

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def metrics(self):
        with urllib.request.urlopen(self.url + "/metrics", timeout=10) as r:
            samples = {}
            for line in r.read().decode().splitlines():
                if line and not line.startswith("#"):
                    name, value = line.rsplit(" ", 1)
                    samples[name.split("{")[0]] = float(value)
            return samples

    def post(self, path, body, headers=None):
        """Returns (status, parsed JSON body) whatever the status."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def bench(*args, timeout=240, env=None):
    """Runs `infergate bench`; returns the CompletedProcess."""
    return subprocess.run([BIN, "bench", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def wait_for(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def free_port():
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
