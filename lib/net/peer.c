// SPDX-License-Identifier: MIT
/*
 * peer.c - the embperf peer: the server the network kernels talk to
 * (embperf_server_* in embperf.h; doc/methodology-net.md, "The peer").
 *
 * One thread, the caller's, runs the control loop in embperf_server_run():
 * it accepts connections, reads framed messages without blocking, answers
 * them, and keeps every connection on a deadline (hello within
 * HELLO_TIMEOUT_NS, or the idle limit when shorter, then the idle limit).
 * One client at a time holds the peer (a session, from its hello to its
 * bye or disconnect); another gets error "busy" and is closed. A trial's
 * data runs in a worker thread (peer_trial.c) and goes only to, or is
 * counted only from, the address of the client that asked on the control
 * connection.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "config.h"
#include "lib/core/ctx.h"
#include "lib/core/clock.h"
#include "lib/core/kernel.h"
#include "embperf.h"
#include "lib/core/params.h"
#include "peer.h"
#include "proto.h"

#define MAX_CONNS 8
#define MAX_ALLOW 32
#define HELLO_TIMEOUT_NS (UINT64_C(5) * 1000000000)
#define DEFAULT_IDLE_NS (UINT64_C(60) * 1000000000)
#define SEND_TIMEOUT_NS (UINT64_C(2) * 1000000000)
#define POLL_SLICE_MS 100

enum conn_state { CONN_FREE, CONN_NEW, CONN_SESSION };

struct conn {
	enum conn_state state;
	int fd;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	struct sockaddr_storage local;
	socklen_t local_len;
	uint64_t deadline_ns;
	struct ep_frame_reader rd;
};

struct embperf_server {
	embperf_ctx *ctx;
	char listen_spec[160];
	struct ep_cidr allow[MAX_ALLOW];
	int n_allow;
	double max_rate_bps;
	uint64_t max_duration_ns;
	uint32_t max_size_bytes;
	uint64_t idle_ns;
	int lfd;
	int wake_fd; /* ep_server_wake(): ends a poll at once (-1: none) */
	uint16_t port;
	struct conn conns[MAX_CONNS];
	int session;  /* index of the connection holding the peer, or -1 */
	int trial_on; /* the session's trial is running */
	struct ep_peer_trial trial;
	uint64_t stats[EMBPERF_SERVER_STAT_COUNT];
	char errmsg[256];
};

__attribute__((format(printf, 2, 3))) static void set_err(embperf_server *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
}

embperf_server *embperf_server_new(embperf_ctx *ctx)
{
	embperf_server *s;

	if (!ctx) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->ctx = ctx;
	snprintf(s->listen_spec, sizeof(s->listen_spec), "0.0.0.0:%d", EP_PEER_DEFAULT_PORT);
	s->max_rate_bps = EP_PEER_MAX_RATE_BPS;
	s->max_duration_ns = EP_PEER_MAX_DURATION_NS;
	s->max_size_bytes = EP_PEER_MAX_SIZE_BYTES;
	s->idle_ns = DEFAULT_IDLE_NS;
	s->lfd = -1;
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->session = -1;
	s->trial.data_fd = -1;
	s->trial.source_fd = -1;
	return s;
}

static void close_conn(embperf_server *s, int i, const char *why)
{
	struct conn *c = &s->conns[i];
	char who[80];

	if (c->state == CONN_FREE)
		return;
	if (s->session == i) {
		if (s->trial_on) {
			ep_peer_trial_finish(&s->trial);
			s->trial_on = 0;
		}
		s->session = -1;
	}
	ep_ctx_log(s->ctx, EMBPERF_LOG_INFO, "peer: %s closed: %s",
		   ep_addr_text(&c->addr, who, sizeof(who)), why);
	close(c->fd);
	c->state = CONN_FREE;
	c->fd = -1;
}

void embperf_server_free(embperf_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < MAX_CONNS; i++)
		close_conn(s, i, "server freed");
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	free(s);
}

void ep_server_wake(embperf_server *s)
{
	uint64_t one = 1;

	if (s && s->wake_fd >= 0)
		(void)!write(s->wake_fd, &one, sizeof(one));
}

/* The limits a server owner may set, parsed as kernel parameters are. */
static const struct ep_param_desc limit_params[] = {
	{ "max_rate", EP_PT_RATE, "10Gbit", { { 1000, INT64_C(100000000000) } }, NULL, "bit/s",
	  "the highest rate a client may ask for" },
	{ "max_duration", EP_PT_DURATION, "300s", { { 1000000, INT64_C(86400000000000) } }, NULL,
	  "ns", "the longest trial a client may ask for" },
	{ "max_size", EP_PT_SIZE, "65507", { { 18, EP_PEER_MAX_SIZE_BYTES } }, NULL, "bytes",
	  "the largest datagram, request or response a client may ask for (a TCP stream's "
	  "writes and reads: up to 1 MiB, whatever this says)" },
	{ "idle_timeout", EP_PT_DURATION, "60s", { { 1000000, INT64_C(86400000000000) } }, NULL,
	  "ns", "how long a silent client keeps its session" },
};

static int set_limit(embperf_server *s, const struct ep_param_desc *d, const char *value)
{
	struct ep_value v;
	int rc = ep_param_parse(d, value, &v, s->errmsg, sizeof(s->errmsg));

	if (rc)
		return rc;
	if (!strcmp(d->name, "max_rate"))
		s->max_rate_bps = (double)v.i;
	else if (!strcmp(d->name, "max_duration"))
		s->max_duration_ns = (uint64_t)v.i;
	else if (!strcmp(d->name, "idle_timeout"))
		s->idle_ns = (uint64_t)v.i;
	else
		s->max_size_bytes = (uint32_t)v.i;
	ep_value_free(&v);
	return 0;
}

int embperf_server_set(embperf_server *s, const char *name, const char *value)
{
	if (!s || !name || !value)
		return -EINVAL;
	s->errmsg[0] = '\0';
	if (s->lfd >= 0) {
		set_err(s, "server setting '%s': the server already listens%s", name, "");
		return -EBUSY;
	}
	if (!strcmp(name, "listen")) {
		if (strlen(value) >= sizeof(s->listen_spec)) {
			set_err(s, "server setting 'listen': value '%s': %s", value, "too long");
			return -EINVAL;
		}
		strcpy(s->listen_spec, value);
		return 0;
	}
	if (!strcmp(name, "allow")) {
		if (s->n_allow == MAX_ALLOW) {
			set_err(s, "server setting 'allow': value '%s': %s", value,
				"at most 32 blocks");
			return -EINVAL;
		}
		if (ep_cidr_parse(value, &s->allow[s->n_allow])) {
			set_err(s, "server setting 'allow': value '%s': %s", value,
				"accepted: an address block such as 198.18.0.0/15, ::1/128, or an address");
			return -EINVAL;
		}
		s->n_allow++;
		return 0;
	}
	for (size_t i = 0; i < sizeof(limit_params) / sizeof(limit_params[0]); i++)
		if (!strcmp(name, limit_params[i].name))
			return set_limit(s, &limit_params[i], value);
	set_err(s, "unknown server setting '%s'; accepted: listen, allow, max_rate, max_duration, "
		   "max_size, idle_timeout%s", name, "");
	return -EINVAL;
}

int embperf_server_start(embperf_server *s)
{
	struct sockaddr_storage a;
	socklen_t len;
	char err[200], text[80];
	int one = 1, fd, rc;

	if (!s)
		return -EINVAL;
	if (s->lfd >= 0)
		return 0;
	if (ep_addr_parse(s->listen_spec, EP_PEER_DEFAULT_PORT, &a, &len, err, sizeof(err))) {
		set_err(s, "server setting 'listen': %s%s", err, "");
		return -EINVAL;
	}
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		rc = -errno;
		snprintf(s->errmsg, sizeof(s->errmsg), "server setting 'listen': cannot listen on %s: %s",
			 s->listen_spec, strerror(-rc));
		close(fd);
		return rc;
	}
	s->lfd = fd;
	s->port = ep_addr_port(&a);
	ep_ctx_log(s->ctx, EMBPERF_LOG_INFO, "peer: listening on %s",
		   ep_addr_text(&a, text, sizeof(text)));
	return 0;
}

int embperf_server_port(const embperf_server *s)
{
	return s && s->lfd >= 0 ? s->port : -EINVAL;
}

const char *embperf_server_errmsg(const embperf_server *s)
{
	return s ? s->errmsg : "";
}

int embperf_server_stat(const embperf_server *s, enum embperf_server_stat stat, uint64_t *value)
{
	if (!s || !value || (int)stat < 0 || stat >= EMBPERF_SERVER_STAT_COUNT)
		return -EINVAL;
	*value = s->stats[stat];
	return 0;
}

static int send_msg(embperf_server *s, int i, const struct ep_msg *m)
{
	return ep_msg_send(s->conns[i].fd, m, SEND_TIMEOUT_NS);
}

static void send_error(embperf_server *s, int i, const char *code, const char *text)
{
	struct ep_msg m = { .type = EP_MSG_ERROR };

	snprintf(m.code, sizeof(m.code), "%s", code);
	snprintf(m.text, sizeof(m.text), "%s", text);
	(void)send_msg(s, i, &m);
}

static int allowed(const embperf_server *s, const struct sockaddr_storage *a)
{
	if (!s->n_allow)
		return 1;
	for (int i = 0; i < s->n_allow; i++)
		if (ep_cidr_match(&s->allow[i], a))
			return 1;
	return 0;
}

static void accept_one(embperf_server *s)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int fd = accept4(s->lfd, (struct sockaddr *)&a, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	char who[80];
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS && s->conns[i].state != CONN_FREE; i++)
		;
	if (i == MAX_CONNS || !allowed(s, &a)) {
		/* Told why in one message, without waiting for a hello. */
		struct ep_msg m = { .type = EP_MSG_ERROR };

		snprintf(m.code, sizeof(m.code), "%s", i == MAX_CONNS ? "busy" : "refused");
		snprintf(m.text, sizeof(m.text), "%s", i == MAX_CONNS
				 ? "the peer has too many connections"
				 : "this address is not in the peer's --allow list");
		(void)ep_msg_send(fd, &m, 0);
		s->stats[i == MAX_CONNS ? EMBPERF_SERVER_STAT_BUSY : EMBPERF_SERVER_STAT_REFUSED]++;
		ep_ctx_log(s->ctx, EMBPERF_LOG_WARNING, "peer: %s refused: %s",
			   ep_addr_text(&a, who, sizeof(who)), m.text);
		close(fd);
		return;
	}
	s->conns[i] = (struct conn){ .state = CONN_NEW, .fd = fd, .addr = a, .addr_len = len };
	s->conns[i].local_len = sizeof(s->conns[i].local);
	getsockname(fd, (struct sockaddr *)&s->conns[i].local, &s->conns[i].local_len);
	s->conns[i].deadline_ns = ep_now_ns() + (s->idle_ns < HELLO_TIMEOUT_NS ? s->idle_ns
									  : HELLO_TIMEOUT_NS);
	s->stats[EMBPERF_SERVER_STAT_CONNECTIONS]++;
}

static void on_hello(embperf_server *s, int i, const struct ep_msg *in)
{
	struct ep_msg m = { .type = EP_MSG_WELCOME, .proto = EP_PROTO_VERSION,
			    .proto_minor = EP_PROTO_MINOR };

	if (in->proto != EP_PROTO_VERSION) {
		char text[120];

		snprintf(text, sizeof(text), "protocol version %d is not spoken here; this peer speaks %d",
			 in->proto, EP_PROTO_VERSION);
		send_error(s, i, "version", text);
		close_conn(s, i, "another protocol version");
		return;
	}
	if (s->session >= 0) {
		send_error(s, i, "busy", "the peer is serving another client; try again later");
		s->stats[EMBPERF_SERVER_STAT_BUSY]++;
		close_conn(s, i, "busy");
		return;
	}
	snprintf(m.software, sizeof(m.software), "libembperf %s", EMBPERF_VERSION);
	m.max_rate_bps = s->max_rate_bps;
	m.max_duration_ns = s->max_duration_ns;
	m.max_size_bytes = s->max_size_bytes;
	if (send_msg(s, i, &m)) {
		close_conn(s, i, "could not answer");
		return;
	}
	s->conns[i].state = CONN_SESSION;
	s->session = i;
	s->stats[EMBPERF_SERVER_STAT_SESSIONS]++;
}

/* The request within this peer's limits, or the error text. */
static int check_limits(const embperf_server *s, const struct ep_start *r, char *text, size_t len)
{
	int stream = r->test == EP_TEST_TCP_SINK || r->test == EP_TEST_TCP_SOURCE ||
		     r->test == EP_TEST_TCP_BOTH;

	/* A stream's writes are capped by the parser (EP_PEER_MAX_STREAM_IO_BYTES). */
	if (!stream && r->size_bytes > s->max_size_bytes)
		snprintf(text, len, "size %u bytes is above this peer's limit of %u", r->size_bytes,
			 s->max_size_bytes);
	else if (r->response_bytes > s->max_size_bytes)
		snprintf(text, len, "response %u bytes is above this peer's limit of %u",
			 r->response_bytes, s->max_size_bytes);
	else if ((r->test == EP_TEST_TCP_RR || r->test == EP_TEST_TCP_CRR ||
		  r->test == EP_TEST_UDP_RR) && !r->response_bytes)
		snprintf(text, len, "%s needs a response size of 1 byte or more",
			 ep_net_test_name(r->test));
	else if (r->rate_bps > s->max_rate_bps)
		snprintf(text, len, "rate %.0f bit/s is above this peer's limit of %.0f", r->rate_bps,
			 s->max_rate_bps);
	else if (r->duration_ns > s->max_duration_ns)
		snprintf(text, len, "duration %.3f s is above this peer's limit of %.3f s",
			 (double)r->duration_ns / 1e9, (double)s->max_duration_ns / 1e9);
	else if ((r->test == EP_TEST_UDP_SOURCE || r->test == EP_TEST_L2_SOURCE) && r->rate_bps <= 0.0 &&
		 r->pacing != EP_PACING_BURST && s->max_rate_bps < EP_PEER_MAX_RATE_BPS)
		snprintf(text, len, "an unpaced source is not allowed: this peer caps the rate");
	else if ((r->test == EP_TEST_TCP_SOURCE || r->test == EP_TEST_TCP_BOTH) &&
		 s->max_rate_bps < EP_PEER_MAX_RATE_BPS)
		/* A TCP source sends as fast as the path allows: no rate to cap. */
		snprintf(text, len, "a TCP source is not allowed: this peer caps the rate");
	else
		return 0;
	return -EINVAL;
}

static void on_start(embperf_server *s, int i, const struct ep_msg *in)
{
	struct ep_peer_trial *t = &s->trial;
	struct ep_msg m = { .type = EP_MSG_READY };
	char text[200];
	int rc;

	if (s->trial_on) {
		send_error(s, i, "invalid", "a trial is running: stop it first");
		return;
	}
	if (check_limits(s, &in->start, text, sizeof(text))) {
		send_error(s, i, "limit", text);
		return;
	}
	memset(t, 0, sizeof(*t));
	t->req = in->start;
	t->client = s->conns[i].addr;
	t->client_len = s->conns[i].addr_len;
	t->local = s->conns[i].local;
	t->local_len = s->conns[i].local_len;
	rc = ep_peer_trial_open(t);
	if (!rc) {
		rc = ep_peer_trial_start(t);
		if (rc)
			ep_peer_trial_finish(t);
	}
	if (rc) {
		send_error(s, i, "failed", t->text[0] ? t->text : strerror(-rc));
		return;
	}
	s->trial_on = 1;
	s->stats[EMBPERF_SERVER_STAT_TRIALS]++;
	/* The client is silent while data flows: its deadline is the trial's. */
	s->conns[i].deadline_ns = ep_now_ns() + in->start.duration_ns + s->idle_ns;
	m.port = t->port;
	m.source_port = t->source_port;
	m.flow = t->req.flow;
	if (send_msg(s, i, &m))
		close_conn(s, i, "could not answer");
}

static void on_stop(embperf_server *s, int i, const struct ep_msg *in)
{
	struct ep_msg m = { .type = EP_MSG_REPORT };

	if (!s->trial_on || in->flow != s->trial.req.flow) {
		send_error(s, i, "invalid", "no trial of this flow is running");
		return;
	}
	s->trial.sent_by_client = in->sent;
	s->trial.ramp_sent_by_client = in->ramp_sent;
	ep_peer_trial_finish(&s->trial);
	s->trial_on = 0;
	if (s->trial.rc) {
		send_error(s, i, "failed", s->trial.text);
		return;
	}
	m.report = s->trial.report;
	if (send_msg(s, i, &m))
		close_conn(s, i, "could not answer");
}

static void on_message(embperf_server *s, int i, const struct ep_msg *m)
{
	struct conn *c = &s->conns[i];

	if (c->state == CONN_NEW) {
		if (m->type != EP_MSG_HELLO) {
			send_error(s, i, "invalid", "the first message must be hello");
			s->stats[EMBPERF_SERVER_STAT_INVALID]++;
			close_conn(s, i, "no hello");
			return;
		}
		on_hello(s, i, m);
		return;
	}
	c->deadline_ns = ep_now_ns() + s->idle_ns;
	switch (m->type) {
	case EP_MSG_START:
		on_start(s, i, m);
		break;
	case EP_MSG_STOP:
		on_stop(s, i, m);
		break;
	case EP_MSG_BYE:
		close_conn(s, i, "bye");
		break;
	default:
		send_error(s, i, "invalid", "unexpected message");
		s->stats[EMBPERF_SERVER_STAT_INVALID]++;
	}
}

static void on_readable(embperf_server *s, int i)
{
	struct conn *c = &s->conns[i];
	char err[160];

	for (;;) {
		struct ep_msg m;
		int rc = ep_frame_read(c->fd, &c->rd);

		if (rc == 0)
			return;
		if (rc < 0) {
			if (rc == -EMSGSIZE) {
				send_error(s, i, "invalid", "message length above the limit");
				s->stats[EMBPERF_SERVER_STAT_INVALID]++;
			}
			close_conn(s, i, rc == -ECONNRESET ? "client left" : strerror(-rc));
			return;
		}
		rc = ep_msg_parse((const char *)c->rd.buf + 4, (size_t)rc, &m, err, sizeof(err));
		ep_frame_reset(&c->rd);
		if (rc) {
			send_error(s, i, "invalid", err);
			s->stats[EMBPERF_SERVER_STAT_INVALID]++;
			close_conn(s, i, err);
			return;
		}
		on_message(s, i, &m);
		if (c->state == CONN_FREE)
			return;
	}
}

static void expire(embperf_server *s, uint64_t now)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];

		if (c->state != CONN_FREE && now >= c->deadline_ns)
			close_conn(s, i, c->state == CONN_NEW ? "no hello in time" : "idle too long");
	}
}

/* One poll over the listening socket and the connections, up to @ms. */
static int poll_once(embperf_server *s, int ms)
{
	struct pollfd p[MAX_CONNS + 2];
	int map[MAX_CONNS + 2], n = 0, rc;

	p[n] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	map[n++] = -1;
	p[n] = (struct pollfd){ .fd = s->wake_fd, .events = POLLIN }; /* -1: ignored */
	map[n++] = -2;
	for (int i = 0; i < MAX_CONNS; i++) {
		if (s->conns[i].state == CONN_FREE)
			continue;
		p[n] = (struct pollfd){ .fd = s->conns[i].fd, .events = POLLIN };
		map[n++] = i;
	}
	rc = poll(p, (nfds_t)n, ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	for (int k = 0; k < n && rc > 0; k++) {
		if (!p[k].revents)
			continue;
		if (map[k] == -2) {
			uint64_t count;

			(void)!read(s->wake_fd, &count, sizeof(count));
		} else if (map[k] < 0) {
			accept_one(s);
		} else if (s->conns[map[k]].state != CONN_FREE) {
			on_readable(s, map[k]);
		}
	}
	return 0;
}

int embperf_server_run(embperf_server *s, uint64_t timeout_ns)
{
	uint64_t end;
	int rc;

	if (!s)
		return -EINVAL;
	rc = embperf_server_start(s);
	if (rc)
		return rc;
	end = timeout_ns > UINT64_MAX - ep_now_ns() ? UINT64_MAX : ep_now_ns() + timeout_ns;
	for (;;) {
		uint64_t now = ep_now_ns();
		uint64_t left = end > now ? end - now : 0;
		int ms = left / 1000000 < POLL_SLICE_MS ? (int)(left / 1000000) : POLL_SLICE_MS;

		if (embperf_ctx_is_cancelled(s->ctx))
			return -ECANCELED;
		rc = poll_once(s, ms);
		if (rc)
			return rc;
		expire(s, ep_now_ns());
		if (ep_now_ns() >= end)
			return 0;
	}
}
