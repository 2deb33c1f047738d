"""Virtual keys on infergate serve: the admin API and `infergate keys`, 401/403, RPM and TPM limits
with OpenAI's rate-limit headers, token reconciliation, and per-key parallel limits."""
import json
import os
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from processes import BIN, Gateway, Sim, raw_request, read_tokens, wait_for

MASTER = "master-key-for-tests-0123456789"
REFRESH_MS = 200


def inside_one_window(seconds_needed=5):
    """Waits, if need be, until the current one-minute rate window (aligned to wall-clock minutes,
    as the gateway's are) has room for a test that must not see its counters reset."""
    left = 60 - time.time() % 60
    if left < seconds_needed:
        time.sleep(left + 0.05)


def keys_cli(*args):
    return subprocess.run([BIN, "keys", *args], capture_output=True, text=True, timeout=30)


class Keys(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.db = os.path.join(self.tmp.name, "keys.db")
        self.sim = Sim("--speedup", "50")
        self.addCleanup(self.sim.close)
        config = self.config = os.path.join(self.tmp.name, "gateway.yaml")
        with open(config, "w") as f:
            f.write(f"auth:\n  master_key: ${{IG_TEST_MASTER}}\n  keys_db: {self.db}\n  refresh_ms: {REFRESH_MS}\n"
                    f"providers:\n  sim: {{base_url: '{self.sim.url}/v1'}}\n"
                    "models:\n  gemma: {deployments: [{provider: sim, model: gemma-4-31b}]}\n"
                    "  other: {deployments: [{provider: sim, model: gemma-4-31b}]}\n")
        os.environ["IG_TEST_MASTER"] = MASTER
        self.gw = Gateway("--config", config)
        self.addCleanup(self.gw.close)

    def call(self, method, path, body=None, key=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = "Bearer " + key
        request = urllib.request.Request(self.gw.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, json.loads(r.read()), r.headers
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), e.headers

    def admin(self, method, path, body=None):
        return self.call(method, path, body, MASTER)

    def create(self, **settings):
        status, body, _ = self.admin("POST", "/admin/keys", settings)
        self.assertEqual(status, 201, body)
        return body

    def chat(self, key, model="gemma", **extra):
        return self.call("POST", "/v1/chat/completions",
                         {"model": model, "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 5,
                          **extra}, key)

    def test_lifecycle_through_the_admin_api_and_the_cli(self):
        created = self.create(name="team-a", models=["gemma"], metadata={"team": "a"})
        key = created["key"]
        self.assertTrue(key.startswith("ig-" + created["id"]))
        status, body, _ = self.chat(key)
        self.assertEqual(status, 200, body)
        # Listed by both, never with the key.
        status, listing, _ = self.admin("GET", "/admin/keys")
        self.assertEqual([k["id"] for k in listing["data"]], [created["id"]])
        self.assertNotIn(key, json.dumps(listing))
        cli = keys_cli("list", "--db", self.db, "--json")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(json.loads(cli.stdout)["data"][0]["metadata"], {"team": "a"})
        self.assertNotIn(key[15:], cli.stdout)
        # A key made by the CLI works once the gateway's cache has read it.
        made = keys_cli("create", "--db", self.db, "--name", "cli", "--json")
        self.assertEqual(made.returncode, 0, made.stderr)
        cli_key = json.loads(made.stdout)["key"]
        self.assertTrue(wait_for(lambda: self.chat(cli_key)[0] == 200, 5))
        # Revoked by the CLI: refused within the refresh interval.
        revoked = keys_cli("revoke", "--db", self.db, created["id"])
        self.assertEqual(revoked.returncode, 0, revoked.stderr)
        self.assertTrue(wait_for(lambda: self.chat(key)[0] == 401, REFRESH_MS / 1000 * 5))
        status, body, _ = self.chat(key)
        self.assertIn("revoked", body["error"]["message"])
        status, record, _ = self.admin("GET", "/admin/keys/" + created["id"])
        self.assertIsNotNone(record["revoked_at"])
        # Revoked by the admin API: refused at once on this replica.
        status, _, _ = self.admin("DELETE", "/admin/keys/" + json.loads(made.stdout)["id"])
        self.assertEqual(status, 200)
        self.assertEqual(self.chat(cli_key)[0], 401)
        self.assertEqual(keys_cli("revoke", "--db", self.db, "nope").returncode, 2)
        # Numbers a key cannot hold are refused by the CLI as by the admin API.
        for args, message in ((("--budget-usd", "inf"), "--budget-usd: must be a finite number, got 'inf'"),
                              (("--expires-in-days", "1e15"), "--expires-in-days must be at most 1000000000")):
            refused = keys_cli("create", "--db", self.db, "--name", "x", *args)
            self.assertNotEqual(refused.returncode, 0, args)
            self.assertIn(message, refused.stderr)

    def test_missing_wrong_and_forbidden(self):
        status, body, _ = self.chat(None)
        self.assertEqual((status, body["error"]["code"]), (401, "invalid_api_key"))
        status, body, _ = self.chat("ig-" + "x" * 44)
        self.assertEqual(status, 401)
        key = self.create(models=["gemma"])["key"]
        status, body, _ = self.chat(key, model="other")
        self.assertEqual((status, body["error"]["code"]), (403, "model_not_allowed"))
        status, models, _ = self.call("GET", "/v1/models", key=key)
        self.assertEqual([m["id"] for m in models["data"]], ["gemma"])
        self.assertEqual(self.call("GET", "/v1/models")[0], 401)

    def test_admin_needs_the_master_key_and_validates_bodies(self):
        status, _, _ = self.call("GET", "/admin/keys", key="wrong-master-key-0000")
        self.assertEqual(status, 401)
        status, body, _ = self.admin("POST", "/admin/keys", {"rpm": -1})
        self.assertEqual(status, 400)
        self.assertIn("rpm", body["error"]["message"])
        status, body, _ = self.admin("POST", "/admin/keys", b'{"budget_usd": 1e400}')  # infinity, once read
        self.assertEqual(status, 400)
        self.assertIn("finite", body["error"]["message"])
        key = self.create()
        status, body, _ = self.admin("PATCH", "/admin/keys/" + key["id"], {"rpm": 2, "name": "renamed"})
        self.assertEqual((status, body["rpm"], body["name"]), (200, 2, "renamed"))
        self.assertEqual(self.admin("GET", "/admin/keys/nope")[0], 404)
        status, _, headers = self.admin("PUT", "/admin/keys/" + key["id"], {})
        self.assertEqual((status, headers["Allow"]), (405, "GET, HEAD, PATCH, DELETE"))
        status, _, headers = self.admin("DELETE", "/admin/usage")
        self.assertEqual((status, headers["Allow"]), (405, "GET, HEAD"))

    def test_a_key_naming_a_model_not_served_is_made_with_a_warning(self):
        status, body, _ = self.admin("POST", "/admin/keys", {"models": ["gemma", "gema"]})
        self.assertEqual(status, 201, body)
        key = body["key"]
        self.assertEqual(len(body["warnings"]), 1, body)
        self.assertIn("no model 'gema' (did you mean 'gemma'?)", body["warnings"][0])
        status, body, _ = self.admin("PATCH", "/admin/keys/" + body["id"], {"models": ["other"]})
        self.assertEqual(status, 200, body)
        self.assertNotIn("warnings", body)
        status, body, _ = self.admin("PATCH", "/admin/keys/" + body["id"], {"models": ["later-model"]})
        self.assertEqual((status, body["models"]), (200, ["later-model"]))
        self.assertIn("no model 'later-model'", body["warnings"][0])
        status, body, _ = self.chat(key, model="later-model")
        self.assertEqual((status, body["error"]["code"]), (404, "model_not_found"))  # as the warning says
        # The CLI reads the models from --config; with --db alone it cannot know them.
        made = keys_cli("create", "--config", self.config, "--models", "gema", "--json")
        self.assertEqual(made.returncode, 0, made.stderr)
        self.assertIn("warning: this gateway serves no model 'gema' (did you mean 'gemma'?)", made.stderr)
        self.assertEqual(len(json.loads(made.stdout)["warnings"]), 1)
        made = keys_cli("create", "--db", self.db, "--models", "gema", "--json")
        self.assertEqual((made.returncode, made.stderr), (0, ""))
        self.assertNotIn("warnings", json.loads(made.stdout))
        # A configuration that cannot be read is found before the key is made, not after (the key
        # would be in the database and never shown).
        before = len(json.loads(keys_cli("list", "--db", self.db, "--json").stdout)["data"])
        broken = os.path.join(self.tmp.name, "broken.yaml")
        with open(broken, "w") as f:
            f.write("providers: {a: {base_url: 'http://x'}\n")
        refused = keys_cli("create", "--db", self.db, "--config", broken, "--models", "gemma")
        self.assertNotEqual(refused.returncode, 0)
        self.assertEqual(len(json.loads(keys_cli("list", "--db", self.db, "--json").stdout)["data"]), before)

    def test_the_cli_list_shows_each_keys_limits_budget_and_expiry(self):
        made = keys_cli("create", "--db", self.db, "--name", "capped", "--rpm", "60", "--budget-usd", "5",
                        "--budget-period", "day", "--expires-in-days", "1")
        self.assertEqual(made.returncode, 0, made.stderr)
        listed = keys_cli("list", "--db", self.db)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        header, row = listed.stdout.splitlines()[:2]
        self.assertEqual(header.split(), ["id", "name", "models", "rpm", "tpm", "parallel", "budget", "expires", "state"])
        tomorrow = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 86400))
        self.assertEqual(row.split()[1:], ["capped", "*", "60", "-", "-", "$5.00/day", tomorrow, "active"])

    def test_rpm_limit_with_openai_headers(self):
        inside_one_window()
        key = self.create(rpm=3)["key"]
        for remaining in (2, 1, 0):
            status, _, headers = self.chat(key)
            self.assertEqual(status, 200)
            self.assertEqual(headers["x-ratelimit-limit-requests"], "3")
            self.assertEqual(headers["x-ratelimit-remaining-requests"], str(remaining))
            self.assertRegex(headers["x-ratelimit-reset-requests"], r"^[0-9.]+m?s$|^[0-9]+ms$")
        status, body, headers = self.chat(key)
        self.assertEqual((status, body["error"]["code"], body["error"]["type"]), (429, "rate_limit_exceeded", "requests"))
        self.assertGreaterEqual(int(headers["Retry-After"]), 1)
        self.assertLessEqual(int(headers["Retry-After"]), 60)
        # Per model: the other model has its own window.
        self.assertEqual(self.chat(key, model="other")[0], 200)

    def test_tokens_are_charged_what_the_request_really_used(self):
        inside_one_window()
        key = self.create(tpm=100000)["key"]
        status, body, headers = self.chat(key, max_tokens=5000, ignore_eos=False)
        self.assertEqual(status, 200, body)
        used = body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
        self.assertLess(used, 5000)
        status, body, headers = self.chat(key, max_tokens=1)
        # The first request's 5,000-token reservation was replaced by what it used.
        reserved_second = int(headers["x-ratelimit-limit-tokens"]) - int(headers["x-ratelimit-remaining-tokens"])
        self.assertLess(reserved_second - used, 50)
        self.assertGreaterEqual(reserved_second, used)
        status, body, headers = self.chat(key, max_tokens=200000)
        self.assertEqual(status, 429)
        self.assertIn("Request too large", body["error"]["message"])

    def test_a_client_that_leaves_is_charged_the_tokens_it_was_sent(self):
        inside_one_window()
        key = self.create(tpm=100000)["key"]
        body = json.dumps({"model": "gemma", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 50000,
                           "ignore_eos": True, "stream": True}).encode()
        with socket.create_connection(("127.0.0.1", self.gw.port)) as s:
            s.sendall(raw_request(body, b"Authorization: Bearer " + key.encode() + b"\r\n"))
            read_tokens(s, 20)
        # After the disconnect the reservation (over 50,000) gives way to roughly 20+ tokens.
        def charged():
            _, _, headers = self.chat(key, max_tokens=1)
            return int(headers["x-ratelimit-limit-tokens"]) - int(headers["x-ratelimit-remaining-tokens"])
        self.assertTrue(wait_for(lambda: charged() < 5000, 5))

    def test_parallel_limit(self):
        key = self.create(max_parallel=2)["key"]
        body = json.dumps({"model": "gemma", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5000,
                           "ignore_eos": True, "stream": True}).encode()
        streams = []
        try:
            for _ in range(2):
                s = socket.create_connection(("127.0.0.1", self.gw.port))
                s.sendall(raw_request(body, b"Authorization: Bearer " + key.encode() + b"\r\n"))
                read_tokens(s, 2)
                streams.append(s)
            status, body_json, headers = self.chat(key)
            self.assertEqual((status, body_json["error"]["code"]), (429, "parallel_limit_exceeded"))
        finally:
            for s in streams:
                s.close()
        self.assertTrue(wait_for(lambda: self.chat(key)[0] == 200, 5))


if __name__ == "__main__":
    unittest.main()


class ProviderLimits(unittest.TestCase):
    """The simulator answers as Groq does (--rpm, rate-limit headers, 429); the gateway reads its
    headers and stops sending to a spent deployment until the reset instead of collecting 429s."""

    def setUp(self):
        inside_one_window(10)
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def start(self, *sims, strategy="round_robin"):
        config = os.path.join(self.tmp.name, "gateway.yaml")
        providers = "".join(f"  p{i}: {{base_url: '{s.url}/v1'}}\n" for i, s in enumerate(sims))
        deployments = ", ".join(f"{{provider: p{i}, model: gemma-4-31b}}" for i in range(len(sims)))
        with open(config, "w") as f:
            f.write(f"providers:\n{providers}models:\n  gemma:\n    strategy: {strategy}\n"
                    f"    deployments: [{deployments}]\n    retry: {{max_attempts: 1}}\n")
        gw = Gateway("--config", config)
        self.addCleanup(gw.close)
        return gw

    def sim(self, *args):
        sim = Sim("--speedup", "50", *args)
        self.addCleanup(sim.close)
        return sim

    def chat(self, gw):
        status, body, headers = gw.post_with_headers(
            "/v1/chat/completions", {"model": "gemma", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2})
        return status, body, headers

    def test_a_spent_provider_gets_nothing_until_its_reset(self):
        limited = self.sim("--rpm", "3")
        gw = self.start(limited)
        statuses = [self.chat(gw)[0] for _ in range(3)]
        self.assertEqual(statuses, [200, 200, 200])
        status, body, headers = self.chat(gw)
        self.assertEqual(status, 429)
        self.assertIn("rate limit", body["error"]["message"])
        self.assertGreaterEqual(int(headers["Retry-After"]), 1)
        for _ in range(3):
            self.assertEqual(self.chat(gw)[0], 429)
        m = limited.metrics()
        self.assertEqual(m["vllm:request_success_total"], 3)
        self.assertEqual(m["infergate_sim_rate_limited_total"], 0)  # the gateway never sent a doomed request
        self.assertEqual(gw.metrics()["infergate_provider_rate_limited_total"], 4)

    def test_traffic_moves_to_the_deployment_with_room(self):
        limited = self.sim("--rpm", "2")
        spare = self.sim()
        gw = self.start(limited, spare)
        statuses = [self.chat(gw)[0] for _ in range(10)]
        self.assertEqual(statuses, [200] * 10)
        self.assertEqual(limited.metrics()["vllm:request_success_total"], 2)
        self.assertEqual(spare.metrics()["vllm:request_success_total"], 8)
        self.assertEqual(limited.metrics()["infergate_sim_rate_limited_total"], 0)
