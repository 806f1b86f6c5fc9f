# SPDX-License-Identifier: MIT
"""Server: the network peer served from Python, measured by net.udp.stream."""

import threading
import unittest

import support  # noqa: F401  (sets up the library path)
import embperf


class TestServer(unittest.TestCase):
    def setUp(self):
        self.ctx = embperf.Context()
        self.addCleanup(self.ctx.close)

    def test_bad_setting_names_itself(self):
        with embperf.Server(self.ctx) as srv:
            with self.assertRaises(embperf.ParameterError) as cm:
                srv.set("allow", "not-a-block")
            self.assertIn("allow", str(cm.exception))
            with self.assertRaises(embperf.ParameterError):
                srv.set("colour", "blue")

    def test_port_before_start_is_an_error(self):
        with embperf.Server(self.ctx, listen="127.0.0.1:0") as srv:
            with self.assertRaises(ValueError):
                srv.port
            srv.start()
            self.assertGreater(srv.port, 0)

    def test_a_kernel_measures_against_a_python_served_peer(self):
        srv = embperf.Server(self.ctx, listen="127.0.0.1:0", allow=["127.0.0.0/8", "::1"],
                             max_rate="1Gbit")
        self.addCleanup(srv.close)
        srv.start()
        done = []

        def serve():
            try:
                srv.serve()
            except embperf.Cancelled:
                done.append(True)

        thread = threading.Thread(target=serve)
        thread.start()
        try:
            result = embperf.run("net.udp.stream", peer="127.0.0.1:%d" % srv.port,
                                 pps=2000, size=100, duration="300ms", ramp="50ms",
                                 repetitions=1)
        finally:
            self.ctx.cancel()
            thread.join(10)
        self.assertEqual(done, [True], "serve() ends with Cancelled")
        self.assertGreater(result.find("kpps").value, 0)
        stats = srv.stats
        self.assertEqual(stats["sessions"], 1)
        self.assertEqual(stats["trials"], 1)
        self.assertEqual(stats["refused"], 0)


if __name__ == "__main__":
    unittest.main()
