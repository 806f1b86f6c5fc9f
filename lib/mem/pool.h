/* SPDX-License-Identifier: MIT */
/*
 * pool.h - a fixed team of threads for mem.stream: the calling thread and
 * n - 1 workers run the same function over their share of the arrays, with
 * a barrier after each pass, as an OpenMP "parallel for" with a static
 * schedule does.
 */
#ifndef EMBPERF_MEM_POOL_H
#define EMBPERF_MEM_POOL_H

#include <stddef.h>
#include <stdint.h>

struct ep_mem_pool;

/**
 * typedef ep_mem_pool_fn - one thread's part of one pass.
 * @arg:       the pointer given to ep_mem_pool_run().
 * @thread:    0 (the calling thread) to n_threads - 1.
 * @n_threads: size of the team.
 */
typedef void (*ep_mem_pool_fn)(void *arg, int thread, int n_threads);

/**
 * ep_mem_pool_new() - start a team.
 * @n_threads: threads in all, the caller included (>= 1).
 * @first_cpu: -1 to leave placement to the scheduler; otherwise worker k
 *             (1..n-1) is pinned to online CPU (@first_cpu + k) modulo the
 *             number of online CPUs (best effort).
 * @out:       receives the pool.
 *
 * Return: 0, -ENOMEM, or the negative errno of a thread creation failure.
 */
int ep_mem_pool_new(int n_threads, int first_cpu, struct ep_mem_pool **out);

/**
 * ep_mem_pool_run() - run @passes passes of @fn on every thread of the team.
 * @pool:   team.
 * @fn:     work of one thread in one pass.
 * @arg:    passed to @fn.
 * @passes: number of passes; every thread waits for all others after each.
 *
 * Returns when the last pass is done on every thread.
 */
void ep_mem_pool_run(struct ep_mem_pool *pool, ep_mem_pool_fn fn, void *arg, uint64_t passes);

/**
 * ep_mem_pool_free() - stop and join the workers; NULL is a no-op.
 * @pool: team.
 */
void ep_mem_pool_free(struct ep_mem_pool *pool);

/**
 * ep_mem_pool_share() - the part of [0, @n) thread @thread works on.
 * @n:         elements in all.
 * @thread:    thread index.
 * @n_threads: size of the team.
 * @lo:        receives the first element.
 * @hi:        receives one past the last element.
 *
 * Contiguous blocks, the first n % n_threads threads one element larger:
 * the split of OpenMP's static schedule.
 */
void ep_mem_pool_share(size_t n, int thread, int n_threads, size_t *lo, size_t *hi);

#endif /* EMBPERF_MEM_POOL_H */
