// SPDX-License-Identifier: MIT
/*
 * test_net_ping.c - net.icmp.ping through the public API: on loopback every
 * request gets its reply (sent = received = count, no loss, min <= avg <=
 * max); paced requests are spread by 'interval'; an address of
 * 198.18.0.0/15 that nobody answers (in a network namespace of the test's
 * own, routed to its loopback, where forwarding is off) loses everything
 * within a bounded time; the datagram socket works where
 * net.ipv4.ping_group_range allows it and is refused, with a message
 * naming that setting and the raw socket, where it does not; without
 * CAP_NET_RAW either, both are named; bad parameters are named.
 *
 * Traffic goes to 127.0.0.1 or, inside the test's own namespace, to
 * 198.18.0.2 only; each criterion test runs in its own process, so the
 * namespace (unshare) and a dropped capability end with it. Time bounds
 * are gross: they catch a loop that never ends, not a slow machine.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "embperf.h"
#include "proc_state.h"

#define UNANSWERED_HOST "198.18.0.2"
#define RANGE_PATH "/proc/sys/net/ipv4/ping_group_range"
/*
 * A loopback round trip whose quickest reply took above 100 ms is a unit
 * mistake, not a slow machine. Only the quickest is bounded: one reply held
 * up 100 ms by a stall (qemu-user on a loaded host) is load, not a fault.
 */
#define LOOPBACK_RTT_MAX_MS 100.0

static embperf_ctx *ctx;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
}

static void teardown(void)
{
	embperf_ctx_free(ctx);
}

TestSuite(net_ping, .init = setup, .fini = teardown, .timeout = 60);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static embperf_bench *ping_bench(const char *host, const char *count, const char *interval)
{
	embperf_bench *b = embperf_bench_new(ctx, "net.icmp.ping");

	cr_assert(b, "net.icmp.ping missing: %s", embperf_ctx_errmsg(ctx));
	tp_set(b, "host", host);
	tp_set(b, "count", count);
	tp_set(b, "interval", interval);
	tp_set(b, "counters", "0");
	return b;
}

/* The one value of a per-trial counter metric (one trial); NaN when it has none. */
static double value_of(const embperf_bench *b, const char *metric)
{
	const embperf_result *r = tp_find(b, metric);

	return r ? embperf_result_value(r) : NAN;
}

static void sh_ok(const char *cmd)
{
	int st = system(cmd);

	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "'%s' failed", cmd);
}

/* A network namespace of this test process with its loopback up, or skip. */
static void own_netns(void)
{
	if (unshare(CLONE_NEWNET))
		cr_skip_test("cannot make a network namespace (unshare(CLONE_NEWNET): %s): needs "
			     "root or CAP_SYS_ADMIN", strerror(errno));
	if (system("command -v ip >/dev/null"))
		cr_skip_test("the ip command (iproute2) is not installed");
	sh_ok("ip link set lo up");
}

static void set_group_range(const char *range)
{
	FILE *f = fopen(RANGE_PATH, "w");

	cr_assert(f, "cannot open %s: %s", RANGE_PATH, strerror(errno));
	cr_assert(fputs(range, f) >= 0 && fclose(f) == 0, "cannot write %s", RANGE_PATH);
}

/* Leave this (test) process without CAP_NET_RAW; 1 when it is gone. */
static int drop_net_raw(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	data[CAP_NET_RAW / 32].effective &= ~(1u << (CAP_NET_RAW % 32));
	data[CAP_NET_RAW / 32].permitted &= ~(1u << (CAP_NET_RAW % 32));
	data[CAP_NET_RAW / 32].inheritable &= ~(1u << (CAP_NET_RAW % 32));
	return syscall(SYS_capset, &hdr, data) == 0;
}

/* Every request of a loopback ping comes back: ping's summary holds. */
static void assert_all_answered(embperf_bench *b, int count)
{
	double min, avg, max;
	const embperf_result *rtt;

	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(value_of(b, "sent"), count);
	cr_assert_eq(value_of(b, "received"), count);
	cr_assert_eq(value_of(b, "loss"), 0.0);
	cr_assert_eq(value_of(b, "duplicates"), 0.0);
	min = value_of(b, "rtt_min");
	avg = value_of(b, "rtt_avg");
	max = value_of(b, "rtt_max");
	tp_figure("ping %d on loopback: rtt min %g avg %g max %g ms", count, min, avg, max);
	cr_assert(min > 0 && min <= avg && avg <= max && min < LOOPBACK_RTT_MAX_MS,
		  "min %g avg %g max %g ms", min, avg, max);
	cr_assert(value_of(b, "rtt_mdev") >= 0 && value_of(b, "rtt_mdev") <= max - min + 1e-9,
		  "mdev %g ms", value_of(b, "rtt_mdev"));
	/* The distribution holds every reply, in ms, with the same extremes. */
	rtt = tp_find(b, "rtt");
	cr_assert(rtt, "no rtt result");
	cr_assert_str_eq(embperf_result_unit(rtt), "ms");
	cr_assert_eq(embperf_result_dist_stat(rtt, EMBPERF_STAT_N), count);
	cr_assert(embperf_result_dist_stat(rtt, EMBPERF_STAT_MAX) >= max * 0.99,
		  "distribution max %g, ping's %g", embperf_result_dist_stat(rtt, EMBPERF_STAT_MAX),
		  max);
	cr_log_info("loopback, %d requests: rtt min/avg/max/mdev = %.4f/%.4f/%.4f/%.4f ms", count,
		    min, avg, max, value_of(b, "rtt_mdev"));
}

Test(net_ping, loopback_flood_gets_every_reply)
{
	embperf_bench *b = ping_bench("127.0.0.1", "20", "0");

	assert_all_answered(b, 20);
	embperf_bench_free(b);
}

Test(net_ping, paced_requests_are_spread_by_the_interval)
{
	embperf_bench *b = ping_bench("127.0.0.1", "5", "50ms");
	double t0 = now_s(), took_s;

	assert_all_answered(b, 5);
	took_s = now_s() - t0;
	/* Four gaps of 50 ms at least; a flood would take well under 10 ms. */
	cr_assert(took_s >= 0.2 && took_s < 20.0, "5 requests 50 ms apart took %.3f s", took_s);
	embperf_bench_free(b);
}

Test(net_ping, unanswered_address_loses_everything_in_bounded_time)
{
	embperf_bench *b;
	double t0, took_s;

	own_netns();
	/* 198.18.0.0/15 to this namespace's loopback: a request comes back in
	 * as a packet for an address nobody here has, and forwarding is off,
	 * so it is dropped without an answer. */
	sh_ok("ip route add 198.18.0.0/15 dev lo");
	b = ping_bench(UNANSWERED_HOST, "5", "0");
	tp_set(b, "timeout", "200ms");
	t0 = now_s();
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	took_s = now_s() - t0;
	cr_assert_eq(value_of(b, "sent"), 5);
	cr_assert_eq(value_of(b, "received"), 0);
	cr_assert_eq(value_of(b, "loss"), 100.0);
	cr_assert(isnan(value_of(b, "rtt_avg")), "an rtt without a reply: %g",
		  value_of(b, "rtt_avg"));
	/* The flood's 10 ms between unanswered requests, then 200 ms of waiting. */
	cr_assert(took_s >= 0.2 && took_s < 10.0, "took %.3f s", took_s);
	embperf_bench_free(b);
}

Test(net_ping, datagram_socket_where_the_group_range_allows_it)
{
	embperf_bench *b;
	char socket_kind[16];

	own_netns();
	set_group_range("0 2147483647");
	b = ping_bench("127.0.0.1", "20", "0");
	tp_set(b, "socket", "dgram");
	assert_all_answered(b, 20);
	cr_assert_eq(embperf_result_label(tp_find(b, "rtt"), "socket", socket_kind,
					  sizeof(socket_kind)), 5); /* "dgram" */
	cr_assert_str_eq(socket_kind, "dgram");
	embperf_bench_free(b);
}

Test(net_ping, refused_datagram_socket_names_the_setting_and_the_raw_socket)
{
	embperf_bench *b;
	char socket_kind[16];

	own_netns();
	set_group_range("1 0"); /* no group at all */
	b = ping_bench("127.0.0.1", "3", "0");
	tp_set(b, "socket", "dgram");
	cr_assert_eq(embperf_bench_run(b), -EACCES, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "net.ipv4.ping_group_range") &&
		  strstr(embperf_bench_errmsg(b), "raw") && strstr(embperf_bench_errmsg(b), "socket"),
		  "%s", embperf_bench_errmsg(b));
	/* auto falls back to the raw socket (this test runs as root) */
	if (geteuid() != 0)
		cr_skip_test("not root: the raw socket fallback cannot be tried");
	tp_set(b, "socket", "auto");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_result_label(tp_find(b, "rtt"), "socket", socket_kind,
					  sizeof(socket_kind)), 3); /* "raw" */
	cr_assert_str_eq(socket_kind, "raw");
	cr_assert_eq(value_of(b, "received"), 3);
	embperf_bench_free(b);
}

Test(net_ping, no_socket_at_all_names_both_ways)
{
	embperf_bench *b;
	const char *msg;

	own_netns();
	set_group_range("1 0");
	if (!drop_net_raw())
		cr_skip_test("cannot drop CAP_NET_RAW (capset): the refusal of both sockets "
			     "cannot be made here");
	b = ping_bench("127.0.0.1", "3", "0");
	cr_assert_lt(embperf_bench_run(b), 0);
	msg = embperf_bench_errmsg(b);
	cr_assert(strstr(msg, "net.ipv4.ping_group_range") && strstr(msg, "CAP_NET_RAW") &&
		  strstr(msg, "socket=raw"), "%s", msg);
	cr_assert_eq(embperf_bench_result_count(b), 0);
	embperf_bench_free(b);
}

Test(net_ping, budget_ends_an_endless_ping)
{
	embperf_bench *b = ping_bench("127.0.0.1", "0", "1ms");
	double t0, took_s;
	int rc;

	tp_set(b, "duration", "60s");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 300000000ULL), 0);
	t0 = now_s();
	rc = embperf_bench_run(b);
	took_s = now_s() - t0;
	cr_assert(rc == 0 || rc == -ETIME, "%d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(took_s < 10.0, "count=0 under a 300 ms budget ran %.3f s", took_s);
	embperf_bench_free(b);
}

Test(net_ping, bad_parameters_are_named)
{
	embperf_bench *b = embperf_bench_new(ctx, "net.icmp.ping");

	cr_assert(b);
	cr_assert_eq(embperf_bench_set(b, "size", "4"), -ERANGE);
	cr_assert(strstr(embperf_bench_errmsg(b), "size"), "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "socket", "icmp"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "socket"), "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_set(b, "count", "-1"), -ERANGE);
	/* 100 requests 1 s apart do not fit the default 60 s trial */
	tp_set(b, "count", "100");
	tp_set(b, "interval", "1s");
	cr_assert_eq(embperf_bench_run(b), -ERANGE, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "'count'") &&
		  strstr(embperf_bench_errmsg(b), "'duration'"), "%s", embperf_bench_errmsg(b));
	tp_set(b, "interval", "0");
	tp_set(b, "host", "localhost");
	cr_assert_eq(embperf_bench_run(b), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'host'") &&
		  strstr(embperf_bench_errmsg(b), "localhost"), "%s", embperf_bench_errmsg(b));
	embperf_bench_free(b);
}
