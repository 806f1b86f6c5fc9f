// SPDX-License-Identifier: MIT
/*
 * os_timer.c - os.timer: how late a periodic thread wakes up, the
 * measurement of cyclictest (rt-tests) as a trial kernel.
 *
 * Each measuring thread sleeps with clock_nanosleep(TIMER_ABSTIME) to
 * absolute deadlines one 'interval' apart on the chosen clock, reads the
 * same clock as soon as it wakes and records wake-up time - deadline into
 * the trial's latency histogram. A wake-up that comes when the next
 * deadline has already passed counts the deadlines it passed as overruns
 * and the thread goes on from the first deadline still ahead, so every
 * deadline of a trial is either a wake-up or an overrun.
 *
 * Parameters and cyclictest's options (doc/methodology-os.md has the
 * differences):
 *   interval   -i (us there; any duration here, 1ms by default like -i1000)
 *   priority   -p: 0 is SCHED_OTHER, 1..99 SCHED_FIFO (--policy=fifo)
 *   clock      --clock: 0 monotonic, 1 realtime
 *   threads    -t NUM (0: one per CPU, like -t without a number); every
 *              thread has the same interval and priority (-d0, as -S/-h)
 *   cpus       -a CPUSET: thread i is pinned to the i-th CPU of the list,
 *              round-robin; "all" is every CPU the run may use
 *   mlock      -m: mlockall(MCL_CURRENT | MCL_FUTURE) for the run
 *   dma_latency cyclictest's default (--latency=0 unless --laptop): hold
 *              /dev/cpu_dma_latency at this many us while the run lasts,
 *              which keeps the CPUs out of deep idle states; -1 leaves it
 *              (--laptop). Without the permission the run goes on and its
 *              label says dma_latency=refused
 *   work       no counterpart: busy time after each wake-up (a control
 *              loop's work); longer than 'interval' forces overruns
 *   duration   -D / -l (engine parameter, like cpu, repetitions, ...)
 *
 * The latency is read on the clock the thread sleeps on, not on the
 * engine's CLOCK_MONOTONIC_RAW: clock_nanosleep() cannot sleep on the raw
 * clock, and the two run at different rates while NTP slews the clock, so
 * a deadline of one clock stamped with the other would drift. The engine
 * still owns the trial: its deadline, cancel, CPU load and statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/ctx.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/kernel.h"
#include "lib/core/sched_fifo.h"
#include "lib/core/util.h"

#define TIMER_STEP_NS 100000000LL     /* longest single sleep: cancel is seen within it */
#define TIMER_MAX_INTERVAL_NS 1000000000LL
#define TIMER_MAX_WORK_NS 100000000LL
#define TIMER_MAX_THREADS 256
#define TIMER_LABEL_MAX 384

enum { M_LATENCY, M_WAKEUPS, M_OVERRUNS, M_CPU_PROCESS, M_CPU_SYSTEM };
enum { C_OVERRUNS };
enum { CLK_MONOTONIC, CLK_REALTIME };

/**
 * struct timer_worker - one measuring thread of a trial.
 * @st:  the run's state.
 * @t:   the trial.
 * @ta:  its own tally, merged into the trial's when it is joined.
 * @cpu: CPU it is pinned to, or -1.
 * @rc:  0, or the negative errno it stopped on.
 * @tid: the thread.
 */
struct timer_worker {
	const struct timer_state *st;
	struct ep_trial *t;
	struct ep_tally *ta;
	int cpu;
	int rc;
	pthread_t tid;
};

/**
 * struct timer_state - the run's state.
 * @run:         the run (failure messages).
 * @interval_ns: time between two deadlines.
 * @work_ns:     busy time after each wake-up.
 * @clock:       the clock slept on and read.
 * @priority:    SCHED_FIFO priority, 0 for SCHED_OTHER.
 * @n_threads:   measuring threads.
 * @cpus:        per thread, the CPU it is pinned to, or -1.
 * @workers:     @n_threads workers, reused by every trial.
 * @mlocked:     mlockall() succeeded: undo it in teardown.
 * @dma_fd:      /dev/cpu_dma_latency held open (-1: not held); closing it
 *               lets the system's own setting back.
 * @dma_state:   what the label says: the value held, "off" or "refused".
 * @label:       "interval=1ms clock=monotonic policy=fifo priority=80 threads=1".
 */
struct timer_state {
	struct ep_run *run;
	int64_t interval_ns;
	int64_t work_ns;
	clockid_t clock;
	int priority;
	int n_threads;
	int cpus[TIMER_MAX_THREADS];
	struct timer_worker workers[TIMER_MAX_THREADS];
	int mlocked;
	int dma_fd;
	char dma_state[16];
	char label[TIMER_LABEL_MAX];
};

static const struct ep_param_desc timer_params[] = {
	{ "interval", EP_PT_DURATION, "1ms", { { 1, TIMER_MAX_INTERVAL_NS } }, NULL, "ns",
	  "time between two deadlines (cyclictest -i); at least the clock's resolution" },
	{ "priority", EP_PT_INT, "0", { { 0, 99 } }, NULL, "",
	  "0: SCHED_OTHER; 1..99: SCHED_FIFO at that priority (cyclictest -p); needs "
	  "CAP_SYS_NICE or RLIMIT_RTPRIO" },
	{ "clock", EP_PT_ENUM, "monotonic", { { 0, 0 } }, "monotonic|realtime", "",
	  "clock slept on and read (cyclictest --clock 0|1)" },
	{ "threads", EP_PT_INT, "1", { { 0, TIMER_MAX_THREADS } }, NULL, "",
	  "measuring threads, all with the same interval and priority; 0: one per CPU of "
	  "'cpus' (cyclictest -t)" },
	{ "cpus", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "pin thread i to the i-th CPU of this list, round-robin (\"0,2-3\"), or \"all\": "
	  "every CPU the run may use; empty: no pinning of its own (cyclictest -a)" },
	{ "mlock", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "lock the process's memory with mlockall() for the run (cyclictest -m)" },
	{ "dma_latency", EP_PT_INT, "0", { { -1, 2000000000 } }, NULL, "us",
	  "hold /dev/cpu_dma_latency at this many us for the run, as cyclictest does by "
	  "default (0: no deep idle states); -1: leave it (cyclictest --laptop)" },
	{ "work", EP_PT_DURATION, "0", { { 0, TIMER_MAX_WORK_NS } }, NULL, "ns",
	  "busy CPU time after each wake-up (a control loop's work); longer than 'interval' "
	  "makes overruns" },
};

static const struct ep_metric_desc timer_metrics[] = {
	[M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0,
			"wake-up time - deadline; each trial's median, with the percentiles, min, "
			"max and mean of every wake-up" },
	[M_WAKEUPS] = { "wakeups", "wakeups/s", EP_METRIC_TRIAL_OPS, 1.0, EP_PRIMARY_MEDIAN, 1,
			"wake-ups per second, all threads together" },
	[M_OVERRUNS] = { "overruns", "intervals", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
			 0, "deadlines that had passed when the wake-up for the one before came "
			    "(missed intervals), per trial" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(EP_CPU_SYSTEM_HELP),
};

static const char *const timer_counters[] = { [C_OVERRUNS] = "overruns" };

/** clock_ns() - @clock now, in nanoseconds. */
static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/** to_timespec() - @ns as a struct timespec. */
static struct timespec to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000LL),
			       .tv_nsec = (long)(ns % 1000000000LL) };

	return ts;
}

/**
 * sleep_until() - sleep on the state's clock until @deadline_ns.
 * @st:          the run's state.
 * @t:           the trial: its deadline check runs after each clock read,
 *               and no sleep goes past its end.
 * @deadline_ns: absolute time on st->clock.
 * @woke_ns:     receives the clock's time read right after the wake-up.
 *
 * Sleeps of more than TIMER_STEP_NS are taken in steps (each to an
 * absolute time), so that cancel is seen; the last step ends at the
 * deadline. The clock is read before the trial is asked whether it still
 * runs, so a wake-up reported is one that happened inside the trial: a
 * thread descheduled past the trial's end reports none, and the deadlines
 * it passed after the end are neither latencies nor overruns.
 * Return: 1 when the deadline was reached, 0 when the trial ended first,
 * a negative errno when clock_nanosleep() failed.
 */
static int sleep_until(const struct timer_state *st, struct ep_trial *t, int64_t deadline_ns,
		       int64_t *woke_ns)
{
	for (;;) {
		int64_t now_ns = clock_ns(st->clock), end_left_ns, target_ns;
		struct timespec ts;
		int err;

		if (!ep_trial_running(t))
			return 0;
		if (now_ns >= deadline_ns) {
			*woke_ns = now_ns;
			return 1;
		}
		end_left_ns = (int64_t)(ep_trial_end_ns(t) - ep_now_ns());
		target_ns = deadline_ns;
		if (target_ns - now_ns > TIMER_STEP_NS)
			target_ns = now_ns + TIMER_STEP_NS;
		if (target_ns - now_ns > end_left_ns)
			target_ns = now_ns + (end_left_ns > 0 ? end_left_ns : 0);
		ts = to_timespec(target_ns);
		err = clock_nanosleep(st->clock, TIMER_ABSTIME, &ts, NULL);
		if (err && err != EINTR)
			return -err;
	}
}

/** busy_work() - spin for the state's work time, or until the trial's end. */
static void busy_work(const struct timer_state *st, const struct ep_trial *t)
{
	uint64_t start_ns = ep_now_ns(), end_ns = ep_trial_end_ns(t);

	if (!st->work_ns)
		return;
	for (uint64_t now_ns = start_ns; now_ns - start_ns < (uint64_t)st->work_ns && now_ns < end_ns;
	     now_ns = ep_now_ns())
		;
}

/**
 * next_deadline() - the deadline after @deadline_ns, for a thread that woke
 * at @woke_ns: the next one, or, when that has passed too, the first one
 * still ahead, counting the passed ones as overruns into @ta (none when
 * @ta is NULL: in the ramp). sleep_until() reports only wake-ups inside the
 * trial, and timer_loop() none before its measured part, so every deadline
 * counted is the measured part's.
 * Return: the next deadline on st->clock.
 */
static int64_t next_deadline(const struct timer_state *st, struct ep_tally *ta,
			     int64_t deadline_ns, int64_t woke_ns)
{
	int64_t next_ns = deadline_ns + st->interval_ns;

	if (woke_ns >= next_ns) {
		int64_t missed = (woke_ns - next_ns) / st->interval_ns + 1;

		if (ta)
			ep_tally_count(ta, C_OVERRUNS, (double)missed);
		next_ns += missed * st->interval_ns;
	}
	return next_ns;
}

/**
 * first_measured() - the first deadline of the train @deadline_ns + k x
 * interval (k >= 0) at or after @start_ns, the measured part's start on
 * st->clock. A thread behind schedule when the ramp ends first looks at
 * the clock after the measured part started: the deadlines it passed
 * before that belong to the ramp and are neither wake-ups nor overruns.
 */
static int64_t first_measured(const struct timer_state *st, int64_t deadline_ns, int64_t start_ns)
{
	if (deadline_ns >= start_ns)
		return deadline_ns;
	return deadline_ns + ((start_ns - deadline_ns - 1) / st->interval_ns + 1) * st->interval_ns;
}

/**
 * clock_offset_ns() - st->clock minus the trial's clock, read as a pair of
 * trial-clock reads around one st->clock read, the closest of three pairs:
 * a thread preempted between two reads would move the measured part's
 * start on st->clock by the time it lost.
 */
static int64_t clock_offset_ns(const struct timer_state *st, const struct ep_trial *t)
{
	int64_t best_gap_ns = INT64_MAX, offset_ns = 0;

	for (int i = 0; i < 3; i++) {
		int64_t before_ns = (int64_t)ep_trial_now_ns(t), st_ns = clock_ns(st->clock);
		int64_t after_ns = (int64_t)ep_trial_now_ns(t);

		if (after_ns - before_ns < best_gap_ns) {
			best_gap_ns = after_ns - before_ns;
			offset_ns = st_ns - (before_ns + (after_ns - before_ns) / 2);
		}
	}
	return offset_ns;
}

/**
 * timer_loop() - one thread's measurement: wake up every interval until the
 * trial ends, recording each wake-up's latency. Deadlines before the
 * measured part (the ramp's) are not counted; the measured part's start,
 * on the engine's clock, is moved to st->clock by an offset read once
 * (clock_offset_ns(); the two clocks' rates differ by NTP's slew at most,
 * ppm).
 * Return: 0, or a negative errno from clock_nanosleep().
 */
static int timer_loop(const struct timer_state *st, struct ep_trial *t, struct ep_tally *ta)
{
	int64_t offset_ns = clock_offset_ns(st, t);
	int64_t deadline_ns = clock_ns(st->clock) + st->interval_ns, woke_ns = 0;
	int rc;

	while ((rc = sleep_until(st, t, deadline_ns, &woke_ns)) == 1) {
		uint64_t start_ns = ep_trial_start_ns(t);
		struct ep_tally *counted = start_ns ? ta : NULL; /* NULL in the ramp */

		if (counted) {
			deadline_ns = first_measured(st, deadline_ns, (int64_t)start_ns + offset_ns);
			if (deadline_ns > woke_ns) /* woke before the measured part began */
				continue;
			ep_tally_add(ta, 1, 0);
			ep_tally_latency(ta, (uint64_t)(woke_ns - deadline_ns));
		}
		busy_work(st, t);
		deadline_ns = next_deadline(st, counted, deadline_ns, woke_ns);
	}
	return rc;
}

/** timer_thread() - pthread entry of a measuring thread. */
static void *timer_thread(void *arg)
{
	struct timer_worker *w = arg;

	w->rc = timer_loop(w->st, w->t, w->ta);
	return NULL;
}

/**
 * thread_attr() - attributes of a measuring thread: the state's priority
 * (ep_sched_thread_attr()), pinned to @cpu unless it is -1.
 * Return: 0 or a positive errno (pthread convention).
 */
static int thread_attr(const struct timer_state *st, int cpu, pthread_attr_t *attr)
{
	return -ep_sched_thread_attr(attr, st->priority, cpu);
}

/**
 * start_thread() - start @fn(@arg) with the state's scheduling, on @cpu.
 * Return: 0 or a positive errno.
 */
static int start_thread(const struct timer_state *st, int cpu, void *(*fn)(void *), void *arg,
			pthread_t *tid)
{
	pthread_attr_t attr;
	int err = thread_attr(st, cpu, &attr);

	if (err)
		return err;
	err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

/**
 * timer_body() - one trial: start the measuring threads, wait for them to
 * see the trial's end, and merge their tallies.
 * Return: 0, or the first negative errno a thread met.
 */
static int timer_body(void *arg, struct ep_trial *t)
{
	struct timer_state *st = arg;
	int started = 0, rc = 0;

	for (; started < st->n_threads && !rc; started++) {
		struct timer_worker *w = &st->workers[started];

		*w = (struct timer_worker){ .st = st, .t = t, .cpu = st->cpus[started] };
		w->ta = ep_trial_tally_new(t);
		rc = w->ta ? -start_thread(st, w->cpu, timer_thread, w, &w->tid) : -ENOMEM;
		if (rc) {
			ep_trial_tally_merge(t, w->ta);
			break;
		}
	}
	for (int i = 0; i < started; i++) {
		pthread_join(st->workers[i].tid, NULL);
		ep_trial_tally_merge(t, st->workers[i].ta);
		if (!rc)
			rc = st->workers[i].rc;
	}
	return rc;
}

/**
 * check_scheduling() - the priority, then each thread's CPU, are usable.
 * Return: 0, or an error naming the parameter, the value and what is needed.
 */
static int check_scheduling(struct ep_run *run, const struct timer_state *st)
{
	int err = ep_sched_check(run, st->priority);

	for (int i = 0; !err && i < st->n_threads; i++) {
		if (st->cpus[i] < 0 || (i && st->cpus[i] == st->cpus[i - 1]))
			continue;
		err = ep_sched_probe(st->priority, st->cpus[i]);
		if (err)
			return ep_run_refuse(run, err, "cpus", ": cannot run a thread on CPU %d "
					     "(%s); accepted: CPUs this process may use",
					     st->cpus[i], strerror(-err));
	}
	return err;
}

/**
 * parse_cpu_list() - "0,2-3" into @out (at most @max CPUs, in order).
 * Return: the number of CPUs, or -EINVAL.
 */
static int parse_cpu_list(const char *text, int *out, int max)
{
	const char *p = text;
	int n = 0;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo >= CPU_SETSIZE)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi >= CPU_SETSIZE)
				return -EINVAL;
		}
		for (long c = lo; c <= hi; c++) {
			if (n == max)
				return -EINVAL;
			out[n++] = (int)c;
		}
		if (*end && (*end != ',' || !end[1]))
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	return n ? n : -EINVAL;
}

/**
 * allowed_cpus() - the CPUs the calling thread may run on (with the
 * engine's 'cpu', that one), in order, into @out.
 * Return: their number, or a negative errno.
 */
static int allowed_cpus(int *out, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			out[n++] = c;
	return n;
}

/**
 * read_threads() - 'threads' and 'cpus' into st->n_threads and st->cpus.
 * Return: 0, or an error naming the parameter.
 */
static int read_threads(struct ep_run *run, struct timer_state *st)
{
	const char *text = ep_param_text(run, "cpus");
	int list[TIMER_MAX_THREADS], n_list = 0;

	if (!strcmp(text, "all"))
		n_list = allowed_cpus(list, TIMER_MAX_THREADS);
	else if (*text)
		n_list = parse_cpu_list(text, list, TIMER_MAX_THREADS);
	if (n_list < 0)
		return ep_run_refuse(run, -EINVAL, "cpus", " is not a CPU list; accepted: "
				     "\"all\", or CPU numbers and ranges such as \"0,2-3\" (at "
				     "most %d CPUs)", TIMER_MAX_THREADS);
	st->n_threads = (int)ep_param_int(run, "threads");
	if (!st->n_threads && !n_list)
		n_list = allowed_cpus(list, TIMER_MAX_THREADS);
	if (!st->n_threads)
		st->n_threads = n_list > 0 ? n_list : 1;
	for (int i = 0; i < st->n_threads; i++)
		st->cpus[i] = n_list > 0 && *text ? list[i % n_list] : -1;
	return 0;
}

/**
 * read_interval() - 'interval', refused below the clock's resolution (the
 * engine's measured one, or the clock's own if that is coarser).
 * Return: 0, or an error naming the parameter, the value and what is accepted.
 */
static int read_interval(struct ep_run *run, struct timer_state *st)
{
	uint64_t res_ns = ep_ctx_clock_res_ns(ep_run_ctx(run));
	struct timespec ts;
	char max_text[32];

	if (!clock_getres(st->clock, &ts) && (uint64_t)(ts.tv_sec * 1000000000LL + ts.tv_nsec) > res_ns)
		res_ns = (uint64_t)(ts.tv_sec * 1000000000LL + ts.tv_nsec);
	st->interval_ns = ep_param_int(run, "interval");
	if ((uint64_t)st->interval_ns >= res_ns)
		return 0;
	ep_format_duration(TIMER_MAX_INTERVAL_NS, max_text, sizeof(max_text));
	return ep_run_refuse(run, -EINVAL, "interval", " is below the clock's resolution (%llu "
			     "ns, measured); accepted: %lluns..%s", (unsigned long long)res_ns,
			     (unsigned long long)res_ns, max_text);
}

/**
 * lock_memory() - mlockall() when 'mlock' asks for it.
 * Return: 0, or an error naming the parameter and what is needed.
 */
static int lock_memory(struct ep_run *run, struct timer_state *st)
{
	if (!ep_param_int(run, "mlock"))
		return 0;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		return ep_run_fail(run, -errno,
				   "parameter 'mlock': value '1': mlockall() failed: %s; accepted: 0, "
				   "or 1 as root, with CAP_IPC_LOCK, or with an RLIMIT_MEMLOCK (ulimit "
				   "-l) above the process's size", strerror(errno));
	st->mlocked = 1;
	return 0;
}

/**
 * hold_dma_latency() - as cyclictest: write the target to
 * /dev/cpu_dma_latency and keep it open for the run (the PM QoS request
 * lasts as long as the descriptor). A refusal (not root) is no error: the
 * label says so, and the log.
 */
static void hold_dma_latency(struct ep_run *run, struct timer_state *st)
{
	int32_t target_us = (int32_t)ep_param_int(run, "dma_latency");

	if (target_us < 0) {
		snprintf(st->dma_state, sizeof(st->dma_state), "off");
		return;
	}
	st->dma_fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
	if (st->dma_fd >= 0 && write(st->dma_fd, &target_us, sizeof(target_us)) ==
				       (ssize_t)sizeof(target_us)) {
		snprintf(st->dma_state, sizeof(st->dma_state), "%d", (int)target_us);
		return;
	}
	ep_run_log(run, EMBPERF_LOG_WARNING,
		   "os.timer: parameter 'dma_latency': cannot hold /dev/cpu_dma_latency at %d us "
		   "(%s): measured with the system's idle states, unlike cyclictest; run as root, "
		   "or dma_latency=-1 to say so", (int)target_us, strerror(errno));
	if (st->dma_fd >= 0)
		close(st->dma_fd);
	st->dma_fd = -1;
	snprintf(st->dma_state, sizeof(st->dma_state), "refused");
}

/** timer_teardown() - undo mlockall(), let cpu_dma_latency go. */
static void timer_teardown(void *state)
{
	struct timer_state *st = state;

	if (st->mlocked)
		munlockall();
	if (st->dma_fd >= 0)
		close(st->dma_fd);
}

/** make_label() - "interval=1ms clock=monotonic policy=fifo priority=80 threads=1[ cpus=..] dma_latency=0". */
static void make_label(struct ep_run *run, struct timer_state *st)
{
	const char *cpus = ep_param_text(run, "cpus");
	int n = snprintf(st->label, sizeof(st->label),
			 "interval=%s clock=%s policy=%s priority=%d threads=%d",
			 ep_param_text(run, "interval"), ep_param_text(run, "clock"),
			 st->priority ? "fifo" : "other", st->priority, st->n_threads);

	if (*cpus && n > 0 && (size_t)n < sizeof(st->label))
		n += snprintf(st->label + n, sizeof(st->label) - (size_t)n, " cpus=%s", cpus);
	if (n > 0 && (size_t)n < sizeof(st->label))
		snprintf(st->label + n, sizeof(st->label) - (size_t)n, " dma_latency=%s",
			 st->dma_state);
}

/** read_params() - every parameter into @st, checked. Return: 0 or an error. */
static int read_params(struct ep_run *run, struct timer_state *st)
{
	int rc;

	st->run = run;
	st->clock = ep_param_int(run, "clock") == CLK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	st->priority = (int)ep_param_int(run, "priority");
	st->work_ns = ep_param_int(run, "work");
	rc = read_interval(run, st);
	if (!rc)
		rc = read_threads(run, st);
	if (!rc)
		rc = check_scheduling(run, st);
	return rc;
}

/** timer_setup() - read the parameters, check the scheduling, add the trial case. */
static int timer_setup(struct ep_run *run, void **state)
{
	struct timer_state *st = *state;
	struct ep_trial_case tc = {
		.body = timer_body,
		.counters = timer_counters,
		.n_counters = (int)EP_ARRAY_SIZE(timer_counters),
	};
	int rc;

	st->dma_fd = -1;
	rc = read_params(run, st);
	if (!rc)
		rc = lock_memory(run, st);
	if (!rc) {
		hold_dma_latency(run, st);
		make_label(run, st);
		tc.labels = st->label;
		tc.arg = st;
		rc = ep_run_add_trial(run, &tc);
	}
	return rc;
}

/*
 * counters=0 by default: perf's software events (task-clock, context
 * switches, migrations, page faults) put perf's hooks on every context
 * switch of the measured threads, and a timer thread switches twice per
 * wake-up. Beside plain cyclictest (which opens none), SCHED_FIFO 80, 1 ms,
 * 5 paired rounds: p50 17.8 us with them, 15.9 without, cyclictest 16.5
 * (ratios 1.14 and 1.016; doc/fidelity/README.md). counters=1 adds them.
 */
static const struct ep_default timer_defaults[] = {
	{ "repetitions", "5" },
	{ "counters", "0" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_os_timer = {
	.name = "os.timer",
	.summary = "wake-up latency of periodic clock_nanosleep() threads (cyclictest)",
	EP_PARAMS(timer_params),
	EP_METRICS(timer_metrics),
	.engine_defaults = timer_defaults,
	.setup = timer_setup,
	.teardown = timer_teardown,
	.state_bytes = sizeof(struct timer_state),
	.trials = 1,
};
