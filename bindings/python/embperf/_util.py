# SPDX-License-Identifier: MIT
"""Conversions between Python values and the C strings of libembperf."""

import ctypes
import os

__all__ = ["encode", "encode_path", "decode", "read_sized", "split_pairs"]


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


def split_pairs(text):
    """Parse "key=value key=value" into a dict of str (order kept).

    A value holding a space (a path, say) arrives split in several words; a
    word without "=" is therefore joined to the value before it.
    """
    pairs = {}
    last = None
    for word in (text or "").split(" "):
        if not word:
            continue
        key, sep, value = word.partition("=")
        if sep and key:
            pairs[key] = value
            last = key
        elif last is not None:
            pairs[last] += " " + word
    return pairs
