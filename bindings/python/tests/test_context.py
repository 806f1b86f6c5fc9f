# SPDX-License-Identifier: MIT
"""Context: lifetime, budget, cancel flag, CPU, system information."""

import os
import unittest

import support  # noqa: F401  (sets up the import path)
import embperf


class TestContext(unittest.TestCase):
    def test_context_manager_closes(self):
        with embperf.Context() as ctx:
            self.assertFalse(ctx.closed)
        self.assertTrue(ctx.closed)
        with self.assertRaises(ValueError):
            ctx.cancel()

    def test_close_twice_is_safe(self):
        ctx = embperf.Context()
        ctx.close()
        ctx.close()
        self.assertIn("closed", repr(ctx))

    def test_budget(self):
        with embperf.Context() as ctx:
            self.assertIsNone(ctx.remaining_ns)
            self.assertIsNone(ctx.remaining)
            ctx.set_budget(3600)
            left = ctx.remaining_ns
            self.assertGreater(left, 3000 * 10**9)
            self.assertLessEqual(left, 3600 * 10**9)
            ctx.set_budget(ns=0)
            self.assertIsNone(ctx.remaining_ns)
            ctx.set_budget(ns=1)
            # One nanosecond is gone by the time it is read back.
            self.assertEqual(ctx.remaining_ns, 0)
            ctx.set_budget(None)
            self.assertIsNone(ctx.remaining)
            with self.assertRaises(embperf.ParameterError):
                ctx.set_budget(ns=-1)

    def test_budget_keyword(self):
        with embperf.Context(budget=100.0) as ctx:
            self.assertGreater(ctx.remaining, 50.0)

    def test_cancel_flag(self):
        with embperf.Context() as ctx:
            self.assertFalse(ctx.cancelled)
            ctx.cancel()
            self.assertTrue(ctx.cancelled)
            ctx.reset_cancel()
            self.assertFalse(ctx.cancelled)

    def test_cpu(self):
        allowed = sorted(os.sched_getaffinity(0))
        with embperf.Context() as ctx:
            self.assertIsNone(ctx.cpu)
            ctx.cpu = allowed[-1]
            self.assertEqual(ctx.cpu, allowed[-1])
            ctx.cpu = None
            self.assertIsNone(ctx.cpu)
            with self.assertRaises(embperf.ParameterError) as cm:
                ctx.cpu = 100000
            self.assertIn("100000", str(cm.exception))
            self.assertIsNone(ctx.cpu, "a refused CPU must change nothing")

    def test_sysinfo(self):
        with embperf.Context() as ctx:
            info = ctx.sysinfo
        for key in ("cpu_model", "cpus_online", "page_size_bytes", "clock_resolution_ns",
                    "library_version", "kernel", "machine"):
            self.assertIn(key, info)
        self.assertEqual(info["cpus_online"], os.cpu_count())
        self.assertEqual(info["page_size_bytes"], os.sysconf("SC_PAGE_SIZE"))
        self.assertEqual(info["library_version"], embperf.version())
        self.assertEqual(info["machine"], os.uname().machine)
        self.assertGreaterEqual(info["clock_resolution_ns"], 1)

    def test_callbacks_installed_and_removed(self):
        with embperf.Context(log=lambda level, msg: None,
                             progress=lambda k, w, f: None) as ctx:
            self.assertIsNotNone(ctx._log_fn)
            self.assertIsNotNone(ctx._progress_fn)
            ctx.set_log(None)
            ctx.set_progress(None)
            self.assertIsNone(ctx._log_fn)
            self.assertIsNone(ctx._progress_fn)

    def test_bad_keyword_frees(self):
        with self.assertRaises(embperf.ParameterError):
            embperf.Context(cpu=100000)


if __name__ == "__main__":
    unittest.main()
