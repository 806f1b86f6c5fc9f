// SPDX-License-Identifier: MIT
/*
 * os_mmap.c - os.mmap: time to map a file, touch it and unmap it, the method
 * of lmbench's lat_mmap (McVoy & Staelin; the touch pattern is Linus
 * Torvalds' suggestion recorded in lat_mmap).
 *
 * One unit maps 'size' bytes of a file shared and writable, writes one byte
 * in some of its pages and unmaps it. The writes make the kernel fill in
 * page table entries, so both sparse and dense use of a mapping count:
 *
 *   tenth  one byte every 16 KiB over the first tenth of the mapping
 *          (lat_mmap's default)
 *   whole  one byte every 160 KiB over the whole mapping (lat_mmap -r)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/os_files.h"

#define MAP_TOUCH_STEP ((size_t)16 << 10)            /* lat_mmap's PSIZE */
#define MAP_TOUCH_PARTS 10                           /* lat_mmap's N */
#define MAP_WIDE_STEP (MAP_TOUCH_PARTS * MAP_TOUCH_STEP) /* lat_mmap's STRIDE */
#define MAP_MIN_SIZE ((int64_t)(2 * MAP_WIDE_STEP))  /* lat_mmap's MINSIZE: 320k */
#define MAP_MAX_SIZE ((int64_t)1 << 34)              /* 16G; checked against free space */

enum { TOUCH_TENTH, TOUCH_WHOLE };

/**
 * struct map_state - the run's state.
 * @run:        the run (error messages from the body).
 * @file:       the file mapped, open for reading and writing.
 * @size_bytes: bytes mapped per unit.
 * @touch_end:  bytes from the start of the mapping that are touched.
 * @step_bytes: distance between two touched bytes.
 */
struct map_state {
	struct ep_run *run;
	struct ep_os_file file;
	size_t size_bytes;
	size_t touch_end;
	size_t step_bytes;
};

static const struct ep_param_desc map_params[] = {
	{ "size", EP_PT_SIZE, "1M", { { MAP_MIN_SIZE, MAP_MAX_SIZE } }, NULL, "bytes",
	  "bytes mapped per mmap() (lat_mmap's size); the file must hold at least this" },
	{ "touch", EP_PT_ENUM, "tenth", { { 0, 0 } }, "tenth|whole", "",
	  "tenth: a byte every 16 KiB of the first tenth (lat_mmap); whole: a byte every "
	  "160 KiB of the mapping (lat_mmap -r)" },
	EP_OS_PARAM_FILE("map (opened for writing: the test writes through the mapping)"),
	EP_OS_PARAM_TMPDIR,
};

static const struct ep_metric_desc map_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "time of one mmap(), touch and munmap(), median as lat_mmap" },
};

/* body: map, touch and unmap, @units times. */
static int map_body(void *arg, uint64_t units)
{
	struct map_state *st = arg;
	/* lat_mmap writes the size's low byte: a value that depends on the input. */
	char value = (char)(st->size_bytes & 0xff);

	while (units--) {
		char *p = mmap(NULL, st->size_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			       st->file.fd, 0);

		if (p == MAP_FAILED) {
			int err = errno;

			return ep_run_fail(st->run, -err, "os.mmap: mmap() of %zu bytes failed: %s",
					   st->size_bytes, strerror(err));
		}
		for (size_t off = 0; off < st->touch_end; off += st->step_bytes)
			((volatile char *)p)[off] = value;
		munmap(p, st->size_bytes);
	}
	return 0;
}

static void map_teardown(void *state)
{
	struct map_state *st = state;

	ep_os_file_close(&st->file);
}

static int map_setup(struct ep_run *run, void **state)
{
	struct map_state *st = *state;
	struct ep_case c = { .metric = 0 };
	int rc;

	ep_os_file_init(&st->file); /* fd -1: teardown may run before the file opens */
	st->run = run;
	st->size_bytes = (size_t)ep_param_int(run, "size");
	if (ep_param_int(run, "touch") == TOUCH_WHOLE) {
		st->touch_end = st->size_bytes;
		st->step_bytes = MAP_WIDE_STEP;
	} else {
		st->touch_end = st->size_bytes / MAP_TOUCH_PARTS;
		st->step_bytes = MAP_TOUCH_STEP;
	}
	/* Only the descriptor is needed: a temporary file is unlinked at once. */
	rc = ep_os_file_open(run, "embperf-mmap", st->size_bytes, 1, 0, &st->file);
	if (!rc) {
		c.body = map_body;
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "size", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_mmap = {
	.name = "os.mmap",
	.summary = "time to mmap() a file, touch it and munmap() it (lmbench lat_mmap)",
	EP_PARAMS(map_params),
	EP_METRICS(map_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = map_setup,
	.teardown = map_teardown,
	.state_bytes = sizeof(struct map_state),
	.cpu_bound = 1,
};
