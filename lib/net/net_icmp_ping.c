// SPDX-License-Identifier: MIT
/*
 * net_icmp_ping.c - net.icmp.ping: ICMP echo round trips, as iputils ping
 * measures them (doc/methodology-net.md, "ICMP echo"): flood (interval=0,
 * `ping -f`) and paced (`ping -i INTERVAL`) modes; sent, received, loss,
 * rtt min/avg/max/mdev as ping prints them, and the rtt distribution.
 *
 * One trial is one ping run: 'count' echo requests (0: until the trial's
 * duration ends), then a wait of at most 'timeout' for the replies still
 * missing. The sending rule is iputils': with interval=0 the next request
 * goes as soon as the reply to the last one came, or 10 ms after it went
 * (a path that drops everything gets 100 requests/s); otherwise one every
 * 'interval'. Every loop is bounded by 'count', the trial's end, 'timeout'
 * and the run's cancel and budget.
 *
 * The socket is an unprivileged ICMP datagram socket (socket(AF_INET,
 * SOCK_DGRAM, IPPROTO_ICMP): the kernel allows it when the process's group
 * is within net.ipv4.ping_group_range, and fills the identifier and the
 * checksum), or a raw ICMP socket (root, CAP_NET_RAW) where that is
 * refused; parameter 'socket' chooses, and the labels say which one ran.
 *
 * The send time travels in the request's first 8 payload bytes. With
 * timestamp=kernel (iputils' default) the reply's arrival is the kernel's
 * receive time stamp (SO_TIMESTAMPNS, on CLOCK_REALTIME, so the send time
 * is read on that clock too); timestamp=user (ping -U) takes both on the
 * trial's clock in this process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/sysinfo.h"
#include "lib/core/util.h"

#define PING_FLOOD_WAIT_NS 10000000ULL   /* iputils' MIN_INTERVAL_MS */
#define PING_USER_MIN_INTERVAL_NS 2000000ULL /* iputils' MIN_USER_INTERVAL_MS */
#define PING_STAMP_BYTES 8               /* the send time in the payload */
#define PING_MAX_PAYLOAD_BYTES 65507     /* 65535 - IPv4 header - ICMP header */
#define PING_IP_MAX_HEADER_BYTES 60
#define PING_SEQ_SPACE 65536
#define PING_DRAIN_MAX 256 /* messages read in one go */
#define PING_GROUP_RANGE "/proc/sys/net/ipv4/ping_group_range"
#ifndef ICMP_FILTER
#define ICMP_FILTER 1 /* <linux/icmp.h>'s, which clashes with <netinet/ip_icmp.h> */
#endif

enum { SOCK_AUTO, SOCK_DGRAM_ONLY, SOCK_RAW_ONLY };
enum { STAMP_KERNEL, STAMP_USER };

enum { C_SENT, C_RECEIVED, C_LOSS, C_MIN, C_AVG, C_MAX, C_MDEV, C_DUPLICATES };

static const char *const ping_counters[] = {
	"sent", "received", "loss", "rtt_min", "rtt_avg", "rtt_max", "rtt_mdev", "duplicates",
};

static const struct ep_param_desc ping_params[] = {
	{ "host", EP_PT_STRING, "127.0.0.1", { { 0, 0 } }, NULL, "",
	  "IPv4 address to ping (dotted quad; no names)" },
	{ "count", EP_PT_INT, "1000", { { 0, 100000000 } }, NULL, "",
	  "requests per trial (ping -c); 0: until 'duration' ends" },
	{ "interval", EP_PT_DURATION, "0", { { 0, 3600000000000LL } }, NULL, "ns",
	  "time between requests (ping -i); 0: flood (ping -f)" },
	{ "size", EP_PT_SIZE, "56", { { PING_STAMP_BYTES, PING_MAX_PAYLOAD_BYTES } }, NULL, "bytes",
	  "payload bytes (ping -s)" },
	{ "timeout", EP_PT_DURATION, "10s", { { 1000000, 3600000000000LL } }, NULL, "ns",
	  "wait for missing replies after the last request (ping -W)" },
	{ "socket", EP_PT_ENUM, "auto", { { 0, 0 } }, "auto|dgram|raw", "",
	  "ICMP datagram socket (net.ipv4.ping_group_range), raw (CAP_NET_RAW), or "
	  "datagram else raw" },
	{ "timestamp", EP_PT_ENUM, "kernel", { { 0, 0 } }, "kernel|user", "",
	  "a reply's arrival: the kernel's stamp (ping) or when read (ping -U)" },
};

#define PING_COUNTER_METRIC(name, unit, help)                                               \
	{ name, unit, EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0, help }

static const struct ep_metric_desc ping_metrics[] = {
	{ "rtt", "ms", EP_METRIC_TRIAL_LATENCY, 1e6, EP_PRIMARY_MEDIAN, 0,
	  "round trip, median, with percentiles" },
	{ "sent", "packets", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "requests sent (ping's transmitted)" },
	{ "received", "packets", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 1,
	  "distinct replies (ping's received)" },
	PING_COUNTER_METRIC("loss", "%", "ping's packet loss"),
	PING_COUNTER_METRIC("rtt_min", "ms", "ping's min"),
	PING_COUNTER_METRIC("rtt_avg", "ms", "ping's avg"),
	PING_COUNTER_METRIC("rtt_max", "ms", "ping's max"),
	PING_COUNTER_METRIC("rtt_mdev", "ms", "ping's mdev"),
	PING_COUNTER_METRIC("duplicates", "packets", "ping's duplicates"),
};

/**
 * struct ping_stats - one trial's counts, as ping keeps them.
 * @sent, @received, @duplicates: packets.
 * @first_seq:  sequence number of the trial's first request.
 * @sum_ns, @sum2_ns2, @min_ns, @max_ns: over every reply, duplicates too (ping's).
 */
struct ping_stats {
	uint64_t sent;
	uint64_t received;
	uint64_t duplicates;
	uint16_t first_seq;
	double sum_ns;
	double sum2_ns2;
	uint64_t min_ns;
	uint64_t max_ns;
};

/**
 * struct ping - the kernel's state.
 * @fd:        the ICMP socket, or -1.
 * @raw:       @fd is a raw socket (IP headers in, identifier and checksum ours).
 * @trial:     the running trial (its clock stamps timestamp=user and the waits).
 * @ident:     the raw socket's echo identifier.
 * @next_seq:  sequence number of the next request.
 * @seen:      a bit per sequence number: its reply came.
 * @out, @in:  the request, and room for a reply with its IP header.
 */
struct ping {
	struct ep_run *run;
	struct sockaddr_in dest;
	uint64_t count;
	uint64_t interval_ns;
	uint64_t timeout_ns;
	uint32_t size_bytes;
	int stamp;
	int fd;
	int raw;
	struct ep_trial *trial;
	uint16_t ident;
	uint16_t next_seq;
	uint8_t *seen;
	uint8_t *out;
	uint8_t *in;
	size_t out_bytes;
	size_t in_bytes;
	char label[96];
};

/* The Internet checksum (RFC 1071) of @len bytes: a raw socket's requests need it. */
static uint16_t inet_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* The send and arrival times: the engine's clock, or CLOCK_REALTIME for kernel stamps. */
static uint64_t stamp_now_ns(const struct ping *st)
{
	struct timespec ts;

	if (st->stamp == STAMP_USER)
		return ep_trial_now_ns(st->trial);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int seq_seen(const struct ping *st, uint16_t seq)
{
	return st->seen[seq >> 3] & (1u << (seq & 7));
}

/* Send the next request. Return: 1 sent, 0 not sent (no buffer: try later), or a failure. */
static int send_echo(struct ping *st, struct ping_stats *ps)
{
	struct icmphdr *h = (struct icmphdr *)st->out;
	uint64_t sent_at = stamp_now_ns(st);
	ssize_t n;

	h->type = ICMP_ECHO;
	h->code = 0;
	h->un.echo.id = htons(st->ident); /* a datagram socket puts its own */
	h->un.echo.sequence = htons(st->next_seq);
	h->checksum = 0;
	memcpy(st->out + sizeof(*h), &sent_at, sizeof(sent_at));
	if (st->raw)
		h->checksum = inet_checksum(st->out, st->out_bytes);
	st->seen[st->next_seq >> 3] &= (uint8_t)~(1u << (st->next_seq & 7));
	do
		n = sendto(st->fd, st->out, st->out_bytes, 0, (const struct sockaddr *)&st->dest,
			   sizeof(st->dest));
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == ENOBUFS || errno == EAGAIN))
		return 0;
	/* Unreachable now is a request without a reply, as ping counts it. */
	if (n < 0 && errno != EHOSTUNREACH && errno != ENETUNREACH && errno != EHOSTDOWN)
		return ep_run_fail(st->run, -errno, "net.icmp.ping: sending to %s: %s",
				   ep_param_text(st->run, "host"), strerror(errno));
	st->next_seq++;
	ps->sent++;
	return 1;
}

/* The kernel's receive time stamp of @msg, or now when it has none. */
static uint64_t arrival_ns(const struct ping *st, struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c && st->stamp == STAMP_KERNEL;
	     c = CMSG_NXTHDR(msg, c)) {
		struct timespec ts;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	}
	return stamp_now_ns(st);
}

/* The ICMP message of @len received bytes (after a raw socket's IP header), or NULL. */
static const struct icmphdr *icmp_of(const struct ping *st, size_t *len)
{
	const struct iphdr *ip = (const struct iphdr *)st->in;
	size_t skip;

	if (!st->raw)
		return *len >= sizeof(struct icmphdr) ? (const struct icmphdr *)st->in : NULL;
	if (*len < sizeof(*ip) || ip->protocol != IPPROTO_ICMP ||
	    ip->saddr != st->dest.sin_addr.s_addr)
		return NULL;
	skip = (size_t)ip->ihl * 4;
	if (*len < skip + sizeof(struct icmphdr))
		return NULL;
	*len -= skip;
	return (const struct icmphdr *)(st->in + skip);
}

/* Count one received message if it is a reply to this trial's requests. */
static void take_reply(struct ping *st, struct ping_stats *ps, struct ep_tally *ta, size_t len,
		       uint64_t arrived_ns)
{
	const struct icmphdr *h = icmp_of(st, &len);
	uint64_t sent_at, rtt_ns;
	uint16_t seq;

	if (!h || h->type != ICMP_ECHOREPLY || len < sizeof(*h) + PING_STAMP_BYTES ||
	    (st->raw && ntohs(h->un.echo.id) != st->ident))
		return;
	seq = ntohs(h->un.echo.sequence);
	if ((uint16_t)(seq - ps->first_seq) >= (ps->sent < PING_SEQ_SPACE ? ps->sent : PING_SEQ_SPACE))
		return; /* not one of this trial's */
	if (seq_seen(st, seq)) {
		ps->duplicates++;
	} else {
		st->seen[seq >> 3] |= (uint8_t)(1u << (seq & 7));
		ps->received++;
	}
	/* Every reply's round trip counts, a duplicate's too, as in ping's statistics. */
	memcpy(&sent_at, h + 1, sizeof(sent_at));
	rtt_ns = arrived_ns > sent_at ? arrived_ns - sent_at : 0; /* a clock stepped back */
	ps->sum_ns += (double)rtt_ns;
	ps->sum2_ns2 += (double)rtt_ns * (double)rtt_ns;
	ps->min_ns = ps->received + ps->duplicates == 1 || rtt_ns < ps->min_ns ? rtt_ns : ps->min_ns;
	ps->max_ns = rtt_ns > ps->max_ns ? rtt_ns : ps->max_ns;
	ep_tally_op(ta, 1, st->out_bytes, rtt_ns);
}

/* Read the messages waiting on the socket, at most PING_DRAIN_MAX (a host
 * that floods replies must not hold the loop past the trial's end). Return:
 * 0 or a failure. */
static int drain(struct ping *st, struct ping_stats *ps, struct ep_tally *ta)
{
	char control[CMSG_SPACE(sizeof(struct timespec)) + 64];

	for (int i = 0; i < PING_DRAIN_MAX; i++) {
		struct iovec iov = { st->in, st->in_bytes };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				      .msg_controllen = sizeof(control) };
		ssize_t n = recvmsg(st->fd, &msg, MSG_DONTWAIT);

		if (n >= 0) {
			take_reply(st, ps, ta, (size_t)n, arrival_ns(st, &msg));
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		/* EINTR, and an ICMP error queued on the socket (unreachable): no reply. */
		if (errno != EINTR && errno != EHOSTUNREACH && errno != ENETUNREACH &&
		    errno != ECONNREFUSED && errno != EHOSTDOWN)
			return ep_run_fail(st->run, -errno, "net.icmp.ping: receiving: %s",
					   strerror(errno));
	}
	return 0;
}

/* May the next request go at @now_ns? iputils' rule, see the top of the file. */
static int may_send(const struct ping *st, const struct ping_stats *ps, uint64_t last_ns,
		    uint64_t now_ns)
{
	if (!ps->sent)
		return 1;
	if (!st->interval_ns)
		return ps->received >= ps->sent || now_ns - last_ns >= PING_FLOOD_WAIT_NS;
	return now_ns - last_ns >= st->interval_ns;
}

/* Wait until the socket is readable or @until_ns (the trial's clock). */
static void wait_reply(const struct ping *st, uint64_t until_ns)
{
	uint64_t now = ep_trial_now_ns(st->trial), wait_ns = until_ns > now ? until_ns - now : 0;
	struct timespec ts = { (time_t)(wait_ns / 1000000000ULL), (long)(wait_ns % 1000000000ULL) };
	struct pollfd p = { .fd = st->fd, .events = POLLIN };

	ppoll(&p, 1, &ts, NULL);
}

/* The ping's sending part: until 'count' went or the trial ends. Return: 0 or a failure. */
static int send_phase(struct ping *st, struct ping_stats *ps, struct ep_trial *t,
		      uint64_t *last_ns)
{
	struct ep_tally *ta = ep_trial_tally(t);

	while (ep_trial_running(t) && (!st->count || ps->sent < st->count)) {
		uint64_t now = ep_trial_now_ns(t), next;
		int rc = 0;

		if (may_send(st, ps, *last_ns, now)) {
			rc = send_echo(st, ps);
			if (rc > 0)
				*last_ns = now;
			else if (!rc) /* no buffer: a flood's pause, then again */
				wait_reply(st, now + PING_FLOOD_WAIT_NS);
		}
		if (rc < 0 || (rc = drain(st, ps, ta)))
			return rc;
		next = *last_ns + (st->interval_ns ? st->interval_ns : PING_FLOOD_WAIT_NS);
		if (ps->sent && (st->interval_ns || ps->received < ps->sent))
			wait_reply(st, next < ep_trial_end_ns(t) ? next : ep_trial_end_ns(t));
	}
	return 0;
}

/* After the last request: the missing replies, for at most 'timeout'. */
static int linger_phase(struct ping *st, struct ping_stats *ps, struct ep_trial *t,
			uint64_t last_ns)
{
	uint64_t until_ns = last_ns + st->timeout_ns;

	while (ps->received < ps->sent && ep_trial_now_ns(t) < until_ns) {
		int rc = ep_run_check(st->run);

		if (rc)
			return rc;
		wait_reply(st, until_ns);
		rc = drain(st, ps, ep_trial_tally(t));
		if (rc)
			return rc;
	}
	return 0;
}

/* ping's summary into the trial's counters; the rtt figures in ms, NaN without a reply. */
static void report(const struct ping_stats *ps, struct ep_tally *ta)
{
	double n = (double)(ps->received + ps->duplicates), avg = n > 0 ? ps->sum_ns / n : NAN;
	double var = n > 0 ? ps->sum2_ns2 / n - avg * avg : NAN;

	ep_tally_count_after(ta, C_SENT, (double)ps->sent);
	ep_tally_count_after(ta, C_RECEIVED, (double)ps->received);
	ep_tally_count_after(ta, C_DUPLICATES, (double)ps->duplicates);
	ep_tally_count_after(ta, C_LOSS, ps->sent ? 100.0 * (double)(ps->sent - ps->received) /
							    (double)ps->sent
						  : NAN);
	ep_tally_count_after(ta, C_MIN, n > 0 ? (double)ps->min_ns / 1e6 : NAN);
	ep_tally_count_after(ta, C_AVG, avg / 1e6);
	ep_tally_count_after(ta, C_MAX, n > 0 ? (double)ps->max_ns / 1e6 : NAN);
	ep_tally_count_after(ta, C_MDEV, var > 0 ? sqrt(var) / 1e6 : (n > 0 ? 0.0 : NAN));
}

/** ping_body() - one trial: one ping run. */
static int ping_body(void *arg, struct ep_trial *t)
{
	struct ping *st = arg;
	struct ping_stats ps = { .first_seq = st->next_seq };
	uint64_t last_ns = 0;
	int rc;

	st->trial = t;
	ep_trial_started(t);
	rc = send_phase(st, &ps, t, &last_ns);
	if (!rc && ps.sent)
		rc = linger_phase(st, &ps, t, last_ns);
	if (rc)
		return rc;
	report(&ps, ep_trial_tally(t));
	return 0;
}

static void ping_teardown(void *state)
{
	struct ping *st = state;

	if (st->fd >= 0)
		close(st->fd);
	free(st->seen);
	free(st->out);
	free(st->in);
}

/* net.ipv4.ping_group_range as text ("1 0"), for messages. */
static void group_range(char *buf, size_t len)
{
	if (ep_read_first_line(PING_GROUP_RANGE, buf, len))
		snprintf(buf, len, "unknown");
	for (char *p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
}

static int open_dgram(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);

	return fd < 0 ? -errno : fd;
}

/*
 * A raw ICMP socket that lets only echo replies with identifier @ident
 * through: a raw socket gets a copy of every ICMP message of the host, and
 * another ping's flood would fill its buffer and drop this one's replies
 * (ICMP_FILTER keeps the echo replies, a socket filter those of @ident).
 */
static int open_raw(uint16_t ident)
{
	uint32_t types = ~(1u << ICMP_ECHOREPLY);
	struct sock_filter code[] = {
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0), /* X: the IP header's length */
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 4),  /* the echo identifier */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ident, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { (unsigned short)EP_ARRAY_SIZE(code), code };
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_RAW, ICMP_FILTER, &types, sizeof(types));
	setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	return fd;
}

/* Neither socket: say why, and what would allow one. */
static int refused(struct ep_run *run, int mode, int dgram_err, int raw_err)
{
	char range[64];

	group_range(range, sizeof(range));
	return ep_run_fail(run, mode == SOCK_RAW_ONLY ? raw_err : dgram_err,
			   "parameter 'socket' value '%s': no ICMP socket: datagram socket: %s "
			   "(group %u, net.ipv4.ping_group_range '%s'); raw socket: %s; accepted: "
			   "a group within net.ipv4.ping_group_range (sysctl -w "
			   "net.ipv4.ping_group_range='0 2147483647'), or root / CAP_NET_RAW "
			   "(socket=raw or auto)", ep_param_text(run, "socket"),
			   mode == SOCK_RAW_ONLY ? "not tried" : strerror(-dgram_err),
			   (unsigned)getegid(), range,
			   mode == SOCK_DGRAM_ONLY ? "not tried" : strerror(-raw_err));
}

/* The socket of parameter 'socket'. Return: 0 or a failure naming what to change. */
static int open_socket(struct ep_run *run, struct ping *st)
{
	int mode = (int)ep_param_int(run, "socket"), on = 1;
	int dgram = mode == SOCK_RAW_ONLY ? -EACCES : open_dgram(), raw = -EPERM;

	if (dgram < 0 && mode != SOCK_DGRAM_ONLY)
		raw = open_raw(st->ident);
	if (dgram < 0 && raw < 0)
		return refused(run, mode, dgram, raw);
	st->fd = dgram >= 0 ? dgram : raw;
	st->raw = dgram < 0;
	if (st->stamp == STAMP_KERNEL)
		setsockopt(st->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	return 0;
}

static int read_params(struct ep_run *run, struct ping *st)
{
	const char *host = ep_param_text(run, "host");

	st->dest.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &st->dest.sin_addr) != 1)
		return ep_run_refuse(run, -EINVAL, "host", " is not an IPv4 address; accepted: a "
				     "dotted quad such as 127.0.0.1 (no names, no IPv6)");
	st->count = (uint64_t)ep_param_int(run, "count");
	st->interval_ns = (uint64_t)ep_param_int(run, "interval");
	st->timeout_ns = (uint64_t)ep_param_int(run, "timeout");
	st->size_bytes = (uint32_t)ep_param_int(run, "size");
	st->stamp = (int)ep_param_int(run, "timestamp");
	/* 'duration' caps a trial: it must not cut a paced count short unasked. */
	if (st->count > 1 && st->interval_ns &&
	    (double)(st->count - 1) * (double)st->interval_ns >
		    (double)ep_param_int(run, "duration"))
		return ep_run_fail(run, -ERANGE, "parameters 'count' and 'interval': %s requests "
				   "%s apart take longer than 'duration' (%s), the trial's cap; "
				   "accepted: a longer 'duration', or fewer requests",
				   ep_param_text(run, "count"), ep_param_text(run, "interval"),
				   ep_param_text(run, "duration"));
	if (st->interval_ns < PING_USER_MIN_INTERVAL_NS && geteuid() != 0)
		return ep_run_refuse(run, -EPERM, "interval", " needs root, as with ping; "
				     "accepted: 2ms or more");
	return 0;
}

static int ping_setup(struct ep_run *run, void **state)
{
	struct ping *st = *state;
	struct ep_trial_case tc = {
		.body = ping_body,
		.counters = ping_counters,
		.n_counters = (int)EP_ARRAY_SIZE(ping_counters),
	};
	int rc;

	st->fd = -1;
	st->run = run;
	st->ident = (uint16_t)(getpid() ^ ((uintptr_t)st >> 4));
	rc = read_params(run, st);
	if (!rc)
		rc = open_socket(run, st);
	if (rc)
		return rc;
	st->out_bytes = sizeof(struct icmphdr) + st->size_bytes;
	st->in_bytes = PING_IP_MAX_HEADER_BYTES + st->out_bytes;
	st->seen = calloc(PING_SEQ_SPACE / 8, 1);
	st->out = calloc(1, st->out_bytes);
	st->in = malloc(st->in_bytes);
	if (!st->seen || !st->out || !st->in)
		return -ENOMEM;
	snprintf(st->label, sizeof(st->label), "host=%s interval=%s size=%u socket=%s",
		 ep_param_text(run, "host"), ep_param_text(run, "interval"), st->size_bytes,
		 st->raw ? "raw" : "dgram");
	tc.labels = st->label;
	tc.arg = st;
	return ep_run_add_trial(run, &tc);
}

static const struct ep_default ping_defaults[] = {
	{ "duration", "60s" }, /* a cap: count=1000 at the flood's pace is far shorter */
	{ "repetitions", "1" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_net_icmp_ping = {
	.name = "net.icmp.ping",
	.summary = "ICMP echo round trips, flood (ping -f) or paced (ping -i): sent, received, "
		   "loss, rtt min/avg/max/mdev and percentiles",
	EP_PARAMS(ping_params),
	EP_METRICS(ping_metrics),
	.engine_defaults = ping_defaults,
	.setup = ping_setup,
	.teardown = ping_teardown,
	.state_bytes = sizeof(struct ping),
	.trials = 1,
};
