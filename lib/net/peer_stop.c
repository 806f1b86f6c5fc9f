// SPDX-License-Identifier: MIT
/*
 * peer_stop.c - when a worker of the peer stops, and the CPU load it
 * reports at the end: shared by the UDP and raw-frame workers
 * (peer_trial.c) and the TCP and request/response ones (peer_tcp.c),
 * below both.
 */
#include <stdint.h>

#include "lib/core/clock.h"
#include "lib/core/cpuload.h"
#include "lib/core/result.h"
#include "peer.h"

/* A worker stops by itself this long after the duration the client asked for. */
#define OVERRUN_NS 1000000000

/** ep_peer_trial_stopping() - the server loop said stop. */
int ep_peer_trial_stopping(const struct ep_peer_trial *t)
{
	return __atomic_load_n(&t->stop, __ATOMIC_ACQUIRE);
}

/** ep_peer_trial_hard_end_ns() - @start_ns plus the asked duration and OVERRUN_NS. */
uint64_t ep_peer_trial_hard_end_ns(const struct ep_peer_trial *t, uint64_t start_ns)
{
	uint64_t d = t->req.duration_ns;

	return d > UINT64_MAX - start_ns - OVERRUN_NS ? UINT64_MAX : start_ns + d + OVERRUN_NS;
}

/** ep_peer_trial_load_into() - the CPU load since @load into @r (-1: unknown). */
void ep_peer_trial_load_into(struct ep_report *r, const struct ep_cpuload *load)
{
	double v[EP_CTR_COUNT] = { 0 };
	unsigned char ok[EP_CTR_COUNT] = { 0 };

	ep_cpuload_stop(load, ep_now_ns(), v, ok);
	r->cpu_process_pct = ok[EP_CTR_CPU_PROCESS_PCT] ? v[EP_CTR_CPU_PROCESS_PCT] : -1.0;
	r->cpu_system_pct = ok[EP_CTR_CPU_SYSTEM_PCT] ? v[EP_CTR_CPU_SYSTEM_PCT] : -1.0;
}
