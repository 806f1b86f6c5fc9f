# SPDX-License-Identifier: MIT
"""Bench: parameters, runs, results, callbacks, cancel and budget."""

import errno
import gc
import math
import os
import signal
import threading
import unittest

import support
import embperf

KERNEL = "mem.lat"


def _any_kernel():
    names = embperf.kernels()
    return KERNEL if KERNEL in names else names[0]


class TestParameters(unittest.TestCase):
    def setUp(self):
        self.kernel = _any_kernel()
        self.bench = embperf.Bench(self.kernel)
        self.addCleanup(self.bench.close)

    def test_kernel_and_params(self):
        self.assertEqual(self.bench.kernel, self.kernel)
        params = self.bench.params
        self.assertEqual(set(params), set(embperf.describe(self.kernel)["params"]))
        self.assertIn("repetitions", self.bench)
        self.assertNotIn("no_such_param", self.bench)

    def test_set_and_get(self):
        self.bench["repetitions"] = 7
        self.assertEqual(self.bench["repetitions"], "7")
        self.bench.set(repetitions="9")
        self.assertEqual(self.bench.get("repetitions"), "9")
        self.bench.set({"repetitions": 4})
        self.assertEqual(self.bench["repetitions"], "4")

    def test_bool_and_float(self):
        self.bench["counters"] = False
        self.assertEqual(self.bench["counters"], "0")
        self.bench["counters"] = True
        self.assertEqual(self.bench["counters"], "1")
        self.bench["spread"] = 0.25
        self.assertAlmostEqual(float(self.bench["spread"]), 0.25)

    def test_unknown_parameter(self):
        with self.assertRaises(embperf.ParameterError) as cm:
            self.bench["no_such_param"] = 1
        exc = cm.exception
        self.assertEqual(exc.errno, errno.ENOENT)
        self.assertEqual(exc.param, "no_such_param")
        self.assertIn("no_such_param", str(exc))
        with self.assertRaises(embperf.ParameterError):
            self.bench.get("no_such_param")

    def test_bad_value_names_parameter_and_keeps_old(self):
        before = self.bench["repetitions"]
        with self.assertRaises(embperf.ParameterError) as cm:
            self.bench["repetitions"] = "lots"
        exc = cm.exception
        self.assertEqual(exc.errno, errno.EINVAL)
        self.assertIn("repetitions", exc.strerror)
        self.assertIn("lots", exc.strerror)
        self.assertIsInstance(exc, ValueError)
        self.assertEqual(self.bench["repetitions"], before)

    def test_out_of_range(self):
        for value in (0, 2**70, "99999999999"):
            with self.subTest(value=value):
                with self.assertRaises(embperf.ParameterError) as cm:
                    self.bench["repetitions"] = value
                self.assertEqual(cm.exception.errno, errno.ERANGE)
                self.assertIn("repetitions", str(cm.exception))

    def test_unsupported_type(self):
        with self.assertRaises(TypeError):
            self.bench["repetitions"] = object()

    def test_keywords_at_creation(self):
        with embperf.Bench(self.kernel, repetitions=6) as bench:
            self.assertEqual(bench["repetitions"], "6")
        with self.assertRaises(embperf.ParameterError):
            embperf.Bench(self.kernel, repetitions="x")

    def test_unknown_kernel(self):
        with self.assertRaises(embperf.UnknownKernelError) as cm:
            embperf.Bench("no.such.kernel")
        self.assertEqual(cm.exception.errno, errno.ENOENT)

    def test_results_empty_before_run(self):
        self.assertEqual(self.bench.results, [])

    def test_describe(self):
        self.assertEqual(self.bench.describe(), embperf.describe(self.kernel))


class MemLatCase(unittest.TestCase):
    def setUp(self):
        support.require_kernel(self, KERNEL)
        self.params = support.quick_params(KERNEL, **support.small_size_params(KERNEL))


class TestRun(MemLatCase):
    def check_result(self, result):
        self.assertEqual(result.kernel, KERNEL)
        self.assertEqual(result.name, result.metric)
        self.assertTrue(result.unit)
        self.assertGreater(result.value, 0)
        stats = result.stats
        self.assertGreaterEqual(stats.n, 1)
        self.assertEqual(stats.n, len(result.samples))
        self.assertLessEqual(stats.min, stats.median)
        self.assertLessEqual(stats.median, stats.max)
        self.assertLessEqual(stats.min, stats.mean)
        self.assertLessEqual(stats.mean, stats.max)
        self.assertEqual(min(result.samples), stats.min)
        self.assertEqual(max(result.samples), stats.max)
        self.assertEqual(result.value, getattr(stats, result.primary))
        self.assertEqual(result.median, stats.median)
        self.assertIsInstance(result.labels, dict)
        self.assertIsInstance(result.params, dict)
        self.assertEqual(result.params.get("repetitions"), "3")
        for name, value in result.counters.items():
            self.assertTrue(value is None or isinstance(value, float), name)
        self.assertEqual(result.verdict, embperf.Verdict.NONE)
        self.assertIsNone(result.baseline)
        self.assertIn(result.metric, repr(result))

    def test_bench_run(self):
        with embperf.Bench(KERNEL, **self.params) as bench:
            results = bench.run()
            self.assertGreater(len(results), 0)
            for result in results:
                with self.subTest(key=result.key):
                    self.check_result(result)
                    self.assertLessEqual(result.stats.n, 3)
            self.assertEqual([r.key for r in bench.results], [r.key for r in results])

    def test_results_outlive_bench(self):
        with embperf.Bench(KERNEL, **self.params) as bench:
            results = bench.run()
        # Copies: still readable after the bench is freed.
        self.assertGreater(results[0].value, 0)
        self.assertEqual(len(results[0].samples), results[0].stats.n)

    def test_module_run(self):
        res = embperf.run(KERNEL, **self.params)
        self.assertIsInstance(res, embperf.RunResult)
        self.assertGreater(len(res), 0)
        self.check_result(res[0])
        self.assertEqual(res.median, res[0].median)
        self.assertEqual(res.value, res[0].value)
        self.assertLessEqual(res.min, res.median)
        self.assertEqual(res.kernel, KERNEL)
        self.assertEqual(res.params["repetitions"], "3")
        self.assertIs(res.find(res[0].metric, **res[0].labels), res[0])
        self.assertIsNone(res.find("no-such-metric"))

    def test_run_in_given_context(self):
        with embperf.Context() as ctx:
            res = embperf.run(KERNEL, ctx, **self.params)
            self.assertFalse(ctx.closed, "run() must not close a context it was given")
        self.assertGreater(res.value, 0)

    def test_run_bad_parameter(self):
        with self.assertRaises(embperf.ParameterError) as cm:
            embperf.run(KERNEL, repetitions="-3")
        self.assertIn("repetitions", str(cm.exception))


class TestCallbacks(MemLatCase):
    def test_progress_and_log(self):
        progress = []
        logs = []
        with embperf.Context() as ctx:
            ctx.set_progress(lambda k, w, f: progress.append((k, w, f)))
            ctx.set_log(lambda level, msg: logs.append((level, msg)), embperf.LogLevel.DEBUG)
            gc.collect()  # the wrappers must survive: only the context holds them
            embperf.run(KERNEL, ctx, **self.params)
        self.assertGreater(len(progress), 0)
        for kernel, what, fraction in progress:
            self.assertEqual(kernel, KERNEL)
            self.assertIsInstance(what, str)
            self.assertTrue(0.0 <= fraction <= 1.0, fraction)
        fractions = [f for _, _, f in progress]
        self.assertEqual(fractions, sorted(fractions), "progress went backwards")
        self.assertGreater(len(logs), 0, "no debug message during a run")
        self.assertTrue(all(isinstance(level, embperf.LogLevel) for level, _ in logs))

    def test_log_level_filters(self):
        logs = []
        with embperf.Context(log=lambda level, msg: logs.append(level),
                             log_level=embperf.LogLevel.ERROR) as ctx:
            embperf.run(KERNEL, ctx, **self.params)
        self.assertTrue(all(level <= embperf.LogLevel.ERROR for level in logs), logs)

    def test_cancel_from_progress(self):
        calls = []

        def on_progress(kernel, what, fraction):
            calls.append(fraction)
            ctx.cancel()

        with embperf.Context(progress=on_progress) as ctx:
            with embperf.Bench(KERNEL, ctx, **self.params) as bench:
                with self.assertRaises(embperf.Cancelled) as cm:
                    bench.run()
                self.assertEqual(cm.exception.errno, errno.ECANCELED)
                self.assertEqual(len(calls), 1, "the run went on after cancel")
                self.assertEqual(bench.results, [], "a cancelled run keeps no results")
                # Still cancelled until reset.
                self.assertTrue(ctx.cancelled)
                with self.assertRaises(embperf.Cancelled):
                    bench.run()
                ctx.reset_cancel()
                ctx.set_progress(None)
                self.assertGreater(len(bench.run()), 0)

    def test_exception_in_callback_propagates(self):
        class Stop(Exception):
            pass

        def on_progress(kernel, what, fraction):
            raise Stop("from the callback")

        with embperf.Context(progress=on_progress) as ctx:
            with embperf.Bench(KERNEL, ctx, **self.params) as bench:
                with self.assertRaises(Stop):
                    bench.run()
                self.assertFalse(ctx.cancelled, "the context stays usable")
                ctx.set_progress(None)
                self.assertGreater(len(bench.run()), 0)


class TestInterrupt(MemLatCase):
    """Ctrl-C during a run stops it and raises KeyboardInterrupt."""

    def setUp(self):
        super().setUp()
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            self.skipTest("SIGINT does not have Python's default handler here")
        if threading.current_thread() is not threading.main_thread():
            self.skipTest("not running in the main thread")
        # Long enough that only the interrupt can end it quickly.
        self.params = dict(self.params, repetitions=20000, sample_time="1ms", spread=0)

    def interrupt_when(self, started):
        def send():
            if started.wait(30):
                os.kill(os.getpid(), signal.SIGINT)
        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)

    def check_interrupted(self, ctx, bench):
        with self.assertRaises(KeyboardInterrupt):
            bench.run()
        self.assertEqual(bench.results, [], "the run was not cancelled: it kept results")
        self.assertFalse(ctx.cancelled, "the context stays usable")
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler,
                      "the SIGINT handler was not restored")

    def test_with_progress_callback(self):
        started = threading.Event()
        self.interrupt_when(started)
        with embperf.Context(progress=lambda k, w, f: started.set()) as ctx:
            with embperf.Bench(KERNEL, ctx, **self.params) as bench:
                self.check_interrupted(ctx, bench)
                self.assertIsNotNone(ctx._progress_fn, "the user's callback must stay")

    def test_without_progress_callback(self):
        started = threading.Event()

        def watch():
            # run() routes SIGINT to its own handler while the run is in C.
            for _ in range(30000):
                if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
                    started.set()
                    return
                threading.Event().wait(0.001)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        self.addCleanup(watcher.join, 30)
        self.interrupt_when(started)
        with embperf.Context() as ctx:
            with embperf.Bench(KERNEL, ctx, **self.params) as bench:
                self.check_interrupted(ctx, bench)
                self.assertIsNone(ctx._progress_fn, "the temporary callback must go")


class TestBudget(MemLatCase):
    def test_tiny_budget(self):
        with embperf.Context() as ctx:
            ctx.set_budget(ns=1)
            with embperf.Bench(KERNEL, ctx, **self.params) as bench:
                try:
                    results = bench.run()
                except embperf.BudgetExceeded as exc:
                    self.assertEqual(exc.errno, errno.ETIME)
                    results = exc.results
                    for result in results:
                        self.assertTrue(result.truncated, result)
                        self.assertGreaterEqual(result.stats.n, 1)
                else:
                    self.assertTrue(results and all(r.truncated for r in results),
                                    "a 1 ns budget neither raised nor truncated")
                partial = bench.run(allow_partial=True)
                self.assertTrue(all(r.truncated for r in partial))

    def test_budget_removed(self):
        with embperf.Context(budget=3600) as ctx:
            ctx.set_budget(None)
            res = embperf.run(KERNEL, ctx, **self.params)
        self.assertFalse(any(r.truncated for r in res))
        self.assertFalse(any(math.isnan(r.value) for r in res))


if __name__ == "__main__":
    unittest.main()
