/* SPDX-License-Identifier: MIT */
/*
 * proc_state.h - what a run must leave as it found it, read from /proc and
 * the file system: directory entries, descriptors, threads and children
 * (zombies included). Shared by the tests of kernels that start processes,
 * threads or temporary files. Failures to read /proc fail the test. Also
 * the parameter setter and result lookups those tests share.
 */
#ifndef EMBPERF_TESTS_PROC_STATE_H
#define EMBPERF_TESTS_PROC_STATE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "embperf.h"

#define TP_MAX_KIDS 16

/**
 * struct tp_kids - children of this process, zombies included.
 * @n:       how many.
 * @zombies: how many have exited and are not reaped.
 * @pids:    the first TP_MAX_KIDS of them.
 * @states:  their state letters from /proc/PID/stat ('Z' zombie, 'T' stopped, ...).
 */
struct tp_kids {
	int n;
	int zombies;
	pid_t pids[TP_MAX_KIDS];
	char states[TP_MAX_KIDS];
};

/** tp_count_entries() - entries of directory @path but "." and "..". */
int tp_count_entries(const char *path);

/** tp_count_fds() - descriptors open in this process. */
int tp_count_fds(void);

/**
 * tp_count_threads() - threads of this process, less those that have begun
 * to exit (PF_EXITING). pthread_join() returns when the kernel clears the
 * thread's TID in do_exit(), before the task leaves /proc/self/task; on a
 * loaded machine the exiting task can be preempted in between and was seen
 * there ("a thread is left", test_nofork). A thread that has not begun to
 * exit is counted, whatever the load.
 */
int tp_count_threads(void);

/**
 * tp_count_threads_settled() - threads of this process, once @want is reached
 * or, under emulation only, after 10 s: qemu-user wakes pthread_join() before
 * the joined thread's host thread is gone from /proc/self/task. Natively the
 * count is taken at once.
 */
int tp_count_threads_settled(int want);

/** tp_children() - the children of this process (of any of its threads). */
struct tp_kids tp_children(void);

/** tp_set() - set parameter @name of @b to @value; fails the test with the library's message. */
void tp_set(embperf_bench *b, const char *name, const char *value);

/**
 * tp_set_count() - exactly @count samples for @b (a test that needs a run
 * longer than its cancel or budget, or a statistic over a known count):
 * 'repetitions', and the interval rule off where the kernel has one
 * (lmbench's kernels stop at 11 samples that agree).
 */
void tp_set_count(embperf_bench *b, const char *count);

/** tp_find() - the first result of metric @metric of @b's last run, or NULL. */
const embperf_result *tp_find(const embperf_bench *b, const char *metric);

/** tp_counter() - a result's counter (the engine's or the kernel's); NaN when absent. */
double tp_counter(const embperf_result *r, const char *name);

/**
 * struct tp_canceller - a thread that cancels a context after a delay, as a
 * user's other thread would (tp_cancel_after(), tp_cancel_join()).
 * @thread:   the thread.
 * @ctx:      the context it cancels.
 * @delay_ms: how long it sleeps before the cancel.
 * @cancelled_ns: ep_now_ns() just before the cancel (read it after
 *            tp_cancel_join()): a loaded machine can wake the thread late,
 *            and how soon a run stops counts from the cancel itself.
 */
struct tp_canceller {
	pthread_t thread;
	embperf_ctx *ctx;
	unsigned delay_ms;
	uint64_t cancelled_ns;
};

/**
 * tp_cancel_after() - start a thread that sleeps @delay_ms and then calls
 * embperf_ctx_cancel(@ctx); fails the test when the thread cannot start.
 * @c, the caller's, holds the thread until tp_cancel_join(), which every
 * call must be paired with.
 */
void tp_cancel_after(struct tp_canceller *c, embperf_ctx *ctx, unsigned delay_ms);

/** tp_cancel_join() - wait for the thread of tp_cancel_after() to end. */
void tp_cancel_join(struct tp_canceller *c);

/**
 * tp_run_cancelled() - run @b with @ctx cancelled @delay_ms in; fails the
 * test unless the run returns -ECANCELED.
 * Return: ns from the cancel itself (not from when it was meant to come) to
 * the run's return.
 */
uint64_t tp_run_cancelled(embperf_bench *b, embperf_ctx *ctx, unsigned delay_ms);

/*
 * TP_BUSY_WAIT_PCT - a run whose threads waited for a CPU more than this
 * share of its time (counter cpu_wait_pct) was disturbed by other tasks:
 * the library's own threshold for EMBPERF_RESULT_DISTURBED (embperf.h). A
 * timing test whose every measurement failed this way may skip, saying the
 * machine is too busy; one failed measurement without it fails the test.
 */
#define TP_BUSY_WAIT_PCT 5.0

/**
 * tp_busy() - @r's threads waited for a CPU more than TP_BUSY_WAIT_PCT of
 * the time. Return: 1 or 0 (0 also when the system does not tell).
 */
int tp_busy(const embperf_result *r);

/** tp_fifo_permitted() - may the calling thread use SCHED_FIFO (tried and undone)? */
int tp_fifo_permitted(void);

/**
 * tp_drop_rt_permission() - leave this (test) process without the right to
 * use SCHED_FIFO: RLIMIT_RTPRIO 0 and, as root, the uid of nobody (which
 * drops every capability). Return: 1 when SCHED_FIFO is refused after it.
 */
int tp_drop_rt_permission(void);

/**
 * tp_figure() - report a measured figure in the TAP output, as a comment
 * line ("# figure: ..."), without judging it: fine timing is shown by the
 * benchmarks (bench/, doc/), and a test on a shared machine asserts only
 * what no load can break. One write() per line, so lines from tests that
 * run at once stay whole.
 */
void tp_figure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * tp_note() - say in the TAP output, as a comment line ("# note: ..."), what
 * a passing test did that a reader should know: a run taken again, a part
 * left unchecked and why. Never cr_log_warn(): criterion 2.4 counts a
 * warning against the program, which then exits 1 with every test "ok" and,
 * with --tap, the warning unprinted (tests/check_test_sources.py).
 */
void tp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* EMBPERF_TESTS_PROC_STATE_H */
