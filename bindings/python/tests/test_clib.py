# SPDX-License-Identifier: MIT
"""The ctypes declarations against include/embperf.h, and library loading."""

import ctypes
import os
import subprocess
import sys
import unittest

import support
from embperf import _clib

# C type (as the header spells it) -> the ctypes type a declaration must use.
_ARG_TYPES = {
    "void": None,
    "int": ctypes.c_int,
    "unsigned": ctypes.c_uint,
    "double": ctypes.c_double,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t,
    "const char *": ctypes.c_char_p,
    "char *": ctypes.c_char_p,          # a buffer the library fills
    "void *": ctypes.c_void_p,
    "double *": ctypes.POINTER(ctypes.c_double),
    "uint64_t *": ctypes.POINTER(ctypes.c_uint64),
    "embperf_log_fn": _clib.LOG_FN,
    "embperf_progress_fn": _clib.PROGRESS_FN,
}
for _name, _ptr in (("ctx", _clib.CtxPtr), ("bench", _clib.BenchPtr),
                    ("result", _clib.ResultPtr), ("report", _clib.ReportPtr),
                    ("server", _clib.ServerPtr)):
    _ARG_TYPES["embperf_%s *" % _name] = _ptr
    _ARG_TYPES["const embperf_%s *" % _name] = _ptr
_RES_TYPES = dict(_ARG_TYPES)
# A returned char * is owned by the caller: kept as an address to free.
_RES_TYPES["char *"] = ctypes.c_void_p


def _expected(table, c_type):
    if c_type.startswith("enum "):
        return ctypes.c_int
    if c_type not in table:
        raise AssertionError("the test does not know the C type %r" % c_type)
    return table[c_type]


class TestDeclarations(unittest.TestCase):
    """Every EMBPERF_API function is declared, with the header's types."""

    @classmethod
    def setUpClass(cls):
        cls.functions, cls.api_lines = support.header_functions()

    def test_parser_saw_every_declaration(self):
        self.assertGreater(len(self.functions), 50)
        self.assertEqual(len(self.functions), self.api_lines,
                         "some EMBPERF_API lines of the header were not parsed")

    def test_every_header_function_is_declared(self):
        header_names = {name for name, _, _ in self.functions}
        missing = sorted(header_names - set(_clib.PROTOTYPES))
        self.assertEqual(missing, [], "functions of embperf.h missing from _clib.PROTOTYPES")
        stale = sorted(set(_clib.PROTOTYPES) - header_names)
        self.assertEqual(stale, [], "_clib.PROTOTYPES declares functions embperf.h lacks")

    def test_types_match_header(self):
        for name, restype, argtypes in self.functions:
            with self.subTest(function=name):
                declared_res, declared_args = _clib.PROTOTYPES[name]
                self.assertIs(declared_res, _expected(_RES_TYPES, restype),
                              "return type of %s (%s)" % (name, restype))
                self.assertEqual(len(declared_args), len(argtypes),
                                 "argument count of %s" % name)
                for i, (declared, c_type) in enumerate(zip(declared_args, argtypes)):
                    self.assertIs(declared, _expected(_ARG_TYPES, c_type),
                                  "argument %d of %s (%s)" % (i, name, c_type))

    def test_loaded_functions_carry_the_prototypes(self):
        lib = _clib.lib()
        self.assertEqual(lib.missing, [], "functions the loaded library lacks")
        for name, (restype, argtypes) in _clib.PROTOTYPES.items():
            with self.subTest(function=name):
                func = getattr(lib, name)
                self.assertIs(func.restype, restype)
                self.assertEqual(tuple(func.argtypes), tuple(argtypes))

    def test_handles_are_type_checked(self):
        lib = _clib.lib()
        ctx = lib.embperf_ctx_new()
        self.assertTrue(ctx)
        try:
            with self.assertRaises(ctypes.ArgumentError):
                lib.embperf_bench_run(ctx)
        finally:
            lib.embperf_ctx_free(ctx)


def _import_in_child(env_updates):
    """Import embperf and call kernels() in a fresh interpreter."""
    env = dict(os.environ)
    env.update(env_updates)
    env["PYTHONPATH"] = support.PACKAGE_DIR + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    code = ("import embperf\n"
            "try:\n"
            "    embperf.kernels()\n"
            "except embperf.LibraryNotFoundError as exc:\n"
            "    assert isinstance(exc, ImportError)\n"
            "    print('NOTFOUND', exc)\n"
            "else:\n"
            "    print('LOADED', embperf._clib.lib().path)\n")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60, check=True).stdout


class TestLoading(unittest.TestCase):
    def test_env_path_is_used(self):
        path = os.environ.get(_clib.ENV_LIBRARY)
        if not path:
            self.skipTest("EMBPERF_LIBRARY is not set")
        self.assertEqual(_import_in_child({}).strip(), "LOADED " + path)

    def test_bad_env_path_names_what_was_tried(self):
        bogus = "/nonexistent/libembperf-test.so"
        out = _import_in_child({_clib.ENV_LIBRARY: bogus})
        self.assertTrue(out.startswith("NOTFOUND"), out)
        self.assertIn(bogus, out)
        self.assertIn(_clib.ENV_LIBRARY, out)

    def test_found_without_env(self):
        path = os.environ.get(_clib.ENV_LIBRARY)
        if not path:
            self.skipTest("EMBPERF_LIBRARY is not set: no build to point the linker at")
        # Not installed here: let the runtime linker find the build's copy.
        env = {_clib.ENV_LIBRARY: "",
               "LD_LIBRARY_PATH": os.path.dirname(os.path.realpath(path))}
        out = _import_in_child(env).strip()
        self.assertTrue(out.startswith("LOADED "), out)
        self.assertIn("libembperf.so", out)

    def test_import_does_not_load(self):
        # The package imports without the library, so that its exception
        # classes can be caught; the error comes at first use.
        out = _import_in_child({_clib.ENV_LIBRARY: "/nonexistent/x.so"})
        self.assertIn("NOTFOUND", out)


if __name__ == "__main__":
    unittest.main()
