// SPDX-License-Identifier: MIT
/*
 * udp-bins.c - a neutral observer of a UDP flow for bench/fidelity/compare-udp.sh:
 * capture the datagrams a pcap filter selects on an interface (libpcap, ns time
 * stamps) for a time, and say how evenly they came: packets, their rate
 * from the first to the last, and the most that fell into any 1 ms window
 * against the mean per 1 ms. Both embperf's and iperf3's flows go through
 * the same observer, so their pacing is compared by one yardstick.
 *
 *   udp-bins IFACE FILTER SECONDS       (FILTER: a pcap filter, "udp dst port 5201")
 *   -> packets=N seconds=S pps=R max_1ms=M mean_1ms=A peak_ratio=M/A
 *
 * The 1 ms windows slide over the arrival times (every window that starts
 * at a packet), not fixed bins, so a burst split by a bin edge is not
 * halved. Needs CAP_NET_RAW (root). Not installed, not run by the tests.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PACKETS 20000000

struct capture {
	uint64_t *t_ns;
	size_t n;
};

static void on_packet(unsigned char *user, const struct pcap_pkthdr *h, const unsigned char *p)
{
	struct capture *c = (struct capture *)user;

	(void)p;
	if (c->n < MAX_PACKETS)
		c->t_ns[c->n++] = (uint64_t)h->ts.tv_sec * 1000000000 + (uint64_t)h->ts.tv_usec;
}

/* The most packets in any window [t_i, t_i + 1 ms). */
static size_t max_per_ms(const uint64_t *t, size_t n)
{
	size_t best = 0, j = 0;

	for (size_t i = 0; i < n; i++) {
		while (j < n && t[j] < t[i] + 1000000)
			j++;
		if (j - i > best)
			best = j - i;
	}
	return best;
}

static pcap_t *open_capture(const char *iface, const char *filter, char *err)
{
	pcap_t *p = pcap_create(iface, err);
	struct bpf_program prog;

	if (!p)
		return NULL;
	pcap_set_snaplen(p, 64);
	pcap_set_buffer_size(p, 64 << 20);
	pcap_set_timeout(p, 10);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	if (pcap_activate(p) < 0) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	/* Loopback shows each datagram once out and once in: count it once. */
	pcap_setdirection(p, PCAP_D_IN);
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog)) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	pcap_freecode(&prog);
	return p;
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct capture c = { 0 };
	struct pcap_stat st = { 0 };
	pcap_t *p;
	double secs, mean;
	size_t peak;
	uint64_t end;
	struct timespec now;

	if (argc != 4) {
		fprintf(stderr, "usage: udp-bins IFACE FILTER SECONDS\n");
		return 2;
	}
	c.t_ns = malloc(MAX_PACKETS * sizeof(*c.t_ns));
	p = c.t_ns ? open_capture(argv[1], argv[2], err) : NULL;
	if (!p) {
		fprintf(stderr, "udp-bins: %s\n", c.t_ns ? err : "out of memory");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	end = (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec +
	      (uint64_t)(atof(argv[3]) * 1e9);
	do {
		pcap_dispatch(p, -1, on_packet, (unsigned char *)&c);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec < end);
	pcap_stats(p, &st);
	pcap_close(p);
	if (c.n < 2) {
		printf("packets=%zu (too few to judge)\n", c.n);
		return 1;
	}
	secs = (double)(c.t_ns[c.n - 1] - c.t_ns[0]) / 1e9;
	peak = max_per_ms(c.t_ns, c.n);
	mean = (double)(c.n - 1) / secs / 1000.0;
	printf("packets=%zu seconds=%.3f pps=%.0f max_1ms=%zu mean_1ms=%.2f peak_ratio=%.2f "
	       "pcap_dropped=%u\n", c.n, secs, (double)(c.n - 1) / secs, peak, mean,
	       (double)peak / mean, st.ps_drop);
	free(c.t_ns);
	return 0;
}
