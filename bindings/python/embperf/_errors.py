# SPDX-License-Identifier: MIT
"""Exceptions raised by the embperf package.

libembperf returns negative errno values and keeps a detail message per
handle. The package turns both into one exception: an Error, which is an
OSError whose ``errno`` is the (positive) code and whose ``strerror`` is the
library's detail message, so it reads "[Errno 22] size: '12Q' is not a size
(accepted: 512..1G)".
"""

import errno as _errno

from . import _clib
from ._clib import LibraryNotFoundError

__all__ = ["Error", "ParameterError", "UnknownKernelError", "NotSupportedError",
           "Cancelled", "BudgetExceeded", "LibraryNotFoundError", "strerror",
           "error_from_code"]


def strerror(code):
    """Name an error code of the library (negative or positive errno).

    >>> strerror(-errno.ETIME)       # doctest: +SKIP
    'ETIME: time budget exhausted'
    """
    return _clib.lib().embperf_strerror(int(code)).decode("utf-8", "replace")


class Error(OSError):
    """A libembperf call failed.

    Attributes:
        errno:    the positive errno value (``errno.EINVAL``, ...).
        strerror: the detail message of the library, or the name of the code
                  when the library gave none.
        detail:   the library's detail message ("" when there was none).
        code:     the value the C function returned (negative errno).
        function: name of the C function that failed.
        filename: the file concerned, for report load/save.
    """

    def __init__(self, code, detail="", function=None, filename=None):
        code = abs(int(code))
        message = detail or strerror(code)
        if filename is None:
            super().__init__(code, message)
        else:
            super().__init__(code, message, filename)
        self.detail = detail
        self.code = -code
        self.function = function

    def __str__(self):
        text = "[Errno %s] %s" % (self.errno, self.strerror)
        # The library's messages usually name the file already.
        if self.filename is not None and str(self.filename) not in self.strerror:
            text += ": %r" % (self.filename,)
        return text


class ParameterError(Error, ValueError):
    """A parameter name or value was refused (-ENOENT, -EINVAL, -ERANGE).

    ``param`` names the parameter, ``value`` is what was given.
    """

    def __init__(self, code, detail="", function=None, param=None, value=None):
        super().__init__(code, detail, function)
        self.param = param
        self.value = value


class UnknownKernelError(Error, LookupError):
    """No kernel of that name in this build (-ENOENT)."""


class NotSupportedError(Error):
    """The kernel needs a feature left out of the build (-EOPNOTSUPP)."""


class Cancelled(Error):
    """The run was cancelled (-ECANCELED); it kept no results."""


class BudgetExceeded(Error):
    """The context's time budget cut the run short (-ETIME).

    ``results`` holds the results that got at least one sample (each has
    ``truncated`` set); it may be empty.
    """

    def __init__(self, code, detail="", function=None, results=None):
        super().__init__(code, detail, function)
        self.results = list(results or [])


_BY_CODE = {
    _errno.ECANCELED: Cancelled,
    _errno.ETIME: BudgetExceeded,
    _errno.EOPNOTSUPP: NotSupportedError,
}


def error_from_code(code, detail="", function=None, filename=None):
    """Build the exception matching a negative errno returned by a C call."""
    cls = _BY_CODE.get(abs(int(code)), Error)
    if cls is Error:
        return Error(code, detail, function, filename)
    return cls(code, detail, function)
