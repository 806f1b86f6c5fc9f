// SPDX-License-Identifier: MIT
/*
 * udp_io.c - batched sending and receiving of test datagrams (udp_io.h).
 *
 * The receiver takes arrival times from the kernel (SO_TIMESTAMPNS, the
 * time the datagram was queued to the socket) so that a receiver that
 * fell behind and takes a batch at once still sees each datagram's own
 * arrival; the jitter compares them with the sender's stamps, and the
 * clocks' offset cancels out (RFC 3550 §6.4.1).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "lib/core/clock.h"
#include "lib/core/util.h"
#include "udp_io.h"

#define CMSG_BYTES 64

EP_UNTIMED int ep_udp_tx_init(struct ep_udp_tx *tx, int fd, uint32_t size_bytes, uint32_t flow)
{
	memset(tx, 0, sizeof(*tx));
	tx->fd = fd;
	tx->size_bytes = size_bytes;
	tx->count.flow = flow;
	tx->bufs = calloc(EP_UDP_MAX_BATCH, size_bytes);
	tx->msgs = calloc(EP_UDP_MAX_BATCH, sizeof(*tx->msgs));
	tx->iov = calloc(EP_UDP_MAX_BATCH, sizeof(*tx->iov));
	if (!tx->bufs || !tx->msgs || !tx->iov) {
		ep_udp_tx_free(tx);
		return -ENOMEM;
	}
	for (int i = 0; i < EP_UDP_MAX_BATCH; i++) {
		tx->iov[i].iov_base = tx->bufs + (size_t)i * size_bytes;
		tx->iov[i].iov_len = size_bytes;
		tx->msgs[i].msg_hdr.msg_iov = &tx->iov[i];
		tx->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

EP_UNTIMED void ep_udp_tx_free(struct ep_udp_tx *tx)
{
	free(tx->bufs);
	free(tx->msgs);
	free(tx->iov);
	tx->bufs = NULL;
	tx->msgs = NULL;
	tx->iov = NULL;
}

uint32_t ep_udp_tx_send(struct ep_udp_tx *tx, uint32_t n, int counted)
{
	struct ep_wire_header h = { .flags = counted ? EP_WIRE_COUNTED : 0, .flow = tx->count.flow };
	int sent;

	if (n > EP_UDP_MAX_BATCH)
		n = EP_UDP_MAX_BATCH;
	for (uint32_t i = 0; i < n; i++) {
		h.seq = counted ? tx->count.seq + i : 0;
		h.send_ns = ep_now_ns();
		ep_wire_encode(tx->bufs + (size_t)i * tx->size_bytes, &h);
	}
	sent = sendmmsg(tx->fd, tx->msgs, n, 0);
	if (sent < 0) {
		/* A refused datagram is not sent: the next batch reuses its number. */
		tx->count.last_errno = errno;
		tx->count.refused++;
		return 0;
	}
	if (counted) {
		tx->count.seq += (uint32_t)sent;
		tx->count.sent += (uint64_t)sent;
	} else {
		tx->count.sent_ramp += (uint64_t)sent;
	}
	return (uint32_t)sent;
}

EP_UNTIMED int ep_udp_rx_init(struct ep_udp_rx *rx, int fd, uint32_t flow, uint32_t size_bytes)
{
	int on = 1;

	memset(rx, 0, sizeof(*rx));
	rx->fd = fd;
	rx->flow = flow;
	rx->size_max = size_bytes < EP_WIRE_HEADER_BYTES ? EP_WIRE_HEADER_BYTES : size_bytes;
	rx->count = calloc(1, sizeof(*rx->count));
	rx->bufs = malloc((size_t)EP_UDP_MAX_BATCH * rx->size_max);
	rx->msgs = calloc(EP_UDP_MAX_BATCH, sizeof(*rx->msgs));
	rx->iov = calloc(EP_UDP_MAX_BATCH, sizeof(*rx->iov));
	rx->names = calloc(EP_UDP_MAX_BATCH, sizeof(*rx->names));
	rx->cmsgs = calloc(EP_UDP_MAX_BATCH, CMSG_BYTES);
	if (!rx->count || !rx->bufs || !rx->msgs || !rx->iov || !rx->names || !rx->cmsgs) {
		ep_udp_rx_free(rx);
		return -ENOMEM;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	return 0;
}

EP_UNTIMED void ep_udp_rx_free(struct ep_udp_rx *rx)
{
	free(rx->count);
	free(rx->bufs);
	free(rx->msgs);
	free(rx->iov);
	free(rx->names);
	free(rx->cmsgs);
	rx->count = NULL;
	rx->bufs = NULL;
	rx->msgs = NULL;
	rx->iov = NULL;
	rx->names = NULL;
	rx->cmsgs = NULL;
}

static void rx_arm(struct ep_udp_rx *rx)
{
	for (int i = 0; i < EP_UDP_MAX_BATCH; i++) {
		struct msghdr *h = &rx->msgs[i].msg_hdr;

		rx->iov[i].iov_base = rx->bufs + (size_t)i * rx->size_max;
		rx->iov[i].iov_len = rx->size_max;
		h->msg_iov = &rx->iov[i];
		h->msg_iovlen = 1;
		h->msg_name = &rx->names[i];
		h->msg_namelen = sizeof(rx->names[i]);
		h->msg_control = rx->cmsgs + (size_t)i * CMSG_BYTES;
		h->msg_controllen = CMSG_BYTES;
		h->msg_flags = 0;
	}
}

/* The kernel's arrival stamp (CLOCK_REALTIME) into *@stamp_ns. Return: 1, or 0 without one. */
static int arrival_stamp(struct msghdr *h, uint64_t *stamp_ns)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*stamp_ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
			return 1;
		}
	}
	return 0;
}

/* Same sender host as rx->from (the address only: the port is the sender's choice). */
static int from_ok(const struct ep_udp_rx *rx, const struct sockaddr_storage *a)
{
	if (!rx->from_len)
		return 1;
	if (a->ss_family != rx->from.ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)&rx->from)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)&rx->from)->sin6_addr,
			       sizeof(struct in6_addr));
	return 0;
}

static int take(struct ep_udp_rx *rx, int i, int counting, const struct ep_clock_pair *now)
{
	struct msghdr *h = &rx->msgs[i].msg_hdr;
	unsigned len = rx->msgs[i].msg_len;
	struct ep_wire_header w;
	uint64_t stamp = now->real_ns, first, last;

	if (!from_ok(rx, &rx->names[i]) ||
	    ep_wire_decode(rx->bufs + (size_t)i * rx->size_max, len, &w) || w.flow != rx->flow) {
		rx->stray++;
		return 0;
	}
	rx->last_ns = now->mono_ns;
	if (!(w.flags & EP_WIRE_COUNTED) || !counting) {
		rx->ramp++;
		return 1;
	}
	/* The measured part by arrival, not by when this thread got to read:
	 * a late reader finds the ramp's last datagrams queued. Without a
	 * stamp, the datagram came after the socket was last read empty and
	 * before now; it counts only when both say inside. */
	if (arrival_stamp(h, &stamp)) {
		first = last = ep_rx_arrival_ns(now, stamp);
	} else {
		rx->unstamped++;
		first = rx->drained_ns;
		last = now->mono_ns;
	}
	if (ep_rx_window_left_out(&rx->window, first, last, &rx->ramp, &rx->past_end))
		return 1;
	rx->seen++;
	if (rx->drop_every && rx->seen % rx->drop_every == 0) {
		rx->dropped++;
		return 1;
	}
	/* Sender stamps are CLOCK_MONOTONIC, arrivals CLOCK_REALTIME: only
	 * differences of transit times are used, so the offset cancels. */
	ep_seq_add(rx->count, w.seq, len, w.send_ns, stamp);
	/* The header goes back to where it came from (an address from_ok()
	 * accepted: the client's), with the sender's own stamp. */
	if (rx->echo_every && w.seq % rx->echo_every == 0)
		(void)sendto(rx->fd, rx->bufs + (size_t)i * rx->size_max, EP_WIRE_HEADER_BYTES,
			     MSG_DONTWAIT, (struct sockaddr *)&rx->names[i], h->msg_namelen);
	return 1;
}

int ep_udp_rx_poll(struct ep_udp_rx *rx, int timeout_ms, int counting)
{
	struct pollfd p = { .fd = rx->fd, .events = POLLIN };
	int taken = 0;
	int rc = poll(&p, 1, timeout_ms);

	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0) {
		rx->drained_ns = ep_now_ns();
		return 0;
	}
	for (;;) {
		struct ep_clock_pair now;
		int n;

		rx_arm(rx);
		n = recvmmsg(rx->fd, rx->msgs, EP_UDP_MAX_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			int e = errno;

			if (e == EAGAIN || e == EWOULDBLOCK)
				rx->drained_ns = ep_now_ns();
			return e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNREFUSED
				       ? taken
				       : -e;
		}
		ep_clock_pair_read(&now);
		for (int i = 0; i < n; i++)
			taken += take(rx, i, counting, &now);
		if (n < EP_UDP_MAX_BATCH) {
			rx->drained_ns = now.mono_ns;
			return taken;
		}
	}
}

EP_UNTIMED int ep_udp_socket(int family, int big_buffers)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int bytes = 8 << 20;

	if (fd < 0)
		return -errno;
	if (big_buffers) {
		/* As root the limits of net.core.[rw]mem_max do not apply. */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)))
			(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	}
	return fd;
}

EP_UNTIMED int ep_udp_socket_bound(const struct sockaddr_storage *local, socklen_t len,
				   int big_buffers, uint16_t *port)
{
	struct sockaddr_storage a = *local;
	int fd = ep_udp_socket(a.ss_family, big_buffers);

	if (fd < 0)
		return fd;
	ep_addr_set_port(&a, 0);
	if (bind(fd, (struct sockaddr *)&a, len) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*port = ep_addr_port(&a);
	return fd;
}
