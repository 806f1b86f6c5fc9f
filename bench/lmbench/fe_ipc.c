// SPDX-License-Identifier: MIT
/*
 * fe_ipc.c - communication front ends: lat_pipe, lat_unix, lat_tcp,
 * lat_udp, lat_connect, lat_select, bw_pipe and bw_unix (the os.pipe.*,
 * os.unix.*, os.tcp.*, os.udp.lat and os.select kernels).
 *
 * The network benchmarks of lmbench are a client and a server started
 * apart (`lat_tcp -s` leaves a server running, `lat_tcp -S HOST` stops it).
 * libembperf's kernels start their own server on loopback for each run and
 * stop it after, so here -s and -S have nothing to do: they say so on
 * stderr and succeed, which keeps lmbench's own scripts (-s; HOST; -S HOST)
 * working. The host must be this machine's loopback.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "lmb.h"

/* lmbench's default bytes per write of the bandwidth benchmarks. */
#define LMB_XFER_BYTES (64 * 1024)
/* lmbench's default bytes moved per timed call of bw_pipe and bw_unix. */
#define LMB_TOTAL_BYTES (10 * 1024 * 1024)
/* lat_udp refuses messages above this. */
#define LAT_UDP_MAX_MSG_BYTES (10 * 1024 * 1024)

/* Is @sa an address of the loopback interface? */
static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return 0;
}

/* The kernels measure on loopback only: refuse another host. Return: 0 or LMB_EXIT_FAIL. */
static int check_loopback_host(struct lmb *m, const char *host)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC }, *list = NULL;
	int err = getaddrinfo(host, NULL, &hints, &list), local = 1;

	if (err)
		return lmb_fail(m, "%s: %s", host, gai_strerror(err));
	for (const struct addrinfo *ai = list; ai; ai = ai->ai_next)
		if (!is_loopback(ai->ai_addr))
			local = 0;
	freeaddrinfo(list);
	if (!local)
		return lmb_fail(m,
				"%s is not this machine's loopback: libembperf measures on loopback only; use localhost or 127.0.0.1",
				host);
	return 0;
}

/* -s / -S: the library starts and stops its server itself. */
static int server_option(struct lmb *m, int stop)
{
	fprintf(stderr,
		"%s: %s: nothing to do, libembperf starts its own loopback server for each run and stops it after\n",
		m->name, stop ? "-S" : "-s");
	return 0;
}

/* The kernel's message size parameter ("size" or "msize"), or NULL. */
static const char *msg_size_param(const char *kernel)
{
	if (lmb_has_param(kernel, "msize"))
		return "msize";
	if (lmb_has_param(kernel, "size"))
		return "size";
	return NULL;
}

/*
 * Run a latency kernel with an optional message size (@msg_bytes < 0: the
 * kernel's default) and print LABEL: X microseconds.
 */
static int latency_with_size(struct lmb *m, const char *kernel, long msg_bytes, const char *label)
{
	char size_param[64];
	const char *params[2] = { NULL, NULL };
	const char *key;

	if (msg_bytes >= 0) {
		key = msg_size_param(kernel);
		if (!key && embperf_kernel_summary(kernel))
			return lmb_fail(m, "-m: %s takes no message size", kernel);
		snprintf(size_param, sizeof(size_param), "%s=%ld", key ? key : "size", msg_bytes);
		params[0] = size_param;
	}
	return lmb_one(m, kernel, params, label);
}

/**
 * lmb_lat_pipe() - lat_pipe [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_pipe(struct lmb *m, int argc, char **argv)
{
	int c;

	m->synopsis = "[-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	while ((c = lmb_getopt(m, argc, argv, "P:W:N:")) != -1)
		if (lmb_engine_option(m, c) != 1)
			return lmb_usage(m);
	if (m->optind < argc)
		return lmb_usage(m);
	return lmb_one(m, "os.pipe.lat", NULL, "Pipe latency");
}

/**
 * lmb_lat_unix() - lat_unix [-m BYTES] [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_unix(struct lmb *m, int argc, char **argv)
{
	long msg_bytes = -1;
	int c;

	m->synopsis = "[-m <message size>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	while ((c = lmb_getopt(m, argc, argv, "m:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0 || (!handled && c != 'm'))
			return lmb_usage(m);
		if (c == 'm')
			msg_bytes = lmb_atoi(m->optarg);
	}
	if (m->optind < argc)
		return lmb_usage(m);
	return latency_with_size(m, "os.unix.lat", msg_bytes, "AF_UNIX sock stream latency");
}

/**
 * lmb_lat_tcp() - lat_tcp -s | [-m BYTES] [-P N] [-W US] [-N N] HOST | -S HOST
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_tcp(struct lmb *m, int argc, char **argv)
{
	char label[512];
	long msg_bytes = -1;
	int c, status;

	m->synopsis = "-s\n OR [-m <message size>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] server\n OR -S server\n";
	while ((c = lmb_getopt(m, argc, argv, "sS:m:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c == 's' || c == 'S')
			return server_option(m, c == 'S');
		if (c != 'm')
			return lmb_usage(m);
		msg_bytes = lmb_atoi(m->optarg);
	}
	if (argc - m->optind != 1)
		return lmb_usage(m);
	status = check_loopback_host(m, argv[m->optind]);
	if (status)
		return status;
	snprintf(label, sizeof(label), "TCP latency using %s", argv[m->optind]);
	return latency_with_size(m, "os.tcp.lat", msg_bytes, label);
}

/**
 * lmb_lat_udp() - lat_udp -s | [-S] [-m BYTES] [-P N] [-W US] [-N N] HOST
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_udp(struct lmb *m, int argc, char **argv)
{
	char label[512];
	long msg_bytes = -1;
	int c, status;

	m->synopsis = "-s\n OR [-S] [-m <message size>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] server\n NOTE: message size must be >= 4\n";
	while ((c = lmb_getopt(m, argc, argv, "sS:m:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c == 's' || c == 'S')
			return server_option(m, c == 'S');
		if (c != 'm')
			return lmb_usage(m);
		msg_bytes = lmb_atoi(m->optarg);
		/* The message carries a 4-byte sequence number. */
		if (msg_bytes < 4 || msg_bytes > LAT_UDP_MAX_MSG_BYTES)
			return lmb_usage(m);
	}
	if (argc - m->optind != 1)
		return lmb_usage(m);
	status = check_loopback_host(m, argv[m->optind]);
	if (status)
		return status;
	snprintf(label, sizeof(label), "UDP latency using %s", argv[m->optind]);
	return latency_with_size(m, "os.udp.lat", msg_bytes, label);
}

/**
 * lmb_lat_connect() - lat_connect -s | [-N N] HOST | -S HOST
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * The original lists -P and -W among its letters but handles neither: both
 * are usage errors there, and here.
 *
 * Return: the exit status.
 */
int lmb_lat_connect(struct lmb *m, int argc, char **argv)
{
	char label[512];
	int c, status;

	m->synopsis = "-s\n OR [-S] [-N <repetitions>] server\n";
	while ((c = lmb_getopt(m, argc, argv, "sSP:W:N:")) != -1) {
		if (c == 's' || c == 'S')
			return server_option(m, c == 'S');
		if (c != 'N')
			return lmb_usage(m);
		lmb_engine_option(m, c);
	}
	if (argc - m->optind != 1)
		return lmb_usage(m);
	status = check_loopback_host(m, argv[m->optind]);
	if (status)
		return status;
	snprintf(label, sizeof(label), "TCP/IP connection cost to %s", argv[m->optind]);
	return lmb_one(m, "os.tcp.connect", NULL, label);
}

/**
 * lmb_lat_select() - lat_select [-n N] [-P N] [-W US] [-N N] file|tcp
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_lat_select(struct lmb *m, int argc, char **argv)
{
	char label[128], type_param[32], n_param[64];
	const char *params[3] = { type_param, n_param, NULL };
	uint64_t fds = 200;
	const char *type;
	int c;

	m->synopsis = "[-n <#descriptors>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>] file|tcp\n";
	while ((c = lmb_getopt(m, argc, argv, "P:W:N:n:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0 || (!handled && c != 'n'))
			return lmb_usage(m);
		if (c == 'n')
			fds = lmb_bytes(m->optarg);
	}
	if (argc - m->optind != 1)
		return lmb_usage(m);
	/* The constant, not argv: gcc's sanitizer builds cannot prove argv's
	 * string non-null and warn about the "%s". */
	if (strcmp(argv[m->optind], "tcp") == 0)
		type = "tcp";
	else if (strcmp(argv[m->optind], "file") == 0)
		type = "file";
	else
		return lmb_usage(m);
	snprintf(type_param, sizeof(type_param), "type=%s", type);
	snprintf(n_param, sizeof(n_param), "n=%llu", (unsigned long long)fds);
	snprintf(label, sizeof(label), type[0] == 't' ? "Select on %d tcp fd's" :
							"Select on %d fd's",
		 (int)fds);
	return lmb_one(m, "os.select", params, label);
}

/*
 * Run a bandwidth kernel moving @total_bytes per call in writes of
 * @xfer_bytes and print "PREFIX: X MB/sec" as lmbench's mb() does.
 */
static int bandwidth_line(struct lmb *m, const char *kernel, uint64_t xfer_bytes,
			  uint64_t total_bytes, const char *prefix)
{
	embperf_bench *b;
	double mbs;
	int status = lmb_need_single(m);

	if (!status)
		status = lmb_open(m);
	if (status)
		return status;
	b = lmb_bench(m, kernel);
	if (!b)
		return LMB_EXIT_FAIL;
	if (lmb_set(m, b, "size", "%llu", (unsigned long long)xfer_bytes) < 0 ||
	    (lmb_has_param(kernel, "total") &&
	     lmb_set(m, b, "total", "%llu", (unsigned long long)total_bytes) < 0))
		status = LMB_EXIT_FAIL;
	if (!status)
		status = lmb_run(m, b);
	if (!status) {
		mbs = lmb_value(lmb_result(b, "bandwidth", NULL, NULL), "MB/s");
		if (mbs > 0)
			fprintf(stderr, "%s: %.2f MB/sec\n", prefix, mbs);
		else
			status = lmb_fail(m, "no bandwidth from %s", kernel);
	}
	embperf_bench_free(b);
	return status;
}

/* Round the bytes per call up to whole writes (what the originals mean to do). */
static uint64_t whole_writes(uint64_t total_bytes, uint64_t xfer_bytes)
{
	if (total_bytes < xfer_bytes)
		return xfer_bytes;
	return (total_bytes + xfer_bytes - 1) / xfer_bytes * xfer_bytes;
}

/* Options -m and -M of bw_pipe and bw_unix. Return: 0, or the usage status. */
static int bw_options(struct lmb *m, int argc, char **argv, uint64_t *xfer, uint64_t *total)
{
	int c;

	while ((c = lmb_getopt(m, argc, argv, "m:M:P:W:N:")) != -1) {
		int handled = lmb_engine_option(m, c);

		if (handled < 0)
			return lmb_usage(m);
		if (handled)
			continue;
		if (c == 'm')
			*xfer = lmb_bytes(m->optarg);
		else if (c == 'M')
			*total = lmb_bytes(m->optarg);
		else
			return lmb_usage(m);
	}
	return 0;
}

/**
 * lmb_bw_pipe() - bw_pipe [-m BYTES] [-M BYTES] [-P N] [-W US] [-N N]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_bw_pipe(struct lmb *m, int argc, char **argv)
{
	uint64_t xfer = LMB_XFER_BYTES, total = LMB_TOTAL_BYTES;
	int status;

	m->synopsis = "[-m <message size>] [-M <total bytes>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	status = bw_options(m, argc, argv, &xfer, &total);
	if (status)
		return status;
	if (m->optind < argc || xfer == 0)
		return lmb_usage(m);
	return bandwidth_line(m, "os.pipe.bw", xfer, whole_writes(total, xfer), "Pipe bandwidth");
}

/**
 * lmb_bw_unix() - bw_unix [-m BYTES] [-M BYTES] [-P N] [-W US] [-N N] [TOTAL]
 * @m:    invocation.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: the exit status.
 */
int lmb_bw_unix(struct lmb *m, int argc, char **argv)
{
	uint64_t xfer = LMB_XFER_BYTES, total = LMB_TOTAL_BYTES;
	int status;

	m->synopsis = "[-m <message size>] [-M <total bytes>] [-P <parallelism>] [-W <warmup>] [-N <repetitions>]\n";
	status = bw_options(m, argc, argv, &xfer, &total);
	if (status)
		return status;
	if (argc - m->optind == 1)
		total = lmb_bytes(argv[m->optind]);
	else if (argc - m->optind > 1)
		return lmb_usage(m);
	if (xfer == 0)
		return lmb_usage(m);
	return bandwidth_line(m, "os.unix.bw", xfer, whole_writes(total, xfer),
			      "AF_UNIX sock stream bandwidth");
}
