# SPDX-License-Identifier: MIT
"""Report: add, render, save/load round trip, find, compare."""

import csv
import errno
import io
import json
import os
import tempfile
import unittest

import support
import embperf

KERNEL = "mem.lat"
# Baseline values are made this much better than measured to force a regression.
DOCTOR_FACTOR = 10.0
_STAT_KEYS = ("value", "min", "max", "mean", "median")


def _doctor(node, factor_for):
    """Scale every figure of every result in a parsed JSON report.

    A result is a JSON object naming its "kernel" and "metric";
    factor_for(result_object) gives the factor. Return how many results
    were changed.
    """
    changed = 0
    if isinstance(node, list):
        for item in node:
            changed += _doctor(item, factor_for)
    elif isinstance(node, dict):
        if "kernel" in node and "metric" in node:
            factor = factor_for(node)
            _scale(node, factor)
            return 1
        for item in node.values():
            changed += _doctor(item, factor_for)
    return changed


def _scale(obj, factor):
    for key, value in list(obj.items()):
        if key in _STAT_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
            obj[key] = value * factor
        elif key == "samples" and isinstance(value, list):
            obj[key] = [v * factor for v in value]
        elif key == "stats" and isinstance(value, dict):
            _scale(value, factor)


class ReportCase(unittest.TestCase):
    """Runs the kernel once for the class and keeps a report of it."""

    @classmethod
    def setUpClass(cls):
        if KERNEL not in embperf.kernels():
            raise unittest.SkipTest("libembperf lacks kernel %s" % KERNEL)
        cls.tmp = tempfile.TemporaryDirectory(prefix="embperf-test-")
        cls.ctx = embperf.Context()
        cls.report = embperf.Report(cls.ctx)
        params = support.quick_params(KERNEL, **support.small_size_params(KERNEL))
        with embperf.Bench(KERNEL, cls.ctx, **params) as bench:
            bench.run()
            cls.added = cls.report.add(bench)
            cls.run_results = bench.results

    @classmethod
    def tearDownClass(cls):
        cls.report.close()
        cls.ctx.close()
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)


class TestContent(ReportCase):
    def test_add_counts(self):
        self.assertEqual(self.added, len(self.run_results))
        self.assertEqual(len(self.report), self.added)

    def test_iteration_and_indexing(self):
        results = list(self.report)
        self.assertEqual(len(results), len(self.report))
        self.assertEqual([r.key for r in results], [r.key for r in self.report.results])
        self.assertEqual(self.report[0].key, results[0].key)
        self.assertEqual(self.report[-1].key, results[-1].key)
        with self.assertRaises(IndexError):
            self.report[len(results)]
        for got, ran in zip(results, self.run_results):
            self.assertEqual(got.samples, ran.samples)
            self.assertEqual(got.value, ran.value)

    def test_find(self):
        first = self.report[0]
        found = self.report.find(first.key)
        self.assertIsNotNone(found)
        self.assertEqual(found.key, first.key)
        self.assertEqual(self.report[first.key].value, first.value)
        self.assertIsNone(self.report.find("no/such[key]"))
        with self.assertRaises(KeyError):
            self.report["no/such[key]"]

    def test_titles(self):
        with embperf.Report(self.ctx) as report:
            params = support.quick_params(KERNEL, **support.small_size_params(KERNEL))
            with embperf.Bench(KERNEL, self.ctx, **params) as bench:
                bench.run()
                n = report.add(bench, title="t-{metric}")
                with self.assertRaises(embperf.ParameterError) as cm:
                    report.add(bench, title="x-{no_such_label}")
                self.assertEqual(cm.exception.param, "title")
            self.assertEqual(n, len(report))
            for result in report:
                self.assertEqual(result.title, "t-" + result.metric)
                self.assertEqual(result.key, result.title)
                self.assertEqual(report.find(result.title).value, result.value)

    def test_sysinfo_recorded(self):
        self.assertEqual(self.report.sysinfo("library_version"), embperf.version())
        self.assertIsNone(self.report.sysinfo("no_such_key"))

    def test_add_needs_a_bench(self):
        with self.assertRaises(TypeError):
            self.report.add("mem.lat")

    def test_merge_copies_every_result_with_its_title(self):
        with embperf.Report(self.ctx) as merged:
            self.assertEqual(merged.merge(self.report), len(self.report))
            self.assertEqual(merged.merge(self.report), len(self.report))
            self.assertEqual(len(merged), 2 * len(self.report))
            for got, src in zip(merged, list(self.report) * 2):
                self.assertEqual(got.key, src.key)
                self.assertEqual(got.samples, src.samples)
        with self.assertRaises(TypeError):
            self.report.merge("a.json")

    def test_set_sysinfo_round_trips_through_json(self):
        with embperf.Report(self.ctx) as report:
            report.merge(self.report)
            report.set_sysinfo("board", "AM62Px SK\nrev E1")
            with self.assertRaises(embperf.ParameterError):
                report.set_sysinfo("bad key", "x")
            path = self.path("sysinfo.json")
            report.save(path, "json")
        with embperf.Report.load(path) as loaded:
            self.assertEqual(loaded.sysinfo("board"), "AM62Px SK\nrev E1")


class TestRender(ReportCase):
    def test_formats(self):
        first = self.report[0]
        for fmt in ("text", "markdown", "json", "csv", embperf.Format.TEXT, 2):
            with self.subTest(fmt=fmt):
                out = self.report.render(fmt)
                self.assertIsInstance(out, str)
                self.assertIn(first.metric, out)
        doc = json.loads(self.report.render("json"))
        self.assertIsInstance(doc, dict)
        rows = list(csv.reader(io.StringIO(self.report.render("csv"))))
        self.assertEqual(len(rows), len(self.report) + 1, "CSV: a header and one row per result")

    def test_board_farm_formats(self):
        import xml.etree.ElementTree as ET
        root = ET.fromstring(self.report.render("junit").encode("utf-8"))
        self.assertEqual(len(root.findall("./testsuite/testcase")), len(self.report))
        lines = self.report.render(embperf.Format.LAVA).splitlines()
        self.assertEqual(len(lines), len(self.report))
        self.assertTrue(all(line.startswith("lava-test-case ") for line in lines))

    def test_board_farm_formats_refuse_an_empty_report(self):
        with embperf.Report(self.ctx) as empty:
            for fmt in ("junit", "lava"):
                with self.subTest(fmt=fmt):
                    with self.assertRaises(embperf.Error) as cm:
                        empty.render(fmt)
                    self.assertEqual(cm.exception.errno, errno.ENODATA)

    def test_unknown_format(self):
        with self.assertRaises(ValueError):
            self.report.render("pdf")
        with self.assertRaises(ValueError):
            self.report.render(17)


class TestSaveLoad(ReportCase):
    def test_json_round_trip(self):
        path = self.path("round.json")
        self.report.save(path)
        with embperf.Report.load(path) as loaded:
            self.assertEqual(len(loaded), len(self.report))
            for orig, back in zip(self.report, loaded):
                with self.subTest(key=orig.key):
                    self.assertEqual(back.key, orig.key)
                    self.assertEqual(back.kernel, orig.kernel)
                    self.assertEqual(back.metric, orig.metric)
                    self.assertEqual(back.unit, orig.unit)
                    self.assertEqual(back.labels, orig.labels)
                    self.assertEqual(back.params, orig.params)
                    self.assertEqual(back.stats.n, orig.stats.n)
                    self.assertEqual(back.samples, orig.samples)
                    self.assertAlmostEqual(back.value, orig.value, delta=abs(orig.value) * 1e-9)
                    self.assertEqual(back.primary, orig.primary)
                    self.assertEqual(back.higher_is_better, orig.higher_is_better)
            self.assertEqual(loaded.sysinfo("library_version"), embperf.version())

    def test_parse_matches_load(self):
        text = self.report.render("json")
        with embperf.Report.parse(text) as parsed:
            self.assertEqual([r.key for r in parsed], [r.key for r in self.report])

    def test_format_from_extension(self):
        for name, check in (("t.csv", lambda s: s.count("\n") >= len(self.report)),
                            ("t.md", lambda s: "|" in s),
                            ("t.json", lambda s: isinstance(json.loads(s), dict))):
            with self.subTest(name=name):
                path = self.path(name)
                self.report.save(path)
                with open(path, encoding="utf-8") as f:
                    self.assertTrue(check(f.read()))

    def test_load_missing_file(self):
        path = self.path("does-not-exist.json")
        with self.assertRaises(embperf.Error) as cm:
            embperf.Report.load(path)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertEqual(cm.exception.filename, path)

    def test_load_bad_json(self):
        path = self.path("bad.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write('{"not": "a report"')
        with self.assertRaises(embperf.Error) as cm:
            embperf.Report.load(path)
        self.assertEqual(cm.exception.errno, errno.EBADMSG)
        self.assertTrue(cm.exception.detail, "no detail message for a bad report")

    def test_save_to_missing_folder(self):
        path = self.path("no/such/dir/r.json")
        with self.assertRaises(embperf.Error) as cm:
            self.report.save(path)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertFalse(os.path.exists(path))


class TestCompare(ReportCase):
    def test_compare_with_itself_passes(self):
        path = self.path("self.json")
        self.report.save(path)
        with embperf.Report.load(path) as current:
            self.assertEqual(current.compare(self.report, tolerance=5), 0)
            verdicts = {r.verdict for r in current}
            self.assertEqual(verdicts, {embperf.Verdict.PASS})
            for result in current:
                self.assertIsNotNone(result.baseline)
                self.assertAlmostEqual(result.baseline.ratio, 1.0, places=9)
                self.assertAlmostEqual(result.baseline.value, result.value,
                                       delta=abs(result.value) * 1e-9)
            # A path works as baseline too.
            self.assertEqual(current.compare(path, 0), 0)

    def test_doctored_baseline_fails(self):
        doc = json.loads(self.report.render("json"))

        def better(obj):
            higher = obj.get("higher_is_better", obj.get("better") == "higher")
            return DOCTOR_FACTOR if higher else 1.0 / DOCTOR_FACTOR

        changed = _doctor(doc, better)
        self.assertEqual(changed, len(self.report), "could not find results in the JSON")
        with embperf.Report.parse(json.dumps(doc)) as baseline:
            failures = self.report.compare(baseline, tolerance=5)
            self.assertEqual(failures, len(self.report))
            regressed = self.report.regressions()
            self.assertEqual(len(regressed), len(self.report))
            for result in regressed:
                ratio = result.baseline.ratio
                if result.higher_is_better:
                    self.assertLess(ratio, 1.0)
                else:
                    self.assertGreater(ratio, 1.0)
            # A tolerance beyond 1000 % is refused.
            with self.assertRaises(embperf.ParameterError):
                self.report.compare(baseline, tolerance=10000)
            # The other way round, the current results improved.
            with embperf.Report.parse(json.dumps(doc)) as same:
                _doctor(doc, lambda obj: 1.0 / better(obj) ** 2)
                with embperf.Report.parse(json.dumps(doc)) as worse:
                    self.assertEqual(same.compare(worse, tolerance=5), 0)
                    self.assertEqual({r.verdict for r in same}, {embperf.Verdict.IMPROVED})

    def test_missing_metric_fails(self):
        with embperf.Report(self.ctx) as empty:
            self.assertEqual(empty.compare(self.report, tolerance=5), len(self.report))

    def test_extra_metric_has_no_verdict(self):
        with embperf.Report(self.ctx) as empty:
            self.assertEqual(self.report.compare(empty, tolerance=5), 0)
            for result in self.report:
                self.assertEqual(result.verdict, embperf.Verdict.NONE)
                self.assertIsNone(result.baseline)

    def test_bad_tolerance(self):
        for tolerance in (-1, 1001, float("nan")):
            with self.subTest(tolerance=tolerance):
                with self.assertRaises(embperf.ParameterError):
                    self.report.compare(self.report, tolerance)


if __name__ == "__main__":
    unittest.main()
