# SPDX-License-Identifier: MIT
"""Conversions between Python values and the C strings of libembperf."""

import ctypes
import os

__all__ = ["Handle", "OwnedHandle", "encode", "encode_path", "decode", "read_sized"]


def encode(text):
    """str -> UTF-8 bytes for a `const char *` argument (None stays NULL)."""
    if text is None:
        return None
    if isinstance(text, bytes):
        return text
    return str(text).encode("utf-8")


def encode_path(path):
    """A str, bytes or os.PathLike path -> bytes, as the OS spells it."""
    return os.fsencode(path)


def decode(raw):
    """A `const char *` result (bytes or None) -> str or None."""
    if raw is None:
        return None
    return raw.decode("utf-8", "replace")


def read_sized(func, *args):
    """Call a C function filling (buf, size) and return its text.

    The functions return the full length, which may exceed the buffer: then
    they are called again with a buffer large enough.

    Return: (length_or_negative_errno, text or None).
    """
    size = 128
    while True:
        buf = ctypes.create_string_buffer(size)
        length = func(*args, buf, size)
        if length < 0:
            return length, None
        if length < size:
            return length, buf.raw[:length].decode("utf-8", "replace")
        size = length + 1


class Handle:
    """Lifetime of a C handle held in self._ptr: closed state, context
    manager, and close() on garbage collection. Subclasses define close()."""

    _ptr = None

    def _handle(self):
        if not self._ptr:
            raise ValueError("operation on a closed embperf.%s" % type(self).__name__)
        return self._ptr

    @property
    def closed(self):
        """True once close() has run (or, for children, their context was closed)."""
        return not self._ptr

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: modules may be gone
            pass


class OwnedHandle(Handle):
    """A handle that belongs to a Context (a bench or a report), and may
    own a private context made for it. _free names the C function."""

    _free = None
    _own_ctx = False
    _ctx = None

    def close(self):
        """Free the handle (and its own context, if it made one). Idempotent."""
        ptr, self._ptr = self._ptr, None
        if ptr:
            getattr(self._lib, self._free)(ptr)
        # Cleared first: the context closes its children, this one included.
        own, self._own_ctx = self._own_ctx, False
        if own and self._ctx is not None:
            self._ctx.close()
