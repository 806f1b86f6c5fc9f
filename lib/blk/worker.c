// SPDX-License-Identifier: MIT
/*
 * worker.c - what both engines of blk.io do alike for a worker, below
 * job.c (psync) and uring.c (io_uring): which offset and which direction
 * comes next, the verify pattern and the write scrambling, finishing a
 * short transfer, sync=every:N's fsync, and recording where a worker
 * failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/blk/job.h"
#include "lib/core/util.h"

ssize_t (*ep_blk_pwrite)(int fd, const void *buf, size_t n, off_t off) = pwrite;

/** blk_job_reads() - 1 when the job's mix has reads. */
int blk_job_reads(const struct blk_job *job)
{
	return job->rw != RW_WRITE && job->rw != RW_RANDWRITE &&
	       !((job->rw == RW_RW || job->rw == RW_RANDRW) && job->rwmix_pct == 0);
}

/** blk_job_writes() - 1 when the job's mix has writes. */
int blk_job_writes(const struct blk_job *job)
{
	return job->rw != RW_READ && job->rw != RW_RANDREAD &&
	       !((job->rw == RW_RW || job->rw == RW_RANDRW) && job->rwmix_pct == 100);
}

/** mix64() - splitmix64's finaliser: the pattern word of word index @x. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/** blk_pattern_fill() - the verify pattern of @len bytes at @off_bytes into @buf. */
void blk_pattern_fill(void *buf, size_t len, uint64_t off_bytes, uint64_t seed)
{
	uint64_t *w = buf;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = mix64((off_bytes / 8 + i) ^ seed);
}

/** blk_scramble() - the offset of each 512-byte sector into its first word. */
void blk_scramble(void *buf, size_t len, uint64_t off_bytes)
{
	for (size_t i = 0; i + 8 <= len; i += 512) {
		uint64_t word = mix64(off_bytes + i);

		memcpy((char *)buf + i, &word, sizeof(word));
	}
}

void blk_scramble_fio(void *buf, size_t len, uint64_t off_bytes, uint64_t stamp_ns)
{
	const uint64_t stamp[2] = { stamp_ns / 1000000000u, stamp_ns % 1000000000u };
	const size_t line = (size_t)((stamp[1] ^ off_bytes) & 7);

	for (size_t i = 0; i + 512 <= len; i += 512) {
		uint64_t sector_off = off_bytes + i;

		memcpy((char *)buf + i + 64 * line, &sector_off, sizeof(sector_off));
		memcpy((char *)buf + i + 48, stamp, sizeof(stamp));
	}
}

void blk_scramble_job(const struct blk_job *job, void *buf, uint64_t off_bytes)
{
	if (job->scramble == SCRAMBLE_FIO)
		blk_scramble_fio(buf, job->bs_bytes, off_bytes, ep_now_ns());
	else if (job->scramble == SCRAMBLE_SECTOR)
		blk_scramble(buf, job->bs_bytes, off_bytes);
}

int blk_buf_alloc(struct blk_worker *w)
{
	const struct blk_job *job = w->job;
	size_t bytes = (size_t)job->bs_bytes * (size_t)job->iodepth;
	int rc;

	if (job->hugepages == EP_MEM_HUGE_OFF)
		rc = ep_mem_buf_alloc_like_malloc(job->run, &w->mem, bytes);
	else
		rc = ep_mem_buf_alloc(job->run, &w->mem, bytes, (enum ep_mem_huge)job->hugepages);
	if (rc)
		return rc;
	w->buf = w->mem.addr;
	for (int i = 0; i < job->iodepth; i++)
		blk_pattern_fill((char *)w->buf + (size_t)i * job->bs_bytes, job->bs_bytes, 0,
				 job->seed);
	return 0;
}

void blk_buf_free(struct blk_worker *w)
{
	ep_mem_buf_free(&w->mem);
	w->buf = NULL;
}

int blk_buf_runs(const void *buf, size_t len)
{
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t prev_pfn = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int runs = 0;

	if (fd < 0)
		return -1;
	for (uintptr_t page = (uintptr_t)buf / page_bytes;
	     page <= ((uintptr_t)buf + len - 1) / page_bytes; page++) {
		uint64_t entry;
		uint64_t pfn;

		/* bits 0-54: the frame number of a present page, 0 without CAP_SYS_ADMIN */
		if (pread(fd, &entry, sizeof(entry), (off_t)(page * sizeof(entry))) !=
		    (ssize_t)sizeof(entry) || !(entry >> 63) || !(pfn = entry & ((1ULL << 55) - 1))) {
			runs = -1;
			break;
		}
		if (!runs || pfn != prev_pfn + 1)
			runs++;
		prev_pfn = pfn;
	}
	close(fd);
	return runs;
}

/** blk_pattern_check() - compare @buf with the pattern at @off_bytes. */
int64_t blk_pattern_check(const void *buf, size_t len, uint64_t off_bytes, uint64_t seed)
{
	const uint64_t *w = buf;

	for (size_t i = 0; i < len / 8; i++)
		if (w[i] != mix64((off_bytes / 8 + i) ^ seed))
			return (int64_t)(off_bytes + i * 8);
	return -1;
}

/** xorshift() - the next value of a worker's generator. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/** blk_io_rest() - finish a block from byte @done on with pread()/pwrite(). */
int blk_io_rest(struct blk_worker *w, void *buf, int is_read, uint64_t off_bytes, size_t done)
{
	const struct blk_job *job = w->job;

	while (done < job->bs_bytes) {
		char *p = (char *)buf + done;
		size_t left = job->bs_bytes - done;
		off_t off = (off_t)(off_bytes + done);
		ssize_t n = is_read ? pread(job->fd, p, left, off) : ep_blk_pwrite(job->fd, p, left, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return is_read ? -EIO : -ENOSPC;
		if ((size_t)n < left && w->ta)
			ep_tally_count(w->ta, C_SHORT_IOS, 1);
		done += (size_t)n;
	}
	return 0;
}

/** blk_fail() - record the worker's error and where it happened. Return: @rc. */
int blk_fail(struct blk_worker *w, int rc, const char *op, uint64_t off_bytes)
{
	w->rc = rc;
	w->err_op = op;
	w->err_off = off_bytes;
	return rc;
}

/**
 * blk_sync_writes() - fsync() after every N writes (sync=every:N), counted
 * in 'fsyncs'; inside the measured time, outside the writes' latencies.
 * Return: 0 or a negative errno.
 */
int blk_sync_writes(struct blk_worker *w, uint64_t off_bytes)
{
	if (w->job->sync != SYNC_EVERY || w->writes < w->job->sync_every)
		return 0;
	w->writes = 0;
	if (fsync(w->job->fd))
		return blk_fail(w, -errno, "fsync", off_bytes);
	ep_tally_count(w->ta, C_FSYNCS, 1);
	return 0;
}

/** blk_next_offset() - the offset of the worker's next block (sequential or random). */
uint64_t blk_next_offset(struct blk_worker *w)
{
	int rnd = w->job->rw == RW_RANDREAD || w->job->rw == RW_RANDWRITE ||
		  w->job->rw == RW_RANDRW;
	uint64_t blk = rnd ? xorshift(&w->rng) % w->n_blocks : w->next_blk++ % w->n_blocks;

	return w->lo_bytes + blk * w->job->bs_bytes;
}

/** blk_next_is_read() - whether the next I/O reads ('rw' and 'rwmix'). */
int blk_next_is_read(struct blk_worker *w)
{
	if (!blk_job_writes(w->job))
		return 1;
	if (!blk_job_reads(w->job))
		return 0;
	return (int)(xorshift(&w->rng) % 100) < w->job->rwmix_pct;
}
