# SPDX-License-Identifier: MIT
"""test_suite_rows.py - the row names of the built-in suites (bench/suites).

A row name is what a baseline matches on, across suites too (a baseline of
one suite is compared with a run of another): a name that two suites give
to different measurements compares unlike things. Each suite's entries are
read as the suite loader reads them (TITLE KERNEL key=value..., "= NEW OLD"
aliases, @metric lists, "{metric:FROM=TO,...}" renames) and every row name
is checked to mean one measurement in every suite that has it. Then the
rows of TI's guide that are a unit or a method away from the kernel's
default: UDP THROUGHPUT is Mbit/s of Ethernet frames (net.udp.* metric
throughput_l2), lat_fs is lmbench's num_files, and RFC 2544 has an ingress
table.

Reads files only; run by meson as `python3 test_suite_rows.py`.
"""
import glob
import os
import re
import shlex
import unittest

SRCDIR = os.environ.get("EMBPERF_SRCDIR",
                        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = os.path.join(SRCDIR, "bench", "suites")
TEMPLATE = re.compile(r"\{metric(?::([^}]*))?\}")


def expand(title, metrics):
    """Row names of TITLE for the @metric list METRICS (None: unknown)."""
    m = TEMPLATE.search(title)
    if not m or metrics is None:
        return [(title, metrics[0] if metrics and len(metrics) == 1 else None)]
    renames = dict(p.split("=", 1) for p in m.group(1).split(",")) if m.group(1) else {}
    return [(title[:m.start()] + renames.get(k, k) + title[m.end():], k) for k in metrics]


def entries(path):
    """(row name, metric, definition, line number) of each row of a suite."""
    rows, defs = [], {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line[0] in "#@":
                continue
            words = shlex.split(line)
            if words[0] == "=":
                new, old = words[1], words[2]
                rows.append((new, None, defs.get(old, "= " + old), number))
                continue
            title, kernel, args = words[0], words[1], words[2:]
            metrics = None
            params = []
            for a in args:
                if a.startswith("@metric="):
                    metrics = a.split("=", 1)[1].split(",")
                elif not a.startswith("@"):
                    params.append(a)
            for name, metric in expand(title, metrics):
                definition = " ".join([kernel] + sorted(params) + [metric or ""])
                defs[name] = definition
                rows.append((name, metric, definition, number))
    return rows


def all_rows():
    found = {}
    for path in sorted(glob.glob(os.path.join(SUITES, "*.suite"))):
        found[os.path.basename(path)] = entries(path)
    return found


class SuiteRows(unittest.TestCase):
    def setUp(self):
        self.suites = all_rows()
        self.assertGreaterEqual(len(self.suites), 5, "suites read from " + SUITES)

    def test_a_name_means_one_measurement_across_suites(self):
        seen = {}
        for suite, rows in self.suites.items():
            for name, _, definition, number in rows:
                if "{" in name:
                    continue  # named by the kernel's labels at run time
                where = "%s:%d" % (suite, number)
                if name in seen and seen[name][0] != definition:
                    self.fail("row %s is '%s' at %s but '%s' at %s" %
                              (name, definition, where, seen[name][0], seen[name][1]))
                seen.setdefault(name, (definition, where))
        self.assertIn("lat_mem_rd-stride128-sz31k", seen)

    def test_a_name_appears_once_in_a_suite(self):
        for suite, rows in self.suites.items():
            lines = {}
            for name, _, _, number in rows:
                if "{" in name:
                    continue
                self.assertNotIn(name, lines, "%s: row %s on lines %s and %d" %
                                 (suite, name, lines.get(name), number))
                lines[name] = number

    def udp_rows(self, suite):
        rows = [r for r in self.suites[suite] if r[1] is not None and
                r[2].startswith("net.udp.")]
        self.assertTrue(rows, suite + " has net.udp rows")
        return rows

    def test_udp_throughput_is_frame_mbits(self):
        for suite in ("network.suite", "rfc2544.suite"):
            named = [r for r in self.udp_rows(suite) if r[0].endswith("-throughput")]
            self.assertTrue(named, suite + " has -throughput rows")
            for name, metric, _, number in named:
                self.assertEqual(metric, "throughput_l2", "%s:%d %s is %s, not the "
                                 "Mbit/s of frames" % (suite, number, name, metric))

    def test_rfc2544_has_ingress(self):
        rx = [r for r in self.udp_rows("rfc2544.suite") if "direction=rx" in r[2]]
        self.assertTrue(rx, "rfc2544.suite: no ingress (direction=rx) row")

    def test_lat_fs_rows_are_num_files(self):
        rows = [r for r in self.suites["lmbench.suite"] if r[0].startswith("lat_fs-")]
        self.assertEqual(len(rows), 4)
        for name, metric, _, number in rows:
            self.assertEqual(metric, "num_files", "lmbench.suite:%d %s" % (number, name))


if __name__ == "__main__":
    unittest.main(verbosity=2)
