# SPDX-License-Identifier: MIT
"""test_farm_output.py - the board-farm renderings of the `embperf` command.

--format=junit is parsed with xml.etree (well-formed XML, one test case per
result, failures where a baseline comparison regressed, odd labels escaped);
--format=lava is split into shell words and checked field by field (name
charset, length and uniqueness, result, measurement, units). A report with
no results must be refused, not rendered empty.

Run by meson as `python3 test_farm_output.py` with EMBPERF set to the
command. Values are never asserted against a speed: the regressions here are
forced by editing a baseline by a factor of 1000.
"""
import json
import os
import re
import shlex
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

try:
    import yaml
except ImportError:  # the example test says what it lacks
    yaml = None

EMBPERF = os.environ.get("EMBPERF", "embperf")
SRCDIR = os.environ.get("EMBPERF_SRCDIR",
                        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAVA_EXAMPLE = os.path.join(SRCDIR, "examples", "lava", "embperf-suite.yaml")
# A stand-in for LAVA's helper: one line per call, the arguments tab-separated.
FAKE_LAVA_TEST_CASE = """#!/bin/sh
out=$LAVA_CASES_FILE
first=1
for a in "$@"; do
  if [ $first -eq 0 ]; then printf '\\t' >> "$out"; fi
  printf '%s' "$a" >> "$out"; first=0
done
printf '\\n' >> "$out"
"""
LAVA_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
SUITE = ("lat-a mem.lat size=4k repetitions=3\n"
         "lat-b mem.lat size=8k repetitions=3\n")


def embperf(*args):
    """Run the command; return (exit code, stdout, stderr)."""
    p = subprocess.run([EMBPERF, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def lava_lines(text):
    """The lava-test-case lines as dicts: name, result, measurement, units."""
    cases = []
    for line in text.splitlines():
        words = shlex.split(line)
        assert words[0] == "lava-test-case", line
        case = {"name": words[1]}
        rest = words[2:]
        assert len(rest) % 2 == 0, line
        for opt, value in zip(rest[::2], rest[1::2]):
            assert opt in ("--result", "--measurement", "--units"), line
            case[opt[2:]] = value
        cases.append(case)
    return cases


class FarmOutput(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="test_farm.")
        cls.suite_path = cls.path("farm.suite")
        with open(cls.suite_path, "w") as f:
            f.write(SUITE)
        cls.report_path = cls.path("report.json")
        code, _, err = embperf("suite", cls.suite_path, "-q", "--format=json",
                               "-o", cls.report_path)
        if code != 0:
            raise RuntimeError("cannot make the report: exit %d: %s" % (code, err))
        with open(cls.report_path) as f:
            cls.report = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir.name, name)

    def write_report(self, name, results):
        """A copy of the measured report with other results; returns its path."""
        doc = dict(self.report, results=results)
        path = self.path(name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def retitled(self, titles):
        """One result per title, copies of the first measured one."""
        base = self.report["results"][0]
        return [dict(base, title=t, key=t) for t in titles]

    def forced_baseline(self):
        """Baseline: lat-a 1000x faster (so it regressed), lat-b 1000x slower."""
        results = []
        for r in self.report["results"]:
            factor = 1e-3 if r["title"] == "lat-a" else 1e3
            results.append(dict(r, value=r["value"] * factor))
        return self.write_report("baseline.json", results)

    def junit(self, *args, expect=0):
        code, out, err = embperf(*args, "--format=junit")
        self.assertEqual(code, expect, err)
        return ET.fromstring(out.encode("utf-8")), out

    # JUnit

    def test_junit_run_one_case_per_result(self):
        root, _ = self.junit("run", "mem.lat", "size=4k", "repetitions=2", "-q")
        cases = root.findall("./testsuite/testcase")
        self.assertEqual(len(cases), 1)
        self.assertEqual(cases[0].get("classname"), "mem.lat")
        self.assertEqual(cases[0].get("name"), "latency[size=4k]")
        props = {p.get("name"): p.get("value") for p in cases[0].findall("properties/property")}
        self.assertEqual(props["unit"], "ns")
        self.assertGreater(float(props["value"]), 0.0)
        self.assertEqual(root.get("tests"), "1")
        self.assertEqual(root.get("failures"), "0")
        self.assertIsNone(cases[0].find("failure"))
        self.assertIn("mem.lat latency", cases[0].find("system-out").text)

    def test_junit_suite_counts_and_values(self):
        root, _ = self.junit("render", self.report_path)
        cases = root.findall("./testsuite/testcase")
        self.assertEqual([c.get("name") for c in cases],
                         [r["title"] for r in self.report["results"]])
        for case, r in zip(cases, self.report["results"]):
            props = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
            self.assertEqual(float(props["value"]), r["value"])
            self.assertEqual(props["unit"], r["unit"])
            self.assertEqual(props["samples"], str(r["stats"]["n"]))
        suite = root.find("testsuite")
        self.assertEqual(suite.get("tests"), "2")
        self.assertIn("hostname", suite.attrib)

    def test_junit_failure_on_forced_regression_in_suite(self):
        base = self.forced_baseline()
        root, _ = self.junit("suite", self.suite_path, "--baseline=" + base,
                             "--tolerance=1000", "-q", expect=1)
        cases = {c.get("name"): c for c in root.findall("./testsuite/testcase")}
        failure = cases["lat-a"].find("failure")
        self.assertIsNotNone(failure)
        self.assertEqual(failure.get("type"), "regression")
        self.assertIn("regressed", failure.get("message"))
        self.assertIn("tolerance 1000%", failure.get("message"))
        self.assertIsNone(cases["lat-b"].find("failure"))
        self.assertEqual(root.get("failures"), "1")
        self.assertEqual(root.find("testsuite").get("failures"), "1")

    def test_junit_compare_lists_missing_as_failure(self):
        base = self.forced_baseline()
        # The current report lacks lat-b: missing, a failure of its own.
        current = self.write_report("current.json", self.report["results"][:1])
        root, _ = self.junit("compare", base, current, "--tolerance=1000", "-q", expect=1)
        cases = root.findall("./testsuite/testcase")
        self.assertEqual(len(cases), 2)
        missing = [c for c in cases if c.get("classname") == "missing"]
        self.assertEqual([c.get("name") for c in missing], ["lat-b"])
        self.assertEqual(missing[0].find("failure").get("type"), "missing")
        self.assertEqual(root.get("failures"), "2")

    def test_junit_escapes_odd_labels(self):
        odd = ['a<b>&"c\' d', "tab\there", "new\nline", "ctl\x01x", "µs ünïcode", "]]>"]
        path = self.write_report("odd.json", self.retitled(odd))
        root, text = self.junit("render", path)
        names = [c.get("name") for c in root.findall("./testsuite/testcase")]
        expect = [t.replace("\x01", "\ufffd") for t in odd]
        self.assertEqual(names, expect)
        self.assertNotIn("\x01", text)

    def test_junit_better_is_the_reports_direction(self):
        base = self.report["results"][0]
        results = [dict(base, title="t-" + b, key="t-" + b, better=b)
                   for b in ("lower", "higher", "zero")]
        root, _ = self.junit("render", self.write_report("better.json", results))
        for case in root.findall("./testsuite/testcase"):
            props = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
            self.assertEqual(props["better"], case.get("name")[2:], case.get("name"))

    # LAVA

    def test_lava_fields(self):
        code, out, err = embperf("render", self.report_path, "--format=lava")
        self.assertEqual(code, 0, err)
        cases = lava_lines(out)
        self.assertEqual(len(cases), len(self.report["results"]))
        for case, r in zip(cases, self.report["results"]):
            self.assertEqual(case["name"], r["title"])
            self.assertEqual(case["result"], "pass")
            self.assertEqual(case["units"], r["unit"])
            self.assertNotIn("e", case["measurement"].lower())
            self.assertAlmostEqual(float(case["measurement"]) / r["value"], 1.0, places=5)

    def test_lava_fail_on_forced_regression(self):
        base = self.forced_baseline()
        code, out, err = embperf("suite", self.suite_path, "--baseline=" + base,
                                 "--tolerance=1000", "-q", "--format=lava")
        self.assertEqual(code, 1, err)
        results = {c["name"]: c["result"] for c in lava_lines(out)}
        self.assertEqual(results, {"lat-a": "fail", "lat-b": "pass"})

    def test_lava_missing_metric_is_a_failed_case_without_measurement(self):
        base = self.forced_baseline()
        current = self.write_report("current-lava.json", self.report["results"][:1])
        code, out, err = embperf("compare", base, current, "--tolerance=1000", "--format=lava")
        self.assertEqual(code, 1, err)
        cases = lava_lines(out)
        self.assertEqual(cases[-1], {"name": "lat-b", "result": "fail"})

    def test_lava_names_sanitised_unique_deterministic(self):
        titles = ["a b", "a/b", "a_b", "x" * 300, "x" * 300 + "y", "!!!", "ok.name-1"]
        path = self.write_report("names.json", self.retitled(titles))
        code, out, err = embperf("render", path, "--format=lava")
        self.assertEqual(code, 0, err)
        names = [c["name"] for c in lava_lines(out)]
        for name in names:
            self.assertRegex(name, LAVA_NAME)
        self.assertEqual(len(set(names)), len(names))
        self.assertEqual(names[:3], ["a_b", "a_b-2", "a_b-3"])
        self.assertEqual(len(names[3]), 100)
        self.assertRegex(names[3], r"^x{91}-[0-9a-f]{8}$")
        self.assertNotEqual(names[3], names[4])
        self.assertEqual(names[5], "result")
        self.assertEqual(names[6], "ok.name-1")
        again = embperf("render", path, "--format=lava")[1]
        self.assertEqual(again, out)

    # A report without results

    def test_empty_report_is_refused(self):
        path = self.write_report("empty.json", [])
        for fmt in ("junit", "lava"):
            code, out, err = embperf("render", path, "--format=" + fmt)
            self.assertEqual(code, 3, err)
            self.assertEqual(out, "")
            self.assertIn("no results", err)
            target = self.path("kept." + fmt)
            with open(target, "w") as f:
                f.write("previous\n")
            code, _, err = embperf("render", path, "--format=" + fmt, "-o", target)
            self.assertEqual(code, 3, err)
            self.assertIn("no results", err)
            with open(target) as f:
                self.assertEqual(f.read(), "previous\n")
            left = [n for n in os.listdir(self.dir.name) if n.startswith("kept." + fmt + ".tmp")]
            self.assertEqual(left, [])

    def test_bad_format_names_the_accepted_ones(self):
        code, _, err = embperf("render", self.report_path, "--format=xunit")
        self.assertEqual(code, 2)
        self.assertIn("junit", err)
        self.assertIn("lava", err)

    def test_xml_extension_chooses_junit(self):
        target = self.path("out.xml")
        code, _, err = embperf("render", self.report_path, "-o", target, "-q")
        self.assertEqual(code, 0, err)
        self.assertEqual(ET.parse(target).getroot().tag, "testsuites")


class LavaExample(unittest.TestCase):
    """examples/lava/embperf-suite.yaml, its steps run by /bin/sh as LAVA would."""

    def setUp(self):
        if yaml is None:
            self.skipTest("python3 lacks the yaml module (Debian: python3-yaml)")
        self.dir = tempfile.TemporaryDirectory(prefix="test_lava_example.")
        self.addCleanup(self.dir.cleanup)
        bindir = os.path.join(self.dir.name, "bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(EMBPERF), os.path.join(bindir, "embperf"))
        helper = os.path.join(bindir, "lava-test-case")
        with open(helper, "w") as f:
            f.write(FAKE_LAVA_TEST_CASE)
        os.chmod(helper, 0o755)
        self.bindir = bindir
        self.suite = os.path.join(self.dir.name, "farm.suite")
        with open(self.suite, "w") as f:
            f.write(SUITE)
        with open(LAVA_EXAMPLE) as f:
            self.definition = yaml.safe_load(f)

    def run_definition(self, **params):
        """Run the steps as one `set -e` script; return the recorded cases."""
        env = dict(os.environ)
        env.update({k: str(v) for k, v in self.definition["params"].items()})
        env.update(params)
        env["PATH"] = self.bindir + os.pathsep + env["PATH"]
        env["LAVA_CASES_FILE"] = os.path.join(self.dir.name, "cases")
        script = "set -e\n" + "\n".join(self.definition["run"]["steps"]) + "\n"
        work = os.path.join(self.dir.name, "work")
        os.makedirs(work, exist_ok=True)
        p = subprocess.run(["/bin/sh", "-c", script], cwd=work, env=env,
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode("utf-8", "replace"))
        cases = {}
        with open(env["LAVA_CASES_FILE"]) as f:
            for line in f:
                words = line.rstrip("\n").split("\t")
                opts = dict(zip(words[1::2], words[2::2]))
                cases[words[0]] = opts
        os.unlink(env["LAVA_CASES_FILE"])
        return cases

    def test_metadata(self):
        meta = self.definition["metadata"]
        self.assertEqual(meta["format"], "Lava-Test Test Definition 1.0")
        self.assertRegex(meta["name"], LAVA_NAME)
        self.assertIn("version", meta)

    def test_without_baseline_every_case_passes(self):
        cases = self.run_definition(SUITE=self.suite)
        self.assertEqual(set(cases), {"lat-a", "lat-b", "embperf-verdict"})
        self.assertEqual(cases["lat-a"]["--result"], "pass")
        self.assertEqual(cases["lat-a"]["--units"], "ns")
        self.assertGreater(float(cases["lat-a"]["--measurement"]), 0.0)
        self.assertEqual(cases["embperf-verdict"]["--result"], "pass")

    def test_forced_regression_fails_its_case_and_the_verdict(self):
        report = os.path.join(self.dir.name, "report.json")
        code, _, err = embperf("suite", self.suite, "-q", "--format=json", "-o", report)
        self.assertEqual(code, 0, err)
        with open(report) as f:
            doc = json.load(f)
        for r in doc["results"]:
            r["value"] *= 1e-3 if r["title"] == "lat-a" else 1e3
        baseline = os.path.join(self.dir.name, "baseline.json")
        with open(baseline, "w") as f:
            json.dump(doc, f)
        cases = self.run_definition(SUITE=self.suite, BASELINE=baseline, TOLERANCE="1000")
        self.assertEqual(cases["lat-a"]["--result"], "fail")
        self.assertEqual(cases["lat-b"]["--result"], "pass")
        self.assertEqual(cases["embperf-verdict"],
                         {"--result": "fail", "--measurement": "1", "--units": "exit-code"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
