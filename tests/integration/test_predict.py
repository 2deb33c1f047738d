"""infergate roofline and calibrate from the command line, and the simulator on a user catalog."""
import json
import os
import subprocess
import tempfile
import threading
import unittest
import urllib.request

from processes import BIN, Sim

HEADER = "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note\n"


def infergate(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


class Roofline(unittest.TestCase):
    def test_json_covers_every_combination(self):
        run = infergate("roofline", "--model", "gemma-4-31b", "--precision", "bf16,fp8,int4",
                        "--hardware", "h100,h200,lpu", "--context", "8192", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        rows = json.loads(run.stdout)
        self.assertEqual(len(rows), 9)
        by = {(r["precision"], r["hardware"]): r for r in rows}
        h100 = by[("bf16", "h100")]
        self.assertTrue(h100["fits"])
        self.assertAlmostEqual(h100["weight_bytes"], 61.4e9)
        self.assertEqual(h100["decode_step"]["bound"], "bandwidth")
        self.assertEqual(h100["prefill_step"]["bound"], "compute")
        self.assertAlmostEqual(h100["prefill_tokens_per_s"], h100["prompt_tokens"] / h100["prefill_seconds"])
        # Half the bytes per weight, about twice the single-stream ceiling.
        self.assertAlmostEqual(by[("fp8", "h200")]["ideal_decode_tokens_per_s"],
                               2 * by[("bf16", "h200")]["ideal_decode_tokens_per_s"], delta=0.01)
        lpu = by[("bf16", "lpu")]
        self.assertGreater(lpu["devices"], 250)
        self.assertGreater(lpu["ideal_decode_tokens_per_s"], 100 * lpu["decode_tokens_per_s"])
        for r in rows:
            self.assertGreater(r["max_sequences"], 0)
            self.assertGreaterEqual(r["batch_tokens_per_s"], r["decode_tokens_per_s"])

    def test_a_gpu_steps_parts_add_up_to_its_time(self):
        run = infergate("roofline", "--model", "llama-3.1-8b", "--hardware", "h200", "--tp", "2", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        r = json.loads(run.stdout)[0]
        for name in ("decode_step", "batch_step", "prefill_step"):
            step = r[name]
            parts = max(step["memory_s"], step["compute_s"]) + step["serial_s"] + step["interconnect_s"]
            self.assertAlmostEqual(step["seconds"], parts + step["overhead_s"], delta=1e-12, msg=name)
            self.assertGreater(step["serial_s"], 0, name)

    def test_table_and_tensor_parallel(self):
        run = infergate("roofline", "--model", "llama-3.3-70b", "--precision", "bf16", "--hardware", "h100", "--tp", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("2 (not 1)", run.stdout)
        run = infergate("roofline", "--model", "llama-3.3-70b", "--hardware", "h100", "--tp", "4", "--json")
        self.assertGreater(json.loads(run.stdout)[0]["decode_step"]["interconnect_s"], 0)

    def test_explain_walks_through_the_arithmetic(self):
        run = infergate("roofline", "--model", "llama-3.1-8b", "--hardware", "h200", "--explain")
        self.assertEqual(run.returncode, 0, run.stderr)
        for step in ("1. Weights.", "2. KV cache.", "3. The bandwidth ceiling.", "4. One stream",
                     "5. The largest batch.", "6. Prefill."):
            self.assertIn(step, run.stdout)
        self.assertIn("16.1 GB", run.stdout)

    def test_unknown_names_say_what_exists(self):
        run = infergate("roofline", "--model", "gpt-9", "--hardware", "h100")
        self.assertEqual(run.returncode, 2)
        self.assertIn("unknown model 'gpt-9'; known:", run.stderr)
        self.assertIn("mixtral-8x7b", run.stderr)

    def test_custom_catalog(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("hardware:\n  - {id: tb, memory_gb: 80, bandwidth_gb_s: 1000, tflops_16bit: 400}\n")
            f.flush()
            run = infergate("roofline", "--model", "gemma-4-31b", "--hardware", "tb", "--catalog", f.name, "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertAlmostEqual(json.loads(run.stdout)[0]["ideal_decode_tokens_per_s"], 1e12 / 61.4e9, places=6)


class Calibrate(unittest.TestCase):
    def test_built_in_data_meets_the_bounds(self):
        run = infergate("calibrate", "--check")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("bounds (median |error| under 20%, no row off by more than 2x): met", run.stdout)
        self.assertIn("t09-h200-70b-b1024", run.stdout)

    def test_a_row_far_off_fails_the_check(self):
        with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
            f.write(HEADER + "off,h100,llama-3.1-8b,bf16,1,x,decode,1,0,128,1,1000,tok/s,test,\n")
            f.flush()
            run = infergate("calibrate", "--data", f.name, "--check")
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn("NOT met", run.stdout)

    def test_fit_prints_factors_a_catalog_accepts(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "d.csv")
            with open(data, "w") as f:
                f.write(HEADER + "a,h100,llama-3.1-8b,bf16,1,x,decode,1,0,128,1,120,tok/s,test,\n"
                        "b,h100,llama-3.1-8b,bf16,1,x,ttft,1,2048,1,1,70,ms,test,\n")
            run = infergate("calibrate", "--data", data, "--fit")
            self.assertEqual(run.returncode, 0, run.stderr)
            families = run.stdout.split("\n\n")[0]
            catalog = os.path.join(tmp, "fitted.yaml")
            with open(catalog, "w") as f:
                f.write("\n".join(line for line in families.splitlines() if not line.startswith("#")) + "\n")
            again = infergate("calibrate", "--data", data, "--catalog", catalog, "--check")
            self.assertEqual(again.returncode, 0, again.stdout + again.stderr)


class SimOnAUserCatalog(unittest.TestCase):
    def test_serves_a_profile_from_the_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("models:\n  - {id: tiny, params_b: 1, layers: 16, hidden: 2048, heads: 16, kv_heads: 4,"
                    " head_dim: 128, max_context: 8192}\n")
            f.flush()
            sim = Sim("--catalog", f.name, "--profile", "tiny:bf16@h100", "--speedup", "10")
            try:
                with urllib.request.urlopen(sim.url + "/v1/models", timeout=10) as r:
                    self.assertEqual([m["id"] for m in json.loads(r.read())["data"]], ["tiny"])
                status, body = sim.post("/v1/chat/completions", {
                    "model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})
                self.assertEqual(status, 200)
                self.assertEqual(body["usage"]["completion_tokens"], 4)
            finally:
                sim.close()

    def test_an_invalid_catalog_stops_the_simulator_with_the_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("hardware:\n  - id: x\n    memory_gb: lots\n")
            f.flush()
            run = subprocess.run([BIN, "sim", "--port", "0", "--catalog", f.name], capture_output=True,
                                 text=True, timeout=30)
            self.assertEqual(run.returncode, 2)
            self.assertIn(f.name + ":3:16: hardware[0].memory_gb: must be a number", run.stderr)


TINY = ("models:\n  - {id: tiny, params_b: 1, layers: 16, hidden: 2048, heads: 16, kv_heads: 4, head_dim: 128,"
        " max_context: 8192}\n")


class SimEngine(unittest.TestCase):
    """What makes real servers saturate, seen through the simulator's HTTP API and /metrics."""

    def chat(self, sim, system, user, max_tokens):
        return sim.post("/v1/chat/completions", {
            "model": sim.model, "max_tokens": max_tokens, "ignore_eos": True,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})

    def start(self, *args):
        sim = Sim("--speedup", "20", *args)
        sim.model = "gemma-4-31b"
        self.addCleanup(sim.close)
        return sim

    def test_shared_prefixes_hit_the_cache_and_the_hit_rate_is_in_metrics(self):
        sim = self.start()
        system = " ".join(["policy"] * 200)
        for question in ("first question", "second question", "third question"):
            status, body = self.chat(sim, system, question, 2)
            self.assertEqual(status, 200, body)
        m = sim.metrics()
        # 200 shared words are 12 full blocks; the first prompt fills the cache, the next two hit it.
        self.assertEqual(m["vllm:prefix_cache_hits_total"], 2 * 12 * 16)
        self.assertEqual(m["vllm:prefix_cache_queries_total"], 3 * 202)
        self.assertAlmostEqual(m["vllm:gpu_prefix_cache_hit_rate"], 384 / 606, places=6)

    def test_prefix_caching_off(self):
        sim = self.start("--no-prefix-caching")
        for question in ("first", "second"):
            self.chat(sim, "same system prompt " * 20, question, 2)
        self.assertEqual(sim.metrics()["vllm:prefix_cache_hits_total"], 0)

    def test_a_full_kv_cache_preempts_and_every_request_still_completes(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            # 2 GB of weights and room for about 1,000 tokens of KV cache (32 KiB each).
            f.write(TINY + "hardware:\n  - {id: tight, memory_gb: 2.2587, bandwidth_gb_s: 1000, tflops_16bit: 400}\n")
            f.flush()
            sim = self.start("--catalog", f.name, "--profile", "tiny:bf16@tight")
            sim.model = "tiny"
            results = []

            def one(i):
                results.append(self.chat(sim, f"request {i} " + "word " * 98, "go", 400))

            threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            self.assertEqual(len(results), 4)
            for status, body in results:
                self.assertEqual(status, 200, body)
                self.assertEqual(body["usage"]["completion_tokens"], 400)
            m = sim.metrics()
            self.assertGreater(m["vllm:num_preemptions_total"], 0)
            self.assertEqual(m["vllm:request_success_total"], 4)
            self.assertEqual(m["vllm:kv_cache_usage_perc"], 0)


if __name__ == "__main__":
    unittest.main()
