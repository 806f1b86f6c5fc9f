# SPDX-License-Identifier: MIT
"""Report: results of many runs; rendered, saved, loaded, compared."""

import ctypes
import enum
import errno
import os

from . import _clib
from ._bench import Bench
from ._context import Context
from ._errors import Error, ParameterError
from ._result import Result, Verdict
from ._util import OwnedHandle, decode, encode, encode_path

__all__ = ["Report", "Format"]


class Format(enum.IntEnum):
    """Report renderings (enum embperf_format)."""

    TEXT = 0
    MARKDOWN = 1
    JSON = 2
    CSV = 3
    JUNIT = 4  # since libembperf 0.3
    LAVA = 5   # since libembperf 0.3


_FORMAT_NAMES = {
    "text": Format.TEXT, "txt": Format.TEXT,
    "markdown": Format.MARKDOWN, "md": Format.MARKDOWN,
    "json": Format.JSON,
    "csv": Format.CSV,
    "junit": Format.JUNIT, "xml": Format.JUNIT,
    "lava": Format.LAVA,
}


def _format(fmt):
    """Format from a Format, an int or a name ("json", "md", ...)."""
    if isinstance(fmt, str):
        try:
            return _FORMAT_NAMES[fmt.lower()]
        except KeyError:
            raise ValueError("unknown report format %r (accepted: %s)"
                             % (fmt, ", ".join(sorted(_FORMAT_NAMES)))) from None
    return Format(fmt)


def _format_of_path(path):
    """Format named by a file's extension; JSON when it names none."""
    ext = os.path.splitext(os.fsdecode(path))[1].lstrip(".").lower()
    return _FORMAT_NAMES.get(ext, Format.JSON)


class Report(OwnedHandle):
    """Results of many runs, with the system information of their context.

    ::

        with embperf.Context() as ctx, embperf.Report(ctx) as report:
            with embperf.Bench("mem.lat", ctx, size="8M") as bench:
                bench.run()
                report.add(bench, title="lat-8M")
            print(report.render("text"))
            report.save("board.json")
            failures = report.compare(embperf.Report.load("golden.json"), 5)

    Iterating yields Result copies; len() counts them; ``report[i]`` is the
    i-th and ``report["key"]`` the one find() gives.
    """

    _free = "embperf_report_free"

    def __init__(self, ctx=None, *, _ptr=None, _own_ctx=False):
        self._lib = _clib.lib()
        self._ptr = None
        self._ctx = None
        self._own_ctx = _own_ctx
        if ctx is not None and not isinstance(ctx, Context):
            raise TypeError("ctx must be an embperf.Context, not %s" % type(ctx).__name__)
        self._ctx = ctx
        if _ptr is None:
            _ptr = self._lib.embperf_report_new(ctx._handle() if ctx is not None else None)
            if not _ptr:
                raise Error(ctypes.get_errno() or errno.ENOMEM, "", "embperf_report_new")
        self._ptr = _ptr
        if ctx is not None:
            ctx._children.add(self)

    @classmethod
    def _read(cls, func, arg, ctx, filename):
        """Shared part of load() and parse()."""
        lib = _clib.lib()
        own = ctx is None
        # Without a context the library could not say why the input is bad.
        ctx = Context() if own else ctx
        ptr = getattr(lib, func)(ctx._handle(), arg)
        if not ptr:
            code = ctypes.get_errno() or errno.EBADMSG
            detail = ctx.errmsg
            if own:
                ctx.close()
            raise Error(code, detail, func, filename)
        return cls(ctx, _ptr=ptr, _own_ctx=own)

    @classmethod
    def load(cls, path, ctx=None):
        """Read a JSON report written by save().

        Raises Error with errno ENOENT, EACCES, EISDIR (cannot read) or
        EBADMSG (not a valid report; the message names the place).
        """
        return cls._read("embperf_report_load", encode_path(path), ctx, os.fsdecode(path))

    @classmethod
    def parse(cls, text, ctx=None):
        """Read a JSON report from a str (or bytes)."""
        return cls._read("embperf_report_parse", encode(text), ctx, None)

    # -- lifetime ----------------------------------------------------------

    def __repr__(self):
        if not self._ptr:
            return "<embperf.Report closed>"
        return "<embperf.Report of %d results>" % len(self)

    @property
    def errmsg(self):
        """Detail of the report's last failure ("" when none)."""
        return decode(self._lib.embperf_report_errmsg(self._handle())) or ""

    # -- content -----------------------------------------------------------

    def add(self, bench, title=None):
        """Copy the results of the bench's last run; return how many.

        ``title`` names the row(s); with several results "{metric}" and
        "{LABEL}" in it are replaced by each result's metric and labels.
        """
        if not isinstance(bench, Bench):
            raise TypeError("add() needs an embperf.Bench, not %s" % type(bench).__name__)
        rc = self._lib.embperf_report_add(self._handle(), bench._handle(), encode(title))
        if rc == -errno.EINVAL:
            raise ParameterError(rc, self.errmsg, "embperf_report_add", "title", title)
        if rc < 0:
            raise Error(rc, self.errmsg, "embperf_report_add")
        return rc

    def merge(self, other):
        """Copy every result of the Report ``other`` into this one, titles as
        they are (since 0.4); return how many were added."""
        if not isinstance(other, Report):
            raise TypeError("merge() needs an embperf.Report, not %s" % type(other).__name__)
        added = 0
        for index in range(len(other)):
            ptr = self._lib.embperf_report_result(other._handle(), index)
            rc = self._lib.embperf_report_add_result(self._handle(), ptr, None)
            if rc < 0:
                raise Error(rc, self.errmsg, "embperf_report_add_result")
            added += rc
        return added

    def set_sysinfo(self, key, value):
        """Record a system information entry (since 0.4): ``key`` is 1 to 64
        letters, digits, '_', '-' or '.'; ``value`` any text."""
        rc = self._lib.embperf_report_set_sysinfo(self._handle(), encode(key), encode(value))
        if rc == -errno.EINVAL:
            raise ParameterError(rc, self.errmsg, "embperf_report_set_sysinfo", "key", key)
        if rc < 0:
            raise Error(rc, self.errmsg, "embperf_report_set_sysinfo")

    def __len__(self):
        return max(self._lib.embperf_report_result_count(self._handle()), 0)

    def _result_at(self, index):
        ptr = self._lib.embperf_report_result(self._handle(), index)
        return Result._from_ptr(self._lib, ptr) if ptr else None

    def __getitem__(self, item):
        if isinstance(item, str):
            found = self.find(item)
            if found is None:
                raise KeyError(item)
            return found
        count = len(self)
        if isinstance(item, slice):
            return [self._result_at(i) for i in range(*item.indices(count))]
        index = int(item)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("report index out of range")
        return self._result_at(index)

    def __iter__(self):
        for index in range(len(self)):
            result = self._result_at(index)
            if result is not None:
                yield result

    @property
    def results(self):
        """All results, as a new list of copies."""
        return list(self)

    def find(self, key):
        """The first result whose key (title, or "kernel/metric[labels]")
        is ``key``; None when none."""
        ptr = self._lib.embperf_report_find(self._handle(), encode(key))
        return Result._from_ptr(self._lib, ptr) if ptr else None

    def sysinfo(self, key):
        """A system information entry recorded in the report (str or None)."""
        return decode(self._lib.embperf_report_sysinfo(self._handle(), encode(key)))

    # -- output ------------------------------------------------------------

    def render(self, fmt="text"):
        """The report as text: fmt is "text", "markdown", "json", "csv", "junit",
        "lava" or a Format. JUnit and LAVA of a report without results raise
        Error (ENODATA)."""
        fmt = _format(fmt)
        handle = self._handle()
        raw = self._lib.embperf_report_render(handle, fmt)
        if not raw:
            code = ctypes.get_errno() or errno.ENOMEM
            raise Error(code, self.errmsg, "embperf_report_render")
        try:
            return ctypes.string_at(raw).decode("utf-8", "replace")
        finally:
            self._lib.embperf_free(raw)

    def save(self, path, fmt=None):
        """Write a rendering to ``path`` atomically.

        fmt defaults to the one the extension names (.json, .md, .csv,
        .txt, .xml for JUnit), JSON otherwise.
        """
        fmt = _format_of_path(path) if fmt is None else _format(fmt)
        rc = self._lib.embperf_report_save(self._handle(), fmt, encode_path(path))
        if rc < 0:
            raise Error(rc, self.errmsg, "embperf_report_save", os.fsdecode(path))

    # -- comparison --------------------------------------------------------

    def compare(self, baseline, tolerance=5.0):
        """Judge every result against a baseline; return the failure count.

        ``baseline`` is a Report or the path of a saved JSON report;
        ``tolerance`` is the allowed change in percent (0 to 1000).
        Failures are regressions plus baseline metrics missing here; 0
        means pass. Each result's ``verdict`` and ``baseline`` are set:
        read them from the report afterwards (see regressions()).
        """
        if isinstance(baseline, Report):
            return self._compare(baseline, tolerance)
        with Report.load(baseline, self._ctx) as loaded:
            return self._compare(loaded, tolerance)

    def _compare(self, baseline, tolerance):
        rc = self._lib.embperf_report_compare(self._handle(), baseline._handle(),
                                              float(tolerance))
        if rc == -errno.EINVAL:
            raise ParameterError(rc, self.errmsg, "embperf_report_compare", "tolerance",
                                 tolerance)
        if rc < 0:
            raise Error(rc, self.errmsg, "embperf_report_compare")
        return rc

    def regressions(self):
        """Results whose last comparison found them regressed."""
        return [r for r in self if r.verdict == Verdict.REGRESSED]
