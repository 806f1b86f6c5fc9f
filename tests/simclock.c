// SPDX-License-Identifier: MIT
/*
 * simclock.c - the simulated clock (simclock.h).
 */
#include <string.h>

#include "lib/core/counters.h"
#include "lib/core/cpuload.h"
#include "lib/core/ctx.h"
#include "lib/core/result.h"
#include "simclock.h"

static struct tp_sim *sim_of(const struct ep_clock *clk)
{
	return (struct tp_sim *)clk; /* @clock is the first member */
}

uint64_t tp_sim_now(struct tp_sim *sim)
{
	return __atomic_load_n(&sim->now_ns, __ATOMIC_ACQUIRE);
}

/* Fire the alarm once the time has passed it; one thread wins. */
static void check_alarm(struct tp_sim *sim, uint64_t now)
{
	uint64_t due = __atomic_load_n(&sim->alarm_ns, __ATOMIC_ACQUIRE);

	if (!due || now < due)
		return;
	if (!__atomic_compare_exchange_n(&sim->alarm_ns, &due, 0, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	sim->fired_ns = now;
	sim->alarm(sim->alarm_arg);
}

static void advance(struct tp_sim *sim, uint64_t ns, int busy)
{
	uint64_t now = __atomic_add_fetch(&sim->now_ns, ns, __ATOMIC_ACQ_REL);

	if (busy)
		__atomic_add_fetch(&sim->busy_ns, ns, __ATOMIC_ACQ_REL);
	check_alarm(sim, now);
}

void tp_sim_work(struct tp_sim *sim, uint64_t ns)
{
	advance(sim, ns, 1);
}

void tp_sim_work_until(struct tp_sim *sim, uint64_t when_ns)
{
	uint64_t now = tp_sim_now(sim);

	while (now < when_ns) {
		if (__atomic_compare_exchange_n(&sim->now_ns, &now, when_ns, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			__atomic_add_fetch(&sim->busy_ns, when_ns - now, __ATOMIC_ACQ_REL);
			break;
		}
	}
	check_alarm(sim, tp_sim_now(sim));
}

void tp_sim_idle(struct tp_sim *sim, uint64_t ns)
{
	advance(sim, ns, 0);
}

static uint64_t sim_now(const struct ep_clock *clk)
{
	return tp_sim_now(sim_of(clk));
}

/* Jump to @when_ns (never back: another thread may have moved past it). */
static void sim_sleep_until(const struct ep_clock *clk, uint64_t when_ns)
{
	struct tp_sim *sim = sim_of(clk);
	uint64_t now = tp_sim_now(sim);

	__atomic_add_fetch(&sim->sleeps, 1, __ATOMIC_ACQ_REL);
	while (now < when_ns &&
	       !__atomic_compare_exchange_n(&sim->now_ns, &now, when_ns, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
	check_alarm(sim, tp_sim_now(sim));
}

/* The snapshot keeps the simulated time and CPU time in the wall and /proc/stat fields. */
static void sim_load_start(const struct ep_clock *clk, struct ep_cpuload *snap)
{
	struct tp_sim *sim = sim_of(clk);

	memset(snap, 0, sizeof(*snap));
	snap->wall_ns = tp_sim_now(sim);
	snap->stat_busy = __atomic_load_n(&sim->busy_ns, __ATOMIC_ACQUIRE);
	snap->stat_total = snap->wall_ns;
	snap->stat_ok = 1;
}

static void sim_load_stop(const struct ep_clock *clk, const struct ep_cpuload *snap,
			  double *values, unsigned char *ok)
{
	struct tp_sim *sim = sim_of(clk);
	uint64_t wall_ns = tp_sim_now(sim) - snap->wall_ns;
	uint64_t busy_ns = __atomic_load_n(&sim->busy_ns, __ATOMIC_ACQUIRE) - snap->stat_busy;

	if (!wall_ns)
		return;
	values[EP_CTR_CPU_PROCESS_PCT] = 100.0 * (double)busy_ns / (double)wall_ns;
	values[EP_CTR_CPU_SYSTEM_PCT] = values[EP_CTR_CPU_PROCESS_PCT];
	values[EP_CTR_CPU_WAIT_PCT] = 0.0;
	values[EP_CTR_INVOLUNTARY_SWITCHES] = 0.0;
	ok[EP_CTR_CPU_PROCESS_PCT] = ok[EP_CTR_CPU_SYSTEM_PCT] = 1;
	ok[EP_CTR_CPU_WAIT_PCT] = ok[EP_CTR_INVOLUNTARY_SWITCHES] = 1;
}

static void sim_counters_open(const struct ep_clock *clk, struct ep_counters *ctr)
{
	(void)clk;
	for (int i = 0; i < EP_CTR_COUNT; i++)
		ctr->fd[i] = -1;
}

static const struct ep_clock_ops sim_ops = {
	.now_ns = sim_now,
	.sleep_until_ns = sim_sleep_until,
	.load_start = sim_load_start,
	.load_stop = sim_load_stop,
	.counters_open = sim_counters_open,
	.resolution_ns = 1,
};

void tp_sim_init(struct tp_sim *sim)
{
	memset(sim, 0, sizeof(*sim));
	sim->clock.ops = &sim_ops;
	sim->now_ns = TP_SIM_START_NS;
}

void tp_sim_install(struct tp_sim *sim, embperf_ctx *ctx)
{
	tp_sim_init(sim);
	ep_ctx_set_clock(ctx, &sim->clock);
}

void tp_sim_at(struct tp_sim *sim, uint64_t at_ns, void (*fn)(void *arg), void *arg)
{
	sim->alarm = fn;
	sim->alarm_arg = arg;
	sim->fired_ns = 0;
	__atomic_store_n(&sim->alarm_ns, at_ns, __ATOMIC_RELEASE);
}

static void cancel(void *arg)
{
	embperf_ctx_cancel(arg);
}

void tp_sim_cancel_at(struct tp_sim *sim, embperf_ctx *ctx, uint64_t at_ns)
{
	tp_sim_at(sim, at_ns, cancel, ctx);
}
