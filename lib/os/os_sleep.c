// SPDX-License-Identifier: MIT
/*
 * os_sleep.c - os.sleep: how long a request to sleep `interval` really
 * takes, the method of lmbench's lat_usleep (Staelin). One unit is one
 * sleep; its time is the interval plus the overshoot (timer slack, timer
 * resolution, wake-up latency):
 *
 *   usleep     usleep(interval)
 *   nanosleep  nanosleep(interval), resumed with the remainder if a signal
 *              interrupts it
 *   select     select() on no descriptors with the interval as timeout
 *   itimer     an interval timer armed for `interval`; the thread waits for
 *              its signal and re-arms it, as lat_usleep's SIGALRM handler
 *              re-arms setitimer() each time
 *
 * itimer, deliberately unlike lat_usleep: the timer is a POSIX timer
 * (timer_create(), CLOCK_MONOTONIC) whose signal goes to the calling
 * thread only, and the thread takes it with sigwaitinfo() while it is
 * blocked, so no handler is installed and no other thread of the caller is
 * disturbed. Like ITIMER_REAL it is an hrtimer without timer slack; the
 * wake-up path differs from a handler's by the signal frame set-up and
 * sigreturn (about a microsecond; see doc/methodology-os.md).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/run.h"

#define SLEEP_MIN_NS 1000LL           /* 1 us: lat_usleep's unit */
#define SLEEP_MAX_NS 1000000000LL     /* 1 s */
#define SLEEP_STASH_MAX 8             /* foreign signals held back during one body */

enum sleep_op { OP_USLEEP, OP_NANOSLEEP, OP_SELECT, OP_ITIMER };

/**
 * struct sleep_state - the run's state.
 * @run:        the run: cancel and budget checks, failure messages.
 * @interval_ns: the requested sleep.
 * @timer:      itimer: the POSIX timer.
 * @has_timer:  @timer exists.
 * @signo:      itimer: its signal.
 * @pid:        this process (re-delivering foreign signals).
 * @tid:        the thread running the benchmark.
 * @stash:      itimer: signals of the same number that were not the timer's,
 *              re-delivered when the body ends.
 * @n_stash:    how many.
 */
struct sleep_state {
	struct ep_run *run;
	int64_t interval_ns;
	timer_t timer;
	int has_timer;
	int signo;
	pid_t pid;
	pid_t tid;
	siginfo_t stash[SLEEP_STASH_MAX];
	int n_stash;
};

static const struct ep_param_desc sleep_params[] = {
	{ "op", EP_PT_ENUM, "usleep", { { 0, 0 } }, "usleep|nanosleep|select|itimer", "",
	  "how to sleep, as lat_usleep's -u" },
	{ "interval", EP_PT_DURATION, "100us", { { SLEEP_MIN_NS, SLEEP_MAX_NS } }, NULL, "ns",
	  "requested sleep (usleep and select: whole microseconds)" },
};

static const struct ep_metric_desc sleep_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "microseconds one sleep really takes (interval plus overshoot); median as lat_usleep" },
};

static int sleep_usleep(void *arg, uint64_t units)
{
	struct sleep_state *st = arg;
	useconds_t us = (useconds_t)(st->interval_ns / 1000);
	int rc;

	while (units--) {
		rc = ep_run_check(st->run);
		if (rc)
			return rc;
		usleep(us);
	}
	return 0;
}

static int sleep_nanosleep(void *arg, uint64_t units)
{
	struct sleep_state *st = arg;
	const struct timespec req = {
		.tv_sec = (time_t)(st->interval_ns / 1000000000),
		.tv_nsec = (long)(st->interval_ns % 1000000000),
	};
	int rc;

	while (units--) {
		struct timespec rem = req;

		rc = ep_run_check(st->run);
		if (rc)
			return rc;
		while (nanosleep(&rem, &rem) && errno == EINTR)
			;
	}
	return 0;
}

static int sleep_select(void *arg, uint64_t units)
{
	struct sleep_state *st = arg;
	int rc;

	while (units--) {
		struct timeval tv = {
			.tv_sec = (time_t)(st->interval_ns / 1000000000),
			.tv_usec = (suseconds_t)(st->interval_ns % 1000000000 / 1000),
		};

		rc = ep_run_check(st->run);
		if (rc)
			return rc;
		select(0, NULL, NULL, NULL, &tv);
	}
	return 0;
}

/* Wait for the timer's signal; keep other senders' signals for later. */
static int wait_timer_signal(struct sleep_state *st, const sigset_t *set)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (si.si_code == SI_TIMER && si.si_value.sival_ptr == st)
			return 0;
		if (st->n_stash == SLEEP_STASH_MAX)
			return ep_run_fail(st->run, -EBUSY,
					   "op=itimer: signal %d is also sent to this thread by "
					   "someone else", st->signo);
		st->stash[st->n_stash++] = si;
	}
}

/* Give the caller back the signals that were not ours, as they came. */
static void redeliver_stash(struct sleep_state *st)
{
	for (int i = 0; i < st->n_stash; i++)
		syscall(SYS_rt_tgsigqueueinfo, st->pid, st->tid, st->signo, &st->stash[i]);
	st->n_stash = 0;
}

static int sleep_itimer(void *arg, uint64_t units)
{
	struct sleep_state *st = arg;
	const struct itimerspec arm = {
		.it_value = {
			.tv_sec = (time_t)(st->interval_ns / 1000000000),
			.tv_nsec = (long)(st->interval_ns % 1000000000),
		},
	};
	sigset_t set, old;
	int rc = 0;

	sigemptyset(&set);
	sigaddset(&set, st->signo);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	while (units-- && !rc) {
		rc = ep_run_check(st->run);
		if (!rc && timer_settime(st->timer, 0, &arm, NULL))
			rc = ep_run_fail(st->run, -errno, "op=itimer: timer_settime(): %s",
					 strerror(errno));
		if (!rc)
			rc = wait_timer_signal(st, &set);
	}
	if (rc) {
		/* Disarm, and take a signal that may have fired meanwhile. */
		static const struct itimerspec off;
		const struct timespec zero = { 0, 0 };
		siginfo_t si;

		timer_settime(st->timer, 0, &off, NULL);
		while (sigtimedwait(&set, &si, &zero) > 0)
			if (!(si.si_code == SI_TIMER && si.si_value.sival_ptr == st) &&
			    st->n_stash < SLEEP_STASH_MAX)
				st->stash[st->n_stash++] = si;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	redeliver_stash(st);
	return rc;
}

static void sleep_teardown(void *state)
{
	struct sleep_state *st = state;

	if (st->has_timer)
		timer_delete(st->timer);
}

/* itimer: a timer that signals this thread, with a pointer to the state. */
static int make_timer(struct ep_run *run, struct sleep_state *st)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	st->signo = SIGRTMAX; /* the least likely to be used by the caller */
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = st->signo;
	sev.sigev_value.sival_ptr = st;
	sev._sigev_un._tid = st->tid; /* sigev_notify_thread_id; glibc < 2.41 lacks the name */
	if (timer_create(CLOCK_MONOTONIC, &sev, &st->timer))
		return ep_run_fail(run, -errno, "op=itimer: timer_create(): %s", strerror(errno));
	st->has_timer = 1;
	return 0;
}

static int sleep_setup(struct ep_run *run, void **state)
{
	static const ep_body_fn bodies[] = { sleep_usleep, sleep_nanosleep, sleep_select,
					     sleep_itimer };
	int op = (int)ep_param_int(run, "op");
	int64_t interval_ns = ep_param_int(run, "interval");
	struct sleep_state *st = *state;
	struct ep_case c = { .metric = 0, .body = bodies[op] };
	int rc = 0;

	if ((op == OP_USLEEP || op == OP_SELECT) && interval_ns % 1000)
		return ep_run_refuse(run, -EINVAL, "interval", " is not a whole number of "
				     "microseconds, which %s takes; accepted: 1us..1s in steps of "
				     "1us", ep_param_text(run, "op"));
	st->run = run;
	st->interval_ns = interval_ns;
	st->pid = getpid();
	st->tid = gettid();
	if (op == OP_ITIMER)
		rc = make_timer(run, st);
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "op", "interval", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_sleep = {
	.name = "os.sleep",
	.summary = "real duration of usleep, nanosleep, select and interval-timer sleeps (lmbench lat_usleep)",
	EP_PARAMS(sleep_params),
	EP_METRICS(sleep_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = sleep_setup,
	.teardown = sleep_teardown,
	.state_bytes = sizeof(struct sleep_state),
};
