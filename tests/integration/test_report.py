"""infergate report: comparing saved runs, merging workers exactly, and the Markdown and CSV it writes."""
import copy
import csv
import json
import os
import random
import subprocess
import time
import unittest

from processes import BIN, Sim, WorkDirTest, bench, read_json


def report(*args):
    return subprocess.run([BIN, "report", *args], capture_output=True, text=True, timeout=120)


def numpy_percentile(values, p):
    """numpy's default (linear interpolation between closest ranks)."""
    s = sorted(values)
    rank = p / 100 * (len(s) - 1)
    lower = int(rank)
    upper = min(lower + 1, len(s) - 1)
    return s[lower] + (s[upper] - s[lower]) * (rank - lower)


class Report(WorkDirTest):
    def test_merged_workers_give_the_percentiles_of_their_pooled_requests(self):
        sim = Sim("--speedup", "20")
        try:
            workers = [subprocess.Popen([BIN, "bench", "--base-url", sim.url, "--concurrency", "4", "--requests", "80",
                                         "--input-tokens", "64", "--output-tokens", "16", "--seed", str(seed),
                                         "--json", self.path(f"w{seed}.json"), "--records",
                                         self.path(f"w{seed}.jsonl")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                       for seed in (1, 2)]
            for w in workers:
                _, err = w.communicate(timeout=120)
                self.assertEqual(w.returncode, 0, err)
        finally:
            sim.close()
        r = report(self.path("w1.json"), self.path("w2.json"), "--merge", self.path("merged.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        merged = read_json(self.path("merged.json"))
        s = merged["summary"]
        parts = [read_json(self.path(f"w{seed}.json"))["summary"] for seed in (1, 2)]
        self.assertEqual(s["completed"], 160)
        self.assertEqual(s["output_tokens"], 160 * 16)
        self.assertAlmostEqual(s["output_tokens_per_s"], sum(p["output_tokens_per_s"] for p in parts))
        self.assertEqual(merged["config"]["merged_from"], [self.path("w1.json"), self.path("w2.json")])
        ttft = []
        for seed in (1, 2):
            with open(self.path(f"w{seed}.jsonl")) as f:
                ttft += [json.loads(line)["ttft_ms"] for line in f]
        for p in (50, 90, 99):
            exact = numpy_percentile(ttft, p)
            self.assertAlmostEqual(s["ttft_ms"]["p%d" % p], exact, delta=0.01 * exact + 0.02)
        self.assertAlmostEqual(s["ttft_ms"]["max"], max(ttft), places=6)
        self.assertIn("merged 2 runs", r.stdout)

    def test_workers_end_when_their_parent_dies(self):
        # The parent serves the embedded simulator; a worker that kept the parent's listening socket
        # would wait for ever on connections nobody accepts.
        parent = subprocess.Popen([BIN, "bench", "--sim-speedup", "2", "--concurrency", "4", "--requests", "100000",
                                   "--workers", "2", "--json", self.path("gone.json")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        workers = []
        deadline = time.monotonic() + 20
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = subprocess.run(["pgrep", "-P", str(parent.pid)], capture_output=True, text=True).stdout.split()
        self.assertEqual(len(workers), 2)
        time.sleep(0.5)  # requests in flight
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 2  # the kernel kills them with it (PR_SET_PDEATHSIG)
        alive = workers
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [pid for pid in alive if os.path.exists("/proc/%s" % pid) and
                     open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"]
        for pid in alive:
            os.kill(int(pid), 9)
        self.assertEqual(alive, [], "workers still running 2 s after their parent died")

    def test_workers_and_threads_split_one_load_and_merge_exactly(self):
        r = bench("--sim-speedup", "20", "--concurrency", "4", "--requests", "60", "--input-tokens", "32",
                  "--output-tokens", "16", "--workers", "2", "--json", self.path("w.json"), "--records",
                  self.path("w.jsonl"), "--price", "in=0.5,out=2", "--slo", "ttft_p99=10s")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("w.json"))
        self.assertEqual(doc["config"]["workers"], 2)
        self.assertEqual(len(doc["config"]["merged_from"]), 2)
        self.assertEqual(doc["summary"]["completed"], 60)
        with open(self.path("w.jsonl")) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual(len(records), 60)
        self.assertEqual(len({rec["index"] for rec in records}), 60)  # no prompt sent twice
        ttft = [rec["ttft_ms"] for rec in records]
        exact = numpy_percentile(ttft, 99)
        self.assertAlmostEqual(doc["summary"]["ttft_ms"]["p99"], exact, delta=0.01 * exact + 0.02)
        self.assertIn("merged from 2 workers", r.stdout)
        # The workers' cost and goodput are the pooled run's, not dropped.
        prompts = sum(rec["usage"]["prompt_tokens"] for rec in records)
        outputs = sum(rec["usage"]["completion_tokens"] for rec in records)
        self.assertAlmostEqual(doc["cost"]["run_usd"], (0.5 * prompts + 2 * outputs) / 1e6, delta=1e-12)
        self.assertIn("this run, at $0.5/$2 per million in/out", r.stdout)
        self.assertEqual(doc["goodput"]["good_requests"], 60)
        self.assertTrue(doc["goodput"]["met"])
        self.assertIn("100.0% of requests met ttft_p99=10000ms", r.stdout)

        r = bench("--sim-speedup", "20", "--rate", "100", "--arrival", "constant", "--requests", "40",
                  "--input-tokens", "16", "--output-tokens", "4", "--threads", "2", "--records", self.path("t.jsonl"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("t.jsonl")) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual(len({rec["index"] for rec in records}), 40)
        dues = sorted(rec["due_ns"] for rec in records)
        for a, b in zip(dues, dues[1:]):  # two threads' schedules interleave into one
            self.assertAlmostEqual((b - a) / 1e6, 10.0, delta=0.01)

    def test_a_sweep_and_a_run_compare_and_round_trip_through_csv_and_markdown(self):
        runs = [("one", ["--concurrency", "2", "--requests", "40"]),
                ("sweep", ["--sweep", "concurrency=1,4", "--requests", "24"])]
        for label, args in runs:
            r = bench("--sim-speedup", "20", "--input-tokens", "32", "--output-tokens", "8", "--label", label,
                      "--json", self.path(label + ".json"), *args)
            self.assertEqual(r.returncode, 0, r.stderr)
        r = report(self.path("one.json"), self.path("sweep.json"), "--csv", self.path("r.csv"), "--markdown",
                   self.path("r.md"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ratios are to one", r.stdout)
        with open(self.path("r.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(row["label"], row["kind"], row["level"]) for row in rows],
                         [("one", "run", ""), ("sweep", "sweep", "1"), ("sweep", "sweep", "4")])
        one = read_json(self.path("one.json"))["summary"]
        sweep = read_json(self.path("sweep.json"))["sweep"]["points"]
        # Boost.JSON 1.81 reads a double back to within one unit in the last place, not always exactly.
        def same(a, b, what):
            self.assertAlmostEqual(a, b, delta=1e-14 * abs(b), msg=what)

        for row, summary in ((rows[0], one), (rows[1], sweep[0]["summary"]), (rows[2], sweep[1]["summary"])):
            self.assertEqual(int(row["completed"]), summary["completed"])
            same(float(row["output_tokens_per_s"]), summary["output_tokens_per_s"], "output_tokens_per_s")
            for metric in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
                for stat in ("mean", "p50", "p99", "max"):
                    same(float(row[f"{metric}_{stat}"]), summary[metric][stat], (metric, stat))
        with open(self.path("r.md")) as f:
            md = f.read()
        self.assertIn("| figure (95% interval) | one | sweep |", md)
        self.assertIn("### sweep: sweep by concurrency", md)
        ttft_row = next(line for line in md.splitlines() if line.startswith("| TTFT p50 (ms) |"))
        self.assertIn("%.2f" % one["ttft_ms"]["p50"], ttft_row)
        piped = report(self.path("one.json"), self.path("sweep.json"), "--markdown", "-")
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertEqual(piped.stdout, md)  # the document alone, the comparison table to standard error
        self.assertIn("ratios are to one", piped.stderr)

    def test_a_mixed_model_sweep_measures_each_model_at_each_level(self):
        # Two models of the built-in simulator, one ten times the other's weights, swept together:
        # each level's figures, then each model's, in the table, the JSON and the CSV.
        r = bench("--sim", "qwen2.5-7b:int4@rtx4090", "--sim", "llama-3.3-70b:fp8@h100x2", "--sim-speedup", "20",
                  "--model", "qwen2.5-7b=1,llama-3.3-70b=1", "--sweep", "concurrency=1,4", "--requests", "24",
                  "--input-tokens", "64", "--output-tokens", "16", "--label", "mix", "--json", self.path("mix.json"),
                  "--csv", self.path("mix.csv"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertLess(r.stdout.index("sweep over concurrency"), r.stdout.index("by model: qwen2.5-7b"))
        self.assertLess(r.stdout.index("by model: qwen2.5-7b"), r.stdout.index("by model: llama-3.3-70b"))
        sweep = read_json(self.path("mix.json"))["sweep"]
        points = sweep["points"]
        self.assertEqual([p["level"] for p in points], [1, 4])
        self.assertEqual(list(sweep["knee_by_model"]), ["qwen2.5-7b", "llama-3.3-70b"])  # each its own, or null
        self.assertEqual(r.stdout.count("no knee of its own") + r.stdout.count("  its knee at "), 2)
        for p in points:
            own = p["by_model"]
            self.assertEqual(list(own), ["qwen2.5-7b", "llama-3.3-70b"])
            self.assertEqual(sum(m["completed"] for m in own.values()), p["summary"]["completed"])
            self.assertEqual(sum(m["output_tokens"] for m in own.values()), p["summary"]["output_tokens"])
            self.assertGreater(own["llama-3.3-70b"]["tpot_ms"]["p50"], own["qwen2.5-7b"]["tpot_ms"]["p50"])
        with open(self.path("mix.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(row["level"], row["model"]) for row in rows],
                         [("1", ""), ("1", "qwen2.5-7b"), ("1", "llama-3.3-70b"),
                          ("4", ""), ("4", "qwen2.5-7b"), ("4", "llama-3.3-70b")])
        for row in rows:
            p = points[0 if row["level"] == "1" else 1]
            summary = p["by_model"][row["model"]] if row["model"] else p["summary"]
            self.assertEqual(int(row["completed"]), summary["completed"], row)
            self.assertAlmostEqual(float(row["tpot_ms_p50"]), summary["tpot_ms"]["p50"],
                                   delta=1e-12 * summary["tpot_ms"]["p50"])

    def test_bench_writes_markdown_and_csv_itself(self):
        r = bench("--sim-speedup", "20", "--requests", "20", "--label", "direct", "--markdown", self.path("b.md"),
                  "--csv", self.path("b.csv"), "--json", self.path("b.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("b.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(rows[0]["label"], "direct")
        self.assertEqual(int(rows[0]["completed"]), read_json(self.path("b.json"))["summary"]["completed"])
        with open(self.path("b.md")) as f:
            self.assertIn("| figure (95% interval) | direct |", f.read())

    def test_targets_side_by_side_are_interleaved_and_compared(self):
        fast = Sim("--speedup", "40", "--profile", "qwen2.5-7b:fp8@h100")
        slow = Sim("--speedup", "40", "--profile", "llama-3.3-70b:bf16@a100x4")
        try:
            r = bench("--target", "fast=" + fast.url,
                      "--target", "slow=" + slow.url + ",model=llama-3.3-70b,hourly_cost=2.5",
                      "--concurrency", "4", "--requests", "40", "--rounds", "4", "--input-tokens", "64",
                      "--output-tokens", "16", "--json", self.path("t.json"), "--html", self.path("t.html"),
                      "--price", "in=0.1,out=0.4", "--slo", "e2e_p99=60s")
        finally:
            fast.close()
            slow.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        order = [line.split(": ")[1] for line in r.stderr.splitlines() if line.startswith("round ")]
        self.assertEqual(order, ["fast", "slow", "slow", "fast", "fast", "slow", "slow", "fast"])
        doc = read_json(self.path("t.json"))
        self.assertEqual(doc["config"]["rounds"], 4)
        targets = {t["config"]["target"]: t for t in doc["targets"]}
        self.assertEqual(targets["slow"]["config"]["model"], "llama-3.3-70b")
        for t in targets.values():
            self.assertEqual(t["summary"]["completed"], 40)
        # The same prompts went to both.
        self.assertEqual(targets["fast"]["summary"]["requested_input_tokens"],
                         targets["slow"]["summary"]["requested_input_tokens"])
        self.assertGreater(targets["fast"]["summary"]["output_tokens_per_s"],
                           targets["slow"]["summary"]["output_tokens_per_s"])
        self.assertIn("ratios are to fast", r.stdout)
        # Each target billed at its prices (slow's own, by the hour) and held to the SLOs over all
        # its rounds; the comparison sets the two side by side.
        fast_cost, slow_cost = targets["fast"]["cost"], targets["slow"]["cost"]
        self.assertEqual((fast_cost["price_out_per_million"], fast_cost["hourly_usd"]), (0.4, None))
        self.assertEqual((slow_cost["price_out_per_million"], slow_cost["hourly_usd"]), (None, 2.5))
        fast_tokens = targets["fast"]["summary"]
        self.assertAlmostEqual(fast_cost["run_usd"],
                               (0.1 * fast_tokens["prompt_tokens"] + 0.4 * fast_tokens["output_tokens"]) / 1e6,
                               delta=1e-12)
        self.assertAlmostEqual(slow_cost["per_million_output_tokens_by_hour"],
                               2.5 / (targets["slow"]["summary"]["output_tokens_per_s"] * 3600) * 1e6,
                               delta=1e-9)
        for t in targets.values():
            self.assertEqual(t["goodput"]["good_requests"], 40)
        self.assertRegex(r.stdout, r"goodput req/s +[0-9.]+ +[0-9.]+ [0-9.]+x")
        self.assertRegex(r.stdout, r"\$ per M output tokens +[0-9.]+ +[0-9.]+ [0-9.]+x")
        self.assertIn("target slow\n  cost          $", r.stdout)
        again = report(self.path("t.json"))
        self.assertEqual(again.returncode, 0, again.stderr)
        header = again.stdout.splitlines()[0].split()
        self.assertEqual(header[-2:], ["fast", "slow"])
        with open(self.path("t.html")) as f:
            self.assertIn("infergate bench report: fast vs slow", f.read())

    def test_bad_inputs_get_a_message(self):
        with open(self.path("not.json"), "w") as f:
            f.write('{"schema": "something else"}')
        r = report(self.path("not.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not an infergate bench result", r.stderr)
        r = bench("--sim-speedup", "20", "--requests", "4", "--json", self.path("ok.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = report(self.path("ok.json"), "--label", "a,b")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--label gave 2 names for 1 results", r.stderr)
        # A damaged result names its file and field; a damaged steady state only costs its interval.
        r = bench("--sim-speedup", "20", "--requests", "6", "--sweep", "concurrency=1,2", "--output-tokens", "4",
                  "--json", self.path("sweep.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = read_json(self.path("sweep.json"))
        doc["sweep"]["points"][0]["level"] = "one"
        with open(self.path("level.json"), "w") as f:
            json.dump(doc, f)
        r = report(self.path("level.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("level.json: 'level' is missing or not a number", r.stderr)
        self.assertNotIn("boost", r.stderr)
        doc = read_json(self.path("ok.json"))
        self.assertIsNotNone(doc["steady_state"])  # one stream: all but its first request
        del doc["steady_state"]["start_s"]
        doc["timeseries"]["interval_s"] = 0
        with open(self.path("window.json"), "w") as f:
            json.dump(doc, f)
        r = report(self.path("window.json"), "--html", self.path("window.html"))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_damaged_results_get_a_message_never_a_crash_or_a_hang(self):
        # Each result's fields, one to three at a time, given values of the wrong type or out of range.
        sources = []
        for name, args in (("one", ("--requests", "20", "--concurrency", "2", "--output-tokens", "4")),
                           ("sweep", ("--requests", "6", "--sweep", "concurrency=1,2", "--output-tokens", "4")),
                           ("runs", ("--requests", "4", "--runs", "2", "--output-tokens", "4")),
                           ("embed", ("--requests", "20", "--concurrency", "2", "--endpoint", "embeddings"))):
            r = bench("--sim-speedup", "50", "--input-tokens", "16", "--json", self.path(name + ".json"), *args)
            self.assertEqual(r.returncode, 0, r.stderr)
            sources.append(read_json(self.path(name + ".json")))

        def paths(value, path=()):
            yield path
            items = value.items() if isinstance(value, dict) else enumerate(value[:3]) if isinstance(value, list) else ()
            for key, child in items:
                yield from paths(child, path + (key,))

        rng = random.Random(7)
        for n in range(120):
            doc = copy.deepcopy(rng.choice(sources))
            where = [p for p in paths(doc) if p]
            for _ in range(rng.randint(1, 3)):
                path = rng.choice(where)
                holder = doc
                try:
                    for key in path[:-1]:
                        holder = holder[key]
                    holder[path[-1]] = rng.choice([None, "x", -1, 0, 2.5, 1e308, -1e308, [], {}, True, [1, "a"]])
                except (KeyError, IndexError, TypeError):
                    pass  # an earlier change took this path away
            with open(self.path("damaged.json"), "w") as f:
                json.dump(doc, f)
            args = (["--merge", self.path("merged.json")] if n % 4 == 3 else
                    ["--html", self.path("d.html"), "--csv", self.path("d.csv"), "--markdown", self.path("d.md")])
            files = [self.path("damaged.json")] * (2 if n % 4 == 3 else 1)
            r = subprocess.run([BIN, "report", *files, *args], capture_output=True, text=True, timeout=20)
            self.assertIn(r.returncode, (0, 1, 2), f"mutation {n}: {r.stderr[-500:]}")
            self.assertNotIn("boost", r.stderr, f"mutation {n}")
            self.assertNotIn("out of range", r.stderr, f"mutation {n}")


if __name__ == "__main__":
    unittest.main()
