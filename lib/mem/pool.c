// SPDX-License-Identifier: MIT
/*
 * pool.c - the thread team of mem.stream.
 *
 * Workers sleep on a condition variable until the caller posts a job (a new
 * generation), run its passes with a barrier after each, and go back to
 * sleep. The caller runs thread 0's share itself, so the last barrier of the
 * last pass is where the job ends for everyone.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/mem/pool.h"

struct pool_worker {
	struct ep_mem_pool *pool;
	pthread_t tid;
	int index;
};

struct ep_mem_pool {
	int n_threads;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_barrier_t pass_done;
	uint64_t generation; /* bumped for each job, under @lock */
	int stop;
	ep_mem_pool_fn fn;
	void *arg;
	uint64_t passes;
	struct pool_worker *workers;
	int n_started;
};

void ep_mem_pool_share(size_t n, int thread, int n_threads, size_t *lo, size_t *hi)
{
	size_t t = (size_t)thread, q = n / (size_t)n_threads, r = n % (size_t)n_threads;

	*lo = t * q + (t < r ? t : r);
	*hi = *lo + q + (t < r);
}

static void run_passes(struct ep_mem_pool *pool, ep_mem_pool_fn fn, void *arg, uint64_t passes,
		       int thread)
{
	for (uint64_t i = 0; i < passes; i++) {
		fn(arg, thread, pool->n_threads);
		pthread_barrier_wait(&pool->pass_done);
	}
}

static void *worker_main(void *p)
{
	struct pool_worker *w = p;
	struct ep_mem_pool *pool = w->pool;
	uint64_t seen = 0;

	for (;;) {
		ep_mem_pool_fn fn;
		void *arg;
		uint64_t passes;

		pthread_mutex_lock(&pool->lock);
		while (!pool->stop && pool->generation == seen)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stop) {
			pthread_mutex_unlock(&pool->lock);
			return NULL;
		}
		seen = pool->generation;
		fn = pool->fn;
		arg = pool->arg;
		passes = pool->passes;
		pthread_mutex_unlock(&pool->lock);
		run_passes(pool, fn, arg, passes, w->index);
	}
}

void ep_mem_pool_run(struct ep_mem_pool *pool, ep_mem_pool_fn fn, void *arg, uint64_t passes)
{
	if (!passes)
		return;
	if (pool->n_threads > 1) {
		pthread_mutex_lock(&pool->lock);
		pool->fn = fn;
		pool->arg = arg;
		pool->passes = passes;
		pool->generation++;
		pthread_cond_broadcast(&pool->wake);
		pthread_mutex_unlock(&pool->lock);
	}
	run_passes(pool, fn, arg, passes, 0);
}

/* The CPU of worker @k when the run is pinned: 0, or -1 when it is not. */
static int worker_cpu(cpu_set_t *set, int first_cpu, int k)
{
	long n_cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (first_cpu < 0 || n_cpus < 1)
		return -1;
	CPU_ZERO(set);
	CPU_SET((size_t)((first_cpu + k) % n_cpus), set);
	return 0;
}

/* Creation attributes of worker @k: pinned when the run is. */
static int worker_attr(pthread_attr_t *attr, int first_cpu, int k)
{
	int rc = pthread_attr_init(attr);
	cpu_set_t set;

	if (rc || worker_cpu(&set, first_cpu, k))
		return rc;
#ifdef __GLIBC__
	/* Best effort: an unusable CPU leaves the worker where it would be. */
	(void)pthread_attr_setaffinity_np(attr, sizeof(set), &set);
#endif
	return 0;
}

/*
 * Pin a started worker: C libraries without pthread_attr_setaffinity_np()
 * (musl) pin it here, before it is given work. Best effort, as above.
 */
static void worker_pin(pthread_t tid, int first_cpu, int k)
{
#ifndef __GLIBC__
	cpu_set_t set;

	if (!worker_cpu(&set, first_cpu, k))
		(void)pthread_setaffinity_np(tid, sizeof(set), &set);
#endif
}

static int start_workers(struct ep_mem_pool *pool, int first_cpu)
{
	for (int k = 1; k < pool->n_threads; k++) {
		struct pool_worker *w = &pool->workers[k - 1];
		pthread_attr_t attr;
		int rc = worker_attr(&attr, first_cpu, k);

		if (rc)
			return -rc;
		w->pool = pool;
		w->index = k;
		rc = pthread_create(&w->tid, &attr, worker_main, w);
		if (rc == EINVAL && first_cpu >= 0) {
			/* The CPU is not ours to use: start it unpinned. */
			pthread_attr_destroy(&attr);
			pthread_attr_init(&attr);
			rc = pthread_create(&w->tid, &attr, worker_main, w);
		}
		pthread_attr_destroy(&attr);
		if (rc)
			return -rc;
		worker_pin(w->tid, first_cpu, k);
		pool->n_started++;
	}
	return 0;
}

EP_UNTIMED int ep_mem_pool_new(int n_threads, int first_cpu, struct ep_mem_pool **out)
{
	struct ep_mem_pool *pool;
	int rc;

	*out = NULL;
	if (n_threads < 1)
		return -EINVAL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->n_threads = n_threads;
	pool->workers = calloc((size_t)n_threads, sizeof(*pool->workers));
	if (!pool->workers) {
		free(pool);
		return -ENOMEM;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	rc = -pthread_barrier_init(&pool->pass_done, NULL, (unsigned)n_threads);
	if (rc) {
		pthread_cond_destroy(&pool->wake);
		pthread_mutex_destroy(&pool->lock);
		free(pool->workers);
		free(pool);
		return rc;
	}
	rc = start_workers(pool, first_cpu);
	if (rc) {
		ep_mem_pool_free(pool);
		return rc;
	}
	*out = pool;
	return 0;
}

EP_UNTIMED void ep_mem_pool_free(struct ep_mem_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = 1;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int k = 0; k < pool->n_started; k++)
		pthread_join(pool->workers[k].tid, NULL);
	pthread_barrier_destroy(&pool->pass_done);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool->workers);
	free(pool);
}
