// SPDX-License-Identifier: MIT
/*
 * partner.c - the helper process of the IPC kernels and its watchdog (see
 * partner.h), plus the full-length read and write every IPC body uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/child.h"
#include "lib/os/partner.h"

#define PARTNER_TICK_NS 50000000ULL   /* how often the watchdog looks: 50 ms */
#define PARTNER_GRACE_NS 200000000ULL /* a stalled wait after a cancel or the budget's end */
#define PARTNER_NS_PER_S 1000000000ULL
#define PARTNER_LEAVE_NS 2000000000ULL /* a thread's time to leave its loop once woken */
#define PARTNER_LABEL_MAX 48 /* "size=16M mode=threads" */

int ep_partner_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == 0) {
			return -EPIPE;
		} else if (errno != EINTR) {
			return -errno;
		}
	}
	return 0;
}

int ep_partner_write_full(int fd, const void *buf, size_t len, int is_socket)
{
	const char *p = buf;

	while (len) {
		ssize_t n = is_socket ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);

		if (n >= 0) {
			p += n;
			len -= (size_t)n;
		} else if (errno != EINTR) {
			return -errno;
		}
	}
	return 0;
}

void ep_partner_echo_loop(void *arg)
{
	const struct ep_partner_echo *e = arg;

	while (!ep_partner_read_full(e->in, e->buf, e->size) &&
	       !ep_partner_write_full(e->out, e->buf, e->size, 0))
		;
}

const char *ep_partner_mode_label(const struct ep_run *run)
{
	return ep_param_int(run, "mode") == EP_PARTNER_THREADS ? "mode=threads" : "";
}

/* @c labelled @label followed by the mode's label. */
static int add_with_mode(struct ep_run *run, const struct ep_case *c, const char *label)
{
	const char *mode = ep_partner_mode_label(run);
	struct ep_case labelled = *c;
	char both[PARTNER_LABEL_MAX];

	snprintf(both, sizeof(both), "%s%s%s", label, *label && *mode ? " " : "", mode);
	labelled.labels = both;
	return ep_run_add_case(run, &labelled);
}

int ep_partner_add_size_case(struct ep_run *run, const struct ep_case *c)
{
	char label[PARTNER_LABEL_MAX];

	snprintf(label, sizeof(label), "size=%s", ep_param_text(run, "size"));
	return add_with_mode(run, c, label);
}

int ep_partner_size_nomem(struct ep_run *run, size_t size_bytes)
{
	return ep_run_fail(run, -ENOMEM, "parameter 'size': %zu bytes: out of memory", size_bytes);
}

void ep_partner_msg_init(const struct ep_run *run, struct ep_partner_msg *msg)
{
	msg->client = msg->server = -1;
	msg->size = (size_t)ep_param_int(run, "size");
}

void ep_partner_msg_close(struct ep_partner_msg *msg)
{
	ep_partner_stop(&msg->partner);
	ep_ipc_close(&msg->client);
	ep_ipc_close(&msg->server);
	free(msg->buf);
}

/* In the child: die with the parent, keep only what the loop needs, run it. */
static void __attribute__((noreturn)) partner_child(const struct ep_partner_cfg *cfg)
{
	ep_child_keep_fds(cfg->keep, cfg->n_keep);
	cfg->fn(cfg->arg);
	_exit(0);
}

/* Why the watchdog must act now, or 0 when the body may keep waiting. */
static int stall_verdict(const struct ep_partner *partner, uint64_t stalled_ns)
{
	embperf_ctx *ctx = ep_run_ctx(partner->run);

	if (stalled_ns >= partner->cfg.timeout_ns)
		return -ETIMEDOUT;
	if (stalled_ns < PARTNER_GRACE_NS)
		return 0;
	if (embperf_ctx_is_cancelled(ctx))
		return -ECANCELED;
	if (embperf_ctx_remaining_ns(ctx) == 0)
		return -ETIME;
	return 0;
}

/*
 * Point each of @fds at /dev/null. That drops the pipe or socket end the
 * number held, as closing it would (a reader of the far end sees an end of
 * file, a writer EPIPE), but keeps the number open for the teardown that
 * closes it: closing it here could let another thread's open() take it.
 */
static void drop_fds(const int *fds, int n)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int i = 0; null_fd >= 0 && i < n; i++)
		if (fds[i] >= 0)
			dup3(null_fd, fds[i], O_CLOEXEC);
	if (null_fd >= 0)
		close(null_fd);
}

/* Wait up to PARTNER_LEAVE_NS for the thread to end by itself. Return: 1 if it did. */
static int joined_in_time(struct ep_partner *partner)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts); /* pthread_timedjoin_np()'s clock */
	ts.tv_sec += (time_t)(PARTNER_LEAVE_NS / PARTNER_NS_PER_S);
	ts.tv_nsec += (long)(PARTNER_LEAVE_NS % PARTNER_NS_PER_S);
	if (ts.tv_nsec >= (long)PARTNER_NS_PER_S) {
		ts.tv_sec++;
		ts.tv_nsec -= (long)PARTNER_NS_PER_S;
	}
	return pthread_timedjoin_np(partner->helper, NULL, &ts) == 0;
}

/*
 * Threads mode: make the helper thread's loop end by itself, as a process's
 * death would end the caller's waits: its sockets are shut down (a read
 * sees an end of file, accept() and recvfrom() return), the caller's pipe
 * ends it waits on are dropped (cfg.wake), and the kernel's unblock action
 * ends a semaphore wait. The thread is not cancelled unless that fails
 * within PARTNER_LEAVE_NS: a cancel that lands as accept() returns leaks
 * the connection (glibc before 2.41), and AddressSanitizer mistakes the
 * stack of a cancelled thread for an overflow.
 */
static void end_helper(struct ep_partner *partner)
{
	if (!partner->helper_running)
		return;
	for (int i = 0; i < partner->n_owned; i++)
		shutdown(partner->owned[i], SHUT_RDWR); /* ENOTSOCK for a pipe: harmless */
	drop_fds(partner->cfg.wake, partner->cfg.n_wake);
	if (partner->cfg.unblock)
		partner->cfg.unblock(partner->cfg.unblock_arg);
	if (!joined_in_time(partner)) {
		/* The last resort: the loop waits only in cancellation points. */
		pthread_cancel(partner->helper);
		pthread_join(partner->helper, NULL);
	}
	partner->helper_running = 0;
}

/* Kill the child (its death ends reads and writes on pipes and sockets),
 * then let the kernel end waits a death does not end. */
static void fire(struct ep_partner *partner, int why)
{
	__atomic_store_n(&partner->fired, why, __ATOMIC_RELEASE);
	if (partner->cfg.threads) {
		/* The body waits on the thread's ends: dropping them frees it first. */
		drop_fds(partner->owned, partner->n_owned);
		end_helper(partner);
		return;
	}
	kill(partner->pid, SIGKILL); /* not reaped before the watchdog is joined */
	if (partner->cfg.unblock)
		partner->cfg.unblock(partner->cfg.unblock_arg);
}

static void tick_deadline(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += (long)PARTNER_TICK_NS;
	if (ts->tv_nsec >= (long)PARTNER_NS_PER_S) {
		ts->tv_sec++;
		ts->tv_nsec -= (long)PARTNER_NS_PER_S;
	}
}

/* Sleep one tick; return 1 when asked to leave. */
static int watchdog_sleep(struct ep_partner *partner)
{
	struct timespec ts;
	int stop;

	tick_deadline(&ts);
	pthread_mutex_lock(&partner->lock);
	while (!partner->stopping &&
	       pthread_cond_timedwait(&partner->wake, &partner->lock, &ts) == 0)
		;
	stop = partner->stopping;
	pthread_mutex_unlock(&partner->lock);
	return stop;
}

static void *watchdog_main(void *arg)
{
	struct ep_partner *partner = arg;
	uint64_t last_beats = 0, since_ns = ep_now_ns();

	while (!watchdog_sleep(partner)) {
		uint64_t beats = __atomic_load_n(&partner->beats, __ATOMIC_RELAXED);
		uint64_t now = ep_now_ns();
		int why;

		if (!__atomic_load_n(&partner->waiting, __ATOMIC_ACQUIRE) || beats != last_beats) {
			last_beats = beats;
			since_ns = now;
			continue;
		}
		why = stall_verdict(partner, now - since_ns);
		if (why) {
			fire(partner, why);
			break;
		}
	}
	return NULL;
}

static int start_watchdog(struct ep_partner *partner)
{
	pthread_condattr_t attr;
	int err;

	if (pthread_condattr_init(&attr))
		return -ENOMEM;
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	err = pthread_cond_init(&partner->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (err)
		return -err;
	err = pthread_mutex_init(&partner->lock, NULL);
	if (err) {
		pthread_cond_destroy(&partner->wake);
		return -err;
	}
	err = pthread_create(&partner->thread, NULL, watchdog_main, partner);
	if (err) {
		pthread_mutex_destroy(&partner->lock);
		pthread_cond_destroy(&partner->wake);
		return -err;
	}
	partner->watching = 1;
	return 0;
}

/* The helper thread: the loop, cancelled where it waits. */
static void *helper_main(void *arg)
{
	const struct ep_partner_cfg *cfg = arg;
	sigset_t pipe_signal;

	/*
	 * A write to a dropped pipe or socket must give EPIPE, not a SIGPIPE
	 * that would end the caller's process: blocked in this thread only
	 * (a pending one is discarded when the thread ends).
	 */
	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
	cfg->fn(cfg->arg);
	return NULL;
}

/* Copy @name, with a final " process" made " thread" in threads mode. */
static void set_name(struct ep_partner *partner, const char *name)
{
	static const char process[] = " process";
	size_t len = strlen(name), plen = sizeof(process) - 1;

	if (partner->cfg.threads && len >= plen && !strcmp(name + len - plen, process) &&
	    len - plen < sizeof(partner->name) - sizeof(" thread"))
		snprintf(partner->name, sizeof(partner->name), "%.*s thread", (int)(len - plen),
			 name);
	else
		snprintf(partner->name, sizeof(partner->name), "%s", name);
}

static int start_helper(struct ep_run *run, struct ep_partner *partner)
{
	int err;

	if (!partner->cfg.threads) {
		pid_t pid = ep_child_fork(NULL);

		if (pid == -ENOSYS && partner->cfg.no_threads)
			return ep_run_fail(run, -ENOSYS,
					   "the %s needs fork(), which this system does not have (a "
					   "noMMU kernel, or a C library without it), and cannot be a "
					   "thread here", partner->name);
		if (pid == -ENOSYS)
			return ep_child_refuse_nofork(run, "mode", "process", "mode=threads");
		if (pid < 0)
			return ep_run_fail(run, (int)pid,
					   "cannot start the %s: fork() failed: %s (RLIMIT_NPROC or memory)",
					   partner->name, strerror((int)-pid));
		if (pid == 0)
			partner_child(&partner->cfg);
		partner->pid = pid;
		return 0;
	}
	err = pthread_create(&partner->helper, NULL, helper_main, &partner->cfg);
	if (err)
		return ep_run_fail(run, -err, "cannot start the %s: pthread_create() failed: %s",
				   partner->name, strerror(err));
	/* Named, so that ps -L (and the tests) tell it from the caller's threads. */
	pthread_setname_np(partner->helper, EP_PARTNER_THREAD_NAME);
	partner->helper_running = 1;
	return 0;
}

int ep_partner_start(struct ep_run *run, struct ep_partner *partner,
		     const struct ep_partner_cfg *cfg)
{
	int err;

	partner->run = run;
	partner->cfg = *cfg;
	set_name(partner, cfg->name);
	err = start_helper(run, partner);
	if (err)
		return err;
	err = start_watchdog(partner);
	if (err)
		return ep_run_fail(run, err, "cannot start the watchdog thread of the %s: %s",
				   partner->name, strerror(-err));
	return 0;
}

struct ep_partner_cfg ep_partner_cfg_of(const struct ep_run *run, const char *name,
					void (*fn)(void *arg), void *arg)
{
	return (struct ep_partner_cfg){
		.name = name,
		.fn = fn,
		.arg = arg,
		.timeout_ns = (uint64_t)ep_param_int(run, "timeout"),
		.threads = ep_param_int(run, "mode") == EP_PARTNER_THREADS,
	};
}

int ep_partner_start_on(struct ep_run *run, struct ep_partner *partner,
			struct ep_partner_cfg *cfg, int *fd)
{
	int rc;

	cfg->keep[cfg->n_keep++] = *fd;
	rc = ep_partner_start(run, partner, cfg);
	if (!rc)
		ep_partner_release(partner, fd);
	return rc;
}

int ep_partner_add_labelled_case(struct ep_run *run, int rc, const char *label, ep_body_fn body,
				 void *arg)
{
	struct ep_case c = { .metric = 0, .body = body, .arg = arg };

	return rc ? rc : add_with_mode(run, &c, label);
}

int ep_partner_add_case(struct ep_run *run, int rc, ep_body_fn body, void *arg)
{
	return ep_partner_add_labelled_case(run, rc, "", body, arg);
}

void ep_partner_release(struct ep_partner *partner, int *fd)
{
	if (*fd < 0)
		return;
	if (!partner->cfg.threads) {
		close(*fd);
		*fd = -1;
	} else if (partner->n_owned < EP_PARTNER_MAX_KEEP) {
		partner->owned[partner->n_owned++] = *fd;
	}
}

static void stop_watchdog(struct ep_partner *partner)
{
	if (!partner->watching)
		return;
	pthread_mutex_lock(&partner->lock);
	partner->stopping = 1;
	pthread_cond_signal(&partner->wake);
	pthread_mutex_unlock(&partner->lock);
	pthread_join(partner->thread, NULL);
	pthread_mutex_destroy(&partner->lock);
	pthread_cond_destroy(&partner->wake);
	partner->watching = 0;
}

void ep_partner_stop(struct ep_partner *partner)
{
	stop_watchdog(partner);
	end_helper(partner);
	if (partner->pid > 0) {
		kill(partner->pid, SIGKILL);
		while (waitpid(partner->pid, NULL, 0) < 0 && errno == EINTR)
			;
		partner->pid = 0;
	}
}

int ep_partner_failed(struct ep_partner *partner, int err, const char *what)
{
	int why = __atomic_load_n(&partner->fired, __ATOMIC_ACQUIRE);
	char timeout[32];

	if (why == -ECANCELED || why == -ETIME) {
		int rc = ep_run_check(partner->run);

		return rc ? rc : why;
	}
	if (why == -ETIMEDOUT) {
		ep_format_duration((int64_t)partner->cfg.timeout_ns, timeout, sizeof(timeout));
		return ep_run_fail(partner->run, -ETIMEDOUT,
				   "%s: the %s did not answer within parameter 'timeout' (%s) and "
				   "was %s; a larger 'timeout' suits a slower system",
				   what, partner->name, timeout,
				   partner->cfg.threads ? "cancelled" : "killed");
	}
	if (err == -EPIPE || err == -ECONNRESET || err == -ECONNREFUSED || err == 0) {
		if (partner->cfg.threads)
			return ep_run_fail(partner->run, -EPIPE, "%s: the %s went away", what,
					   partner->name);
		return ep_run_fail(partner->run, -EPIPE, "%s: the %s (pid %d) went away",
				   what, partner->name, (int)partner->pid);
	}
	return ep_run_fail(partner->run, err, "%s: %s", what, strerror(-err));
}

int ep_partner_round_trips(struct ep_partner *partner, int out, int in, int is_socket, char *buf,
			   size_t size, uint64_t units)
{
	int err = 0;

	ep_partner_enter(partner);
	while (units-- && !err) {
		err = ep_partner_write_full(out, buf, size, is_socket);
		if (!err)
			err = ep_partner_read_full(in, buf, size);
		ep_partner_beat(partner);
	}
	ep_partner_leave(partner);
	return err ? ep_partner_failed(partner, err, "round trip") : 0;
}

int ep_partner_receive(struct ep_partner *partner, int in, char *buf, size_t chunk, uint64_t total)
{
	int err = 0;

	ep_partner_enter(partner);
	while (total && !err) {
		ssize_t n = read(in, buf, total < chunk ? (size_t)total : chunk);

		if (n > 0)
			total -= (uint64_t)n;
		else if (n == 0)
			err = -EPIPE;
		else if (errno != EINTR)
			err = -errno;
		ep_partner_beat(partner);
	}
	ep_partner_leave(partner);
	return err ? ep_partner_failed(partner, err, "receive") : 0;
}

void ep_ipc_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static struct sockaddr_in loopback_addr(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	return a;
}

int ep_ipc_listen(struct ep_run *run, int *fd, int *port, int backlog)
{
	struct sockaddr_in a = loopback_addr(0);
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err;

	if (s < 0)
		return ep_run_fail(run, -errno, "cannot make a TCP socket: %s", strerror(errno));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, backlog) ||
	    getsockname(s, (struct sockaddr *)&a, &len)) {
		err = -errno;
		close(s);
		return ep_run_fail(run, err, "cannot listen on 127.0.0.1: %s", strerror(-err));
	}
	*fd = s;
	*port = ntohs(a.sin_port);
	return 0;
}

int ep_ipc_connect_loopback(int port)
{
	struct sockaddr_in a = loopback_addr(port);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err;

	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		close(s);
		return err;
	}
	return s;
}

int ep_ipc_tcp_pair(struct ep_run *run, int *client, int *server)
{
	int listener = -1, port = 0, c, s, err;

	err = ep_ipc_listen(run, &listener, &port, 1);
	if (err)
		return err;
	/* On loopback the handshake completes inside connect(), so one
	 * process can connect and then accept without waiting. */
	c = ep_ipc_connect_loopback(port);
	if (c < 0) {
		close(listener);
		return ep_run_fail(run, c, "cannot connect to 127.0.0.1:%d: %s", port,
				   strerror(-c));
	}
	s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	err = s < 0 ? -errno : 0;
	close(listener);
	if (err) {
		close(c);
		return ep_run_fail(run, err, "cannot accept on 127.0.0.1:%d: %s", port,
				   strerror(-err));
	}
	*client = c;
	*server = s;
	return 0;
}
