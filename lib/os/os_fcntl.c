// SPDX-License-Identifier: MIT
/*
 * os_fcntl.c - os.fcntl: POSIX record lock hand-over between two processes,
 * the method of lmbench's lat_fcntl (McVoy & Staelin).
 *
 * Two temporary files, a write lock on the first byte of each. This process
 * takes both locks, then forks the partner (POSIX locks are not inherited),
 * which for ever: releases lock 1, waits for lock 2 (F_SETLKW), releases
 * lock 2, waits for lock 1. One unit is this process's mirror image: wait
 * for lock 1, release lock 2, wait for lock 2, release lock 1. In each unit
 * every lock changes hands twice, so it holds two round trips (this process
 * waits twice and wakes the partner twice); lat_fcntl reports its time per
 * unit divided by two, one round trip, and so does this kernel (the
 * metric's scale is 2000 ns per reported microsecond).
 *
 * Linux does not hand a released lock to the process waiting for it: the
 * waiter is woken and must ask again, and the releasing process may take
 * the lock back first. So in many units this process runs all four calls
 * without waiting, while its woken partner has not run yet; lat_fcntl's
 * figure has the same mix, and this kernel keeps it (doc/methodology-os.md).
 * It follows that a partner that does not run at all (stopped) leaves this
 * process's calls unopposed instead of blocking them. The partner counts
 * its rounds in a shared page: a body during which it made none waits for
 * one, under the watchdog, so that a stopped or dead partner fails the run
 * (its 'timeout', the budget, a cancel) rather than yield a figure of lone
 * fcntl() calls.
 *
 * The partner is a process: locks of one process never conflict with each
 * other, so a thread could not play it. A stalled partner is killed by the
 * watchdog; its death releases its locks, so a body waiting on one returns,
 * and then finds the watchdog's verdict or the partner gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/os/os_files.h"
#include "lib/os/partner.h"

/**
 * struct fcntl_state - state of os.fcntl.
 * @partner: the other process.
 * @fd:      the two locked files (unlinked at once), or -1.
 * @rounds:  the partner's completed rounds, in a page both processes share
 *           (MAP_FAILED until mapped); written by the partner only.
 * @gone:    the partner was found dead and reaped.
 */
struct fcntl_state {
	struct ep_partner partner;
	int fd[2];
	uint64_t *rounds;
	int gone;
};

static const struct ep_param_desc fcntl_params[] = {
	EP_OS_PARAM_TMPDIR,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc fcntl_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 2000.0, EP_PRIMARY_MEDIAN, 0,
	  "a lock handed to the other process and back (F_SETLKW), median (lat_fcntl)" },
};

/* Take (F_WRLCK, waiting) or drop (F_UNLCK) the lock on byte 0 of @fd. */
static int lock_op(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	while (fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &fl)) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* The partner process: lat_fcntl's other side, for ever. */
static void fcntl_partner(void *arg)
{
	const struct fcntl_state *st = arg;

	while (!lock_op(st->fd[0], F_UNLCK) && !lock_op(st->fd[1], F_WRLCK) &&
	       !lock_op(st->fd[1], F_UNLCK) && !lock_op(st->fd[0], F_WRLCK))
		__atomic_store_n(st->rounds, *st->rounds + 1, __ATOMIC_RELAXED);
}

/* The partner died (its locks went with it, so no wait told): 0 while alive. */
static int partner_gone(struct fcntl_state *st)
{
	if (st->partner.pid <= 0 || waitpid(st->partner.pid, NULL, WNOHANG) != st->partner.pid)
		return 0;
	st->gone = 1;
	return 1;
}

/*
 * Wait (no beat: the watchdog sees a stall) until the partner has gone past
 * @rounds. This process holds lock 2 between units, and the partner may
 * wait for it: let it go meanwhile, and take it back after (the partner
 * never holds one lock while it waits for the other, so that cannot
 * deadlock). Return: 0 or a negative errno of fcntl().
 */
static int await_partner(struct fcntl_state *st, uint64_t rounds)
{
	const struct timespec pause = { 0, 50000 };
	int err;

	if (__atomic_load_n(st->rounds, __ATOMIC_RELAXED) != rounds)
		return 0;
	err = lock_op(st->fd[1], F_UNLCK);
	while (!err && __atomic_load_n(st->rounds, __ATOMIC_RELAXED) == rounds &&
	       !__atomic_load_n(&st->partner.fired, __ATOMIC_ACQUIRE) && !partner_gone(st))
		nanosleep(&pause, NULL);
	return err ? err : lock_op(st->fd[1], F_WRLCK);
}

static int fcntl_body(void *arg, uint64_t units)
{
	struct fcntl_state *st = arg;
	uint64_t rounds = __atomic_load_n(st->rounds, __ATOMIC_RELAXED);
	int err = 0;

	ep_partner_enter(&st->partner);
	while (units-- && !err) {
		err = lock_op(st->fd[0], F_WRLCK);
		if (!err)
			err = lock_op(st->fd[1], F_UNLCK);
		if (!err)
			err = lock_op(st->fd[1], F_WRLCK);
		if (!err)
			err = lock_op(st->fd[0], F_UNLCK);
		ep_partner_beat(&st->partner);
	}
	if (!err)
		err = await_partner(st, rounds);
	ep_partner_leave(&st->partner);
	if (!err && !st->gone && !__atomic_load_n(&st->partner.fired, __ATOMIC_ACQUIRE))
		return 0;
	err = ep_partner_failed(&st->partner, err ? err : -EPIPE, "fcntl(F_SETLKW)");
	if (st->gone)
		st->partner.pid = 0; /* reaped: nothing for ep_partner_stop() to kill */
	return err;
}

static void fcntl_teardown(void *state)
{
	struct fcntl_state *st = state;

	ep_partner_stop(&st->partner);
	for (int i = 0; i < 2; i++)
		ep_ipc_close(&st->fd[i]);
	if (st->rounds && st->rounds != MAP_FAILED)
		munmap(st->rounds, sizeof(*st->rounds));
}

/* An unlinked file in 'tmpdir' (lat_fcntl's are in /tmp), locked by this process. */
static int locked_file(struct ep_run *run, const char *dir, int *fd)
{
	char path[EP_OS_PATH_MAX + 32]; /* 'tmpdir' and the file's own name */
	int rc;

	*fd = ep_os_mkstemp(run, dir, "embperf-fcntl", path, sizeof(path));
	if (*fd < 0)
		return *fd;
	unlink(path);
	rc = lock_op(*fd, F_WRLCK);
	if (rc)
		return ep_run_fail(run, rc, "parameter 'tmpdir': fcntl(F_SETLKW) on a file in '%s' "
				   "failed: %s; accepted: a file system with POSIX record locks",
				   dir, strerror(-rc));
	return 0;
}

static int fcntl_setup(struct ep_run *run, void **state)
{
	struct fcntl_state *st = *state;
	struct ep_case c = { .metric = 0, .labels = "", .body = fcntl_body };
	struct ep_partner_cfg cfg = {
		.name = "lock partner process",
		.fn = fcntl_partner,
		.n_keep = 2,
		.timeout_ns = (uint64_t)ep_param_int(run, "timeout"),
		.no_threads = 1, /* POSIX record locks belong to processes */
	};
	char dir[EP_OS_PATH_MAX];
	int rc;

	st->fd[0] = st->fd[1] = -1;
	st->rounds = mmap(NULL, sizeof(*st->rounds), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->rounds == MAP_FAILED)
		return ep_run_fail(run, -errno, "os.fcntl: cannot map a shared page: %s",
				   strerror(errno));
	rc = ep_os_tmpdir(run, dir, sizeof(dir));
	for (int i = 0; i < 2 && !rc; i++)
		rc = locked_file(run, dir, &st->fd[i]);
	if (rc)
		return rc;
	cfg.arg = st;
	cfg.keep[0] = st->fd[0];
	cfg.keep[1] = st->fd[1];
	rc = ep_partner_start(run, &st->partner, &cfg);
	if (!rc)
		rc = fcntl_body(st, 1); /* one unit first: both are up */
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_case(run, &c);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_fcntl = {
	.name = "os.fcntl",
	.summary = "fcntl() record lock hand-over between two processes (lmbench lat_fcntl); "
		   "needs fork()",
	EP_PARAMS(fcntl_params),
	EP_METRICS(fcntl_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = fcntl_setup,
	.teardown = fcntl_teardown,
	.state_bytes = sizeof(struct fcntl_state),
};
