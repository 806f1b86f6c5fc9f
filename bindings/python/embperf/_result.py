# SPDX-License-Identifier: MIT
"""Result: one metric of a run, copied out of the library.

A C result belongs to its bench (until the next run) or to its report. To
keep Python code from ever touching freed memory, a Result copies
everything when it is made and holds no pointer: it stays valid after the
bench runs again or is closed. Re-read ``report.results`` after
Report.compare() to see the verdicts.
"""

import collections
import ctypes
import enum
import math

from ._util import decode, encode, read_sized

__all__ = ["Result", "RunResult", "Stats", "Baseline", "Verdict", "Stat", "Distribution",
           "TrialLog", "TrialField"]


class Stat(enum.IntEnum):
    """Statistics of a result's samples (enum embperf_stat)."""

    PRIMARY = 0
    N = 1
    MIN = 2
    MAX = 3
    MEAN = 4
    MEDIAN = 5
    STDDEV = 6


class Verdict(enum.IntEnum):
    """Outcome of comparing a result with a baseline (enum embperf_verdict)."""

    NONE = 0
    PASS = 1
    IMPROVED = 2
    REGRESSED = 3


class TrialField(enum.IntEnum):
    """Columns of a search's trial log (enum embperf_trial_field)."""

    CONFIG = 0
    OUTCOME = 1
    PASS = 2
    DURATION_NS = 3


#: Statistics of the samples; stddev is NaN for a single sample.
Stats = collections.namedtuple("Stats", "n min max mean median stddev")
#: The baseline value a result was compared with, and current / baseline.
Baseline = collections.namedtuple("Baseline", "value ratio")
#: Statistics of a latency distribution: every recorded operation (n of
#: them) of every trial, in the result's unit.
Distribution = collections.namedtuple("Distribution", "n min max mean")


class TrialLog(list):
    """The trial log of a searched value: a list of dicts, one per trial in
    the order run, each {"config", "outcome", "pass", "duration_ns"}.

    Attributes ``config_name`` and ``outcome_name`` say what the two value
    columns are ("rate", "loss"); both None for a result that was not
    searched (the log is then empty).
    """

    def __init__(self, rows=(), config_name=None, outcome_name=None):
        super().__init__(rows)
        self.config_name = config_name
        self.outcome_name = outcome_name

    def __repr__(self):
        return "<embperf.TrialLog %s/%s: %s>" % (self.config_name, self.outcome_name,
                                                  list.__repr__(self))


def _stats(lib, ptr):
    def stat(which):
        return lib.embperf_result_stat(ptr, which)
    n = stat(Stat.N)
    return Stats(0 if math.isnan(n) else int(n), stat(Stat.MIN), stat(Stat.MAX),
                 stat(Stat.MEAN), stat(Stat.MEDIAN), stat(Stat.STDDEV))


def _counters(lib, ptr):
    """Counters as a dict; None where the system could not count."""
    counters = {}
    value = ctypes.c_double()
    for index in range(lib.embperf_result_counter_count(ptr)):
        name = decode(lib.embperf_result_counter_name(ptr, index))
        if name is None:
            continue
        rc = lib.embperf_result_counter(ptr, encode(name), ctypes.byref(value))
        counters[name] = value.value if rc == 0 else None
    return counters


def _pairs(count, key, value, ptr):
    """Labels or parameters as a dict, from the library's pair accessors."""
    return {decode(key(ptr, i)): decode(value(ptr, i)) for i in range(count(ptr))}


def _percentiles(lib, ptr):
    """The percentiles as a dict pct -> value, ascending; {} without a distribution."""
    pct = ctypes.c_double()
    value = ctypes.c_double()
    out = {}
    for index in range(lib.embperf_result_percentile_count(ptr)):
        if lib.embperf_result_percentile_at(ptr, index, ctypes.byref(pct),
                                            ctypes.byref(value)) == 0:
            out[pct.value] = value.value
    return out


def _distribution(lib, ptr):
    n = lib.embperf_result_dist_stat(ptr, Stat.N)
    if math.isnan(n):
        return None
    return Distribution(int(n), lib.embperf_result_dist_stat(ptr, Stat.MIN),
                        lib.embperf_result_dist_stat(ptr, Stat.MAX),
                        lib.embperf_result_dist_stat(ptr, Stat.MEAN))


def _trial_row(lib, ptr, index):
    value = ctypes.c_double()
    row = {}
    for field, key in ((TrialField.CONFIG, "config"), (TrialField.OUTCOME, "outcome"),
                       (TrialField.PASS, "pass"), (TrialField.DURATION_NS, "duration_ns")):
        if lib.embperf_result_trial(ptr, index, field, ctypes.byref(value)) != 0:
            return None
        row[key] = value.value
    row["pass"] = bool(row["pass"])
    row["duration_ns"] = int(row["duration_ns"])
    return row


def _trials(lib, ptr):
    rows = [_trial_row(lib, ptr, i) for i in range(lib.embperf_result_trial_count(ptr))]
    return TrialLog([row for row in rows if row is not None],
                    decode(lib.embperf_result_trial_name(ptr, TrialField.CONFIG)),
                    decode(lib.embperf_result_trial_name(ptr, TrialField.OUTCOME)))


def _baseline(lib, ptr):
    value = ctypes.c_double()
    ratio = ctypes.c_double()
    rc = lib.embperf_result_baseline(ptr, ctypes.byref(value), ctypes.byref(ratio))
    return Baseline(value.value, ratio.value) if rc == 0 else None


def _verdict(code):
    try:
        return Verdict(code)
    except ValueError:
        return code


# enum embperf_result_flag bits and their names.
_FLAG_NAMES = ((1, "disturbed"), (2, "unstable"), (4, "migrated"))


def _flags(mask):
    """The set of flag names in an embperf_result_flags() mask."""
    return frozenset(name for bit, name in _FLAG_NAMES if mask & bit)


class Result:
    """One metric of a run.

    Attributes:
        kernel:   "mem.lat".
        metric:   "latency" (also available as ``name``).
        unit:     "ns", "MB/s" (MB = 10^6 bytes), ...
        title:    row name given when added to a report, or None.
        key:      what reports match results by: the title, or
                  "kernel/metric[labels]".
        labels:   dict of what tells this result from its siblings
                  ({"size": "64M"}), values as canonical text (exact: a
                  path with spaces is one value).
        params:   dict of every parameter of the run, canonical text.
        value:    the primary statistic (NaN without samples).
        primary:  its name: "median", "min" or "max".
        higher_is_better: True for bandwidths, False for latencies and for signed
            errors that are better nearer zero (a rate error in ppm).
        stats:    Stats(n, min, max, mean, median, stddev); also as
                  attributes ``n``, ``min``, ``max``, ``mean``, ``median``,
                  ``stddev``.
        samples:  list of the samples in measured order, in ``unit``.
        counters: dict name -> float, None when the system cannot count it;
                  the engine's counters, then the kernel's own ("xruns").
        percentiles: dict pct -> value of the latency distribution, in
                  ascending order of pct ({} without a distribution); see
                  percentile().
        distribution: Distribution(n, min, max, mean) over every recorded
                  operation, or None when the result has none.
        trials:   TrialLog of a searched value (empty otherwise).
        cpu:      CPU the result was measured on, None when not one.
        truncated: True when the budget cut the samples short.
        flags:    set of the marks the result set on itself: "disturbed"
                  (another task had its CPU), "unstable" (its samples
                  disagree), "migrated" (it ran on several CPUs).
        note:     why, with the evidence ("" when unmarked).
        verdict:  Verdict of the last Report.compare() (NONE otherwise).
        baseline: Baseline(value, ratio) or None when not compared.
    """

    __slots__ = ("kernel", "metric", "unit", "title", "key", "labels", "params", "value",
                 "primary", "higher_is_better", "stats", "samples", "counters", "cpu",
                 "truncated", "verdict", "baseline", "percentiles", "distribution", "trials",
                 "flags", "note")

    @classmethod
    def _from_ptr(cls, lib, ptr):
        """Copy a `const embperf_result *` (non-NULL) into a new Result."""
        self = cls.__new__(cls)
        self.kernel = decode(lib.embperf_result_kernel(ptr))
        self.metric = decode(lib.embperf_result_metric(ptr))
        self.unit = decode(lib.embperf_result_unit(ptr))
        self.title = decode(lib.embperf_result_title(ptr)) or None
        self.key = read_sized(lib.embperf_result_key, ptr)[1]
        self.labels = _pairs(lib.embperf_result_label_count, lib.embperf_result_label_key,
                             lib.embperf_result_label_value, ptr)
        self.params = _pairs(lib.embperf_result_param_count, lib.embperf_result_param_key,
                             lib.embperf_result_param_value, ptr)
        self.value = lib.embperf_result_value(ptr)
        self.primary = decode(lib.embperf_result_primary(ptr))
        self.higher_is_better = bool(lib.embperf_result_higher_is_better(ptr))
        self.stats = _stats(lib, ptr)
        self.samples = [lib.embperf_result_sample(ptr, i)
                        for i in range(lib.embperf_result_sample_count(ptr))]
        self.counters = _counters(lib, ptr)
        cpu = lib.embperf_result_cpu(ptr)
        self.cpu = None if cpu < 0 else cpu
        self.truncated = bool(lib.embperf_result_truncated(ptr))
        self.flags = _flags(lib.embperf_result_flags(ptr))
        self.note = decode(lib.embperf_result_note(ptr))
        self.verdict = _verdict(lib.embperf_result_verdict(ptr))
        self.baseline = _baseline(lib, ptr)
        self.percentiles = _percentiles(lib, ptr)
        self.distribution = _distribution(lib, ptr)
        self.trials = _trials(lib, ptr)
        return self

    def percentile(self, pct):
        """The value at percentile ``pct`` (0 < pct <= 100) of the distribution.

        None when the result has no distribution or this percentile was not
        computed (50, 90, 99, 99.9 and 99.99 are, by default); ValueError
        for a ``pct`` outside (0, 100].
        """
        pct = float(pct)
        if not 0.0 < pct <= 100.0:
            raise ValueError("percentile %r is outside (0, 100]" % pct)
        for have, value in self.percentiles.items():
            # As the library: percentiles are kept as asked, a tiny tolerance suffices.
            if abs(have - pct) < 1e-9:
                return value
        return None

    @property
    def name(self):
        """The metric's name (same as ``metric``)."""
        return self.metric

    n = property(lambda self: self.stats.n, doc="Number of samples.")
    min = property(lambda self: self.stats.min, doc="Smallest sample.")
    max = property(lambda self: self.stats.max, doc="Largest sample.")
    mean = property(lambda self: self.stats.mean, doc="Arithmetic mean of the samples.")
    median = property(lambda self: self.stats.median, doc="Median of the samples.")
    stddev = property(lambda self: self.stats.stddev, doc="Sample standard deviation.")

    def as_dict(self):
        """Everything as plain types (for json.dump, pandas, ...)."""
        out = {slot: getattr(self, slot) for slot in self.__slots__}
        out["stats"] = self.stats._asdict()
        out["verdict"] = self.verdict.name.lower() if isinstance(self.verdict, Verdict) \
            else self.verdict
        out["baseline"] = None if self.baseline is None else self.baseline._asdict()
        out["distribution"] = None if self.distribution is None \
            else self.distribution._asdict()
        out["percentiles"] = dict(self.percentiles)
        out["trials"] = {"config_name": self.trials.config_name,
                         "outcome_name": self.trials.outcome_name,
                         "rows": [dict(row) for row in self.trials]}
        out["flags"] = sorted(self.flags)
        return out

    def __repr__(self):
        return "<embperf.Result %s = %.6g %s (%s of %d%s)>" % (
            self.key, self.value, self.unit, self.primary, self.stats.n,
            ", truncated" if self.truncated else "")


class RunResult(list):
    """The results of one run, as returned by embperf.run().

    A list of Result; attributes of the first result are available on the
    RunResult itself, so ``embperf.run("mem.lat", size="64M").median`` reads
    the median of the first (often only) result.

    Attributes: ``kernel`` and ``params`` (dict of the run's parameters).
    """

    def __init__(self, kernel, params, results):
        super().__init__(results)
        self.kernel = kernel
        self.params = params

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if not self:
            raise AttributeError("the run of %s produced no result, so no %r"
                                 % (self.kernel, name))
        return getattr(self[0], name)

    def find(self, metric=None, **labels):
        """First result with this metric (any when None) and these labels.

        Label values compare as text: ``find(size="64M")``. None when none.
        """
        for result in self:
            if metric is not None and result.metric != metric:
                continue
            if all(result.labels.get(k) == str(v) for k, v in labels.items()):
                return result
        return None

    def __repr__(self):
        return "<embperf.RunResult %s: %s>" % (self.kernel, list.__repr__(self))

