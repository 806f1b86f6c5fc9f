// SPDX-License-Identifier: MIT
/*
 * linkstats.c - the parts of the loss attribution that need no libnl: the
 * host's UDP counters from /proc/net, a socket's SO_RXQ_OVFL drop count,
 * the difference of two snapshots and the attribution itself. The netlink
 * reads are in linkstats_nl.c (built with libnl); without libnl their
 * stand-ins here answer -EOPNOTSUPP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/core/util.h"
#include "lib/net/linkstats.h"

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40 /* asm-generic/socket.h, for old libc headers */
#endif

#define SNMP_LINE_MAX 1024

/*
 * The value of column @name in a /proc/net/snmp pair of lines: @head holds
 * "Udp: InDatagrams NoPorts ...", @vals "Udp: 12 0 ...".
 */
static int snmp_column(const char *head, const char *vals, const char *name, uint64_t *out)
{
	char hbuf[SNMP_LINE_MAX], vbuf[SNMP_LINE_MAX], *hs, *vs;
	char *h, *v;

	snprintf(hbuf, sizeof(hbuf), "%s", head);
	snprintf(vbuf, sizeof(vbuf), "%s", vals);
	h = strtok_r(hbuf, " \n", &hs);
	v = strtok_r(vbuf, " \n", &vs);
	while (h && v) {
		if (!strcmp(h, name)) {
			*out = strtoull(v, NULL, 10);
			return 0;
		}
		h = strtok_r(NULL, " \n", &hs);
		v = strtok_r(NULL, " \n", &vs);
	}
	return -ENOENT;
}

/* Add the "Udp:" counters of /proc/net/snmp (IPv4) to @u. */
static int read_snmp(struct ep_udp_counters *u, char *err, size_t err_size)
{
	char head[SNMP_LINE_MAX], vals[SNMP_LINE_MAX];
	FILE *f = fopen("/proc/net/snmp", "re");
	int found = 0;

	if (!f)
		return ep_say(err, err_size, -errno, "cannot open /proc/net/snmp: %s",
			      strerror(errno));
	while (fgets(head, sizeof(head), f)) {
		if (strncmp(head, "Udp: ", 5) || !fgets(vals, sizeof(vals), f))
			continue;
		found = !snmp_column(head, vals, "InDatagrams", &u->in_datagrams) &&
			!snmp_column(head, vals, "NoPorts", &u->no_ports) &&
			!snmp_column(head, vals, "InErrors", &u->in_errors) &&
			!snmp_column(head, vals, "OutDatagrams", &u->out_datagrams) &&
			!snmp_column(head, vals, "RcvbufErrors", &u->rcvbuf_errors) &&
			!snmp_column(head, vals, "SndbufErrors", &u->sndbuf_errors);
		break;
	}
	fclose(f);
	if (!found)
		return ep_say(err, err_size, -EPROTO,
			      "/proc/net/snmp has no Udp: lines with InDatagrams, NoPorts, "
			      "InErrors, OutDatagrams, RcvbufErrors and SndbufErrors");
	return 0;
}

/* Add the Udp6 counters of /proc/net/snmp6 to @u; a host without IPv6 has none. */
static void read_snmp6(struct ep_udp_counters *u)
{
	static const struct {
		const char *name;
		size_t off;
	} cols[] = {
		{ "Udp6InDatagrams", offsetof(struct ep_udp_counters, in_datagrams) },
		{ "Udp6NoPorts", offsetof(struct ep_udp_counters, no_ports) },
		{ "Udp6InErrors", offsetof(struct ep_udp_counters, in_errors) },
		{ "Udp6OutDatagrams", offsetof(struct ep_udp_counters, out_datagrams) },
		{ "Udp6RcvbufErrors", offsetof(struct ep_udp_counters, rcvbuf_errors) },
		{ "Udp6SndbufErrors", offsetof(struct ep_udp_counters, sndbuf_errors) },
	};
	char line[256], name[64];
	unsigned long long v;
	FILE *f = fopen("/proc/net/snmp6", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			if (!strcmp(name, cols[i].name))
				*(uint64_t *)((char *)u + cols[i].off) += v;
	}
	fclose(f);
}

int ep_udp_counters_read(struct ep_udp_counters *out, char *err, size_t err_size)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_snmp(out, err, err_size);
	if (!rc)
		read_snmp6(out);
	return rc;
}

int ep_sock_rxq_ovfl_enable(int fd)
{
	int one = 1;

	return setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) ? -errno : 0;
}

int ep_sock_rxq_ovfl(const struct msghdr *msg, uint32_t *drops)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
		    c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			memcpy(drops, CMSG_DATA(c), sizeof(*drops));
			return 1;
		}
	}
	return 0;
}

/* Snapshots. */

static uint64_t grew(uint64_t before, uint64_t after)
{
	return after >= before ? after - before : after; /* reset: count from 0 */
}

/* Each counter's growth: @n_bytes of uint64_t counters only (link, udp). */
static void diff_counters(const void *b, const void *a, void *d, size_t n_bytes)
{
	const uint64_t *pb = b, *pa = a;
	uint64_t *pd = d;

	for (size_t i = 0; i < n_bytes / sizeof(uint64_t); i++)
		pd[i] = grew(pb[i], pa[i]);
}

static void diff_qdisc(const struct ep_qdisc_counters *b, const struct ep_qdisc_counters *a,
		       struct ep_qdisc_counters *d)
{
	*d = *a; /* kind, handle, backlog and qlen are the latest */
	if (strcmp(b->kind, a->kind) || b->handle != a->handle)
		return; /* a new qdisc: its counters started at 0 */
	d->packets = grew(b->packets, a->packets);
	d->bytes = grew(b->bytes, a->bytes);
	d->drops = grew(b->drops, a->drops);
	d->overlimits = grew(b->overlimits, a->overlimits);
}

int ep_linkstats_diff(const struct ep_linkstats *before, const struct ep_linkstats *after,
		      struct ep_linkstats *delta)
{
	struct ep_linkstats d;

	if (strcmp(before->ifname, after->ifname) || before->ifindex != after->ifindex ||
	    after->taken_ns < before->taken_ns)
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	memcpy(d.ifname, after->ifname, sizeof(d.ifname));
	d.ifindex = after->ifindex;
	d.have = before->have & after->have;
	d.taken_ns = after->taken_ns - before->taken_ns;
	if (d.have & EP_LS_LINK)
		diff_counters(&before->link, &after->link, &d.link, sizeof(d.link));
	if (d.have & EP_LS_QDISC)
		diff_qdisc(&before->qdisc, &after->qdisc, &d.qdisc);
	else if (after->have & EP_LS_QDISC)
		d.qdisc = after->qdisc; /* appeared during the trial: all of it is new */
	if (after->have & EP_LS_QDISC)
		d.have |= EP_LS_QDISC;
	if (d.have & EP_LS_UDP)
		diff_counters(&before->udp, &after->udp, &d.udp, sizeof(d.udp));
	*delta = d;
	return 0;
}

/* Attribution. */

static const struct {
	const char *name;  /* counter name */
	const char *label; /* for people */
} places[EP_LOSS_PLACES] = {
	[EP_LOSS_SENDER_SOCKET] = { "sender_socket_drops", "sender socket buffer" },
	[EP_LOSS_SENDER_QDISC] = { "sender_qdisc_drops", "sender qdisc" },
	[EP_LOSS_SENDER_NIC] = { "sender_nic_drops", "sender NIC" },
	[EP_LOSS_RECEIVER_NIC] = { "receiver_nic_drops", "receiver NIC" },
	[EP_LOSS_RECEIVER_SOCKET] = { "receiver_socket_drops", "receiver socket buffer" },
	[EP_LOSS_RECEIVER_UDP] = { "receiver_udp_errors", "receiver UDP errors" },
	[EP_LOSS_RECEIVER_NO_PORT] = { "receiver_no_port", "receiver port closed" },
};

const char *ep_loss_place_name(enum ep_loss_place place)
{
	return (unsigned int)place < EP_LOSS_PLACES ? places[place].name : NULL;
}

static void put(struct ep_loss_attribution *a, enum ep_loss_place p, uint64_t n)
{
	a->at[p] = n;
	a->read[p] = 1;
}

static void attribute_sender(const struct ep_linkstats *s, struct ep_loss_attribution *a)
{
	uint64_t below = 0;

	if (s->have & EP_LS_LINK) {
		/* an interface without a root qdisc (noqueue) drops nothing there */
		put(a, EP_LOSS_SENDER_QDISC, (s->have & EP_LS_QDISC) ? s->qdisc.drops : 0);
		put(a, EP_LOSS_SENDER_NIC, s->link.tx_dropped + s->link.tx_errors);
		below = a->at[EP_LOSS_SENDER_QDISC] + a->at[EP_LOSS_SENDER_NIC];
	}
	/*
	 * UDP counts a datagram the qdisc or the device refused (NET_XMIT_DROP)
	 * as a SndbufError too, and send() reports success for it unless the
	 * socket has IP_RECVERR: only what exceeds those drops is the send
	 * buffer's own.
	 */
	if (s->have & EP_LS_UDP)
		put(a, EP_LOSS_SENDER_SOCKET,
		    s->udp.sndbuf_errors > below ? s->udp.sndbuf_errors - below : 0);
}

static void attribute_receiver(const struct ep_linkstats *r, uint64_t socket_drops,
			       struct ep_loss_attribution *a)
{
	if (r->have & EP_LS_LINK) {
		const struct ep_link_counters *l = &r->link;
		uint64_t overflow = l->rx_over_errors + l->rx_fifo_errors;

		/*
		 * rx_errors includes the length, CRC and frame errors, and some
		 * drivers count their ring overflows in it too, others not:
		 * the larger of the two counts each packet once either way.
		 */
		put(a, EP_LOSS_RECEIVER_NIC, l->rx_dropped + l->rx_missed_errors +
						     (l->rx_errors > overflow ? l->rx_errors : overflow));
	}
	if (socket_drops != UINT64_MAX)
		put(a, EP_LOSS_RECEIVER_SOCKET, socket_drops);
	if (r->have & EP_LS_UDP) {
		const struct ep_udp_counters *u = &r->udp;

		if (socket_drops == UINT64_MAX)
			put(a, EP_LOSS_RECEIVER_SOCKET, u->rcvbuf_errors);
		put(a, EP_LOSS_RECEIVER_UDP,
		    u->in_errors > u->rcvbuf_errors ? u->in_errors - u->rcvbuf_errors : 0);
		put(a, EP_LOSS_RECEIVER_NO_PORT, u->no_ports);
	}
}

void ep_loss_attribute(const struct ep_loss_inputs *in, struct ep_loss_attribution *out)
{
	uint64_t sum = 0;

	memset(out, 0, sizeof(*out));
	out->lost = in->lost;
	if (in->sender)
		attribute_sender(in->sender, out);
	if (in->receiver)
		attribute_receiver(in->receiver, in->socket_drops, out);
	else if (in->socket_drops != UINT64_MAX)
		put(out, EP_LOSS_RECEIVER_SOCKET, in->socket_drops);
	for (int p = 0; p < EP_LOSS_PLACES; p++)
		sum += out->at[p];
	out->unattributed = in->lost > sum ? in->lost - sum : 0;
	out->excess = sum > in->lost ? sum - in->lost : 0;
}

/* snprintf into @buf at @len, keeping the total length needed. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t size, int *len,
						      const char *fmt, ...)
{
	size_t at = (size_t)*len < size ? (size_t)*len : size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(size ? buf + at : NULL, size - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += n;
}

int ep_loss_attribution_text(const struct ep_loss_attribution *a, char *buf, size_t size)
{
	const char *sep = ": ";
	int len = 0, unread = 0;

	if (size)
		buf[0] = '\0';
	add(buf, size, &len, "lost %llu", (unsigned long long)a->lost);
	for (int p = 0; p < EP_LOSS_PLACES; p++) {
		if (!a->read[p] || !a->at[p])
			continue;
		add(buf, size, &len, "%s%s %llu", sep, places[p].label,
		    (unsigned long long)a->at[p]);
		sep = ", ";
	}
	if (a->unattributed)
		add(buf, size, &len, "%sunattributed %llu", sep, (unsigned long long)a->unattributed);
	if (a->excess)
		add(buf, size, &len, "; the counters saw %llu more drops than the loss "
			"(other traffic, or one packet counted twice)",
		    (unsigned long long)a->excess);
	for (int p = 0; p < EP_LOSS_PLACES; p++) {
		if (a->read[p])
			continue;
		add(buf, size, &len, "%s%s", unread++ ? ", " : "; not read: ", places[p].label);
	}
	return len;
}

#if !EMBPERF_HAVE_LIBNL

/* Built without libnl-route-3: the netlink reads are unavailable. */

static int no_libnl(char *err, size_t err_size)
{
	return ep_say(err, err_size, -EOPNOTSUPP,
		      "link and qdisc counters need libnl-route-3, and this libembperf was built "
		      "without it (meson option libnl)");
}

int ep_linkstats_open(struct ep_linkstats_src **src, char *err, size_t err_size)
{
	*src = NULL;
	return no_libnl(err, err_size);
}

void ep_linkstats_close(struct ep_linkstats_src *src)
{
	(void)src;
}

int ep_linkstats_read(struct ep_linkstats_src *src, const char *ifname,
		      struct ep_linkstats *out, char *err, size_t err_size)
{
	memset(out, 0, sizeof(*out));
	return no_libnl(err, err_size);
}

int ep_linkstats_iface_for_addr(struct ep_linkstats_src *src, const char *addr,
				char *ifname, size_t ifname_size, char *err, size_t err_size)
{
	if (ifname_size)
		ifname[0] = '\0';
	return no_libnl(err, err_size);
}

#endif
