// SPDX-License-Identifier: MIT
/*
 * os_select.c - os.select: cost of one select() over n descriptors, the
 * method of lmbench's lat_select (McVoy & Staelin).
 *
 * The n descriptors are duplicates of one open description, as in
 * lat_select: of a temporary regular file (type=file) or of the client end
 * of one TCP connection over 127.0.0.1 (type=tcp). One unit is a select()
 * asking whether they are writable, with a zero timeout, on a fresh copy of
 * the set; every descriptor is ready, so the call polls all n and returns.
 * Nothing waits, so no helper process is needed: the TCP connection's
 * other end is accepted by this process and kept open.
 *
 * lat_select passes n itself as select()'s first argument, which leaves
 * out the few duplicates numbered n and above; this kernel passes the
 * highest descriptor plus one, so all n are polled.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/os/child.h"
#include "lib/os/os_files.h"
#include "lib/os/partner.h"

enum select_type { SELECT_FILE, SELECT_TCP };

/**
 * struct select_state - state of os.select.
 * @fds:    the n duplicates, -1 where not open.
 * @n:      how many.
 * @other:  the accepted end of the TCP connection (type=tcp), or -1.
 * @set:    the n descriptors.
 * @nfds:   highest of them plus one.
 */
struct select_state {
	int *fds;
	int n;
	int other;
	fd_set set;
	int nfds;
};

static const struct ep_param_desc select_params[] = {
	{ "type", EP_PT_ENUM, "file", { { 0, 0 } }, "file|tcp", "",
	  "what the descriptors are: a regular file, or a TCP socket on 127.0.0.1" },
	{ "n", EP_PT_INT, "200", { { 1, FD_SETSIZE } }, NULL, "",
	  "descriptors in the set (lat_select -n); all must be below FD_SETSIZE" },
	{ "tmpdir", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "folder of the temporary file (type=file); empty: $TMPDIR, else /tmp" },
};

static const struct ep_metric_desc select_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "one select() over n ready descriptors, median (lat_select)" },
};

static int select_body(void *arg, uint64_t units)
{
	struct select_state *st = arg;

	while (units--) {
		fd_set ready = st->set;
		struct timeval zero = { 0, 0 };

		if (select(st->nfds, NULL, &ready, NULL, &zero) < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

static void select_teardown(void *state)
{
	struct select_state *st = state;

	for (int i = 0; st->fds && i < st->n; i++)
		ep_ipc_close(&st->fds[i]);
	ep_ipc_close(&st->other);
	free(st->fds);
}

/* A temporary file, opened read-only as lat_select opens it, and unlinked
 * at once: nothing is left behind whatever happens next. */
static int open_temp_file(struct ep_run *run)
{
	char dir[EP_OS_PATH_MAX], path[EP_OS_PATH_MAX + 32]; /* 'tmpdir' and the file's name */
	int tmp, fd, err = ep_os_tmpdir(run, dir, sizeof(dir));

	if (err)
		return err;
	tmp = ep_os_mkstemp(run, dir, "embperf-select", path, sizeof(path));
	if (tmp < 0)
		return tmp;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	unlink(path);
	close(tmp);
	if (err)
		return ep_run_fail(run, err, "cannot reopen '%s': %s", path, strerror(-err));
	return fd;
}

/* One descriptor of the requested type, or a negative errno. */
static int open_one(struct ep_run *run, struct select_state *st, int type)
{
	int client = -1, rc;

	if (type == SELECT_FILE)
		return open_temp_file(run);
	rc = ep_ipc_tcp_pair(run, &client, &st->other);
	return rc ? rc : client;
}

static int select_too_high(struct ep_run *run, int fd, int made)
{
	return ep_run_refuse(run, -ERANGE, "n", ": after %d duplicates the next descriptor is %d, "
			     "not below select()'s limit FD_SETSIZE (%d): this process holds too "
			     "many descriptors already; ask for fewer", made, fd, FD_SETSIZE);
}

/* Duplicate @fd n times into the set; @fd itself is closed. */
static int fill_set(struct ep_run *run, struct select_state *st, int fd)
{
	int rc = 0;

	FD_ZERO(&st->set);
	for (int i = 0; i < st->n && !rc; i++) {
		int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (d < 0) {
			rc = ep_run_refuse(run, -errno, "n", ": dup() failed after %d: %s", i,
					   strerror(errno));
		} else if (d >= FD_SETSIZE) {
			close(d);
			rc = select_too_high(run, d, i);
		} else {
			st->fds[i] = d;
			FD_SET(d, &st->set);
			if (d + 1 > st->nfds)
				st->nfds = d + 1;
		}
	}
	close(fd);
	return rc;
}

/* Every descriptor must be ready, or the kernel measures something else. */
static int check_all_ready(struct ep_run *run, struct select_state *st)
{
	fd_set ready = st->set;
	struct timeval zero = { 0, 0 };
	int got = select(st->nfds, NULL, &ready, NULL, &zero);

	if (got == st->n)
		return 0;
	return ep_run_fail(run, -EIO, "select() found %d of the %d descriptors writable", got,
			   st->n);
}

static int select_prepare(struct ep_run *run, struct select_state *st)
{
	int type = (int)ep_param_int(run, "type");
	int fd, rc;

	/* n duplicates, plus the original and the accepted end while setting up. */
	rc = ep_fd_room(run, "n", ep_param_text(run, "n"), st->n + 2);
	if (rc)
		return rc;
	fd = open_one(run, st, type);
	if (fd < 0)
		return fd;
	rc = fill_set(run, st, fd);
	return rc ? rc : check_all_ready(run, st);
}

static int select_setup(struct ep_run *run, void **state)
{
	struct select_state *st = *state;
	struct ep_case c = { .metric = 0, .body = select_body };
	int rc;

	st->other = -1;
	st->n = (int)ep_param_int(run, "n");
	st->fds = malloc((size_t)st->n * sizeof(*st->fds));
	if (!st->fds)
		return -ENOMEM;
	for (int i = 0; i < st->n; i++)
		st->fds[i] = -1;
	rc = select_prepare(run, st);
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "type", "n", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_select = {
	.name = "os.select",
	.summary = "select() over n file or TCP descriptors (lmbench lat_select)",
	EP_PARAMS(select_params),
	EP_METRICS(select_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = select_setup,
	.teardown = select_teardown,
	.state_bytes = sizeof(struct select_state),
};
