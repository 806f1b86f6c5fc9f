// SPDX-License-Identifier: MIT
/*
 * kclient.c - the client side shared by the network kernels (kclient.h).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "kclient.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/kernel.h"
#include "lib/core/util.h"

const struct ep_default ep_net_defaults[] = EP_NET_DEFAULTS("100ms", "100ms");

int ep_netk_open(struct ep_run *run, const char *kernel, struct ep_peer_conn *c)
{
	const char *peer = ep_param_text(run, "peer");
	char err[320];
	int rc;

	if (!peer[0])
		return ep_run_fail(run, -EINVAL, "parameter 'peer': not set; accepted: HOST[:PORT] of "
				   "a host running `embperf serve`, or 'local' (a peer in this "
				   "process, on 127.0.0.1)");
	rc = ep_peer_open(c, peer, (uint64_t)ep_param_int(run, "timeout"), err, sizeof(err));
	return rc ? ep_run_fail(run, rc, "%s: %s", kernel, err) : 0;
}

int ep_netk_peer_gone(const struct ep_peer_conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

int ep_netk_tcp_connect(const struct ep_peer_conn *c, uint16_t port, int nodelay,
			uint32_t sockbuf_bytes, uint64_t timeout_ns, uint64_t slice_ns)
{
	struct sockaddr_storage a = c->addr;
	int fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	ep_tcp_set_options(fd, nodelay, sockbuf_bytes);
	ep_addr_set_port(&a, port);
	ep_netk_set_timeouts(fd, timeout_ns);
	if (connect(fd, (struct sockaddr *)&a, c->addr_len)) {
		int rc = errno == EINPROGRESS || errno == EAGAIN ? -ETIMEDOUT : -errno;

		close(fd);
		return rc;
	}
	ep_netk_set_timeouts(fd, slice_ns);
	return fd;
}

uint64_t ep_netk_flow_cap_ns(const struct ep_run *run)
{
	return (uint64_t)ep_param_int(run, "ramp") + (uint64_t)ep_param_int(run, "duration") +
	       2000000000ULL;
}

int ep_netk_check_size(struct ep_run *run, const struct ep_peer_conn *c, const char *param,
		       uint32_t bytes)
{
	if (bytes > c->welcome.max_size_bytes)
		return ep_run_fail(run, -ERANGE, "parameter '%s': %u bytes is above the limit of "
				   "peer %s (%u bytes)", param, bytes, c->name,
				   c->welcome.max_size_bytes);
	return 0;
}

int ep_netk_setup_tail(struct ep_run *run, const char *kernel, struct ep_peer_conn *c,
		       const char *size_param, uint32_t size_bytes, const struct ep_trial_case *tc)
{
	int rc = ep_netk_open(run, kernel, c);

	if (!rc && size_param)
		rc = ep_netk_check_size(run, c, size_param, size_bytes);
	return rc ? rc : ep_run_add_trial(run, tc);
}

void ep_netk_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int ep_netk_fail(struct ep_run *run, int *fd, int rc, const char *fmt, ...)
{
	char msg[EP_ERRMSG_MAX];
	va_list ap;

	ep_netk_close(fd);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ep_run_fail(run, rc, "%s", msg);
}

double ep_netk_or_nan(double pct)
{
	return pct < 0.0 ? NAN : pct;
}
