"""Starting infergate processes on loopback port 0 and reading where they listen."""
import json
import os
import resource
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

BIN = os.environ.get("INFERGATE_BIN", "build/src/cli/infergate")
# A build with AddressSanitizer and UBSan: their runtime needs descriptors of its own (UBSan's
# vptr check opens a pipe to learn whether memory is readable), so a process of it held at its
# descriptor limit reports errors that are not there. Tests of that limit run in the other build.
SANITIZED = os.environ.get("INFERGATE_SANITIZED") == "1"


def read_json(path):
    with open(path) as f:
        return json.load(f)


class WorkDirTest(unittest.TestCase):
    """A test case with a temporary folder of its own, removed after it: path(name) is a file in it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)


class Process:
    """An infergate subcommand listening on port 0; the base URL is the first line it prints.
    `max_files`: the process's limit of open descriptors (RLIMIT_NOFILE), where a test needs one."""

    def __init__(self, command, *args, max_files=None):
        def limit_files():
            resource.setrlimit(resource.RLIMIT_NOFILE, (max_files, max_files))

        self.proc = subprocess.Popen([BIN, command, "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     preexec_fn=limit_files if max_files else None)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.proc.kill()
            raise RuntimeError(command + " did not start: " + self.url + self.proc.stderr.read())
        self.port = int(self.url.rsplit(":", 1)[1])

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr_text = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def metrics(self, labelled=False):
        """Samples by name (the last of a name's series wins), or with `labelled` by name and
        labels as written: 'infergate_out_of_resources_total{operation="accept"}'."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=10) as r:
            samples = {}
            for line in r.read().decode().splitlines():
                if line and not line.startswith("#"):
                    name, value = line.rsplit(" ", 1)
                    samples[name if labelled else name.split("{")[0]] = float(value)
            return samples

    def post(self, path, body, headers=None):
        """Returns (status, parsed JSON body) whatever the status."""
        status, body, _ = self.post_with_headers(path, body, headers)
        return status, body

    def post_with_headers(self, path, body, headers=None):
        """Returns (status, parsed JSON body, response headers) whatever the status."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, json.loads(r.read()), r.headers
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), e.headers

    def stream(self, path, body, headers=None):
        """POSTs a request and returns the raw response body (all SSE events)."""
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {})})
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.read().decode()


class Sim(Process):
    def __init__(self, *args, max_files=None):
        super().__init__("sim", *args, max_files=max_files)


class Gateway(Process):
    def __init__(self, *args, max_files=None):
        super().__init__("serve", *args, max_files=max_files)


def bench(*args, timeout=240, env=None, cwd=None):
    """Runs `infergate bench`; returns the CompletedProcess."""
    return subprocess.run([BIN, "bench", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def raw_request(body, extra_headers=b"", close=False):
    """The bytes of a POST /v1/chat/completions, for tests that drive a socket by hand."""
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra_headers +
            b"Content-Length: %d\r\n" % len(body) + (b"Connection: close\r\n" if close else b"") + b"\r\n" + body)


def read_tokens(sock, count):
    """Reads a streamed response until `count` content events have arrived."""
    received = b""
    while received.count(b'"content":" ') < count:
        received += sock.recv(65536)
    return received


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
