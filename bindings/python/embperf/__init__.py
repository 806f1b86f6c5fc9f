# SPDX-License-Identifier: MIT
"""embperf - Python bindings of libembperf, through ctypes.

libembperf runs benchmark kernels (memory latency and bandwidth, STREAM, CPU
and OS latencies, block I/O, audio, network) under one measurement engine
and reports their results as tables or JSON. These bindings need no
compiler: they load the installed shared library.

Quick use::

    import embperf
    print(embperf.kernels())
    print(embperf.run("mem.lat", size="64M").median, "ns")

The library is found through, in order: the path in $EMBPERF_LIBRARY,
ctypes.util.find_library("embperf"), then the name libembperf.so.1. It is
loaded on first use; LibraryNotFoundError (an ImportError) says what was
tried.

Units follow the library: times in ns, bandwidths in MB/s with
MB = 10^6 bytes. See doc/python.md.
"""

from ._clib import ENV_LIBRARY, LibraryNotFoundError
from ._errors import (BudgetExceeded, Cancelled, Error, NotSupportedError,
                      ParameterError, UnknownKernelError, strerror)
from ._kernels import (FEATURES, Info, describe, features, has_feature, kernels,
                       version, version_number)
from ._context import Context, LogLevel
from ._result import (Baseline, Distribution, Result, RunResult, Stat, Stats, TrialField,
                      TrialLog, Verdict)
from ._bench import Bench, run
from ._report import Format, Report
from ._server import Server

#: Version of these bindings (the library's is version()).
__version__ = "0.3.0"

__all__ = [
    "Bench", "Baseline", "BudgetExceeded", "Cancelled", "Context", "Distribution",
    "ENV_LIBRARY", "Error", "FEATURES", "Format", "Info", "LibraryNotFoundError", "LogLevel",
    "NotSupportedError", "ParameterError", "Report", "Result", "RunResult", "Server", "Stat",
    "Stats", "TrialField", "TrialLog", "UnknownKernelError", "Verdict", "describe",
    "features", "has_feature", "kernels", "run", "strerror", "version", "version_number",
]
