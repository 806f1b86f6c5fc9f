/* SPDX-License-Identifier: MIT */
/*
 * child.h - child processes of a run: forked so that they die with the
 * thread that started them, killed and reaped on every exit path (normal
 * end, error, budget cut, cancel), waited for with a timeout; and the
 * descriptor and process limits checked before a kernel asks for many.
 *
 * Rules for code that runs in a forked child: the caller's process may have
 * other threads, so a child calls only async-signal-safe functions (no
 * malloc, no stdio) and leaves through _exit() or execve(), never exit().
 */
#ifndef EMBPERF_OS_CHILD_H
#define EMBPERF_OS_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ep_run;

/**
 * struct ep_children - the children one run keeps alive between bodies.
 * @pids: their process ids, @n of them, room for @cap.
 * @n:    children started and not yet reaped.
 * @cap:  size of @pids.
 */
struct ep_children {
	pid_t *pids;
	int n;
	int cap;
};

/**
 * ep_children_init() - prepare an empty set.
 * @set: the set.
 * @cap: most children it will hold.
 *
 * Return: 0 or -ENOMEM.
 */
int ep_children_init(struct ep_children *set, int cap);

/**
 * ep_children_free() - kill and reap every child, then free the array.
 * @set: the set, or one never initialised (zeroed).
 */
void ep_children_free(struct ep_children *set);

/**
 * ep_child_fork() - fork a child that dies with the calling thread.
 * @set: set that records the child for ep_children_free(), or NULL when the
 *       caller waits for the child itself (ep_child_wait()).
 *
 * The child has PR_SET_PDEATHSIG set to SIGKILL, and exits at once if the
 * parent died before that took effect. Linux sends the signal when the
 * *thread* that forked ends, which is the thread running the benchmark.
 *
 * Return: 0 in the child; the child's pid in the parent; a negative errno
 * in the parent when fork() failed (-EAGAIN: a process limit, -ENOMEM).
 */
pid_t ep_child_fork(struct ep_children *set);

/**
 * ep_child_wait() - wait for a child to exit, within a timeout.
 * @run:        run whose cancel flag and budget are checked while waiting
 *              (every 100 ms), or NULL.
 * @pid:        the child.
 * @timeout_ns: longest wait; 0 for no limit.
 * @status:     receives waitpid()'s status; may be NULL.
 *
 * Waits through a pidfd (Linux 5.3 and later) with poll(); on an older
 * kernel it falls back to a blocking waitpid() without timeout. When the
 * wait ends early (cancel, budget, timeout, error) the child is killed and
 * reaped before returning.
 *
 * Return: 0 when the child exited and was reaped; -ECANCELED, -ETIME,
 * -ETIMEDOUT (the child outlived @timeout_ns) or another negative errno.
 */
int ep_child_wait(struct ep_run *run, pid_t pid, uint64_t timeout_ns, int *status);

/**
 * ep_child_keep_fds() - in a child: close every descriptor from 3 up but @keep.
 * @keep:   descriptors to keep open.
 * @n_keep: how many.
 *
 * Async-signal-safe. The child then holds no descriptor of the caller's
 * (sockets, pipes whose end-of-file the caller waits for).
 */
void ep_child_keep_fds(const int *keep, int n_keep);

/**
 * ep_child_refuse_nofork() - refuse a value that needs fork() on a system
 * without it (a noMMU kernel, or a C library without fork()).
 * @run:      run receiving the message.
 * @param:    parameter whose value needs the process ("mode", "op").
 * @value:    its value, as text.
 * @accepted: what the kernel accepts instead ("mode=threads"), or NULL
 *            when nothing else does the same work.
 *
 * Return: -ENOSYS, with a message naming @param, @value and @accepted.
 */
int ep_child_refuse_nofork(struct ep_run *run, const char *param, const char *value,
			   const char *accepted);

/**
 * ep_child_fork_error() - explain a failed fork() or pthread_create().
 * @run:     run receiving the message.
 * @err:     the negative errno.
 * @param:   parameter that asked for the processes ("procs").
 * @value:   its value, as text.
 * @started: processes or threads started before the failure.
 * @what:    "fork()" or "pthread_create()".
 *
 * The message names the parameter, the value, how many were started and,
 * for -EAGAIN, the RLIMIT_NPROC limit in force.
 *
 * Return: @err.
 */
int ep_child_fork_error(struct ep_run *run, int err, const char *param, const char *value,
			int started, const char *what);

/**
 * ep_fd_room() - check that @needed more descriptors fit under RLIMIT_NOFILE.
 * @run:    run receiving the message.
 * @param:  parameter that asked for them.
 * @value:  its value, as text.
 * @needed: descriptors the kernel will open.
 *
 * Return: 0, or -EMFILE with a message naming the parameter, the value,
 * the descriptors needed and open, and the limit.
 */
int ep_fd_room(struct ep_run *run, const char *param, const char *value, int needed);

/**
 * ep_child_describe_status() - "exited with status 3", "was killed by signal 9".
 * @status: a waitpid() status.
 * @buf:    destination.
 * @size:   size of @buf.
 */
void ep_child_describe_status(int status, char *buf, size_t size);

#endif /* EMBPERF_OS_CHILD_H */
