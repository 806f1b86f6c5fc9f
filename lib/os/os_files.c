// SPDX-License-Identifier: MIT
/*
 * os_files.c - temporary and user files of the file and mapping kernels
 * (os.fs, os.file_rd, os.mmap_rd, os.pagefault, os.mmap), and the
 * word-summing read they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/os/os_files.h"

#define FILL_CHUNK_BYTES ((size_t)1 << 20)
#define FILL_CHECK_CHUNKS 16 /* chunks written between cancel checks */

int ep_os_tmpdir(struct ep_run *run, char *dir, size_t size)
{
	const char *value = ep_param_text(run, "tmpdir");
	const char *from = "";
	struct stat st;

	if (!value || !*value) {
		value = getenv("TMPDIR");
		from = " (from $TMPDIR)";
		if (!value || !*value) {
			value = "/tmp";
			from = " (the default)";
		}
	}
	/* Room for the directory plus the names the kernels add below it. */
	if (strlen(value) + 64 >= size)
		return ep_run_fail(run, -ENAMETOOLONG,
				   "parameter 'tmpdir': value '%s'%s is too long; accepted: a path "
				   "shorter than %zu characters", value, from, size - 64);
	if (stat(value, &st)) {
		int err = errno;

		return ep_run_fail(run, -err,
				   "parameter 'tmpdir': value '%s'%s: %s; accepted: an existing "
				   "writable directory", value, from, strerror(err));
	}
	if (!S_ISDIR(st.st_mode))
		return ep_run_fail(run, -ENOTDIR,
				   "parameter 'tmpdir': value '%s'%s is not a directory; accepted: an "
				   "existing writable directory", value, from);
	if (access(value, W_OK | X_OK)) {
		int err = errno;

		return ep_run_fail(run, -err,
				   "parameter 'tmpdir': value '%s'%s is not writable (%s); accepted: "
				   "an existing writable directory", value, from, strerror(err));
	}
	snprintf(dir, size, "%s", value);
	return 0;
}

int ep_os_mkstemp(struct ep_run *run, const char *dir, const char *prefix, char *path,
		  size_t size)
{
	int fd;

	if (snprintf(path, size, "%s/%s-XXXXXX", dir, prefix) >= (int)size) {
		path[0] = '\0';
		return ep_run_fail(run, -ENAMETOOLONG, "parameter 'tmpdir': value '%s' is too "
				   "long; accepted: a shorter path", dir);
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		path[0] = '\0';
		return ep_run_fail(run, err, "parameter 'tmpdir': value '%s': cannot create a "
				   "file in it: %s; accepted: a folder this process may write to",
				   dir, strerror(-err));
	}
	return fd;
}

void ep_os_file_init(struct ep_os_file *f)
{
	f->fd = -1;
	f->path[0] = '\0';
	f->temporary = 0;
	f->size_bytes = 0;
}

void ep_os_file_close(struct ep_os_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->temporary && f->path[0])
		unlink(f->path);
	ep_os_file_init(f);
}

/* Write @size_bytes of a non-zero pattern, then fsync(). */
static int fill_file(struct ep_run *run, int fd, uint64_t size_bytes)
{
	char *chunk = malloc(FILL_CHUNK_BYTES);
	uint64_t done = 0;
	unsigned n_chunks = 0;
	int rc = 0;

	if (!chunk)
		return -ENOMEM;
	for (size_t i = 0; i < FILL_CHUNK_BYTES; i++)
		chunk[i] = (char)(i * 7 + 1);
	while (!rc && done < size_bytes) {
		size_t want = size_bytes - done < FILL_CHUNK_BYTES ? (size_t)(size_bytes - done)
								     : FILL_CHUNK_BYTES;
		ssize_t got = write(fd, chunk, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			rc = got < 0 ? -errno : -ENOSPC;
		else
			done += (uint64_t)got;
		if (!rc && ++n_chunks % FILL_CHECK_CHUNKS == 0)
			rc = ep_run_check(run);
	}
	free(chunk);
	if (!rc && fsync(fd))
		rc = -errno;
	if (rc && rc != -ECANCELED && rc != -ETIME)
		rc = ep_run_fail(run, rc, "parameter 'tmpdir': writing a %" PRIu64 "-byte "
				 "temporary file failed: %s", size_bytes, strerror(-rc));
	return rc;
}

static int open_temporary(struct ep_run *run, const char *prefix, uint64_t size_bytes,
			  int keep_name, struct ep_os_file *f)
{
	char dir[EP_OS_PATH_MAX];
	int rc = ep_os_tmpdir(run, dir, sizeof(dir));

	if (rc)
		return rc;
	rc = ep_disk_check_fits(run, "size", "tmpdir", dir, size_bytes);
	if (rc)
		return rc;
	f->fd = ep_os_mkstemp(run, dir, prefix, f->path, sizeof(f->path));
	if (f->fd < 0)
		return f->fd;
	f->temporary = 1;
	f->size_bytes = size_bytes;
	rc = fill_file(run, f->fd, size_bytes);
	if (!rc && !keep_name) {
		unlink(f->path);
		f->path[0] = '\0';
	}
	if (rc)
		ep_os_file_close(f);
	return rc;
}

static int open_user(struct ep_run *run, const char *path, uint64_t size_bytes, int writable,
		     struct ep_os_file *f)
{
	struct stat st;
	int rc;

	if (strlen(path) >= sizeof(f->path))
		return ep_run_refuse(run, -ENAMETOOLONG, "file", " is too long");
	/*
	 * O_NONBLOCK: opening a FIFO for reading would wait for a writer for
	 * ever, before the type check below could refuse it. O_NOCTTY: a
	 * terminal named here must not become the process's controlling one.
	 */
	f->fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f->fd < 0) {
		rc = -errno;
		return ep_run_refuse(run, rc, "file", ": %s; accepted: an existing %sregular file "
				     "of at least 'size' bytes", strerror(-rc), writable ? "writable " : "");
	}
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		ep_os_file_close(f);
		return ep_run_refuse(run, -EINVAL, "file", " is not a regular file; accepted: a "
				     "regular file of at least 'size' bytes");
	}
	/* Regular files ignore O_NONBLOCK; clear it all the same. */
	fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK);
	if ((uint64_t)st.st_size < size_bytes) {
		ep_os_file_close(f);
		return ep_run_refuse(run, -ERANGE, "file", " holds %" PRIu64 " bytes, fewer than "
				     "'size' (%s); accepted: a file of at least 'size' bytes, or a "
				     "smaller 'size'", (uint64_t)st.st_size, ep_param_text(run, "size"));
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->size_bytes = (uint64_t)st.st_size;
	return 0;
}

int ep_os_file_open(struct ep_run *run, const char *prefix, uint64_t size_bytes, int writable,
		    int keep_name, struct ep_os_file *f)
{
	const char *user = ep_param_text(run, "file");
	int rc;

	ep_os_file_init(f);
	/*
	 * The kernels on this file measure its pages in the page cache: a file
	 * larger than the memory left would be read from the disk instead.
	 */
	rc = ep_mem_check_fits(run, "size", ep_param_text(run, "size"), size_bytes);
	if (rc)
		return rc;
	if (user && *user)
		return open_user(run, user, size_bytes, writable, f);
	return open_temporary(run, prefix, size_bytes, keep_name, f);
}

/*
 * One word into the chain. The empty asm makes the compiler keep the sum in
 * a register and add the words one after the other: without it, gcc and
 * clang vectorise the block, and the rate would no longer be that of the
 * word-by-word read lmbench (built with -O) performs.
 */
#define SUM1(i)                                \
	acc += w[i];                           \
	__asm__("" : "+r"(acc));
#define SUM4(i) SUM1(i) SUM1(i + 1) SUM1(i + 2) SUM1(i + 3)
#define SUM16(i) SUM4(i) SUM4(i + 4) SUM4(i + 8) SUM4(i + 12)
#define SUM64(i) SUM16(i) SUM16(i + 16) SUM16(i + 32) SUM16(i + 48)

#define BLOCK_WORDS 128 /* 1 KiB blocks, as bw_file_rd and bw_mmap_rd read */

uint64_t ep_os_sum_words(const void *buf, size_t bytes)
{
	const uint64_t *w = buf;
	const uint64_t *end = w + bytes / sizeof(*w);
	uint64_t sum = 0;

	for (; end - w >= BLOCK_WORDS; w += BLOCK_WORDS) {
		uint64_t acc = 0;

		SUM64(0)
		SUM64(64)
		sum += acc;
	}
	for (; w < end; w++) {
		uint64_t acc = sum;

		SUM1(0)
		sum = acc;
	}
	return sum;
}

/* splitmix64: a small deterministic generator for the page orders. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int ep_os_random_order(size_t **order, size_t n, uint64_t seed)
{
	size_t *o = malloc(n * sizeof(*o));

	*order = o;
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		o[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_random(&seed) % (i + 1));
		size_t t = o[i];

		o[i] = o[j];
		o[j] = t;
	}
	return 0;
}
