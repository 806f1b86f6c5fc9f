# SPDX-License-Identifier: MIT
"""Bench: one kernel, configured by named parameters, run; and run()."""

import ctypes
import errno
import numbers
import os

from . import _clib
from ._context import Context
from ._errors import (BudgetExceeded, Error, ParameterError, UnknownKernelError,
                      error_from_code)
from ._kernels import describe
from ._result import Result, RunResult
from ._util import OwnedHandle, decode, encode, read_sized

__all__ = ["Bench", "run"]

_INT64_MIN = -2**63
_INT64_MAX = 2**63 - 1


class Bench(OwnedHandle):
    """One kernel, ready to run.

    ::

        with embperf.Bench("mem.lat", ctx, size="64M") as bench:
            bench["repetitions"] = 5
            for result in bench.run():
                print(result.key, result.value, result.unit)

    ``ctx`` is the Context to run in; without one the bench makes its own
    and closes it with itself. Keyword arguments set parameters.

    Parameter values may be str (parsed by the library: "64M", "1.5ms",
    "100Mbit", "1k..64M"), int (base units: bytes, ns, bit/s, Hz, counts),
    float, bool (0/1), a 2-tuple (lo, hi) for ranges, or a path.
    """

    _free = "embperf_bench_free"

    def __init__(self, kernel, ctx=None, **params):
        self._lib = _clib.lib()
        self._ptr = None
        self._own_ctx = False
        self._ctx = None
        if ctx is not None and not isinstance(ctx, Context):
            raise TypeError("ctx must be an embperf.Context, not %s" % type(ctx).__name__)
        self._own_ctx = ctx is None
        self._ctx = Context() if ctx is None else ctx
        ptr = self._lib.embperf_bench_new(self._ctx._handle(), encode(kernel))
        if not ptr:
            code = ctypes.get_errno() or errno.ENOMEM
            detail = self._ctx.errmsg
            if self._own_ctx:
                self._ctx.close()
            if code == errno.ENOENT:
                raise UnknownKernelError(code, detail, "embperf_bench_new")
            if code == errno.EINVAL:
                raise ParameterError(code, detail, "embperf_bench_new", "kernel", kernel)
            raise Error(code, detail, "embperf_bench_new")
        self._ptr = ptr
        self._ctx._children.add(self)
        try:
            self.set(**params)
        except BaseException:
            self.close()
            raise

    # -- lifetime ----------------------------------------------------------

    @property
    def context(self):
        """The Context the bench runs in."""
        return self._ctx

    def __repr__(self):
        if not self._ptr:
            return "<embperf.Bench closed>"
        return "<embperf.Bench %s>" % self.kernel

    # -- parameters --------------------------------------------------------

    @property
    def kernel(self):
        """Name of the kernel."""
        return decode(self._lib.embperf_bench_kernel(self._handle()))

    @property
    def errmsg(self):
        """Detail of the bench's last failure ("" when none)."""
        return decode(self._lib.embperf_bench_errmsg(self._handle())) or ""

    def describe(self):
        """The kernel's description: see embperf.describe()."""
        return describe(self.kernel)

    def _set_one(self, name, value):
        handle = self._handle()
        key = encode(name)
        lib = self._lib
        if isinstance(value, bool):
            rc, func = lib.embperf_bench_set_int(handle, key, int(value)), "embperf_bench_set_int"
        elif isinstance(value, numbers.Integral) and _INT64_MIN <= value <= _INT64_MAX:
            rc, func = lib.embperf_bench_set_int(handle, key, int(value)), "embperf_bench_set_int"
        elif isinstance(value, numbers.Integral):
            # Too large for int64_t: the library's parser says what is accepted.
            rc, func = lib.embperf_bench_set(handle, key, encode(str(int(value)))), \
                "embperf_bench_set"
        elif isinstance(value, numbers.Real):
            rc, func = lib.embperf_bench_set_double(handle, key, float(value)), \
                "embperf_bench_set_double"
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            text = "%s..%s" % tuple(value)
            rc, func = lib.embperf_bench_set(handle, key, encode(text)), "embperf_bench_set"
        elif isinstance(value, (str, bytes, os.PathLike)):
            raw = os.fsencode(value) if isinstance(value, os.PathLike) else encode(value)
            rc, func = lib.embperf_bench_set(handle, key, raw), "embperf_bench_set"
        else:
            raise TypeError("parameter %r: cannot pass a %s (use str, int, float or bool)"
                            % (name, type(value).__name__))
        if rc < 0:
            raise ParameterError(rc, self.errmsg, func, name, value)

    def set(self, params=None, **kwargs):
        """Set parameters from a mapping and/or keyword arguments.

        Raises ParameterError naming the parameter, the value and what is
        accepted; the parameters set before the failing one stay set.
        """
        items = list(dict(params or {}).items()) + list(kwargs.items())
        for name, value in items:
            self._set_one(name, value)

    def get(self, name):
        """A parameter's value in canonical text form ("64M")."""
        rc, text = read_sized(self._lib.embperf_bench_get, self._handle(), encode(name))
        if rc < 0:
            raise ParameterError(rc, self.errmsg or "parameter '%s' does not exist" % name,
                                 "embperf_bench_get", name)
        return text

    __getitem__ = get
    __setitem__ = _set_one

    def __contains__(self, name):
        return name in self.describe()["params"]

    @property
    def params(self):
        """Every parameter -> its canonical text, as a new dict."""
        return {name: self.get(name) for name in self.describe()["params"]}

    # -- running -----------------------------------------------------------

    def run(self, *, allow_partial=False):
        """Run the kernel with the current parameters.

        Return: the list of Result of this run.

        Raises Cancelled when the context was cancelled (a callback that
        raised is re-raised instead; Ctrl-C raises KeyboardInterrupt once
        the library has stopped), BudgetExceeded when the budget cut
        the run short (its ``results`` holds what was measured) unless
        ``allow_partial`` is true, in which case the truncated results are
        returned; NotSupportedError, or Error for other failures.
        """
        handle = self._handle()
        ctx = self._ctx
        ctx._take_callback_error()
        with ctx._interruptible():
            rc = self._lib.embperf_bench_run(handle)
        callback_error = ctx._take_callback_error()
        if callback_error is not None:
            # The wrapper cancelled the run to stop it; the session stays usable.
            self._lib.embperf_ctx_reset_cancel(ctx._handle())
            raise callback_error
        if rc == -errno.ETIME:
            results = self.results
            if allow_partial:
                return results
            raise BudgetExceeded(rc, self.errmsg, "embperf_bench_run", results)
        if rc < 0:
            raise error_from_code(rc, self.errmsg, "embperf_bench_run")
        return self.results

    @property
    def results(self):
        """Results of the last run (copies; empty before the first run)."""
        handle = self._handle()
        lib = self._lib
        results = []
        for index in range(lib.embperf_bench_result_count(handle)):
            ptr = lib.embperf_bench_result(handle, index)
            if ptr:
                results.append(Result._from_ptr(lib, ptr))
        return results


def run(kernel, ctx=None, **params):
    """Run a kernel once and return its results.

    ::

        >>> embperf.run("mem.lat", size="64M").median     # doctest: +SKIP
        92.4

    ``ctx`` is the Context to run in (a private one when None); keyword
    arguments are parameters, as for Bench. Return: a RunResult, a list of
    Result whose attributes default to those of the first result. Raises
    as Bench.run().
    """
    with Bench(kernel, ctx, **params) as bench:
        results = bench.run()
        return RunResult(bench.kernel, bench.params, results)
