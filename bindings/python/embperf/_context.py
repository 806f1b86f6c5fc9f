# SPDX-License-Identifier: MIT
"""Context: a measurement session (budget, cancel, callbacks, CPU, sysinfo)."""

import contextlib
import ctypes
import enum
import errno
import signal
import threading
import weakref

from . import _clib
from ._errors import Error, ParameterError
from ._util import Handle, decode, encode

__all__ = ["Context", "LogLevel"]

_NO_BUDGET = 2**64 - 1
# sysinfo entries that hold numbers; the others stay text.
_INT_SUFFIXES = ("_bytes", "_ns")
_INT_KEYS = ("cpus_online",)


class LogLevel(enum.IntEnum):
    """Levels of log messages, numbered as syslog does."""

    ERROR = 3
    WARNING = 4
    INFO = 6
    DEBUG = 7


def _sysinfo_value(key, text):
    if text is None:
        return None
    if key.endswith(_INT_SUFFIXES) or key in _INT_KEYS:
        try:
            return int(text)
        except ValueError:
            pass
    return text


class Context(Handle):
    """A session in which benches run.

    ::

        with embperf.Context(budget=2.0, progress=show) as ctx:
            print(ctx.sysinfo["cpu_model"])
            ...

    Keyword arguments:
        budget:    seconds that all following runs may take together
                   (None: no bound); see set_budget().
        cpu:       CPU to pin runs to (None: no pinning).
        log:       callable(level, message) receiving the library's log.
        log_level: the most verbose LogLevel delivered to ``log``.
        progress:  callable(kernel, what, fraction) called between samples.

    Callbacks run in the thread that runs the benchmark. An exception raised
    by a callback cancels the run, and Bench.run() raises it again once the
    library has stopped. The context keeps a reference to the ctypes
    wrappers of the callbacks as long as they are installed.

    A context is used by one thread at a time, except cancel(), which any
    thread may call. close() (or the end of a ``with`` block) frees the
    context and first the benches and reports made from it.
    """

    def __init__(self, *, budget=None, cpu=None, log=None, log_level=LogLevel.INFO,
                 progress=None):
        self._lib = _clib.lib()
        self._ptr = None
        ptr = self._lib.embperf_ctx_new()
        if not ptr:
            raise Error(ctypes.get_errno() or errno.ENOMEM, "", "embperf_ctx_new")
        self._ptr = ptr
        # Benches and reports made from this context, closed before it.
        self._children = weakref.WeakSet()
        self._log_fn = None
        self._progress_fn = None
        self._callback_error = None
        try:
            if budget is not None:
                self.set_budget(budget)
            if cpu is not None:
                self.cpu = cpu
            if log is not None:
                self.set_log(log, log_level)
            if progress is not None:
                self.set_progress(progress)
        except BaseException:
            self.close()
            raise

    # -- lifetime ----------------------------------------------------------

    def close(self):
        """Free the context, and before it its benches and reports.

        Calling it again does nothing.
        """
        children = getattr(self, "_children", None)
        while children:
            try:
                child = children.pop()
            except KeyError:  # the last one was collected meanwhile
                break
            child.close()
        ptr, self._ptr = self._ptr, None
        if ptr:
            self._lib.embperf_ctx_free(ptr)
        # The C side no longer calls them: the wrappers may go.
        self._log_fn = None
        self._progress_fn = None

    def __repr__(self):
        if not self._ptr:
            return "<embperf.Context closed>"
        return "<embperf.Context cpu=%s remaining=%s>" % (self.cpu, self.remaining)

    # -- budget and cancel -------------------------------------------------

    def set_budget(self, seconds=None, *, ns=None):
        """Bound the time of every following run, from now on.

        Give either ``seconds`` (a float) or ``ns`` (an int); None, 0 or no
        argument removes the bound. A run the budget cuts short raises
        BudgetExceeded (or returns truncated results, see Bench.run()).
        """
        if ns is None:
            ns = 0 if seconds is None else int(round(float(seconds) * 1e9))
            if seconds is not None and float(seconds) > 0 and ns == 0:
                ns = 1
        ns = int(ns)
        if ns < 0 or ns >= _NO_BUDGET:
            raise ParameterError(errno.ERANGE,
                                 "budget: %d ns is out of range (accepted: 0..2^64-2 ns)" % ns,
                                 "embperf_ctx_set_budget_ns", "budget", ns)
        rc = self._lib.embperf_ctx_set_budget_ns(self._handle(), ns)
        if rc < 0:
            raise Error(rc, self.errmsg, "embperf_ctx_set_budget_ns")

    @property
    def remaining_ns(self):
        """Nanoseconds left in the budget: 0 when spent, None when unbounded."""
        left = self._lib.embperf_ctx_remaining_ns(self._handle())
        return None if left == _NO_BUDGET else left

    @property
    def remaining(self):
        """Seconds left in the budget (float), None when unbounded."""
        left = self.remaining_ns
        return None if left is None else left / 1e9

    def cancel(self):
        """Ask the running benchmark to stop; it raises Cancelled.

        Safe from any thread. Later runs are cancelled too, until
        reset_cancel().
        """
        self._lib.embperf_ctx_cancel(self._handle())

    def reset_cancel(self):
        """Clear a cancel request, so that runs may proceed again."""
        self._lib.embperf_ctx_reset_cancel(self._handle())

    @property
    def cancelled(self):
        """True while a cancel request is pending."""
        return bool(self._lib.embperf_ctx_is_cancelled(self._handle()))

    # -- placement and system information ----------------------------------

    @property
    def cpu(self):
        """Default CPU runs are pinned to, None when not pinned. Settable."""
        cpu = self._lib.embperf_ctx_get_cpu(self._handle())
        return None if cpu < 0 else cpu

    @cpu.setter
    def cpu(self, cpu):
        value = -1 if cpu is None else int(cpu)
        rc = self._lib.embperf_ctx_set_cpu(self._handle(), value)
        if rc < 0:
            raise ParameterError(rc, self.errmsg, "embperf_ctx_set_cpu", "cpu", cpu)

    @property
    def sysinfo(self):
        """System information as a dict (a fresh copy on each access).

        Values are str; those of keys ending in _bytes or _ns and
        cpus_online are int. An entry the system does not tell is None.
        """
        handle = self._handle()
        info = {}
        for index in range(self._lib.embperf_ctx_sysinfo_count(handle)):
            key = decode(self._lib.embperf_ctx_sysinfo_key(handle, index))
            if key is None:
                continue
            text = decode(self._lib.embperf_ctx_sysinfo(handle, encode(key)))
            info[key] = _sysinfo_value(key, text)
        return info

    @property
    def errmsg(self):
        """Detail of the last failing context-level call ("" when none)."""
        return decode(self._lib.embperf_ctx_errmsg(self._handle())) or ""

    # -- callbacks ---------------------------------------------------------

    def _guard(self, func):
        """Wrap a user callback so that an exception cancels the run.

        ctypes cannot propagate an exception through C: it would print it
        and go on. The wrapper keeps it for Bench.run() to raise instead.
        A weak reference avoids a cycle context -> wrapper -> context.
        """
        owner = weakref.ref(self)

        def call(*args):
            ctx = owner()
            if ctx is None or ctx._callback_error is not None:
                return
            try:
                func(*args)
            except BaseException as exc:  # KeyboardInterrupt included
                ctx._callback_error = exc
                if ctx._ptr:
                    ctx._lib.embperf_ctx_cancel(ctx._ptr)
        return call

    @contextlib.contextmanager
    def _interruptible(self):
        """Make Ctrl-C cancel the run in progress, for the duration of a run.

        Python runs signal handlers between bytecodes only, and an
        exception raised in a ctypes callback is lost. So while a run is in
        C, SIGINT is routed to a handler that cancels the run and records a
        KeyboardInterrupt for Bench.run() to raise, and a progress callback
        gives Python the chance to run that handler between samples. Only
        done in the main thread, and only when SIGINT has Python's default
        handler: a program's own handler is left alone.
        """
        if (threading.current_thread() is not threading.main_thread()
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
            yield
            return
        owner = weakref.ref(self)

        def on_sigint(_signum, _frame):
            ctx = owner()
            if ctx is None:
                return
            if ctx._callback_error is None:
                ctx._callback_error = KeyboardInterrupt()
            if ctx._ptr:
                ctx._lib.embperf_ctx_cancel(ctx._ptr)

        previous = signal.signal(signal.SIGINT, on_sigint)
        temporary = self._progress_fn is None
        if temporary:
            self._progress_fn = _clib.PROGRESS_FN(lambda *_args: None)
            self._lib.embperf_ctx_set_progress_fn(self._ptr, self._progress_fn, None)
        try:
            yield
        finally:
            if temporary and self._ptr:
                self._lib.embperf_ctx_set_progress_fn(self._ptr, _clib.PROGRESS_FN(), None)
                self._progress_fn = None
            signal.signal(signal.SIGINT, previous)

    def _take_callback_error(self):
        exc, self._callback_error = self._callback_error, None
        return exc

    def set_log(self, func, level=LogLevel.INFO):
        """Receive log messages: ``func(level: LogLevel, message: str)``.

        None stops delivery. Messages above ``level`` are dropped.
        """
        handle = self._handle()
        if func is None:
            self._lib.embperf_ctx_set_log_fn(handle, _clib.LOG_FN(), None, int(level))
            self._log_fn = None
            return
        guarded = self._guard(func)

        def on_log(_user_data, lvl, message):
            try:
                lvl = LogLevel(lvl)
            except ValueError:
                pass
            guarded(lvl, decode(message) or "")

        wrapper = _clib.LOG_FN(on_log)
        self._lib.embperf_ctx_set_log_fn(handle, wrapper, None, int(level))
        self._log_fn = wrapper  # keep it alive while installed

    def set_progress(self, func):
        """Receive progress: ``func(kernel: str, what: str, fraction: float)``.

        None removes the callback. Calling cancel() from it stops the run.
        """
        handle = self._handle()
        if func is None:
            self._lib.embperf_ctx_set_progress_fn(handle, _clib.PROGRESS_FN(), None)
            self._progress_fn = None
            return
        guarded = self._guard(func)

        def on_progress(_user_data, kernel, what, fraction):
            guarded(decode(kernel) or "", decode(what) or "", fraction)

        wrapper = _clib.PROGRESS_FN(on_progress)
        self._lib.embperf_ctx_set_progress_fn(handle, wrapper, None)
        self._progress_fn = wrapper  # keep it alive while installed
