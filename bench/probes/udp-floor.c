// SPDX-License-Identifier: MIT
/*
 * udp-floor - the least CPU a UDP datagram costs its sender on this kernel:
 *
 *   udp-floor [BATCH [SIZE [SECONDS]]]
 *
 * sends SIZE-byte datagrams (default 64) over loopback (127.0.0.1) for
 * SECONDS (default 5, at most 60) as fast as one thread can, BATCH at a time
 * with sendmmsg() (default 16, as net.udp.stream; 1: one send() each, as
 * iperf3 writes), to a child process that drains them with recvmmsg()
 * without sleeping.
 * Nothing is written into the datagrams and no clock is read per datagram:
 * what is left is the system calls and the kernel's path, which on loopback
 * includes the delivery to the receiving socket. Prints the datagrams sent
 * per second and the sender's CPU time per datagram (RUSAGE_SELF: the
 * sending process alone), against which doc/methodology-net.md reports
 * net.udp.stream and iperf3. Not installed, not run by the tests.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 64
#define MAX_SIZE_BYTES 1472

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* arg_in() - argument @i of @argv as an integer in [lo, hi], or @dflt when absent; -1 when bad. */
static long arg_in(int argc, char **argv, int i, const char *name, long dflt, long lo, long hi)
{
	char *end;
	long v;

	if (i >= argc)
		return dflt;
	v = strtol(argv[i], &end, 10);
	if (*argv[i] && !*end && v >= lo && v <= hi)
		return v;
	fprintf(stderr, "udp-floor: %s '%s' is not accepted; accepted: %ld to %ld\n"
		"usage: udp-floor [BATCH [SIZE [SECONDS]]]\n", name, argv[i], lo, hi);
	return -1;
}

/*
 * drain() - the child: receive until the parent's SIGTERM or @secs + 2 s,
 * polling without sleeping, so that no datagram costs its sender a wake-up
 * of the receiver (the floor; a receiver that sleeps adds one per wake).
 */
static void drain(int fd, double secs)
{
	static char bufs[MAX_BATCH][MAX_SIZE_BYTES];
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	double end = now_s() + secs + 2.0;

	for (int i = 0; i < MAX_BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = MAX_SIZE_BYTES };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	while (now_s() < end)
		recvmmsg(fd, msgs, MAX_BATCH, MSG_DONTWAIT, NULL);
	_exit(0);
}

/* sink() - a UDP socket on 127.0.0.1, any port, drained by a child: its fd, @to and @pid. */
static int sink(struct sockaddr_in *to, pid_t *pid, double secs)
{
	socklen_t len = sizeof(*to);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	*to = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || bind(fd, (struct sockaddr *)to, sizeof(*to)) ||
	    getsockname(fd, (struct sockaddr *)to, &len)) {
		perror("udp-floor: the receiving socket");
		return -1;
	}
	*pid = fork();
	if (*pid < 0) {
		perror("udp-floor: fork");
		return -1;
	}
	if (*pid == 0)
		drain(fd, secs);
	return fd;
}

int main(int argc, char **argv)
{
	long batch = arg_in(argc, argv, 1, "BATCH", 16, 1, MAX_BATCH);
	long size = arg_in(argc, argv, 2, "SIZE", 64, 1, MAX_SIZE_BYTES);
	long secs = arg_in(argc, argv, 3, "SECONDS", 5, 1, 60);
	static char payload[MAX_SIZE_BYTES];
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov = { .iov_base = payload };
	struct sockaddr_in to;
	unsigned long long sent = 0, refused = 0;
	double t0, c0, t, c;
	pid_t pid;
	int rx, tx;

	if (batch < 0 || size < 0 || secs < 0)
		return 2;
	rx = sink(&to, &pid, (double)secs);
	if (rx < 0)
		return 1;
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&to, sizeof(to))) {
		perror("udp-floor: the sending socket");
		kill(pid, SIGTERM);
		return 1;
	}
	iov.iov_len = (size_t)size;
	for (int i = 0; i < batch; i++)
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
	t0 = now_s();
	c0 = cpu_s();
	do {
		/* the clock once per 64 batches: not a cost per datagram */
		for (int k = 0; k < 64; k++) {
			int n = batch == 1 ? (int)(send(tx, payload, (size_t)size, 0) >= 0)
					   : sendmmsg(tx, msgs, (unsigned int)batch, 0);

			if (n > 0)
				sent += (unsigned long long)n;
			else
				refused++;
		}
		t = now_s() - t0;
	} while (t < (double)secs);
	c = cpu_s() - c0;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	printf("udp-floor: batch %ld, %ld bytes, %.1f s: %.0f datagrams/s, %.0f ns CPU a datagram "
	       "(%.1f %% of a CPU), %llu calls refused\n", batch, size, t, (double)sent / t,
	       sent ? c * 1e9 / (double)sent : 0.0, 100.0 * c / t, refused);
	return 0;
}
