# SPDX-License-Identifier: MIT
"""What a Result gained in 0.2: percentiles, distribution, the kernel's
counters, the trial log, and labels/params as exact pairs.

No kernel of this build fills a distribution or a trial log yet, so those
are read from a JSON report (format version 2) written here and loaded with
Report.parse(): the same C accessors serve a loaded result and a run's.
"""

import json
import math
import os
import tempfile
import unittest

import support
import embperf

PCTS = [(99.9, 35.0), (50.0, 11.875), (99.0, 20.125), (90.0, 15.5), (99.99, 61.0625)]
TRIALS = [(1e9, 0.125, False, 2000000000), (5e8, 0.0, True, 2000000123),
          (7.5e8, 1e-6, False, 1999999999)]
AWKWARD = 'my disk "q" back\\slash'


def _result(**extra):
    """A minimal result object of a version 2 report."""
    res = {"kernel": "test.trial", "metric": "latency", "unit": "us",
           "primary": "median", "value": 12.5, "better": "lower",
           "stats": {"n": 2, "min": 12.25, "max": 12.75, "mean": 12.5, "median": 12.5,
                     "stddev": 0.35},
           "samples": [12.25, 12.75]}
    res.update(extra)
    return res


def _report_text():
    """A version 2 report: a trial result with everything, and a plain one."""
    trial = _result(
        labels={"dev": "/mnt/" + AWKWARD, "op": "randread"},
        params={"dev": "/mnt/" + AWKWARD, "op": "randread", "depth": "4", "file": ""},
        distribution={"n": 1234567, "min": 0.75, "max": 80.25, "mean": 12.3456789},
        percentiles=[{"pct": p, "value": v} for p, v in PCTS],
        counters={"units": 1234567, "cycles": None, "xruns": 3, "short_writes": 0},
        trials={"config": "rate", "outcome": "loss",
                "rows": [{"config": c, "outcome": o, "pass": p, "duration_ns": d}
                         for c, o, p, d in TRIALS]})
    plain = _result(kernel="mem.bw", metric="bandwidth", unit="MB/s", better="higher",
                    labels={"op": "rd"})
    return json.dumps({"format": "embperf-report", "format_version": 2,
                       "results": [trial, plain]})


class ParsedCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with embperf.Report.parse(_report_text()) as report:
            cls.trial, cls.plain = report.results
            cls.text = report.render("text")


class TestPercentiles(ParsedCase):
    def test_percentile_reads_each_value(self):
        for pct, value in PCTS:
            self.assertEqual(self.trial.percentile(pct), value, pct)
        self.assertEqual(self.trial.percentile(99), 20.125, "an int pct works")

    def test_percentiles_dict_is_ascending(self):
        self.assertEqual(list(self.trial.percentiles.items()), sorted(PCTS))

    def test_absent_percentile_is_none(self):
        self.assertIsNone(self.trial.percentile(75))
        self.assertIsNone(self.plain.percentile(50), "no distribution")
        self.assertEqual(self.plain.percentiles, {})

    def test_bad_pct_is_refused(self):
        for bad in (0, -1, 100.5, float("nan")):
            with self.assertRaises(ValueError):
                self.trial.percentile(bad)

    def test_table_shows_them(self):
        self.assertIn("(min 0.75, p50 11.88, p90 15.50, p99 20.12, p99.9 35.00, "
                      "p99.99 61.06, max 80.25)", self.text)


class TestDistribution(ParsedCase):
    def test_fields(self):
        dist = self.trial.distribution
        self.assertIsInstance(dist, embperf.Distribution)
        self.assertEqual(dist, (1234567, 0.75, 80.25, 12.3456789))
        self.assertIsInstance(dist.n, int)

    def test_none_without_one(self):
        self.assertIsNone(self.plain.distribution)


class TestCounters(ParsedCase):
    def test_kernel_counters_follow_the_engine_counters(self):
        names = list(self.trial.counters)
        self.assertEqual(names[-2:], ["xruns", "short_writes"])
        self.assertEqual(self.trial.counters["xruns"], 3.0)
        self.assertEqual(self.trial.counters["short_writes"], 0.0)
        self.assertEqual(self.trial.counters["units"], 1234567.0)
        self.assertIsNone(self.trial.counters["cycles"], "unavailable")

    def test_plain_result_has_only_the_engine_counters(self):
        self.assertNotIn("xruns", self.plain.counters)
        self.assertIn("units", self.plain.counters)


class TestTrials(ParsedCase):
    def test_rows_in_order(self):
        log = self.trial.trials
        self.assertIsInstance(log, embperf.TrialLog)
        self.assertEqual((log.config_name, log.outcome_name), ("rate", "loss"))
        self.assertEqual([(r["config"], r["outcome"], r["pass"], r["duration_ns"])
                          for r in log], TRIALS)
        self.assertIs(log[1]["pass"], True)
        self.assertIsInstance(log[0]["duration_ns"], int)

    def test_empty_without_a_search(self):
        self.assertEqual(list(self.plain.trials), [])
        self.assertIsNone(self.plain.trials.config_name)


class TestPairs(ParsedCase):
    def test_labels_and_params_are_exact(self):
        self.assertEqual(self.trial.labels, {"dev": "/mnt/" + AWKWARD, "op": "randread"})
        self.assertEqual(self.trial.params["dev"], "/mnt/" + AWKWARD)
        self.assertEqual(self.trial.params["depth"], "4")
        self.assertEqual(self.trial.params["file"], "")

    def test_as_dict_is_plain(self):
        data = self.trial.as_dict()
        self.assertEqual(data["distribution"]["n"], 1234567)
        self.assertEqual(data["trials"]["rows"][1]["pass"], True)
        self.assertEqual(data["percentiles"][99.9], 35.0)
        json.dumps(data)  # serialisable as it is


class TestRunWithASpace(unittest.TestCase):
    KERNEL = "os.syscall"

    def test_string_parameter_with_a_space_survives_run_save_load(self):
        support.require_kernel(self, self.KERNEL)
        with tempfile.TemporaryDirectory(prefix="embperf test ") as tmp:
            folder = os.path.join(tmp, AWKWARD)
            os.mkdir(folder)
            params = support.quick_params(self.KERNEL, op="stat", tmpdir=folder)
            with embperf.Context() as ctx, embperf.Report(ctx) as report, \
                    embperf.Bench(self.KERNEL, ctx, **params) as bench:
                result = bench.run()[0]
                self.assertEqual(result.params["tmpdir"], folder)
                self.assertEqual(result.params["op"], "stat")
                report.add(bench, title="stat")
                path = os.path.join(folder, "report.json")
                report.save(path)
                with embperf.Report.load(path) as loaded:
                    self.assertEqual(loaded["stat"].params["tmpdir"], folder)
                    self.assertEqual(loaded.compare(report, 1000), 0)
                with open(path, encoding="utf-8") as f:
                    saved = json.load(f)
                self.assertEqual(saved["format_version"], 2)
                self.assertEqual(saved["results"][0]["params"]["tmpdir"], folder)
                self.assertFalse(math.isnan(result.value))


if __name__ == "__main__":
    unittest.main()


class TestFlags(unittest.TestCase):
    """Marks a result set on itself come through as names and a note."""

    def test_flags_and_note(self):
        note = "disturbed: its threads waited for a CPU 50 % of the time"
        text = json.dumps({"format": "embperf-report", "format_version": 2, "results": [
            _result(flags=["disturbed", "unstable", "from_a_later_version"], note=note),
            _result(metric="other")]})
        with embperf.Report.parse(text) as report:
            marked, plain = report.results
        self.assertEqual(marked.flags, {"disturbed", "unstable"})
        self.assertEqual(marked.note, note)
        self.assertEqual(plain.flags, frozenset())
        self.assertEqual(plain.note, "")
        self.assertEqual(marked.as_dict()["flags"], ["disturbed", "unstable"])
