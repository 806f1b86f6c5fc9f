// SPDX-License-Identifier: MIT
/*
 * sched_fifo.c - SCHED_FIFO for the kernels' 'priority' parameter (sched_fifo.h).
 *
 * The permission is the process's (root, CAP_SYS_NICE, or an RLIMIT_RTPRIO
 * at least the priority), so one probe thread started at the priority
 * answers for every thread of the run, without touching the caller's own
 * scheduling.
 */
#include <errno.h>
#include <string.h>

#include "run.h"
#include "sched_fifo.h"

int ep_sched_thread_attr(pthread_attr_t *attr, int priority, int cpu)
{
	struct sched_param sp = { .sched_priority = priority };
	int err = pthread_attr_init(attr);

	if (err)
		return -err;
	err = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(attr, priority ? SCHED_FIFO : SCHED_OTHER);
	if (!err)
		err = pthread_attr_setschedparam(attr, &sp);
#ifdef __GLIBC__
	if (!err && cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_attr_setaffinity_np(attr, sizeof(set), &set);
	}
#else
	/* C libraries without pthread_attr_setaffinity_np() (musl): the thread
	 * starts where the scheduler puts it. */
	(void)cpu;
#endif
	if (err)
		pthread_attr_destroy(attr);
	return -err;
}

/** noop_thread() - pthread entry of the permission probe. */
static void *noop_thread(void *arg)
{
	return arg;
}

int ep_sched_probe(int priority, int cpu)
{
	pthread_attr_t attr;
	pthread_t tid;
	int err = ep_sched_thread_attr(&attr, priority, cpu);

	if (err)
		return err;
	err = -pthread_create(&tid, &attr, noop_thread, NULL);
	pthread_attr_destroy(&attr);
	if (!err)
		pthread_join(tid, NULL);
	return err;
}

int ep_sched_check(struct ep_run *run, int priority)
{
	int err = priority ? ep_sched_probe(priority, -1) : 0;

	if (err == -EPERM)
		return ep_run_fail(run, -EPERM,
				   "parameter 'priority': value '%d' needs SCHED_FIFO, which this "
				   "process may not use (a SCHED_FIFO thread: %s); accepted: 0 (no "
				   "real-time scheduling), or 1..99 when running as root, with "
				   "CAP_SYS_NICE, or with an RLIMIT_RTPRIO (ulimit -r) of at least %d",
				   priority, strerror(EPERM), priority);
	if (err)
		return ep_run_fail(run, err, "parameter 'priority': value '%d': cannot start a "
				   "thread with it: %s", priority, strerror(-err));
	return 0;
}

int ep_sched_enter(int priority, struct ep_sched_saved *saved)
{
	struct sched_param fifo = { .sched_priority = priority };
	int err;

	saved->changed = 0;
	if (!priority)
		return 0;
	err = pthread_getschedparam(pthread_self(), &saved->policy, &saved->param);
	if (!err)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
	saved->changed = !err;
	return -err;
}

void ep_sched_leave(const struct ep_sched_saved *saved)
{
	if (saved->changed)
		pthread_setschedparam(pthread_self(), saved->policy, &saved->param);
}
