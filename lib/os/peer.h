/* SPDX-License-Identifier: MIT */
/*
 * peer.h - the far end of the IPC kernels (pipes, sockets, semaphores): a
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
 * The helper process:
 *   - is forked in setup, before the watchdog thread exists;
 *   - asks for SIGKILL when the thread that forked it exits
 *     (PR_SET_PDEATHSIG), and exits at once if its parent is already gone;
 *   - closes every descriptor but stdin/out/err and the ones it keeps;
 *   - runs only system calls (no allocation) and leaves with _exit();
 *   - is killed with SIGKILL and reaped by ep_peer_stop().
 */
#ifndef EMBPERF_OS_PEER_H
#define EMBPERF_OS_PEER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/kernel.h"

#define EP_PEER_MAX_KEEP 4 /* descriptors a helper process may keep */

/* The "timeout" parameter every kernel with a helper process has. */
#define EP_PEER_TIMEOUT_PARAM                                                              \
	{ "timeout", EP_PT_DURATION, "10s", 10000000LL, 3600000000000LL, 0, 0, NULL, "ns",  \
	  "longest wait for the helper process before the run fails with ETIMEDOUT" }

/**
 * struct ep_peer_cfg - what to run in the helper process.
 * @name:       what the messages call it, e.g. "pipe echo process".
 * @fn:         runs in the child; may loop forever; if it returns the child
 *              leaves with _exit(0). Only system calls, no allocation.
 * @arg:        passed to @fn.
 * @keep:       descriptors the child keeps open (others above 2 are closed).
 * @n_keep:     entries of @keep, at most EP_PEER_MAX_KEEP.
 * @timeout_ns: longest a body may wait without progress.
 * @unblock:    optional, called by the watchdog thread after it killed the
 *              child, for waits a dead child does not end (a semaphore, a
 *              UDP receive). Must be thread-safe with respect to the body.
 * @unblock_arg: passed to @unblock.
 */
struct ep_peer_cfg {
	const char *name;
	void (*fn)(void *arg);
	void *arg;
	int keep[EP_PEER_MAX_KEEP];
	int n_keep;
	uint64_t timeout_ns;
	void (*unblock)(void *arg);
	void *unblock_arg;
};

/**
 * struct ep_peer - a running helper process and its watchdog.
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
 */
struct ep_peer {
	struct ep_run *run;
	struct ep_peer_cfg cfg;
	pid_t pid;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int watching;
	int stopping;
	uint64_t beats;
	int waiting;
	int fired;
};

/**
 * ep_peer_start() - fork the helper process, then start its watchdog.
 * @run:  the run (setup's).
 * @peer: zero-initialised; stop it with ep_peer_stop() whatever this returns.
 * @cfg:  what the child runs; copied.
 *
 * Return: 0, or a negative errno with the run's message set (-EAGAIN when
 * the system refuses another process).
 */
int ep_peer_start(struct ep_run *run, struct ep_peer *peer, const struct ep_peer_cfg *cfg);

/**
 * ep_peer_stop() - stop the watchdog, kill the child with SIGKILL, reap it.
 * @peer: a peer given to ep_peer_start(), or zero-initialised; may be called
 *        again (it then does nothing).
 */
void ep_peer_stop(struct ep_peer *peer);

/**
 * ep_peer_failed() - the error a body returns when a call on the peer failed.
 * @peer: the peer.
 * @err:  negative errno of the failed call, 0 for an end of file.
 * @what: the call, e.g. "read from the pipe".
 *
 * When the watchdog killed the child because of a cancel or the budget,
 * gives ep_run_check()'s verdict (-ECANCELED, -ETIME); after its timeout,
 * -ETIMEDOUT naming the 'timeout' parameter; otherwise -EPIPE (the child
 * went away) or @err, with a message naming @what.
 *
 * Return: a negative errno.
 */
int ep_peer_failed(struct ep_peer *peer, int err, const char *what);

/* Mark the start and the end of a body, so that time spent outside bodies
 * (the engine, the caller's callbacks) never counts as a stalled wait. */
static inline void ep_peer_enter(struct ep_peer *peer)
{
	__atomic_store_n(&peer->waiting, 1, __ATOMIC_RELEASE);
}

static inline void ep_peer_leave(struct ep_peer *peer)
{
	__atomic_store_n(&peer->waiting, 0, __ATOMIC_RELEASE);
}

/* Record progress: a plain load and store (only this thread writes), no
 * locked instruction inside the timed loop. */
static inline void ep_peer_beat(struct ep_peer *peer)
{
	uint64_t b = __atomic_load_n(&peer->beats, __ATOMIC_RELAXED);

	__atomic_store_n(&peer->beats, b + 1, __ATOMIC_RELAXED);
}

/**
 * ep_peer_read_full() - read exactly @len bytes from a descriptor.
 * Return: 0, or a negative errno (0 bytes read: -EPIPE). EINTR is retried.
 */
int ep_peer_read_full(int fd, void *buf, size_t len);

/**
 * ep_peer_write_full() - write exactly @len bytes; sockets use MSG_NOSIGNAL
 * so a vanished peer gives EPIPE, never SIGPIPE.
 * Return: 0, or a negative errno. EINTR is retried.
 */
int ep_peer_write_full(int fd, const void *buf, size_t len, int is_socket);

/**
 * ep_peer_echo_loop() - a helper process body: read @size bytes from @in,
 * write them back to @out, until either fails.
 * @arg: a struct ep_peer_echo.
 */
void ep_peer_echo_loop(void *arg);

/** struct ep_peer_echo - arguments of ep_peer_echo_loop(). */
struct ep_peer_echo {
	int in;
	int out;
	char *buf;
	size_t size;
};

/**
 * ep_peer_round_trips() - the body of the latency kernels: @units times,
 * write @size bytes to @out and read @size bytes back from @in.
 * @peer:      the helper process that echoes them.
 * @out:       descriptor written.
 * @in:        descriptor read.
 * @is_socket: @out is a socket (written with MSG_NOSIGNAL).
 * @buf:       @size bytes.
 * @size:      message size.
 * @units:     round trips.
 *
 * Return: 0, or the error of ep_peer_failed().
 */
int ep_peer_round_trips(struct ep_peer *peer, int out, int in, int is_socket, char *buf,
			size_t size, uint64_t units);

/**
 * ep_peer_receive() - the body of the bandwidth kernels: read @total bytes
 * from @in in reads of at most @chunk bytes, as the peer sends them.
 * Return: 0, or the error of ep_peer_failed().
 */
int ep_peer_receive(struct ep_peer *peer, int in, char *buf, size_t chunk, uint64_t total);

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

#endif /* EMBPERF_OS_PEER_H */
