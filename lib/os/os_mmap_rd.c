// SPDX-License-Identifier: MIT
/*
 * os_mmap_rd.c - os.mmap_rd: reread bandwidth of a cached file through a
 * shared read-only mapping, the method of lmbench's bw_mmap_rd (McVoy &
 * Staelin).
 *
 * One unit adds up the 8-byte words of 'size' bytes of the file:
 *
 *   mo   through one mapping made in setup (mmap_only): after the first
 *        pass the pages are mapped and this is a memory read
 *   o2c  each unit opens the file, maps it, sums it, closes and unmaps it
 *        (open2close): page faults and unmapping included
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/os_files.h"

#define MRD_MIN_SIZE 512                /* bw_mmap_rd's smallest size (128 ints) */
#define MRD_MAX_SIZE ((int64_t)1 << 34) /* 16G; checked against free space */

enum { MODE_MO, MODE_O2C };

/**
 * struct mrd_state - the run's state.
 * @run:        the run (error messages from the body).
 * @file:       the file mapped; temporary unless 'file' was given.
 * @size_bytes: bytes summed per unit (and mapped).
 * @map:        the mapping of mode mo, or NULL.
 * @sink:       where sums go so the reads cannot be optimised away.
 */
struct mrd_state {
	struct ep_run *run;
	struct ep_os_file file;
	size_t size_bytes;
	void *map;
	volatile uint64_t sink;
};

static const struct ep_param_desc mrd_params[] = {
	{ "size", EP_PT_SIZE, "1M", { { MRD_MIN_SIZE, MRD_MAX_SIZE } }, NULL, "bytes",
	  "bytes mapped and summed per pass (bw_mmap_rd's size); the file must hold at least this" },
	{ "mode", EP_PT_ENUM, "mo", { { 0, 0 } }, "mo|o2c", "",
	  "mo: sum through one mapping (mmap_only); o2c: open, mmap, sum, close, munmap (open2close)" },
	EP_OS_PARAM_FILE("map"),
	EP_OS_PARAM_TMPDIR,
};

static const struct ep_metric_desc mrd_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "bytes summed per second, MB = 10^6 bytes, median as bw_mmap_rd" },
};

/* body (mo): sum the mapping, @units times. */
static int mrd_mo(void *arg, uint64_t units)
{
	struct mrd_state *st = arg;
	uint64_t sum = 0;

	while (units--)
		sum += ep_os_sum_words(st->map, st->size_bytes);
	st->sink = sum;
	return 0;
}

/* body (o2c): open, map, sum, close and unmap, @units times. */
static int mrd_o2c(void *arg, uint64_t units)
{
	struct mrd_state *st = arg;
	uint64_t sum = 0;

	while (units--) {
		int fd = open(st->file.path, O_RDONLY | O_CLOEXEC);
		void *p;
		int err;

		if (fd < 0) {
			err = errno;
			return ep_run_fail(st->run, -err, "os.mmap_rd: cannot open '%s': %s",
					   st->file.path, strerror(err));
		}
		p = mmap(NULL, st->size_bytes, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			err = errno;
			close(fd);
			return ep_run_fail(st->run, -err, "os.mmap_rd: mmap() failed: %s",
					   strerror(err));
		}
		sum += ep_os_sum_words(p, st->size_bytes);
		/* bw_mmap_rd's order: close the file, then unmap. */
		close(fd);
		munmap(p, st->size_bytes);
	}
	st->sink = sum;
	return 0;
}

EP_UNTIMED static void mrd_teardown(void *state)
{
	struct mrd_state *st = state;

	if (st->map)
		munmap(st->map, st->size_bytes);
	ep_os_file_close(&st->file);
}

/* Mode mo: one mapping for the whole run, made here and not timed. */
static int map_once(struct ep_run *run, struct mrd_state *st)
{
	void *p = mmap(NULL, st->size_bytes, PROT_READ, MAP_SHARED, st->file.fd, 0);

	if (p == MAP_FAILED) {
		int err = errno;

		return ep_run_fail(run, -err, "parameter 'file': cannot map %zu bytes of it: %s",
				   st->size_bytes, strerror(err));
	}
	st->map = p;
	return 0;
}

EP_UNTIMED static int mrd_setup(struct ep_run *run, void **state)
{
	int mode = (int)ep_param_int(run, "mode");
	struct mrd_state *st = *state;
	struct ep_case c = { .metric = 0 };
	int rc;

	ep_os_file_init(&st->file); /* fd -1: teardown may run before the file opens */
	st->run = run;
	st->size_bytes = (size_t)ep_param_int(run, "size");
	/* o2c opens the file by name: a temporary one keeps its name. */
	rc = ep_os_file_open(run, "embperf-mmap_rd", st->size_bytes, 0, mode == MODE_O2C,
			     &st->file);
	if (!rc && mode == MODE_MO)
		rc = map_once(run, st);
	if (!rc) {
		c.body = mode == MODE_O2C ? mrd_o2c : mrd_mo;
		c.arg = st;
		c.bytes_per_unit = (double)st->size_bytes;
		rc = ep_run_add_params_case(run, &c, "mode", "size", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_mmap_rd = {
	.name = "os.mmap_rd",
	.summary = "reread bandwidth of a cached file through mmap(), mapping only or open to "
		   "close (lmbench bw_mmap_rd)",
	EP_PARAMS(mrd_params),
	EP_METRICS(mrd_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = mrd_setup,
	.teardown = mrd_teardown,
	.state_bytes = sizeof(struct mrd_state),
	.cpu_bound = 1,
};
