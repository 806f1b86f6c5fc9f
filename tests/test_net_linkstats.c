// SPDX-License-Identifier: MIT
/*
 * test_net_linkstats.c - the loss attribution (lib/net/linkstats.h) against
 * ground truth: two network namespaces joined by a veth pair (198.18.0.1/30
 * and .2/30, the benchmarking range), a tbf shaper on the sender's end, and a
 * UDP burst above the shaped rate. The qdisc drops read through libnl must
 * equal what `tc -s qdisc` reports, every datagram sent must be either sent
 * on by the link or dropped by the qdisc, and the attribution must explain
 * the whole loss. A second pair checks the receiver's socket buffer drops
 * (SO_RXQ_OVFL and RcvbufErrors). The namespaces are named after the test's
 * pid and removed on every exit path (the suite's fini).
 *
 * IPv6 is off in the namespaces and the sender's neighbour entry is
 * permanent, so nothing but the test's datagrams crosses the link (no
 * neighbour discovery, no ARP): the counters are exact, not approximate.
 *
 * Without root (CAP_SYS_ADMIN, CAP_NET_ADMIN) or without `ip`/`tc` the
 * namespace tests skip and say what is missing. Also: the difference and
 * attribution arithmetic, the bad input, and the build without libnl.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emulated.h"
#include "config.h"
#include "lib/core/clock.h"
#include "lib/net/linkstats.h"

#define PORT 9407
#define PAYLOAD_BYTES 1000
#define BURST_DATAGRAMS 3000
#define BURST_MAX_NS 2000000000ULL /* the burst stops after 2 s whatever it sent */

/**
 * struct pair - the two namespaces of a test and the veth between them.
 * @ns_a, @ns_b:  namespace names (sender A, receiver B).
 * @if_a, @if_b:  the veth ends.
 * @fd_a, @fd_b:  the namespaces, for setns(); @fd_home: the test's own.
 * @created:      the namespaces exist (teardown removes them).
 */
struct pair {
	char ns_a[32], ns_b[32];
	char if_a[IF_NAMESIZE], if_b[IF_NAMESIZE];
	int fd_a, fd_b, fd_home;
	int created;
};

static struct pair np = { .fd_a = -1, .fd_b = -1, .fd_home = -1 };

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void teardown(void)
{
	if (np.fd_home >= 0) {
		setns(np.fd_home, CLONE_NEWNET);
		close(np.fd_home);
	}
	if (np.fd_a >= 0)
		close(np.fd_a);
	if (np.fd_b >= 0)
		close(np.fd_b);
	if (np.created) {
		/* deleting a namespace deletes the veth in it */
		sh("ip netns del %s 2>/dev/null", np.ns_a);
		sh("ip netns del %s 2>/dev/null", np.ns_b);
	}
	np = (struct pair){ .fd_a = -1, .fd_b = -1, .fd_home = -1 };
}

TestSuite(linkstats, .fini = teardown, .timeout = 60);

static int open_ns(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void enter(int fd)
{
	cr_assert_eq(setns(fd, CLONE_NEWNET), 0, "setns: %s", strerror(errno));
}

/*
 * Two namespaces joined by a veth pair, or skip saying why not. With @tbf,
 * the sender's end gets `tbf rate 10mbit burst 4kb latency 1ms`.
 */
static void pair_up(int tbf)
{
	int pid = (int)getpid();

	if (!EMBPERF_HAVE_LIBNL)
		cr_skip_test("built without libnl-route-3 (-Dlibnl=disabled or not found): the link "
			     "and qdisc counters cannot be read");
	if (sh("command -v ip >/dev/null && command -v tc >/dev/null"))
		cr_skip_test("the ip and tc commands (iproute2) are not installed");
	snprintf(np.ns_a, sizeof(np.ns_a), "epls%da", pid);
	snprintf(np.ns_b, sizeof(np.ns_b), "epls%db", pid);
	snprintf(np.if_a, sizeof(np.if_a), "epla%d", pid);
	snprintf(np.if_b, sizeof(np.if_b), "eplb%d", pid);
	if (sh("ip netns add %s 2>/dev/null", np.ns_a))
		cr_skip_test("cannot create a network namespace (ip netns add): needs root, or "
			     "CAP_SYS_ADMIN and CAP_NET_ADMIN");
	np.created = 1;
	cr_assert_eq(sh("ip netns add %s", np.ns_b), 0);
	/* no IPv6: no neighbour discovery or MLD packets on the link */
	sh("ip netns exec %s sysctl -qw net.ipv6.conf.default.disable_ipv6=1 "
	   "net.ipv6.conf.all.disable_ipv6=1 2>/dev/null", np.ns_a);
	sh("ip netns exec %s sysctl -qw net.ipv6.conf.default.disable_ipv6=1 "
	   "net.ipv6.conf.all.disable_ipv6=1 2>/dev/null", np.ns_b);
	cr_assert_eq(sh("ip link add %s netns %s address 02:00:c6:12:00:01 type veth "
			"peer name %s netns %s address 02:00:c6:12:00:02",
			np.if_a, np.ns_a, np.if_b, np.ns_b), 0, "cannot create a veth pair");
	cr_assert_eq(sh("ip -n %s addr add 198.18.0.1/30 dev %s && ip -n %s link set lo up && "
			"ip -n %s link set %s up", np.ns_a, np.if_a, np.ns_a, np.ns_a, np.if_a), 0);
	cr_assert_eq(sh("ip -n %s addr add 198.18.0.2/30 dev %s && ip -n %s link set lo up && "
			"ip -n %s link set %s up", np.ns_b, np.if_b, np.ns_b, np.ns_b, np.if_b), 0);
	/* no ARP on the link either: the sender knows the receiver's address */
	cr_assert_eq(sh("ip -n %s neigh replace 198.18.0.2 lladdr 02:00:c6:12:00:02 dev %s "
			"nud permanent", np.ns_a, np.if_a), 0);
	if (tbf)
		cr_assert_eq(sh("ip netns exec %s tc qdisc add dev %s root tbf rate 10mbit "
				"burst 4kb latency 1ms", np.ns_a, np.if_a), 0,
			     "tc qdisc add tbf failed (no CONFIG_NET_SCH_TBF?)");
	np.fd_home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	np.fd_a = open_ns(np.ns_a);
	np.fd_b = open_ns(np.ns_b);
	cr_assert(np.fd_home >= 0 && np.fd_a >= 0 && np.fd_b >= 0, "cannot open the namespaces");
}

static struct ep_linkstats_src *src_in(int fd)
{
	struct ep_linkstats_src *src;
	char err[256] = "";

	enter(fd);
	cr_assert_eq(ep_linkstats_open(&src, err, sizeof(err)), 0, "%s", err);
	return src;
}

/* A snapshot of @ifname, taken inside namespace @fd (the UDP counters are the caller's). */
static void snap(int fd, struct ep_linkstats_src *src, const char *ifname, struct ep_linkstats *s)
{
	char err[256] = "";

	enter(fd);
	cr_assert_eq(ep_linkstats_read(src, ifname, s, err, sizeof(err)), 0, "%s", err);
}

/* The receiver: bound in B, non-blocking, with SO_RXQ_OVFL on. */
static int receiver(int rcvbuf_bytes)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int fd;

	enter(np.fd_b);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	cr_assert(fd >= 0);
	inet_pton(AF_INET, "198.18.0.2", &a.sin_addr);
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf_bytes,
				sizeof(rcvbuf_bytes)), 0, "SO_RCVBUFFORCE: %s", strerror(errno));
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0, "bind: %s", strerror(errno));
	cr_assert_eq(ep_sock_rxq_ovfl_enable(fd), 0);
	return fd;
}

/* The sender: in A, connected to the receiver, with a send buffer no burst fills. */
static int sender(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int big = 16 << 20, fd;

	enter(np.fd_a);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert(fd >= 0);
	inet_pton(AF_INET, "198.18.0.2", &a.sin_addr);
	/*
	 * Datagrams queued in the qdisc stay charged to the send buffer: with
	 * the default one the sender would block at the shaped rate instead of
	 * overrunning the qdisc (../shared/probes REPORT.md 2b).
	 */
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)), 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Send up to @count datagrams as fast as possible, for at most 2 s. Return: how many were sent. */
static uint64_t burst(int fd, int count)
{
	char buf[PAYLOAD_BYTES];
	uint64_t end = ep_now_ns() + BURST_MAX_NS, sent = 0;

	memset(buf, 0x5a, sizeof(buf));
	for (int i = 0; i < count && ep_now_ns() < end; i++)
		if (send(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf))
			sent++;
	return sent;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait (at most 2 s) until the sender's qdisc holds nothing more. */
static void drain_qdisc(struct ep_linkstats_src *src)
{
	struct ep_linkstats s;

	for (int i = 0; i < 200; i++) {
		snap(np.fd_a, src, np.if_a, &s);
		if (!(s.have & EP_LS_QDISC) || !s.qdisc.qlen)
			return;
		sleep_ms(10);
	}
	cr_assert_fail("the qdisc still holds %llu packets after 2 s", (unsigned long long)s.qdisc.qlen);
}

/* How long drain_socket() waits at most for the receiver's softirq. */
#define DRAIN_MAX_NS 5000000000ULL

/*
 * Read the datagrams waiting on @fd, adding them to @received, until each
 * datagram the veth handed to B since @b0 (its rx_packets, counted as the
 * sender's end transmits) was read or dropped by the socket (RcvbufErrors),
 * or for at most 5 s. The socket's queue and drops move only once B's
 * softirq ran, which a loaded host may leave to a starved ksoftirqd: a
 * fixed quiet gap (100 ms before) could end first, and @received came up
 * short. A counter that never agrees costs the 5 s, then the checks fail.
 * @ovfl: the last SO_RXQ_OVFL count seen (unchanged when none came).
 */
static void drain_socket(int fd, struct ep_linkstats_src *sb, const struct ep_linkstats *b0,
			 uint64_t *received, uint32_t *ovfl)
{
	char buf[PAYLOAD_BYTES], ctl[CMSG_SPACE(sizeof(uint32_t))];
	const uint64_t end = ep_now_ns() + DRAIN_MAX_NS;
	struct ep_linkstats b;

	for (;;) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };

		if (recvmsg(fd, &m, 0) >= 0) {
			++*received;
			ep_sock_rxq_ovfl(&m, ovfl);
			continue;
		}
		cr_assert_eq(errno, EAGAIN, "recvmsg: %s", strerror(errno));
		snap(np.fd_b, sb, np.if_b, &b);
		if (*received + (b.udp.rcvbuf_errors - b0->udp.rcvbuf_errors) >=
			    b.link.rx_packets - b0->link.rx_packets ||
		    ep_now_ns() >= end)
			return;
		sleep_ms(10);
	}
}

/* Parse "Sent N bytes P pkt (dropped D, overlimits O ..." of `tc -s qdisc show dev IF`. */
static void tc_says(uint64_t *pkts, uint64_t *drops)
{
	char cmd[256], line[512];
	unsigned long long b, p, d;
	int found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s tc -s qdisc show dev %s", np.ns_a, np.if_a);
	f = popen(cmd, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, "Sent ");

		if (s && sscanf(s, "Sent %llu bytes %llu pkt (dropped %llu,", &b, &p, &d) == 3) {
			*pkts = p;
			*drops = d;
			found = 1;
		}
	}
	cr_assert_eq(pclose(f), 0, "%s failed", cmd);
	cr_assert(found, "no 'Sent ... (dropped N,' line from: %s", cmd);
}

Test(linkstats, qdisc_drops_equal_tc_and_the_link_sends_the_rest)
{
	tp_skip_if_emulated("qemu-user 7.2 does not translate SO_RXQ_OVFL nor netlink qdisc dumps");
	struct ep_linkstats a0, a1, b0, b1, da, db;
	struct ep_loss_attribution at;
	struct ep_linkstats_src *sa, *sb;
	uint64_t sent, received = 0, tc_pkts, tc_drops;
	uint32_t ovfl = 0;
	char text[512];
	int rx, tx;

	pair_up(1);
	sa = src_in(np.fd_a);
	sb = src_in(np.fd_b);
	rx = receiver(16 << 20);
	tx = sender();
	snap(np.fd_a, sa, np.if_a, &a0);
	snap(np.fd_b, sb, np.if_b, &b0);
	cr_assert(a0.have & EP_LS_QDISC, "the tbf qdisc was not read");
	cr_assert_str_eq(a0.qdisc.kind, "tbf");

	enter(np.fd_a);
	sent = burst(tx, BURST_DATAGRAMS);
	drain_qdisc(sa);
	drain_socket(rx, sb, &b0, &received, &ovfl);
	snap(np.fd_a, sa, np.if_a, &a1);
	snap(np.fd_b, sb, np.if_b, &b1);
	tc_says(&tc_pkts, &tc_drops);
	cr_assert_eq(ep_linkstats_diff(&a0, &a1, &da), 0);
	cr_assert_eq(ep_linkstats_diff(&b0, &b1, &db), 0);

	cr_log_info("sent %llu, received %llu, qdisc drops %llu (tc: %llu), link tx %llu",
		    (unsigned long long)sent, (unsigned long long)received,
		    (unsigned long long)da.qdisc.drops, (unsigned long long)tc_drops,
		    (unsigned long long)da.link.tx_packets);
	cr_assert_eq(a1.qdisc.drops, tc_drops, "qdisc drops: libnl %llu, tc -s %llu",
		     (unsigned long long)a1.qdisc.drops, (unsigned long long)tc_drops);
	cr_assert_eq(a1.qdisc.packets, tc_pkts, "qdisc packets: libnl %llu, tc -s %llu",
		     (unsigned long long)a1.qdisc.packets, (unsigned long long)tc_pkts);
	cr_assert_gt(da.qdisc.drops, 0, "a burst of %llu x %d bytes at once through 10 Mbit/s "
		     "lost nothing in the qdisc", (unsigned long long)sent, PAYLOAD_BYTES);
	cr_assert_eq(sent, BURST_DATAGRAMS, "the burst's send() calls failed");
	cr_assert_eq(da.link.tx_packets + da.qdisc.drops, sent,
		     "link tx %llu + qdisc drops %llu != sent %llu",
		     (unsigned long long)da.link.tx_packets, (unsigned long long)da.qdisc.drops,
		     (unsigned long long)sent);
	cr_assert_eq(da.qdisc.packets, da.link.tx_packets);
	cr_assert_eq(db.link.rx_packets, da.link.tx_packets);

	ep_loss_attribute(&(struct ep_loss_inputs){ .lost = sent - received, .sender = &da,
						    .receiver = &db, .socket_drops = ovfl },
			  &at);
	ep_loss_attribution_text(&at, text, sizeof(text));
	cr_log_info("%s", text);
	cr_assert_eq(at.at[EP_LOSS_SENDER_QDISC], da.qdisc.drops, "%s", text);
	cr_assert_eq(at.at[EP_LOSS_SENDER_SOCKET], 0, "%s (SndbufErrors %llu)", text,
		     (unsigned long long)da.udp.sndbuf_errors);
	cr_assert_eq(at.unattributed, 0, "%s", text);
	cr_assert_eq(at.excess, 0, "%s", text);
	cr_assert(strstr(text, "sender qdisc"), "%s", text);
	close(rx);
	close(tx);
	ep_linkstats_close(sa);
	ep_linkstats_close(sb);
}

Test(linkstats, receiver_socket_buffer_drops_are_counted_twice_alike)
{
	tp_skip_if_emulated("qemu-user 7.2 does not translate SO_RXQ_OVFL nor netlink qdisc dumps");
	struct ep_linkstats b0, b1, db, a0, a1, da;
	struct ep_loss_attribution at;
	struct ep_linkstats_src *sa, *sb;
	uint64_t sent, received = 0;
	uint32_t ovfl = UINT32_MAX;
	char text[512];
	int rx, tx;

	pair_up(0);
	sa = src_in(np.fd_a);
	sb = src_in(np.fd_b);
	rx = receiver(4096); /* room for a few datagrams: the rest overflow it */
	tx = sender();
	snap(np.fd_a, sa, np.if_a, &a0);
	snap(np.fd_b, sb, np.if_b, &b0);
	cr_assert(!(a0.have & EP_LS_QDISC) || !strcmp(a0.qdisc.kind, "noqueue"),
		  "a veth's root qdisc is noqueue, found '%s'", a0.qdisc.kind);

	enter(np.fd_a);
	sent = burst(tx, 200);
	drain_socket(rx, sb, &b0, &received, &ovfl);
	/* the drop count rides on datagrams queued after the drops: send one more */
	enter(np.fd_a);
	cr_assert_eq(burst(tx, 1), 1);
	sent++;
	drain_socket(rx, sb, &b0, &received, &ovfl);
	snap(np.fd_a, sa, np.if_a, &a1);
	snap(np.fd_b, sb, np.if_b, &b1);
	cr_assert_eq(ep_linkstats_diff(&a0, &a1, &da), 0);
	cr_assert_eq(ep_linkstats_diff(&b0, &b1, &db), 0);

	cr_log_info("sent %llu, received %llu, SO_RXQ_OVFL %u, RcvbufErrors %llu",
		    (unsigned long long)sent, (unsigned long long)received, ovfl,
		    (unsigned long long)db.udp.rcvbuf_errors);
	cr_assert_neq(ovfl, UINT32_MAX, "no datagram carried an SO_RXQ_OVFL count");
	cr_assert_gt(sent - received, 0, "a 4 KiB receive buffer took a burst of 200");
	cr_assert_eq(ovfl, sent - received);
	cr_assert_eq(db.udp.rcvbuf_errors, sent - received);
	cr_assert_eq(db.link.rx_packets, sent);

	ep_loss_attribute(&(struct ep_loss_inputs){ .lost = sent - received, .sender = &da,
						    .receiver = &db, .socket_drops = UINT64_MAX },
			  &at);
	ep_loss_attribution_text(&at, text, sizeof(text));
	cr_log_info("%s", text);
	cr_assert_eq(at.at[EP_LOSS_RECEIVER_SOCKET], sent - received, "%s", text);
	cr_assert_eq(at.at[EP_LOSS_SENDER_QDISC], 0, "%s", text);
	cr_assert_eq(at.unattributed, 0, "%s", text);
	cr_assert_eq(at.excess, 0, "%s", text);
	close(rx);
	close(tx);
	ep_linkstats_close(sa);
	ep_linkstats_close(sb);
}

Test(linkstats, the_route_names_the_interface_and_bad_names_are_refused)
{
	struct ep_linkstats_src *sa;
	struct ep_linkstats s;
	char name[IF_NAMESIZE], err[512];

	pair_up(0);
	sa = src_in(np.fd_a);
	cr_assert_eq(ep_linkstats_iface_for_addr(sa, "198.18.0.2", name, sizeof(name), err,
						 sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(name, np.if_a);
	cr_assert_eq(ep_linkstats_iface_for_addr(sa, "198.18.0.1", name, sizeof(name), err,
						 sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(name, "lo", "a local address is reached through lo");

	cr_assert_eq(ep_linkstats_iface_for_addr(sa, "192.0.2.7", name, sizeof(name), err,
						 sizeof(err)), -ENETUNREACH, "%s", err);
	cr_assert(strstr(err, "192.0.2.7"), "%s", err);
	cr_assert_eq(ep_linkstats_iface_for_addr(sa, "peer.example", name, sizeof(name), err,
						 sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "'peer.example'") && strstr(err, "accepted"), "%s", err);

	cr_assert_eq(ep_linkstats_read(sa, "nosuch0", &s, err, sizeof(err)), -ENODEV);
	cr_assert(strstr(err, "'nosuch0'") && strstr(err, np.if_a), "%s", err);
	cr_assert_eq(ep_linkstats_read(sa, "a-name-far-too-long-for-linux", &s, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "at most 15"), "%s", err);
	ep_linkstats_close(sa);
}

#if EMBPERF_HAVE_LIBNL
Test(linkstats, lo_is_read_in_the_tests_own_namespace)
{
	struct ep_linkstats_src *src;
	struct ep_linkstats s;
	char err[256] = "";

	tp_skip_if_emulated("qemu-user 7.2 does not translate netlink qdisc dumps");
	cr_assert_eq(ep_linkstats_open(&src, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ep_linkstats_read(src, "lo", &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.have & (EP_LS_LINK | EP_LS_UDP), EP_LS_LINK | EP_LS_UDP);
	cr_assert_gt(s.ifindex, 0);
	cr_assert_str_eq(s.ifname, "lo");
	ep_linkstats_close(src);
}
#else
Test(linkstats, without_libnl_the_reads_say_so)
{
	struct ep_linkstats_src *src;
	char err[256] = "";

	cr_assert_eq(ep_linkstats_open(&src, err, sizeof(err)), -EOPNOTSUPP);
	cr_assert(strstr(err, "libnl"), "%s", err);
	cr_assert_null(src);
}
#endif

/* The arithmetic, on made-up snapshots: no namespace needed. */

static struct ep_linkstats made(const char *ifname, uint64_t t_ns, uint64_t base)
{
	struct ep_linkstats s;

	memset(&s, 0, sizeof(s));
	snprintf(s.ifname, sizeof(s.ifname), "%s", ifname);
	s.ifindex = 7;
	s.have = EP_LS_LINK | EP_LS_QDISC | EP_LS_UDP;
	s.taken_ns = t_ns;
	s.link.tx_packets = base;
	s.link.rx_packets = base;
	s.link.tx_dropped = base / 100;
	s.link.rx_dropped = base / 50;
	s.qdisc.drops = base / 10;
	snprintf(s.qdisc.kind, sizeof(s.qdisc.kind), "tbf");
	s.qdisc.qlen = base / 1000;
	s.udp.rcvbuf_errors = base / 20;
	s.udp.in_errors = base / 20 + 3;
	s.udp.no_ports = 1;
	return s;
}

Test(linkstats, the_difference_subtracts_counters_and_keeps_gauges)
{
	struct ep_linkstats b = made("eth0", 1000, 10000), a = made("eth0", 3000, 30000), d;

	cr_assert_eq(ep_linkstats_diff(&b, &a, &d), 0);
	cr_assert_eq(d.taken_ns, 2000);
	cr_assert_eq(d.link.tx_packets, 20000);
	cr_assert_eq(d.link.tx_dropped, 200);
	cr_assert_eq(d.qdisc.drops, 2000);
	cr_assert_eq(d.qdisc.qlen, 30, "a gauge is the later reading");
	cr_assert_eq(d.udp.rcvbuf_errors, 1000);
	cr_assert_eq(d.udp.no_ports, 0);

	/* a counter that went down (interface re-created) counts from 0 */
	a.link.tx_packets = 5;
	cr_assert_eq(ep_linkstats_diff(&b, &a, &d), 0);
	cr_assert_eq(d.link.tx_packets, 5);
	/* a qdisc replaced by another: its counters are all new */
	snprintf(a.qdisc.kind, sizeof(a.qdisc.kind), "htb");
	cr_assert_eq(ep_linkstats_diff(&b, &a, &d), 0);
	cr_assert_eq(d.qdisc.drops, 3000);

	struct ep_linkstats other = made("eth1", 3000, 30000);
	cr_assert_eq(ep_linkstats_diff(&b, &other, &d), -EINVAL, "two interfaces");
	cr_assert_eq(ep_linkstats_diff(&a, &b, &d), -EINVAL, "after taken before before");
}

Test(linkstats, the_attribution_splits_the_loss_and_says_what_is_left)
{
	struct ep_linkstats s, r;
	struct ep_loss_attribution at;
	char text[512];

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	s.have = EP_LS_LINK | EP_LS_QDISC | EP_LS_UDP;
	s.qdisc.drops = 100;
	s.link.tx_dropped = 3;
	s.link.tx_errors = 2;
	s.udp.sndbuf_errors = 110; /* holds the 105 the qdisc and the NIC dropped */
	r.have = EP_LS_LINK | EP_LS_UDP;
	r.link.rx_dropped = 4;
	r.link.rx_over_errors = 6; /* not in rx_errors on this made-up driver */
	r.link.rx_errors = 1;
	r.udp.rcvbuf_errors = 20;
	r.udp.in_errors = 22;

	ep_loss_attribute(&(struct ep_loss_inputs){ .lost = 200, .sender = &s, .receiver = &r,
						    .socket_drops = UINT64_MAX }, &at);
	cr_assert_eq(at.at[EP_LOSS_SENDER_QDISC], 100);
	cr_assert_eq(at.at[EP_LOSS_SENDER_NIC], 5);
	cr_assert_eq(at.at[EP_LOSS_RECEIVER_NIC], 10, "rx_dropped 4 + the larger of errors 1, overflows 6");
	cr_assert_eq(at.at[EP_LOSS_RECEIVER_SOCKET], 20);
	cr_assert_eq(at.at[EP_LOSS_RECEIVER_UDP], 2);
	cr_assert_eq(at.at[EP_LOSS_SENDER_SOCKET], 5, "SndbufErrors beyond the qdisc and NIC drops");
	cr_assert_eq(at.unattributed, 200 - 142);
	cr_assert_eq(at.excess, 0);
	ep_loss_attribution_text(&at, text, sizeof(text));
	cr_assert_str_eq(text, "lost 200: sender socket buffer 5, sender qdisc 100, sender NIC 5, "
			       "receiver NIC 10, receiver socket buffer 20, receiver UDP errors 2, "
			       "unattributed 58");

	/* the socket's own count wins over the host's; the sender was not read */
	ep_loss_attribute(&(struct ep_loss_inputs){ .lost = 10, .receiver = &r, .socket_drops = 12 },
			  &at);
	cr_assert_eq(at.at[EP_LOSS_RECEIVER_SOCKET], 12);
	cr_assert_eq(at.excess, 14, "12 socket + 10 NIC + 2 UDP against a loss of 10");
	ep_loss_attribution_text(&at, text, sizeof(text));
	cr_assert(strstr(text, "not read: sender socket buffer, sender qdisc, sender NIC"), "%s", text);
	cr_assert(strstr(text, "14 more drops than the loss"), "%s", text);

	/* a short buffer is never overrun; the length needed is returned */
	cr_assert_gt(ep_loss_attribution_text(&at, text, 8), 8);
	cr_assert_eq(strlen(text), 7);
	cr_assert_str_eq(ep_loss_place_name(EP_LOSS_SENDER_QDISC), "sender_qdisc_drops");
	cr_assert_null(ep_loss_place_name(EP_LOSS_PLACES));
}

Test(linkstats, udp_counters_see_datagrams_to_a_closed_port)
{
	struct ep_udp_counters u0, u1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };
	char err[256] = "";
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), probe;
	socklen_t len = sizeof(a);

	cr_assert(fd >= 0);
	/* a port nobody listens on: bind one, note it, close it */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	probe = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(bind(probe, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(probe, (struct sockaddr *)&a, &len), 0);
	close(probe);
	cr_assert_eq(ep_udp_counters_read(&u0, err, sizeof(err)), 0, "%s", err);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)), 1);
	/* Counted where they are received, in a softirq that a loaded host
	 * may leave to ksoftirqd: look again for up to 2 s. */
	for (int waited_ms = 0; waited_ms < 2000; waited_ms += 10) {
		sleep_ms(10);
		cr_assert_eq(ep_udp_counters_read(&u1, err, sizeof(err)), 0, "%s", err);
		if (u1.no_ports - u0.no_ports >= 5)
			break;
	}
	/* other processes of the host may add theirs: at least ours */
	cr_assert_geq(u1.no_ports - u0.no_ports, 5);
	cr_assert_geq(u1.out_datagrams - u0.out_datagrams, 5);
	close(fd);
}
