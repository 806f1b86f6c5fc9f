/* SPDX-License-Identifier: MIT */
/*
 * job.h - the parts of blk.io: the job (what the parameters asked for and
 * the open target) in blk_io.c, the I/O loop of its threads in job.c.
 */
#ifndef EMBPERF_BLK_JOB_H
#define EMBPERF_BLK_JOB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/kernel.h"

#define BLK_PATH_MAX 4096
#define BLK_MAX_JOBS 64
#define BLK_LABEL_MAX 256

enum blk_rw { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RW, RW_RANDRW };
enum blk_sync { SYNC_NONE, SYNC_END, SYNC_EVERY, SYNC_DSYNC };
enum blk_counter { C_SHORT_IOS, C_FSYNCS };

struct blk_job;

/**
 * struct blk_worker - one thread of a trial and the region it works on.
 * @job:       the job.
 * @t:         the trial.
 * @ta:        its tally (the trial's own for worker 0 when jobs=1).
 * @buf:       its I/O buffer, @job->bs_bytes, aligned for O_DIRECT.
 * @lo_bytes:  first byte of its region in the target.
 * @n_blocks:  blocks of 'bs' in its region.
 * @next_blk:  the next block of a sequential job.
 * @rng:       xorshift64 state of the random offsets and the read/write mix.
 * @writes:    writes since the last fsync (sync=every:N) or since the trial began.
 * @rc:        0, or the negative errno it stopped on.
 * @err_off:   the offset of the I/O that failed or did not verify.
 * @err_op:    "read", "write", "fsync" or "verify" for the message.
 * @tid:       the thread.
 */
struct blk_worker {
	struct blk_job *job;
	struct ep_trial *t;
	struct ep_tally *ta;
	void *buf;
	uint64_t lo_bytes, n_blocks, next_blk, rng, writes;
	int rc;
	uint64_t err_off;
	const char *err_op;
	pthread_t tid;
};

/**
 * struct blk_job - the run's state.
 * @run:          the run (messages, checks).
 * @fd:           the target, open; -1 before.
 * @path:         the target's path.
 * @created:      the kernel created @path: removed in teardown unless @keep.
 * @keep:         'keep=1'.
 * @bdev:         the target is a block device.
 * @existing:     the target existed (never laid out).
 * @rw, @rwmix_pct, @bs_bytes, @size_bytes, @direct, @sync, @sync_every,
 * @jobs, @cache_drop, @verify, @time_based, @seed: the parameters.
 * @align_bytes:  O_DIRECT alignment of offsets and sizes (0: unknown).
 * @workers:      @jobs workers with their buffers.
 * @label:        the case's labels.
 */
struct blk_job {
	struct ep_run *run;
	int fd;
	char path[BLK_PATH_MAX];
	int created, keep, bdev, existing;
	int rw, rwmix_pct, direct, sync, jobs, cache_drop, verify, time_based;
	uint64_t bs_bytes, size_bytes, sync_every, seed, align_bytes;
	struct blk_worker workers[BLK_MAX_JOBS];
	char label[BLK_LABEL_MAX];
};

/* The write call of the job; tests replace it to make a full disk. */
extern ssize_t (*ep_blk_pwrite)(int fd, const void *buf, size_t n, off_t off);

/** blk_job_reads() - 1 when the job's mix has reads. */
int blk_job_reads(const struct blk_job *job);

/** blk_job_writes() - 1 when the job's mix has writes. */
int blk_job_writes(const struct blk_job *job);

/**
 * blk_pattern_fill() - the verify pattern of @len bytes at target offset
 * @off_bytes (both multiples of 8) into @buf: a word per 8 bytes, keyed by
 * its offset and @seed.
 */
void blk_pattern_fill(void *buf, size_t len, uint64_t off_bytes, uint64_t seed);

/**
 * blk_layout() - write the pattern over the whole target and fsync it
 * (before the first trial of a read job; not timed).
 * Return: 0, or a negative errno with the run's message set.
 */
int blk_layout(struct blk_job *job);

/** blk_drop_cache() - posix_fadvise(DONTNEED) over the target when cache=drop and the job reads. */
void blk_drop_cache(const struct blk_job *job);

/**
 * blk_body() - one trial: run the workers, merge their tallies.
 * Return: 0 or a negative errno with the run's message naming the offset.
 */
int blk_body(void *arg, struct ep_trial *t);

#endif /* EMBPERF_BLK_JOB_H */
