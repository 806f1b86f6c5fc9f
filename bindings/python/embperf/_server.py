# SPDX-License-Identifier: MIT
"""Server: the peer of the network kernels (``embperf serve``) in this process."""

import ctypes
import errno

from . import _clib
from ._context import Context
from ._errors import Cancelled, Error, ParameterError, error_from_code
from ._util import OwnedHandle, decode, encode

__all__ = ["Server"]

_FOREVER = 2**64 - 1
#: Names of embperf_server_stat(), in the enum's order.
STATS = ("connections", "sessions", "trials", "refused", "busy", "invalid")


class Server(OwnedHandle):
    """The peer the net.* kernels measure against.

    ::

        with embperf.Context() as ctx, embperf.Server(ctx, listen="0.0.0.0:5301",
                                                     allow=["192.168.0.0/24"]) as srv:
            srv.start()
            srv.serve()          # until ctx.cancel(), from another thread or a signal

    Keyword arguments are the server's settings (doc/api.md): ``listen``
    ("ADDR[:PORT]"; port 0 picks a free one, see ``port``), ``allow`` (an
    address block or a list of them), ``max_rate``, ``max_duration``,
    ``max_size``, ``idle_timeout`` (text as kernel parameters take it, or
    numbers in base units). ``ctx`` is the Context whose cancel() stops
    serve(); without one the server makes its own.
    """

    _free = "embperf_server_free"

    def __init__(self, ctx=None, **settings):
        self._lib = _clib.lib()
        self._ptr = None
        if ctx is not None and not isinstance(ctx, Context):
            raise TypeError("ctx must be an embperf.Context, not %s" % type(ctx).__name__)
        self._own_ctx = ctx is None
        self._ctx = Context() if ctx is None else ctx
        ptr = self._lib.embperf_server_new(self._ctx._handle())
        if not ptr:
            code = ctypes.get_errno() or errno.ENOMEM
            if self._own_ctx:
                self._ctx.close()
            raise Error(code, "", "embperf_server_new")
        self._ptr = ptr
        self._ctx._children.add(self)
        try:
            for name, value in settings.items():
                values = value if isinstance(value, (list, tuple)) else [value]
                for one in values:
                    self.set(name, one)
        except BaseException:
            self.close()
            raise

    @property
    def context(self):
        """The Context whose cancel() stops serve()."""
        return self._ctx

    @property
    def errmsg(self):
        """Detail of the server's last failure ("" when none)."""
        return decode(self._lib.embperf_server_errmsg(self._handle())) or ""

    def set(self, name, value):
        """One setting, before start(); ParameterError names what is accepted."""
        rc = self._lib.embperf_server_set(self._handle(), encode(name), encode(value))
        if rc < 0:
            raise ParameterError(-rc, self.errmsg, "embperf_server_set", name, value)

    def start(self):
        """Bind and listen (serve() does it too); OSError on a taken port."""
        rc = self._lib.embperf_server_start(self._handle())
        if rc < 0:
            raise error_from_code(-rc, self.errmsg, "embperf_server_start")

    @property
    def port(self):
        """The TCP port listened on (after start())."""
        port = self._lib.embperf_server_port(self._handle())
        if port < 0:
            raise ValueError("the server does not listen yet: call start()")
        return port

    def serve(self, seconds=None):
        """Serve for ``seconds`` (None: until the context is cancelled).

        Returns when the time is up; raises Cancelled when the context was
        cancelled (the normal end of serving until told to stop).
        """
        timeout = _FOREVER if seconds is None else max(0, int(seconds * 1e9))
        rc = self._lib.embperf_server_run(self._handle(), timeout)
        if rc == -errno.ECANCELED:
            raise Cancelled(errno.ECANCELED, "", "embperf_server_run")
        if rc < 0:
            raise error_from_code(-rc, self.errmsg, "embperf_server_run")

    @property
    def stats(self):
        """{name: count} of connections, sessions, trials, refused, busy, invalid."""
        out = {}
        for index, name in enumerate(STATS):
            value = ctypes.c_uint64()
            if self._lib.embperf_server_stat(self._handle(), index, ctypes.byref(value)) == 0:
                out[name] = value.value
        return out

    def __repr__(self):
        if not self._ptr:
            return "<embperf.Server closed>"
        return "<embperf.Server>"
