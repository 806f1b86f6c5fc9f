// SPDX-License-Identifier: MIT
/*
 * wire.c - test packet headers, and the receiver's count of a flow:
 * distinct, duplicated, reordered packets and RFC 3550 jitter.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "lib/core/clock.h"
#include "wire.h"

static void put_be32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

void ep_wire_encode(unsigned char *buf, const struct ep_wire_header *h)
{
	buf[0] = EP_WIRE_MAGIC;
	buf[1] = h->flags;
	put_be32(buf + 2, h->flow);
	put_be32(buf + 6, h->seq);
	put_be64(buf + 10, h->send_ns);
}

int ep_wire_decode(const unsigned char *buf, size_t len, struct ep_wire_header *h)
{
	if (len < EP_WIRE_HEADER_BYTES || buf[0] != EP_WIRE_MAGIC)
		return -EBADMSG;
	h->flags = buf[1];
	h->flow = get_be32(buf + 2);
	h->seq = get_be32(buf + 6);
	h->send_ns = get_be64(buf + 10);
	return 0;
}

void ep_seq_reset(struct ep_seq_count *c)
{
	memset(c, 0, sizeof(*c));
}

static int window_test_and_set(struct ep_seq_count *c, uint32_t seq)
{
	uint32_t slot = seq % EP_SEQ_WINDOW;
	uint64_t bit = UINT64_C(1) << (slot % 64);
	int was = (c->window[slot / 64] & bit) != 0;

	c->window[slot / 64] |= bit;
	return was;
}

static void window_clear(struct ep_seq_count *c, uint32_t seq)
{
	uint32_t slot = seq % EP_SEQ_WINDOW;

	c->window[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
}

/* Move the window's top from c->highest to @seq: the slots between are new. */
static void window_advance(struct ep_seq_count *c, uint32_t seq)
{
	uint64_t gap = (uint64_t)seq - c->highest;

	if (gap >= EP_SEQ_WINDOW) {
		memset(c->window, 0, sizeof(c->window));
		return;
	}
	for (uint32_t s = c->highest + 1; s != seq + 1; s++)
		window_clear(c, s);
}

static void jitter_add(struct ep_seq_count *c, uint64_t send_ns, uint64_t arrival_ns)
{
	int64_t transit = (int64_t)(arrival_ns - send_ns);

	if (c->received > 0) {
		double d = fabs((double)(transit - c->last_transit_ns));

		c->jitter_ns += (d - c->jitter_ns) / 16.0;
	}
	c->last_transit_ns = transit;
}

void ep_seq_add(struct ep_seq_count *c, uint32_t seq, uint64_t bytes, uint64_t send_ns,
		uint64_t arrival_ns)
{
	if (c->received == 0) {
		c->highest = c->lowest = seq;
		window_advance(c, seq);
		window_test_and_set(c, seq);
	} else if (seq > c->highest) {
		window_advance(c, seq);
		window_test_and_set(c, seq);
		c->highest = seq;
	} else if (c->highest - seq >= EP_SEQ_WINDOW) {
		c->too_old++;
		c->reordered++;
	} else if (window_test_and_set(c, seq)) {
		c->duplicated++;
		return;
	} else {
		c->reordered++;
	}
	if (seq < c->lowest)
		c->lowest = seq;
	jitter_add(c, send_ns, arrival_ns);
	c->received++;
	c->bytes += bytes;
}

uint64_t ep_seq_expected(const struct ep_seq_count *c)
{
	return c->received ? (uint64_t)c->highest - c->lowest + 1 : 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ep_clock_pair_read(struct ep_clock_pair *p)
{
	/* Real time on both sides of the other clock: a thread descheduled
	 * between the readings would shift every age by the time it was away,
	 * so such a pair is read again (at most twice). */
	for (int i = 0; i < 3; i++) {
		uint64_t before = realtime_ns();

		p->mono_ns = ep_now_ns();
		p->real_ns = realtime_ns();
		if (p->real_ns - before < 20000)
			break;
	}
}

uint64_t ep_rx_arrival_ns(const struct ep_clock_pair *p, uint64_t stamp_ns)
{
	uint64_t age = p->real_ns > stamp_ns ? p->real_ns - stamp_ns : 0;

	return age < p->mono_ns ? p->mono_ns - age : 0;
}

int ep_rx_window_place(const struct ep_rx_window *w, uint64_t first_ns, uint64_t last_ns)
{
	if (first_ns < w->from_ns)
		return -1;
	if (w->until_ns && last_ns >= w->until_ns)
		return 1;
	return 0;
}

int ep_rx_window_left_out(const struct ep_rx_window *w, uint64_t first_ns, uint64_t last_ns,
			  uint64_t *ramp, uint64_t *past_end)
{
	int place = ep_rx_window_place(w, first_ns, last_ns);

	if (place < 0)
		(*ramp)++;
	else if (place > 0)
		(*past_end)++;
	return place != 0;
}
