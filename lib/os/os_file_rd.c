// SPDX-License-Identifier: MIT
/*
 * os_file_rd.c - os.file_rd: reread bandwidth of a file in the page cache,
 * the method of lmbench's bw_file_rd (McVoy & Staelin).
 *
 * One unit reads the whole file ('size' bytes) with read() in 64 KiB
 * transfers into one buffer, adding up each transfer's 8-byte words as it
 * arrives, so the rate is that of a program consuming the data:
 *
 *   io   the file stays open; each unit seeks back to the start (io_only)
 *   o2c  each unit opens the file, reads it and closes it (open2close)
 *
 * The file is written and fsync()ed in setup, so it is in the page cache
 * and the rate is the kernel's copy to user space plus the summing, not
 * the disk's (lmbench measures disks with lmdd).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/os_files.h"

#define RD_MIN_SIZE 512                 /* bw_file_rd's smallest size (128 ints) */
#define RD_MAX_SIZE ((int64_t)1 << 34)  /* 16G; checked against free space */
#define RD_XFER_BYTES ((size_t)64 << 10) /* lmbench's XFERSIZE */

enum { MODE_IO, MODE_O2C };

/**
 * struct rd_state - the run's state.
 * @run:        the run (error messages from the body).
 * @file:       the file read; temporary unless 'file' was given.
 * @size_bytes: bytes read per unit.
 * @xfer_bytes: bytes per read() call: 64 KiB, or the size when smaller.
 * @buf:        destination of the reads, page aligned.
 * @sink:       where sums go so the summing cannot be optimised away.
 */
struct rd_state {
	struct ep_run *run;
	struct ep_os_file file;
	size_t size_bytes;
	size_t xfer_bytes;
	void *buf;
	volatile uint64_t sink;
};

static const struct ep_param_desc rd_params[] = {
	{ "size", EP_PT_SIZE, "1M", { { RD_MIN_SIZE, RD_MAX_SIZE } }, NULL, "bytes",
	  "bytes read per pass (bw_file_rd's size); the file must hold at least this" },
	{ "mode", EP_PT_ENUM, "io", { { 0, 0 } }, "io|o2c", "",
	  "io: read() and sum an open file (io_only); o2c: open, read and sum, close (open2close)" },
	EP_OS_PARAM_FILE("read"),
	EP_OS_PARAM_TMPDIR,
};

static const struct ep_metric_desc rd_metrics[] = {
	{ "bandwidth", "MB/s", EP_METRIC_RATE, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "bytes read and summed per second, MB = 10^6 bytes, median as bw_file_rd" },
};

/* Read and sum 'size' bytes from the current offset of @fd. */
static int read_and_sum(struct rd_state *st, int fd)
{
	size_t left = st->size_bytes;
	uint64_t sum = 0;

	while (left) {
		size_t want = left < st->xfer_bytes ? left : st->xfer_bytes;
		ssize_t got = read(fd, st->buf, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return ep_run_fail(st->run, -errno, "os.file_rd: read() failed: %s",
					   strerror(errno));
		if (got == 0)
			return ep_run_fail(st->run, -EIO, "parameter 'file': '%s' shrank below "
					   "'size' during the run", st->file.path);
		sum += ep_os_sum_words(st->buf, (size_t)got);
		left -= (size_t)got;
	}
	st->sink = sum;
	return 0;
}

/* body (io): seek to the start and read the file, @units times. */
static int rd_io(void *arg, uint64_t units)
{
	struct rd_state *st = arg;

	while (units--) {
		int rc;

		if (lseek(st->file.fd, 0, SEEK_SET) < 0)
			return -errno;
		rc = read_and_sum(st, st->file.fd);
		if (rc)
			return rc;
	}
	return 0;
}

/* body (o2c): open, read and close the file, @units times. */
static int rd_o2c(void *arg, uint64_t units)
{
	struct rd_state *st = arg;

	while (units--) {
		int fd = open(st->file.path, O_RDONLY | O_CLOEXEC);
		int rc;

		if (fd < 0)
			return ep_run_fail(st->run, -errno, "os.file_rd: cannot open '%s': %s",
					   st->file.path, strerror(errno));
		rc = read_and_sum(st, fd);
		close(fd);
		if (rc)
			return rc;
	}
	return 0;
}

EP_UNTIMED static void rd_teardown(void *state)
{
	struct rd_state *st = state;

	ep_os_file_close(&st->file);
	free(st->buf);
}

EP_UNTIMED static int rd_setup(struct ep_run *run, void **state)
{
	int mode = (int)ep_param_int(run, "mode");
	struct rd_state *st = *state;
	struct ep_case c = { .metric = 0 };
	int rc;

	ep_os_file_init(&st->file);
	st->run = run;
	st->size_bytes = (size_t)ep_param_int(run, "size");
	st->xfer_bytes = st->size_bytes < RD_XFER_BYTES ? st->size_bytes : RD_XFER_BYTES;
	rc = posix_memalign(&st->buf, (size_t)sysconf(_SC_PAGESIZE), RD_XFER_BYTES) ? -ENOMEM : 0;
	if (!rc) {
		memset(st->buf, 0, RD_XFER_BYTES);
		/* o2c opens the file by name: a temporary one keeps its name. */
		rc = ep_os_file_open(run, "embperf-file_rd", st->size_bytes, 0, mode == MODE_O2C,
				     &st->file);
	}
	if (!rc) {
		c.body = mode == MODE_O2C ? rd_o2c : rd_io;
		c.arg = st;
		c.bytes_per_unit = (double)st->size_bytes;
		rc = ep_run_add_params_case(run, &c, "mode", "size", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_file_rd = {
	.name = "os.file_rd",
	.summary = "reread bandwidth of a cached file with read(), io only or open to close "
		   "(lmbench bw_file_rd)",
	EP_PARAMS(rd_params),
	EP_METRICS(rd_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = rd_setup,
	.teardown = rd_teardown,
	.state_bytes = sizeof(struct rd_state),
	.cpu_bound = 1,
};
