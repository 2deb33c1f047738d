"""Rate limits shared across gateway replicas through a real redis-server started here: two
gateways admit a key's RPM once between them, and a Redis outage fails open or closed as
configured without bringing a gateway down."""
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from processes import Gateway, Sim, free_port, wait_for

MASTER = "master-key-for-tests-0123456789"


class RedisServer:
    def __init__(self, port=None):
        self.port = port or free_port()
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(self.answers, 10):
            self.close()
            raise RuntimeError("redis-server did not start")

    def answers(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def inside_one_window(seconds_needed):
    """Waits for the next minute window unless this one has seconds_needed left. Called after the
    gateways have started, which can take seconds on a loaded machine, and before the first
    request that counts."""
    left = 60 - time.time() % 60
    if left < seconds_needed:
        time.sleep(left + 0.05)


class SharedLimits(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.db = os.path.join(self.tmp.name, "keys.db")
        self.redis = RedisServer()
        self.addCleanup(lambda: self.redis.close())
        self.sim = Sim("--speedup", "100")
        self.addCleanup(self.sim.close)
        os.environ["IG_TEST_MASTER"] = MASTER

    def gateway(self, failure="open", threads=2, leases=False):
        config = os.path.join(self.tmp.name, f"gateway-{failure}-{leases}.yaml")
        with open(config, "w") as f:
            f.write(f"auth:\n  master_key: ${{IG_TEST_MASTER}}\n  keys_db: {self.db}\n  refresh_ms: 200\n"
                    f"  state: redis://127.0.0.1:{self.redis.port}\n  state_failure: {failure}\n"
                    f"  state_leases: {'true' if leases else 'false'}\n"
                    f"providers:\n  sim: {{base_url: '{self.sim.url}/v1'}}\n"
                    "models:\n  gemma: {deployments: [{provider: sim, model: gemma-4-31b}]}\n")
        gw = Gateway("--config", config, "--threads", str(threads))
        self.addCleanup(gw.close)
        return gw

    def create_key(self, gw, **settings):
        request = urllib.request.Request(gw.url + "/admin/keys", data=json.dumps(settings).encode(), method="POST",
                                         headers={"Authorization": "Bearer " + MASTER})
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())["key"]

    def chat(self, gw, key, **extra):
        status, _, headers = self.chat_body(gw, key, **extra)
        return status, headers

    def chat_body(self, gw, key, **extra):
        request = urllib.request.Request(
            gw.url + "/v1/chat/completions",
            data=json.dumps({"model": "gemma", "messages": [{"role": "user", "content": "hi"}],
                             "max_tokens": 1, **extra}).encode(),
            headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.loads(r.read()), dict(r.headers)
        except urllib.error.HTTPError as e:
            body = e.read().decode()
            return e.code, body, {"body": body, **dict(e.headers)}

    def redis_command(self, *args):
        """One command sent to the test's redis-server; its reply's first line."""
        with socket.create_connection(("127.0.0.1", self.redis.port), timeout=5) as s:
            s.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
            return s.recv(256).split(b"\r\n")[0]

    def redis_calls(self, command):
        """How many times the test's redis-server has run `command` (INFO commandstats)."""
        with socket.create_connection(("127.0.0.1", self.redis.port), timeout=5) as s:
            s.sendall(b"INFO commandstats\r\n")
            data = s.recv(65536)
            head = data.index(b"\r\n")
            while len(data) < head + 2 + int(data[1:head]):  # a bulk string: $<length>\r\n<text>
                data += s.recv(65536)
        for line in data.decode().splitlines():
            if line.startswith("cmdstat_%s:" % command):
                return int(line.split("calls=")[1].split(",")[0])
        return 0

    def test_two_replicas_admit_the_rpm_once_between_them(self):
        self.admit_the_rpm_once_between_two_replicas(leases=False)

    def test_two_replicas_with_leases_admit_the_rpm_once_between_them(self):
        self.admit_the_rpm_once_between_two_replicas(leases=True)

    def test_a_lease_admits_many_requests_for_one_round_trip(self):
        gw = self.gateway(threads=1, leases=True)
        inside_one_window(15)
        key = self.create_key(gw, rpm=100000, tpm=10000000)
        before = self.redis_calls("evalsha")
        for _ in range(40):
            status, headers = self.chat(gw, key)
            self.assertEqual(status, 200)
        self.assertLessEqual(self.redis_calls("evalsha") - before, 4)
        # The headers count what the lease still holds as left.
        self.assertEqual(headers["x-ratelimit-limit-requests"], "100000")
        self.assertGreaterEqual(int(headers["x-ratelimit-remaining-requests"]), 100000 - 40 - 64)
        self.assertLessEqual(int(headers["x-ratelimit-remaining-requests"]), 100000 - 40)
        # Concurrent requests that find a lease being asked for wait for it instead of each asking.
        before = self.redis_calls("evalsha")
        statuses = []
        lock = threading.Lock()

        def drive():
            for _ in range(12):
                status, _ = self.chat(gw, key)
                with lock:
                    statuses.append(status)
        threads = [threading.Thread(target=drive) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        self.assertEqual(statuses, [200] * 192)
        self.assertLessEqual(self.redis_calls("evalsha") - before, 8)  # 192 requests, leases of 64

    def test_leases_never_admit_more_tokens_than_the_tpm(self):
        gw = self.gateway(threads=1, leases=True)
        inside_one_window(20)
        key = self.create_key(gw, tpm=3000)
        used, statuses = 0, []
        for _ in range(60):
            status, body, headers = self.chat_body(gw, key, max_tokens=100, ignore_eos=True)
            statuses.append(status)
            if status == 200:
                used += body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
            else:
                self.assertEqual((status, headers["x-ratelimit-limit-tokens"]), (429, "3000"), body)
        self.assertIn(429, statuses)
        # Each admission reserved the request's prompt estimate and its 100 tokens out of a lease;
        # the real prompt may be a few tokens longer than the estimate.
        self.assertLessEqual(used, 3000 * 1.05)
        self.assertGreater(used, 3000 * 0.7)  # the leases left little of the minute unused

    def test_a_thread_gives_back_what_its_lease_held_when_it_asks_again(self):
        a, b = self.gateway(threads=1, leases=True), self.gateway(threads=1, leases=True)
        inside_one_window(15)
        key = self.create_key(a, tpm=3000)
        self.assertTrue(wait_for(lambda: self.chat_body(b, key, max_tokens=1)[0] != 401, 5))
        # a's first lease: an eighth of the minute (375 tokens), of which this request takes ~100.
        self.assertEqual(self.chat_body(a, key, max_tokens=100)[0], 200)
        # Too large for what is left of it: a asks again and gives the rest back.
        self.assertEqual(self.chat_body(a, key, max_tokens=1000)[0], 200)
        # Too large for b's lease of its probe too: b asks Redis, and its headers show Redis's count.
        status, _, headers = self.chat_body(b, key, max_tokens=400)
        self.assertEqual(status, 200)
        charged = 3000 - int(headers["x-ratelimit-remaining-tokens"])
        # What a's requests used (its second reserved over 1,000), b's probe and this request (over
        # 400): about 1,450. A lease kept by a would add its ~250 unused tokens.
        self.assertLess(charged, 1650)
        self.assertGreater(charged, 1400)

    def admit_the_rpm_once_between_two_replicas(self, leases):
        a, b = self.gateway(leases=leases), self.gateway(leases=leases)
        inside_one_window(20)
        key = self.create_key(a, rpm=60)
        self.assertTrue(wait_for(lambda: self.chat(b, key)[0] != 401, 5))  # b's cache has read the key
        statuses = []
        lock = threading.Lock()

        def drive(gw):
            for _ in range(40):
                status, _ = self.chat(gw, key)
                with lock:
                    statuses.append(status)

        threads = [threading.Thread(target=drive, args=(gw,)) for gw in (a, b, a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        # 161 requests in all (the probe above included): 60 admitted, never 120.
        admitted = statuses.count(200) + 1
        self.assertLessEqual(abs(admitted - 60), 2, statuses)
        self.assertEqual(statuses.count(429), len(statuses) - statuses.count(200))

    def test_a_replica_sees_the_tokens_another_really_used(self):
        a, b = self.gateway(), self.gateway()
        inside_one_window(15)
        key = self.create_key(a, tpm=100000)
        self.assertTrue(wait_for(lambda: self.chat(b, key)[0] != 401, 5))
        status, body, _ = self.chat_body(a, key, max_tokens=5000, ignore_eos=False)
        self.assertEqual(status, 200, body)
        used = body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
        self.assertLess(used, 5000)

        # a's 5,000-token reservation gives way, in Redis, to what the request used.
        def charged():
            _, headers = self.chat(b, key)
            return int(headers["x-ratelimit-limit-tokens"]) - int(headers["x-ratelimit-remaining-tokens"])
        self.assertTrue(wait_for(lambda: charged() < 5000, 5))
        self.assertGreaterEqual(charged(), used)

    def test_scripts_flushed_from_redis_are_loaded_again(self):
        gw = self.gateway("open", threads=1)  # one connection to Redis: the next check uses it
        key = self.create_key(gw, rpm=1000)
        status, headers = self.chat(gw, key)
        self.assertEqual((status, headers.get("x-ratelimit-limit-requests")), (200, "1000"))
        self.assertEqual(self.redis_command(b"SCRIPT", b"FLUSH"), b"+OK")
        # The next check finds no script: that connection fails open for a second, then reconnects
        # and loads the scripts again.
        self.assertEqual(self.chat(gw, key)[0], 200)
        self.assertTrue(wait_for(lambda: "x-ratelimit-limit-requests" in self.chat(gw, key)[1], 10))
        self.assertGreaterEqual(gw.metrics()["infergate_rate_limit_state_errors_total"], 1)
        self.assertTrue(self.redis_command(b"SCRIPT", b"EXISTS", b"0" * 40).startswith(b"*1"))

    def test_redis_going_away_fails_open_then_recovers(self):
        gw = self.gateway("open")
        key = self.create_key(gw, rpm=1000)
        status, headers = self.chat(gw, key)
        self.assertEqual((status, headers.get("x-ratelimit-limit-requests")), (200, "1000"))
        self.redis.close()
        for _ in range(3):
            status, headers = self.chat(gw, key)
            self.assertEqual(status, 200)
            self.assertNotIn("x-ratelimit-limit-requests", headers)
        self.assertGreaterEqual(gw.metrics()["infergate_rate_limit_state_errors_total"], 3)
        self.redis = RedisServer(self.redis.port)
        self.assertTrue(wait_for(lambda: "x-ratelimit-limit-requests" in self.chat(gw, key)[1], 10))

    def test_a_stuck_redis_times_out_and_fails_open_then_recovers(self):
        gw = self.gateway("open", threads=1)
        key = self.create_key(gw, rpm=1000)
        self.assertEqual(self.chat(gw, key)[1].get("x-ratelimit-limit-requests"), "1000")
        self.redis.proc.send_signal(signal.SIGSTOP)  # connected, but answering nothing
        try:
            started = time.monotonic()
            status, headers = self.chat(gw, key)
            waited = time.monotonic() - started
            self.assertEqual(status, 200)
            self.assertNotIn("x-ratelimit-limit-requests", headers)
            self.assertLess(waited, 2)  # state_timeout_ms (100), not the client's 10 s
            self.assertGreaterEqual(gw.metrics()["infergate_rate_limit_state_errors_total"], 1)
        finally:
            self.redis.proc.send_signal(signal.SIGCONT)
        self.assertTrue(wait_for(lambda: "x-ratelimit-limit-requests" in self.chat(gw, key)[1], 10))

    def test_redis_going_away_fails_closed_when_configured(self):
        gw = self.gateway("closed")
        key = self.create_key(gw, rpm=1000)
        self.assertEqual(self.chat(gw, key)[0], 200)
        self.redis.close()
        status, headers = self.chat(gw, key)
        self.assertEqual(status, 503)
        self.assertEqual(json.loads(headers["body"])["error"]["code"], "rate_limit_state_unavailable")
        self.assertEqual(headers["Retry-After"], "1")
        # Keys without limits do not need Redis at all.
        free = self.create_key(gw)
        self.assertEqual(self.chat(gw, free)[0], 200)


if __name__ == "__main__":
    unittest.main()
