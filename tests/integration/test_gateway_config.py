"""infergate serve --config: renamed models, fallbacks, validation, and SIGHUP reload mid-stream."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import unittest
import urllib.request

from fake_upstream import FakeUpstream
from processes import BIN, Gateway, Sim, free_port, wait_for


def gateway_with_env(config, env, *args):
    """A gateway started with extra environment variables (e.g. SSL_CERT_FILE for its trust store),
    from `config` or, without one, from `args`."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return Gateway("--config", config) if config else Gateway(*args)
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v


def chat(model, **extra):
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], "max_tokens": 3, **extra}


class GatewayConfigFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.config = os.path.join(self.tmp.name, "gateway.yaml")
        self.log = os.path.join(self.tmp.name, "access.jsonl")
        self.a = Sim("--speedup", "20", "--served-model-name", "a-upstream")
        self.b = Sim("--speedup", "20", "--served-model-name", "b-upstream")
        self.gw = None

    def tearDown(self):
        if self.gw:
            self.gw.close()
        self.a.close()
        self.b.close()
        self.tmp.cleanup()

    def write(self, text):
        with open(self.config + ".new", "w") as f:
            f.write(text)
        os.replace(self.config + ".new", self.config)

    def providers(self):
        return ("providers:\n  a: {base_url: '%s'}\n  b: {base_url: '%s'}\n  dead: {base_url: 'http://127.0.0.1:%d'}\n"
                % (self.a.url, self.b.url, free_port()))

    def successes(self, sim):
        return sim.metrics()["vllm:request_success_total"]

    def test_public_names_map_to_upstream_names_and_fall_back(self):
        self.write(self.providers() +
                   "models:\n"
                   "  chat:\n    deployments: [{provider: a, model: a-upstream}]\n"
                   "  big:\n    deployments: [{provider: dead, model: x}]\n    retry: {max_attempts: 2}\n"
                   "    fallbacks: [small]\n"
                   "  small:\n    deployments: [{provider: b, model: b-upstream}]\n")
        self.gw = Gateway("--config", self.config, "--access-log", self.log)
        with urllib.request.urlopen(self.gw.url + "/v1/models") as r:
            self.assertEqual([m["id"] for m in json.load(r)["data"]], ["big", "chat", "small"])
        status, body = self.gw.post("/v1/chat/completions", chat("chat"))
        self.assertEqual((status, body["usage"]["completion_tokens"]), (200, 3))
        self.assertEqual(self.successes(self.a), 1)
        status, body = self.gw.post("/v1/chat/completions", chat("big"))
        self.assertEqual(status, 200, body)
        self.assertEqual(self.successes(self.b), 1)
        lines = lambda: [json.loads(line) for line in open(self.log)]
        self.assertTrue(wait_for(lambda: len(lines()) == 2))
        big = lines()[1]
        self.assertEqual((big["model"], big["upstream_model"], big["attempts"], big["fallbacks"]),
                         ("big", "b-upstream", 3, 1))
        with urllib.request.urlopen(self.gw.url + "/metrics") as r:
            self.assertIn('infergate_fallbacks_total{model="big"} 1', r.read().decode())

    def test_a_body_that_repeats_or_escapes_the_model_reaches_the_upstream_renamed(self):
        # The gateway routes on the last "model", as a DOM does; the upstream must see its own name
        # in every one, or it answers for a model it does not serve.
        self.write(self.providers() + "models:\n  chat:\n    deployments: [{provider: a, model: a-upstream}]\n")
        self.gw = Gateway("--config", self.config)
        rest = b'"messages":[{"role":"user","content":"hello"}],"max_tokens":3}'
        for body in (b'{"model":"chat",' + rest, b'{"model":"other","model":"chat",' + rest,
                     b'{"m\\u006fdel":"chat",' + rest, b'{"model":7,"mod\\u0065l":"chat",' + rest):
            status, answer = self.gw.post("/v1/chat/completions", body)
            self.assertEqual((status, answer.get("model")), (200, "a-upstream"), (body, answer))
        self.assertEqual(self.successes(self.a), 4)

    def test_https_upstream_verified_against_the_trust_store_or_not_at_all(self):
        cert, key = os.path.join(self.tmp.name, "cert.pem"), os.path.join(self.tmp.name, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], check=True,
                       capture_output=True)
        fake = FakeUpstream(cert, key)
        try:
            self.write("providers:\n  strict: {base_url: '%s/ok'}\n  lax: {base_url: '%s/ok', tls: {verify: false}}\n"
                       "models:\n  strict: {deployments: [{provider: strict, model: fake}], retry: {max_attempts: 1}}\n"
                       "  lax: {deployments: [{provider: lax, model: fake}]}\n" % (fake.url, fake.url))
            # Discovery is not involved with a file: the gateway starts, and each request shows TLS at work.
            self.gw = Gateway("--config", self.config)
            status, body = self.gw.post("/v1/chat/completions", {"model": "strict", "messages": []})
            self.assertEqual(status, 503)
            self.assertIn("certificate verify failed", body["error"]["message"])
            text = self.gw.stream("/v1/chat/completions", {"model": "lax", "messages": [], "stream": True})
            self.assertIn("data: [DONE]", text)
            self.gw.close()
            self.gw = gateway_with_env(self.config, {"SSL_CERT_FILE": cert})
            text = self.gw.stream("/v1/chat/completions", {"model": "strict", "messages": [], "stream": True})
            self.assertIn("data: [DONE]", text)
        finally:
            fake.close()

    def test_an_invalid_file_is_refused_at_start_with_every_problem(self):
        self.write("providers:\n  a: {base_url: 'nope'}\nmodels:\n  m:\n    deployments: [{provider: zz, model: x}]\n")
        r = subprocess.run([BIN, "serve", "--port", "0", "--config", self.config], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("gateway.yaml:2:17: providers.a.base_url", r.stderr)
        self.assertIn("gateway.yaml:5:30: models.m.deployments[0].provider: no provider named 'zz'", r.stderr)

    def test_sighup_reloads_while_streams_finish_on_the_old_snapshot(self):
        self.write(self.providers() + "models:\n  chat:\n    deployments: [{provider: a, model: a-upstream}]\n")
        self.gw = Gateway("--config", self.config)
        result = {}

        def long_stream():
            result["text"] = self.gw.stream("/v1/chat/completions",
                                            chat("chat", max_tokens=300, ignore_eos=True, stream=True,
                                                 stream_options={"include_usage": True}))

        reader = threading.Thread(target=long_stream)
        reader.start()
        self.assertTrue(wait_for(lambda: self.a.metrics()["vllm:num_requests_running"] == 1))
        # The models move to b; the server section, read only at start, changes too and is said to.
        self.write("server: {drain_ms: 1000}\n" + self.providers() +
                   "models:\n  chat:\n    deployments: [{provider: b, model: b-upstream}]\n")
        self.gw.proc.send_signal(signal.SIGHUP)

        def served_by_b():
            status, _ = self.gw.post("/v1/chat/completions", chat("chat"))
            return status == 200 and self.successes(self.b) >= 1
        self.assertTrue(wait_for(served_by_b, 10))
        self.assertEqual(self.a.metrics()["vllm:num_requests_running"], 1)  # still streaming from a
        a_before, b_before = self.successes(self.a), self.successes(self.b)
        for _ in range(3):
            self.assertEqual(self.gw.post("/v1/chat/completions", chat("chat"))[0], 200)
        self.assertEqual(self.successes(self.b), b_before + 3)
        reader.join(30)
        self.assertIn('"completion_tokens":300', result["text"])
        self.assertTrue(result["text"].rstrip().endswith("data: [DONE]"))
        self.assertEqual(self.successes(self.a), a_before + 1)

        self.write("providers: [this is not valid]\n")
        self.gw.proc.send_signal(signal.SIGHUP)
        before = self.successes(self.b)
        status, _ = self.gw.post("/v1/chat/completions", chat("chat"))
        self.assertEqual(status, 200)
        self.assertTrue(wait_for(lambda: self.successes(self.b) == before + 1))
        self.gw.close()
        self.assertIn("reload rejected", self.gw.stderr_text)
        self.assertEqual(self.gw.stderr_text.count("the server section changed, and is read only at start"), 1)
        self.assertNotIn("the auth section changed", self.gw.stderr_text)
        self.gw = None


if __name__ == "__main__":
    unittest.main()


class QuickStartKeys(unittest.TestCase):
    """The quick start's upstream key, from the command line or from an environment variable (out
    of the process list)."""

    def setUp(self):
        self.sim = Sim("--speedup", "50", "--api-key", "sk-upstream")
        self.addCleanup(self.sim.close)

    def test_the_key_from_an_environment_variable_reaches_the_upstream(self):
        gw = gateway_with_env(None, {"IG_TEST_UPSTREAM_KEY": "sk-upstream"}, "--upstream", self.sim.url,
                              "--upstream-api-key-env", "IG_TEST_UPSTREAM_KEY")
        self.addCleanup(gw.close)
        status, body = gw.post("/v1/chat/completions", chat("gemma-4-31b"))
        self.assertEqual((status, body["usage"]["completion_tokens"]), (200, 3))
        with open("/proc/%d/cmdline" % gw.proc.pid, "rb") as f:
            self.assertNotIn(b"sk-upstream", f.read())

    def test_an_unset_variable_is_refused_at_start(self):
        run = subprocess.run([BIN, "serve", "--port", "0", "--upstream", self.sim.url,
                              "--upstream-api-key-env", "IG_TEST_NOT_SET"], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("IG_TEST_NOT_SET is not set", run.stderr)

    def test_quick_start_settings_beside_a_config_file_are_refused_not_ignored(self):
        config = os.path.join(tempfile.mkdtemp(), "g.yaml")
        with open(config, "w") as f:
            f.write("providers:\n  sim: {base_url: '%s/v1'}\nmodels:\n  m: {deployments: [{provider: sim, model: x}]}\n"
                    % self.sim.url)
        for option, value in (("--balancer", "round_robin"), ("--max-attempts", "5"), ("--idle-timeout-ms", "10"),
                              ("--upstream-api-key-env", "HOME")):
            run = subprocess.run([BIN, "serve", "--port", "0", "--config", config, option, value],
                                 capture_output=True, text=True, timeout=30)
            self.assertNotEqual(run.returncode, 0, option)
            self.assertIn("%s requires --upstream" % option, run.stderr)
