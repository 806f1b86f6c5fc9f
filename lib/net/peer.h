/* SPDX-License-Identifier: MIT */
/*
 * peer.h - the peer's trial worker (peer_trial.c) as the server loop
 * (peer.c) drives it: one trial at a time, in its own thread, so that the
 * control connections stay answered while data flows.
 */
#ifndef EMBPERF_NET_PEER_H
#define EMBPERF_NET_PEER_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "embperf.h"
#include "l2.h"
#include "proto.h"

/**
 * struct ep_peer_trial - one trial the peer runs.
 * @req:        what the client asked (validated against the limits).
 * @client:     the client's address: the only one data goes to or counts from.
 * @local:      the control connection's local address (data binds to it).
 * @data_fd:    the trial's data socket (or listening socket for TCP).
 * @source_fd:  tcp.both: the listening socket of the flow the peer sends
 *              (@data_fd's is the flow it receives); -1 otherwise.
 * @l2:         l2.sink, l2.source: the interface opened for raw frames.
 * @port:       its port, for the ready reply.
 * @source_port: @source_fd's port, for the ready reply (0: none).
 * @stop:       set by the server loop when the client says stop or leaves.
 * @sent_by_client: the client's count from its stop message.
 * @ramp_sent_by_client: tcp.sink: bytes the client wrote before its
 *              measured part (its stop message); with @sent_by_client they
 *              mark the measured bytes in the stream.
 * @report:     what the worker counted, valid after it finished.
 * @rc:         the worker's result: 0 or a negative errno.
 * @text:       what failed, when @rc is set.
 */
struct ep_peer_trial {
	struct ep_start req;
	struct sockaddr_storage client;
	socklen_t client_len;
	struct sockaddr_storage local;
	socklen_t local_len;
	int data_fd;
	int source_fd;
	struct ep_l2_link l2;
	uint16_t port;
	uint16_t source_port;
	int stop;
	uint64_t stop_ns;
	uint64_t sent_by_client;
	uint64_t ramp_sent_by_client;
	struct ep_report report;
	int rc;
	char text[256];
	pthread_t thread;
	int started;
};

/**
 * ep_server_wake() - end the server's current poll at once, so that a
 * cancel of its context is seen without waiting for the poll's slice (an
 * in-process peer stopped by its client). Safe from any thread.
 */
void ep_server_wake(embperf_server *s);

/**
 * ep_peer_trial_open() - the trial's data socket (sink: bound to @local's
 * address on a free port; source: connected to the client's @req.port).
 * Return: 0, or a negative errno with @t->text set.
 */
int ep_peer_trial_open(struct ep_peer_trial *t);

/** ep_peer_trial_start() - run the worker thread. Return: 0 or a negative errno. */
int ep_peer_trial_start(struct ep_peer_trial *t);

/**
 * ep_peer_trial_finish() - tell the worker to stop, wait for it, close the
 * data socket. The worker drains what is still arriving for a short while
 * (a sink) before it stops. Safe on a trial that never started.
 */
void ep_peer_trial_finish(struct ep_peer_trial *t);

struct ep_cpuload;

/* When a worker stops, and its CPU load (peer_stop.c, below the workers). */

/** ep_peer_trial_stopping() - the server loop said stop (the worker's check). */
int ep_peer_trial_stopping(const struct ep_peer_trial *t);

/** ep_peer_trial_hard_end_ns() - when a worker started at @start_ns stops by itself. */
uint64_t ep_peer_trial_hard_end_ns(const struct ep_peer_trial *t, uint64_t start_ns);

/** ep_peer_trial_load_into() - the CPU load since @load into @r (-1: unknown). */
void ep_peer_trial_load_into(struct ep_report *r, const struct ep_cpuload *load);

/**
 * ep_peer_tcp_open() - the data socket of a TCP or request/response trial
 * (peer_tcp.c): a TCP listener, or for udp.rr a UDP socket, bound to
 * @t->local's address on a free port (@t->port); for tcp.both a second
 * listener (@t->source_fd, @t->source_port).
 * Return: 0, -EOPNOTSUPP for a test it does not serve, or a negative errno.
 */
int ep_peer_tcp_open(struct ep_peer_trial *t);

/** ep_peer_tcp_run() - the worker of those trials. Return: 0 or a negative errno. */
int ep_peer_tcp_run(struct ep_peer_trial *t);

#endif /* EMBPERF_NET_PEER_H */
