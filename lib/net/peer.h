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

#include "proto.h"

/**
 * struct ep_peer_trial - one trial the peer runs.
 * @req:        what the client asked (validated against the limits).
 * @client:     the client's address: the only one data goes to or counts from.
 * @local:      the control connection's local address (data binds to it).
 * @data_fd:    the trial's data socket (or listening socket for TCP).
 * @port:       its port, for the ready reply.
 * @stop:       set by the server loop when the client says stop or leaves.
 * @sent_by_client: the client's count from its stop message.
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
	uint16_t port;
	int stop;
	uint64_t stop_ns;
	uint64_t sent_by_client;
	struct ep_report report;
	int rc;
	char text[160];
	pthread_t thread;
	int started;
};

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

#endif /* EMBPERF_NET_PEER_H */
