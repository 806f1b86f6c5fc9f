/* SPDX-License-Identifier: MIT */
/*
 * udp_flow.h - one trial's UDP flow between this host and the peer, as the
 * UDP kernels (net.udp.stream, net.udp.rfc2544) run it: the peer told to
 * sink or source a new flow before the trial, datagrams sent (paced) or
 * received until the engine's deadline, the peer's report after it.
 */
#ifndef EMBPERF_NET_UDP_FLOW_H
#define EMBPERF_NET_UDP_FLOW_H

#include <stdint.h>

#include "client.h"
#include "flow_drops.h"
#include "l2.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "proto.h"

/**
 * struct ep_udp_flow - a UDP kernel's flow settings and connection.
 * @run:          the run (messages).
 * @name:         the kernel's name, for messages.
 * @peer:         the control connection.
 * @tx:           1: this host sends; 0: the peer sends.
 * @l2:           layer=l2: raw Ethernet frames (l2.h) instead of datagrams.
 * @size_bytes:   UDP payload of each datagram; l2: the frame without its FCS.
 * @frame_bytes:  the Ethernet frame it makes (payload + 46).
 * @pps:          datagrams per second (pacing none: ignored).
 * @pacing:       precise, burst or none.
 * @burst:        pacing=burst: datagrams per burst.
 * @wait_ns:      pacing=burst: time between bursts.
 * @batch:        most datagrams per sendmmsg().
 * @drop_every:   the receiver discards every Nth datagram (tests).
 * @count:        stop after this many counted datagrams (0: at the deadline).
 * @echo_every:   tx: the peer echoes every Nth datagram; the round trips go
 *                into the tally's latencies (0: none).
 * @idle_ramp:    tx: send nothing during the ramp (a burst from an idle link).
 * @catch_up_ms:  tx, precise: how far behind its schedule the sender may
 *                catch up at once (ep_pacer_set_catch_up(); 0: the default).
 * @flow_cap_ns:  the peer stops a flow by itself after this.
 * @drops:        this side's drop counters over the trial's flow.
 * @data_fd:      the trial's data socket (-1 between trials).
 * @link:         l2: the interface opened for the trial's frames.
 * @req:          the running trial's request (its flow id).
 */
struct ep_udp_flow {
	struct ep_run *run;
	const char *name;
	struct ep_peer_conn peer;
	int tx;
	int l2;
	uint32_t size_bytes;
	uint32_t frame_bytes;
	double pps;
	enum ep_pacing pacing;
	uint32_t burst;
	uint64_t wait_ns;
	uint32_t batch;
	uint32_t drop_every;
	uint64_t count;
	uint32_t echo_every;
	int idle_ramp;
	double catch_up_ms;
	uint64_t flow_cap_ns;
	struct ep_flow_drops drops;
	int data_fd;
	struct ep_l2_link link;
	struct ep_start req;
};

/**
 * struct ep_udp_outcome - what one trial's flow did, both ends together.
 * @sent:       counted datagrams sent (rx: expected from the sequence numbers).
 * @received:   distinct counted datagrams received.
 * @bytes:      their bytes as the receiver counted them (UDP payload; l2:
 *              frames without FCS).
 * @capture_drops: l2: frames the receiver's capture had no room for.
 * @reordered:  received after a later one.
 * @duplicated: received more than once.
 * @jitter_ns:  RFC 3550 interarrival jitter.
 * @forgiven:   tx: datagrams due in the measured part that the pacer gave up
 *              on (a sender more than 100 ms' worth behind: pace.h).
 * @stall_ns:   tx, precise pacing: the longest this host's sender sent
 *              nothing in the measured part beyond its schedule's spacing.
 * @peer:       the peer's report (its CPU load).
 * @where:      the loss attributed to the places that counted drops, on
 *              both sides (linkstats.h; places not read are marked so).
 */
struct ep_udp_outcome {
	uint64_t sent;
	uint64_t received;
	uint64_t bytes;
	uint64_t capture_drops;
	uint64_t reordered;
	uint64_t duplicated;
	double jitter_ns;
	uint64_t forgiven;
	uint64_t stall_ns;
	struct ep_report peer;
	struct ep_loss_attribution where;
};

/**
 * ep_udp_flow_connect() - the settings every UDP kernel shares, from the run's
 * parameters (peer, timeout), and the connection to the peer.
 * Return: 0 or a negative errno with the run's message.
 */
int ep_udp_flow_connect(struct ep_udp_flow *f, struct ep_run *run, const char *name);

/**
 * ep_udp_flow_begin() - before a trial (not timed): a new flow on the peer
 * (tx: its sink's port; rx: this side's socket, the peer sending to it).
 * Return: 0 or a negative errno with the run's message.
 */
int ep_udp_flow_begin(struct ep_udp_flow *f);

/**
 * ep_udp_flow_run() - the trial body: send or receive until the engine's
 * deadline (or @f->count datagrams), then the peer's report into @o.
 * Return: 0 or a negative errno with the run's message.
 */
int ep_udp_flow_run(struct ep_udp_flow *f, struct ep_trial *t, struct ep_udp_outcome *o);

/**
 * ep_udp_flow_open_l2() - layer=l2: open this side's interface for the
 * trial's frames (@capture 1: to count the peer's; 0: to send) (l2.c).
 * Return: 0 or a negative errno with the run's message naming 'layer'.
 */
int ep_udp_flow_open_l2(struct ep_udp_flow *f, int capture);

/**
 * ep_udp_flow_check_l2() - layer=l2, before any trial: open this side's
 * interface for frames of @bytes (without FCS) and close it again, so that
 * a missing permission, a loopback or non-Ethernet interface, a peer off
 * this segment or a frame above the MTU is refused before anything is sent.
 * Return: 0 or a negative errno with the run's message naming 'layer'.
 */
int ep_udp_flow_check_l2(struct ep_udp_flow *f, uint32_t bytes);

/** ep_udp_flow_close() - close the data socket and the session. */
void ep_udp_flow_close(struct ep_udp_flow *f);

/**
 * ep_udp_flow_check_rate() - refuse a rate above the peer's limit or the
 * link's speed (frames with preamble and gap), naming both.
 * Return: 0 or -ERANGE with the run's message.
 */
int ep_udp_flow_check_rate(struct ep_udp_flow *f, double pps);

#endif /* EMBPERF_NET_UDP_FLOW_H */
