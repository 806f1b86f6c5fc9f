# SPDX-License-Identifier: MIT
"""Library-wide queries: version, features, kernels and their description."""

import enum

from . import _clib
from ._errors import UnknownKernelError
from ._util import decode, encode, read_sized

__all__ = ["version", "version_number", "has_feature", "features", "kernels",
           "describe", "Info", "FEATURES"]

#: Optional parts embperf_has_feature() knows.
FEATURES = ("alsa", "pcap", "libnl", "perf", "io_uring", "json")


class Info(enum.IntEnum):
    """Fields of a parameter or metric description (enum embperf_info)."""

    NAME = 0
    TYPE = 1
    DEFAULT = 2
    RANGE = 3
    UNIT = 4
    HELP = 5
    PRIMARY = 6
    BETTER = 7
    GROUP = 8


_PARAM_FIELDS = (Info.TYPE, Info.DEFAULT, Info.RANGE, Info.UNIT, Info.HELP, Info.GROUP)
_METRIC_FIELDS = (Info.UNIT, Info.HELP, Info.PRIMARY, Info.BETTER)


def version():
    """Version of the loaded library, e.g. "0.1.0"."""
    return decode(_clib.lib().embperf_version_string())


def version_number():
    """Version of the loaded library as major * 10000 + minor * 100 + patch."""
    return int(_clib.lib().embperf_version_number())


def has_feature(name):
    """True when the optional part ``name`` ("alsa", "perf", ...) was built in."""
    return bool(_clib.lib().embperf_has_feature(encode(name)))


def features():
    """Dict of every known optional part -> whether it was built in."""
    return {name: has_feature(name) for name in FEATURES}


def kernels():
    """Names of the kernels in this build, in registry order."""
    lib = _clib.lib()
    names = (decode(lib.embperf_kernel_name(i)) for i in range(lib.embperf_kernel_count()))
    return [name for name in names if name is not None]


def _unknown(kernel, code):
    known = ", ".join(kernels()) or "none"
    return UnknownKernelError(code, "kernel '%s' does not exist (kernels: %s)" % (kernel, known),
                              "embperf_kernel_param_count")


def _entries(info_func, kernel, count, fields):
    """Read the descriptions of parameters or metrics into a dict by name."""
    entries = {}
    for index in range(count):
        name = read_sized(info_func, kernel, index, Info.NAME)[1]
        if name is not None:
            # A field that does not apply (negative return) reads as None.
            entries[name] = {field.name.lower(): read_sized(info_func, kernel, index, field)[1]
                             for field in fields}
    return entries


def describe(kernel):
    """Describe a kernel's parameters and metrics.

    Return: a dict::

        {"name": "mem.lat", "summary": "...",
         "params":  {"size": {"type": "size", "default": "...", "range": "...",
                              "unit": "bytes", "help": "...", "group": "kernel"},
                     ...},
         "metrics": {"latency": {"unit": "ns", "help": "...",
                                 "primary": "min", "better": "lower"}, ...}}

    Fields the library does not give are None. Raises UnknownKernelError.
    """
    lib = _clib.lib()
    name = encode(kernel)
    n_params = lib.embperf_kernel_param_count(name)
    if n_params < 0:
        raise _unknown(kernel, n_params)
    n_metrics = max(lib.embperf_kernel_metric_count(name), 0)
    params = _entries(lib.embperf_kernel_param_info, name, n_params, _PARAM_FIELDS)
    metrics = _entries(lib.embperf_kernel_metric_info, name, n_metrics, _METRIC_FIELDS)
    return {
        "name": kernel,
        "summary": decode(lib.embperf_kernel_summary(name)),
        "params": params,
        "metrics": metrics,
    }
