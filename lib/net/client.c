// SPDX-License-Identifier: MIT
/*
 * client.c - the kernels' side of the control protocol (client.h), and the
 * in-process peer of peer=local: an embperf_server on 127.0.0.1, port 0,
 * served by a thread of this process for as long as the kernel runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "addr.h"
#include "client.h"
#include "config.h"
#include "lib/core/clock.h"
#include "embperf.h"
#include "peer.h"

struct ep_local_peer {
	embperf_ctx *ctx;
	embperf_server *srv;
	pthread_t thread;
	int rc;
};

static void *local_peer_main(void *arg)
{
	struct ep_local_peer *lp = arg;

	lp->rc = embperf_server_run(lp->srv, UINT64_MAX);
	return NULL;
}

static void local_peer_stop(struct ep_local_peer *lp)
{
	if (!lp)
		return;
	if (lp->ctx) {
		embperf_ctx_cancel(lp->ctx);
		ep_server_wake(lp->srv);
		pthread_join(lp->thread, NULL);
	}
	embperf_server_free(lp->srv);
	embperf_ctx_free(lp->ctx);
	free(lp);
}

/* Start a peer on 127.0.0.1 in this process; its address into @spec. */
static int local_peer_start(struct ep_local_peer **out, char *spec, size_t spec_len, char *err,
			    size_t err_len)
{
	struct ep_local_peer *lp = calloc(1, sizeof(*lp));
	int rc = -ENOMEM;

	if (!lp)
		return -ENOMEM;
	lp->ctx = embperf_ctx_new();
	lp->srv = lp->ctx ? embperf_server_new(lp->ctx) : NULL;
	if (lp->srv) {
		rc = embperf_server_set(lp->srv, "listen", "127.0.0.1:0");
		if (!rc)
			rc = embperf_server_start(lp->srv);
		if (rc)
			snprintf(err, err_len, "peer=local: %s", embperf_server_errmsg(lp->srv));
	}
	if (!rc)
		rc = -pthread_create(&lp->thread, NULL, local_peer_main, lp);
	if (rc) {
		embperf_server_free(lp->srv);
		embperf_ctx_free(lp->ctx);
		free(lp);
		return rc;
	}
	snprintf(spec, spec_len, "127.0.0.1:%d", embperf_server_port(lp->srv));
	*out = lp;
	return 0;
}

static int hello(struct ep_peer_conn *c, char *err, size_t err_len)
{
	struct ep_msg m = { .type = EP_MSG_HELLO, .proto = EP_PROTO_VERSION,
			    .proto_minor = EP_PROTO_MINOR };
	char why[200];
	int rc;

	snprintf(m.software, sizeof(m.software), "libembperf %s", EMBPERF_VERSION);
	rc = ep_msg_send(c->fd, &m, c->timeout_ns);
	if (!rc)
		rc = ep_msg_recv(c->fd, &c->welcome, c->timeout_ns, why, sizeof(why));
	if (rc) {
		snprintf(err, err_len, "peer %s: no welcome: %s", c->name,
			 rc == -EBADMSG ? why : strerror(-rc));
		return rc;
	}
	if (c->welcome.type == EP_MSG_ERROR) {
		snprintf(err, err_len, "peer %s refused the session (%s): %s", c->name,
			 c->welcome.code, c->welcome.text);
		return !strcmp(c->welcome.code, "busy")	   ? -EBUSY
		       : !strcmp(c->welcome.code, "version") ? -EPROTO
							     : -EACCES;
	}
	if (c->welcome.type != EP_MSG_WELCOME || c->welcome.proto != EP_PROTO_VERSION) {
		snprintf(err, err_len, "peer %s speaks protocol %d, this library %d", c->name,
			 c->welcome.proto, EP_PROTO_VERSION);
		return -EPROTO;
	}
	return 0;
}

int ep_peer_open(struct ep_peer_conn *c, const char *spec, uint64_t timeout_ns, char *err,
		 size_t err_len)
{
	char local_spec[64], why[200];
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->timeout_ns = timeout_ns;
	if (getrandom(&c->next_flow, sizeof(c->next_flow), GRND_NONBLOCK) < 0)
		c->next_flow = (uint32_t)ep_now_ns();
	if (!strcmp(spec, "local")) {
		rc = local_peer_start(&c->local_peer, local_spec, sizeof(local_spec), err, err_len);
		if (rc)
			return rc;
		spec = local_spec;
	}
	if (ep_addr_parse(spec, EP_PEER_DEFAULT_PORT, &c->addr, &c->addr_len, why, sizeof(why))) {
		snprintf(err, err_len, "parameter 'peer': value '%s': %s", spec, why);
		ep_peer_close(c);
		return -EINVAL;
	}
	ep_addr_text(&c->addr, c->name, sizeof(c->name));
	rc = ep_connect_timeout(&c->addr, c->addr_len, timeout_ns);
	if (rc < 0) {
		snprintf(err, err_len, "peer %s: cannot connect: %s (is `embperf serve` running there?)",
			 c->name, strerror(-rc));
		ep_peer_close(c);
		return rc;
	}
	c->fd = rc;
	c->local_len = sizeof(c->local);
	getsockname(c->fd, (struct sockaddr *)&c->local, &c->local_len);
	rc = hello(c, err, err_len);
	if (rc)
		ep_peer_close(c);
	return rc;
}

/* The next message, which must be @want (an error message is the peer's refusal). */
static int expect(struct ep_peer_conn *c, enum ep_msg_type want, struct ep_msg *m,
		  const char *step, char *err, size_t err_len)
{
	char why[200];
	int rc = ep_msg_recv(c->fd, m, c->timeout_ns, why, sizeof(why));

	if (rc) {
		snprintf(err, err_len, "peer %s: %s: %s", c->name, step,
			 rc == -EBADMSG	     ? why
			 : rc == -ECONNRESET ? "the peer closed the connection"
					     : strerror(-rc));
		return rc;
	}
	if (m->type == EP_MSG_ERROR) {
		snprintf(err, err_len, "peer %s: %s: refused (%s): %s", c->name, step, m->code,
			 m->text);
		return !strcmp(m->code, "limit") ? -ERANGE : -EREMOTEIO;
	}
	if (m->type != want) {
		snprintf(err, err_len, "peer %s: %s: unexpected '%s' message", c->name, step,
			 ep_msg_type_name(m->type));
		return -EPROTO;
	}
	return 0;
}

int ep_peer_start(struct ep_peer_conn *c, struct ep_start *s, uint16_t *port, char *err,
		  size_t err_len)
{
	struct ep_msg m = { .type = EP_MSG_START };
	int rc;

	s->flow = c->next_flow++;
	m.start = *s;
	rc = ep_msg_send(c->fd, &m, c->timeout_ns);
	if (rc) {
		snprintf(err, err_len, "peer %s: start: %s", c->name, strerror(-rc));
		return rc;
	}
	rc = expect(c, EP_MSG_READY, &m, "start", err, err_len);
	if (rc)
		return rc;
	if (m.flow != s->flow) {
		snprintf(err, err_len, "peer %s: start: ready for flow %u, asked %u", c->name, m.flow,
			 s->flow);
		return -EPROTO;
	}
	*port = m.port;
	c->source_port = m.source_port;
	return 0;
}

int ep_peer_stop(struct ep_peer_conn *c, uint32_t flow, uint64_t sent, struct ep_report *r,
		 char *err, size_t err_len)
{
	return ep_peer_stop_marks(c, flow, 0, sent, r, err, err_len);
}

int ep_peer_stop_marks(struct ep_peer_conn *c, uint32_t flow, uint64_t ramp_sent, uint64_t sent,
		       struct ep_report *r, char *err, size_t err_len)
{
	struct ep_msg m = { .type = EP_MSG_STOP, .flow = flow, .sent = sent, .ramp_sent = ramp_sent };
	int rc = ep_msg_send(c->fd, &m, c->timeout_ns);

	if (rc) {
		snprintf(err, err_len, "peer %s: stop: %s", c->name, strerror(-rc));
		return rc;
	}
	rc = expect(c, EP_MSG_REPORT, &m, "report", err, err_len);
	if (rc)
		return rc;
	if (m.report.flow != flow) {
		snprintf(err, err_len, "peer %s: report of flow %u, asked %u", c->name,
			 m.report.flow, flow);
		return -EPROTO;
	}
	*r = m.report;
	return 0;
}

void ep_peer_close(struct ep_peer_conn *c)
{
	if (c->fd >= 0) {
		struct ep_msg m = { .type = EP_MSG_BYE };

		(void)ep_msg_send(c->fd, &m, 100000000);
		close(c->fd);
		c->fd = -1;
	}
	local_peer_stop(c->local_peer);
	c->local_peer = NULL;
}
