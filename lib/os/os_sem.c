// SPDX-License-Identifier: MIT
/*
 * os_sem.c - os.sem: System V semaphore latency between two processes, the
 * method of lmbench's lat_sem (McVoy & Staelin).
 *
 * A set of two semaphores, both at 0. A forked process posts semaphore 1,
 * then for ever waits on semaphore 0 and posts semaphore 1 in one semop().
 * One unit is this process's semop() that waits on 1 and posts 0: a round
 * trip, two hand-overs. lat_sem reports half a round trip, and so does
 * this kernel (the metric's scale is 2000 ns per reported microsecond).
 *
 * System V semaphore sets outlive processes; the set is removed in
 * teardown on every path (error, budget, cancel). Only a crash of the
 * whole process between setup and teardown can leave it behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/partner.h"

/**
 * struct sem_state - state of os.sem.
 * @partner: the other process.
 * @semid:   the set, or -1.
 * @removed: 1 once the set is removed (by the watchdog or teardown).
 */
struct sem_state {
	struct ep_partner partner;
	int semid;
	int removed;
};

static const struct ep_param_desc sem_params[] = {
	EP_PARTNER_MODE_PARAM,
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc sem_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 2000.0, EP_PRIMARY_MEDIAN, 0,
	  "half a semop() round trip between two processes, median (lat_sem)" },
};

/* semop() that survives signals of the caller's handlers. */
static int sem_do(int semid, struct sembuf *ops, size_t n)
{
	while (semop(semid, ops, n)) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* The other process: post 1, then wait on 0 and post 1, for ever. */
static void sem_partner(void *arg)
{
	const struct sem_state *st = arg;
	struct sembuf start = { .sem_num = 1, .sem_op = 1 };
	struct sembuf ops[2] = { { .sem_num = 0, .sem_op = -1 }, { .sem_num = 1, .sem_op = 1 } };

	if (sem_do(st->semid, &start, 1))
		return;
	while (!sem_do(st->semid, ops, 2))
		;
}

/* Remove the set once, whoever comes first. */
static void sem_remove(void *arg)
{
	struct sem_state *st = arg;

	if (st->semid >= 0 && !__atomic_exchange_n(&st->removed, 1, __ATOMIC_ACQ_REL))
		semctl(st->semid, 0, IPC_RMID);
}

static int sem_body(void *arg, uint64_t units)
{
	struct sem_state *st = arg;
	struct sembuf ops[2] = { { .sem_num = 1, .sem_op = -1 }, { .sem_num = 0, .sem_op = 1 } };
	int err = 0;

	ep_partner_enter(&st->partner);
	while (units-- && !err) {
		err = sem_do(st->semid, ops, 2);
		ep_partner_beat(&st->partner);
	}
	ep_partner_leave(&st->partner);
	return err ? ep_partner_failed(&st->partner, err, "semop") : 0;
}

static void sem_teardown(void *state)
{
	struct sem_state *st = state;

	ep_partner_stop(&st->partner);
	sem_remove(st);
}

static int sem_create(struct ep_run *run, struct sem_state *st)
{
	int err;

	st->semid = semget(IPC_PRIVATE, 2, IPC_CREAT | IPC_EXCL | 0600);
	if (st->semid < 0) {
		err = -errno;
		if (err == -ENOSYS)
			return ep_run_fail(run, -EOPNOTSUPP,
					   "this kernel has no System V semaphores (CONFIG_SYSVIPC)");
		if (err == -ENOSPC)
			return ep_run_fail(run, err,
					   "the system's limit on semaphore sets is reached "
					   "(kernel.sem; see ipcs -s)");
		return ep_run_fail(run, err, "semget() failed: %s", strerror(-err));
	}
	if (semctl(st->semid, 0, SETVAL, 0) || semctl(st->semid, 1, SETVAL, 0))
		return ep_run_fail(run, -errno, "semctl(SETVAL) failed: %s", strerror(errno));
	return 0;
}

static int sem_start(struct ep_run *run, struct sem_state *st)
{
	struct ep_partner_cfg cfg = ep_partner_cfg_of(run, "semaphore partner process",
						      sem_partner, st);
	int rc = sem_create(run, st);

	/* A dead partner does not end a semop() wait: removing the set does. */
	cfg.unblock = sem_remove;
	cfg.unblock_arg = st;
	if (!rc)
		rc = ep_partner_start(run, &st->partner, &cfg);
	return rc ? rc : sem_body(st, 1); /* one round trip first: both are up */
}

static int sem_setup(struct ep_run *run, void **state)
{
	struct sem_state *st = *state;

	st->semid = -1;
	return ep_partner_add_case(run, sem_start(run, st), sem_body, st);
}

const struct ep_kernel ep_kernel_os_sem = {
	.name = "os.sem",
	.summary = "System V semaphore hand-over between two processes (lmbench lat_sem); mode=process needs fork()",
	EP_PARAMS(sem_params),
	EP_METRICS(sem_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = sem_setup,
	.teardown = sem_teardown,
	.state_bytes = sizeof(struct sem_state),
};
