// SPDX-License-Identifier: MIT
/*
 * l2.c - raw Ethernet test frames through libpcap (l2.h).
 *
 * The interface is the one that holds the control connection's local
 * address; the other end's MAC comes from that interface's IPv4 neighbour
 * entry (SIOCGARP), which the control connection has just filled on both
 * hosts. Each end looks up the other by the address of the control
 * connection, so the peer sends frames only to the client that asked, as
 * its UDP source does. A peer behind a router has no neighbour entry and is
 * refused: a router forwards IP, not these frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "l2.h"
#include "udp_flow.h"

#if EMBPERF_HAVE_PCAP

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/core/clock.h"
#include "lib/core/lazylib.h"
#include "lib/core/run.h"
#include "lib/core/util.h"

/* The capture's buffer: 8 MiB, as the UDP receiver's socket buffer. */
#define CAPTURE_BUFFER_BYTES (8 << 20)
/* A capture keeps the Ethernet header and the test header, no more. */
#define SNAP_BYTES (EP_L2_HEADER_BYTES + EP_WIRE_HEADER_BYTES)

/*
 * libpcap is loaded when a layer=l2 link is first opened, not linked
 * (lazylib.h): the calls go through this table. The names tried are
 * upstream's soname and Debian's.
 */
#define PCAP_CALLS(X)                                                                      \
	X(pcap_create) X(pcap_set_snaplen) X(pcap_set_buffer_size) X(pcap_set_immediate_mode) \
	X(pcap_activate) X(pcap_geterr) X(pcap_setnonblock) X(pcap_setfilter) X(pcap_close) \
	X(pcap_fileno) X(pcap_stats) X(pcap_inject) X(pcap_dispatch)
EP_LAZYLIB(pc, PCAP_CALLS, "libpcap.so.1\0" "libpcap.so.0.8\0" "libpcap.so");

/*
 * The interface holding IPv4 address @in and its MAC; refused unless its
 * hardware type is Ethernet (ARPHRD_ETHER, which libpcap captures as
 * DLT_EN10MB; loopback is captured with Ethernet framing too, but no frame
 * crosses it).
 */
static int find_iface(struct ep_l2_link *l, const struct sockaddr_in *in, char *err, size_t len)
{
	struct ifaddrs *all, *i;
	int hatype = -1, loop = 0;

	if (getifaddrs(&all))
		return ep_say(err, len, -errno, "interfaces: %s", strerror(errno));
	l->ifname[0] = '\0';
	for (i = all; i && !l->ifname[0]; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == in->sin_addr.s_addr) {
			snprintf(l->ifname, sizeof(l->ifname), "%s", i->ifa_name);
			loop = (i->ifa_flags & IFF_LOOPBACK) != 0;
		}
	for (i = all; i && l->ifname[0]; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET &&
		    !strcmp(i->ifa_name, l->ifname)) {
			const struct sockaddr_ll *ll = (const struct sockaddr_ll *)i->ifa_addr;

			hatype = ll->sll_hatype;
			memcpy(l->mac, ll->sll_addr, sizeof(l->mac));
		}
	freeifaddrs(all);
	if (!l->ifname[0])
		return ep_say(err, len, -ENODEV,
			      "no interface holds the control connection's address");
	if (loop || hatype != ARPHRD_ETHER)
		return ep_say(err, len, -EOPNOTSUPP,
			      "interface %s is %s, not Ethernet: no Ethernet frame crosses it; "
			      "accepted: an Ethernet interface to a peer on another host",
			      l->ifname, loop ? "loopback" : "of another link type");
	return 0;
}

/* The peer's MAC from the interface's neighbour entry; the MTU checked. */
static int find_peer(struct ep_l2_link *l, const struct sockaddr_in *peer, char *err, size_t len)
{
	struct arpreq req = { 0 };
	struct ifreq ifr = { 0 };
	char text[INET_ADDRSTRLEN];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return ep_say(err, len, -errno, "socket: %s", strerror(errno));
	inet_ntop(AF_INET, &peer->sin_addr, text, sizeof(text));
	memcpy(&req.arp_pa, peer, sizeof(*peer));
	snprintf(req.arp_dev, sizeof(req.arp_dev), "%s", l->ifname);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", l->ifname);
	if (ioctl(fd, SIOCGARP, &req) || !(req.arp_flags & ATF_COM))
		rc = ep_say(err, len, -EHOSTUNREACH,
			    "peer %s has no neighbour entry on interface %s: it is not on this "
			    "Ethernet segment (a router forwards IP, not these frames)",
			    text, l->ifname);
	else if (ioctl(fd, SIOCGIFMTU, &ifr))
		rc = ep_say(err, len, -errno, "MTU of %s: %s", l->ifname, strerror(errno));
	else if (l->bytes < EP_L2_MIN_BYTES || l->bytes > (uint32_t)ifr.ifr_mtu + EP_L2_HEADER_BYTES)
		rc = ep_say(err, len, -EMSGSIZE,
			    "a frame of %u bytes does not fit interface %s (accepted: 64 to its "
			    "MTU %d + 18)", l->bytes + EP_L2_FCS_BYTES, l->ifname, ifr.ifr_mtu);
	memcpy(l->peer_mac, req.arp_ha.sa_data, sizeof(l->peer_mac));
	close(fd);
	return rc;
}

/*
 * The capture's filter, in classic BPF as the kernel runs it: test frames
 * (EtherType 0x88B5) from the peer's MAC, which excludes this host's own
 * outgoing frames too; or (@capture 0) nothing at all. Written out here,
 * not compiled from text by libpcap, to keep the library small.
 */
static int set_filter(struct ep_l2_link *l, pcap_t *p, int capture)
{
	const unsigned char *m = l->peer_mac;
	struct bpf_insn code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, EP_L2_ETHERTYPE, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3], 0, 3),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 10),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)m[4] << 8 | m[5], 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SNAP_BYTES),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct bpf_program prog = { capture ? 8 : 1, capture ? code : code + 7 };

	return pc.pcap_setfilter(p, &prog);
}

static int open_pcap(struct ep_l2_link *l, int capture, char *err, size_t len)
{
	const char *why = EP_LAZYLIB_OPEN(pc);
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p;
	int bytes = CAPTURE_BUFFER_BYTES, rc;

	if (why)
		return ep_say(err, len, -EOPNOTSUPP, "raw frames need libpcap, which could not be "
			      "loaded: %s; accepted: l4, or l2 with libpcap installed", why);
	p = pc.pcap_create(l->ifname, perr);
	if (!p)
		return ep_say(err, len, -ENODEV, "pcap on %s: %s", l->ifname, perr);
	pc.pcap_set_snaplen(p, SNAP_BYTES);
	/* A sender's capture takes nothing: the smallest buffer will do. */
	pc.pcap_set_buffer_size(p, capture ? CAPTURE_BUFFER_BYTES : 65536);
	pc.pcap_set_immediate_mode(p, 1);
	rc = pc.pcap_activate(p);
	if (rc < 0) {
		rc = rc == PCAP_ERROR_PERM_DENIED ? -EPERM : -EIO;
		ep_say(err, len, rc, "raw frames on interface %s%s: %s%s", l->ifname,
		       rc == -EPERM ? " need CAP_NET_RAW (root)" : "", pc.pcap_geterr(p),
		       rc == -EPERM ? "; accepted: l4, or l2 with CAP_NET_RAW on both hosts" : "");
	} else if (set_filter(l, p, capture) || pc.pcap_setnonblock(p, 1, perr)) {
		rc = ep_say(err, len, -EIO, "pcap filter on %s: %s", l->ifname, pc.pcap_geterr(p));
	}
	if (rc < 0) {
		pc.pcap_close(p);
		return rc;
	}
	/* Frames waiting in the qdisc are charged to the send buffer: one too
	 * small would hold the sender back instead of letting the qdisc drop. */
	if (setsockopt(pc.pcap_fileno(p), SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)))
		(void)setsockopt(pc.pcap_fileno(p), SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	l->pcap = p;
	return 0;
}

int ep_l2_open(struct ep_l2_link *l, const struct sockaddr_storage *local,
	       const struct sockaddr_storage *peer, uint32_t bytes, int capture, char *err,
	       size_t err_len)
{
	int rc;

	memset(l, 0, sizeof(*l));
	l->bytes = bytes;
	if (local->ss_family != AF_INET || peer->ss_family != AF_INET)
		return ep_say(err, err_len, -EOPNOTSUPP,
			      "the peer is reached over IPv6: the other end's MAC is looked up in "
			      "the IPv4 neighbour table; accepted: an IPv4 peer on this Ethernet "
			      "segment");
	rc = find_iface(l, (const struct sockaddr_in *)local, err, err_len);
	if (!rc)
		rc = find_peer(l, (const struct sockaddr_in *)peer, err, err_len);
	return rc ? rc : open_pcap(l, capture, err, err_len);
}

void ep_l2_close(struct ep_l2_link *l)
{
	if (l->pcap)
		pc.pcap_close(l->pcap);
	l->pcap = NULL;
}

uint64_t ep_l2_capture_drops(const struct ep_l2_link *l)
{
	struct pcap_stat st = { 0 };

	/* ps_ifdrop is the interface's rx_dropped on Linux: the receiver NIC's
	 * place already counts it. */
	return l->pcap && !pc.pcap_stats(l->pcap, &st) ? st.ps_drop : 0;
}

int ep_l2_tx_init(struct ep_l2_tx *tx, struct ep_l2_link *l, uint32_t flow)
{
	memset(tx, 0, sizeof(*tx));
	tx->link = l;
	tx->count.flow = flow;
	tx->frame = calloc(1, l->bytes);
	if (!tx->frame)
		return -ENOMEM;
	memcpy(tx->frame, l->peer_mac, 6);
	memcpy(tx->frame + 6, l->mac, 6);
	tx->frame[12] = EP_L2_ETHERTYPE >> 8;
	tx->frame[13] = EP_L2_ETHERTYPE & 0xff;
	return 0;
}

uint32_t ep_l2_tx_send(struct ep_l2_tx *tx, uint32_t n, int counted)
{
	struct ep_wire_header h = { .flags = counted ? EP_WIRE_COUNTED : 0, .flow = tx->count.flow };
	uint32_t i;

	for (i = 0; i < n; i++) {
		h.seq = counted ? tx->count.seq : 0;
		h.send_ns = ep_now_ns();
		ep_wire_encode(tx->frame + EP_L2_HEADER_BYTES, &h);
		if (pc.pcap_inject(tx->link->pcap, tx->frame, tx->link->bytes) < 0) {
			/* ENOBUFS: the qdisc (or the device's queue) dropped it. It was
			 * offered to the link and carries its number: it counts as sent. */
			if (errno != ENOBUFS) {
				tx->count.last_errno = errno;
				break;
			}
			tx->count.refused++;
		}
		if (counted) {
			tx->count.seq++;
			tx->count.sent++;
		} else {
			tx->count.sent_ramp++;
		}
	}
	return i;
}

void ep_l2_tx_free(struct ep_l2_tx *tx)
{
	free(tx->frame);
	tx->frame = NULL;
}

int ep_l2_rx_init(struct ep_l2_rx *rx, struct ep_l2_link *l, uint32_t flow)
{
	memset(rx, 0, sizeof(*rx));
	rx->link = l;
	rx->flow = flow;
	rx->count = calloc(1, sizeof(*rx->count));
	return rx->count ? 0 : -ENOMEM;
}

static void on_frame(unsigned char *user, const struct pcap_pkthdr *h, const unsigned char *b)
{
	struct ep_l2_rx *rx = (struct ep_l2_rx *)(void *)user;
	uint64_t stamp = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * 1000u, at;
	struct ep_wire_header w;

	if (h->caplen < SNAP_BYTES || ep_wire_decode(b + EP_L2_HEADER_BYTES, EP_WIRE_HEADER_BYTES, &w) ||
	    w.flow != rx->flow) {
		rx->stray++;
		return;
	}
	rx->last_ns = ep_now_ns();
	if (!(w.flags & EP_WIRE_COUNTED) || !rx->counting) {
		rx->ramp++;
		return;
	}
	/* The measured part by arrival (a late reader finds the ramp's last
	 * frames in the capture), the capture's stamp on this side's clock.
	 * A frame stamped after rx->now (it came during this read) is taken as
	 * then, which is after any bound of the window set before the read. */
	at = ep_rx_arrival_ns(&rx->now, stamp);
	if (ep_rx_window_left_out(&rx->window, at, at, &rx->ramp, &rx->past_end))
		return;
	/* The capture's stamp (microseconds, CLOCK_REALTIME) against the
	 * sender's: only differences of transit times are used (jitter). */
	ep_seq_add(rx->count, w.seq, h->len, w.send_ns, stamp);
}

int ep_l2_rx_poll(struct ep_l2_rx *rx, int timeout_ms, int counting)
{
	pcap_t *p = rx->link->pcap;
	struct pollfd pf = { .fd = pc.pcap_fileno(p), .events = POLLIN };
	int taken = 0, n = 0;

	rx->counting = counting;
	if (poll(&pf, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	/* Bounded: a flow that never pauses still lets the caller look at its clock. */
	for (int i = 0; i < 16; i++) {
		ep_clock_pair_read(&rx->now);
		n = pc.pcap_dispatch(p, -1, on_frame, (unsigned char *)rx);
		if (n <= 0)
			break;
		taken += n;
	}
	return n < 0 ? -EIO : taken;
}

void ep_l2_rx_free(struct ep_l2_rx *rx)
{
	free(rx->count);
	rx->count = NULL;
}

#else /* !EMBPERF_HAVE_PCAP */

int ep_l2_open(struct ep_l2_link *l, const struct sockaddr_storage *local,
	       const struct sockaddr_storage *peer, uint32_t bytes, int capture, char *err,
	       size_t err_len)
{
	(void)local, (void)peer, (void)bytes, (void)capture;
	memset(l, 0, sizeof(*l));
	snprintf(err, err_len, "this libembperf was built without libpcap (meson option pcap)");
	return -EOPNOTSUPP;
}

void ep_l2_close(struct ep_l2_link *l)
{
	l->pcap = NULL;
}

uint64_t ep_l2_capture_drops(const struct ep_l2_link *l)
{
	(void)l;
	return 0;
}

int ep_l2_tx_init(struct ep_l2_tx *tx, struct ep_l2_link *l, uint32_t flow)
{
	(void)tx, (void)l, (void)flow;
	return -EOPNOTSUPP;
}

uint32_t ep_l2_tx_send(struct ep_l2_tx *tx, uint32_t n, int counted)
{
	(void)tx, (void)n, (void)counted;
	return 0;
}

void ep_l2_tx_free(struct ep_l2_tx *tx)
{
	(void)tx;
}

int ep_l2_rx_init(struct ep_l2_rx *rx, struct ep_l2_link *l, uint32_t flow)
{
	(void)rx, (void)l, (void)flow;
	return -EOPNOTSUPP;
}

int ep_l2_rx_poll(struct ep_l2_rx *rx, int timeout_ms, int counting)
{
	(void)rx, (void)timeout_ms, (void)counting;
	return -EOPNOTSUPP;
}

void ep_l2_rx_free(struct ep_l2_rx *rx)
{
	(void)rx;
}

#endif

/* --- the UDP kernels' side (udp_flow.h) -------------------------------------- */

int ep_udp_flow_open_l2(struct ep_udp_flow *f, int capture)
{
	char err[256];
	int rc = ep_l2_open(&f->link, &f->peer.local, &f->peer.addr, f->size_bytes, capture, err,
			    sizeof(err));

	return rc ? ep_run_fail(f->run, rc, "%s: parameter 'layer': value 'l2': %s", f->name, err)
		  : 0;
}

int ep_udp_flow_check_l2(struct ep_udp_flow *f, uint32_t bytes)
{
	uint32_t size = f->size_bytes;
	int rc;

	f->size_bytes = bytes;
	rc = ep_udp_flow_open_l2(f, !f->tx);
	ep_l2_close(&f->link);
	f->size_bytes = size;
	return rc;
}
