# SPDX-License-Identifier: MIT
"""Shared helpers of the embperf binding tests.

Run from the source tree:

    EMBPERF_LIBRARY=/path/to/build/lib/libembperf.so \
        python3 -m unittest discover -s bindings/python/tests -v

The package next to this folder is imported (not an installed one) unless
EMBPERF_TEST_INSTALLED=1. The public header is found through
$EMBPERF_SRCDIR/include/embperf.h, else relative to this file.
"""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)

if os.environ.get("EMBPERF_TEST_INSTALLED") != "1" and PACKAGE_DIR not in sys.path:
    sys.path.insert(0, PACKAGE_DIR)

import embperf  # noqa: E402  (after the path set-up above)

# Engine settings that keep runs short: the tests check behaviour, not speed.
QUICK = {"repetitions": 3, "warmup": 0, "sample_time": "200us"}


def header_path():
    """Path of include/embperf.h."""
    srcdir = os.environ.get("EMBPERF_SRCDIR")
    if srcdir:
        return os.path.join(srcdir, "include", "embperf.h")
    return os.path.normpath(os.path.join(HERE, "..", "..", "..", "include", "embperf.h"))


def read_header():
    with open(header_path(), encoding="utf-8") as f:
        return f.read()


# A declaration starts a line with EMBPERF_API and ends at its ';'. Parameter
# lists hold no parentheses: callbacks are typedefs.
_DECL = re.compile(r"^EMBPERF_API[ \t]+([^\n;()]*?)\b(embperf_\w+)\s*\(([^)]*)\)\s*;",
                   re.MULTILINE)
_API_LINE = re.compile(r"^EMBPERF_API[ \t]", re.MULTILINE)


def _split_decl(text):
    """'const char *name' -> 'const char *' (the type, spaces normalised)."""
    text = " ".join(text.split())
    match = re.match(r"^(.*?)\s*\b\w+$", text)
    type_text = match.group(1) if match and match.group(1) else text
    return type_text.replace(" *", "*").replace("*", " *").strip()


def header_functions():
    """Parse the header: list of (name, return type, [parameter types]).

    Also returns the number of lines starting with EMBPERF_API, so a test
    can check that the parser saw every one.
    """
    text = read_header()
    functions = []
    for match in _DECL.finditer(text):
        restype = " ".join(match.group(1).split()).replace(" *", "*").replace("*", " *").strip()
        params = " ".join(match.group(3).split())
        if params in ("void", ""):
            argtypes = []
        else:
            argtypes = [_split_decl(p) for p in params.split(",")]
        functions.append((match.group(2), restype, argtypes))
    return functions, len(_API_LINE.findall(text))


def header_macro(name):
    """Value of a #define in the header (as text)."""
    match = re.search(r"^#define\s+%s\s+(.+)$" % re.escape(name), read_header(), re.MULTILINE)
    if not match:
        raise AssertionError("include/embperf.h lacks #define %s" % name)
    return match.group(1).strip()


def require_kernel(test, name):
    """Skip ``test`` when this build lacks the kernel ``name``."""
    if name not in embperf.kernels():
        test.skipTest("libembperf lacks kernel %s (not in this build: %s)"
                      % (name, ", ".join(embperf.kernels()) or "no kernels"))


def quick_params(kernel, **params):
    """QUICK settings limited to parameters the kernel has, plus ``params``."""
    known = embperf.describe(kernel)["params"]
    merged = {k: v for k, v in QUICK.items() if k in known}
    merged.update(params)
    return merged


def small_size_params(kernel):
    """A small working set for a memory kernel, whatever its size parameter."""
    known = embperf.describe(kernel)["params"]
    for name in ("size", "sizes", "bytes"):
        if name in known:
            return {name: "64k"}
    raise unittest.SkipTest("kernel %s has no size parameter (has: %s)"
                            % (kernel, ", ".join(known)))
