// SPDX-License-Identifier: MIT
/*
 * uring.c - engine=io_uring of blk.io (liburing): each worker keeps
 * 'iodepth' reads or writes of 'bs' in flight on a ring of its own, each
 * slot on its block of the worker's buffer.
 *
 * The loop is fio 3.33's for its io_uring engine with its defaults: an I/O
 * is prepared and submitted, 'iodepth_batch' at a time (fio's
 * iodepth_batch_submit, 1 by default: an io_uring_enter() per I/O), until
 * 'iodepth' are in flight; only then does it wait for one completion and
 * take that one alone (fio's iodepth_batch_complete_min=1, and _max, left
 * unset, takes _min's value in fio's init.c), and start over: 'iodepth'
 * I/Os stay in flight but for the one being replaced. Every submission
 * also asks for events (IORING_ENTER_GETEVENTS), as fio's does, which
 * runs deferred completion work. An I/O's latency runs from the return of
 * the submission that carried it to the moment its completion is reaped
 * (fio's clat; the submission itself is fio's slat). The offsets, the
 * read/write mix, the verify pattern and the counts are worker.c's, so a job
 * differs from its psync twin only in how the I/O is issued. Without
 * liburing in the build the engine answers -EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "lib/blk/job.h"
#include "lib/core/util.h"

#if EMBPERF_HAVE_IO_URING
#include <liburing.h>

/**
 * struct blk_slot - one I/O of the ring.
 * @buf:         its block of 'bs' in the worker's buffer (page aligned).
 * @off_bytes:   its offset in the target.
 * @submit_ns:   when the submission carrying it returned (ep_now_ns()).
 * @is_read:     1 for a read.
 */
struct blk_slot {
	void *buf;
	uint64_t off_bytes;
	uint64_t submit_ns;
	int is_read;
};

/**
 * struct blk_uring - a worker's ring.
 * @ring:        liburing's ring (inited: set up).
 * @inited:      @ring was set up.
 * @depth:       'iodepth'.
 * @inflight:    I/Os submitted and not reaped.
 * @n_new:       slots prepared since the last submission.
 * @fresh:       their indices.
 * @n_idle:      slots not in flight.
 * @idle:        their indices (a stack).
 * @slots:       @depth slots.
 */
struct blk_uring {
	struct io_uring ring;
	int inited;
	int depth;
	int inflight;
	int n_new;
	int *fresh;
	int n_idle;
	int *idle;
	struct blk_slot *slots;
};

/** blk_uring_free() - the worker's ring (its buffer is the worker's). */
EP_UNTIMED void blk_uring_free(struct blk_worker *w)
{
	struct blk_uring *u = w->uring;

	if (!u)
		return;
	if (u->inited)
		io_uring_queue_exit(&u->ring);
	free(u->slots);
	free(u->fresh);
	free(u->idle);
	free(u);
	w->uring = NULL;
}

/**
 * alloc_slots() - @u's slots, each on its block of @bs_bytes of the worker's
 * buffer @buf (blk_buf_alloc()). Return: 0 or -ENOMEM.
 */
static int alloc_slots(struct blk_uring *u, char *buf, uint64_t bs_bytes)
{
	u->slots = calloc((size_t)u->depth, sizeof(*u->slots));
	u->fresh = calloc((size_t)u->depth, sizeof(*u->fresh));
	u->idle = calloc((size_t)u->depth, sizeof(*u->idle));
	if (!u->slots || !u->fresh || !u->idle)
		return -ENOMEM;
	for (int i = 0; i < u->depth; i++) {
		u->idle[u->n_idle++] = i;
		u->slots[i].buf = buf + (size_t)i * bs_bytes;
	}
	return 0;
}

/**
 * ring_init() - set the ring up as fio 3.33's io_uring engine does: task
 * work run when the task enters the kernel anyway (COOP_TASKRUN), and with
 * one thread using the ring for its whole life (jobs=1: the run's own
 * thread sets it up and runs every trial) completions processed only when
 * it waits for them (SINGLE_ISSUER, DEFER_TASKRUN). A kernel that lacks
 * the flags (before 5.19 / 6.1) gets a plain ring. The CQ has 'iodepth'
 * entries like the SQ, as fio clamps it (IORING_SETUP_CQSIZE): no more
 * than that are ever in flight.
 * Return: 0 or the negative errno of io_uring_queue_init_params().
 */
static int ring_init(struct blk_uring *u, int one_thread)
{
	unsigned int flags[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	struct io_uring_params p;
	int rc = -EINVAL;

	for (size_t i = one_thread ? 0 : 1; rc == -EINVAL && i < EP_ARRAY_SIZE(flags); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flags[i] | IORING_SETUP_CQSIZE;
		p.cq_entries = (unsigned int)u->depth;
		rc = io_uring_queue_init_params((unsigned int)u->depth, &u->ring, &p);
	}
	return rc;
}

/** blk_uring_init() - the worker's ring of 'iodepth' entries and its buffers. */
EP_UNTIMED int blk_uring_init(struct blk_worker *w)
{
	const struct blk_job *job = w->job;
	struct blk_uring *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	w->uring = u;
	u->depth = job->iodepth;
	rc = alloc_slots(u, w->buf, job->bs_bytes);
	if (rc)
		return rc;
	rc = ring_init(u, job->jobs == 1);
	if (rc < 0)
		return ep_run_fail(job->run, rc, "parameter 'engine': value 'io_uring': the kernel "
				   "refuses io_uring_setup (%s%s); accepted here: engine=psync",
				   strerror(-rc), rc == -EPERM || rc == -ENOSYS ?
				   ": io_uring disabled by /proc/sys/kernel/io_uring_disabled, a "
				   "seccomp filter or the kernel's configuration" : "");
	u->inited = 1;
	return 0;
}

/**
 * queue_one() - prepare the next I/O of the worker in a free slot (the
 * verify pattern of a write filled first).
 * Return: 1 when it was a write, 0 for a read, -EBUSY when the ring is full.
 */
static int queue_one(struct blk_worker *w)
{
	const struct blk_job *job = w->job;
	struct blk_uring *u = w->uring;
	struct io_uring_sqe *sqe;
	struct blk_slot *s;

	sqe = u->n_idle ? io_uring_get_sqe(&u->ring) : NULL;
	if (!sqe)
		return -EBUSY;
	s = &u->slots[u->idle[--u->n_idle]];
	s->is_read = blk_next_is_read(w);
	s->off_bytes = blk_next_offset(w);
	if (!s->is_read && job->verify)
		blk_pattern_fill(s->buf, job->bs_bytes, s->off_bytes, job->seed);
	else if (!s->is_read)
		blk_scramble_job(job, s->buf, s->off_bytes);
	if (s->is_read)
		io_uring_prep_read(sqe, job->fd, s->buf, (unsigned int)job->bs_bytes, s->off_bytes);
	else
		io_uring_prep_write(sqe, job->fd, s->buf, (unsigned int)job->bs_bytes, s->off_bytes);
	io_uring_sqe_set_data(sqe, s);
	u->fresh[u->n_new++] = (int)(s - u->slots);
	return !s->is_read;
}

/**
 * submit() - submit the prepared I/Os (asking for events too, as fio's
 * submission does) and stamp them with the time the submission returned.
 * Return: 0 or a negative errno (recorded in @w).
 */
static int submit(struct blk_worker *w)
{
	struct blk_uring *u = w->uring;
	uint64_t now_ns;
	int done = 0, rc;

	/* The kernel may take fewer than were prepared: the rest go again. */
	while (done < u->n_new) {
		rc = io_uring_submit_and_get_events(&u->ring);
		if (rc == -EINTR)
			continue;
		if (rc <= 0)
			return blk_fail(w, rc ? rc : -EAGAIN, "submit",
					u->slots[u->fresh[done]].off_bytes);
		done += rc;
	}
	now_ns = ep_now_ns();
	for (int i = 0; i < u->n_new; i++)
		u->slots[u->fresh[i]].submit_ns = now_ns;
	u->inflight += u->n_new;
	u->n_new = 0;
	return 0;
}

/**
 * complete() - account one reaped I/O: finish a short one with pread or
 * pwrite, count it with its latency, check a verified read.
 * Return: 0 or a negative errno (recorded in @w).
 */
static int complete(struct blk_worker *w, struct blk_slot *s, int res)
{
	const struct blk_job *job = w->job;
	uint64_t end_ns;
	int rc = 0;

	if (res < 0)
		return blk_fail(w, res, s->is_read ? "read" : "write", s->off_bytes);
	if ((uint64_t)res < job->bs_bytes) {
		if (w->ta)
			ep_tally_count(w->ta, C_SHORT_IOS, 1);
		rc = blk_io_rest(w, s->buf, s->is_read, s->off_bytes, (size_t)res);
		if (rc)
			return blk_fail(w, rc, s->is_read ? "read" : "write", s->off_bytes);
	}
	end_ns = ep_now_ns();
	ep_tally_op(w->ta, 1, job->bs_bytes, end_ns - s->submit_ns);
	if (s->is_read && job->verify) {
		int64_t bad = blk_pattern_check(s->buf, job->bs_bytes, s->off_bytes, job->seed);

		if (bad >= 0)
			return blk_fail(w, -EILSEQ, "verify", (uint64_t)bad);
	}
	if (!s->is_read)
		w->writes++;
	return 0;
}

/**
 * reap() - account completions: with @all 0, wait for one and take that
 * one alone (fio's default iodepth_batch_complete_max: taking every
 * completion already posted would let the ring drain below 'iodepth' while
 * it is refilled, a shorter queue and shorter latencies than fio's); with
 * @all 1, wait for every I/O in flight. After an error the rest are only
 * collected.
 * Return: 0 or a negative errno (the first one, recorded in @w).
 */
static int reap(struct blk_worker *w, int all, int rc)
{
	struct blk_uring *u = w->uring;
	struct io_uring_cqe *cqe;
	struct blk_slot *s;
	int got, res;

	while (u->inflight) {
		got = io_uring_wait_cqe(&u->ring, &cqe);
		if (got == -EINTR)
			continue;
		if (got < 0)
			return rc ? rc : blk_fail(w, got, "wait", 0);
		s = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&u->ring, cqe);
		u->idle[u->n_idle++] = (int)(s - u->slots);
		u->inflight--;
		if (!rc)
			rc = complete(w, s, res);
		if (!all)
			break;
	}
	return rc;
}

/**
 * drain() - wait for every I/O in flight (their buffers are reused and
 * the descriptor may be closed next). Return: @rc, or the first error.
 */
static int drain(struct blk_worker *w, int rc)
{
	return reap(w, 1, rc);
}

/**
 * may_queue() - whether the worker may prepare another I/O: a free slot,
 * blocks left to issue (@issued < @limit), and sync=every:N not waiting
 * for its writes to complete.
 */
static int may_queue(const struct blk_worker *w, uint64_t issued, uint64_t limit,
		     uint64_t queued_writes)
{
	const struct blk_job *job = w->job;

	return w->uring->n_idle && issued < limit &&
	       !(job->sync == SYNC_EVERY && queued_writes >= job->sync_every);
}

/**
 * wait_some() - submit what is prepared and wait for one completion; with
 * sync=every:N due, wait for all and fsync.
 * Return: 0 or a negative errno (recorded in @w).
 */
static int wait_some(struct blk_worker *w, uint64_t *queued_writes)
{
	const struct blk_job *job = w->job;
	int rc = submit(w);

	if (!rc && w->uring->inflight)
		rc = reap(w, 0, 0);
	if (!rc && job->sync == SYNC_EVERY && *queued_writes >= job->sync_every) {
		rc = drain(w, rc);
		*queued_writes = 0;
		if (!rc)
			rc = blk_sync_writes(w, 0);
	}
	return rc;
}

/** blk_uring_loop() - one trial of a worker with io_uring. */
int blk_uring_loop(struct blk_worker *w)
{
	const struct blk_job *job = w->job;
	struct blk_uring *u = w->uring;
	uint64_t issued = 0, queued_writes = 0;
	uint64_t limit = job->time_based ? UINT64_MAX : w->n_blocks;
	int rc = 0, r;

	w->next_blk = 0;
	w->writes = 0;
	u->n_new = 0;
	while (!rc && ep_trial_running(w->t)) {
		r = may_queue(w, issued, limit, queued_writes) ? queue_one(w) : -EBUSY;
		if (r >= 0) {
			queued_writes += (uint64_t)r;
			issued++;
			if (u->n_new >= job->iodepth_batch)
				rc = submit(w);
			continue;
		}
		if (!u->inflight && !u->n_new)
			break; /* the job issued its blocks and all completed */
		/* Full, or nothing more to issue: fio reaps only then. */
		rc = wait_some(w, &queued_writes);
	}
	if (!rc)
		rc = submit(w); /* the prepared rest: every slot is free for the next trial */
	rc = drain(w, rc);
	if (!rc && job->sync == SYNC_END && blk_job_writes(job) && fsync(job->fd))
		rc = blk_fail(w, -errno, "fsync", 0);
	return rc;
}

#else /* !EMBPERF_HAVE_IO_URING */

/** blk_uring_init() - this build has no io_uring. Return: -EOPNOTSUPP. */
int blk_uring_init(struct blk_worker *w)
{
	return ep_run_fail(w->job->run, -EOPNOTSUPP, "parameter 'engine': value 'io_uring' is "
			   "not in this build (built without liburing: -Dio_uring=disabled, or "
			   "liburing-dev missing); accepted: psync");
}

/** blk_uring_free() - nothing to free without io_uring. */
void blk_uring_free(struct blk_worker *w)
{
	(void)w;
}

/** blk_uring_loop() - never reached: blk_uring_init() refused. Return: -EOPNOTSUPP. */
int blk_uring_loop(struct blk_worker *w)
{
	(void)w;
	return -EOPNOTSUPP;
}

#endif /* EMBPERF_HAVE_IO_URING */
