// SPDX-License-Identifier: MIT
/*
 * linkstats_nl.c - the netlink reads of the loss attribution (libnl-route-3):
 * an interface's counters (RTM_GETLINK), its root qdisc's (RTM_GETQDISC
 * dump), and the interface the route to an address leaves by
 * (RTM_GETROUTE). Built only with libnl; linkstats.c has the rest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

#include "lib/core/clock.h"
#include "lib/core/lazylib.h"
#include "lib/core/util.h"
#include "lib/net/linkstats.h"

/* A kernel that does not answer within this long is reported, not waited for. */
#define NL_TIMEOUT_S 2

struct ep_linkstats_src {
	struct nl_sock *sk;
};

/*
 * libnl-route-3 (and libnl-3, which it links) is loaded when a link
 * counter source is first opened, not linked (lazylib.h): its start-up
 * work (the registration of every link and traffic-control type, the read
 * of /etc/libnl/classid) is not paid by processes that never read a link.
 * The calls go through this table.
 */
#define NL_CALLS(X) \
	X(nl_cache_foreach) X(nl_cache_free) X(nl_cb_alloc) X(nl_cb_err) X(nl_cb_put) X(nl_cb_set) \
	X(nl_connect) X(nl_geterror) X(nl_recvmsgs) X(nl_send_auto) X(nl_socket_alloc) \
	X(nl_socket_free) X(nl_socket_get_fd) X(nl_wait_for_ack) X(nla_get_u32) X(nla_put) \
	X(nlmsg_alloc_simple) X(nlmsg_append) X(nlmsg_free) X(nlmsg_hdr) X(nlmsg_parse) \
	X(rtnl_link_alloc_cache) X(rtnl_link_get_ifindex) X(rtnl_link_get_kernel) \
	X(rtnl_link_get_name) X(rtnl_link_get_stat) X(rtnl_link_put) X(rtnl_qdisc_alloc_cache) \
	X(rtnl_qdisc_get_by_parent) X(rtnl_qdisc_put) X(rtnl_tc_get_handle) X(rtnl_tc_get_kind) \
	X(rtnl_tc_get_stat)
EP_LAZYLIB(lnl, NL_CALLS, "libnl-route-3.so.200\0" "libnl-route-3.so");

/* libnl's error codes as errno values (libnl has no such map of its own). */
static int nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_AGAIN:
		return -ETIMEDOUT;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

int ep_linkstats_open(struct ep_linkstats_src **src, char *err, size_t err_size)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };
	struct ep_linkstats_src *s = calloc(1, sizeof(*s));
	const char *why;
	int rc;

	*src = NULL;
	if ((why = EP_LAZYLIB_OPEN(lnl))) {
		free(s);
		return ep_say(err, err_size, -EOPNOTSUPP, "the link and qdisc counters need "
			      "libnl-route-3, which could not be loaded: %s", why);
	}
	if (!s || !(s->sk = lnl.nl_socket_alloc())) {
		free(s);
		return ep_say(err, err_size, -ENOMEM, "out of memory for a netlink socket");
	}
	rc = lnl.nl_connect(s->sk, NETLINK_ROUTE);
	if (rc < 0) {
		lnl.nl_socket_free(s->sk);
		free(s);
		return ep_say(err, err_size, nl_errno(rc), "cannot open a netlink route socket: %s",
			      lnl.nl_geterror(rc));
	}
	/* a reply that never comes ends the read instead of hanging the trial */
	setsockopt(lnl.nl_socket_get_fd(s->sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*src = s;
	return 0;
}

void ep_linkstats_close(struct ep_linkstats_src *src)
{
	if (!src)
		return;
	lnl.nl_socket_free(src->sk);
	free(src);
}

static void fill_link(struct rtnl_link *l, struct ep_link_counters *c)
{
	c->rx_packets = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_PACKETS);
	c->tx_packets = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS);
	c->rx_bytes = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES);
	c->tx_bytes = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
	c->rx_dropped = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_DROPPED);
	c->tx_dropped = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_DROPPED);
	c->rx_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_ERRORS);
	c->tx_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_ERRORS);
	c->rx_over_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_OVER_ERR);
	c->rx_fifo_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_FIFO_ERR);
	c->rx_missed_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_MISSED_ERR);
	c->rx_crc_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_CRC_ERR);
	c->rx_frame_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_FRAME_ERR);
	c->rx_length_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_RX_LEN_ERR);
	c->tx_fifo_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_FIFO_ERR);
	c->tx_carrier_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_CARRIER_ERR);
	c->tx_aborted_errors = lnl.rtnl_link_get_stat(l, RTNL_LINK_TX_ABORT_ERR);
}

struct names {
	char *text;
	size_t size, len;
};

static void add_name(struct nl_object *o, void *arg)
{
	struct names *n = arg;
	const char *name = lnl.rtnl_link_get_name((struct rtnl_link *)o);
	int w;

	if (!name || n->len >= n->size)
		return;
	w = snprintf(n->text + n->len, n->size - n->len, "%s%s", n->len ? ", " : "", name);
	if (w > 0)
		n->len += (size_t)w;
}

/* -ENODEV, naming the interfaces this namespace has. */
static int no_such_link(struct ep_linkstats_src *src, const char *ifname, char *err,
			size_t err_size)
{
	char list[256] = "";
	struct names n = { list, sizeof(list), 0 };
	struct nl_cache *cache;

	if (lnl.rtnl_link_alloc_cache(src->sk, AF_UNSPEC, &cache) >= 0) {
		lnl.nl_cache_foreach(cache, add_name, &n);
		lnl.nl_cache_free(cache);
	}
	return ep_say(err, err_size, -ENODEV,
		      "network interface '%s' does not exist in this network namespace; "
		      "accepted: one of its interfaces (%s)",
		      ifname, list[0] ? list : "none could be listed");
}

static int read_link(struct ep_linkstats_src *src, const char *ifname, struct ep_linkstats *out,
		     char *err, size_t err_size)
{
	struct rtnl_link *l = NULL;
	int rc;

	if (strlen(ifname) >= IF_NAMESIZE)
		return ep_say(err, err_size, -EINVAL,
			      "network interface '%s' is not accepted: names are at most %d "
			      "characters", ifname, IF_NAMESIZE - 1);
	rc = lnl.rtnl_link_get_kernel(src->sk, 0, ifname, &l);
	if (rc == -NLE_OBJ_NOTFOUND || rc == -NLE_NODEV)
		return no_such_link(src, ifname, err, err_size);
	if (rc < 0)
		return ep_say(err, err_size, nl_errno(rc),
			      "reading interface '%s' through netlink: %s", ifname,
			      lnl.nl_geterror(rc));
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifname);
	out->ifindex = lnl.rtnl_link_get_ifindex(l);
	fill_link(l, &out->link);
	out->have |= EP_LS_LINK;
	lnl.rtnl_link_put(l);
	return 0;
}

static int read_qdisc(struct ep_linkstats_src *src, struct ep_linkstats *out, char *err,
		      size_t err_size)
{
	struct nl_cache *cache;
	struct rtnl_qdisc *q;
	struct rtnl_tc *tc;
	int rc = lnl.rtnl_qdisc_alloc_cache(src->sk, &cache);

	if (rc < 0)
		return ep_say(err, err_size, nl_errno(rc), "reading the qdiscs through netlink: %s",
			      lnl.nl_geterror(rc));
	q = lnl.rtnl_qdisc_get_by_parent(cache, out->ifindex, TC_H_ROOT);
	if (q) {
		tc = TC_CAST(q);
		snprintf(out->qdisc.kind, sizeof(out->qdisc.kind), "%s",
			 lnl.rtnl_tc_get_kind(tc) ? lnl.rtnl_tc_get_kind(tc) : "");
		out->qdisc.handle = lnl.rtnl_tc_get_handle(tc);
		out->qdisc.packets = lnl.rtnl_tc_get_stat(tc, RTNL_TC_PACKETS);
		out->qdisc.bytes = lnl.rtnl_tc_get_stat(tc, RTNL_TC_BYTES);
		out->qdisc.drops = lnl.rtnl_tc_get_stat(tc, RTNL_TC_DROPS);
		out->qdisc.overlimits = lnl.rtnl_tc_get_stat(tc, RTNL_TC_OVERLIMITS);
		out->qdisc.backlog_bytes = lnl.rtnl_tc_get_stat(tc, RTNL_TC_BACKLOG);
		out->qdisc.qlen = lnl.rtnl_tc_get_stat(tc, RTNL_TC_QLEN);
		out->have |= EP_LS_QDISC;
		lnl.rtnl_qdisc_put(q);
	}
	lnl.nl_cache_free(cache);
	return 0;
}

int ep_linkstats_read(struct ep_linkstats_src *src, const char *ifname,
		      struct ep_linkstats *out, char *err, size_t err_size)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (ifname && *ifname) {
		rc = read_link(src, ifname, out, err, err_size);
		if (!rc)
			rc = read_qdisc(src, out, err, err_size);
		if (rc)
			return rc;
	}
	rc = ep_udp_counters_read(&out->udp, err, err_size);
	if (rc)
		return rc;
	out->have |= EP_LS_UDP;
	out->taken_ns = ep_now_ns();
	return 0;
}

/* Route lookup. */

struct route_reply {
	int oif;
	int error;
};

static int on_route(struct nl_msg *msg, void *arg)
{
	struct route_reply *r = arg;
	struct nlmsghdr *h = lnl.nlmsg_hdr(msg);
	struct nlattr *tb[RTA_MAX + 1];

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    lnl.nlmsg_parse(h, sizeof(struct rtmsg), tb, RTA_MAX, NULL) < 0)
		return NL_SKIP;
	if (tb[RTA_OIF])
		r->oif = (int)lnl.nla_get_u32(tb[RTA_OIF]);
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct route_reply *r = arg;

	(void)nla;
	r->error = e->error;
	return NL_STOP;
}

/* Ask the kernel which interface the route to @dst (@len bytes of @family) uses. */
static int route_oif(struct nl_sock *sk, int family, const void *dst, int len,
		     struct route_reply *reply)
{
	struct rtmsg rtm = { .rtm_family = (unsigned char)family,
			     .rtm_dst_len = (unsigned char)(len * 8) };
	struct nl_msg *msg = lnl.nlmsg_alloc_simple(RTM_GETROUTE, 0);
	struct nl_cb *cb = lnl.nl_cb_alloc(NL_CB_DEFAULT);
	int rc = -NLE_NOMEM;

	if (!msg || !cb)
		goto out;
	rc = lnl.nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO);
	if (!rc)
		rc = lnl.nla_put(msg, RTA_DST, len, dst);
	if (!rc)
		rc = lnl.nl_send_auto(sk, msg);
	if (rc < 0)
		goto out;
	lnl.nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_route, reply);
	lnl.nl_cb_err(cb, NL_CB_CUSTOM, on_error, reply);
	rc = lnl.nl_recvmsgs(sk, cb);
	if (reply->error)
		rc = 0; /* the kernel's answer (no route): the caller says it */
	else if (rc >= 0)
		rc = lnl.nl_wait_for_ack(sk);
out:
	lnl.nl_cb_put(cb);
	lnl.nlmsg_free(msg);
	return rc < 0 ? rc : 0;
}

int ep_linkstats_iface_for_addr(struct ep_linkstats_src *src, const char *addr,
				char *ifname, size_t ifname_size, char *err, size_t err_size)
{
	unsigned char bin[sizeof(struct in6_addr)];
	struct route_reply reply = { 0, 0 };
	struct rtnl_link *l = NULL;
	int family = AF_INET, rc;

	if (ifname_size)
		ifname[0] = '\0';
	if (inet_pton(AF_INET, addr, bin) != 1) {
		family = AF_INET6;
		if (inet_pton(AF_INET6, addr, bin) != 1)
			return ep_say(err, err_size, -EINVAL,
				      "address '%s' is not accepted: a numeric IPv4 or IPv6 "
				      "address "
				      "(198.18.0.2, 2001:db8::2)",
				      addr);
	}
	rc = route_oif(src->sk, family, bin, family == AF_INET ? 4 : 16, &reply);
	if (rc < 0)
		return ep_say(err, err_size, nl_errno(rc),
			      "route lookup of '%s' through netlink: %s", addr,
			      lnl.nl_geterror(rc));
	if (reply.error || !reply.oif)
		return ep_say(err, err_size, reply.error ? reply.error : -ENETUNREACH,
			      "no route to '%s' in this network namespace: %s", addr,
			      strerror(reply.error ? -reply.error : ENETUNREACH));
	rc = lnl.rtnl_link_get_kernel(src->sk, reply.oif, NULL, &l);
	if (rc < 0)
		return ep_say(err, err_size, nl_errno(rc),
			      "the route to '%s' leaves by interface %d, which cannot be read: "
			      "%s", addr, reply.oif, lnl.nl_geterror(rc));
	rc = snprintf(ifname, ifname_size, "%s", lnl.rtnl_link_get_name(l));
	lnl.rtnl_link_put(l);
	return rc >= 0 && (size_t)rc < ifname_size
		       ? 0
		       : ep_say(err, err_size, -ENAMETOOLONG,
				"interface name longer than %zu bytes", ifname_size);
}
