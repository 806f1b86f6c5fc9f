// SPDX-License-Identifier: MIT
/*
 * buffer.c - anonymous mappings for the memory kernels and blk.io, with the
 * huge page modes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/sysinfo.h"
#include "lib/core/run.h"
#include "lib/core/buffer.h"

#define THP_ALIGN_BYTES ((size_t)2 << 20) /* PMD size of the common 4k-page MMUs */

/* Round @bytes up to a multiple of @align (a power of two); 0 on overflow. */
static size_t round_up(size_t bytes, size_t align)
{
	size_t r = (bytes + align - 1) & ~(align - 1);

	return r < bytes ? 0 : r;
}

/* Map reserved huge pages, after checking that enough are free. */
static int alloc_hugetlb(struct ep_run *run, struct ep_mem_buf *buf, size_t bytes)
{
	uint64_t huge_bytes = ep_meminfo_value("Hugepagesize") * 1024;
	uint64_t free_pages = ep_meminfo_value("HugePages_Free");
	size_t map_bytes;
	uint64_t pages;
	void *p;

	if (!huge_bytes)
		return ep_run_fail(run, -ENOMEM,
				   "parameter 'hugepages': value 'on' needs huge pages, which this "
				   "system does not offer; accepted: off, thp");
	map_bytes = round_up(bytes, (size_t)huge_bytes);
	pages = map_bytes / huge_bytes;
	if (!map_bytes || pages > free_pages)
		return ep_run_fail(run, -ENOMEM,
				   "parameter 'hugepages': value 'on' needs %" PRIu64 " huge pages of "
				   "%" PRIu64 " kB, HugePages_Free is %" PRIu64 "; reserve them "
				   "(sysctl vm.nr_hugepages) or use hugepages=thp or off",
				   pages, huge_bytes / 1024, free_pages);
	p = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
		 -1, 0);
	if (p == MAP_FAILED)
		return ep_run_fail(run, -ENOMEM,
				   "parameter 'hugepages': mapping %" PRIu64 " huge pages failed (%s); "
				   "reserve more (sysctl vm.nr_hugepages) or use hugepages=thp or off",
				   pages, strerror(errno));
	buf->addr = p;
	buf->map_addr = p;
	buf->map_bytes = map_bytes;
	return 0;
}

/*
 * Map @map_bytes of anonymous memory for a buffer of @bytes. Return: 0 and
 * *@out; -ENOMEM with the message in @run.
 */
static int map_anon(struct ep_run *run, size_t bytes, size_t map_bytes, char **out)
{
	char text[32];

	ep_mem_format_bytes(bytes, text, sizeof(text));
	if (!bytes || map_bytes < bytes)
		return ep_run_fail(run, -ENOMEM, "parameter 'size': %s cannot be mapped", text);
	*out = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*out == MAP_FAILED)
		return ep_run_fail(run, -ENOMEM, "parameter 'size': mapping %s failed (%s)", text,
				   strerror(errno));
	return 0;
}

int ep_mem_buf_alloc(struct ep_run *run, struct ep_mem_buf *buf, size_t bytes,
		     enum ep_mem_huge mode)
{
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	/*
	 * Every buffer starts on a 2 MiB boundary (map one more and align):
	 * THP can only back such ranges, and with base pages it keeps the
	 * first pages, where the small sizes of a sweep live, from straddling
	 * a large power-of-two boundary of the address. On AMD Zen, whose L1
	 * way predictor tags lines with a hash of linear address bits, a buffer
	 * starting 4 KiB below a 128 MiB boundary put its first two pages on
	 * the same tags: an 8 KiB chase measured 2.85 ns instead of 0.93 in
	 * some processes, depending only on where mmap() placed the buffer.
	 */
	size_t align_bytes = THP_ALIGN_BYTES > page_bytes ? THP_ALIGN_BYTES : page_bytes;
	size_t map_bytes = round_up(round_up(bytes, page_bytes) + align_bytes - page_bytes,
				    page_bytes);
	char *p;
	int rc;

	buf->addr = NULL;
	buf->map_addr = NULL;
	buf->map_bytes = 0;
	if (mode == EP_MEM_HUGE_ON)
		return alloc_hugetlb(run, buf, bytes);
	rc = map_anon(run, bytes, map_bytes, &p);
	if (rc)
		return rc;
	/* Advice is best effort: a kernel without THP keeps base pages either way. */
	if (mode == EP_MEM_HUGE_OFF)
		(void)madvise(p, map_bytes, MADV_NOHUGEPAGE);
	else if (mode == EP_MEM_HUGE_THP)
		(void)madvise(p, map_bytes, MADV_HUGEPAGE);
	buf->map_addr = p;
	buf->map_bytes = map_bytes;
	buf->addr = p + (align_bytes - (uintptr_t)p % align_bytes) % align_bytes;
	return 0;
}

int ep_mem_buf_alloc_like_malloc(struct ep_run *run, struct ep_mem_buf *buf, size_t bytes)
{
	size_t page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	/*
	 * glibc maps the bytes, a page of alignment slack in front (the pointer
	 * is the first page boundary after the chunk header) and the header
	 * words of the chunk (under 64 bytes), rounded up to pages.
	 */
	size_t map_bytes = round_up(bytes + page_bytes + 64, page_bytes);
	char *p;
	int rc;

	buf->addr = NULL;
	buf->map_addr = NULL;
	buf->map_bytes = 0;
	rc = map_anon(run, bytes, map_bytes, &p);
	if (rc)
		return rc;
	buf->map_addr = p;
	buf->map_bytes = map_bytes;
	buf->addr = p + page_bytes;
	return 0;
}

void ep_mem_buf_free(struct ep_mem_buf *buf)
{
	if (buf->map_addr)
		munmap(buf->map_addr, buf->map_bytes);
	buf->addr = NULL;
	buf->map_addr = NULL;
	buf->map_bytes = 0;
}
