"""infergate doctor: the GPU stack from recorded nvidia-smi/lsmod/docker outputs put on PATH, and
endpoint checks against the simulator, each failure produced by its fault injection."""
import json
import os
import stat
import subprocess
import tempfile
import unittest

from processes import BIN, Sim, free_port

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded")


def recorded(name):
    return os.path.join(RECORDED, name)


def doctor(*args, env=None, timeout=60):
    run = subprocess.run([BIN, "doctor", "--json", *args], capture_output=True, text=True, timeout=timeout,
                         env={**os.environ, **(env or {})})
    findings = json.loads(run.stdout)["findings"] if run.stdout.startswith("{") else []
    return run, findings


def by_check(findings):
    return {f["check"]: f for f in findings}


class GpuStack(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def script(self, name, body):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)

    def nvidia_smi(self, banner, query=None, code=0):
        query = query or banner
        self.script("nvidia-smi", f'case "$1" in --query-gpu=*) /bin/cat {query}; exit {code};; esac\n'
                                  f"/bin/cat {banner}; exit {code}")

    def cat(self, name, path, code=0):
        self.script(name, f"/bin/cat {path}; exit {code}")

    def run_doctor(self):
        return doctor(env={"PATH": self.tmp.name})

    def test_no_gpu_is_a_statement_not_an_error(self):
        run, findings = self.run_doctor()
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(findings[0]["verdict"], "info")
        self.assertIn("no local GPU", findings[0]["detail"])

    def test_a_healthy_server_lists_its_gpus_driver_and_cuda(self):
        self.nvidia_smi(recorded("nvidia-smi-h100.txt"), recorded("nvidia-smi-h100-query.csv"))
        self.cat("lsmod", recorded("lsmod-nvidia.txt"))
        self.cat("docker", recorded("docker-runtimes-nvidia.json"))
        run, findings = self.run_doctor()
        self.assertEqual(run.returncode, 0, run.stdout)
        checks = by_check(findings)
        self.assertIn("NVIDIA driver 550.54.15, CUDA 12.4", checks["driver"]["detail"])
        gpu0 = [f for f in findings if f["check"] == "GPU 0"]
        self.assertIn("NVIDIA H100 80GB HBM3, 0.0 of 79.6 GiB used, 0% busy", gpu0[0]["detail"])
        gpu1 = [f for f in findings if f["check"] == "GPU 1"]
        self.assertEqual(gpu1[1]["verdict"], "warn")  # 76 of 80 GB held by another process
        self.assertEqual(checks["kernel modules"]["verdict"], "ok")
        self.assertEqual(checks["docker"]["verdict"], "ok")

    def test_driver_not_loaded_and_nouveau_in_the_way(self):
        self.nvidia_smi(recorded("nvidia-smi-no-driver.txt"), code=9)
        self.cat("lsmod", recorded("lsmod-nouveau.txt"))
        self.cat("docker", recorded("docker-runtimes-nvidia.json"))
        run, findings = self.run_doctor()
        self.assertEqual(run.returncode, 1)
        smi = by_check(findings)["nvidia-smi"]
        self.assertEqual(smi["verdict"], "fail")
        self.assertIn("not loaded", smi["detail"])
        self.assertIn("dkms autoinstall", smi["fix"])
        modules = [f for f in findings if f["check"] == "kernel modules"]
        self.assertIn("nouveau", modules[0]["detail"])
        self.assertIn("blacklist nouveau", modules[0]["fix"])
        self.assertIn("the nvidia module is not loaded", modules[1]["detail"])

    def test_driver_library_mismatch_says_reboot(self):
        self.nvidia_smi(recorded("nvidia-smi-mismatch.txt"), code=18)
        self.cat("lsmod", recorded("lsmod-nvidia.txt"))
        run, findings = self.run_doctor()
        self.assertEqual(run.returncode, 1)
        smi = by_check(findings)["nvidia-smi"]
        self.assertIn("different versions", smi["detail"])
        self.assertIn("reboot", smi["fix"])
        self.assertEqual(by_check(findings)["docker"]["verdict"], "info")  # no docker on this PATH

    def test_docker_without_the_nvidia_runtime(self):
        self.nvidia_smi(recorded("nvidia-smi-h100.txt"), recorded("nvidia-smi-h100-query.csv"))
        self.cat("lsmod", recorded("lsmod-nvidia.txt"))
        self.cat("docker", recorded("docker-runtimes-plain.json"))
        run, findings = self.run_doctor()
        self.assertEqual(run.returncode, 1)
        docker = by_check(findings)["docker"]
        self.assertIn("no nvidia runtime", docker["detail"])
        self.assertIn("nvidia-ctk runtime configure", docker["fix"])

    def test_docker_daemon_down(self):
        self.nvidia_smi(recorded("nvidia-smi-h100.txt"), recorded("nvidia-smi-h100-query.csv"))
        self.script("docker", "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.' >&2; exit 1")
        run, findings = self.run_doctor()
        self.assertEqual(by_check(findings)["docker"]["verdict"], "warn")
        self.assertIn("Cannot connect to the Docker daemon", by_check(findings)["docker"]["detail"])


class Endpoint(unittest.TestCase):
    def sim(self, *args):
        sim = Sim("--speedup", "50", *args)
        self.addCleanup(sim.close)
        return sim

    def check(self, sim, *args, path="/v1", env=None):
        return doctor("--base-url", sim.url + path, "--timeout", "2", *args, env=env)

    def test_a_healthy_endpoint(self):
        run, findings = self.check(self.sim())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        checks = by_check(findings)
        for name in ("name resolution", "TCP connect", "GET /v1/models", "one-token stream", "usage", "ignore_eos",
                     "Responses API", "embeddings"):
            self.assertEqual(checks[name]["verdict"], "ok", checks[name])
        self.assertIn("gemma-4-31b", checks["GET /v1/models"]["detail"])
        self.assertIn("first token after", checks["one-token stream"]["detail"])
        self.assertIn("honoured", checks["ignore_eos"]["detail"])
        self.assertIn("served: 5376-dimensional vectors (6 prompt tokens)", checks["embeddings"]["detail"])
        # The simulator calls the function it is made to; a long call shows its start and size.
        self.assertEqual(checks["tool calls"]["verdict"], "ok", checks["tool calls"])
        self.assertRegex(checks["tool calls"]["detail"],
                         r'served: the model called get_weather\(\{"city":" [^"]*\.\.\. \(\d+ bytes\)\)')

    def test_missing_wrong_and_right_key(self):
        sim = self.sim("--api-key", "sk-right")
        run, findings = self.check(sim, env={"OPENAI_API_KEY": ""})
        self.assertEqual(run.returncode, 1)
        self.assertIn("wants an API key", by_check(findings)["GET /v1/models"]["detail"])
        run, findings = self.check(sim, "--api-key", "sk-wrong")
        self.assertIn("refused the key", by_check(findings)["GET /v1/models"]["detail"])
        run, findings = self.check(sim, "--api-key", "sk-right")
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_wrong_model_lists_those_that_exist_and_a_wrong_path_suggests_v1(self):
        sim = self.sim()
        run, findings = self.check(sim, "--model", "llama-9")
        self.assertEqual(run.returncode, 1)
        self.assertIn("the models that exist: gemma-4-31b", by_check(findings)["model"]["detail"])
        run, findings = self.check(sim, path="")
        self.assertIn(sim.url + "/v1", by_check(findings)["GET /models"]["fix"])
        run, findings = self.check(sim, path="/v1/chat/completions")  # as curl examples show it
        self.assertEqual(by_check(findings)["GET /v1/chat/completions/models"]["fix"],
                         "that is the chat/completions endpoint's URL; give the API's base URL: " + sim.url + "/v1")

    def test_rate_limited_gives_backoff_advice(self):
        run, findings = self.check(self.sim("--fault-429-rate", "1", "--fault-retry-after", "5"))
        self.assertEqual(run.returncode, 1)
        stream = by_check(findings)["one-token stream"]
        self.assertIn("429 rate limited (Retry-After: 5 s)", stream["detail"])
        self.assertIn("back off", stream["fix"])

    def test_server_errors(self):
        run, findings = self.check(self.sim("--fault-error-rate", "1", "--fault-error-status", "503"))
        self.assertEqual(run.returncode, 1)
        self.assertIn("503", by_check(findings)["one-token stream"]["detail"])

    def test_no_usage_and_ignore_eos_ignored_are_warnings(self):
        run, findings = self.check(self.sim("--fault-no-usage", "--fault-no-ignore-eos"))
        checks = by_check(findings)
        self.assertEqual(checks["usage"]["verdict"], "warn")
        # Without usage in non-streamed answers either, ignore_eos cannot be judged.
        self.assertIn("could not tell", checks["ignore_eos"]["detail"])
        run, findings = self.check(self.sim("--fault-no-ignore-eos"))
        self.assertEqual(run.returncode, 0, run.stdout)
        ignore_eos = by_check(findings)["ignore_eos"]
        self.assertEqual(ignore_eos["verdict"], "warn")
        self.assertIn("ignored", ignore_eos["detail"])

    def test_malformed_stream_reset_and_stall(self):
        run, findings = self.check(self.sim("--fault-malformed-rate", "1", "--fault-malformed-after", "0"))
        self.assertIn("not JSON", by_check(findings)["one-token stream"]["detail"])
        run, findings = self.check(self.sim("--fault-reset-rate", "1", "--fault-reset-after", "0"))
        self.assertIn("the stream broke", by_check(findings)["one-token stream"]["detail"])
        run, findings = self.check(self.sim("--fault-stall-first-ms", "5000"))
        stream = by_check(findings)["one-token stream"]
        self.assertIn("stalled", stream["fix"])
        self.assertEqual(run.returncode, 1)

    def test_an_event_that_never_ends(self):
        from fake_upstream import FakeUpstream
        fake = FakeUpstream()
        try:
            run, findings = doctor("--base-url", fake.url + "/endless/v1", "--timeout", "5")
        finally:
            fake.close()
        self.assertEqual(run.returncode, 1)
        stream = by_check(findings)["one-token stream"]
        self.assertIn("an event passed 8388608 bytes without its end", stream["detail"])
        self.assertIn("blank line", stream["fix"])

    def test_a_server_that_calls_tools_says_which_call(self):
        from fake_upstream import FakeUpstream
        fake = FakeUpstream()
        try:
            run, findings = doctor("--base-url", fake.url + "/tools/v1", "--timeout", "5")
        finally:
            fake.close()
        tools = by_check(findings)["tool calls"]
        self.assertEqual(tools["verdict"], "ok", findings)
        self.assertIn('served: the model called get_weather({"city": "Paris"})', tools["detail"])

    def test_headers_go_with_every_checks_request_and_those_it_sets_are_refused(self):
        from fake_upstream import FakeUpstream
        fake = FakeUpstream()
        try:
            run, findings = doctor("--base-url", fake.url + "/echo/v1", "--timeout", "5", "--header", "api-key: k-1",
                                   "--header", "X-Route:  blue ")
        finally:
            fake.close()
        self.assertEqual(by_check(findings)["GET /echo/v1/models"]["verdict"], "ok", findings)
        self.assertGreaterEqual(len(fake.server.requests), 3)  # the model list, the stream, ignore_eos's
        for method, path, headers, _ in fake.server.requests:
            sent = {k.lower(): v for k, v in headers}
            self.assertEqual((sent.get("api-key"), sent.get("x-route")), ("k-1", "blue"), (method, path))
            self.assertEqual(sent.get("user-agent"), "infergate-doctor", (method, path))
        fake = FakeUpstream()
        try:
            doctor("--base-url", fake.url + "/echo/v1", "--timeout", "5", "--header", "User-Agent: probe/1")
        finally:
            fake.close()
        self.assertGreaterEqual(len(fake.server.requests), 3)
        for method, path, headers, _ in fake.server.requests:
            agents = [v for k, v in headers if k.lower() == "user-agent"]
            self.assertEqual(agents, ["probe/1"], (method, path))
        refused = subprocess.run([BIN, "doctor", "--base-url", fake.url + "/v1", "--header", "Authorization: sk-x"],
                                 capture_output=True, text=True, timeout=30)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("Authorization is set from --api-key", refused.stderr)
        self.assertNotIn("sk-x", refused.stderr)

    def test_nothing_listening_and_an_unknown_host(self):
        run, findings = doctor("--base-url", f"http://127.0.0.1:{free_port()}/v1")
        self.assertEqual(run.returncode, 1)
        self.assertIn("nothing listens there", by_check(findings)["TCP connect"]["detail"])
        run, findings = doctor("--base-url", "http://no-such-host.invalid/v1")
        self.assertEqual(by_check(findings)["name resolution"]["verdict"], "fail")

    def test_tls_with_an_untrusted_certificate(self):
        from fake_upstream import FakeUpstream
        with tempfile.TemporaryDirectory() as tmp:
            cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                            "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
                           check=True, capture_output=True)
            fake = FakeUpstream(cert, key)
            try:
                run, findings = doctor("--base-url", fake.url + "/ok/v1")
                self.assertEqual(by_check(findings)["TLS"]["verdict"], "fail")
                self.assertIn("update-ca-certificates", by_check(findings)["TLS"]["fix"])
                run, findings = doctor("--base-url", fake.url + "/ok/v1", env={"SSL_CERT_FILE": cert})
                self.assertEqual(by_check(findings)["TLS"]["verdict"], "ok")
                self.assertEqual(by_check(findings)["GET /ok/v1/models"]["verdict"], "ok")
                # A server without the Responses API: said, and no failure.
                self.assertEqual(by_check(findings)["Responses API"]["verdict"], "info")
                self.assertIn("not served (404", by_check(findings)["Responses API"]["detail"])
                self.assertEqual(by_check(findings)["embeddings"]["verdict"], "info")
                self.assertIn("not served for", by_check(findings)["embeddings"]["detail"])
                self.assertEqual(run.returncode, 0, run.stdout)
            finally:
                fake.close()


if __name__ == "__main__":
    unittest.main()
