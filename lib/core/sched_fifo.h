/* SPDX-License-Identifier: MIT */
/*
 * sched_fifo.h - real-time scheduling for kernels with a 'priority' parameter
 * (os.timer, the audio kernels): 0 leaves the scheduling alone, 1..99 is
 * SCHED_FIFO at that priority. One permission check with one message, the
 * attributes of a thread started at a priority, and a priority taken and
 * given back by the calling thread (a trial body).
 */
#ifndef EMBPERF_CORE_SCHED_FIFO_H
#define EMBPERF_CORE_SCHED_FIFO_H

#include <pthread.h>
#include <sched.h>

struct ep_run;

/**
 * ep_sched_thread_attr() - attributes of a thread at @priority (SCHED_FIFO,
 * or SCHED_OTHER for 0), set explicitly (never inherited), pinned to @cpu
 * unless it is -1. On success the caller destroys @attr.
 * Return: 0 or a negative errno.
 */
int ep_sched_thread_attr(pthread_attr_t *attr, int priority, int cpu);

/**
 * ep_sched_probe() - start and join one thread with ep_sched_thread_attr()'s
 * attributes: can the run's threads be started so?
 * Return: 0 or a negative errno (-EPERM: no permission for SCHED_FIFO;
 * -EINVAL: a CPU this process may not use).
 */
int ep_sched_probe(int priority, int cpu);

/**
 * ep_sched_check() - may this process run a thread at SCHED_FIFO @priority?
 * Starts and joins one such thread. Call it in setup(), before anything is
 * opened, so a missing permission is reported before any trial.
 * Return: 0 (also for @priority 0), or a negative errno with the run's
 * message naming 'priority', the value and what is needed (root,
 * CAP_SYS_NICE or RLIMIT_RTPRIO).
 */
int ep_sched_check(struct ep_run *run, int priority);

/**
 * struct ep_sched_saved - a thread's scheduling before ep_sched_enter().
 * @policy, @param: what it had.
 * @changed:        ep_sched_enter() changed it.
 */
struct ep_sched_saved {
	int policy;
	struct sched_param param;
	int changed;
};

/**
 * ep_sched_enter() - run the calling thread at SCHED_FIFO @priority (nothing
 * for 0), saving what it had into @saved.
 * Return: 0 or a negative errno (-EPERM without the permission).
 */
int ep_sched_enter(int priority, struct ep_sched_saved *saved);

/** ep_sched_leave() - give the calling thread back what ep_sched_enter() saved. */
void ep_sched_leave(const struct ep_sched_saved *saved);

#endif /* EMBPERF_CORE_SCHED_FIFO_H */
