# SPDX-License-Identifier: MIT
"""Handle lifetime: close twice, close order, use after close, no leaks."""

import ctypes
import ctypes.util
import gc
import unittest
import weakref

import support  # noqa: F401  (sets up the import path)
import embperf


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]


def _heap_in_use():
    """Bytes malloc() has handed out and not got back (glibc mallinfo2)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    try:
        mallinfo2 = libc.mallinfo2
    except AttributeError:
        raise unittest.SkipTest("this C library lacks mallinfo2()") from None
    mallinfo2.restype = _Mallinfo2
    mallinfo2.argtypes = []
    info = mallinfo2()
    if info.uordblks == 0:
        raise unittest.SkipTest("malloc statistics unavailable (sanitizer allocator?)")
    return info.uordblks + info.hblkhd


def _kernel():
    names = embperf.kernels()
    return "mem.lat" if "mem.lat" in names else names[0]


class TestClose(unittest.TestCase):
    def test_close_twice(self):
        ctx = embperf.Context()
        bench = embperf.Bench(_kernel(), ctx)
        report = embperf.Report(ctx)
        for obj in (bench, report, ctx):
            obj.close()
            obj.close()
            self.assertTrue(obj.closed)

    def test_use_after_close_raises(self):
        bench = embperf.Bench(_kernel())
        bench.close()
        with self.assertRaises(ValueError):
            bench.run()
        with self.assertRaises(ValueError):
            bench["repetitions"] = 3
        report = embperf.Report()
        report.close()
        with self.assertRaises(ValueError):
            report.render()
        with self.assertRaises(ValueError):
            len(report)

    def test_context_closes_its_children_first(self):
        ctx = embperf.Context()
        bench = embperf.Bench(_kernel(), ctx)
        report = embperf.Report(ctx)
        ctx.close()
        self.assertTrue(bench.closed)
        self.assertTrue(report.closed)
        bench.close()
        report.close()

    def test_closed_context_refused(self):
        ctx = embperf.Context()
        ctx.close()
        with self.assertRaises(ValueError):
            embperf.Bench(_kernel(), ctx)
        with self.assertRaises(ValueError):
            embperf.Report(ctx)

    def test_own_context_closed_with_bench(self):
        bench = embperf.Bench(_kernel())
        ctx = bench.context
        bench.close()
        self.assertTrue(ctx.closed)

    def test_objects_are_collected(self):
        ctx = embperf.Context(progress=lambda k, w, f: ctx.cancel())
        bench = embperf.Bench(_kernel(), ctx)
        refs = [weakref.ref(ctx), weakref.ref(bench)]
        del ctx, bench
        gc.collect()
        self.assertEqual([r() for r in refs], [None, None])

    def test_del_without_close(self):
        for _ in range(3):
            embperf.Bench(_kernel(), embperf.Context())
            embperf.Report(embperf.Context())
        gc.collect()


class TestLeaks(unittest.TestCase):
    """Create and free handles many times; the C heap must not grow."""

    ROUNDS = 300
    # Well below what leaking one small object per round would add.
    SLACK_BYTES = 16 * 1024

    def cycle(self):
        with embperf.Context(log=lambda level, msg: None) as ctx:
            with embperf.Bench(_kernel(), ctx, repetitions=3) as bench:
                bench.params  # exercises the get() buffers
            with embperf.Report(ctx) as report:
                report.render("text")
            ctx.sysinfo

    def test_no_heap_growth(self):
        for _ in range(20):  # warm caches, lazily read system information
            self.cycle()
        gc.collect()
        before = _heap_in_use()
        for _ in range(self.ROUNDS):
            self.cycle()
        gc.collect()
        grown = _heap_in_use() - before
        self.assertLess(grown, self.SLACK_BYTES,
                        "C heap grew by %d bytes over %d create/free rounds"
                        % (grown, self.ROUNDS))


if __name__ == "__main__":
    unittest.main()
