"""The simulator's fault injection, driven by flags and by the x-infergate-fault request header."""
import json
import socket
import time
import unittest
import urllib.request

from processes import Sim, raw_request


def chat(**extra):
    return {"model": "gemma-4-31b", "messages": [{"role": "user", "content": "tell me a story"}], **extra}


def fault_counts(sim):
    with urllib.request.urlopen(sim.url + "/metrics", timeout=10) as r:
        counts = {}
        for line in r.read().decode().splitlines():
            if line.startswith("infergate_sim_faults_total{"):
                kind = line.split('kind="')[1].split('"')[0]
                counts[kind] = float(line.rsplit(" ", 1)[1])
        return counts


def content_events(text):
    """The JSON chunks of an SSE body that carry generated text; lines that are not JSON as None."""
    events = []
    for line in text.split("\n\n"):
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        try:
            chunk = json.loads(line[6:])
        except ValueError:
            events.append(None)
            continue
        if chunk["choices"] and chunk["choices"][0].get("delta", {}).get("content"):
            events.append(chunk)
    return events


class HeaderFaults(unittest.TestCase):
    def setUp(self):
        self.sim = Sim("--speedup", "50")

    def tearDown(self):
        self.sim.close()

    def fault(self, spec):
        return {"x-infergate-fault": spec}

    def test_error_status_in_openai_shape(self):
        status, body = self.sim.post("/v1/chat/completions", chat(max_tokens=3), self.fault("error=503"))
        self.assertEqual(status, 503)
        self.assertEqual(body["error"]["type"], "server_error")
        status, _ = self.sim.post("/v1/chat/completions", chat(max_tokens=3))
        self.assertEqual(status, 200)
        self.assertEqual(fault_counts(self.sim)["error"], 1)

    def test_rate_limit_with_retry_after(self):
        status, body, headers = self.sim.post_with_headers("/v1/chat/completions", chat(max_tokens=3),
                                                           self.fault("rate_limit=7"))
        self.assertEqual(status, 429)
        self.assertEqual(headers["Retry-After"], "7")
        self.assertEqual(headers["x-ratelimit-reset-requests"], "7s")
        self.assertEqual(body["error"]["code"], "rate_limit_exceeded")

    def test_stall_before_the_first_token_and_between_events(self):
        start = time.monotonic()
        self.sim.stream("/v1/chat/completions", chat(max_tokens=2, stream=True), self.fault("stall_first_ms=400"))
        self.assertGreaterEqual(time.monotonic() - start, 0.4)
        start = time.monotonic()
        text = self.sim.stream("/v1/chat/completions", chat(max_tokens=4, stream=True, ignore_eos=True),
                               self.fault("stall_between_ms=150"))
        self.assertGreaterEqual(time.monotonic() - start, 0.45)
        self.assertEqual(len(content_events(text)), 4)
        start = time.monotonic()
        status, _ = self.sim.post("/v1/chat/completions", chat(max_tokens=2), self.fault("stall_first_ms=300"))
        self.assertEqual(status, 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)

    def test_connection_reset_mid_stream(self):
        body = json.dumps(chat(max_tokens=50, stream=True, ignore_eos=True)).encode()
        received = b""
        with socket.create_connection(("127.0.0.1", self.sim.port)) as s:
            s.sendall(raw_request(body, b"x-infergate-fault: reset_after=3\r\n"))
            s.settimeout(10)
            with self.assertRaises(ConnectionResetError):
                while True:
                    data = s.recv(65536)
                    if not data:
                        break
                    received += data
        self.assertEqual(received.count(b'"content":" '), 3)
        self.assertNotIn(b"[DONE]", received)
        self.assertEqual(fault_counts(self.sim)["reset"], 1)

    def test_malformed_event_then_the_stream_goes_on(self):
        text = self.sim.stream("/v1/chat/completions", chat(max_tokens=5, stream=True, ignore_eos=True),
                               self.fault("malformed_after=2"))
        events = content_events(text)
        self.assertEqual(len(events), 6)
        self.assertIsNone(events[2])
        self.assertTrue(text.endswith("data: [DONE]\n\n"))
        # A non-streamed answer is cut in half.
        request = urllib.request.Request(self.sim.url + "/v1/chat/completions",
                                         data=json.dumps(chat(max_tokens=5)).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "x-infergate-fault": "malformed_after=0"})
        with urllib.request.urlopen(request, timeout=10) as r:
            with self.assertRaises(ValueError):
                json.loads(r.read())

    def test_no_usage_and_no_ignore_eos(self):
        text = self.sim.stream("/v1/chat/completions",
                               chat(max_tokens=3, stream=True, stream_options={"include_usage": True}),
                               self.fault("no_usage"))
        self.assertNotIn('"usage"', text)
        status, body = self.sim.post("/v1/chat/completions", chat(max_tokens=4000, ignore_eos=True),
                                     self.fault("no_ignore_eos"))
        self.assertEqual(status, 200)
        self.assertEqual(body["choices"][0]["finish_reason"], "stop")
        self.assertLess(body["usage"]["completion_tokens"], 4000)

    def test_a_bad_header_is_a_400_naming_it(self):
        status, body = self.sim.post("/v1/chat/completions", chat(), self.fault("explode"))
        self.assertEqual(status, 400)
        self.assertEqual(body["error"]["param"], "x-infergate-fault")
        self.assertIn("unknown fault 'explode'", body["error"]["message"])


class FlagFaults(unittest.TestCase):
    def test_rates_hit_their_share_and_the_header_overrides(self):
        sim = Sim("--speedup", "50", "--fault-error-rate", "0.5", "--fault-error-status", "502", "--fault-seed", "7")
        try:
            statuses = [sim.post("/v1/chat/completions", chat(max_tokens=1))[0] for _ in range(200)]
            self.assertEqual(set(statuses), {200, 502})
            self.assertLess(abs(statuses.count(502) - 100), 25)
            self.assertEqual(fault_counts(sim)["error"], statuses.count(502))
        finally:
            sim.close()

    def test_every_request_rate_limited(self):
        sim = Sim("--fault-429-rate", "1", "--fault-retry-after", "2")
        try:
            status, _, headers = sim.post_with_headers("/v1/chat/completions", chat(max_tokens=1))
            self.assertEqual((status, headers["Retry-After"]), (429, "2"))
        finally:
            sim.close()


if __name__ == "__main__":
    unittest.main()
