// SPDX-License-Identifier: MIT
/*
 * flow_drops.c - one side's drop counters over a flow (flow_drops.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "flow_drops.h"

/* The numeric text of @ss's address, as ep_linkstats_iface_for_addr() takes it. */
static int addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	return inet_ntop(ss->ss_family, a, buf, (socklen_t)len) ? 0 : -1;
}

void ep_flow_drops_start(struct ep_flow_drops *d, const struct sockaddr_storage *toward)
{
	char addr[INET6_ADDRSTRLEN];

	memset(d, 0, sizeof(*d));
	if (addr_text(toward, addr, sizeof(addr)) || ep_linkstats_open(&d->src, NULL, 0))
		return;
	if (ep_linkstats_iface_for_addr(d->src, addr, d->ifname, sizeof(d->ifname), NULL, 0) ||
	    ep_linkstats_read(d->src, d->ifname, &d->before, NULL, 0)) {
		ep_linkstats_close(d->src);
		d->src = NULL;
		return;
	}
	d->have = 1;
}

void ep_flow_drops_stop(struct ep_flow_drops *d, struct ep_linkstats *delta)
{
	struct ep_linkstats after;

	memset(delta, 0, sizeof(*delta));
	if (d->have && !ep_linkstats_read(d->src, d->ifname, &after, NULL, 0) &&
	    ep_linkstats_diff(&d->before, &after, delta))
		memset(delta, 0, sizeof(*delta));
	ep_linkstats_close(d->src);
	d->src = NULL;
	d->have = 0;
}

void ep_flow_drops_to_report(const struct ep_linkstats *delta, struct ep_report *r)
{
	r->ls_have = delta->have;
	r->ls_qdisc_drops = delta->qdisc.drops;
	r->ls_tx_dropped = delta->link.tx_dropped;
	r->ls_tx_errors = delta->link.tx_errors;
	r->ls_rx_dropped = delta->link.rx_dropped;
	r->ls_rx_errors = delta->link.rx_errors;
	r->ls_rx_over = delta->link.rx_over_errors;
	r->ls_rx_fifo = delta->link.rx_fifo_errors;
	r->ls_rx_missed = delta->link.rx_missed_errors;
	r->ls_udp_sndbuf = delta->udp.sndbuf_errors;
	r->ls_udp_rcvbuf = delta->udp.rcvbuf_errors;
	r->ls_udp_in_errors = delta->udp.in_errors;
	r->ls_udp_no_ports = delta->udp.no_ports;
}

void ep_flow_drops_from_report(const struct ep_report *r, struct ep_linkstats *delta)
{
	memset(delta, 0, sizeof(*delta));
	delta->have = r->ls_have;
	delta->qdisc.drops = r->ls_qdisc_drops;
	delta->link.tx_dropped = r->ls_tx_dropped;
	delta->link.tx_errors = r->ls_tx_errors;
	delta->link.rx_dropped = r->ls_rx_dropped;
	delta->link.rx_errors = r->ls_rx_errors;
	delta->link.rx_over_errors = r->ls_rx_over;
	delta->link.rx_fifo_errors = r->ls_rx_fifo;
	delta->link.rx_missed_errors = r->ls_rx_missed;
	delta->udp.sndbuf_errors = r->ls_udp_sndbuf;
	delta->udp.rcvbuf_errors = r->ls_udp_rcvbuf;
	delta->udp.in_errors = r->ls_udp_in_errors;
	delta->udp.no_ports = r->ls_udp_no_ports;
}
