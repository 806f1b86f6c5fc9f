// SPDX-License-Identifier: MIT
/*
 * os_syscall.c - os.syscall: the cost of simple system calls, the method of
 * lmbench's lat_syscall (McVoy & Staelin). One unit is one call:
 *
 *   null   getppid(), a call that does almost nothing in the kernel
 *   read   read() of one byte from /dev/zero
 *   write  write() of one byte to /dev/null
 *   stat   stat() of a file
 *   fstat  fstat() of that file, opened once
 *   open   open() then close() of that file
 *
 * The file is `file` when given, otherwise an empty file the kernel
 * creates in `tmpdir` and removes in teardown, as the lmbench script stats
 * an empty file it made ($FSDIR/lmbench).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/os_files.h"

enum sys_op { OP_NULL, OP_READ, OP_WRITE, OP_STAT, OP_FSTAT, OP_OPEN };

/**
 * struct sys_state - the run's state.
 * @run:      the run, for failure messages from the bodies.
 * @fd:       /dev/zero (read), /dev/null (write) or the file (fstat); -1 otherwise.
 * @temporary: @path is the kernel's temporary file, removed in teardown.
 * @path:     the file stat and open use.
 */
struct sys_state {
	struct ep_run *run;
	int fd;
	int temporary;
	char *path;
};

static const struct ep_param_desc sys_params[] = {
	{ "op", EP_PT_ENUM, "null", { { 0, 0 } }, "null|read|write|stat|fstat|open", "",
	  "system call, as lat_syscall's: getppid, 1-byte read of /dev/zero, 1-byte write to "
	  "/dev/null, stat, fstat, open+close" },
	{ "file", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "file for stat, fstat and open (default: an empty temporary file in tmpdir)" },
	{ "tmpdir", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "folder of the temporary file (default: $TMPDIR, else /tmp)" },
};

static const struct ep_metric_desc sys_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "microseconds per system call; median as lat_syscall" },
};

/* A call failed in a body (errno says why): say which and on what. */
static int body_fail(struct sys_state *st, const char *call)
{
	int err = errno ? -errno : -EIO;

	return ep_run_fail(st->run, err, "os.syscall: %s on '%s' failed: %s", call,
			   st->path ? st->path : "", strerror(-err));
}

static int sys_null(void *arg, uint64_t units)
{
	while (units--)
		getppid();
	return 0;
}

static int sys_read(void *arg, uint64_t units)
{
	struct sys_state *st = arg;
	char c;

	while (units--) {
		ssize_t n = read(st->fd, &c, 1);

		if (n != 1) {
			if (n >= 0)
				errno = EIO;
			return body_fail(st, "read()");
		}
	}
	return 0;
}

static int sys_write(void *arg, uint64_t units)
{
	struct sys_state *st = arg;
	char c = 0;

	while (units--) {
		ssize_t n = write(st->fd, &c, 1);

		if (n != 1) {
			if (n >= 0)
				errno = EIO;
			return body_fail(st, "write()");
		}
	}
	return 0;
}

static int sys_stat(void *arg, uint64_t units)
{
	struct sys_state *st = arg;
	struct stat sb;

	while (units--)
		if (stat(st->path, &sb))
			return body_fail(st, "stat()");
	return 0;
}

static int sys_fstat(void *arg, uint64_t units)
{
	struct sys_state *st = arg;
	struct stat sb;

	while (units--)
		if (fstat(st->fd, &sb))
			return body_fail(st, "fstat()");
	return 0;
}

static int sys_open(void *arg, uint64_t units)
{
	struct sys_state *st = arg;

	while (units--) {
		int fd = open(st->path, O_RDONLY);

		if (fd < 0)
			return body_fail(st, "open()");
		close(fd);
	}
	return 0;
}

static const ep_body_fn sys_bodies[] = {
	[OP_NULL] = sys_null,   [OP_READ] = sys_read, [OP_WRITE] = sys_write,
	[OP_STAT] = sys_stat,   [OP_FSTAT] = sys_fstat, [OP_OPEN] = sys_open,
};

EP_UNTIMED static void sys_teardown(void *state)
{
	struct sys_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	if (st->temporary)
		unlink(st->path);
	free(st->path);
}

/* Create the empty file lat_syscall's stat/open/fstat rows use, in 'tmpdir'. */
static int make_tmp_file(struct ep_run *run, struct sys_state *st)
{
	char dir[EP_OS_PATH_MAX], path[EP_OS_PATH_MAX + 32]; /* 'tmpdir' and the file's name */
	int fd = ep_os_tmpdir(run, dir, sizeof(dir));

	if (fd)
		return fd;
	fd = ep_os_mkstemp(run, dir, "embperf-syscall", path, sizeof(path));
	if (fd < 0)
		return fd;
	close(fd);
	st->path = ep_strdup(path);
	if (!st->path) {
		unlink(path);
		return -ENOMEM;
	}
	st->temporary = 1;
	return 0;
}

/* The file of stat/fstat/open: the caller's, which must exist, or a new one. */
static int choose_file(struct ep_run *run, struct sys_state *st, int op)
{
	const char *file = ep_param_text(run, "file");
	struct stat sb;

	if (!file || !*file)
		return make_tmp_file(run, st);
	if (op != OP_STAT && op != OP_FSTAT && op != OP_OPEN)
		return ep_run_refuse(run, -EINVAL, "file", " does not apply to op=%s; accepted "
				     "with op=stat|fstat|open (read uses /dev/zero, write "
				     "/dev/null)", ep_param_text(run, "op"));
	if (stat(file, &sb))
		return ep_run_refuse(run, -errno, "file", ": %s; accepted: an existing file",
				     strerror(errno));
	st->path = ep_strdup(file);
	return st->path ? 0 : -ENOMEM;
}

/* Open what the op's body uses: /dev/zero, /dev/null or the file. */
static int open_target(struct ep_run *run, struct sys_state *st, int op)
{
	const char *path = op == OP_READ ? "/dev/zero" : op == OP_WRITE ? "/dev/null" : st->path;

	if (op != OP_READ && op != OP_WRITE && op != OP_FSTAT)
		return 0;
	if (path != st->path) {
		st->path = ep_strdup(path);
		if (!st->path)
			return -ENOMEM;
		path = st->path;
	}
	st->fd = open(path, (op == OP_WRITE ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (st->fd < 0)
		return ep_run_fail(run, -errno, "os.syscall: cannot open '%s' for op=%s: %s", path,
				   ep_param_text(run, "op"), strerror(errno));
	return 0;
}

EP_UNTIMED static int sys_setup(struct ep_run *run, void **state)
{
	int op = (int)ep_param_int(run, "op");
	struct sys_state *st = *state;
	struct ep_case c = { .metric = 0, .body = sys_bodies[op] };
	const char *file = ep_param_text(run, "file");
	int rc = 0;

	st->run = run;
	st->fd = -1;
	if (op == OP_STAT || op == OP_FSTAT || op == OP_OPEN || (file && *file))
		rc = choose_file(run, st, op);
	if (!rc)
		rc = open_target(run, st, op);
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "op", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_syscall = {
	.name = "os.syscall",
	.summary = "simple system call latency: null, read, write, stat, fstat, open (lmbench lat_syscall)",
	EP_PARAMS(sys_params),
	EP_METRICS(sys_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = sys_setup,
	.teardown = sys_teardown,
	.state_bytes = sizeof(struct sys_state),
	.cpu_bound = 1,
};
