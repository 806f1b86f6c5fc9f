/* SPDX-License-Identifier: MIT */
/*
 * synth.h - synthetic kernels for engine and parameter tests: bodies that
 * busy-wait a known time per unit, count their calls, fail or cancel.
 */
#ifndef EMBPERF_TESTS_SYNTH_H
#define EMBPERF_TESTS_SYNTH_H

#include <errno.h>
#include <stdint.h>

#include "lib/core/bench.h"
#include "lib/core/clock.h"
#include "lib/core/ctx.h"
#include "lib/core/result.h"
#include "lib/core/run.h"
#include "simclock.h"

/**
 * struct synth - configuration and observations of a synthetic run.
 * @sim:           the simulated clock a unit's time passes on (tests of the
 *                 engine's logic), or NULL: the body busy-waits on the real
 *                 clock (tests of what a real run records).
 * @unit_ns:       busy time per unit of the body.
 * @overhead_ns:   busy time per unit of the overhead body (0: none).
 * @max_units:     cap on units per sample (0: none).
 * @ramp_calls:    the first so many body calls are slower, a warm-up that
 *                 fades: call c busy-waits 1 + (@ramp_factor - 1) x
 *                 (@ramp_calls - c + 1) / @ramp_calls times @unit_ns per unit.
 * @ramp_factor:   how much slower the first call is (0: no ramp).
 * @fail_after:    body call after which the body returns @fail_rc (0: never).
 * @fail_rc:       error the body returns.
 * @before_ns:     busy time of the case's untimed before() per unit (0:
 *                 no before()).
 * @before_calls:  before() calls seen; @unpaired: body calls that no
 *                 before() call preceded (with @before_ns set).
 * @metric:        metric index the case reports.
 * @calls:         body calls seen.
 * @torn_down:     teardown ran.
 * @finished:      finish ran.
 */
struct synth {
	struct tp_sim *sim; /* the simulated clock the body works on; NULL: busy-wait for real */
	uint64_t unit_ns;
	uint64_t overhead_ns;
	uint64_t credit_ns;   /* the overhead's credited part: busy-wait per unit */
	uint64_t max_units;
	uint64_t min_units; /* floor on units per sample (0: none) */
	int slow_call;     /* this call (1-based) busy-waits 100x longer; 0: none */
	int slow_calls;    /* so many calls from slow_call on (0: one) */
	int ramp_calls;
	double ramp_factor;
	int jitter;        /* calls take 1.0, 1.1, .. 1.4 times as long, in turn */
	uint64_t before_ns;
	int before_calls;
	int unpaired;
	int fail_after;
	int fail_rc;
	int metric;
	int cases;
	int calls;
	int torn_down;
	int finished;
	double derived;
};

/* Kernels read their configuration from here: tests run one at a time
 * within a process, and criterion runs each test in its own process. */
extern struct synth synth_cfg;
extern const struct ep_kernel synth_kernel;

#endif
