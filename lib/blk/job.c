// SPDX-License-Identifier: MIT
/*
 * job.c - the I/O of blk.io: each thread issues blocks of 'bs' with
 * pread()/pwrite() over its own region of the target, stamps every I/O
 * with the engine's clock (ep_now_ns()) just before the call and just after
 * the whole block completed (a short transfer is finished by further calls,
 * counted in 'short_ios'), and counts it into its tally. engine=io_uring
 * runs its own loop (uring.c) over the same offsets, pattern and counts
 * (worker.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "lib/blk/job.h"
#include "lib/core/util.h"

/**
 * io_full() - transfer a whole block at @off_bytes from the worker's
 * buffer, finishing short transfers with further calls.
 * Return: 0, or a negative errno (-EIO for a read past the end).
 */
static int io_full(struct blk_worker *w, int is_read, uint64_t off_bytes)
{
	return blk_io_rest(w, w->buf, is_read, off_bytes, 0);
}

/**
 * one_io() - one timed block: fill the pattern of a verified write first,
 * check a verified read afterwards (both outside the latency).
 * Return: 0 or a negative errno (recorded in @w).
 */
static int one_io(struct blk_worker *w, int is_read, uint64_t off_bytes)
{
	const struct blk_job *job = w->job;
	uint64_t start_ns, end_ns;
	int rc;

	if (!is_read && job->verify)
		blk_pattern_fill(w->buf, job->bs_bytes, off_bytes, job->seed);
	else if (!is_read)
		blk_scramble_job(job, w->buf, off_bytes);
	start_ns = ep_now_ns();
	rc = io_full(w, is_read, off_bytes);
	end_ns = ep_now_ns();
	if (rc)
		return blk_fail(w, rc, is_read ? "read" : "write", off_bytes);
	ep_tally_op(w->ta, 1, job->bs_bytes, end_ns - start_ns);
	if (is_read && job->verify) {
		int64_t bad = blk_pattern_check(w->buf, job->bs_bytes, off_bytes, job->seed);

		if (bad >= 0)
			return blk_fail(w, -EILSEQ, "verify", (uint64_t)bad);
	}
	if (!is_read) {
		w->writes++;
		return blk_sync_writes(w, off_bytes);
	}
	return 0;
}

/**
 * worker_loop() - I/O until the trial ends, or, unless time_based=1, until
 * the region was covered once (a size-bound job); then sync=end's fsync.
 * Return: 0 or a negative errno.
 */
static int worker_loop(struct blk_worker *w)
{
	const struct blk_job *job = w->job;
	uint64_t n_ios = 0;
	int rc = 0;

	w->next_blk = 0;
	w->writes = 0;
	while (!rc && ep_trial_running(w->t) && (job->time_based || n_ios < w->n_blocks)) {
		rc = one_io(w, blk_next_is_read(w), blk_next_offset(w));
		n_ios++;
	}
	if (!rc && job->sync == SYNC_END && blk_job_writes(job) && fsync(job->fd))
		rc = blk_fail(w, -errno, "fsync", 0);
	return rc;
}

/** run_worker() - one trial of a worker with its job's engine. Return: 0 or a negative errno. */
static int run_worker(struct blk_worker *w)
{
	return w->job->engine == ENGINE_IO_URING ? blk_uring_loop(w) : worker_loop(w);
}

/** worker_thread() - pthread entry of a worker. */
static void *worker_thread(void *arg)
{
	struct blk_worker *w = arg;

	w->rc = run_worker(w);
	return NULL;
}

/**
 * blk_drop_cache() - posix_fadvise(DONTNEED) over the target when cache=drop
 * and the job reads (it only starts the writeback of dirty pages: a write
 * job would just wait for it), unless the run is being cancelled.
 */
void blk_drop_cache(const struct blk_job *job)
{
	if (job->cache_drop && blk_job_reads(job) && job->fd >= 0 && !ep_run_check(job->run))
		posix_fadvise(job->fd, 0, 0, POSIX_FADV_DONTNEED);
}

/**
 * report_error() - the run's message for the first worker that failed.
 * Return: its negative errno, or 0 when none failed.
 */
static int report_error(struct blk_job *job)
{
	for (int i = 0; i < job->jobs; i++) {
		const struct blk_worker *w = &job->workers[i];

		if (!w->rc || w->rc == -ECANCELED || w->rc == -ETIME)
			continue;
		if (w->rc == -EILSEQ)
			return ep_run_fail(job->run, w->rc,
					   "parameter 'verify': target '%s' does not hold the "
					   "pattern of seed %llu at offset %llu (block of 'bs' at "
					   "%llu): the data is corrupt or was not written by a "
					   "write job with this seed", job->path,
					   (unsigned long long)job->seed, (unsigned long long)w->err_off,
					   (unsigned long long)(w->err_off / job->bs_bytes * job->bs_bytes));
		return ep_run_fail(job->run, w->rc, "target '%s': %s at offset %llu failed: %s%s",
				   job->path, w->err_op, (unsigned long long)w->err_off,
				   strerror(-w->rc),
				   w->rc == -ENOSPC ? " (the file system is full; the job's file "
						      "is removed unless keep=1)" : "");
	}
	return 0;
}

/**
 * start_workers() - start one thread per job with its own tally.
 * Return: the number started; *@rc is 0 or the first negative errno.
 */
static int start_workers(struct blk_job *job, struct ep_trial *t, int *rc)
{
	int started = 0;

	for (; started < job->jobs; started++) {
		struct blk_worker *w = &job->workers[started];

		w->t = t;
		w->rc = 0;
		w->ta = ep_trial_tally_new(t);
		*rc = w->ta ? -pthread_create(&w->tid, NULL, worker_thread, w) : -ENOMEM;
		if (*rc) {
			ep_trial_tally_merge(t, w->ta);
			break;
		}
	}
	return started;
}

/**
 * blk_body() - one trial: the only worker in this thread, or one thread per
 * job. (With cache=drop the engine's before_trial hook dropped the cache
 * before the trial, outside its time.)
 * Return: 0 or a negative errno with the run's message.
 */
int blk_body(void *arg, struct ep_trial *t)
{
	struct blk_job *job = arg;
	int rc = 0, started;

	if (job->jobs == 1) {
		job->workers[0].t = t;
		job->workers[0].ta = ep_trial_tally(t);
		job->workers[0].rc = run_worker(&job->workers[0]);
	} else {
		started = start_workers(job, t, &rc);
		for (int i = 0; i < started; i++) {
			pthread_join(job->workers[i].tid, NULL);
			ep_trial_tally_merge(t, job->workers[i].ta);
		}
		if (rc)
			return rc;
	}
	return report_error(job);
}

/**
 * blk_layout() - write the pattern over the target and fsync it.
 * Return: 0, or a negative errno with the run's message set.
 */
EP_UNTIMED int blk_layout(struct blk_job *job)
{
	struct blk_worker *w = &job->workers[0];
	uint64_t end_bytes = job->size_bytes / job->bs_bytes * job->bs_bytes;

	for (uint64_t off = 0; off < end_bytes; off += job->bs_bytes) {
		int rc;

		blk_pattern_fill(w->buf, job->bs_bytes, off, job->seed);
		rc = io_full(w, 0, off);
		if (!rc && !(off & ((64u << 20) - 1)))
			rc = ep_run_check(job->run);
		if (rc)
			return rc == -ECANCELED || rc == -ETIME ? rc :
			       ep_run_fail(job->run, rc, "target '%s': laying out the file for "
					   "reading failed at offset %llu: %s", job->path,
					   (unsigned long long)off, strerror(-rc));
	}
	if (fsync(job->fd))
		return ep_run_fail(job->run, -errno, "target '%s': fsync after laying out: %s",
				   job->path, strerror(errno));
	blk_drop_cache(job);
	return 0;
}
