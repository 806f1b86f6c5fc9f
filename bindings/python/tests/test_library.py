# SPDX-License-Identifier: MIT
"""Version, errors, features and kernel descriptions."""

import errno
import os
import re
import unittest

import support
import embperf


class TestVersion(unittest.TestCase):
    def test_string_matches_header(self):
        expected = support.header_macro("EMBPERF_VERSION_STRING").strip('"')
        self.assertEqual(embperf.version(), expected)

    def test_number_matches_header_macros(self):
        major = int(support.header_macro("EMBPERF_VERSION_MAJOR"))
        minor = int(support.header_macro("EMBPERF_VERSION_MINOR"))
        patch = int(support.header_macro("EMBPERF_VERSION_PATCH"))
        self.assertEqual(embperf.version_number(), major * 10000 + minor * 100 + patch)
        self.assertEqual(embperf.version(), "%d.%d.%d" % (major, minor, patch))

    def test_package_version_matches_pyproject(self):
        with open(os.path.join(support.PACKAGE_DIR, "pyproject.toml"), encoding="utf-8") as f:
            match = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.MULTILINE)
        self.assertIsNotNone(match, "pyproject.toml has no version")
        self.assertEqual(embperf.__version__, match.group(1))


class TestPackaging(unittest.TestCase):
    def test_meson_installs_every_module(self):
        build_file = os.path.join(support.PACKAGE_DIR, "meson.build")
        if not os.path.exists(build_file):
            self.skipTest("not a source tree: no bindings/python/meson.build")
        with open(build_file, encoding="utf-8") as f:
            listed = set(re.findall(r"'embperf/([\w.]+\.py)'", f.read()))
        modules = {name for name in os.listdir(os.path.join(support.PACKAGE_DIR, "embperf"))
                   if name.endswith(".py")}
        self.assertEqual(listed, modules, "bindings/python/meson.build must list every module")


class TestErrors(unittest.TestCase):
    def test_strerror_names_codes(self):
        self.assertIn("ETIME", embperf.strerror(-errno.ETIME))
        self.assertEqual(embperf.strerror(errno.ETIME), embperf.strerror(-errno.ETIME))
        self.assertEqual(embperf.strerror(-99999), "unknown error")

    def test_error_is_an_oserror(self):
        err = embperf.Error(-errno.EINVAL, "size: bad")
        self.assertIsInstance(err, OSError)
        self.assertEqual(err.errno, errno.EINVAL)
        self.assertEqual(err.code, -errno.EINVAL)
        self.assertEqual(err.strerror, "size: bad")
        plain = embperf.Error(-errno.ECANCELED)
        self.assertEqual(plain.strerror, embperf.strerror(-errno.ECANCELED))
        self.assertTrue(issubclass(embperf.ParameterError, ValueError))
        self.assertTrue(issubclass(embperf.Cancelled, embperf.Error))
        self.assertTrue(issubclass(embperf.BudgetExceeded, embperf.Error))


class TestFeatures(unittest.TestCase):
    def test_known_features_are_booleans(self):
        feats = embperf.features()
        self.assertEqual(set(feats), set(embperf.FEATURES))
        for name, present in feats.items():
            self.assertIs(present, embperf.has_feature(name))

    def test_unknown_feature_is_absent(self):
        self.assertIs(embperf.has_feature("no-such-feature"), False)


class TestKernels(unittest.TestCase):
    def test_kernels_listed(self):
        names = embperf.kernels()
        self.assertGreater(len(names), 0)
        self.assertEqual(len(names), len(set(names)), "duplicate kernel names")
        for name in names:
            self.assertRegex(name, r"^[a-z0-9]+(\.[a-z0-9_]+)+$")

    def test_mem_lat_listed(self):
        support.require_kernel(self, "mem.lat")
        self.assertIn("mem.lat", embperf.kernels())

    def test_describe_every_kernel(self):
        for name in embperf.kernels():
            with self.subTest(kernel=name):
                info = embperf.describe(name)
                self.assertEqual(info["name"], name)
                self.assertTrue(info["summary"])
                self.assertGreater(len(info["metrics"]), 0)
                # The engine's parameters come with every kernel.
                self.assertIn("repetitions", info["params"])
                self.assertEqual(info["params"]["repetitions"]["group"], "engine")
                for pname, p in info["params"].items():
                    self.assertIn(p["type"], ("int", "size", "size-range", "duration", "double",
                                              "enum", "bool", "rate", "freq", "string"), pname)
                    self.assertIn(p["group"], ("kernel", "engine"), pname)
                for mname, m in info["metrics"].items():
                    self.assertIn(m["better"], ("higher", "lower", "zero"), mname)
                    self.assertIn(m["primary"], ("median", "min", "max"), mname)
                    self.assertTrue(m["unit"], mname)

    def test_describe_mem_lat(self):
        support.require_kernel(self, "mem.lat")
        info = embperf.describe("mem.lat")
        latency = info["metrics"].get("latency")
        self.assertIsNotNone(latency, "mem.lat reports no 'latency' metric: %s" % info["metrics"])
        self.assertEqual(latency["unit"], "ns")
        self.assertEqual(latency["better"], "lower")

    def test_describe_unknown_kernel(self):
        with self.assertRaises(embperf.UnknownKernelError) as cm:
            embperf.describe("no.such.kernel")
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIn("no.such.kernel", str(cm.exception))
        self.assertIsInstance(cm.exception, LookupError)


if __name__ == "__main__":
    unittest.main()
