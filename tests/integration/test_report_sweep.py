"""infergate bench: two targets swept side by side, each with its own knee.

Run alone (RUN_SERIAL): the knee is where throughput stops rising, and other tests sharing two cores
with the two simulators would move it.
"""
import unittest

from processes import Sim, WorkDirTest, bench, read_json


class ReportSweep(WorkDirTest):
    def test_targets_sweep_side_by_side_each_with_its_knee(self):
        four = Sim("--speedup", "10", "--max-num-seqs", "4", "--profile", "llama-3.1-8b:fp8@h100")
        eight = Sim("--speedup", "10", "--max-num-seqs", "8", "--profile", "llama-3.1-8b:fp8@h100")
        try:
            r = bench("--target", "four=" + four.url, "--target", "eight=" + eight.url, "--sweep",
                      "concurrency=1,2,4,8,16,32", "--input-tokens", "64", "--output-tokens", "64", "--json",
                      self.path("s.json"), "--html", self.path("s.html"))
        finally:
            four.close()
            eight.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        order = [line for line in r.stderr.splitlines() if line.startswith("level ")]
        self.assertEqual(order[:4], ["level 1: four", "level 1: eight", "level 2: eight", "level 2: four"])
        targets = {t["config"]["target"]: t["sweep"] for t in read_json(self.path("s.json"))["targets"]}
        # Each saturates at its own batch limit: the knee lands within one step of it.
        for name in ("four", "eight"):
            self.assertIsNotNone(targets[name]["knee"], r.stdout)
        self.assertIn(targets["four"]["knee"]["level"], (2, 4, 8), r.stdout)
        self.assertIn(targets["eight"]["knee"]["level"], (4, 8, 16), r.stdout)
        peak = {name: max(p["summary"]["output_tokens_per_s"] for p in sweep["points"])
                for name, sweep in targets.items()}
        self.assertGreater(peak["eight"], 1.5 * peak["four"])
        self.assertIn("at each target's knee", r.stdout)
        with open(self.path("s.html")) as f:
            page = f.read()
        self.assertIn('data-chart="throughput-vs-load"', page)
        self.assertEqual(page.count(">knee</text>"), 4)  # ringed on both charts for both targets


if __name__ == "__main__":
    unittest.main()
