"""infergate bench against infergate sim (and a misbehaving upstream), as real processes on loopback."""
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from fake_upstream import FakeUpstream
from processes import BIN, SANITIZED, Gateway, Sim, WorkDirTest, bench, free_port, raw_request, read_json, read_tokens, wait_for


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class SimEmbeddings(unittest.TestCase):
    def test_vectors_in_openais_shape_timed_as_prefill_and_served_through_the_gateway(self):
        import base64
        import math
        import struct
        sim = Sim("--speedup", "2", "--profile", "llama-3.1-8b:bf16@h100")
        gateway = Gateway("--upstream", sim.url)
        try:
            status, body = sim.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": ["a b c", "d e", "a b c"]})
            self.assertEqual(status, 200, body)
            self.assertEqual(body["object"], "list")
            self.assertEqual(body["usage"], {"prompt_tokens": 8, "total_tokens": 8})
            vectors = [d["embedding"] for d in body["data"]]
            self.assertEqual([d["index"] for d in body["data"]], [0, 1, 2])
            self.assertEqual(len(vectors[0]), 4096)  # the model's hidden size
            self.assertAlmostEqual(math.fsum(v * v for v in vectors[0]), 1.0, places=4)
            self.assertEqual(vectors[0], vectors[2])
            self.assertNotEqual(vectors[0], vectors[1])

            status, body = sim.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": "a b c",
                                                       "encoding_format": "base64", "dimensions": 256})
            self.assertEqual(status, 200, body)
            packed = base64.b64decode(body["data"][0]["embedding"])
            floats = struct.unpack("<256f", packed)
            # Shortened as OpenAI documents it: the full vector's head, scaled back to unit length.
            head = vectors[0][:256]
            norm = math.sqrt(math.fsum(v * v for v in head))
            for got, want in zip(floats, head):
                self.assertAlmostEqual(got, want / norm, places=5)

            # A long input takes a prefill's time; a short one hardly any.
            def timed(words):
                started = time.monotonic()
                status, body = sim.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": "w " * words})
                self.assertEqual(status, 200, body)
                return time.monotonic() - started
            short, long = timed(8), timed(30000)
            self.assertGreater(long, short + 0.1, (short, long))

            for request, status_code, field in (
                    ({"model": "llama-3.1-8b", "input": "x " * 200000}, 400, "input"),
                    ({"model": "llama-3.1-8b", "input": "x", "dimensions": 5000}, 400, "dimensions"),
                    ({"model": "llama-3.1-8b", "input": []}, 400, "input")):
                status, body = sim.post("/v1/embeddings", request)
                self.assertEqual((status, body["error"]["param"]), (status_code, field), body)
            status, body = sim.post("/v1/embeddings", {"model": "nope", "input": "x"})
            self.assertEqual((status, body["error"]["code"]), (404, "model_not_found"))
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(sim.url + "/v1/embeddings", timeout=10)
            self.assertEqual((refused.exception.code, refused.exception.headers["Allow"]), (405, "POST"))

            status, body = sim.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": "x"},
                                    {"x-infergate-fault": "error=503"})
            self.assertEqual(status, 503, body)
            with self.assertRaises((ConnectionError, urllib.error.URLError, http.client.HTTPException)):
                sim.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": "x"}, {"x-infergate-fault": "reset_after=0"})

            status, body = gateway.post("/v1/embeddings", {"model": "llama-3.1-8b", "input": "through the gateway"})
            self.assertEqual((status, body["usage"]["prompt_tokens"], len(body["data"][0]["embedding"])),
                             (200, 3, 4096), body)
            metrics = sim.metrics()
            self.assertGreaterEqual(metrics["vllm:prompt_tokens_total"], 8 + 3 + 30008 + 3)
            self.assertEqual(metrics["vllm:generation_tokens_total"], 0)  # prompts only, nothing generated
        finally:
            gateway.close()
            sim.close()


class BenchAgainstSim(WorkDirTest):
    def test_counts_token_totals_and_ttft_against_the_server_trace(self):
        sim = Sim("--speedup", "20", "--profile", "llama-3.1-8b:bf16@h100")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "16", "--requests", "160", "--input-tokens", "64",
                      "--output-tokens", "24", "--trace", "--json", self.path("s.json"), "--records",
                      self.path("r.jsonl"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("s.json"))
        self.assertEqual(doc["schema"], "infergate.bench/1")
        self.assertEqual(doc["config"]["model"], "llama-3.1-8b")
        s = doc["summary"]
        self.assertEqual((s["completed"], s["failed"]), (160, 0))
        self.assertEqual(s["output_tokens"], 160 * 24)
        self.assertEqual(s["prompt_tokens"], 160 * 64)
        self.assertEqual(s["requested_input_tokens"], 160 * 64)
        self.assertEqual(s["token_source"], "usage")
        for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
            self.assertEqual(set(s[key]) >= {"mean", "p50", "p90", "p95", "p99", "max"}, True, key)
        client = s["client"]
        self.assertGreater(client["loop_busy"], 0)
        self.assertLessEqual(client["loop_busy"], 1)
        self.assertAlmostEqual(client["scheduling_lag_p99_ms"], s["scheduling_lag_ms"]["p99"])
        steady = doc["steady_state"]
        self.assertEqual(steady["level"], 16)
        self.assertEqual(steady["ramp_up"]["requests"], 16)  # the first wave, sent together
        self.assertEqual(steady["ramp_up"]["requests"] + steady["summary"]["completed"] + steady["drain"]["requests"],
                         160)
        self.assertGreater(steady["summary"]["completed"], 100)
        # Never above the level; below it only for the moments between a request's end and the next
        # one's send, which a slow (sanitized, loaded) client stretches.
        self.assertLessEqual(steady["mean_in_flight"], 16)
        self.assertGreater(steady["mean_in_flight"], 16 * 0.9)
        self.assertLess(steady["start_s"], steady["end_s"])
        series = doc["timeseries"]
        self.assertEqual(len({len(series[k]) for k in ("t_s", "in_flight", "output_tokens", "completed", "ttft_ms")}),
                         1)
        self.assertEqual(sum(series["completed"]), 160)
        self.assertEqual(sum(series["started"]), 160)
        self.assertAlmostEqual(sum(series["output_tokens"]), 160 * 24, places=6)
        records = read_jsonl(self.path("r.jsonl"))
        self.assertEqual(len(records), 160)
        errors = []
        for rec in records:
            self.assertEqual(rec["status"], "ok")
            self.assertEqual(rec["usage"]["completion_tokens"], 24)
            self.assertEqual(rec["text_events"], 24)
            trace = rec["server_trace"]
            # The client sees the first token after the server wrote it, and not much later.
            self.assertGreaterEqual(rec["first_token_ns"], trace["first_token_ns"])
            self.assertGreaterEqual(trace["arrival_ns"], rec["sent_ns"])
            errors.append((rec["first_token_ns"] - trace["first_token_ns"]) / 1e6)
        # A loose bound that holds on a busy CI machine; the 0.2 ms figure is the benchmark's job
        # (bench/client_fidelity.py, bench/RESULTS.md).
        self.assertLess(statistics.median(errors), 2.0, errors)

    def test_cost_per_million_output_tokens_by_price_and_by_hour(self):
        sim = Sim("--speedup", "20")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "4", "--requests", "24", "--input-tokens", "100",
                      "--output-tokens", "20", "--price", "in=0.5,out=2", "--hourly-cost", "7.2", "--json",
                      self.path("s.json"))
            bad = bench("--base-url", sim.url, "--price", "in=0.5,cached=0.1")
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("s.json"))
        s, cost = doc["summary"], doc["cost"]
        self.assertEqual((s["prompt_tokens"], s["output_tokens"]), (2400, 480))
        self.assertAlmostEqual(cost["run_usd"], (0.5 * 2400 + 2 * 480) / 1e6)
        self.assertAlmostEqual(cost["per_million_output_tokens_by_tokens"], (0.5 * 2400 + 2 * 480) / 480)
        steady_rate = doc["steady_state"]["summary"]["output_tokens_per_s"]
        self.assertEqual(cost["output_tokens_per_s"], steady_rate)
        self.assertAlmostEqual(cost["per_million_output_tokens_by_hour"], 7.2 / (steady_rate * 3600) * 1e6)
        self.assertIn("per million output tokens at $7.2/h", r.stdout)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("'cached=0.1'", bad.stderr)

    def test_repeated_runs_give_mean_spread_and_interval_of_each_figure(self):
        sim = Sim("--speedup", "20")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "4", "--requests", "16", "--input-tokens", "64",
                      "--output-tokens", "16", "--runs", "3", "--seed", "7", "--json", self.path("s.json"),
                      "--records", self.path("r.jsonl"), "--slo", "e2e_p99=60s", "--hourly-cost", "2",
                      "--server-metrics", sim.url + "/metrics")
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("s.json"))
        self.assertNotIn("summary", doc)
        runs = doc["runs"]
        self.assertEqual(runs["count"], 3)
        self.assertEqual([run["seed"] for run in runs["runs"]], [7, 8, 9])  # fresh prompts each run
        for name, key in (("output_tokens_per_s", "output_tokens_per_s"), ("requests_per_s", "requests_per_s")):
            figure = runs["figures"][name]
            values = [run["summary"][key] for run in runs["runs"]]
            self.assertEqual(figure["values"], values)
            self.assertAlmostEqual(figure["mean"], statistics.mean(values))
            self.assertAlmostEqual(figure["sd"], statistics.stdev(values))
            self.assertAlmostEqual(figure["cv"], statistics.stdev(values) / statistics.mean(values))
            half = 4.303 * statistics.stdev(values) / 3 ** 0.5  # Student's t, 2 degrees of freedom
            self.assertAlmostEqual(figure["ci95"][0], figure["mean"] - half)
            self.assertAlmostEqual(figure["ci95"][1], figure["mean"] + half)
        p99 = runs["figures"]["ttft_ms_p99"]
        self.assertEqual(p99["values"], [run["summary"]["ttft_ms"]["p99"] for run in runs["runs"]])
        # Goodput and cost are figures over the runs too.
        self.assertEqual(runs["figures"]["goodput_requests_per_s"]["values"],
                         [run["goodput"]["requests_per_s"] for run in runs["runs"]])
        self.assertEqual(runs["figures"]["usd_per_million_tokens"]["values"],
                         [run["cost"]["per_million_output_tokens_by_hour"] for run in runs["runs"]])
        self.assertIn("goodput_requests_per_s", r.stdout)
        # Each run keeps the server's gauges while it ran.
        for run in runs["runs"]:
            self.assertGreaterEqual(len(run["server"]["t_s"]), 1)
            self.assertGreaterEqual(max(run["server"]["running"]), 0)
        self.assertEqual(r.stdout.count("    server peaks over"), 3)
        records = read_jsonl(self.path("r.jsonl"))
        self.assertEqual(sorted({rec["run"] for rec in records}), [1, 2, 3])
        self.assertEqual(len(records), 48)
        self.assertIn("over 3 runs", r.stdout)
        self.assertIn("run 3/3:", r.stdout)

    def test_ramp_up_spreads_stream_starts_and_raises_the_rate_linearly(self):
        sim = Sim("--speedup", "1")
        try:
            closed = bench("--base-url", sim.url, "--concurrency", "4", "--requests", "12", "--ramp-up", "0.4",
                           "--input-tokens", "16", "--output-tokens", "10", "--records", self.path("c.jsonl"),
                           "--json", self.path("c.json"))
            opened = bench("--base-url", sim.url, "--rate", "100", "--arrival", "constant", "--ramp-up", "0.4",
                           "--requests", "40", "--input-tokens", "16", "--output-tokens", "4", "--records",
                           self.path("o.jsonl"))
        finally:
            sim.close()
        self.assertEqual(closed.returncode, 0, closed.stderr)
        self.assertEqual(read_json(self.path("c.json"))["config"]["ramp_up_s"], 0.4)
        records = read_jsonl(self.path("c.jsonl"))
        # The schedule's origin is the first stream's due time: its dispatch can come a little later
        # (a slow machine, a sanitizer build), and no stream is sent before it is due.
        t0 = min(rec["due_ns"] for rec in records)
        peak = 0
        for rec in records:
            at = rec["dispatch_ns"]
            in_flight = sum(1 for o in records if o["dispatch_ns"] <= at < o["last_byte_ns"])
            started_streams = int((at - t0) / 1e9 / 0.1 + 1e-3) + 1  # one stream starts every 100 ms
            self.assertLessEqual(in_flight, started_streams, (at - t0) / 1e6)
            peak = max(peak, in_flight)
        self.assertEqual(peak, 4)
        self.assertEqual(opened.returncode, 0, opened.stderr)
        dues = sorted(rec["due_ns"] for rec in read_jsonl(self.path("o.jsonl")))
        for i, due in enumerate(dues):
            full = i / 100  # the constant schedule at the full rate
            ramped = (2 * 0.4 * full) ** 0.5 if full < 0.2 else full + 0.2
            self.assertAlmostEqual((due - dues[0]) / 1e9, ramped, delta=1e-5)

    def shared_prefix_run(self, *sim_args):
        # Slowed down enough that a 256-token prefill stands out of the noise of a shared machine.
        sim = Sim("--speedup", "2", *sim_args)
        try:
            r = bench("--base-url", sim.url, "--prefix-groups", "2", "--prefix-tokens", "256", "--input-tokens", "32",
                      "--output-tokens", "4", "--requests", "20", "--json", self.path("s.json"))
            metrics = sim.metrics()
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        return read_json(self.path("s.json")), metrics

    def test_shared_prefixes_are_reused_by_the_servers_prefix_cache(self):
        doc, metrics = self.shared_prefix_run()
        self.assertEqual(doc["config"]["prefix_groups"], 2)
        self.assertEqual(doc["summary"]["requested_input_tokens"], 20 * (256 + 32))
        self.assertEqual(doc["summary"]["prompt_tokens"], 20 * (256 + 32))
        # Every request after its group's first finds the 256-token prefix (16 whole blocks) cached.
        self.assertEqual(metrics["vllm:prefix_cache_hits_total"], 18 * 256)
        cold, cold_metrics = self.shared_prefix_run("--no-prefix-caching")
        self.assertEqual(cold_metrics["vllm:prefix_cache_hits_total"], 0)
        self.assertLess(doc["summary"]["ttft_ms"]["p50"], cold["summary"]["ttft_ms"]["p50"])

    def test_multi_turn_conversations_send_the_history_with_the_servers_replies(self):
        sim = Sim("--speedup", "20")
        try:
            r = bench("--base-url", sim.url, "--turns", "3", "--think-time", "0.05", "--concurrency", "2",
                      "--requests", "12", "--input-tokens", "40", "--output-tokens", "16", "--records",
                      self.path("r.jsonl"))
            metrics = sim.metrics()
            opened = bench("--base-url", sim.url, "--turns", "2", "--rate", "50", "--arrival", "constant",
                           "--requests", "10", "--input-tokens", "20", "--output-tokens", "4", "--records",
                           self.path("o.jsonl"))
        finally:
            sim.close()
        self.assertEqual(opened.returncode, 0, opened.stderr)
        starts = {}
        for rec in read_jsonl(self.path("o.jsonl")):
            starts.setdefault(rec["conversation"], {})[rec["turn"]] = rec
        self.assertEqual(len(starts), 5)  # conversations arrive at the rate; each takes two requests
        firsts = sorted(c[0]["due_ns"] for c in starts.values())
        for a, b in zip(firsts, firsts[1:]):
            self.assertAlmostEqual((b - a) / 1e6, 20, delta=0.05)
        for c in starts.values():
            self.assertEqual(c[1]["due_ns"], c[0]["last_byte_ns"])  # no think time: at once
        self.assertEqual(r.returncode, 0, r.stderr)
        records = read_jsonl(self.path("r.jsonl"))
        by_conversation = {}
        for rec in records:
            self.assertEqual(rec["status"], "ok")
            # What the client counted (questions plus the replies it sent back) is what the server saw.
            self.assertEqual(rec["usage"]["prompt_tokens"], rec["requested_input_tokens"])
            by_conversation.setdefault(rec["conversation"], []).append(rec)
        self.assertEqual(len(by_conversation), 4)
        for turns in by_conversation.values():
            turns.sort(key=lambda rec: rec["turn"])
            self.assertEqual([rec["turn"] for rec in turns], [0, 1, 2])
            self.assertEqual([rec["requested_input_tokens"] for rec in turns], [40, 40 + 16 + 40, 40 + 2 * (16 + 40)])
            for before, after in zip(turns, turns[1:]):
                self.assertGreaterEqual(after["due_ns"] - before["last_byte_ns"], 50e6)  # the think time
                self.assertGreaterEqual(after["dispatch_ns"], after["due_ns"])
        # Later turns find their history in the server's prefix cache.
        self.assertGreater(metrics["vllm:prefix_cache_hits_total"], 0)

    def test_an_agents_loop_sends_each_tool_calls_result_as_its_next_turn(self):
        # Made to call a tool each turn, the server's calls go back in the history with their
        # results (the next turn's words), in Chat Completions and the Responses API.
        chat_tools = [{"type": "function", "function": {"name": "search", "parameters": {"properties": {"query": {}}}}}]
        response_tools = [{"type": "function", "name": "search", "parameters": {"properties": {"query": {}}}}]
        sim = Sim("--speedup", "20")
        try:
            runs = {}
            for endpoint, tools in (("chat", chat_tools), ("responses", response_tools)):
                records = self.path("agent-%s.jsonl" % endpoint)
                r = bench("--base-url", sim.url, "--endpoint", endpoint, "--turns", "3", "--requests", "6",
                          "--input-tokens", "20", "--output-tokens", "8", "--records", records,
                          "--extra-body", json.dumps({"tools": tools, "tool_choice": "required"}))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                runs[endpoint] = read_jsonl(records)
            metrics = sim.metrics()
        finally:
            sim.close()
        for endpoint, records in runs.items():
            by_conversation = {}
            for rec in records:
                self.assertEqual(rec["status"], "ok", (endpoint, rec))
                self.assertTrue(rec["called_tool"], (endpoint, rec))
                # The calls sent back are prompt text: the client counts what the server reads.
                self.assertEqual(rec["usage"]["prompt_tokens"], rec["requested_input_tokens"], endpoint)
                by_conversation.setdefault(rec["conversation"], []).append(rec)
            self.assertEqual(len(by_conversation), 2, endpoint)
            for turns in by_conversation.values():
                turns.sort(key=lambda rec: rec["turn"])
                # Each call is its name (1 word) and arguments {"query":" w0 ... w7"} (9 words);
                # its result is the next turn's 20 words.
                self.assertEqual([rec["requested_input_tokens"] for rec in turns], [20, 50, 80], endpoint)
        self.assertGreater(metrics["vllm:prefix_cache_hits_total"], 0)

    def test_with_tool_choice_auto_the_simulator_calls_the_tool_for_its_share_of_prompts(self):
        # An agent given tools and left to choose: some answers call the tool and go back as
        # calls and results, the others as text, and the benchmark counts which were which.
        tools = [{"type": "function", "function": {"name": "search", "parameters": {"properties": {"query": {}}}}}]
        sim = Sim("--speedup", "20", "--tool-call-share", "0.5")
        try:
            records = self.path("auto.jsonl")
            summary = self.path("auto.json")
            r = bench("--base-url", sim.url, "--turns", "2", "--requests", "40", "--concurrency", "4",
                      "--input-tokens", "20", "--output-tokens", "8", "--records", records, "--json", summary,
                      "--extra-body", json.dumps({"tools": tools, "tool_choice": "auto"}))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        recs = read_jsonl(records)
        called = [rec for rec in recs if rec.get("called_tool")]
        self.assertEqual(len(recs), 40)
        self.assertTrue(8 <= len(called) <= 32, len(called))
        with open(summary) as f:
            self.assertEqual(json.load(f)["summary"]["tool_call_answers"], len(called))
        self.assertIn("%d of 40 answers called a tool" % len(called), r.stdout)
        for rec in recs:
            self.assertEqual(rec["status"], "ok", rec)
            self.assertEqual(rec["usage"]["prompt_tokens"], rec["requested_input_tokens"], rec)
        # A second turn follows a call with 30 more words (the call and its result), text with 28.
        first_turns = {rec["conversation"]: rec for rec in recs if rec["turn"] == 0}
        for rec in recs:
            if rec["turn"] == 1:
                before = first_turns[rec["conversation"]]
                added = 30 if before.get("called_tool") else before["usage"]["completion_tokens"] + 20
                self.assertEqual(rec["requested_input_tokens"], 20 + added, (before, rec))

    def test_a_mix_of_models_is_measured_whole_and_one_model_at_a_time(self):
        # Two models behind one endpoint, a large slow one and a small fast one, asked 3 to 1:
        # the run's figures, then each model's over its own requests, in the table, the JSON and
        # the records; workers merge each model's figures as they merge the run's.
        sim = Sim("--profile", "llama-3.3-70b:fp8@h100x2", "--profile", "qwen2.5-7b:int4@rtx4090", "--speedup", "20")
        mix = "llama-3.3-70b=3,qwen2.5-7b=1"
        try:
            r = bench("--base-url", sim.url, "--model", mix, "--requests", "80", "--concurrency", "8",
                      "--input-tokens", "100", "--output-tokens", "20", "--json", self.path("mix.json"),
                      "--records", self.path("mix.jsonl"))
            workers = bench("--base-url", sim.url, "--model", mix, "--requests", "80", "--concurrency", "8",
                            "--input-tokens", "100", "--output-tokens", "20", "--workers", "2",
                            "--json", self.path("workers.json"))
            wrong = bench("--base-url", sim.url, "--model", "llama-3.3-70b=3,qwen2.5-7b=none", "--requests", "1")
            one = bench("--base-url", sim.url, "--model", "qwen2.5-7b=2", "--requests", "2", "--output-tokens", "3")
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("infergate bench: llama-3.3-70b (75%) + qwen2.5-7b (25%) at", r.stdout)
        self.assertIn("by model", r.stdout)
        doc = read_json(self.path("mix.json"))
        self.assertEqual(doc["config"]["model_mix"], [{"model": "llama-3.3-70b", "weight": 3.0},
                                                      {"model": "qwen2.5-7b", "weight": 1.0}])
        by_model = doc["by_model"]
        self.assertEqual(list(by_model), ["llama-3.3-70b", "qwen2.5-7b"])
        large, small = by_model["llama-3.3-70b"], by_model["qwen2.5-7b"]
        self.assertEqual(large["completed"] + small["completed"], 80)
        self.assertTrue(45 <= large["completed"] <= 72, large["completed"])
        self.assertEqual(large["output_tokens"] + small["output_tokens"], doc["summary"]["output_tokens"])
        # The 70B model reads ten times the weights per token: each model's own TPOT shows it.
        self.assertGreater(large["tpot_ms"]["p50"], small["tpot_ms"]["p50"])
        counts = {}
        for rec in read_jsonl(self.path("mix.jsonl")):
            counts[rec["model"]] = counts.get(rec["model"], 0) + 1
            self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(counts, {"llama-3.3-70b": large["completed"], "qwen2.5-7b": small["completed"]})

        self.assertEqual(workers.returncode, 0, workers.stdout + workers.stderr)
        self.assertIn("by model", workers.stdout)
        merged = read_json(self.path("workers.json"))
        self.assertEqual(sum(m["completed"] for m in merged["by_model"].values()), 80)
        self.assertEqual(merged["summary"]["completed"], 80)

        self.assertNotEqual(wrong.returncode, 0)
        self.assertIn("'none' is no weight", wrong.stderr)
        # Held to one SLO, each model over its own requests: the 70B model's tokens come at over
        # 10 ms (at speedup 2), the 7B's near 4, so a 7 ms TPOT p50 breaks one and not the other.
        slow = Sim("--profile", "llama-3.3-70b:fp8@h100x2", "--profile", "qwen2.5-7b:int4@rtx4090", "--speedup", "2")
        try:
            held = bench("--base-url", slow.url, "--model", mix, "--requests", "16", "--concurrency", "4",
                         "--input-tokens", "32", "--output-tokens", "8", "--slo", "tpot_p50=7ms",
                         "--json", self.path("slo.json"))
            split = bench("--base-url", slow.url, "--model", mix, "--requests", "16", "--concurrency", "4",
                          "--input-tokens", "32", "--output-tokens", "8", "--slo", "tpot_p50=7ms", "--workers", "2",
                          "--json", self.path("slo-workers.json"))
        finally:
            slow.close()
        self.assertEqual(held.returncode, 0, held.stdout + held.stderr)
        self.assertIn("good req/s  SLOs", held.stdout)
        self.assertRegex(held.stdout, r"qwen2\.5-7b .* met\n")
        self.assertRegex(held.stdout, r"llama-3\.3-70b .* broken: tpot_p50 [0-9.]+ms > 7ms\n")
        goodputs = {name: m["goodput"] for name, m in read_json(self.path("slo.json"))["by_model"].items()}
        self.assertFalse(goodputs["llama-3.3-70b"]["met"])
        self.assertTrue(goodputs["qwen2.5-7b"]["met"])
        self.assertEqual(goodputs["llama-3.3-70b"]["good_requests"], 0)
        # Split over two workers, the goodputs are pooled: the run's and each model's.
        self.assertEqual(split.returncode, 0, split.stdout + split.stderr)
        self.assertRegex(split.stdout, r"llama-3\.3-70b .* broken: tpot_p50 [0-9.]+ms > 7ms\n")
        self.assertIn("goodput ", split.stdout)
        merged = read_json(self.path("slo-workers.json"))
        own = {name: m["goodput"] for name, m in merged["by_model"].items()}
        self.assertFalse(own["llama-3.3-70b"]["met"])
        self.assertTrue(own["qwen2.5-7b"]["met"])
        self.assertEqual(merged["goodput"]["good_requests"],
                         own["qwen2.5-7b"]["good_requests"] + own["llama-3.3-70b"]["good_requests"])
        # One model with a weight is that model alone: its name is asked for, with no breakdown.
        self.assertEqual(one.returncode, 0, one.stdout + one.stderr)
        self.assertIn("infergate bench: qwen2.5-7b at", one.stdout)
        self.assertNotIn("by model", one.stdout)
        # Refused before anything is sent: the port has no server.
        for options, says in ((["--target", "x=http://127.0.0.1:9"], "leave out --target"),
                              (["--base-url", "http://127.0.0.1:9", "--model-profile", "llama-3.1-8b:fp8",
                                "--hardware", "h100"], "leave out --model-profile")):
            r = bench("--model", mix, "--requests", "1", *options)
            self.assertNotEqual(r.returncode, 0, options)
            self.assertIn(says, r.stderr)

    def test_the_built_in_simulator_serves_a_model_for_each_sim_profile(self):
        # Without --base-url, a mix is served by the simulator in the process: one model for each
        # --sim profile, each on its own hardware; a model none of them serves is refused up front.
        small, large = "qwen2.5-7b:int4@rtx4090", "llama-3.1-8b:bf16@h100"
        r = bench("--sim", small, "--sim", large, "--sim-speedup", "20", "--model", "qwen2.5-7b=1,llama-3.1-8b=1",
                  "--requests", "24", "--concurrency", "4", "--input-tokens", "50", "--output-tokens", "8",
                  "--json", self.path("mix.json"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("(simulator %s + %s)" % (small, large), r.stdout)
        doc = read_json(self.path("mix.json"))
        self.assertEqual(doc["config"]["simulator"], "%s + %s" % (small, large))
        self.assertEqual(doc["summary"]["completed"], 24)
        self.assertEqual(sorted(doc["by_model"]), ["llama-3.1-8b", "qwen2.5-7b"])
        self.assertEqual(sum(m["completed"] for m in doc["by_model"].values()), 24)
        # One of the served models alone: its roofline is its own profile's.
        one = bench("--sim", small, "--sim", large, "--sim-speedup", "20", "--model", "llama-3.1-8b",
                    "--requests", "2", "--output-tokens", "4", "--json", self.path("one.json"))
        self.assertEqual(one.returncode, 0, one.stdout + one.stderr)
        self.assertEqual(read_json(self.path("one.json"))["config"]["roofline"]["profile"],
                         "%s at 20x speed" % large)
        for model, says in (("llama-3.1-8b", "add --sim llama-3.1-8b:bf16@h200"),
                            ("no-such-model", "the simulator's catalog has no such model")):
            refused = bench("--model", model, "--requests", "1")
            self.assertNotEqual(refused.returncode, 0, model)
            self.assertIn("--model %s: the built-in simulator serves gemma-4-31b (--sim gemma-4-31b:bf16@h200)"
                          % model, refused.stderr)
            self.assertIn(says, refused.stderr)

    def test_fitted_prompts_are_the_length_asked_in_the_servers_own_tokens(self):
        # A server whose tokenizer splits words and whose template adds tokens: without the fit
        # the prompts it counts are longer than asked; with it, within a few percent.
        fake = FakeUpstream()
        try:
            runs = {}
            for fitted in (False, True):
                records = self.path("fit-%s.jsonl" % fitted)
                r = bench("--base-url", fake.url + "/tokens", "--requests", "12", "--input-tokens", "400",
                          "--output-tokens", "4", "--records", records, "--json", self.path("fit-%s.json" % fitted),
                          *(["--fit-input-tokens"] if fitted else []))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                runs[fitted] = (r, read_jsonl(records), read_json(self.path("fit-%s.json" % fitted)))
            fitted_run = bench("--base-url", fake.url + "/tokens", "--requests", "4", "--turns", "2",
                               "--input-tokens", "200", "--output-tokens", "4", "--fit-input-tokens",
                               "--records", self.path("fit-turns.jsonl"))
            silent = bench("--base-url", fake.url + "/ok", "--requests", "1", "--fit-input-tokens")
        finally:
            fake.close()
        plain = [rec["usage"]["prompt_tokens"] for rec in runs[False][1]]
        self.assertGreater(statistics.mean(plain), 400 * 1.2)  # words are not its tokens
        out, records, doc = runs[True]
        fit = doc["config"]["input_fit"]
        self.assertGreater(fit["tokens_per_word"], 1.1)
        self.assertAlmostEqual(fit["template_tokens"], 15, delta=0.5)  # 11 a request and 4 a message
        self.assertIn("prompts in the server's tokens", out.stdout)
        counted = [rec["usage"]["prompt_tokens"] for rec in records]
        for rec in records:
            # The fit's count of the words drawn: 400 within half a word.
            self.assertLessEqual(abs(rec["requested_input_tokens"] - 400), fit["tokens_per_word"] / 2 + 0.5)
            self.assertLess(abs(rec["usage"]["prompt_tokens"] - 400), 400 * 0.08, rec)
        self.assertLess(abs(statistics.mean(counted) - 400), 400 * 0.03, counted)
        self.assertIsNone(runs[False][2]["config"]["input_fit"])
        # Later turns carry the history: what the fit requests follows the server's count.
        self.assertEqual(fitted_run.returncode, 0, fitted_run.stdout + fitted_run.stderr)
        for rec in read_jsonl(self.path("fit-turns.jsonl")):
            self.assertLess(abs(rec["usage"]["prompt_tokens"] - rec["requested_input_tokens"]),
                            rec["requested_input_tokens"] * 0.08, rec)
        # A server whose answers report no prompt tokens cannot be fitted: said before the run.
        self.assertNotEqual(silent.returncode, 0)
        self.assertIn("--fit-input-tokens", silent.stderr)

    def test_a_mixs_models_are_each_fitted_to_their_own_count(self):
        # Two models behind one server, each with its own tokenizer and template: each is probed
        # and its prompts drawn in its own count, so both are the length asked.
        fake = FakeUpstream()
        try:
            records = self.path("mixfit.jsonl")
            r = bench("--base-url", fake.url + "/tokens", "--model", "fake=1,fake-wide=1", "--requests", "16",
                      "--input-tokens", "300", "--output-tokens", "4", "--fit-input-tokens", "--records", records,
                      "--json", self.path("mixfit.json"))
        finally:
            fake.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("prompts in each model's tokens: fake ", r.stdout)
        fits = read_json(self.path("mixfit.json"))["config"]["input_fit"]["by_model"]
        self.assertAlmostEqual(fits["fake"]["template_tokens"], 15, delta=0.5)  # 11 a request, 4 a message
        self.assertAlmostEqual(fits["fake-wide"]["template_tokens"], 34, delta=0.5)  # 30 and 4
        self.assertGreater(fits["fake-wide"]["tokens_per_word"], fits["fake"]["tokens_per_word"] * 1.2)
        recs = read_jsonl(records)
        self.assertEqual({rec["model"] for rec in recs}, {"fake", "fake-wide"})
        for rec in recs:
            self.assertLess(abs(rec["usage"]["prompt_tokens"] - 300), 300 * 0.08, rec)

    def test_sharegpt_file_sizes_prompts_and_answers_from_the_conversations(self):
        path = self.path("sharegpt.json")
        with open(path, "w") as f:
            json.dump([{"id": str(i), "conversations": [
                {"from": "human", "value": " ".join(["word"] * (10 + i))},
                {"from": "gpt", "value": " ".join(["reply"] * (3 + i))},
                {"from": "human", "value": "and then"},
                {"from": "gpt", "value": "the end"}]} for i in range(4)], f)
        sim = Sim("--speedup", "20")
        try:
            r = bench("--base-url", sim.url, "--prompts", path, "--requests", "4", "--json", self.path("s.json"),
                      "--records", self.path("r.jsonl"))
            multi = bench("--base-url", sim.url, "--prompts", path, "--turns", "8", "--requests", "8", "--records",
                          self.path("m.jsonl"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        for rec in read_jsonl(self.path("r.jsonl")):
            i = rec["index"]
            self.assertEqual(rec["usage"]["prompt_tokens"], 10 + i)
            self.assertEqual(rec["usage"]["completion_tokens"], 3 + i)
        self.assertEqual(multi.returncode, 0, multi.stderr)
        turns = sorted((rec["conversation"], rec["turn"]) for rec in read_jsonl(self.path("m.jsonl")))
        self.assertEqual(turns, [(c, t) for c in range(4) for t in range(2)])  # each conversation has two

    def test_server_metrics_put_the_servers_queue_and_kv_cache_on_the_time_axis(self):
        sim = Sim("--speedup", "5", "--max-num-seqs", "4")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "8", "--requests", "40", "--input-tokens", "64",
                      "--output-tokens", "48", "--server-metrics", sim.url + "/metrics", "--json",
                      self.path("s.json"))
            split = bench("--base-url", sim.url, "--concurrency", "8", "--requests", "40", "--input-tokens", "64",
                          "--output-tokens", "48", "--server-metrics", sim.url + "/metrics", "--workers", "2",
                          "--json", self.path("w.json"))
            swept = bench("--base-url", sim.url, "--sweep", "concurrency=4,8", "--requests", "32",
                          "--input-tokens", "64", "--output-tokens", "24", "--server-metrics", sim.url + "/metrics",
                          "--json", self.path("sweep.json"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        server = read_json(self.path("s.json"))["timeseries"]["server"]
        self.assertGreaterEqual(len(server["t_s"]), 2)
        self.assertEqual(server["t_s"], sorted(server["t_s"]))
        # Eight streams on four slots: four run, the rest wait.
        self.assertEqual(max(server["running"]), 4)
        self.assertGreaterEqual(max(server["waiting"]), 1)
        self.assertGreater(max(server["kv_cache_usage"]), 0)
        self.assertIn("server        peaks over", r.stdout)
        # Split over workers, the parent reads the server once for all of them, on the merged axis.
        self.assertEqual(split.returncode, 0, split.stderr)
        self.assertIn("server        peaks over", split.stdout)
        merged = read_json(self.path("w.json"))["timeseries"]
        self.assertEqual(max(merged["server"]["running"]), 4)  # the two workers' eight streams
        self.assertGreaterEqual(max(merged["server"]["waiting"]), 1)
        self.assertGreater(merged["server"]["t_s"][0], -2)
        self.assertLess(merged["server"]["t_s"][-1], merged["t_s"][-1] + 2)
        # A sweep reads the server at each level: four streams fit the four slots, eight queue.
        self.assertEqual(swept.returncode, 0, swept.stderr)
        self.assertIn("server at concurrency 8: peaks over", swept.stdout)
        four, eight = (p["server"] for p in read_json(self.path("sweep.json"))["sweep"]["points"])
        self.assertEqual(max(eight["running"]), 4)
        self.assertGreaterEqual(max(eight["waiting"]), 2)
        self.assertLess(max(four["waiting"]), max(eight["waiting"]))

    def test_roofline_context_bounds_what_the_simulator_reaches(self):
        r = bench("--sim-speedup", "10", "--concurrency", "1", "--requests", "12", "--input-tokens", "128",
                  "--output-tokens", "32", "--json", self.path("s.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("s.json"))
        roofline = doc["config"]["roofline"]
        self.assertEqual(roofline["profile"], "gemma-4-31b:bf16@h200 at 10x speed")
        stream = 1000 / doc["summary"]["tpot_ms"]["p50"]
        # No stream decodes faster than weights can be read; the simulator runs near its calibrated rate.
        self.assertLess(stream, roofline["ideal_decode_tok_s_per_stream"])
        self.assertAlmostEqual(stream / roofline["decode_tok_s_per_stream"], 1, delta=0.25)
        self.assertIn("roofline      gemma-4-31b:bf16@h200 at 10x speed", r.stdout)
        half = bench("--sim-speedup", "10", "--requests", "2", "--model-profile", "llama-3.1-8b:fp8")
        self.assertEqual(half.returncode, 2)
        self.assertIn("--model-profile and --hardware go together", half.stderr)

    def test_a_rate_beyond_what_the_client_can_send_is_flagged_as_client_bound(self):
        # 2000 requests due within 2 ms: the client cannot open connections that fast, so they go
        # out late and the run says the client, not the server, set its figures.
        r = bench("--sim-speedup", "100", "--sim-max-num-seqs", "1024", "--rate", "1000000", "--requests", "2000",
                  "--input-tokens", "16", "--output-tokens", "2", "--json", self.path("s.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        client = read_json(self.path("s.json"))["summary"]["client"]
        self.assertTrue(client["bound"], client)
        self.assertIn("requests went out late", client["reason"])
        self.assertGreater(client["scheduling_lag_p99_ms"], 1)
        self.assertIn("THE BOTTLENECK", r.stdout)
        self.assertIn("describe the client, not the server", r.stdout)

    def test_open_loop_keeps_its_schedule(self):
        sim = Sim("--speedup", "50", "--profile", "qwen2.5-7b:fp8@h100")
        try:
            r = bench("--base-url", sim.url, "--rate", "100", "--arrival", "constant", "--requests", "40",
                      "--input-tokens", "32", "--output-tokens", "8", "--records", self.path("r.jsonl"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        dues = sorted(rec["due_ns"] for rec in read_jsonl(self.path("r.jsonl")))
        gaps = [(b - a) / 1e6 for a, b in zip(dues, dues[1:])]
        self.assertEqual(len(gaps), 39)
        for gap in gaps:
            self.assertAlmostEqual(gap, 10.0, delta=0.01)

    def ttft_p50(self, max_num_seqs):
        sim = Sim("--speedup", "20", "--max-num-seqs", str(max_num_seqs))
        try:
            r = bench("--base-url", sim.url, "--concurrency", "8", "--requests", "24", "--input-tokens", "32",
                      "--output-tokens", "16", "--json", self.path("s.json"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        return read_json(self.path("s.json"))["summary"]["ttft_ms"]["p50"]

    def test_queueing_beyond_max_num_seqs_raises_ttft(self):
        # 8 streams on 2 slots: each new request waits for about three others to finish.
        self.assertGreater(self.ttft_p50(2), 5 * self.ttft_p50(8))

    def test_non_streamed_and_completions_endpoint(self):
        sim = Sim("--speedup", "50")
        try:
            whole = bench("--base-url", sim.url, "--no-stream", "--requests", "4", "--output-tokens", "5",
                          "--json", self.path("a.json"))
            plain = bench("--base-url", sim.url, "--endpoint", "completions", "--requests", "4",
                          "--output-tokens", "5", "--json", self.path("b.json"))
        finally:
            sim.close()
        self.assertEqual(whole.returncode, 0, whole.stderr)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(read_json(self.path("a.json"))["summary"]["output_tokens"], 20)
        self.assertEqual(read_json(self.path("b.json"))["summary"]["output_tokens"], 20)

    def test_the_responses_api_measured_directly_and_through_the_gateway(self):
        sim = Sim("--speedup", "20")
        gateway = Gateway("--upstream", sim.url)
        try:
            streamed = bench("--base-url", sim.url, "--endpoint", "responses", "--concurrency", "4", "--requests",
                             "24", "--input-tokens", "32", "--output-tokens", "12", "--trace", "--records",
                             self.path("r.jsonl"), "--json", self.path("s.json"))
            whole = bench("--base-url", gateway.url, "--endpoint", "responses", "--no-stream", "--requests", "4",
                          "--output-tokens", "5", "--json", self.path("w.json"))
            turns = bench("--base-url", gateway.url, "--endpoint", "responses", "--turns", "2", "--requests", "4",
                          "--input-tokens", "10", "--output-tokens", "6", "--records", self.path("t.jsonl"))
            through = gateway.metrics(labelled=True)
        finally:
            gateway.close()
            sim.close()
        for r in (streamed, whole, turns):
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        s = read_json(self.path("s.json"))["summary"]
        self.assertEqual((s["completed"], s["failed"]), (24, 0))
        self.assertEqual(s["output_tokens"], 24 * 12)
        self.assertEqual(s["prompt_tokens"], 24 * 32)
        self.assertEqual(s["token_source"], "usage")
        for rec in read_jsonl(self.path("r.jsonl")):
            self.assertEqual(rec["text_events"], 12)  # one delta per token, none of the other events
            self.assertGreaterEqual(rec["first_token_ns"], rec["server_trace"]["first_token_ns"])
        self.assertEqual(read_json(self.path("w.json"))["summary"]["output_tokens"], 20)
        for rec in read_jsonl(self.path("t.jsonl")):
            # The second turn sent the first one's answer back as an input item.
            self.assertEqual(rec["usage"]["prompt_tokens"], rec["requested_input_tokens"])
            self.assertEqual(rec["requested_input_tokens"], 10 if rec["turn"] == 0 else 10 + 6 + 10)
        # The gateway read each answer's usage: 4 whole answers of 5 tokens, 4 streamed turns of 6.
        self.assertEqual(through['infergate_tokens_total{direction="out",model="gemma-4-31b"}'], 4 * 5 + 4 * 6)

    def test_a_server_that_ignores_ignore_eos_is_named_by_a_warning(self):
        sim = Sim("--speedup", "50", "--fault-no-ignore-eos")
        try:
            forced = bench("--base-url", sim.url, "--requests", "6", "--output-tokens", "2000", "--json",
                           self.path("f.json"))
            natural = bench("--base-url", sim.url, "--requests", "6", "--output-tokens", "2000", "--no-ignore-eos")
        finally:
            sim.close()
        self.assertEqual(forced.returncode, 0, forced.stderr)
        s = read_json(self.path("f.json"))["summary"]
        self.assertEqual(s["requested_output_tokens"], 6 * 2000)
        self.assertLess(s["output_tokens"], 6 * 2000)  # each stops where the model would (16 to 1024 tokens)
        self.assertEqual(s["other_output_lengths"], 6)
        self.assertIn("6 of 6 answers were not the output length asked", forced.stdout)
        self.assertIn("vs 12000 requested", forced.stdout)
        compared = subprocess.run([BIN, "report", self.path("f.json"), "--markdown", self.path("f.md"), "--html",
                                   self.path("f.html")],
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(compared.returncode, 0, compared.stderr)
        self.assertIn("WARNING gemma-4-31b: 6 of 6 answers were not the output length asked", compared.stdout)
        with open(self.path("f.md")) as f:
            self.assertIn("**Warning**: gemma-4-31b: 6 of 6 answers", f.read())
        with open(self.path("f.html")) as f:
            self.assertIn("Warning: gemma-4-31b: 6 of 6 answers", f.read())
        self.assertEqual(natural.returncode, 0, natural.stderr)
        # Asked for no exact length, none is missed. (A slow sanitized client may still be warned of.)
        self.assertNotIn("not the output length asked", natural.stdout)

    def test_tokens_per_chunk_groups_tokens_and_itl_shares_each_gap(self):
        sim = Sim("--speedup", "20", "--tokens-per-chunk", "4")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "4", "--requests", "8", "--output-tokens", "24",
                      "--json", self.path("s.json"), "--records", self.path("r.jsonl"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        s = read_json(self.path("s.json"))["summary"]
        self.assertEqual(s["output_tokens"], 8 * 24)
        self.assertEqual(s["text_events"], 8 * 6)
        self.assertEqual(s["itl_ms"]["count"], 8 * 5 * 4)  # 5 gaps per request, 4 tokens each
        for rec in read_jsonl(self.path("r.jsonl")):
            self.assertEqual((rec["text_events"], rec["usage"]["completion_tokens"]), (6, 24))

    def test_a_long_non_streamed_answer_is_read_whole(self):
        # 20,000 tokens of text is well over 64 KiB: the body must not be cut at an error-body limit.
        sim = Sim("--speedup", "2000", "--profile", "llama-3.1-8b:fp8@h100")
        try:
            r = bench("--base-url", sim.url, "--no-stream", "--requests", "1", "--input-tokens", "8",
                      "--output-tokens", "20000", "--json", self.path("s.json"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(read_json(self.path("s.json"))["summary"]["output_tokens"], 20000)

    def test_embeddings_are_measured_as_whole_answers_of_input_tokens(self):
        r = bench("--endpoint", "embeddings", "--requests", "20", "--concurrency", "4", "--input-tokens", "256",
                  "--sim-speedup", "20", "--price", "in=0.02", "--hourly-cost", "3.6", "--json", self.path("e.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("input 256 tokens to embed", r.stdout)
        self.assertIn("input tok/s", r.stdout)
        self.assertNotIn("TPOT", r.stdout)
        doc = read_json(self.path("e.json"))
        s = doc["summary"]
        self.assertEqual((s["completed"], s["failed"], s["output_tokens"], s["prompt_tokens"]), (20, 0, 0, 20 * 256))
        self.assertEqual(s["ttft_ms"]["p50"], s["e2e_ms"]["p50"])  # the whole answer comes at once
        self.assertGreater(s["total_tokens_per_s"], 0)
        self.assertEqual((doc["config"]["endpoint"], doc["config"]["output_tokens"]), ("embeddings", None))
        # Billed by what they take in: per million input tokens, by price and by the hour.
        cost = doc["cost"]
        self.assertAlmostEqual(cost["per_million_input_tokens_by_tokens"], 0.02)
        self.assertIsNone(cost["per_million_output_tokens_by_tokens"])
        steady = doc.get("steady_state")
        rate = steady["summary"]["total_tokens_per_s"] if steady else s["total_tokens_per_s"]
        self.assertAlmostEqual(cost["input_tokens_per_s"], rate)
        self.assertAlmostEqual(cost["per_million_input_tokens_by_hour"], 3.6 / (rate * 3600) * 1e6)
        self.assertIn("per million input tokens at $3.6/h", r.stdout)
        reported = subprocess.run([BIN, "report", self.path("e.json")], capture_output=True, text=True, timeout=60)
        self.assertEqual(reported.returncode, 0, reported.stderr)
        self.assertIn("input tok/s", reported.stdout)
        self.assertNotIn("TPOT", reported.stdout)
        swept = bench("--endpoint", "embeddings", "--sweep", "concurrency=1,2", "--requests", "6", "--input-tokens",
                      "128", "--sim-speedup", "50", "--hourly-cost", "2")
        self.assertEqual(swept.returncode, 0, swept.stderr)
        self.assertIn(" in tok/s ", swept.stdout)
        self.assertIn("$/M in", swept.stdout)
        self.assertNotIn("TPOT p50", swept.stdout)
        repeated = bench("--endpoint", "embeddings", "--runs", "2", "--requests", "8", "--concurrency", "2",
                         "--input-tokens", "64", "--sim-speedup", "50", "--json", self.path("er.json"))
        self.assertEqual(repeated.returncode, 0, repeated.stderr)
        self.assertIn("input tok/s (steady", repeated.stdout)
        self.assertNotIn("TPOT", repeated.stdout)
        figures = read_json(self.path("er.json"))["runs"]["figures"]
        self.assertGreater(figures["input_tokens_per_s"]["mean"], 0)
        self.assertIn("steady_input_tokens_per_s", figures)
        self.assertFalse({"output_tokens_per_s", "tpot_ms_p50", "itl_ms_p50"} & figures.keys())
        good = bench("--endpoint", "embeddings", "--requests", "10", "--input-tokens", "64", "--sim-speedup", "50",
                     "--slo", "e2e_p99=10s", "--json", self.path("eg.json"))
        self.assertEqual(good.returncode, 0, good.stderr)
        self.assertRegex(good.stdout, r"goodput +[0-9.]+ req/s +[0-9.]+ input tok/s +100.0% of requests met")
        goodput = read_json(self.path("eg.json"))["goodput"]
        self.assertTrue(goodput["met"])
        self.assertGreater(goodput["input_tokens_per_s"], 0)
        no_tpot = bench("--endpoint", "embeddings", "--requests", "1", "--slo", "ttft_p99=1s,tpot_p99=50ms")
        self.assertNotEqual(no_tpot.returncode, 0)
        self.assertIn("--slo tpot_p99=50ms: embeddings generate nothing, so there is no TPOT", no_tpot.stderr)
        batched = bench("--endpoint", "embeddings", "--batch", "4", "--requests", "10", "--concurrency", "2",
                        "--input-tokens", "32", "--sim-speedup", "50", "--json", self.path("eb.json"))
        self.assertEqual(batched.returncode, 0, batched.stderr)
        self.assertIn("input 32 tokens to embed, 4 texts a request", batched.stdout)
        doc = read_json(self.path("eb.json"))
        self.assertEqual((doc["summary"]["completed"], doc["summary"]["prompt_tokens"], doc["config"]["batch"]),
                         (10, 10 * 4 * 32, 4))
        not_embeddings = bench("--batch", "2", "--requests", "1")
        self.assertNotEqual(not_embeddings.returncode, 0)
        self.assertIn("--batch sends several texts to embed in one request", not_embeddings.stderr)
        refused = bench("--endpoint", "embeddings", "--output-tokens", "5", "--requests", "1")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("--output-tokens applies to generating endpoints", refused.stderr)

    def test_a_trace_is_replayed_at_its_own_times(self):
        trace = self.path("trace.jsonl")
        stamps = [5000 + 100 * i for i in range(10)] + [7000, 7050]  # a pause, then two close together
        with open(trace, "w") as f:
            for i, ms in enumerate(reversed(stamps)):  # out of order: sent in the order of the times
                f.write(json.dumps({"timestamp": ms, "input_length": 40, "output_length": 3, "hash_ids": [i % 2]}) + "\n")
        for threads in ("1", "2"):  # two senders deal the trace out between them, each request at its time
            r = bench("--replay", trace, "--replay-speed", "2", "--sim-speedup", "20", "--threads", threads,
                      "--json", self.path("r.json"), "--records", self.path("r.jsonl"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("replayed at 2x speed, the requests of trace.jsonl", r.stdout)
            doc = read_json(self.path("r.json"))
            self.assertEqual((doc["summary"]["completed"], doc["summary"]["output_tokens"]), (12, 36))
            self.assertEqual((doc["config"]["load"], doc["config"]["replay_speed"]), ("replay", 2))
            with open(self.path("r.jsonl")) as f:
                records = sorted((json.loads(line) for line in f), key=lambda rec: rec["index"])
            self.assertEqual([rec["index"] for rec in records], list(range(12)))
            due_ms = [(rec["due_ns"] - records[0]["due_ns"]) / 1e6 for rec in records]
            for due, ms in zip(due_ms, stamps):
                self.assertAlmostEqual(due, (ms - stamps[0]) / 2, delta=0.5)
        for option in (("--rate", "5"), ("--concurrency", "4"), ("--prompts", trace), ("--workers", "2")):
            refused = bench("--replay", trace, *option)
            self.assertNotEqual(refused.returncode, 0, option)
        too_many = bench("--replay", trace, "--requests", "13")
        self.assertIn("trace.jsonl holds 12 requests; replay them all or fewer", too_many.stderr)
        # How much faster than traced the endpoint keeps up: swept, and searched against an SLO.
        swept = bench("--replay", trace, "--sweep", "speed=1,4", "--sim-speedup", "20", "--json", self.path("s.json"))
        self.assertEqual(swept.returncode, 0, swept.stderr)
        self.assertIn("sweep over speed", swept.stdout)
        self.assertEqual([p["level"] for p in read_json(self.path("s.json"))["sweep"]["points"]], [1, 4])
        searched = bench("--replay", trace, "--find-max-load", "--slo", "e2e_p99=10s", "--max-load-ceiling", "8",
                         "--sim-speedup", "20", "--json", self.path("m.json"))
        self.assertEqual(searched.returncode, 0, searched.stderr)
        self.assertIn("search for the highest replay speed meeting every SLO", searched.stdout)
        found = read_json(self.path("m.json"))["max_load"]
        self.assertEqual((found["kind"], found["speed"]), ("speed", 8))
        for args, why in ((("--replay", trace, "--sweep", "rate=1,2"), "swept by its speed"),
                          (("--sweep", "speed=1,2"), "apply to --replay")):
            refused = bench(*args)
            self.assertNotEqual(refused.returncode, 0)
            self.assertIn(why, refused.stderr)

    def test_embedded_simulator_is_the_default_target(self):
        r = bench("--requests", "4", "--sim-speedup", "50", "--output-tokens", "4", "--json", self.path("s.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("s.json"))
        self.assertEqual(doc["config"]["simulator"], "gemma-4-31b:bf16@h200")
        self.assertEqual(doc["summary"]["completed"], 4)

    def test_json_to_standard_output_leaves_it_the_document_alone(self):
        r = bench("--requests", "3", "--sim-speedup", "50", "--output-tokens", "4", "--json", "-", cwd=self.tmp.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["summary"]["completed"], 3)  # nothing else on it
        self.assertIn("TTFT", r.stderr)  # the table, for people
        self.assertFalse(os.path.exists(self.path("-")))

    def test_records_to_standard_output_are_its_lines(self):
        r = bench("--requests", "3", "--sim-speedup", "50", "--output-tokens", "4", "--records", "-",
                  "--json", self.path("s.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(json.loads(line)["index"] for line in r.stdout.splitlines()), [0, 1, 2])
        self.assertEqual(read_json(self.path("s.json"))["summary"]["completed"], 3)

    def test_more_percentiles_are_columns_of_the_table_and_figures_of_the_json(self):
        r = bench("--requests", "40", "--concurrency", "4", "--sim-speedup", "50", "--output-tokens", "6",
                  "--percentiles", "p99.9,25,99", "--json", self.path("s.json"), "--records", self.path("r.jsonl"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"ms +mean +p25 +p50 +p90 +p95 +p99 +p99\.9 +max\n")
        doc = read_json(self.path("s.json"))
        self.assertEqual(doc["config"]["percentiles"], [25, 99.9])
        ttft = doc["summary"]["ttft_ms"]
        # numpy's default (linear) percentile of the recorded TTFTs.
        values = sorted((rec["first_token_ns"] - rec["due_ns"]) / 1e6 for rec in read_jsonl(self.path("r.jsonl")))
        for p in (25, 99.9):
            rank = p / 100 * (len(values) - 1)
            low = int(rank)
            high = min(low + 1, len(values) - 1)
            expected = values[low] + (values[high] - values[low]) * (rank - low)
            self.assertAlmostEqual(ttft["p%g" % p], expected, delta=0.01 + 0.001 * expected)
        self.assertLessEqual(ttft["p99"], ttft["p99.9"])
        self.assertLessEqual(ttft["p99.9"], ttft["max"])

    def test_workers_pool_the_more_percentiles_too(self):
        r = bench("--requests", "40", "--concurrency", "4", "--sim-speedup", "50", "--output-tokens", "6",
                  "--workers", "2", "--percentiles", "99.9", "--json", self.path("s.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"p99 +p99\.9 +max\n")
        e2e = read_json(self.path("s.json"))["summary"]["e2e_ms"]
        self.assertLessEqual(e2e["p99"], e2e["p99.9"])
        self.assertLessEqual(e2e["p99.9"], e2e["max"])

    def test_a_list_that_is_not_of_percentiles_is_refused_before_anything_runs(self):
        r = bench("--requests", "3", "--sim-speedup", "50", "--percentiles", "99.9,999")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("percentile 999 is outside 0 to 100", r.stderr)

    def test_two_outputs_to_standard_output_are_refused(self):
        r = bench("--requests", "3", "--sim-speedup", "50", "--json", "-", "--csv", "-")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--json - and --csv - both ask for standard output", r.stderr)


class BenchFailures(unittest.TestCase):
    def test_unreachable_url(self):
        r = bench("--base-url", "http://127.0.0.1:%d" % free_port(), "--requests", "1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("connection refused", r.stderr)

    def test_an_output_path_that_cannot_be_written_stops_the_run_before_it_starts(self):
        sim = Sim("--speedup", "50")
        try:
            folder = tempfile.mkdtemp()
            for option, path, reason in (("--json", "/nonexistent/s.json", "its folder '/nonexistent' does not exist"),
                                         ("--records", folder, "it is a folder")):
                r = bench("--base-url", sim.url, "--requests", "4", "--output-tokens", "3", option, path)
                self.assertEqual(r.returncode, 2, r.stdout)
                self.assertIn("%s '%s' cannot be written: %s" % (option, path, reason), r.stderr)
            self.assertEqual(sim.metrics().get("vllm:request_success_total", 0), 0)  # nothing was run, nor lost
        finally:
            sim.close()

    def test_an_option_that_would_change_nothing_is_refused_naming_what_it_needs(self):
        for args, message in (
                (("--rate", "5", "--concurrency", "4"), "an open loop (--rate, --find-max-load, --sweep rate=...) caps "
                                                        "them with --max-concurrency"),
                (("--max-concurrency", "4",), "--max-concurrency applies to an open loop"),
                (("--sweep", "concurrency=1,2", "--arrival", "constant"), "--arrival applies to an open loop"),
                (("--think-time", "1",), "give --turns 2 or more"),
                (("--prefix-tokens", "64",), "give --prefix-groups N too"),
                (("--rounds", "4",), "give --target"),
                (("--knee-gain", "0.2",), "--knee-gain applies to --sweep"),
                (("--sweep", "concurrency=1,2", "--sweep-max", "8"), "--sweep-max applies to --sweep auto"),
                (("--max-load-ceiling", "50",), "--max-load-ceiling applies to --find-max-load"),
                (("--fit-input-tokens", "--prompts", os.path.abspath(__file__)), "a --prompts file's text goes as written"),
                (("--runs", "2", "--sweep", "concurrency=1,2"), "--runs repeats one load; --sweep measures"),
                (("--workers", "2", "--slo", "ttft=1s"), "--slo: 'ttft=1s' is not METRIC_pN=DURATION"),
                (("--target", "a=http://127.0.0.1:9", "--price", "in=x"), "--price: 'in=x' is not in=USD"),
                (("--target", "a=http://127.0.0.1:9", "--server-metrics", "http://127.0.0.1:9/metrics"),
                 "leave out --base-url, --find-max-load, --runs, --workers and --server-metrics")):
            r = bench("--sim-speedup", "50", "--requests", "2", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr, args)
            self.assertEqual(r.stdout, "", args)  # refused before anything ran

    def test_an_endpoints_url_given_as_the_base_url_names_the_base(self):
        r = bench("--base-url", "http://127.0.0.1:%d/v1/chat/completions" % free_port(), "--requests", "1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the chat/completions endpoint's URL; give the API's base URL: http://127.0.0.1:", r.stderr)

    def test_wrong_or_missing_api_key_and_the_right_one(self):
        sim = Sim("--speedup", "50", "--api-key", "sekrit")
        try:
            missing = bench("--base-url", sim.url, "--requests", "1", "--api-key", "")
            wrong = bench("--base-url", sim.url, "--requests", "1", "--api-key", "nope")
            right = bench("--base-url", sim.url, "--requests", "2", "--api-key", "sekrit", "--output-tokens", "3")
        finally:
            sim.close()
        for r in (missing, wrong):
            self.assertEqual(r.returncode, 2)
            self.assertIn("rejected the API key (401)", r.stderr)
            self.assertIn("OPENAI_API_KEY", r.stderr)
        self.assertEqual(right.returncode, 0, right.stderr)

    def test_unknown_model_fails_every_request_with_the_servers_message(self):
        sim = Sim("--speedup", "50")
        try:
            r = bench("--base-url", sim.url, "--model", "no-such-model", "--requests", "3")
        finally:
            sim.close()
        self.assertEqual(r.returncode, 1)
        self.assertIn("3 x http_404", r.stdout)
        self.assertIn("does not exist", r.stdout)

    def test_extra_body_and_headers_go_with_every_request_and_their_values_stay_out_of_the_json(self):
        fake = FakeUpstream()
        summary = os.path.join(tempfile.mkdtemp(), "s.json")
        try:
            r = bench("--base-url", fake.url + "/echo", "--requests", "3", "--timeout", "10", "--output-tokens", "4",
                      "--extra-body", '{"temperature":0.25,"chat_template_kwargs":{"enable_thinking":false}}',
                      "--header", "api-key: sk-hidden", "--header", "User-Agent: mine/1", "--json", summary)
            requests = list(fake.server.requests)
        finally:
            fake.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        posts = [q for q in requests if q[0] == "POST"]
        gets = [q for q in requests if q[0] == "GET"]
        self.assertEqual(len(posts), 3)
        self.assertEqual([q[1] for q in gets], ["/echo/v1/models"])
        for _, _, headers, body in posts:
            self.assertEqual(body["temperature"], 0.25)
            self.assertEqual(body["chat_template_kwargs"], {"enable_thinking": False})
            self.assertEqual(body["max_tokens"], 4)  # the benchmark's own members stay
        for _, _, headers, _ in posts + gets:
            self.assertIn(("api-key", "sk-hidden"), headers)
            self.assertEqual([v for k, v in headers if k.lower() == "user-agent"], ["mine/1"])
        config = read_json(summary)["config"]
        self.assertEqual(config["extra_body"], {"temperature": 0.25, "chat_template_kwargs": {"enable_thinking": False}})
        self.assertEqual(config["headers"], ["api-key", "User-Agent"])
        with open(summary) as f:
            self.assertNotIn("sk-hidden", f.read())

    def test_extra_body_reaches_the_server_which_checks_it(self):
        sim = Sim("--speedup", "50")
        try:
            wrong = bench("--base-url", sim.url, "--requests", "2", "--output-tokens", "3",
                          "--extra-body", '{"temperature":"hot"}')
            right = bench("--base-url", sim.url, "--requests", "2", "--output-tokens", "3",
                          "--extra-body", '{"temperature":0.7,"top_p":0.9,"seed":3}')
        finally:
            sim.close()
        self.assertEqual(wrong.returncode, 1)
        self.assertIn("2 x http_400", wrong.stdout)
        self.assertIn("temperature", wrong.stdout)
        self.assertEqual(right.returncode, 0, right.stdout + right.stderr)

    def test_extra_body_and_headers_the_benchmark_sets_are_refused_before_anything_is_sent(self):
        fake = FakeUpstream()
        try:
            runs = [bench("--base-url", fake.url + "/echo", "--requests", "1", "--timeout", "10", *option)
                    for option in (("--extra-body", '{"max_tokens":9}'), ("--extra-body", "[1]"),
                                   ("--header", "Authorization: Bearer sk-hidden"), ("--header", "X-A: b\r\nX-B: c"))]
            requests = list(fake.server.requests)
        finally:
            fake.close()
        self.assertEqual(requests, [])
        for r in runs:
            self.assertNotEqual(r.returncode, 0)
            self.assertNotIn("sk-hidden", r.stderr)
        self.assertIn('"max_tokens" is set by --output-tokens', runs[0].stderr)
        self.assertIn("expected a JSON object", runs[1].stderr)
        self.assertIn("Authorization is set from --api-key", runs[2].stderr)
        self.assertIn("control character", runs[3].stderr)

    def test_an_embeddings_batch_answered_with_fewer_vectors_fails_as_malformed(self):
        fake = FakeUpstream()
        try:
            r = bench("--base-url", fake.url + "/embed", "--endpoint", "embeddings", "--batch", "3", "--requests", "2",
                      "--timeout", "10")
        finally:
            fake.close()
        self.assertEqual(r.returncode, 1)
        self.assertIn("2 x malformed_response", r.stdout)
        self.assertIn("the answer holds 1 embeddings for the 3 inputs sent", r.stdout)

    def test_an_answer_that_is_only_a_tool_call_is_measured(self):
        # An agent's turn: no content at all, a function's name and then its arguments in pieces.
        fake = FakeUpstream()
        summary = os.path.join(tempfile.mkdtemp(), "tools.json")
        try:
            r = bench("--base-url", fake.url + "/tools", "--requests", "3", "--timeout", "10", "--output-tokens", "12",
                      "--json", summary)
        finally:
            fake.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        s = read_json(summary)["summary"]
        self.assertEqual((s["completed"], s["failed"], s["output_tokens"], s["text_events"]), (3, 0, 36, 12))
        self.assertEqual(s["tool_call_answers"], 3)
        self.assertIn("3 of 3 answers called a tool", r.stdout)
        self.assertGreater(s["tpot_ms"]["count"], 0)

    def run_against_fake(self, mode):
        fake = FakeUpstream()
        try:
            return bench("--base-url", fake.url + "/" + mode, "--requests", "2", "--timeout", "10")
        finally:
            fake.close()

    def test_a_server_that_refuses_ignore_eos_names_the_option_that_drops_it(self):
        fake = FakeUpstream()
        try:
            refused = bench("--base-url", fake.url + "/strict", "--requests", "2", "--timeout", "10")
            taken = bench("--base-url", fake.url + "/strict", "--requests", "2", "--timeout", "10", "--no-ignore-eos")
        finally:
            fake.close()
        self.assertEqual(refused.returncode, 1)
        self.assertIn("2 x http_400", refused.stdout)
        self.assertIn("Unrecognized request argument supplied: ignore_eos. This server does not take ignore_eos and "
                      "min_tokens: pass --no-ignore-eos", refused.stdout)
        self.assertEqual(taken.returncode, 0, taken.stdout + taken.stderr)

    def test_non_sse_reply(self):
        r = self.run_against_fake("nonsse")
        self.assertEqual(r.returncode, 1)
        self.assertIn("2 x non_sse", r.stdout)
        self.assertIn("expected a text/event-stream reply", r.stdout)

    def test_malformed_chunk(self):
        r = self.run_against_fake("malformed")
        self.assertEqual(r.returncode, 1)
        self.assertIn("2 x malformed_stream", r.stdout)
        self.assertIn("not valid JSON", r.stdout)

    def test_an_event_that_never_ends(self):
        r = self.run_against_fake("endless")
        self.assertEqual(r.returncode, 1)
        self.assertIn("2 x malformed_stream", r.stdout)
        self.assertIn("event 3 passed 8388608 bytes without its end", r.stdout)

    def test_an_event_that_is_not_utf8_leaves_the_records_valid_json(self):
        fake = FakeUpstream()
        records = os.path.join(tempfile.mkdtemp(), "r.jsonl")
        try:
            r = bench("--base-url", fake.url + "/badbytes", "--requests", "2", "--timeout", "10", "--records", records)
        finally:
            fake.close()
        self.assertIn("2 x malformed_stream", r.stdout)
        with open(records, encoding="utf-8") as f:  # strictly: a line that is not UTF-8 fails the test
            errors = [json.loads(line)["error"] for line in f if line.strip()]
        self.assertEqual(len(errors), 2)
        self.assertIn("'{\ufffd\ufffd'", errors[0])

    def test_stream_cut_mid_way(self):
        r = self.run_against_fake("cut")
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stdout, r"2 x (connection_reset|stream_cut)")
        self.assertIn("after 2 text events", r.stdout)


class CommandLineSlips(unittest.TestCase):
    """A mistyped command or option is named with what the user most likely meant."""

    def run_cli(self, *args):
        return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=30)

    def test_a_mistyped_option_is_named_with_the_one_meant(self):
        r = self.run_cli("bench", "--concurency", "4", "--requets=5")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("infergate: --concurency: did you mean --concurrency?", r.stderr)
        self.assertIn("infergate: --requets: did you mean --requests?", r.stderr)

    def test_a_mistyped_command_is_named_with_the_one_meant(self):
        r = self.run_cli("serv", "--port", "0")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("infergate: 'serv' is not a command; did you mean 'serve'?", r.stderr)
        r = self.run_cli("keys", "lst")
        self.assertIn("infergate: 'lst' is not a command; did you mean 'keys list'?", r.stderr)

    def test_a_word_far_from_every_command_gets_the_list(self):
        r = self.run_cli("predict")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("infergate: 'predict' is not a command; the commands are sim, bench, demo, serve, roofline",
                      r.stderr)

    def test_a_number_out_of_range_is_refused_in_words(self):
        for args, message in ((("--requests", "0"), "--requests: must be greater than 0, got 0"),
                              (("--duration", "-2"), "--duration: must be greater than 0, got -2"),
                              (("--warmup", "-1"), "--warmup: must be 0 or more, got -1"),
                              (("--rate", "fast"), "--rate: must be a number, got 'fast'"),
                              (("--rate", "inf"), "--rate: must be a finite number, got 'inf'"),
                              (("--duration", "1e400"), "--duration: must be a finite number, got '1e400'"),
                              (("--output-tokens", "0"), "--output-tokens: invalid length '0': must be at least 1")):
            r = self.run_cli("bench", *args)
            self.assertNotEqual(r.returncode, 0, args)
            self.assertIn(message, r.stderr)
            self.assertLess(len(r.stderr), 400, r.stderr)  # no bound of 300 digits

    def test_an_option_nothing_like_any_gets_no_guess(self):
        r = self.run_cli("bench", "--zzzzzz")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--zzzzzz", r.stderr)
        self.assertNotIn("did you mean", r.stderr)


class BenchOverTls(unittest.TestCase):
    """HTTPS with a self-signed certificate for 127.0.0.1: refused by default, accepted when the
    certificate is in the trust store (SSL_CERT_FILE), or with --insecure."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.cert = os.path.join(cls.tmp.name, "cert.pem")
        cls.key = os.path.join(cls.tmp.name, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", cls.key, "-out",
                        cls.cert], check=True, capture_output=True)
        cls.fake = FakeUpstream(cls.cert, cls.key)

    @classmethod
    def tearDownClass(cls):
        cls.fake.close()
        cls.tmp.cleanup()

    def run_bench(self, *extra, env=None):
        return bench("--base-url", self.fake.url + "/ok", "--requests", "2", "--timeout", "10", *extra, env=env)

    def test_unknown_certificate_is_refused_with_advice(self):
        r = self.run_bench()
        self.assertEqual(r.returncode, 2)
        self.assertIn("TLS with https://127.0.0.1", r.stderr)
        self.assertIn("--insecure", r.stderr)

    def test_trusted_certificate_verifies_the_host(self):
        r = self.run_bench("--json", os.path.join(self.tmp.name, "s.json"), env={"SSL_CERT_FILE": self.cert})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(read_json(os.path.join(self.tmp.name, "s.json"))["summary"]["output_tokens"], 4)

    def test_insecure_skips_verification(self):
        r = self.run_bench("--insecure")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


class Sweeps(unittest.TestCase):
    """Knee and SLO search against the simulator, whose saturation point its batch limit fixes:
    with --sim-max-num-seqs 8 throughput cannot grow past 8 requests in flight."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def sweep(self, *args):
        # A level's run lasts a fraction of a second: at ten times real speed (not twenty), a pause of
        # the machine must last twice as long to look like a change of throughput between levels.
        out = os.path.join(self.tmp.name, "sweep.json")
        run = bench("--sim", "llama-3.1-8b:fp8@h100", "--sim-speedup", "10", "--sim-max-num-seqs", "8",
                    "--input-tokens", "64", "--output-tokens", "64", "--json", out, *args)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        return run.stdout, read_json(out)["sweep"]

    def test_the_knee_of_a_listed_sweep_is_within_one_step_of_the_batch_limit(self):
        records = os.path.join(self.tmp.name, "sweep.jsonl")
        text, sweep = self.sweep("--sweep", "concurrency=1,2,4,8,16,32,64", "--hourly-cost", "4", "--records", records)
        self.assertEqual([p["level"] for p in sweep["points"]], [1, 2, 4, 8, 16, 32, 64])
        levels = [rec["level"] for rec in read_jsonl(records)]
        self.assertEqual(levels, sorted(levels))  # level by level
        for p in sweep["points"]:
            self.assertEqual(levels.count(p["level"]), p["summary"]["completed"] + p["summary"]["failed"])
        for p in sweep["points"]:
            steady = p["steady_state"]
            self.assertEqual(steady["level"], p["level"])
            rate = steady["summary"]["output_tokens_per_s"]
            self.assertAlmostEqual(p["cost"]["per_million_output_tokens_by_hour"], 4 / (rate * 3600) * 1e6)
        cost = [p["cost"]["per_million_output_tokens_by_hour"] for p in sweep["points"]]
        self.assertLess(cost[3], cost[0] / 4)  # batching shares the hour over more tokens
        self.assertIn("$/M out", text)
        self.assertIn(sweep["knee"]["level"], (4, 8, 16), text)
        self.assertIn("<- knee", text)
        self.assertIn("knee: the last load before the first step up", text)
        throughput = [p["summary"]["output_tokens_per_s"] for p in sweep["points"]]
        self.assertGreater(throughput[3], 5 * throughput[0])  # 8 streams: about 8x one stream

    def test_auto_sweep_doubles_to_the_knee_then_fills_in_and_reports_goodput(self):
        text, sweep = self.sweep("--sweep", "auto", "--sweep-max", "128", "--slo", "ttft_p99=80ms,tpot_p99=10ms")
        levels = [p["level"] for p in sweep["points"]]
        self.assertEqual(levels[:4], [1, 2, 4, 8])
        # Within a factor of two of the batch limit, whichever levels the filling in has tried.
        self.assertTrue(4 <= sweep["knee"]["level"] <= 16, text)
        self.assertLessEqual(max(levels), 64)
        for p in sweep["points"]:
            g = p["goodput"]
            self.assertEqual(g["slos"], ["ttft_p99=80ms", "tpot_p99=10ms"])
            self.assertLessEqual(g["requests_per_s"], p["summary"]["requests_per_s"] + 1e-9)
        # Far past the batch limit the queue alone breaks the TTFT objective.
        deepest = sweep["points"][-1]
        if deepest["level"] >= 32:
            self.assertFalse(deepest["goodput"]["met"])


    def test_find_max_load_brackets_the_highest_rate_meeting_the_slos(self):
        out = os.path.join(self.tmp.name, "max.json")
        run = bench("--sim", "llama-3.1-8b:fp8@h100", "--sim-speedup", "20", "--sim-max-num-seqs", "8",
                    "--input-tokens", "64", "--output-tokens", "64", "--requests", "60", "--json", out,
                    "--find-max-load", "--rate", "20", "--slo", "ttft_p99=100ms",
                    "--records", os.path.join(self.tmp.name, "max.jsonl"))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        result = read_json(out)["max_load"]
        points = {p["level"]: p for p in result["points"]}
        # Every rate tried keeps its requests, each naming the rate it ran at.
        records = read_jsonl(os.path.join(self.tmp.name, "max.jsonl"))
        by_level = {}
        for rec in records:
            by_level.setdefault(rec["level"], []).append(rec)
        self.assertEqual(sorted(by_level), sorted(points))
        for level, recs in by_level.items():
            self.assertEqual(len(recs), points[level]["summary"]["completed"] + points[level]["summary"]["failed"])
        passing, failing = result["rate"], result["failing_rate"]
        self.assertGreaterEqual(passing, 20)  # far below what 8 slots serve: it must pass
        self.assertTrue(points[passing]["goodput"]["met"])
        self.assertFalse(points[failing]["goodput"]["met"])
        self.assertLess(passing, failing)
        self.assertLessEqual(failing / passing, 1.1 + 1e-9)
        self.assertIn("max load: %g req/s meets every SLO" % passing, run.stdout)


class SimServer(unittest.TestCase):
    def setUp(self):
        self.sim = Sim("--speedup", "10", "--max-body-bytes", "4096", "--header-timeout-ms", "300")

    def tearDown(self):
        self.sim.close()

    def chat(self, **extra):
        return {"model": "gemma-4-31b", "messages": [{"role": "user", "content": "hello there"}], **extra}

    def test_bad_input_gets_openai_errors_and_the_server_keeps_serving(self):
        status, body = self.sim.post("/v1/chat/completions", b"{nope")
        self.assertEqual(status, 400)
        self.assertIn("not valid JSON", body["error"]["message"])
        status, body = self.sim.post("/v1/chat/completions", self.chat(max_tokens="ten"))
        self.assertEqual((status, body["error"]["param"]), (400, "max_tokens"))
        status, body = self.sim.post("/v1/chat/completions", {"model": "gemma-4-31b"})
        self.assertEqual((status, body["error"]["param"]), (400, "messages"))
        status, body = self.sim.post("/v1/completions", {"model": "gemma-4-31b"})
        self.assertEqual((status, body["error"]["param"]), (400, "prompt"))
        status, body = self.sim.post("/v1/chat/completions", dict(self.chat(), model="gpt-x"))
        self.assertEqual((status, body["error"]["code"]), (404, "model_not_found"))
        status, body = self.sim.post("/v1/chat/completions", self.chat(padding="x" * 5000))
        self.assertEqual(status, 413)
        status, body = self.sim.post("/v1/chat/completions", self.chat(max_tokens=3))
        self.assertEqual(status, 200)
        self.assertEqual(body["usage"]["completion_tokens"], 3)
        self.assertEqual(body["choices"][0]["finish_reason"], "length")

    def test_slow_headers_get_408(self):
        with socket.create_connection(("127.0.0.1", self.sim.port)) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
            s.settimeout(5)
            reply = s.recv(4096)
        self.assertTrue(reply.startswith(b"HTTP/1.1 408"), reply)

    def test_min_tokens_and_natural_stop(self):
        status, free = self.sim.post("/v1/chat/completions", self.chat(max_tokens=4000))
        self.assertEqual(status, 200)
        natural = free["usage"]["completion_tokens"]
        self.assertEqual(free["choices"][0]["finish_reason"], "stop")
        self.assertLess(natural, 4000)
        status, forced = self.sim.post("/v1/chat/completions", self.chat(max_tokens=4000, min_tokens=natural + 5))
        self.assertEqual(forced["usage"]["completion_tokens"], natural + 5)
        status, exact = self.sim.post("/v1/chat/completions", self.chat(max_tokens=7, ignore_eos=True))
        self.assertEqual(exact["usage"]["completion_tokens"], 7)

    def test_client_disconnect_cancels_its_sequence(self):
        body = json.dumps(self.chat(max_tokens=5000, ignore_eos=True, stream=True)).encode()
        with socket.create_connection(("127.0.0.1", self.sim.port)) as s:
            s.sendall(raw_request(body))
            read_tokens(s, 3)
            self.assertEqual(self.sim.metrics()["vllm:num_requests_running"], 1)
        self.assertTrue(wait_for(lambda: self.sim.metrics()["vllm:request_aborted_total"] == 1))
        self.assertEqual(self.sim.metrics()["vllm:num_requests_running"], 0)


@unittest.skipIf(SANITIZED, "the sanitizers' runtime needs descriptors at the limit (processes.SANITIZED)")
class SimWithNobodyReadingItsLog(unittest.TestCase):
    def test_a_log_line_into_a_closed_pipe_does_not_end_the_simulator(self):
        # At its descriptor limit the simulator logs a failed accept; standard error is a pipe
        # whose reader has gone.
        sim = Sim(max_files=32)
        connections = []
        try:
            sim.proc.stderr.close()
            for _ in range(40):
                connections.append(socket.create_connection(("127.0.0.1", sim.port)))
            time.sleep(0.5)
            self.assertIsNone(sim.proc.poll())
            for c in connections:
                c.close()
            connections = []
            status, body = sim.post("/v1/chat/completions", {"model": "gemma-4-31b", "max_tokens": 2,
                                                            "messages": [{"role": "user", "content": "hi"}]})
            self.assertEqual((status, body["usage"]["completion_tokens"]), (200, 2))
        finally:
            for c in connections:
                c.close()
            sim.proc.terminate()
            sim.proc.wait(timeout=10)
            sim.proc.stdout.close()


if __name__ == "__main__":
    unittest.main()


class Demo(unittest.TestCase):
    """`infergate demo`, README's first command: the built-in simulator benchmarked level by level."""

    def test_prints_a_row_per_level_without_failures(self):
        out = subprocess.run([BIN, "demo", "--speedup", "50", "--levels", "1,4", "--output-tokens", "16"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [line.split() for line in out.stdout.splitlines()[2:]]
        self.assertEqual([(row[0], row[1], row[-1]) for row in rows], [("1", "4", "0"), ("4", "8", "0")], out.stdout)

    def test_says_why_requests_failed_and_exits_1_when_a_level_had_none_succeed(self):
        out = subprocess.run([BIN, "demo", "--speedup", "100", "--levels", "2", "--input-tokens", "1000000",
                              "--output-tokens", "4"], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("failures: 4 x http_400", out.stdout)
        self.assertEqual(out.stdout.count("maximum context length"), 1, out.stdout)  # one example of each message

    def test_ctrl_c_keeps_the_rows_measured_whole(self):
        proc = subprocess.Popen([BIN, "demo", "--speedup", "5", "--levels", "1,64", "--output-tokens", "16"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = [proc.stdout.readline() for _ in range(3)]  # the title, the header, level 1's row
        self.assertEqual(lines[2].split()[0], "1", lines)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(out, "")  # no row for the level cut short
        self.assertIn("infergate demo: interrupted by SIGINT: the results cover the levels above, measured whole; "
                      "requests in flight were dropped", err)


class BenchInterrupted(unittest.TestCase):
    """A run stopped by a signal writes what finished before it, says so, and exits 128 + the
    signal; requests in flight are dropped, not counted as failures."""

    def setUp(self):
        self.sim = Sim("--speedup", "20")
        self.addCleanup(self.sim.close)
        self.dir = tempfile.mkdtemp()

    def interrupt(self, *args, signal_number=2, after_successes=3):
        proc = subprocess.Popen([BIN, "bench", "--base-url", self.sim.url, "--output-tokens", "16", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        served = lambda: self.sim.metrics().get("vllm:request_success_total", 0) >= after_successes  # noqa: E731
        self.assertTrue(wait_for(served, 60))
        proc.send_signal(signal_number)
        start = time.monotonic()
        out, err = proc.communicate(timeout=60)
        self.assertLess(time.monotonic() - start, 10)  # stopped at once, not after the requests in flight
        return proc.returncode, out, err

    def test_a_single_run_writes_the_requests_that_finished(self):
        records, summary = os.path.join(self.dir, "r.jsonl"), os.path.join(self.dir, "s.json")
        code, out, err = self.interrupt("--requests", "100000", "--concurrency", "4", "--records", records,
                                        "--json", summary)
        self.assertEqual(code, 130, err)
        self.assertIn("interrupted by SIGINT", out)
        self.assertIn("requests in flight were dropped", err)
        document = read_json(summary)
        self.assertEqual(document["interrupted"], "SIGINT")
        lines = read_jsonl(records)
        self.assertGreaterEqual(len(lines), 1)
        self.assertLess(len(lines), 100000)
        self.assertEqual(document["summary"]["completed"] + document["summary"]["failed"], len(lines))
        self.assertEqual(document["summary"]["failed"], 0)  # those cut short by the stop are not failures

    def test_a_sweep_keeps_the_levels_measured_whole(self):
        summary = os.path.join(self.dir, "s.json")
        code, out, err = self.interrupt("--sweep", "concurrency=1,2", "--requests", "40", "--json", summary,
                                        signal_number=15, after_successes=42)
        self.assertEqual(code, 143, err)
        sweep = read_json(summary)["sweep"]
        self.assertEqual(sweep["interrupted"], "SIGTERM")
        self.assertEqual([point["level"] for point in sweep["points"]], [1])
        self.assertIn("level 2 was interrupted: left out", err)

    def test_workers_pass_the_stop_on_and_their_results_are_merged(self):
        records, summary = os.path.join(self.dir, "r.jsonl"), os.path.join(self.dir, "s.json")
        code, _, err = self.interrupt("--workers", "2", "--requests", "100000", "--concurrency", "4",
                                      "--records", records, "--json", summary)
        self.assertEqual(code, 130, err)
        document = read_json(summary)
        self.assertEqual(document["summary"]["completed"], len(read_jsonl(records)))
        self.assertGreaterEqual(document["summary"]["completed"], 1)
