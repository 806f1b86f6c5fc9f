/* SPDX-License-Identifier: MIT */
/*
 * client.h - a network kernel's side of the control protocol: connect to a
 * peer (or start one in this process on loopback: peer=local), ask for
 * trials, collect the peer's reports.
 */
#ifndef EMBPERF_NET_CLIENT_H
#define EMBPERF_NET_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

struct ep_local_peer;

/**
 * struct ep_peer_conn - a control connection to a peer.
 * @fd:        the connection.
 * @addr:      the peer's control address.
 * @local:     this host's address on the connection (data binds to it).
 * @name:      the peer as text, for messages ("198.18.0.2:5301").
 * @welcome:   the peer's welcome (its limits).
 * @timeout_ns: how long to wait for the peer at each step.
 * @next_flow: the next trial's flow id (random start: no two runs share one).
 * @source_port: the last ready's source_port (tcp.both), 0 when it named none.
 * @local_peer: the in-process peer of peer=local, or NULL.
 */
struct ep_peer_conn {
	int fd;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	struct sockaddr_storage local;
	socklen_t local_len;
	char name[96];
	struct ep_msg welcome;
	uint64_t timeout_ns;
	uint32_t next_flow;
	uint16_t source_port;
	struct ep_local_peer *local_peer;
};

/**
 * ep_peer_open() - connect to the peer @spec ("HOST[:PORT]", or "local"),
 * exchange hello and welcome.
 * @err: on failure, names the peer and what happened.
 * Return: 0 or a negative errno (-ETIMEDOUT, -ECONNREFUSED, -EPROTO for
 * another protocol version, -EBUSY, -EACCES when refused).
 */
int ep_peer_open(struct ep_peer_conn *c, const char *spec, uint64_t timeout_ns, char *err,
		 size_t err_len);

/**
 * ep_peer_start() - ask for a trial; sets @s->flow, *@port to the peer's
 * data port (sink tests) and @c->source_port (tcp.both).
 * Return: 0 or a negative errno with @err.
 */
int ep_peer_start(struct ep_peer_conn *c, struct ep_start *s, uint16_t *port, char *err,
		  size_t err_len);

/**
 * ep_peer_stop() - end the trial of @flow (@sent: counted datagrams this side
 * sent) and receive the peer's report. Return: 0 or a negative errno with @err.
 */
int ep_peer_stop(struct ep_peer_conn *c, uint32_t flow, uint64_t sent, struct ep_report *r,
		 char *err, size_t err_len);

/**
 * ep_peer_stop_marks() - ep_peer_stop() of a tcp.sink trial: @ramp_sent
 * bytes written before the measured part, @sent during it, so that the peer
 * times the measured bytes as it received them.
 */
int ep_peer_stop_marks(struct ep_peer_conn *c, uint32_t flow, uint64_t ramp_sent, uint64_t sent,
		       struct ep_report *r, char *err, size_t err_len);

/** ep_peer_close() - say bye, close, stop an in-process peer. Safe on a closed one. */
void ep_peer_close(struct ep_peer_conn *c);

#endif /* EMBPERF_NET_CLIENT_H */
