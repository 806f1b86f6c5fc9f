/* SPDX-License-Identifier: MIT */
/*
 * job.h - the parts of blk.io: the job (what the parameters asked for and
 * the open target) in blk_io.c; the I/O loop of its threads in job.c (psync)
 * and uring.c (io_uring), both on worker.c (offsets, pattern, short
 * transfers, fsync, errors), which calls neither.
 */
#ifndef EMBPERF_BLK_JOB_H
#define EMBPERF_BLK_JOB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/buffer.h"

#define BLK_PATH_MAX 4096
#define BLK_MAX_JOBS 64
#define BLK_LABEL_MAX 256

enum blk_rw { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RW, RW_RANDRW };
enum blk_sync { SYNC_NONE, SYNC_END, SYNC_EVERY, SYNC_DSYNC };
enum blk_counter { C_SHORT_IOS, C_FSYNCS };
enum blk_engine { ENGINE_PSYNC, ENGINE_IO_URING };
/* 'scramble', in its parameter's order. */
enum blk_scramble_mode { SCRAMBLE_FIO, SCRAMBLE_SECTOR, SCRAMBLE_OFF };

struct blk_job;
struct blk_uring;

/**
 * struct blk_worker - one thread of a trial and the region it works on.
 * @job:       the job.
 * @t:         the trial.
 * @ta:        its tally (the trial's own for worker 0 when jobs=1).
 * @buf:       its I/O buffer of @job->iodepth blocks of @job->bs_bytes, page
 *             aligned (O_DIRECT), in @mem (blk_buf_alloc()).
 * @mem:       the mapping holding @buf.
 * @lo_bytes:  first byte of its region in the target.
 * @n_blocks:  blocks of 'bs' in its region.
 * @next_blk:  the next block of a sequential job.
 * @rng:       xorshift64 state of the random offsets and the read/write mix.
 * @writes:    writes since the last fsync (sync=every:N) or since the trial began.
 * @rc:        0, or the negative errno it stopped on.
 * @err_off:   the offset of the I/O that failed or did not verify.
 * @err_op:    "read", "write", "fsync", "verify" or "submit" for the message.
 * @uring:     engine=io_uring: its ring and 'iodepth' buffers (uring.c); NULL else.
 * @tid:       the thread.
 */
struct blk_worker {
	struct blk_job *job;
	struct ep_trial *t;
	struct ep_tally *ta;
	void *buf;
	struct ep_mem_buf mem;
	uint64_t lo_bytes, n_blocks, next_blk, rng, writes;
	int rc;
	uint64_t err_off;
	const char *err_op;
	struct blk_uring *uring;
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
 * @jobs, @cache_drop, @verify, @time_based, @seed, @engine, @iodepth,
 * @hugepages, @scramble: the parameters.
 * @iodepth_batch: I/Os per submission with io_uring, 1..@iodepth ('0' and
 *                values above 'iodepth' read as 'iodepth', as fio reads them).
 * @align_bytes:  O_DIRECT alignment of offsets and sizes (0: unknown).
 * @workers:      @jobs workers with their buffers.
 * @label:        the case's labels.
 */
struct blk_job {
	struct ep_run *run;
	int fd;
	char path[BLK_PATH_MAX];
	int created, keep, bdev, existing;
	int rw, rwmix_pct, direct, sync, jobs, cache_drop, verify, time_based, engine, iodepth;
	int iodepth_batch, hugepages, scramble;
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
 * blk_scramble() - make a write buffer of @len bytes unique to target
 * offset @off_bytes at little cost: the first word of every 512 bytes
 * becomes the offset of that sector (one cache line a sector: blk.io's
 * scramble=sector, blk.fs and blk.mtd). Without it every block of a job
 * would hold the same bytes, which storage that deduplicates or compresses
 * (a VM host, some flash controllers) writes and reads faster than real
 * data.
 */
void blk_scramble(void *buf, size_t len, uint64_t off_bytes);

/**
 * blk_scramble_fio() - what fio's scramble_buffers (on by default) writes
 * into each 512-byte sector of a block before it is written: the sector's
 * target offset into the start of one of the sector's first eight 64-byte
 * lines, the line chosen by (@stamp_ns's nanoseconds XOR @off_bytes) & 7,
 * and @stamp_ns as seconds and nanoseconds into bytes 48 to 63. Two cache
 * lines a sector in 7 blocks of 8: twice blk_scramble()'s stores, which on
 * a 1 MiB block is time the next write waits for (doc/methodology-blk.md,
 * "Write data").
 */
void blk_scramble_fio(void *buf, size_t len, uint64_t off_bytes, uint64_t stamp_ns);

/**
 * blk_scramble_job() - @job's 'scramble' on the write buffer @buf of
 * 'bs' bytes bound for @off_bytes: fio's stamp, the offset alone, or none.
 */
void blk_scramble_job(const struct blk_job *job, void *buf, uint64_t off_bytes);

/**
 * blk_pattern_check() - compare @buf with the pattern at @off_bytes.
 * Return: -1 when it matches, else the offset of the first wrong word.
 */
int64_t blk_pattern_check(const void *buf, size_t len, uint64_t off_bytes, uint64_t seed);

/**
 * blk_io_rest() - finish the block of 'bs' in @buf at @off_bytes from byte
 * @done on, with pread()/pwrite() (each call counted in 'short_ios').
 * Return: 0, or a negative errno (-EIO: a read past the end; -ENOSPC).
 */
int blk_io_rest(struct blk_worker *w, void *buf, int is_read, uint64_t off_bytes, size_t done);

/** blk_fail() - record the worker's error, its operation and offset. Return: @rc. */
int blk_fail(struct blk_worker *w, int rc, const char *op, uint64_t off_bytes);

/** blk_next_offset() - the offset of the worker's next block (sequential or random). */
uint64_t blk_next_offset(struct blk_worker *w);

/** blk_next_is_read() - whether the worker's next I/O reads ('rw' and 'rwmix'). */
int blk_next_is_read(struct blk_worker *w);

/**
 * blk_sync_writes() - sync=every:N: fsync() once N writes completed since
 * the last one, counted in 'fsyncs'. Return: 0 or a negative errno.
 */
int blk_sync_writes(struct blk_worker *w, uint64_t off_bytes);

/**
 * blk_buf_alloc() - @w's buffer: 'iodepth' blocks of 'bs' in one mapping,
 * as fio allocates a job's buffers, backed as 'hugepages' says (off: base
 * pages wherever the page allocator puts them, fio's default mem=malloc;
 * thp: transparent huge pages; on: reserved huge pages, fio's mem=shmhuge),
 * each block filled with the verify pattern of offset 0 (which also faults
 * the pages in).
 * Return: 0, or -ENOMEM with the run's message.
 */
int blk_buf_alloc(struct blk_worker *w);

/** blk_buf_free() - @w's buffer (none: nothing). */
void blk_buf_free(struct blk_worker *w);

/**
 * blk_buf_runs() - the number of physically contiguous runs of pages in
 * @len bytes at @buf: a direct I/O takes one scatter-gather segment per run
 * (the device's max_segments bounds a request), so the runs of the buffer
 * decide how a large block reaches the device.
 * Return: 1..pages, or -1 when /proc/self/pagemap does not give page frame
 * numbers (without CAP_SYS_ADMIN, or no such file).
 */
int blk_buf_runs(const void *buf, size_t len);

/**
 * blk_uring_init() - engine=io_uring: the worker's ring of 'iodepth'
 * entries and its buffers.
 * Return: 0; -EOPNOTSUPP without io_uring in the build; or the negative
 * errno of io_uring_queue_init() (a kernel or seccomp filter refusing it)
 * or -ENOMEM, the run's message naming 'engine'.
 */
int blk_uring_init(struct blk_worker *w);

/** blk_uring_free() - the worker's ring (NULL ring: nothing). */
void blk_uring_free(struct blk_worker *w);

/**
 * blk_uring_loop() - one trial of a worker with io_uring: keep 'iodepth'
 * I/Os in flight until the trial ends or the region was covered once
 * (unless time_based=1), then wait for those still in flight.
 * Return: 0 or a negative errno (recorded in @w).
 */
int blk_uring_loop(struct blk_worker *w);

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
