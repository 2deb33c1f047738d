"""The HTML report rendered by a real browser (Debian's headless Chromium): every chart must lay out
data marks, and a screenshot is kept as a CI artifact."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from processes import BIN, Sim, WorkDirTest, bench

ARTIFACTS = os.environ.get("INFERGATE_ARTIFACTS", tempfile.gettempdir())
CHARTS = ("throughput-vs-load", "latency-vs-throughput", "ttft-cdf", "tpot-cdf", "itl-histogram", "in-flight",
          "tokens-per-second", "server-queue", "server-kv-cache")


def chromium(*args):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise AssertionError("Debian's chromium is not installed (scripts/install-deps.sh installs it)")
    return subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--hide-scrollbars", *args], capture_output=True, text=True, timeout=120)


class HtmlReportInChromium(WorkDirTest):
    def test_every_chart_draws_data_and_a_screenshot_is_kept(self):
        # The single run lasts a few seconds, so its time series has several points.
        for label, args in (("sweep", ("--sweep", "concurrency=1,2,4,8", "--sim-max-num-seqs", "4", "--requests",
                                       "32")),
                            ("single", ("--concurrency", "4", "--requests", "400"))):
            r = bench("--sim-speedup", "20", "--input-tokens", "64", "--output-tokens", "32", "--label", label,
                      "--json", self.path(label + ".json"), *args)
            self.assertEqual(r.returncode, 0, r.stderr)
        sim = Sim("--speedup", "20")
        try:
            r = bench("--base-url", sim.url, "--concurrency", "8", "--requests", "400", "--input-tokens", "64",
                      "--output-tokens", "32", "--label", "scraped", "--server-metrics", sim.url + "/metrics",
                      "--json", self.path("scraped.json"))
        finally:
            sim.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        html = self.path("report.html")
        r = subprocess.run([BIN, "report", self.path("sweep.json"), self.path("single.json"), self.path("scraped.json"),
                            "--html", html],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            page = f.read()
        self.assertNotRegex(page, r'(src|href)="https?:')  # self-contained

        dom = chromium("--dump-dom", "file://" + html)
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        drawn = dict(re.findall(r'data-chart="([a-z-]+)" data-drawn="(\d+)"', dom.stdout))
        self.assertEqual(sorted(drawn), sorted(CHARTS), dom.stdout[-2000:])
        for chart in CHARTS:
            self.assertGreater(int(drawn[chart]), 0, chart)

        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "report.png")
        if os.path.exists(shot):
            os.remove(shot)
        r = chromium("--window-size=1200,3600", "--screenshot=" + shot, "file://" + html)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        with open(shot, "rb") as f:
            png = f.read()
        self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertGreater(len(png), 50_000)

    def test_an_embeddings_report_draws_its_input_rates_and_no_decode_charts(self):
        for label, args in (("sweep", ("--sweep", "concurrency=1,4", "--requests", "40")),
                            ("single", ("--concurrency", "4", "--requests", "300"))):
            r = bench("--endpoint", "embeddings", "--sim-speedup", "5", "--input-tokens", "256", "--label", label,
                      "--json", self.path(label + ".json"), *args)
            self.assertEqual(r.returncode, 0, r.stderr)
        html = self.path("embeddings.html")
        r = subprocess.run([BIN, "report", self.path("sweep.json"), self.path("single.json"), "--html", html],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html) as f:
            page = f.read()
        self.assertIn("Input tokens per second over time", page)
        self.assertNotIn("TPOT", page)
        dom = chromium("--dump-dom", "file://" + html)
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        drawn = dict(re.findall(r'data-chart="([a-z-]+)" data-drawn="(\d+)"', dom.stdout))
        expected = ("throughput-vs-load", "latency-vs-throughput", "ttft-cdf", "in-flight", "tokens-per-second")
        self.assertEqual(sorted(drawn), sorted(expected), dom.stdout[-2000:])
        for chart in expected:
            self.assertGreater(int(drawn[chart]), 0, chart)
        os.makedirs(ARTIFACTS, exist_ok=True)
        r = chromium("--window-size=1200,2400", "--screenshot=" + os.path.join(ARTIFACTS, "report-embeddings.png"),
                     "file://" + html)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
