/* SPDX-License-Identifier: MIT */
/*
 * partner.h - the far end of the IPC kernels (pipes, sockets, semaphores): a
 * forked helper process that dies with its parent, and a watchdog thread
 * that keeps a body waiting on that process from hanging.
 *
 * The bodies make exactly the system calls lmbench makes (a blocking write
 * and a blocking read per round trip): a poll() or a receive timeout per
 * round trip would add 5 to 10 % to a pipe latency. Instead a thread looks
 * at a progress counter the body bumps with a plain store: when a wait has
 * made no progress for 'timeout', or for a short grace period after a
 * cancel or the end of the budget, it kills the helper process (and calls
 * the kernel's own unblock action, e.g. removing a semaphore set), so the
 * blocked call returns and the body reports why.
 *
 * With mode=threads (systems without fork(): noMMU kernels, some firmware
 * C libraries) the helper is a thread of the caller instead: the same
 * function on the same descriptors. The kernel hands the descriptors it
 * would close after a fork to the partner (ep_partner_release()). On a
 * stall the watchdog points those descriptor numbers at /dev/null (dup3()),
 * which drops the pipe or socket end and so ends the body's wait as a dead
 * process would; the kernel's teardown still closes the numbers. The
 * thread's own loop is ended by shutting its sockets down, dropping the
 * caller's pipe ends it waits on (cfg.wake) and the unblock action; a
 * cancel is only the last resort.
 *
 * The helper process:
 *   - is forked in setup, before the watchdog thread exists;
 *   - asks for SIGKILL when the thread that forked it exits
 *     (PR_SET_PDEATHSIG), and exits at once if its parent is already gone;
 *   - closes every descriptor but stdin/out/err and the ones it keeps;
 *   - runs only system calls (no allocation) and leaves with _exit();
 *   - is killed with SIGKILL and reaped by ep_partner_stop().
 */
#ifndef EMBPERF_OS_PARTNER_H
#define EMBPERF_OS_PARTNER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/run.h"

#define EP_PARTNER_MAX_KEEP 4 /* descriptors a helper process may keep */

/* The "timeout" parameter every kernel with a helper process has. */
#define EP_PARTNER_TIMEOUT_PARAM                                                           \
	{ "timeout", EP_PT_DURATION, "10s", { { 10000000LL, 3600000000000LL } }, NULL, "ns",  \
	  "longest wait for the helper process before the run fails with ETIMEDOUT" }

/* The "mode" parameter: the partner is a forked process (lmbench's way, the
 * default) or a thread of the caller, for systems without fork(). */
#define EP_PARTNER_MODE_PARAM                                                              \
	{ "mode", EP_PT_ENUM, "process", { { 0, 0 } }, "process|threads", "",                 \
	  "the partner is a forked process (needs fork(), as lmbench) or a thread of the "  \
	  "caller (systems without fork(): noMMU)" }

/* The name of a partner thread (mode=threads), as /proc/PID/task/TID/comm shows it. */
#define EP_PARTNER_THREAD_NAME "ep-partner"

/* Values of EP_PARTNER_MODE_PARAM, in its order. */
enum ep_partner_mode { EP_PARTNER_PROCESS = 0, EP_PARTNER_THREADS = 1 };

/**
 * ep_partner_mode_label() - the label a result of @run adds for its mode:
 * "mode=threads", or "" for the default process mode, so that the rows of
 * lmbench's mode keep their names.
 */
const char *ep_partner_mode_label(const struct ep_run *run);

/**
 * ep_partner_add_size_case() - add @c labelled "size=<the size parameter
 * as given>", then a space and ep_partner_mode_label() when that is not
 * empty: the case of the kernels whose only case is a message size.
 * @run: the run (setup's).
 * @c:   the case; copied, with that label whatever its own.
 *
 * Return: what ep_run_add_case() returns.
 */
int ep_partner_add_size_case(struct ep_run *run, const struct ep_case *c);

/**
 * ep_partner_size_nomem() - fail @run for a buffer of the 'size' parameter
 * that could not be allocated.
 * @run:        the run.
 * @size_bytes: the size asked for.
 *
 * Return: -ENOMEM, with "parameter 'size': N bytes: out of memory".
 */
int ep_partner_size_nomem(struct ep_run *run, size_t size_bytes);

/**
 * struct ep_partner_cfg - what to run in the helper process.
 * @name:       what the messages call it, e.g. "pipe echo process".
 * @fn:         runs in the child; may loop forever; if it returns the child
 *              leaves with _exit(0). Only system calls, no allocation.
 * @arg:        passed to @fn.
 * @keep:       descriptors the child keeps open (others above 2 are closed).
 * @n_keep:     entries of @keep, at most EP_PARTNER_MAX_KEEP.
 * @timeout_ns: longest a body may wait without progress.
 * @unblock:    optional, called by the watchdog thread after it killed the
 *              child, for waits a dead child does not end (a semaphore, a
 *              UDP receive). Must be thread-safe with respect to the body.
 * @unblock_arg: passed to @unblock.
 * @threads:    run @fn in a thread of the caller, not in a forked process
 *              (enum ep_partner_mode; ep_param_int(run, "mode")).
 * @wake:       threads mode: the caller's pipe ends whose far ends @fn waits
 *              on (it reads what the caller writes there, or writes what
 *              the caller reads); dropped at the end so that @fn's loop
 *              ends (sockets need none: they are shut down).
 * @n_wake:     entries of @wake.
 * @no_threads: the kernel has no threads mode (no 'mode' parameter): on a
 *              system without fork() its refusal names none.
 */
struct ep_partner_cfg {
	const char *name;
	void (*fn)(void *arg);
	void *arg;
	int keep[EP_PARTNER_MAX_KEEP];
	int n_keep;
	uint64_t timeout_ns;
	void (*unblock)(void *arg);
	void *unblock_arg;
	int threads;
	int wake[EP_PARTNER_MAX_KEEP];
	int n_wake;
	int no_threads;
};

/**
 * struct ep_partner - a running helper process and its watchdog.
 * @run:      the run it belongs to (for messages and ep_run_check()).
 * @cfg:      copy of the configuration.
 * @pid:      the child, 0 when none.
 * @thread:   the watchdog.
 * @lock:     protects @stopping.
 * @wake:     signalled to stop the watchdog.
 * @watching: the watchdog thread was started.
 * @stopping: the watchdog must leave.
 * @beats:    progress counter, written only by the body's thread.
 * @waiting:  1 while a body runs (only then can it be stalled).
 * @fired:    0, or why the watchdog killed the child: -ECANCELED, -ETIME,
 *            -ETIMEDOUT.
 * @helper:   the partner thread (threads mode).
 * @helper_running: @helper was started and not yet joined.
 * @owned:    descriptors handed over with ep_partner_release() (threads
 *            mode): shut down at the end, dropped on a stall.
 * @n_owned:  entries of @owned.
 * @name:     @cfg.name, with "process" made "thread" in threads mode.
 */
struct ep_partner {
	struct ep_run *run;
	struct ep_partner_cfg cfg;
	pid_t pid;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int watching;
	int stopping;
	uint64_t beats;
	int waiting;
	int fired;
	pthread_t helper;
	int helper_running;
	int owned[EP_PARTNER_MAX_KEEP];
	int n_owned;
	char name[64];
};

/**
 * struct ep_partner_msg - what the kernels of one message round trip over
 * a socket with a partner (os.tcp.lat, os.udp.lat) share.
 * @partner: the partner process (or thread).
 * @client:  this process's socket.
 * @server:  the partner's socket (closed here once the partner has it).
 * @buf:     the message, this process's.
 * @size:    the message's size in bytes, the parameter 'size'.
 */
struct ep_partner_msg {
	struct ep_partner partner;
	int client;
	int server;
	char *buf;
	size_t size;
};

/**
 * ep_partner_msg_init() - both sockets -1 (none yet), the size from the
 * parameter 'size'.
 * @run: the run (setup's).
 * @msg: zero-initialised.
 */
void ep_partner_msg_init(const struct ep_run *run, struct ep_partner_msg *msg);

/**
 * ep_partner_msg_close() - stop the partner, close both sockets, free the
 * message buffer: the shared part of a teardown.
 * @msg: the shared state, as far as setup got.
 */
void ep_partner_msg_close(struct ep_partner_msg *msg);

/**
 * ep_partner_start() - fork the helper process (or start the helper thread),
 * then start its watchdog.
 * @run:     the run (setup's).
 * @partner: zero-initialised; stop it with ep_partner_stop() whatever this
 *           returns.
 * @cfg:     what the child runs; copied.
 *
 * Return: 0, or a negative errno with the run's message set (-EAGAIN when
 * the system refuses another process; -ENOSYS when it has no fork(): the
 * message says the kernel needs fork() and offers mode=threads).
 */
int ep_partner_start(struct ep_run *run, struct ep_partner *partner,
		     const struct ep_partner_cfg *cfg);

/**
 * ep_partner_cfg_of() - a configuration for a partner called @name that runs
 * @fn(@arg), with the run's "timeout" and "mode" parameters; no descriptor kept.
 */
struct ep_partner_cfg ep_partner_cfg_of(const struct ep_run *run, const char *name,
					void (*fn)(void *arg), void *arg);

/**
 * ep_partner_start_on() - ep_partner_start() with @fd added to @cfg's kept
 * descriptors, then ep_partner_release() of @fd: the partner's death (or
 * end) then reads here as an end of file.
 */
int ep_partner_start_on(struct ep_run *run, struct ep_partner *partner,
			struct ep_partner_cfg *cfg, int *fd);

/**
 * ep_partner_add_case() - add the case of metric 0 timed by @body(@arg),
 * labelled ep_partner_mode_label(), unless @rc says setup failed; returns
 * @rc or what adding the case returns.
 */
int ep_partner_add_case(struct ep_run *run, int rc, ep_body_fn body, void *arg);

/**
 * ep_partner_add_labelled_case() - ep_partner_add_case() with @label ahead
 * of the mode's label ("backlog=100 mode=threads"); @label may be empty.
 */
int ep_partner_add_labelled_case(struct ep_run *run, int rc, const char *label, ep_body_fn body,
				 void *arg);

/**
 * ep_partner_release() - give up the caller's use of a descriptor the
 * partner keeps.
 * @partner: a started partner.
 * @fd:      one of the cfg.keep descriptors.
 *
 * After a fork the caller closes the child's ends, so that the child's death
 * reads as an end of file: in process mode this closes *@fd and sets it to
 * -1. In threads mode the thread still uses the descriptor (its arguments
 * may read the number from the caller's state): *@fd stays as it is, for
 * the kernel's teardown to close after ep_partner_stop(), and the watchdog
 * may drop it when it gives up on the thread.
 */
void ep_partner_release(struct ep_partner *partner, int *fd);

/**
 * ep_partner_stop() - stop the watchdog, kill the child with SIGKILL, reap it.
 * @partner: a partner given to ep_partner_start(), or zero-initialised; may
 *           be called again (it then does nothing).
 *
 * In threads mode: end the thread's loop (see above) and join it.
 */
void ep_partner_stop(struct ep_partner *partner);

/**
 * ep_partner_failed() - the error a body returns when a call on the partner failed.
 * @partner: the partner.
 * @err:     negative errno of the failed call, 0 for an end of file.
 * @what:    the call, e.g. "read from the pipe".
 *
 * When the watchdog killed the child because of a cancel or the budget,
 * gives ep_run_check()'s verdict (-ECANCELED, -ETIME); after its timeout,
 * -ETIMEDOUT naming the 'timeout' parameter; otherwise -EPIPE (the child
 * went away) or @err, with a message naming @what.
 *
 * Return: a negative errno.
 */
int ep_partner_failed(struct ep_partner *partner, int err, const char *what);

/* Mark the start and the end of a body, so that time spent outside bodies
 * (the engine, the caller's callbacks) never counts as a stalled wait. */
static inline void ep_partner_enter(struct ep_partner *partner)
{
	__atomic_store_n(&partner->waiting, 1, __ATOMIC_RELEASE);
}

static inline void ep_partner_leave(struct ep_partner *partner)
{
	__atomic_store_n(&partner->waiting, 0, __ATOMIC_RELEASE);
}

/* Record progress: a plain load and store (only this thread writes), no
 * locked instruction inside the timed loop. */
static inline void ep_partner_beat(struct ep_partner *partner)
{
	uint64_t b = __atomic_load_n(&partner->beats, __ATOMIC_RELAXED);

	__atomic_store_n(&partner->beats, b + 1, __ATOMIC_RELAXED);
}

/**
 * ep_partner_read_full() - read exactly @len bytes from a descriptor.
 * Return: 0, or a negative errno (0 bytes read: -EPIPE). EINTR is retried.
 */
int ep_partner_read_full(int fd, void *buf, size_t len);

/**
 * ep_partner_write_full() - write exactly @len bytes; sockets use MSG_NOSIGNAL
 * so a vanished partner gives EPIPE, never SIGPIPE.
 * Return: 0, or a negative errno. EINTR is retried.
 */
int ep_partner_write_full(int fd, const void *buf, size_t len, int is_socket);

/**
 * ep_partner_echo_loop() - a helper process body: read @size bytes from @in,
 * write them back to @out, until either fails.
 * @arg: a struct ep_partner_echo.
 */
void ep_partner_echo_loop(void *arg);

/** struct ep_partner_echo - arguments of ep_partner_echo_loop(). */
struct ep_partner_echo {
	int in;
	int out;
	char *buf;
	size_t size;
};

/**
 * ep_partner_round_trips() - the body of the latency kernels: @units times,
 * write @size bytes to @out and read @size bytes back from @in.
 * @partner:   the helper process that echoes them.
 * @out:       descriptor written.
 * @in:        descriptor read.
 * @is_socket: @out is a socket (written with MSG_NOSIGNAL).
 * @buf:       @size bytes.
 * @size:      message size.
 * @units:     round trips.
 *
 * Return: 0, or the error of ep_partner_failed().
 */
int ep_partner_round_trips(struct ep_partner *partner, int out, int in, int is_socket, char *buf,
			   size_t size, uint64_t units);

/**
 * ep_partner_receive() - the body of the bandwidth kernels: read @total bytes
 * from @in in reads of at most @chunk bytes, as the partner sends them.
 * Return: 0, or the error of ep_partner_failed().
 */
int ep_partner_receive(struct ep_partner *partner, int in, char *buf, size_t chunk, uint64_t total);

/**
 * ep_ipc_listen() - a TCP socket listening on 127.0.0.1 at a port the
 * kernel picks (loopback only, never another address).
 * @run:     receives the message on failure.
 * @fd:      receives the socket.
 * @port:    receives the port, in host order.
 * @backlog: listen() backlog.
 *
 * Return: 0, or a negative errno.
 */
int ep_ipc_listen(struct ep_run *run, int *fd, int *port, int backlog);

/**
 * ep_ipc_connect_loopback() - a TCP socket connected to 127.0.0.1:@port.
 * Return: the socket, or a negative errno (no message set).
 */
int ep_ipc_connect_loopback(int port);

/**
 * ep_ipc_tcp_pair() - both ends of one TCP connection over loopback, made
 * in this process (listen, connect, accept; the listener is closed).
 * @run:    receives the message on failure.
 * @client: receives the connecting end.
 * @server: receives the accepted end.
 *
 * Return: 0, or a negative errno.
 */
int ep_ipc_tcp_pair(struct ep_run *run, int *client, int *server);

/** ep_ipc_close() - close *@fd if open and set it to -1. */
void ep_ipc_close(int *fd);

#endif /* EMBPERF_OS_PARTNER_H */
