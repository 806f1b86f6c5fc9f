/* SPDX-License-Identifier: MIT */
/*
 * linkspeed.h - the speed of the link a local address sits on, to refuse a
 * rate the link cannot carry.
 */
#ifndef EMBPERF_NET_LINKSPEED_H
#define EMBPERF_NET_LINKSPEED_H

#include <stdint.h>
#include <sys/socket.h>

/**
 * ep_link_speed_bps() - speed of the interface that holds @local's address
 * (/sys/class/net/IFACE/speed).
 * Return: bit/s, or 0 when unknown (loopback, veth, virtual links, a
 * driver that does not tell).
 */
int64_t ep_link_speed_bps(const struct sockaddr_storage *local);

#endif /* EMBPERF_NET_LINKSPEED_H */
