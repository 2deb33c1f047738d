"""infergate serve in front of simulator processes (and a scripted upstream), all on loopback."""
import gzip
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from fake_upstream import FakeUpstream
from processes import SANITIZED, Gateway, Sim, bench, free_port, raw_request, read_tokens, wait_for

CHAT = {"model": "gemma-4-31b", "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 4}


def read_head(sock):
    """A response head read from `sock`, and the bytes that came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError("connection closed before the response head: %r" % data)
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head + b"\r\n", rest


def access_log_lines(path):
    def read():
        with open(path, encoding="utf-8") as f:  # strictly: a line that is not UTF-8 fails the test
            return [json.loads(line) for line in f if line.strip()]
    return read


class GatewayOverTwoSims(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "access.jsonl")
        self.sims = [Sim("--speedup", "20"), Sim("--speedup", "20")]
        self.gw = Gateway("--threads", "2", "--balancer", "round_robin", "--access-log", self.log,
                          *sum((["--upstream", s.url] for s in self.sims), []))

    def tearDown(self):
        self.gw.close()
        for s in self.sims:
            s.close()
        self.tmp.cleanup()

    def served_by_each(self):
        return [s.metrics()["vllm:request_success_total"] for s in self.sims]

    def test_lists_models_and_spreads_requests_evenly(self):
        with urllib.request.urlopen(self.gw.url + "/v1/models") as r:
            self.assertEqual([m["id"] for m in json.load(r)["data"]], ["gemma-4-31b"])
        r = bench("--base-url", self.gw.url, "--concurrency", "4", "--requests", "40", "--output-tokens", "8",
                  "--input-tokens", "16")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("40 completed, 0 failed", r.stdout)
        self.assertEqual(self.served_by_each(), [20, 20])

    def test_fails_over_when_a_deployment_is_killed(self):
        self.sims[0].kill()
        r = bench("--base-url", self.gw.url, "--concurrency", "2", "--requests", "20", "--output-tokens", "4",
                  "--input-tokens", "8")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("20 completed, 0 failed", r.stdout)
        self.assertEqual(self.sims[1].metrics()["vllm:request_success_total"], 20)
        lines = access_log_lines(self.log)
        self.assertTrue(wait_for(lambda: len(lines()) >= 20))
        retried = [line for line in lines() if line["attempts"] == 2]
        # The refused connection ejects the dead deployment: only requests already choosing it
        # (one per stream at most) pay for a second attempt.
        self.assertGreaterEqual(len(retried), 1)
        self.assertLessEqual(len(retried), 2)
        with urllib.request.urlopen(self.gw.url + "/metrics") as r:
            text = r.read().decode()
        self.assertIn('infergate_ejections_total{model="gemma-4-31b",provider="127.0.0.1:%d"} 1' % self.sims[0].port,
                      text)

    def ready(self):
        try:
            with urllib.request.urlopen(self.gw.url + "/ready") as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)

    def test_every_deployment_down_is_503_with_retry_after(self):
        self.assertEqual(self.ready(), (200, {"status": "ready"}))
        for s in self.sims:
            s.kill()
        status, body, headers = self.gw.post_with_headers("/v1/chat/completions", CHAT)
        self.assertEqual(status, 503)
        self.assertEqual(headers["Retry-After"], "1")
        self.assertEqual(body["error"]["code"], "upstream_unavailable")
        self.assertIn("gemma-4-31b", body["error"]["message"])
        # Both refused connections ejected their deployments: the gateway is no longer ready.
        self.assertEqual(self.ready(), (503, {"status": "not_ready",
                                              "models_without_healthy_deployments": ["gemma-4-31b"]}))

    def test_bad_requests_are_answered_by_the_gateway(self):
        status, body = self.gw.post("/v1/chat/completions", dict(CHAT, model="nope"))
        self.assertEqual((status, body["error"]["code"]), (404, "model_not_found"))
        status, body = self.gw.post("/v1/chat/completions", b"{broken")
        self.assertEqual(status, 400)
        status, body = self.gw.post("/v1/chat/completions", dict(CHAT, stream="yes"))
        self.assertEqual((status, body["error"]["param"]), (400, "stream"))
        # The upstream's own 400 comes back as it was.
        status, body = self.gw.post("/v1/chat/completions", dict(CHAT, max_tokens="ten"))
        self.assertEqual((status, body["error"]["param"]), (400, "max_tokens"))

    def test_request_id_is_echoed_sent_upstream_and_logged(self):
        status, _, headers = self.gw.post_with_headers("/v1/chat/completions", CHAT, {"X-Request-Id": "trace-42"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-Request-Id"], "trace-42")
        self.assertGreaterEqual(int(headers["x-infergate-overhead-us"]), 0)
        _, _, headers = self.gw.post_with_headers("/v1/chat/completions", CHAT, {"X-Request-Id": "bad id"})
        self.assertRegex(headers["X-Request-Id"], "^[0-9a-f]{32}$")
        lines = access_log_lines(self.log)
        self.assertTrue(wait_for(lambda: any(line["request_id"] == "trace-42" for line in lines())))
        line = next(line for line in lines() if line["request_id"] == "trace-42")
        self.assertEqual((line["status"], line["completion_tokens"], line["model"]), (200, 4, "gemma-4-31b"))
        self.assertNotIn("hello there", json.dumps(lines()))

    def test_usage_is_requested_upstream_and_only_shown_when_asked(self):
        plain = self.gw.stream("/v1/chat/completions", dict(CHAT, stream=True))
        self.assertNotIn('"usage"', plain)
        self.assertEqual(plain.count('"content":" '), 4)
        self.assertTrue(plain.rstrip().endswith("data: [DONE]"))
        asked = self.gw.stream("/v1/chat/completions", dict(CHAT, stream=True, stream_options={"include_usage": True}))
        self.assertIn('"completion_tokens":4', asked)
        # A client that sends stream_options without asking for the usage (false, null, or no
        # include_usage) does not see it either, but the gateway still asks for it, in the
        # client's own object: the tokens logged are the upstream's, not an estimate.
        for options in ({"include_usage": False}, None, {}):
            declined = self.gw.stream("/v1/chat/completions", dict(CHAT, stream=True, stream_options=options))
            self.assertNotIn('"usage"', declined, options)
            self.assertEqual(declined.count('"content":" '), 4, options)
        lines = access_log_lines(self.log)
        self.assertTrue(wait_for(lambda: len(lines()) == 5))
        upstream = json.loads(next(line[len("data: "):] for line in asked.splitlines() if '"usage"' in line))["usage"]
        self.assertEqual([(line["prompt_tokens"], line["completion_tokens"]) for line in lines()],
                         [(upstream["prompt_tokens"], 4)] * 5)

    def test_a_streamed_turn_that_only_calls_a_tool_is_timed(self):
        # An agent's turn: the answer is a tool call alone, and its name and arguments are the
        # generated text that the first token and the time per token are measured by.
        tools = [{"type": "function", "function": {"name": "get_weather",
                                                   "parameters": {"properties": {"city": {"type": "string"}}}}}]
        body = dict(CHAT, stream=True, max_tokens=6, tools=tools, tool_choice="required",
                    messages=[{"role": "user", "content": "weather in Paris"}])
        self.gw.post_with_headers("/v1/chat/completions", dict(body, stream=False), {"X-Request-Id": "whole-call"})
        stream = self.gw.stream("/v1/chat/completions", body, headers={"X-Request-Id": "streamed-call"})
        self.assertEqual(stream.count('"arguments":'), 6)
        self.assertNotIn('"content":" ', stream)
        lines = access_log_lines(self.log)
        self.assertTrue(wait_for(lambda: {"whole-call", "streamed-call"} <= {line["request_id"] for line in lines()}))
        line = next(line for line in lines() if line["request_id"] == "streamed-call")
        self.assertEqual(line["completion_tokens"], 6)
        self.assertIsNotNone(line["ttft_ms"], line)
        self.assertIsNotNone(line["tpot_ms"], line)
        self.assertLess(line["ttft_ms"], line["duration_ms"])

    def aborted(self):
        return sum(s.metrics()["vllm:request_aborted_total"] for s in self.sims)

    def test_client_disconnect_cancels_the_upstream_request(self):
        body = json.dumps(dict(CHAT, max_tokens=20000, ignore_eos=True, stream=True)).encode()
        with socket.create_connection(("127.0.0.1", self.gw.port)) as s:
            s.sendall(raw_request(body))
            read_tokens(s, 3)
        self.assertTrue(wait_for(lambda: self.aborted() == 1, 5))
        # Non-streamed: nothing has been sent to the client yet when it leaves.
        body = json.dumps(dict(CHAT, max_tokens=20000, ignore_eos=True)).encode()
        with socket.create_connection(("127.0.0.1", self.gw.port)) as s:
            s.sendall(raw_request(body))
            self.assertTrue(wait_for(lambda: sum(x.metrics()["vllm:num_requests_running"] for x in self.sims) == 1))
        self.assertTrue(wait_for(lambda: self.aborted() == 2, 5))
        lines = access_log_lines(self.log)
        self.assertTrue(wait_for(lambda: [line["status"] for line in lines()] == [499, 499]))
        self.assertEqual({line["error"] for line in lines()}, {"client disconnected; upstream request cancelled"})


class GatewayUnderAbuse(unittest.TestCase):
    """Bad bytes get a 4xx and never crash or wedge the gateway."""

    def setUp(self):
        self.sim = Sim("--speedup", "50")
        self.gw = Gateway("--upstream", self.sim.url, "--threads", "1")

    def tearDown(self):
        self.gw.close()
        self.sim.close()

    def raw(self, data, timeout=5):
        with socket.create_connection(("127.0.0.1", self.gw.port)) as s:
            s.sendall(data)
            s.settimeout(timeout)
            chunks = []
            while True:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)

    def request(self, body, extra_headers=b""):
        return raw_request(body, extra_headers, close=True)

    def test_invalid_utf8_is_a_400(self):
        reply = self.raw(self.request(b'{"model":"gemma-4-31b","messages":[{"role":"user","content":"\xff\xfe"}]}'))
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply[:200])

    def test_a_target_that_is_not_ascii_is_a_400(self):
        reply = self.raw(b"GET /v1/caf\xc3\xa9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply[:200])
        reply = self.raw(b"GET /v1/caf%C3%A9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 404"), reply[:200])

    def test_an_absolute_target_is_served_by_its_path(self):
        reply = self.raw(b"GET http://127.0.0.1:%d/v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                         % self.gw.port)
        self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:200])
        self.assertIn(b'"gemma-4-31b"', reply)

    def test_lines_ending_in_lf_alone_are_a_400_at_once(self):
        start = time.monotonic()
        reply = self.raw(b"GET /health HTTP/1.1\nHost: x\n\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply[:200])
        self.assertIn(b"bad line ending", reply)
        self.assertLess(time.monotonic() - start, 3)  # not the 30 s header timeout's 408

    def test_a_body_over_the_limit_is_a_413_for_a_client_that_sends_it_all_first(self):
        # urllib writes the whole body before it reads: had the gateway closed the connection with
        # the body unread, the kernel's reset would have reached it as a broken pipe, not the 413.
        body = json.dumps(dict(CHAT, messages=[{"role": "user", "content": "x" * (16 << 20)}])).encode()
        request = urllib.request.Request(self.gw.url + "/v1/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        self.assertEqual(refused.exception.code, 413)
        self.assertIn("larger than the limit", json.load(refused.exception)["error"]["message"])
        status, _ = self.gw.post("/v1/chat/completions", CHAT)
        self.assertEqual(status, 200)

    def test_oversized_headers_are_a_431(self):
        reply = self.raw(self.request(b"{}", b"X-Big: " + b"a" * 70000 + b"\r\n"))
        self.assertTrue(reply.startswith(b"HTTP/1.1 431"), reply[:200])

    def test_header_injection_in_the_request_id_is_not_echoed(self):
        body = json.dumps(CHAT).encode()
        reply = self.raw(self.request(body, b"X-Request-Id: a b\rInjected: yes\r\n"))
        self.assertNotIn(b"Injected", reply)
        reply = self.raw(self.request(body, b"X-Request-Id: ok\x01id\r\n"))
        self.assertRegex(reply, rb"X-Request-Id: [0-9a-f]{32}\r\n|^HTTP/1.1 400")

    def test_head_is_answered_as_get_without_a_body_and_405_names_the_methods(self):
        reply = self.raw(b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n"
                         b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        first, _, rest = reply.partition(b"\r\n\r\n")
        self.assertTrue(first.startswith(b"HTTP/1.1 200"), reply)
        self.assertIn(b"Content-Length: 15", first)
        self.assertTrue(rest.startswith(b"HTTP/1.1 200"), reply)  # no body between the two answers
        self.assertTrue(rest.endswith(b'{"status":"ok"}'), reply)
        for request, allow in ((b"DELETE /v1/models", b"GET, HEAD"), (b"GET /v1/chat/completions", b"POST")):
            reply = self.raw(request + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            self.assertTrue(reply.startswith(b"HTTP/1.1 405"), reply)
            self.assertIn(b"\r\nAllow: " + allow + b"\r\n", reply)
        reply = self.raw(b"DELETE /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 404"), reply)
        self.assertNotIn(b"Allow:", reply)
        with socket.create_connection(("127.0.0.1", self.sim.port)) as s:
            s.sendall(b"PUT /v1/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            head, _ = read_head(s)
        self.assertTrue(head.startswith(b"HTTP/1.1 405"), head)
        self.assertIn(b"\r\nAllow: POST\r\n", head)

    def test_an_http10_client_streams_without_chunks(self):
        # HTTP/1.0 has no chunked framing: the events come bare and the closed connection ends them.
        body = json.dumps(dict(CHAT, stream=True)).encode()
        reply = self.raw(b"POST /v1/chat/completions HTTP/1.0\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        head, _, events = reply.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
        self.assertNotIn(b"Transfer-Encoding", head)
        self.assertTrue(events.startswith(b"data: {"), events[:100])
        self.assertEqual(events.count(b'"content":" '), 4, events)
        self.assertTrue(events.endswith(b"data: [DONE]\n\n"), events[-100:])

    def test_a_compressed_body_is_415_saying_so_not_malformed_json(self):
        body = gzip.compress(json.dumps(CHAT).encode())
        reply = self.raw(raw_request(body, b"Content-Encoding: gzip\r\n", close=True))
        head, _, text = reply.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 415"), head)
        self.assertIn(b"\r\nAccept-Encoding: identity\r\n", head)
        self.assertEqual(json.loads(text)["error"]["code"], "unsupported_content_encoding")

    def test_pipelined_garbage_after_a_good_request(self):
        body = json.dumps(CHAT).encode()
        reply = self.raw(raw_request(body) + b"\x00\x01GARBAGE / HTTP/9\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:200])
        self.assertIn(b"HTTP/1.1 400", reply)
        status, _ = self.gw.post("/v1/chat/completions", CHAT)
        self.assertEqual(status, 200)


ACCEPTS_OUT_OF_RESOURCES = 'infergate_out_of_resources_total{operation="accept"}'
CONNECTS_OUT_OF_RESOURCES = 'infergate_out_of_resources_total{operation="upstream_connect"}'


@unittest.skipIf(SANITIZED, "the sanitizers' runtime needs descriptors at the limit (processes.SANITIZED)")
class GatewayAtItsDescriptorLimit(unittest.TestCase):
    """Connections beyond the descriptor limit wait in the listen queue; the gateway neither spins
    nor floods its log meanwhile, serves the connections it has, and takes the waiting ones in as
    descriptors free up."""

    def setUp(self):
        self.sim = Sim("--speedup", "50")
        self.addCleanup(self.sim.close)
        self.gw = Gateway("--upstream", self.sim.url, "--threads", "1", max_files=64)

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.gw.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def fill_to_the_limit(self, idle, first_sends=b""):
        """Opens a first connection (sending it `first_sends`), then more than the gateway has
        descriptors for, all into `idle`; the first."""
        first = socket.create_connection(("127.0.0.1", self.gw.port))
        idle.append(first)
        first.sendall(first_sends)
        for _ in range(80):
            idle.append(socket.create_connection(("127.0.0.1", self.gw.port)))
        time.sleep(0.5)  # the gateway reaches its limit
        return first

    def test_accepting_pauses_at_the_limit_and_resumes(self):
        idle = []
        try:
            status, _ = self.gw.post("/v1/chat/completions", CHAT)  # an upstream connection, kept alive
            self.assertEqual(status, 200)
            first = self.fill_to_the_limit(idle, raw_request(json.dumps(CHAT).encode())[:20])  # under way
            before = self.cpu_seconds()
            time.sleep(1.0)
            self.assertLess(self.cpu_seconds() - before, 0.3)  # not spinning on the queued connections
            first.sendall(raw_request(json.dumps(CHAT).encode())[20:])
            first.settimeout(10)
            head, _ = read_head(first)
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
            for s in idle:
                s.close()
            status, _ = self.gw.post("/v1/chat/completions", CHAT)
            self.assertEqual(status, 200)
            metrics = self.gw.metrics(labelled=True)
            # About ten tries a second for the 1.5 s or more it spent at the limit; a gateway that
            # tried without pausing would count hundreds of thousands.
            self.assertGreaterEqual(metrics[ACCEPTS_OUT_OF_RESOURCES], 5)
            self.assertLessEqual(metrics[ACCEPTS_OUT_OF_RESOURCES], 200)
            self.assertEqual(metrics[CONNECTS_OUT_OF_RESOURCES], 0)
        finally:
            for s in idle:
                s.close()
            self.gw.close()
        # Once per stay at the limit: the first, and any after the gateway took a waiting connection
        # in (the closes above free descriptors one by one while connections wait). Not a line a try.
        self.assertLessEqual(self.gw.stderr_text.count("accept failed"), 5, self.gw.stderr_text[:2000])
        self.assertIn("Too many open files", self.gw.stderr_text)

    def test_no_room_for_an_upstream_connection_is_a_503_with_no_retry_and_no_ejection(self):
        idle = []
        try:
            first = self.fill_to_the_limit(idle)  # with no upstream connection yet
            first.sendall(raw_request(json.dumps(CHAT).encode()))
            first.settimeout(10)
            head, body = read_head(first)
            self.assertTrue(head.startswith(b"HTTP/1.1 503"), head)
            self.assertIn(b"Retry-After: 1\r\n", head)
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            while len(body) < length:
                body += first.recv(65536)
            error = json.loads(body)["error"]
            self.assertEqual(error["code"], "gateway_out_of_resources")
            self.assertIn("Too many open files", error["message"])
            for s in idle:
                s.close()
            status, _ = self.gw.post("/v1/chat/completions", CHAT)  # the deployment was not ejected
            self.assertEqual(status, 200)
            metrics = self.gw.metrics(labelled=True)
            for name in ("infergate_retries_total", "infergate_ejections_total"):
                self.assertEqual(sum(v for k, v in metrics.items() if k.startswith(name + "{")), 0, name)
            self.assertEqual(metrics[CONNECTS_OUT_OF_RESOURCES], 1)
        finally:
            for s in idle:
                s.close()
            self.gw.close()


class GatewayAccessLogThatCannotBeWritten(unittest.TestCase):
    def setUp(self):
        self.sim = Sim("--speedup", "50")
        self.addCleanup(self.sim.close)

    def serve_and_count_lost_lines(self, gw):
        """Four requests served, each one's line counted lost once its batch failed."""
        for lost in (1, 2, 3, 4):
            status, _ = gw.post("/v1/chat/completions", CHAT)
            self.assertEqual(status, 200)
            self.assertTrue(wait_for(lambda: gw.metrics().get("infergate_access_log_lines_lost_total") == lost))

    def test_a_full_disk(self):
        gw = Gateway("--upstream", self.sim.url, "--access-log", "/dev/full")
        try:
            self.serve_and_count_lost_lines(gw)
        finally:
            gw.close()
        self.assertEqual(gw.stderr_text.count("the access log cannot be written (No space left on device)"), 1,
                         gw.stderr_text)

    def test_standard_error_a_pipe_nobody_reads(self):
        gw = Gateway("--upstream", self.sim.url, "--access-log", "-")
        try:
            gw.proc.stderr.close()
            self.serve_and_count_lost_lines(gw)
            self.assertIsNone(gw.proc.poll())
        finally:
            gw.proc.terminate()
            gw.proc.wait(timeout=10)
            gw.proc.stdout.close()


class GatewayMetricsExposition(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.sim = Sim("--speedup", "50")
        self.gw = Gateway("--threads", "2", "--upstream", self.sim.url)
        for _ in range(3):
            self.gw.stream("/v1/chat/completions", dict(CHAT, stream=True))
        self.gw.post("/v1/chat/completions", dict(CHAT, model="nope"))

    def tearDown(self):
        self.gw.close()
        self.sim.close()
        self.tmp.cleanup()

    def scrape(self):
        with urllib.request.urlopen(self.gw.url + "/metrics") as r:
            return r.read().decode()

    def test_series_and_promtool(self):
        # A request is counted once its last byte is out, a moment after the client has it, and
        # perhaps on the other I/O thread: wait for the counts to settle.
        unrouted = 'infergate_requests_total{model="",provider="",status_class="4xx"} 1'
        self.assertTrue(wait_for(lambda: unrouted in self.scrape()
                                 and self.gw.metrics()["infergate_request_duration_seconds_count"] == 3))
        text = self.scrape()
        self.assertIn('infergate_requests_total{model="gemma-4-31b",provider="127.0.0.1:%d",status_class="2xx"} 3'
                      % self.sim.port, text)
        self.assertIn(unrouted, text)
        self.assertNotIn("nope", text)  # a client's model name never becomes a label
        check = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_a_real_prometheus_scrapes_and_queries_a_series(self):
        port = free_port()
        config = os.path.join(self.tmp.name, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: infergate\n"
                    "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % self.gw.port)
        prom = subprocess.Popen(["prometheus", "--config.file", config, "--storage.tsdb.path",
                                 os.path.join(self.tmp.name, "data"), "--web.listen-address", "127.0.0.1:%d" % port],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        query = "http://127.0.0.1:%d/api/v1/query?query=infergate_requests_total%%7Bstatus_class%%3D%%222xx%%22%%7D" % port

        def scraped():
            try:
                with urllib.request.urlopen(query, timeout=2) as r:
                    result = json.load(r)["data"]["result"]
                    return any(float(series["value"][1]) == 3 for series in result)
            except (OSError, ValueError, KeyError):
                return False
        try:
            self.assertTrue(wait_for(scraped, 30))
        finally:
            prom.terminate()
            prom.wait(timeout=30)


class GatewayRetries(unittest.TestCase):
    def setUp(self):
        self.fake = FakeUpstream()

    def tearDown(self):
        self.fake.close()

    def test_429_retry_after_is_honoured(self):
        gw = Gateway("--upstream", self.fake.url + "/ratelimit", "--max-attempts", "2")
        try:
            text = gw.stream("/v1/chat/completions", {"model": "fake", "messages": [], "stream": True})
        finally:
            gw.close()
        self.assertIn("data: [DONE]", text)
        times = [t for mode, t in self.fake.server.arrivals if mode == "ratelimit"]
        self.assertEqual(len(times), 2)
        self.assertGreaterEqual(times[1] - times[0], 0.3)

    def test_the_gateways_overhead_leaves_out_the_upstreams_time(self):
        gw = Gateway("--upstream", self.fake.url + "/ratelimit", "--max-attempts", "2")
        try:
            request = urllib.request.Request(gw.url + "/v1/chat/completions", method="POST",
                                             data=json.dumps({"model": "fake", "messages": [], "stream": True}).encode(),
                                             headers={"Content-Type": "application/json"})
            start = time.monotonic()
            with urllib.request.urlopen(request, timeout=10) as r:
                headers, text = r.headers, r.read().decode()
            elapsed = time.monotonic() - start
        finally:
            gw.close()
        self.assertIn("data: [DONE]", text)
        self.assertGreaterEqual(elapsed, 0.3)  # a 429, its Retry-After, then the answer
        # Connecting, the refused attempt and the backoff were the upstream's time, not the
        # gateway's (its own part is tens of microseconds; the bound leaves room for a slow host).
        self.assertLess(int(headers["x-infergate-overhead-us"]), 50_000)

    def test_429_after_the_last_attempt_reaches_the_client(self):
        gw = Gateway("--upstream", self.fake.url + "/ratelimit", "--max-attempts", "1")
        try:
            status, body, headers = gw.post_with_headers("/v1/chat/completions", {"model": "fake", "messages": []})
        finally:
            gw.close()
        self.assertEqual((status, body["error"]["message"], headers["Retry-After"]), (429, "slow down", "0.3"))

    def post_once(self, mode, *args):
        """A chat request through a gateway in front of the fake's `mode`, with one attempt: the
        status, the body and the seconds it took."""
        gw = Gateway("--upstream", self.fake.url + "/" + mode, "--max-attempts", "1", *args)
        try:
            start = time.monotonic()
            status, body = gw.post("/v1/chat/completions", {"model": "fake", "messages": []})
            return status, body, time.monotonic() - start
        finally:
            gw.close()

    def test_first_byte_timeout_is_504(self):
        status, body, elapsed = self.post_once("stall", "--first-byte-timeout-ms", "300")
        self.assertEqual((status, body["error"]["code"]), (504, "upstream_timeout"))
        self.assertLess(elapsed, 3)

    def test_total_timeout_ends_a_slow_stream_with_an_error_event(self):
        config = os.path.join(tempfile.mkdtemp(), "g.yaml")
        with open(config, "w") as f:
            f.write("providers:\n  slow: {base_url: '%s/drip', timeouts: {total_ms: 700}}\n"
                    "models:\n  fake: {deployments: [{provider: slow, model: fake}]}\n" % self.fake.url)
        gw = Gateway("--config", config)
        try:
            start = time.monotonic()
            text = gw.stream("/v1/chat/completions", {"model": "fake", "messages": [], "stream": True})
            elapsed = time.monotonic() - start
        finally:
            gw.close()
        self.assertIn('"content":" tok"', text)
        self.assertIn("exceeded the total timeout of 700 ms", text)
        self.assertIn('"code":"upstream_stream_error"', text)
        self.assertLess(elapsed, 2.5)

    def test_an_error_page_that_is_not_utf8_leaves_the_access_log_valid_json(self):
        log = os.path.join(tempfile.mkdtemp(), "access.jsonl")
        gw = Gateway("--upstream", self.fake.url + "/binary", "--max-attempts", "1", "--access-log", log)
        try:
            request = urllib.request.Request(gw.url + "/v1/embeddings", data=b'{"model":"fake","input":"x"}',
                                             headers={"Content-Type": "application/json"})
            with self.assertRaises(urllib.error.HTTPError) as raised:
                urllib.request.urlopen(request, timeout=10)
            self.assertEqual(raised.exception.code, 502)  # the upstream's own answer, passed through
            lines = access_log_lines(log)  # read as UTF-8, strictly
            self.assertTrue(wait_for(lambda: len(lines()) == 1, 5))
            self.assertIn("answered HTTP 502: \ufffd\ufffd<html>bad gateway</html>", lines()[0]["error"])
        finally:
            gw.close()

    def test_a_client_that_stops_reading_is_let_go_and_its_upstream_request_cancelled(self):
        tmp = tempfile.mkdtemp()
        config, log = os.path.join(tmp, "g.yaml"), os.path.join(tmp, "access.jsonl")
        with open(config, "w") as f:
            f.write("server: {send_timeout_ms: 300, access_log: '%s'}\n"
                    "providers:\n  fast: {base_url: '%s/flood'}\n"
                    "models:\n  fake: {deployments: [{provider: fast, model: fake}]}\n" % (log, self.fake.url))
        gw = Gateway("--config", config)
        try:
            body = json.dumps({"model": "fake", "messages": [], "stream": True}).encode()
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(("127.0.0.1", gw.port))
                s.sendall(raw_request(body))  # and reads nothing
                ended = lambda: [t for mode, t in self.fake.server.arrivals if mode == "flood ended"]  # noqa: E731
                self.assertTrue(wait_for(ended, 5))
            lines = access_log_lines(log)
            self.assertTrue(wait_for(lambda: [line["status"] for line in lines()] == [499], 5), lines())
            self.assertIn("client stopped reading", lines()[0]["error"])
        finally:
            gw.close()

    def test_an_event_that_never_ends_is_cut_at_its_limit(self):
        gw = Gateway("--upstream", self.fake.url + "/endless", "--max-attempts", "1")

        def peak_kib():
            with open("/proc/%d/status" % gw.proc.pid) as f:
                return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1))
        try:
            before = peak_kib()
            text = gw.stream("/v1/chat/completions", {"model": "fake", "messages": [], "stream": True})
            grown_mib = (peak_kib() - before) / 1024
            with urllib.request.urlopen(gw.url + "/health", timeout=10) as r:  # and goes on serving
                self.assertEqual(r.status, 200)
        finally:
            gw.close()
        # Short messages on failure: the unfinished event, were it sent, is 128 MiB.
        self.assertTrue(text.startswith('data: {"choices"'), text[:300])
        self.assertEqual(text.count('"content":" tok"'), 2, text[-300:])
        self.assertIn("sent an event of more than 8388608 bytes without its end", text[-500:])
        self.assertIn('"code":"upstream_stream_error"', text[-500:])
        self.assertLess(len(text), 2000, text[-300:])  # nothing of the unfinished event
        # The event held back (and the parser's copy of its line), not the 128 MiB sent; room is
        # left for the sanitizers' quarantine of the buffers outgrown on the way.
        self.assertLess(grown_mib, 96)

    def test_an_upstream_that_ends_lines_in_lf_alone_is_told_at_once(self):
        status, body, elapsed = self.post_once("lf")
        self.assertEqual((status, body["error"]["code"]), (503, "upstream_unavailable"))
        self.assertIn("bad line ending", body["error"]["message"])
        self.assertLess(elapsed, 3)  # not the 60 s first-byte timeout

    def test_an_http10_upstreams_stream_ended_by_its_close_is_relayed_whole(self):
        gw = Gateway("--upstream", self.fake.url + "/http10", "--max-attempts", "1")
        try:
            for _ in range(2):  # the closed upstream connection is not reused for the second
                text = gw.stream("/v1/chat/completions", {"model": "fake", "messages": [], "stream": True})
                self.assertEqual(text.count('"content":" tok"'), 2, text)
                self.assertTrue(text.rstrip().endswith("data: [DONE]"), text)
        finally:
            gw.close()

    def test_an_upstreams_answer_before_it_took_the_whole_body_is_relayed(self):
        gw = Gateway("--upstream", self.fake.url + "/toolarge", "--max-attempts", "1")
        try:
            big = {"model": "fake", "messages": [{"role": "user", "content": "x" * (6 << 20)}]}
            status, body = gw.post("/v1/chat/completions", big)
        finally:
            gw.close()
        # The upstream's own refusal, not a broken pipe reported as the upstream being down.
        self.assertEqual((status, body["error"]["code"]), (413, "body_too_large"), body)

    def test_embeddings_pass_through(self):
        gw = Gateway("--upstream", self.fake.url + "/embed")
        try:
            status, body = gw.post("/v1/embeddings", {"model": "fake", "input": "three words here"})
        finally:
            gw.close()
        self.assertEqual((status, body["data"][0]["embedding"], body["usage"]["prompt_tokens"]), (200, [0.1, 0.2], 3))

    def test_a_whole_body_keeps_the_upstreams_length_on_a_kept_alive_connection(self):
        gw = Gateway("--upstream", self.fake.url + "/embed")
        try:
            body = json.dumps({"model": "fake", "input": "three words here"}).encode()
            request = raw_request(body).replace(b"/v1/chat/completions", b"/v1/embeddings")
            with socket.create_connection(("127.0.0.1", gw.port), timeout=10) as s:
                for _ in range(2):  # the second answer comes on the same connection
                    s.sendall(request)
                    head, rest = read_head(s)
                    self.assertIn(b"Content-Length: ", head)
                    self.assertNotIn(b"Transfer-Encoding", head)
                    length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                    while len(rest) < length:
                        rest += s.recv(65536)
                    self.assertEqual(len(rest), length)  # nothing after it: no chunk framing
                    self.assertEqual(json.loads(rest)["usage"]["prompt_tokens"], 3)
        finally:
            gw.close()

    def test_a_body_cut_short_of_its_length_ends_the_connection(self):
        gw = Gateway("--upstream", self.fake.url + "/short", "--max-attempts", "1")
        try:
            with socket.create_connection(("127.0.0.1", gw.port), timeout=10) as s:
                s.sendall(raw_request(json.dumps({"model": "fake", "messages": []}).encode()))
                head, rest = read_head(s)
                self.assertIn(b"Content-Length: 100\r\n", head)
                while chunk := s.recv(65536):  # the gateway closes the connection: the read ends
                    rest += chunk
                self.assertEqual(rest, b'{"choices":[{"message":')
            with urllib.request.urlopen(gw.url + "/health", timeout=10) as r:  # and goes on serving
                self.assertEqual(r.status, 200)
        finally:
            gw.close()

    def test_no_upstream_answers_at_start(self):
        from processes import BIN
        r = subprocess.run([BIN, "serve", "--port", "0", "--upstream", "http://127.0.0.1:%d" % free_port()],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no upstream listed any model", r.stderr)


if __name__ == "__main__":
    unittest.main()
