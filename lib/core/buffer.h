/* SPDX-License-Identifier: MIT */
/*
 * buffer.h - page-aligned buffers of the memory kernels and blk.io, and their
 * huge page modes. (The check that a size fits in memory is lib/core's
 * ep_mem_check_fits(), shared by every kernel.)
 */
#ifndef EMBPERF_CORE_BUFFER_H
#define EMBPERF_CORE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/sysinfo.h"
#include "lib/core/run.h"
#include "lib/core/kernel.h"

/**
 * enum ep_mem_huge - how a buffer is backed.
 * @EP_MEM_HUGE_OFF:    base pages only (madvise MADV_NOHUGEPAGE).
 * @EP_MEM_HUGE_THP:    transparent huge pages requested (MADV_HUGEPAGE).
 * @EP_MEM_HUGE_ON:     reserved huge pages (MAP_HUGETLB); fails when the
 *                      system has too few free ones.
 * @EP_MEM_HUGE_SYSTEM: no advice: the system's THP policy decides, as it does
 *                      for malloc() and static arrays in the reference tools.
 */
enum ep_mem_huge {
	EP_MEM_HUGE_OFF = 0,
	EP_MEM_HUGE_THP = 1,
	EP_MEM_HUGE_ON = 2,
	EP_MEM_HUGE_SYSTEM = 3,
};

/**
 * struct ep_mem_buf - one anonymous mapping.
 * @addr:      start of the usable bytes, page aligned (2 MiB aligned with
 *             EP_MEM_HUGE_THP and EP_MEM_HUGE_ON); NULL when not allocated.
 * @map_addr:  start of the mapping.
 * @map_bytes: length of the mapping.
 */
struct ep_mem_buf {
	void *addr;
	void *map_addr;
	size_t map_bytes;
};

/* ep_mem_check_fits(): lib/core/run.h; ep_mem_format_bytes(): lib/core/sysinfo.h. */

/**
 * ep_mem_buf_alloc() - map a zero-filled buffer.
 * @run:   run receiving the detail message on failure.
 * @buf:   receives the mapping; left empty on failure.
 * @bytes: bytes wanted (> 0).
 * @mode:  page backing.
 *
 * Pages are not touched: the kernel first-touches them from the threads
 * that use them.
 *
 * Return: 0; -ENOMEM when the mapping fails, or with EP_MEM_HUGE_ON when the
 * system has too few free huge pages (the message says how many it needs
 * and how to reserve them).
 */
int ep_mem_buf_alloc(struct ep_run *run, struct ep_mem_buf *buf, size_t bytes,
		     enum ep_mem_huge mode);

/**
 * ep_mem_buf_alloc_like_malloc() - map a buffer where glibc's valloc() puts
 * one of this size: a mapping of its own, at whatever address mmap() gives,
 * the buffer one page into it.
 * @run:   run receiving the detail message on failure.
 * @buf:   receives the mapping; left empty on failure.
 * @bytes: bytes wanted (> 0).
 *
 * For a kernel that reproduces a reference tool's malloc'ed buffer (bw_mem):
 * without the 2 MiB alignment of ep_mem_buf_alloc(), transparent huge pages
 * back the buffer exactly where they would back the reference's (none for a
 * buffer under 2 MiB), so the cache sees the same physical layout.
 *
 * Return: 0; -ENOMEM when the mapping fails.
 */
int ep_mem_buf_alloc_like_malloc(struct ep_run *run, struct ep_mem_buf *buf, size_t bytes);

/**
 * ep_mem_buf_free() - unmap a buffer; an empty one is a no-op.
 * @buf: buffer, emptied.
 */
void ep_mem_buf_free(struct ep_mem_buf *buf);

/**
 * ep_mem_splitmix64() - splitmix64, a small deterministic generator for the
 * random orders laid over a buffer (mem.lat's chain, mem.par's pages).
 * @state: the generator's state, advanced.
 *
 * Return: the next value.
 */
static inline uint64_t ep_mem_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* EMBPERF_CORE_BUFFER_H */
