/* SPDX-License-Identifier: MIT */
/*
 * io_wait.h - net.tcp.stream's io_wait=select, for the kernel (client side)
 * and the peer alike: a wait for the socket to be ready before each send()
 * or recv(), as iperf3's loop selects before its reads and writes, where
 * netperf (and io_wait=none) calls them straight away.
 */
#ifndef EMBPERF_NET_IO_WAIT_H
#define EMBPERF_NET_IO_WAIT_H

#include <errno.h>
#include <poll.h>

/**
 * ep_net_io_ready() - with @io_wait, wait up to @slice_ms for @fd to be
 * ready for @events (POLLIN or POLLOUT); without it, no wait at all.
 * Return: 1 when the I/O call is to be made (no wait asked, ready, or an
 * error or hang-up the call will report), 0 when the slice passed or a
 * signal came first, with errno EAGAIN (the caller's "nothing moved" path).
 */
static inline int ep_net_io_ready(int io_wait, int fd, short events, int slice_ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	if (!io_wait || poll(&p, 1, slice_ms) > 0)
		return 1;
	errno = EAGAIN;
	return 0;
}

#endif /* EMBPERF_NET_IO_WAIT_H */
