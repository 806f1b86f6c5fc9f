/* SPDX-License-Identifier: MIT */
/*
 * kclient.h - what the network kernels share on the client side: their
 * engine defaults, the session with the peer from the kernel's parameters,
 * the sizes against the peer's limit, the end of a TCP or request/response
 * kernel's setup, the data connection of those (net_tcp_stream.c,
 * net_rr.c), its closing on a failure (those and the UDP flow, udp_flow.c),
 * and the check that the peer is still there.
 */
#ifndef EMBPERF_NET_KCLIENT_H
#define EMBPERF_NET_KCLIENT_H

#include <stdint.h>

#include "client.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"

/*
 * EP_NET_DEFAULTS() - the network kernels' engine defaults, an initializer
 * of a struct ep_default array: trials of 2 s after a ramp of @ramp, 3 of
 * them, @settle apart (each kernel's ramp and settle are its own).
 */
#define EP_NET_DEFAULTS(ramp, settle)                                                   \
	{                                                                               \
		{ "duration", "2s" }, { "ramp", (ramp) }, { "settle", (settle) },       \
		{ "repetitions", "3" }, { NULL, NULL },                                 \
	}

/*
 * ep_net_defaults - EP_NET_DEFAULTS() with a ramp and a settle of 100 ms:
 * net.udp.stream's and the request/response kernels'.
 */
extern const struct ep_default ep_net_defaults[];

/**
 * EP_METRIC_PEER_CPU() - a CPU-load metric of a network kernel that the
 * peer measures and reports as a counter: "peer_cpu_process" (its
 * process's, % of one CPU) or "peer_cpu_system" (its host's, % of all
 * CPUs); lower is better.
 * @name: the metric's name, one of those two.
 * @help: the kernel's help line for it.
 *
 * In a metric table:
 * [M_PEER_CPU_SYSTEM] = EP_METRIC_PEER_CPU("peer_cpu_system", EP_PEER_CPU_SYSTEM_HELP).
 */
#define EP_METRIC_PEER_CPU(name, help)                                                  \
	{ name, "%", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, EP_BETTER_LOWER, help }

/* The help lines of the flow kernels (streams, request/response) for the CPU loads. */
#define EP_NETK_CPU_SYSTEM_HELP "this host's CPU load, % of all CPUs (netperf's LOCAL_CPU_UTIL)"
#define EP_PEER_CPU_PROCESS_HELP "the peer process's CPU load over the flow, % of one CPU"
#define EP_PEER_CPU_SYSTEM_HELP                                                         \
	"the peer host's CPU load over the flow, % of all CPUs (netperf's REMOTE_CPU_UTIL)"

/*
 * How long one blocking call of a streaming body waits before it looks at
 * the trial's clock and the control connection again.
 */
#define EP_NETK_SLICE_NS 100000000

/**
 * ep_netk_open() - the session with the peer of parameter 'peer', waiting at
 * most parameter 'timeout' at each step. Return: 0, or the negative errno
 * of ep_run_fail() with a message that starts with @kernel and names the peer.
 */
int ep_netk_open(struct ep_run *run, const char *kernel, struct ep_peer_conn *c);

/**
 * ep_netk_peer_gone() - the control connection has something to say while
 * data flows: the peer closed it, or sent an error. Either ends the trial.
 */
int ep_netk_peer_gone(const struct ep_peer_conn *c);

/**
 * ep_netk_tcp_connect() - a TCP connection to the peer's @port within
 * @timeout_ns: TCP_NODELAY when @nodelay, socket buffers of @sockbuf_bytes
 * (0: the system's) set before connecting (they shape the window scale),
 * then blocking with @slice_ns timeouts.
 * Return: the descriptor, or a negative errno.
 */
int ep_netk_tcp_connect(const struct ep_peer_conn *c, uint16_t port, int nodelay,
			uint32_t sockbuf_bytes, uint64_t timeout_ns, uint64_t slice_ns);

/**
 * ep_netk_flow_cap_ns() - how long the peer runs a flow before it stops it by
 * itself: the run's ramp and duration and 2 s more.
 */
uint64_t ep_netk_flow_cap_ns(const struct ep_run *run);

/**
 * ep_netk_check_size() - @bytes of parameter @param against the limit of the
 * peer of @c. Return: 0, or -ERANGE with a message naming both.
 */
int ep_netk_check_size(struct ep_run *run, const struct ep_peer_conn *c, const char *param,
		       uint32_t bytes);

/**
 * ep_netk_setup_tail() - the end of a TCP or request/response kernel's setup:
 * the session with the peer (ep_netk_open()), @size_bytes of parameter
 * @size_param against the peer's limit (ep_netk_check_size(); @size_param
 * NULL: a TCP stream's writes, which the peer's max_size does not cap),
 * then the trial case @tc (its labels and arg set by the caller).
 * Return: 0, or a negative errno with the run's message.
 */
int ep_netk_setup_tail(struct ep_run *run, const char *kernel, struct ep_peer_conn *c,
		       const char *size_param, uint32_t size_bytes, const struct ep_trial_case *tc);

/** ep_netk_close() - close the data socket *@fd when it is open, and mark it closed (-1). */
void ep_netk_close(int *fd);

/**
 * ep_netk_fail() - a failure while the data socket *@fd may be open: close
 * it (ep_netk_close()), then record the message as ep_run_fail() does.
 * Return: @rc.
 */
int ep_netk_fail(struct ep_run *run, int *fd, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** ep_netk_or_nan() - a CPU load from a report, NAN when the peer could not tell (-1). */
double ep_netk_or_nan(double pct);

#endif /* EMBPERF_NET_KCLIENT_H */
