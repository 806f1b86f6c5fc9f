// SPDX-License-Identifier: MIT
/*
 * os_pagefault.c - os.pagefault: cost of faulting in a page of a cached
 * file, the method of lmbench's lat_pagefault (McVoy & Staelin).
 *
 * The file is mapped shared and read-only. One unit reads one byte of one
 * page, the pages visited in a random order so that no prefetching of the
 * next page helps; once every page has been read the mapping is replaced by
 * a fresh one (munmap, mmap, msync(MS_INVALIDATE)), whose pages fault again.
 * The overhead body replaces mappings at the same rate without reading
 * them; its time is subtracted, as lat_pagefault subtracts its mmap-only
 * run. What remains per page is the fault and the share of the unmapping
 * that the populated page table costs.
 *
 * The pages stay in the page cache (MS_INVALIDATE does not evict them on
 * Linux), so these are minor faults. Linux maps cached neighbours of a
 * faulting page at once ("fault-around": 16 pages by default, and whole
 * large folios on recent kernels: about 250 pages per fault on 6.18 here),
 * so a unit is a page touched, not necessarily a trap: the same count as
 * lat_pagefault, which divides by the pages of the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/os_files.h"

#define PF_MIN_SIZE ((int64_t)1 << 20)  /* lat_pagefault refuses smaller files */
#define PF_MAX_SIZE ((int64_t)1 << 34)  /* 16G; checked against free space */
#define PF_SEED 0x70a6efa17ULL

/**
 * struct pf_state - the run's state.
 * @run:        the run (error messages from the bodies).
 * @file:       the file mapped.
 * @map:        the current mapping, or NULL.
 * @map_bytes:  its length: 'size' rounded down to whole pages.
 * @page_bytes: page size.
 * @n_pages:    pages in the mapping.
 * @order:      page indices in the order they are touched.
 * @next:       index into @order of the next page the body touches.
 * @next_idle:  the same position for the overhead body.
 * @sink:       where read bytes go so the reads cannot be optimised away.
 */
struct pf_state {
	struct ep_run *run;
	struct ep_os_file file;
	char *map;
	size_t map_bytes;
	size_t page_bytes;
	size_t n_pages;
	size_t *order;
	size_t next;
	size_t next_idle;
	volatile int sink;
};

static const struct ep_param_desc pf_params[] = {
	{ "size", EP_PT_SIZE, "8M", { { PF_MIN_SIZE, PF_MAX_SIZE } }, NULL, "bytes",
	  "bytes of the file mapped (lmbench's script maps a file of its run's memory size, at least 8 MB)" },
	EP_OS_PARAM_FILE("map"),
	EP_OS_PARAM_TMPDIR,
};

static const struct ep_metric_desc pf_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "time per page faulted in, mapping overhead subtracted, median as lat_pagefault" },
};

/* Drop the mapping and make a fresh one whose pages are not yet mapped. */
static int remap(struct pf_state *st)
{
	void *p;
	int err;

	if (st->map)
		munmap(st->map, st->map_bytes);
	st->map = NULL;
	p = mmap(NULL, st->map_bytes, PROT_READ, MAP_SHARED, st->file.fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		return ep_run_fail(st->run, -err, "os.pagefault: mmap() of %zu bytes failed: %s",
				   st->map_bytes, strerror(err));
	}
	st->map = p;
	/* As lat_pagefault: ask for the cached copy to be invalidated. */
	if (msync(st->map, st->map_bytes, MS_INVALIDATE)) {
		err = errno;
		return ep_run_fail(st->run, -err, "os.pagefault: msync() failed: %s",
				   strerror(err));
	}
	return 0;
}

/* body: touch @units pages, starting a fresh mapping after each full pass. */
static int pf_body(void *arg, uint64_t units)
{
	struct pf_state *st = arg;
	int sum = 0;

	while (units--) {
		if (st->next == st->n_pages) {
			int rc = remap(st);

			if (rc)
				return rc;
			st->next = 0;
		}
		sum += st->map[st->order[st->next++] * st->page_bytes];
	}
	st->sink = sum;
	return 0;
}

/* overhead: the same passes and fresh mappings, without touching a page. */
static int pf_idle(void *arg, uint64_t units)
{
	struct pf_state *st = arg;

	while (units--) {
		if (st->next_idle == st->n_pages) {
			int rc = remap(st);

			if (rc)
				return rc;
			st->next_idle = 0;
		}
		st->next_idle++;
		/* Keep the loop: the body's bookkeeping is part of what is subtracted. */
		__asm__ __volatile__("" ::: "memory");
	}
	return 0;
}

static void pf_teardown(void *state)
{
	struct pf_state *st = state;

	if (st->map)
		munmap(st->map, st->map_bytes);
	ep_os_file_close(&st->file);
	free(st->order);
}

static int pf_setup(struct ep_run *run, void **state)
{
	struct pf_state *st = *state;
	struct ep_case c = { .metric = 0 };
	uint64_t size_bytes = (uint64_t)ep_param_int(run, "size");
	int rc;

	ep_os_file_init(&st->file); /* fd -1: teardown may run before the file opens */
	st->run = run;
	st->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	st->map_bytes = (size_t)(size_bytes - size_bytes % st->page_bytes);
	st->n_pages = st->map_bytes / st->page_bytes;
	/* Only the descriptor is needed: a temporary file is unlinked at once. */
	rc = ep_os_file_open(run, "embperf-pagefault", size_bytes, 0, 0, &st->file);
	if (!rc)
		rc = ep_os_random_order(&st->order, st->n_pages, PF_SEED);
	if (!rc)
		rc = remap(st);
	if (!rc) {
		c.body = pf_body;
		c.overhead = pf_idle;
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "size", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_pagefault = {
	.name = "os.pagefault",
	.summary = "time to fault in a page of a cached file mapping (lmbench lat_pagefault)",
	EP_PARAMS(pf_params),
	EP_METRICS(pf_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = pf_setup,
	.teardown = pf_teardown,
	.state_bytes = sizeof(struct pf_state),
	.cpu_bound = 1,
};
