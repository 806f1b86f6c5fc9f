#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""memory_report.py - measure a board's memory, save the report, judge it.

A lab-automation script: it runs the memory kernels (load latency at three
working-set sizes, read/write/copy bandwidth, STREAM), prints the table,
saves the JSON report and, given a baseline report, compares against it.

    memory_report.py [-o report.json] [--baseline golden.json]
                     [--tolerance 5] [--budget SECONDS] [--quick]

Exit status: 0 when every metric passes (or there is no baseline), 1 when
a metric regressed or is missing, 2 on error, 130 when interrupted.

Needs libembperf: set EMBPERF_LIBRARY=/path/to/libembperf.so to use a build
tree, and PYTHONPATH=bindings/python to use the package from the sources.
"""

import argparse
import sys

import embperf

# (kernel, parameters): the working sets of mem.lat sit in L1, L2 and DRAM
# of a typical SoC; bandwidths use a buffer well past the last-level cache.
CASES = [
    ("mem.lat", {"size": "16k"}),
    ("mem.lat", {"size": "256k"}),
    ("mem.lat", {"size": "64M"}),
    ("mem.bw", {"op": "rd", "size": "64M"}),
    ("mem.bw", {"op": "wr", "size": "64M"}),
    ("mem.bw", {"op": "cp", "size": "64M"}),
    ("mem.stream", {}),
]
# A quicker, noisier pass for smoke tests.
QUICK = {"repetitions": 3, "sample_time": "1ms"}
QUICK_SIZE = "8M"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", default="memory_report.json",
                        help="where to save the JSON report (default: %(default)s)")
    parser.add_argument("--baseline", metavar="PATH",
                        help="JSON report to compare with")
    parser.add_argument("--tolerance", type=float, default=5.0, metavar="PCT",
                        help="allowed change before a metric counts as regressed "
                        "(default: %(default)s %%)")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="bound the whole measurement; cut runs keep what they measured")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions and smaller buffers")
    return parser.parse_args(argv)


def show_progress(kernel, what, fraction):
    if sys.stderr.isatty():
        sys.stderr.write("\r%-12s %-28s %3.0f%%" % (kernel, what[:28], fraction * 100))
        sys.stderr.flush()


def measure(ctx, report, quick):
    """Run every case the build has into the report."""
    available = embperf.kernels()
    for kernel, params in CASES:
        if ctx.remaining == 0:
            print("note: the budget is spent; %s and later cases skipped" % kernel,
                  file=sys.stderr)
            break
        if kernel not in available:
            print("note: this libembperf has no %s; skipped" % kernel, file=sys.stderr)
            continue
        params = dict(params)
        if quick:
            known = embperf.describe(kernel)["params"]
            params.update({k: v for k, v in QUICK.items() if k in known})
            if params.get("size") == "64M":
                params["size"] = QUICK_SIZE
        with embperf.Bench(kernel, ctx, **params) as bench:
            results = bench.run(allow_partial=True)
            if any(r.truncated for r in results):
                print("note: the budget cut %s short" % kernel, file=sys.stderr)
            report.add(bench)
    if sys.stderr.isatty():
        sys.stderr.write("\n")


def main(argv=None):
    args = parse_args(argv)
    try:
        with embperf.Context(budget=args.budget, progress=show_progress) as ctx, \
                embperf.Report(ctx) as report:
            info = ctx.sysinfo
            print("%s, %s CPUs, libembperf %s" % (info.get("cpu_model"),
                                                   info.get("cpus_online"), embperf.version()))
            measure(ctx, report, args.quick)
            report.save(args.output)
            print("saved %d results to %s" % (len(report), args.output))
            if not args.baseline:
                print(report.render("text"))
                return 0
            failures = report.compare(args.baseline, args.tolerance)
            print(report.render("text"))
            for result in report.regressions():
                print("REGRESSED %s: %.4g %s, baseline %.4g" % (
                    result.key, result.value, result.unit, result.baseline.value))
            print("%s: %d failure(s) against %s (tolerance %g %%)" % (
                "FAIL" if failures else "PASS", failures, args.baseline, args.tolerance))
            return 1 if failures else 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except (embperf.Error, embperf.LibraryNotFoundError) as exc:
        print("memory_report: %s" % exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
