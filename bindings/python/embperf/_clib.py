# SPDX-License-Identifier: MIT
"""Low-level access to libembperf: finding the library and its C prototypes.

Every public function of include/embperf.h is declared here with its
argument and return types, so that ctypes never guesses (a guessed return
type truncates pointers to 32 bits on 64-bit machines). Handles are typed
pointers to opaque structures, which makes ctypes refuse a bench where a
context is expected.

Nothing here is meant for users of the package: use the classes that
embperf/__init__.py exports.
"""

import ctypes
import ctypes.util
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_uint, c_uint64, c_void_p)

__all__ = ["LibraryNotFoundError", "lib", "LOG_FN", "PROGRESS_FN",
           "CtxPtr", "BenchPtr", "ResultPtr", "ReportPtr", "PROTOTYPES",
           "SONAME", "ENV_LIBRARY"]

#: Environment variable naming the shared library to load, checked first.
ENV_LIBRARY = "EMBPERF_LIBRARY"
#: Name the runtime linker knows the library by (its SONAME).
SONAME = "libembperf.so.1"


class LibraryNotFoundError(ImportError):
    """libembperf could not be loaded; the message lists what was tried."""


class _Ctx(Structure):
    """struct embperf_ctx (opaque)."""


class _Bench(Structure):
    """struct embperf_bench (opaque)."""


class _Result(Structure):
    """struct embperf_result (opaque)."""


class _Report(Structure):
    """struct embperf_report (opaque)."""


class _Server(Structure):
    """struct embperf_server (opaque)."""


CtxPtr = POINTER(_Ctx)
BenchPtr = POINTER(_Bench)
ResultPtr = POINTER(_Result)
ReportPtr = POINTER(_Report)
ServerPtr = POINTER(_Server)

#: typedef void (*embperf_log_fn)(void *user_data, int level, const char *message);
LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
#: typedef void (*embperf_progress_fn)(void *user_data, const char *kernel,
#:                                     const char *what, double fraction);
PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, c_double)

# embperf_report_render() returns memory the caller must release with
# embperf_free(): declared as c_void_p so that ctypes keeps the address
# instead of converting it to bytes and losing it.
_OWNED_STRING = c_void_p

#: name -> (restype, argtypes), one entry per EMBPERF_API function.
PROTOTYPES = {
    # Version, errors, features
    "embperf_version_number": (c_uint, ()),
    "embperf_version_string": (c_char_p, ()),
    "embperf_strerror": (c_char_p, (c_int,)),
    "embperf_has_feature": (c_int, (c_char_p,)),
    "embperf_free": (None, (c_void_p,)),
    # Session context
    "embperf_ctx_new": (CtxPtr, ()),
    "embperf_ctx_free": (None, (CtxPtr,)),
    "embperf_ctx_set_budget_ns": (c_int, (CtxPtr, c_uint64)),
    "embperf_ctx_remaining_ns": (c_uint64, (CtxPtr,)),
    "embperf_ctx_cancel": (None, (CtxPtr,)),
    "embperf_ctx_reset_cancel": (None, (CtxPtr,)),
    "embperf_ctx_is_cancelled": (c_int, (CtxPtr,)),
    "embperf_ctx_set_log_fn": (None, (CtxPtr, LOG_FN, c_void_p, c_int)),
    "embperf_ctx_set_progress_fn": (None, (CtxPtr, PROGRESS_FN, c_void_p)),
    "embperf_ctx_set_cpu": (c_int, (CtxPtr, c_int)),
    "embperf_ctx_get_cpu": (c_int, (CtxPtr,)),
    "embperf_ctx_sysinfo_count": (c_int, (CtxPtr,)),
    "embperf_ctx_sysinfo_key": (c_char_p, (CtxPtr, c_int)),
    "embperf_ctx_sysinfo": (c_char_p, (CtxPtr, c_char_p)),
    "embperf_ctx_errmsg": (c_char_p, (CtxPtr,)),
    # Kernels and their description
    "embperf_kernel_count": (c_int, ()),
    "embperf_kernel_name": (c_char_p, (c_int,)),
    "embperf_kernel_summary": (c_char_p, (c_char_p,)),
    "embperf_kernel_param_count": (c_int, (c_char_p,)),
    "embperf_kernel_param_info": (c_int, (c_char_p, c_int, c_int, c_char_p, c_size_t)),
    "embperf_kernel_metric_count": (c_int, (c_char_p,)),
    "embperf_kernel_metric_info": (c_int, (c_char_p, c_int, c_int, c_char_p, c_size_t)),
    # Benchmarks
    "embperf_bench_new": (BenchPtr, (CtxPtr, c_char_p)),
    "embperf_bench_free": (None, (BenchPtr,)),
    "embperf_bench_kernel": (c_char_p, (BenchPtr,)),
    "embperf_bench_set": (c_int, (BenchPtr, c_char_p, c_char_p)),
    "embperf_bench_set_int": (c_int, (BenchPtr, c_char_p, c_int64)),
    "embperf_bench_set_double": (c_int, (BenchPtr, c_char_p, c_double)),
    "embperf_bench_get": (c_int, (BenchPtr, c_char_p, c_char_p, c_size_t)),
    "embperf_bench_run": (c_int, (BenchPtr,)),
    "embperf_bench_result_count": (c_int, (BenchPtr,)),
    "embperf_bench_result": (ResultPtr, (BenchPtr, c_int)),
    "embperf_bench_errmsg": (c_char_p, (BenchPtr,)),
    # Results
    "embperf_result_kernel": (c_char_p, (ResultPtr,)),
    "embperf_result_metric": (c_char_p, (ResultPtr,)),
    "embperf_result_unit": (c_char_p, (ResultPtr,)),
    "embperf_result_title": (c_char_p, (ResultPtr,)),
    "embperf_result_labels": (c_char_p, (ResultPtr,)),
    "embperf_result_label": (c_int, (ResultPtr, c_char_p, c_char_p, c_size_t)),
    "embperf_result_params": (c_char_p, (ResultPtr,)),
    "embperf_result_value": (c_double, (ResultPtr,)),
    "embperf_result_stat": (c_double, (ResultPtr, c_int)),
    "embperf_result_primary": (c_char_p, (ResultPtr,)),
    "embperf_result_higher_is_better": (c_int, (ResultPtr,)),
    "embperf_result_sample_count": (c_int, (ResultPtr,)),
    "embperf_result_sample": (c_double, (ResultPtr, c_int)),
    "embperf_result_counter_count": (c_int, (ResultPtr,)),
    "embperf_result_counter_name": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_counter": (c_int, (ResultPtr, c_char_p, POINTER(c_double))),
    "embperf_result_cpu": (c_int, (ResultPtr,)),
    "embperf_result_truncated": (c_int, (ResultPtr,)),
    "embperf_result_verdict": (c_int, (ResultPtr,)),
    "embperf_result_baseline": (c_int, (ResultPtr, POINTER(c_double), POINTER(c_double))),
    "embperf_result_key": (c_int, (ResultPtr, c_char_p, c_size_t)),
    # Distributions, trial logs, labels and parameters (0.2)
    "embperf_result_percentile_count": (c_int, (ResultPtr,)),
    "embperf_result_percentile_at": (c_int, (ResultPtr, c_int, POINTER(c_double),
                                             POINTER(c_double))),
    "embperf_result_percentile": (c_int, (ResultPtr, c_double, POINTER(c_double))),
    "embperf_result_dist_stat": (c_double, (ResultPtr, c_int)),
    "embperf_result_trial_count": (c_int, (ResultPtr,)),
    "embperf_result_trial": (c_int, (ResultPtr, c_int, c_int, POINTER(c_double))),
    "embperf_result_trial_name": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_label_count": (c_int, (ResultPtr,)),
    "embperf_result_label_key": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_label_value": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_param_count": (c_int, (ResultPtr,)),
    "embperf_result_param_key": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_param_value": (c_char_p, (ResultPtr, c_int)),
    "embperf_result_flags": (c_uint, (ResultPtr,)),
    "embperf_result_note": (c_char_p, (ResultPtr,)),
    # Reports
    "embperf_report_new": (ReportPtr, (CtxPtr,)),
    "embperf_report_free": (None, (ReportPtr,)),
    "embperf_report_add": (c_int, (ReportPtr, BenchPtr, c_char_p)),
    "embperf_report_result_count": (c_int, (ReportPtr,)),
    "embperf_report_result": (ResultPtr, (ReportPtr, c_int)),
    "embperf_report_find": (ResultPtr, (ReportPtr, c_char_p)),
    "embperf_report_sysinfo": (c_char_p, (ReportPtr, c_char_p)),
    "embperf_report_render": (_OWNED_STRING, (ReportPtr, c_int)),
    "embperf_report_save": (c_int, (ReportPtr, c_int, c_char_p)),
    "embperf_report_load": (ReportPtr, (CtxPtr, c_char_p)),
    "embperf_report_parse": (ReportPtr, (CtxPtr, c_char_p)),
    "embperf_report_compare": (c_int, (ReportPtr, ReportPtr, c_double)),
    "embperf_report_errmsg": (c_char_p, (ReportPtr,)),
    # Merging reports (0.4)
    "embperf_report_add_result": (c_int, (ReportPtr, ResultPtr, c_char_p)),
    "embperf_report_set_sysinfo": (c_int, (ReportPtr, c_char_p, c_char_p)),
    # The network peer (0.3)
    "embperf_server_new": (ServerPtr, (CtxPtr,)),
    "embperf_server_free": (None, (ServerPtr,)),
    "embperf_server_set": (c_int, (ServerPtr, c_char_p, c_char_p)),
    "embperf_server_start": (c_int, (ServerPtr,)),
    "embperf_server_port": (c_int, (ServerPtr,)),
    "embperf_server_run": (c_int, (ServerPtr, c_uint64)),
    "embperf_server_stat": (c_int, (ServerPtr, c_int, POINTER(c_uint64))),
    "embperf_server_errmsg": (c_char_p, (ServerPtr,)),
}


class _Library:
    """The loaded library: one attribute per function of PROTOTYPES.

    Attributes carry the C names (``lib.embperf_bench_run``) so that code
    reads like the header it follows. A function the loaded library lacks
    (an older release) is replaced by a stub raising LibraryNotFoundError
    when called, so that the rest keeps working; ``missing`` lists them.
    """

    def __init__(self, cdll, path):
        self._cdll = cdll
        #: What was loaded: a path or a name the runtime linker resolved.
        self.path = path
        #: Functions of PROTOTYPES the loaded library does not export.
        self.missing = []
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                func = getattr(cdll, name)
            except AttributeError:
                self.missing.append(name)
                func = _missing_stub(name, path)
            else:
                func.restype = restype
                func.argtypes = argtypes
            setattr(self, name, func)


def _missing_stub(name, path):
    def missing(*_args):
        raise LibraryNotFoundError(
            "%s lacks the function %s: it is older than these bindings" % (path, name),
            name="embperf")
    missing.__name__ = name
    return missing


_lock = threading.Lock()
_loaded = None


def _candidates():
    """Yield (how, name) pairs to try, in order.

    A build tree next to the package is deliberately not searched: which one
    would be found depends on where Python happens to run from. Point
    EMBPERF_LIBRARY at a build to use it.
    """
    path = os.environ.get(ENV_LIBRARY)
    if path:
        yield ("$%s" % ENV_LIBRARY, path)
        return
    found = ctypes.util.find_library("embperf")
    if found:
        yield ("ctypes.util.find_library('embperf')", found)
    else:
        yield ("ctypes.util.find_library('embperf')", None)
    yield ("SONAME", SONAME)


def _load():
    tried = []
    for how, name in _candidates():
        if name is None:
            tried.append("%s: nothing found" % how)
            continue
        try:
            # use_errno: constructors report failures through errno.
            cdll = ctypes.CDLL(name, use_errno=True)
        except OSError as exc:
            tried.append("%s = %s: %s" % (how, name, exc))
            if how.startswith("$"):
                # An explicit choice that fails must not silently fall
                # back to another copy of the library.
                break
            continue
        return _Library(cdll, name)
    raise LibraryNotFoundError(
        "cannot load libembperf; tried: %s. Install libembperf or set %s "
        "to the path of libembperf.so" % ("; ".join(tried), ENV_LIBRARY),
        name="embperf")


def lib():
    """Return the loaded library, loading it on first use.

    Raises LibraryNotFoundError when it cannot be loaded.
    """
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _load()
    return _loaded
