/* SPDX-License-Identifier: MIT */
/*
 * flow_drops.h - one side's drop counters over a trial's flow: the
 * interface toward the other side, its root qdisc and the host's UDP
 * counters (linkstats.h), read when the flow begins and when it ends, and
 * carried in the peer's report so that the client can say where a trial's
 * packets were lost (doc/methodology-net.md, "Where packets are lost").
 * Best effort: a side whose counters cannot be read (no libnl, another
 * namespace, no permission) is "not read", never an error.
 */
#ifndef EMBPERF_NET_FLOW_DROPS_H
#define EMBPERF_NET_FLOW_DROPS_H

#include <net/if.h>
#include <sys/socket.h>

#include "linkstats.h"
#include "proto.h"

/**
 * struct ep_flow_drops - a side's snapshot at the flow's start.
 * @src:    the netlink handle (NULL: nothing is read).
 * @ifname: the interface the route toward the other side leaves by.
 * @before: the snapshot.
 * @have:   1 when @before holds one.
 */
struct ep_flow_drops {
	struct ep_linkstats_src *src;
	char ifname[IF_NAMESIZE];
	struct ep_linkstats before;
	int have;
};

/** ep_flow_drops_start() - snapshot the counters toward @toward (best effort). */
void ep_flow_drops_start(struct ep_flow_drops *d, const struct sockaddr_storage *toward);

/** ep_flow_drops_stop() - the change since the start into @delta (@delta->have 0: none). */
void ep_flow_drops_stop(struct ep_flow_drops *d, struct ep_linkstats *delta);

/** ep_flow_drops_to_report() - a change into the peer's report members. */
void ep_flow_drops_to_report(const struct ep_linkstats *delta, struct ep_report *r);

/** ep_flow_drops_from_report() - the peer's report members back into a change. */
void ep_flow_drops_from_report(const struct ep_report *r, struct ep_linkstats *delta);

#endif /* EMBPERF_NET_FLOW_DROPS_H */
