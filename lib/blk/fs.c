// SPDX-License-Identifier: MIT
/*
 * fs.c - blk.fs: the file system throughput method of TI's performance
 * guide as one trial kernel (doc/methodology-blk.md, "blk.fs").
 *
 * For each buffer size of 'bs': a write case writes a new file of 'size'
 * bytes with write() calls of that size and fsync()s it, both inside the
 * trial's time; a read case makes the file cold (posix_fadvise DONTNEED,
 * or with remount=1 unmounting and mounting the file system, as TI's
 * scripts do), then reads it back with read() calls of that size. Each
 * gives MB/s (10^6) and the CPU load of the whole system (/proc/stat, TI's
 * figure) and of the process. The file is created in 'folder' with O_EXCL
 * and removed on every exit path. The engine owns the clock, the CPU load,
 * the repetitions and their statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/blk/job.h"
#include "lib/blk/mounts.h"
#include "lib/core/params.h"
#include "lib/core/util.h"

#define FS_MAX_BS_LIST 16
#define FS_MAX_BS (64LL << 20)
#define FS_DEFAULT_BS "102400,262144,524288,1048576,5242880"

enum { M_THROUGHPUT, M_CPU_SYSTEM, M_CPU_PROCESS };
enum { OP_BOTH, OP_WRITE, OP_READ };

static const struct ep_param_desc fs_params[] = {
	{ "folder", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "folder on the file system under test (a file is created in it and removed)" },
	{ "bs", EP_PT_STRING, FS_DEFAULT_BS, { { 0, 0 } }, NULL, "bytes",
	  "buffer sizes: bytes per write()/read() call, comma-separated (k, M: 2^10, 2^20)" },
	{ "size", EP_PT_SIZE, "100M", { { 4096, 1LL << 44 } }, NULL, "bytes",
	  "file size written and read back" },
	{ "op", EP_PT_ENUM, "both", { { 0, 0 } }, "both|write|read", "",
	  "both: write then read each buffer size; write or read alone" },
	{ "remount", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "before each read: unmount and mount the file system of 'folder' (root; 'folder' "
	  "must be its mount point)" },
};

static const struct ep_metric_desc fs_metrics[] = {
	[M_THROUGHPUT] = { "throughput", "MB/s", EP_METRIC_TRIAL_MBPS, 1.0, EP_PRIMARY_MEDIAN,
			   1, "file bytes / time of the writes and fsync, or of the reads; "
			   "MB = 10^6 bytes" },
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(
		"the whole system's CPU load over the trial (/proc/stat, TI's method)"),
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP),
};

struct fs_state;

/**
 * struct fs_case - one trial case: a direction at a buffer size.
 * @fs:      the run's state.
 * @bs:      bytes per call.
 * @is_read: the read case.
 * @label:   "op=write fs=ext4 bs=102400 size=100M".
 */
struct fs_case {
	struct fs_state *fs;
	uint64_t bs;
	int is_read;
	char label[160];
};

/**
 * struct fs_state - the run.
 * @run:       the run (messages).
 * @fd:        the file, open; -1 between trials.
 * @path:      the file, "FOLDER/embperf-fs.PID.N".
 * @created:   the file exists and is the kernel's: removed in teardown.
 * @size:      'size'.
 * @remount:   'remount'.
 * @mnt:       the mount 'folder' is on.
 * @buf:       the buffer of the largest 'bs', holding the verify pattern
 *             (incompressible, for file systems that compress), each
 *             write's sectors stamped with their offset (blk_scramble()).
 * @n_cases:   number of @cases.
 * @cases:     one per direction and buffer size.
 */
struct fs_state {
	struct ep_run *run;
	int fd;
	char path[BLK_PATH_MAX];
	int created;
	uint64_t size;
	int remount;
	struct blk_mount mnt;
	void *buf;
	int n_cases;
	struct fs_case cases[2 * FS_MAX_BS_LIST];
};

/**
 * parse_bs() - the 'bs' list into @bs (at most FS_MAX_BS_LIST sizes).
 * Return: the count, or -EINVAL naming the item.
 */
static int parse_bs(struct ep_run *run, uint64_t *bs)
{
	static const struct ep_param_desc one = { "bs", EP_PT_SIZE, "", { { 1, FS_MAX_BS } },
						  NULL, "bytes", "" };
	char list[512], err[256], *save = NULL, *t;
	int n = 0;

	snprintf(list, sizeof(list), "%s", ep_param_text(run, "bs"));
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct ep_value v;

		if (n == FS_MAX_BS_LIST || ep_param_parse(&one, t, &v, err, sizeof(err)))
			return ep_run_refuse(run, -EINVAL, "bs", ": item '%s' %s; accepted: up to "
					     "%d sizes of 1 byte..64M, comma-separated", t,
					     n == FS_MAX_BS_LIST ? "is one too many" : "is not a size",
					     FS_MAX_BS_LIST);
		bs[n++] = (uint64_t)v.i;
		ep_value_free(&v);
	}
	if (!n)
		return ep_run_fail(run, -EINVAL, "parameter 'bs' is empty; accepted: sizes, "
				   "comma-separated, e.g. " FS_DEFAULT_BS);
	return n;
}

/**
 * check_remount() - remount=1 is for root, on the mount point itself, of a
 * file system that keeps its data when unmounted.
 * Return: 0, or -EPERM/-EINVAL naming 'remount'.
 */
static int check_remount(struct fs_state *fs, const char *folder)
{
	char real[BLK_PATH_MAX];

	if (!fs->remount)
		return 0;
	if (geteuid())
		return ep_run_fail(fs->run, -EPERM, "parameter 'remount': value '1' needs root "
				   "(it unmounts and mounts '%s'); accepted: remount=0 (the file's "
				   "cache is dropped instead)", fs->mnt.point);
	if (!realpath(folder, real) || strcmp(real, fs->mnt.point))
		return ep_run_fail(fs->run, -EINVAL, "parameter 'remount': folder '%s' is not a "
				   "mount point (it is on the %s file system mounted at '%s'); "
				   "accepted: remount=1 with 'folder' the mount point itself, or "
				   "remount=0", folder, fs->mnt.fstype, fs->mnt.point);
	if (!strcmp(fs->mnt.fstype, "tmpfs") || !strcmp(fs->mnt.fstype, "ramfs") ||
	    !strcmp(fs->mnt.fstype, "devtmpfs"))
		return ep_run_fail(fs->run, -EINVAL, "parameter 'remount': the file system at "
				   "'%s' is %s, which loses its files when unmounted; accepted: "
				   "remount=0 there", fs->mnt.point, fs->mnt.fstype);
	return 0;
}

/**
 * open_folder() - 'folder': a folder, its mount, room for the file, and the
 * file's name (created by the first write).
 * Return: 0, or an error naming 'folder', 'size' or 'remount'.
 */
static int open_folder(struct fs_state *fs)
{
	const char *folder = ep_param_text(fs->run, "folder");
	struct stat st;
	int rc;

	if (!*folder)
		return ep_run_fail(fs->run, -EINVAL, "parameter 'folder' is empty; accepted: a "
				   "folder on the file system to measure");
	if (stat(folder, &st))
		return ep_run_refuse(fs->run, -errno, "folder", ": %s; accepted: an existing "
				     "folder", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ep_run_refuse(fs->run, -ENOTDIR, "folder", " is not a folder; accepted: a "
				     "folder on the file system to measure");
	rc = blk_mount_of(folder, &fs->mnt);
	if (rc)
		return ep_run_refuse(fs->run, rc, "folder", ": its mount is not in "
				     "/proc/self/mountinfo: %s", strerror(-rc));
	rc = check_remount(fs, folder);
	if (!rc)
		rc = ep_disk_check_fits(fs->run, "size", "folder", folder, fs->size);
	return rc;
}

/**
 * create_file() - a new file in the folder with O_EXCL (a name not yet
 * taken), or the kernel's file anew (unlinked first).
 * Return: 0, or an error naming 'folder'.
 */
static int create_file(struct fs_state *fs)
{
	const char *folder = ep_param_text(fs->run, "folder");

	if (fs->created && unlink(fs->path) && errno != ENOENT)
		return ep_run_fail(fs->run, -errno, "'%s': cannot remove the previous trial's "
				   "file: %s", fs->path, strerror(errno));
	fs->created = 0;
	for (int n = 0; n < 100; n++) {
		if (snprintf(fs->path, sizeof(fs->path), "%s/embperf-fs.%d.%d", folder,
			     (int)getpid(), n) >= (int)sizeof(fs->path))
			return ep_run_refuse(fs->run, -ENAMETOOLONG, "folder", " is too long");
		fs->fd = open(fs->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fs->fd >= 0) {
			fs->created = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return ep_run_refuse(fs->run, -errno, "folder", ": cannot create a file in this folder: "
			     "%s; accepted: a folder this process may write to", strerror(errno));
}

/** close_file() - close the file if open. */
static void close_file(struct fs_state *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	fs->fd = -1;
}

/**
 * write_file() - write 'size' bytes in calls of @bs, then fsync(), counting
 * each call into @ta (NULL: not counted) while @t runs (NULL: to the end).
 * Return: 0, or a negative errno with the run's message.
 */
static int write_file(struct fs_state *fs, uint64_t bs, struct ep_trial *t)
{
	struct ep_tally *ta = t ? ep_trial_tally(t) : NULL;
	uint64_t done = 0;

	while (done < fs->size && (!t || ep_trial_running(t))) {
		size_t n = (size_t)(fs->size - done < bs ? fs->size - done : bs);
		ssize_t r;

		blk_scramble(fs->buf, n, done);
		r = write(fs->fd, fs->buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int rc = r < 0 ? -errno : -ENOSPC;

			return ep_run_fail(fs->run, rc, "'%s': write of %zu bytes at offset %"
					   PRIu64 " failed: %s%s", fs->path, n, done, strerror(-rc),
					   rc == -ENOSPC ? " (the file system is full; the file is "
					   "removed)" : "");
		}
		if (ta)
			ep_tally_add(ta, 1, (uint64_t)r);
		done += (uint64_t)r;
	}
	if (fsync(fs->fd))
		return ep_run_fail(fs->run, -errno, "'%s': fsync failed: %s", fs->path,
				   strerror(errno));
	return 0;
}

/**
 * remount() - unmount and mount the folder's file system again, as it was
 * (the file must be closed).
 * Return: 0, or a negative errno with the run's message.
 */
static int remount(struct fs_state *fs)
{
	char data[BLK_MNT_OPTS_MAX];
	unsigned long flags = blk_mount_flags(&fs->mnt, data, sizeof(data));

	if (umount(fs->mnt.point))
		return ep_run_fail(fs->run, -errno, "parameter 'remount': cannot unmount '%s': "
				   "%s%s; accepted: remount=0, or a file system nothing else uses",
				   fs->mnt.point, strerror(errno), errno == EBUSY ? " (in use)" : "");
	if (mount(fs->mnt.source, fs->mnt.point, fs->mnt.fstype, flags, data[0] ? data : NULL))
		return ep_run_fail(fs->run, -errno, "parameter 'remount': '%s' was unmounted but "
				   "mounting %s (%s, options '%s') on it again failed: %s; it is "
				   "left unmounted", fs->mnt.point, fs->mnt.source, fs->mnt.fstype,
				   data, strerror(errno));
	return 0;
}

/**
 * fs_prepare() - before a read case's first trial (not timed): a file of
 * 'size' to read (op=read alone, or a write cut short by 'duration').
 * Return: 0 or a negative errno with the run's message.
 */
static int fs_prepare(void *arg)
{
	struct fs_case *c = arg;
	struct fs_state *fs = c->fs;
	struct stat st;
	int rc;

	if (!c->is_read || (fs->created && !stat(fs->path, &st) &&
			    (uint64_t)st.st_size >= fs->size))
		return 0;
	close_file(fs);
	rc = create_file(fs);
	if (!rc)
		rc = write_file(fs, c->bs, NULL);
	close_file(fs);
	return rc;
}

/**
 * fs_before_trial() - before each trial (not timed): a write starts from a
 * new file; a read from a cold one (its cache dropped, or the file system
 * mounted again) opened for reading.
 * Return: 0 or a negative errno with the run's message.
 */
static int fs_before_trial(void *arg, int index)
{
	struct fs_case *c = arg;
	struct fs_state *fs = c->fs;
	int rc;

	(void)index;
	close_file(fs);
	if (!c->is_read)
		return create_file(fs);
	if (fs->remount) {
		rc = remount(fs);
		if (rc)
			return rc;
	}
	fs->fd = open(fs->path, O_RDONLY | O_CLOEXEC);
	if (fs->fd < 0)
		return ep_run_fail(fs->run, -errno, "'%s': cannot open the file to read it: %s",
				   fs->path, strerror(errno));
	if (!fs->remount)
		posix_fadvise(fs->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

/**
 * fs_body() - one trial: write the file (and fsync it) or read it back,
 * in calls of the case's buffer size.
 * Return: 0 or a negative errno with the run's message.
 */
static int fs_body(void *arg, struct ep_trial *t)
{
	struct fs_case *c = arg;
	struct fs_state *fs = c->fs;
	struct ep_tally *ta = ep_trial_tally(t);
	uint64_t done = 0;

	if (!c->is_read)
		return write_file(fs, c->bs, t);
	while (done < fs->size && ep_trial_running(t)) {
		ssize_t r = read(fs->fd, fs->buf, (size_t)c->bs);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ep_run_fail(fs->run, -errno, "'%s': read at offset %" PRIu64
					   " failed: %s", fs->path, done, strerror(errno));
		if (r == 0)
			break;
		ep_tally_add(ta, 1, (uint64_t)r);
		done += (uint64_t)r;
	}
	return 0;
}

/**
 * add_cases() - the trial cases: for each buffer size its write and/or read.
 * Return: 0 or a negative errno.
 */
static int add_cases(struct fs_state *fs, const uint64_t *bs, int n_bs)
{
	int op = (int)ep_param_int(fs->run, "op");

	for (int i = 0; i < n_bs; i++) {
		for (int is_read = 0; is_read < 2; is_read++) {
			struct fs_case *c = &fs->cases[fs->n_cases];
			struct ep_trial_case tc = {
				.body = fs_body,
				.prepare = fs_prepare,
				.before_trial = fs_before_trial,
				.arg = c,
				.labels = c->label,
			};
			int rc;

			if ((is_read && op == OP_WRITE) || (!is_read && op == OP_READ))
				continue;
			c->fs = fs;
			c->bs = bs[i];
			c->is_read = is_read;
			snprintf(c->label, sizeof(c->label), "op=%s fs=%s bs=%" PRIu64 " size=%s",
				 is_read ? "read" : "write", fs->mnt.fstype, bs[i],
				 ep_param_text(fs->run, "size"));
			rc = ep_run_add_trial(fs->run, &tc);
			if (rc)
				return rc;
			fs->n_cases++;
		}
	}
	return 0;
}

/** fs_teardown() - close and remove the file, free the buffer. */
static void fs_teardown(void *state)
{
	struct fs_state *fs = state;

	close_file(fs);
	if (fs->created)
		unlink(fs->path);
	free(fs->buf);
}

/** fs_setup() - read the parameters, check the folder, add the cases. */
static int fs_setup(struct ep_run *run, void **state)
{
	struct fs_state *fs = *state;
	uint64_t bs[FS_MAX_BS_LIST], max_bs = 0;
	int n_bs, rc;

	fs->fd = -1;
	fs->run = run;
	fs->size = (uint64_t)ep_param_int(run, "size");
	fs->remount = (int)ep_param_int(run, "remount");
	n_bs = parse_bs(run, bs);
	if (n_bs < 0)
		return n_bs;
	for (int i = 0; i < n_bs; i++) {
		if (bs[i] > fs->size)
			return ep_run_fail(run, -EINVAL, "parameter 'bs': size %" PRIu64 " is above "
					   "'size' (%s); accepted: 1 byte .. 'size'", bs[i],
					   ep_param_text(run, "size"));
		max_bs = bs[i] > max_bs ? bs[i] : max_bs;
	}
	rc = open_folder(fs);
	if (rc)
		return rc;
	if (posix_memalign(&fs->buf, 4096, (max_bs + 7) / 8 * 8))
		return -ENOMEM;
	blk_pattern_fill(fs->buf, (max_bs + 7) / 8 * 8, 0, 1);
	return add_cases(fs, bs, n_bs);
}

static const struct ep_default fs_defaults[] = {
	{ "repetitions", "3" },
	{ "duration", "120s" },
	{ "max_time", "600s" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_blk_fs = {
	.name = "blk.fs",
	.summary = "file system write+fsync and cold read per buffer size (TI's method): MB/s, "
		   "CPU load",
	EP_PARAMS(fs_params),
	EP_METRICS(fs_metrics),
	.engine_defaults = fs_defaults,
	.setup = fs_setup,
	.teardown = fs_teardown,
	.state_bytes = sizeof(struct fs_state),
	.trials = 1,
};
