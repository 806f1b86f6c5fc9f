/* SPDX-License-Identifier: MIT */
/*
 * simclock.h - a simulated clock for the engine's logic (lib/core/clock.h's
 * seam). Its time moves only when a test's synthetic body says so: work
 * (time passes and the process uses the CPU), idling (time passes), or the
 * engine's own pauses (sleep_until jumps there). The engine's reads cost
 * no simulated time. So a calibration, a stop rule, a trial's phases or a
 * search run the same way on every run and every machine, and no test of
 * them sleeps for real.
 *
 * CPU load on it: the process's is its work over the span, the system's the
 * same (one simulated CPU); run-queue wait 0. Perf counters: unavailable.
 * Thread-safe: worker threads of a trial body may work or read it at once.
 */
#ifndef EMBPERF_TESTS_SIMCLOCK_H
#define EMBPERF_TESTS_SIMCLOCK_H

#include <stdint.h>

#include "embperf.h"
#include "lib/core/clock.h"

/** Where a simulated clock starts (not 0: 0 means "none" in places). */
#define TP_SIM_START_NS 1000000000ULL

/**
 * struct tp_sim - a simulated clock.
 * @clock:    what the context holds (ep_ctx_set_clock(ctx, &sim->clock)).
 * @now_ns:   the time.
 * @busy_ns:  the process's CPU time: the sum of tp_sim_work().
 * @sleeps:   how many times the engine paused (sleep_until) on it.
 * @alarm_ns: when the alarm is due (0: none).
 * @alarm:    called once, from the thread that moves the time past @alarm_ns
 *            (it may cancel the context: a user's other thread, in
 *            simulated time).
 * @alarm_arg: passed to @alarm.
 * @fired_ns: when the alarm was called (the time it moved to), 0 before.
 */
struct tp_sim {
	struct ep_clock clock;
	uint64_t now_ns;
	uint64_t busy_ns;
	uint64_t sleeps;
	uint64_t alarm_ns;
	void (*alarm)(void *arg);
	void *alarm_arg;
	uint64_t fired_ns;
};

/** tp_sim_init() - a clock at TP_SIM_START_NS with no alarm. */
void tp_sim_init(struct tp_sim *sim);

/** tp_sim_install() - init @sim and make it @ctx's clock. */
void tp_sim_install(struct tp_sim *sim, embperf_ctx *ctx);

/** tp_sim_now() - the simulated time. */
uint64_t tp_sim_now(struct tp_sim *sim);

/** tp_sim_work() - the process works @ns: time and its CPU time move on. */
void tp_sim_work(struct tp_sim *sim, uint64_t ns);

/**
 * tp_sim_work_until() - the process works until @when_ns (at once when the
 * time is past it: another thread of the body moved it).
 */
void tp_sim_work_until(struct tp_sim *sim, uint64_t when_ns);

/** tp_sim_idle() - @ns pass without work (a wait for a device, a peer). */
void tp_sim_idle(struct tp_sim *sim, uint64_t ns);

/** tp_sim_at() - call @fn(@arg) once when the time reaches @at_ns. */
void tp_sim_at(struct tp_sim *sim, uint64_t at_ns, void (*fn)(void *arg), void *arg);

/** tp_sim_cancel_at() - cancel @ctx when the time reaches @at_ns. */
void tp_sim_cancel_at(struct tp_sim *sim, embperf_ctx *ctx, uint64_t at_ns);

#endif /* EMBPERF_TESTS_SIMCLOCK_H */
