// SPDX-License-Identifier: MIT
/*
 * child.c - child processes of a run (see child.h): fork with a death
 * signal, kill and reap, wait with a timeout, and the limits on processes
 * and descriptors checked up front with messages that say which limit.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/os/child.h"

#define CHILD_POLL_SLICE_MS 100 /* how often a wait looks at cancel and budget */
#define CHILD_EXIT_ORPHAN 125   /* a child whose parent died before it was set up */

int ep_children_init(struct ep_children *set, int cap)
{
	set->n = 0;
	set->cap = cap;
	set->pids = calloc((size_t)(cap > 0 ? cap : 1), sizeof(*set->pids));
	return set->pids ? 0 : -ENOMEM;
}

/* waitpid() that survives signals of the caller's handlers. */
static pid_t reap(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

/* SIGKILL every child of @set and reap each, so none is left as a zombie. */
static void kill_children(struct ep_children *set)
{
	if (!set->pids)
		return;
	/* Signal them all first, so they die in parallel, then reap each. */
	for (int i = 0; i < set->n; i++)
		kill(set->pids[i], SIGKILL);
	for (int i = 0; i < set->n; i++)
		reap(set->pids[i], NULL);
	set->n = 0;
}

void ep_children_free(struct ep_children *set)
{
	kill_children(set);
	free(set->pids);
	set->pids = NULL;
	set->cap = 0;
}

pid_t ep_child_fork(struct ep_children *set)
{
	pid_t parent = getpid();
	pid_t pid;

	if (set && set->n >= set->cap)
		return -ENOSPC;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The parent may have died between fork() and prctl(). */
		if (getppid() != parent)
			_exit(CHILD_EXIT_ORPHAN);
		return 0;
	}
	if (set)
		set->pids[set->n++] = pid;
	return pid;
}

/* Kill a child we gave up on and reap it, so no zombie stays behind. */
static int give_up(pid_t pid, int pidfd, int err)
{
	kill(pid, SIGKILL);
	reap(pid, NULL);
	if (pidfd >= 0)
		close(pidfd);
	return err;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int ep_child_wait(struct ep_run *run, pid_t pid, uint64_t timeout_ns, int *status)
{
	uint64_t deadline_ns = timeout_ns ? ep_now_ns() + timeout_ns : 0;
	int pidfd = open_pidfd(pid);
	int err;

	if (pidfd < 0) {
		/* No pidfd (Linux < 5.3): the wait cannot time out. */
		return reap(pid, status) < 0 ? -errno : 0;
	}
	for (;;) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		int ready = poll(&pfd, 1, CHILD_POLL_SLICE_MS);

		if (ready > 0)
			break;
		if (ready < 0 && errno != EINTR)
			return give_up(pid, pidfd, -errno);
		err = run ? ep_run_check(run) : 0;
		if (err)
			return give_up(pid, pidfd, err);
		if (deadline_ns && ep_now_ns() >= deadline_ns)
			return give_up(pid, pidfd, -ETIMEDOUT);
	}
	close(pidfd);
	return reap(pid, status) < 0 ? -errno : 0;
}

/* Close [lo, hi] (hi may be ~0U): close_range() where the kernel has it. */
static void close_span(unsigned lo, unsigned hi)
{
	struct rlimit rl;
	unsigned top = 4096;

	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
#endif
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
		top = (unsigned)rl.rlim_cur;
	if (hi > top)
		hi = top;
	for (unsigned fd = lo; fd <= hi && fd >= lo; fd++)
		close((int)fd);
}

void ep_child_keep_fds(const int *keep, int n_keep)
{
	unsigned next = 3;

	/* Walk the kept descriptors in increasing order without sorting (no
	 * allocation in a child): each round finds the smallest not yet passed. */
	for (;;) {
		unsigned low = ~0U;

		for (int i = 0; i < n_keep; i++)
			if (keep[i] >= 0 && (unsigned)keep[i] >= next && (unsigned)keep[i] < low)
				low = (unsigned)keep[i];
		if (low == ~0U)
			break;
		if (low > next)
			close_span(next, low - 1);
		next = low + 1;
	}
	close_span(next, ~0U);
}

int ep_child_refuse_nofork(struct ep_run *run, const char *param, const char *value,
			   const char *accepted)
{
	return ep_run_fail(run, -ENOSYS,
			   "parameter '%s': value '%s' needs fork(), which this system does not "
			   "have (a noMMU kernel, or a C library without it)%s%s",
			   param, value, accepted ? "; accepted: " : "", accepted ? accepted : "");
}

int ep_child_fork_error(struct ep_run *run, int err, const char *param, const char *value,
			int started, const char *what)
{
	struct rlimit rl;
	char limit[48] = "unknown";

	if (!getrlimit(RLIMIT_NPROC, &rl)) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(limit, sizeof(limit), "unlimited");
		else
			snprintf(limit, sizeof(limit), "%llu", (unsigned long long)rl.rlim_cur);
	}
	if (err == -ENOSYS)
		return ep_child_refuse_nofork(run, param, value, NULL);
	if (err == -EAGAIN)
		return ep_run_fail(run, err,
				   "parameter '%s': value '%s': %s failed after %d were started: "
				   "the process limit is reached (RLIMIT_NPROC is %s for this user, "
				   "or kernel.threads-max / pid_max); ask for fewer or raise the limit",
				   param, value, what, started, limit);
	return ep_run_fail(run, err, "parameter '%s': value '%s': %s failed after %d were started: %s",
			   param, value, what, started, strerror(-err));
}

/* Descriptors open now, counted in /proc/self/fd (the directory's own excluded). */
static int fds_open(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!dir)
		return 3; /* no /proc: assume the standard three */
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;
}

int ep_fd_room(struct ep_run *run, const char *param, const char *value, int needed)
{
	struct rlimit rl;
	int open_now;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	open_now = fds_open();
	if ((unsigned long long)open_now + (unsigned long long)needed <=
	    (unsigned long long)rl.rlim_cur)
		return 0;
	return ep_run_fail(run, -EMFILE,
			   "parameter '%s': value '%s' needs %d file descriptors; %d are open and "
			   "RLIMIT_NOFILE allows %llu (raise it with 'ulimit -n' or setrlimit(), "
			   "or ask for fewer)",
			   param, value, needed, open_now, (unsigned long long)rl.rlim_cur);
}

void ep_child_describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended with wait status 0x%x", (unsigned)status);
}
