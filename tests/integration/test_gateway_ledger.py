"""The usage and cost ledger: /admin/usage against what the clients received, budgets, a SIGTERM
that drains and flushes, and a SIGKILL that loses at most the last flush interval."""
import json
import os
import signal
import socket
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from processes import Gateway, Sim, wait_for

MASTER = "master-key-for-tests-0123456789"
FLUSH_MS = 300
MAX_DRAIN_TOKENS = 2000  # about 2 s at the simulator's speedup of 20: still streaming when SIGTERM comes
PRICE_IN = 1000.0   # USD per million tokens: large, so that a few requests spend a visible amount
PRICE_OUT = 2000.0


class Ledger(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.db = os.path.join(self.tmp.name, "keys.db")
        self.sim = Sim("--speedup", "20")
        self.addCleanup(self.sim.close)
        self.config = os.path.join(self.tmp.name, "gateway.yaml")
        with open(self.config, "w") as f:
            f.write(f"server: {{drain_ms: 10000}}\n"
                    f"auth:\n  master_key: ${{IG_TEST_MASTER}}\n  keys_db: {self.db}\n  refresh_ms: 200\n"
                    f"  ledger_flush_ms: {FLUSH_MS}\n"
                    f"providers:\n  sim: {{base_url: '{self.sim.url}/v1'}}\n"
                    "models:\n  gemma:\n    deployments: [{provider: sim, model: gemma-4-31b}]\n"
                    f"    price: {{input: {PRICE_IN}, output: {PRICE_OUT}}}\n"
                    "  other: {deployments: [{provider: sim, model: gemma-4-31b}]}\n")
        os.environ["IG_TEST_MASTER"] = MASTER
        self.gw = Gateway("--config", self.config)
        self.addCleanup(self.close_gateway)

    def close_gateway(self):
        if self.gw.proc.poll() is None:
            self.gw.close()

    def call(self, method, path, body=None, key=MASTER, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        h = {"Content-Type": "application/json", "Authorization": "Bearer " + key, **(headers or {})}
        request = urllib.request.Request(self.gw.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def create_key(self, **settings):
        status, body = self.call("POST", "/admin/keys", settings)
        self.assertEqual(status, 201, body)
        return json.loads(body)

    def chat(self, key, request_id=None, stream=False, max_tokens=8):
        body = {"model": "gemma", "messages": [{"role": "user", "content": "tell me something"}],
                "max_tokens": max_tokens, "ignore_eos": True}
        if stream:
            body.update(stream=True, stream_options={"include_usage": True})
        status, text = self.call("POST", "/v1/chat/completions", body, key,
                                 {"X-Request-Id": request_id} if request_id else None)
        if status != 200:
            return status, json.loads(text), None
        if stream:
            usage = [json.loads(line[6:])["usage"] for line in text.split("\n\n")
                     if line.startswith("data: {") and '"usage"' in line][-1]
            return status, None, usage
        parsed = json.loads(text)
        return status, parsed, parsed["usage"]

    def usage(self, query, requests):
        """GET /admin/usage once it counts `requests` requests: a request's row is queued as it ends,
        just after its last byte reaches the client."""
        groups = []

        def counted():
            nonlocal groups
            status, body = self.call("GET", "/admin/usage" + query)
            self.assertEqual(status, 200, body)
            groups = json.loads(body)["data"]
            return sum(g["requests"] for g in groups) == requests

        self.assertTrue(wait_for(counted, 5), groups)
        return groups

    def ledger_rows(self):
        """The usage journal's rows by request id; its default place is beside the keys database."""
        rows = {}
        with open(self.db + "-ledger.jsonl") as journal:
            for line in journal:
                self.assertTrue(line.endswith("\n"), line)
                r = json.loads(line)
                rows[r["request_id"]] = (r["prompt_tokens"], r["completion_tokens"], r["token_source"], r["cost_usd"],
                                         r["status"])
        return rows

    def ledger_metrics(self):
        with urllib.request.urlopen(self.gw.url + "/metrics", timeout=10) as r:
            text = r.read().decode()
        return {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
                if line.startswith("infergate_ledger_")}

    def ledger_metrics_once(self, ready):
        """The ledger's metrics once `ready(metrics)` holds (the writer works in the background)."""
        metrics = {}

        def check():
            nonlocal metrics
            metrics = self.ledger_metrics()
            return ready(metrics)
        self.assertTrue(wait_for(check, 5), metrics)
        return metrics

    def test_metrics_count_the_rows_written_and_those_still_queued(self):
        key = self.create_key()
        for i in range(5):
            self.assertEqual(self.chat(key["key"], request_id=f"metric-{i}")[0], 200)
        metrics = self.ledger_metrics_once(lambda m: m["infergate_ledger_rows_written_total"] == 5)
        self.assertEqual(metrics["infergate_ledger_rows_queued"], 0)
        self.assertEqual(metrics["infergate_ledger_write_failures_total"], 0)
        self.assertEqual(len(self.ledger_rows()), 5)

    def test_a_journal_that_cannot_be_written_keeps_the_rows_until_it_can(self):
        later = os.path.join(self.tmp.name, "not-yet")
        config = os.path.join(self.tmp.name, "unwritable.yaml")
        with open(self.config) as f:
            text = f.read()
        with open(config, "w") as f:
            f.write(text.replace(f"  ledger_flush_ms: {FLUSH_MS}\n",
                                 f"  ledger_flush_ms: {FLUSH_MS}\n  ledger_journal: {later}/usage.jsonl\n"))
        self.gw.close()
        self.gw = Gateway("--config", config)
        key = self.create_key()
        for i in range(3):
            self.assertEqual(self.chat(key["key"], request_id=f"held-{i}")[0], 200)
        metrics = self.ledger_metrics_once(lambda m: m["infergate_ledger_write_failures_total"] >= 1)
        self.assertEqual(metrics["infergate_ledger_rows_queued"], 3)
        status, body = self.call("GET", "/admin/usage")
        self.assertEqual(status, 500)
        self.assertIn("cannot open the usage journal", json.loads(body)["error"]["message"])
        os.mkdir(later)
        self.usage("", 3)  # /admin/usage writes what is queued first
        with open(os.path.join(later, "usage.jsonl")) as f:
            self.assertEqual(sorted(json.loads(line)["request_id"] for line in f), ["held-0", "held-1", "held-2"])
        self.assertEqual(self.ledger_metrics()["infergate_ledger_rows_queued"], 0)

    def test_usage_report_equals_what_the_clients_received(self):
        first_day = time.strftime("%Y-%m-%d", time.gmtime())  # UTC, before any row is written
        a = self.create_key(name="a")
        b = self.create_key(name="b")
        received = {a["id"]: [0, 0], b["id"]: [0, 0]}
        for i in range(6):
            key = a if i % 2 else b
            status, _, usage = self.chat(key["key"], stream=i % 3 == 0, max_tokens=4 + i)
            self.assertEqual(status, 200)
            received[key["id"]][0] += usage["prompt_tokens"]
            received[key["id"]][1] += usage["completion_tokens"]
        groups = {g["key_id"]: g for g in self.usage("", 6)}
        for key_id, (prompt, completion) in received.items():
            g = groups[key_id]
            self.assertEqual((g["model"], g["requests"]), ("gemma", 3))
            self.assertEqual((g["prompt_tokens"], g["completion_tokens"]), (prompt, completion))
            self.assertAlmostEqual(g["cost_usd"], (prompt * PRICE_IN + completion * PRICE_OUT) / 1e6, places=9)
        self.assertEqual([g["key_id"] for g in self.usage("?key_id=" + a["id"], 3)], [a["id"]])
        self.assertEqual(sum(g["requests"] for g in self.usage("?model=gemma&since=" + first_day, 6)), 6)
        status, body = self.call("GET", "/admin/usage?since=2000-01-01&until=2000-01-02")
        self.assertEqual((status, json.loads(body)["data"]), (200, []))
        # A filter the report does not know is refused, not ignored (the answer would be every row).
        status, body = self.call("GET", "/admin/usage?start_date=" + first_day)
        self.assertEqual(status, 400)
        self.assertIn("unknown query parameter 'start_date'", json.loads(body)["error"]["message"])
        self.assertEqual(self.call("GET", "/admin/usage", key=a["key"])[0], 401)

    def test_a_key_over_budget_gets_insufficient_quota(self):
        # Each request costs about (6 x 1000 + 8 x 2000) / 1e6 = $0.022.
        key = self.create_key(budget_usd=0.05, budget_period="day")
        statuses = []
        for _ in range(10):
            status, body, _ = self.chat(key["key"])
            statuses.append(status)
            if status == 429:
                self.assertEqual(body["error"]["code"], "insufficient_quota")
                self.assertIn("budget is $0.0500", body["error"]["message"])
                break
            time.sleep(0.05)  # lets the finished request's cost be counted before the next one
        self.assertEqual(statuses[-1], 429)
        self.assertIn(len(statuses), (3, 4))
        # Raising the budget lets it through again.
        status, _ = self.call("PATCH", "/admin/keys/" + key["id"], {"budget_usd": 10})
        self.assertEqual(status, 200)
        self.assertEqual(self.chat(key["key"])[0], 200)

    def test_every_request_of_a_key_is_a_row_refusals_and_errors_included(self):
        if 60 - time.time() % 60 < 5:
            time.sleep(60 - time.time() % 60 + 0.05)  # the rpm window must not turn over mid-test
        key = self.create_key(models=["gemma"], rpm=2)
        for _ in range(3):
            self.chat(key["key"])
        status, body = self.call("POST", "/v1/chat/completions", {"model": "other", "messages": []}, key["key"])
        self.assertEqual(status, 403)
        status, body = self.call("POST", "/v1/chat/completions", {"model": "nope", "messages": []}, key["key"])
        self.assertEqual(status, 404)
        self.usage("?key_id=" + key["id"], 5)
        statuses = sorted(row[4] for row in self.ledger_rows().values())
        self.assertEqual(statuses, [200, 200, 403, 404, 429])

    def test_sigterm_drains_streams_in_flight_and_writes_the_ledger(self):
        key = self.create_key()
        results = {}

        def stream(i):
            results[i] = self.chat(key["key"], request_id=f"drain-{i}", stream=True, max_tokens=MAX_DRAIN_TOKENS)

        def refuses_connections():
            # Each I/O thread has its own listener on the port: every one must be closed.
            for _ in range(20):
                try:
                    socket.create_connection(("127.0.0.1", self.gw.port), timeout=1).close()
                    return False
                except ConnectionResetError:
                    return False  # queued on a listener as it closed: ask again once it is gone
                except TimeoutError:
                    return False  # the SYN met a listener as it closed and was dropped: ask again
                except ConnectionRefusedError:
                    pass
            return True

        threads = [threading.Thread(target=stream, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        time.sleep(0.3)  # the streams are under way
        self.gw.proc.send_signal(signal.SIGTERM)
        self.assertTrue(wait_for(refuses_connections, 5))
        self.assertTrue(all(t.is_alive() for t in threads))  # the listeners closed, the streams go on
        for t in threads:
            t.join(timeout=30)
        self.assertEqual(self.gw.proc.wait(timeout=30), 0)
        self.assertEqual(sorted(results), [0, 1, 2, 3])
        rows = self.ledger_rows()
        for i, (status, _, usage) in results.items():
            self.assertEqual(status, 200)
            self.assertEqual(usage["completion_tokens"], MAX_DRAIN_TOKENS)
            self.assertEqual(rows[f"drain-{i}"][:3], (usage["prompt_tokens"], MAX_DRAIN_TOKENS, "usage"))

    def test_sigkill_loses_at_most_the_last_flush_interval(self):
        key = self.create_key()
        finished = {}  # request id -> (monotonic end time, usage)
        stop = threading.Event()

        def load(worker):
            n = 0
            while not stop.is_set():
                request_id = f"kill-{worker}-{n}"
                n += 1
                try:
                    status, _, usage = self.chat(key["key"], request_id=request_id, max_tokens=3)
                except OSError:
                    return
                if status == 200:
                    finished[request_id] = (time.monotonic(), usage)

        threads = [threading.Thread(target=load, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        killed_at = time.monotonic()
        self.gw.kill()
        stop.set()
        for t in threads:
            t.join(timeout=30)
        rows = self.ledger_rows()
        self.assertGreater(len(finished), 20)
        # Every row on disk carries exactly the usage its client received.
        for request_id, (_, usage) in finished.items():
            if request_id in rows:
                self.assertEqual(rows[request_id][:2], (usage["prompt_tokens"], usage["completion_tokens"]))
        # What is missing finished within the last flush interval (plus one interval of slack for
        # a flush under way and the scheduling of two cores).
        missing = [rid for rid, (t, _) in finished.items() if rid not in rows]
        for rid in missing:
            self.assertGreater(finished[rid][0], killed_at - 2 * FLUSH_MS / 1000, rid)
        self.assertLess(len(missing), len(finished))


if __name__ == "__main__":
    unittest.main()
