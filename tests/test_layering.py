#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_layering.py - .ci/layering.py's check of the layers of lib/core.

check_layers() is fed made-up call edges and a made-up layer table: a call
up a layer, a call within one and a file no layer lists must each be found,
and a set of calls that only go down must pass. The real table must list
every lib/core/*.c file of the source tree once.

usage: test_layering.py [SOURCE_ROOT]
"""
import contextlib
import importlib.util
import io
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(root):
    """layering.py of @root as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "layering", os.path.join(root, ".ci", "layering.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


layering = None

TABLE = (
    ("bottom", "util stats"),
    ("middle", "run"),
    ("top", "bench"),
)

# bench -> run -> util/stats, and a call out of lib/core that is not checked
CLEAN = {
    "core/util.c": {},
    "core/stats.c": {},
    "core/run.c": {"core/util.c": {"ep_strdup", "ep_buf_add"}},
    "core/bench.c": {"core/run.c": {"ep_run_start"}},
    "mem/mem_bw.c": {"core/run.c": {"ep_param_int"}},
}


def edges(extra):
    """CLEAN with the calls of @extra added, neither changed in place."""
    out = {f: {g: set(s) for g, s in calls.items()} for f, calls in CLEAN.items()}
    for f, calls in extra.items():
        for g, syms in calls.items():
            out.setdefault(f, {}).setdefault(g, set()).update(syms)
    return out


class CheckLayers(unittest.TestCase):
    def check(self, extra):
        return layering.check_layers(edges(extra), TABLE)

    def test_clean(self):
        self.assertEqual(self.check({}), ([], []))

    def test_upward_call(self):
        missing, wrong = self.check(
            {"core/util.c": {"core/run.c": {"ep_run_fail", "ep_run_cpu"}}})
        self.assertEqual(missing, [])
        self.assertEqual(wrong, [("core/util.c", "core/run.c",
                                  ["ep_run_cpu", "ep_run_fail"],
                                  "bottom", "middle")])

    def test_same_layer_call(self):
        _, wrong = self.check({"core/util.c": {"core/stats.c": {"ep_median"}}})
        self.assertEqual(wrong, [("core/util.c", "core/stats.c", ["ep_median"],
                                  "bottom", "bottom")])

    def test_missing_file(self):
        missing, wrong = self.check({"core/new.c": {"core/run.c": {"ep_x"}}})
        self.assertEqual((missing, wrong), (["core/new.c"], []))

    def test_twice_listed(self):
        with self.assertRaises(ValueError):
            layering.check_layers(CLEAN, TABLE + (("again", "run"),))

    def test_report(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            bad = layering.report_layers(edges({
                "core/util.c": {"core/bench.c": {"ep_bench_name"}},
                "core/new.c": {"core/run.c": {"ep_x"}}}), TABLE)
        self.assertTrue(bad)
        text = out.getvalue()
        self.assertIn("upward call: core/util.c -> core/bench.c (ep_bench_name): "
                      "layer bottom calls layer top", text)
        self.assertIn("core/new.c is in no layer", text)
        self.assertIn("(top)", text)  # the layer it would go in

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertFalse(layering.report_layers(edges({}), TABLE))
        self.assertEqual(out.getvalue(), "core layers: no upward call among "
                         "4 files of lib/core (3 layers)\n")

    def test_real_table(self):
        files = {f: {} for f in layering.core_sources()}
        self.assertGreater(len(files), 10)
        self.assertEqual(layering.check_layers(files)[0], [])


if __name__ == "__main__":
    layering = load(sys.argv[1] if len(sys.argv) > 1 else ROOT)
    unittest.main(argv=sys.argv[:1], verbosity=2)
