// SPDX-License-Identifier: MIT
/*
 * absent.c - the network area's public functions in a build that left the
 * area out (-Dareas without net): the symbols stay (the ABI is the same in
 * every build), and each says the area is not there (-EOPNOTSUPP).
 *
 * lib/meson.build compiles lib/<area>/absent.c, when it exists, in place of a
 * left-out area.
 */
#include <errno.h>
#include <stdint.h>

#include "embperf.h"
#include "lib/core/ctx.h"

#define NET_ABSENT "the network area was left out of this build (-Dareas)"

embperf_server *embperf_server_new(embperf_ctx *ctx)
{
	if (ctx)
		ep_ctx_fail(ctx, -EOPNOTSUPP, "embperf server: %s", NET_ABSENT);
	errno = EOPNOTSUPP;
	return NULL;
}

/* No server can exist: the functions below only ever see NULL. */
void embperf_server_free(embperf_server *srv)
{
}

int embperf_server_set(embperf_server *srv, const char *name, const char *value)
{
	return -EOPNOTSUPP;
}

int embperf_server_start(embperf_server *srv)
{
	return -EOPNOTSUPP;
}

int embperf_server_port(const embperf_server *srv)
{
	return -EOPNOTSUPP;
}

int embperf_server_run(embperf_server *srv, uint64_t timeout_ns)
{
	return -EOPNOTSUPP;
}

int embperf_server_stat(const embperf_server *srv, enum embperf_server_stat stat, uint64_t *value)
{
	return -EOPNOTSUPP;
}

const char *embperf_server_errmsg(const embperf_server *srv)
{
	return NET_ABSENT;
}
