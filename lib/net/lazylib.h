/* SPDX-License-Identifier: MIT */
/*
 * lazylib.h - a shared library loaded when first needed instead of linked.
 *
 * libpcap (layer=l2) and libnl-route-3 (the link and qdisc counters) are
 * used by a few network paths only, but a library that links them makes
 * every process that loads it load them and what they link at start-up
 * (on Debian: libpcap and the eight libraries it links, the type registrations of
 * libnl-route), CPU time an audio or memory run pays for nothing
 * (doc/methodology-audio.md). Their users resolve the functions they call
 * into a table of pointers on first use, once per process.
 */
#ifndef EMBPERF_NET_LAZYLIB_H
#define EMBPERF_NET_LAZYLIB_H

#include <stddef.h>

/**
 * ep_lazylib_load() - open the first of @sonames that loads and resolve
 * @n symbols from it (and the libraries it links).
 * @sonames: NULL-terminated list of library names tried in turn.
 * @names:   the @n symbol names.
 * @fns:     receives their addresses, in the order of @names.
 * @why:     receives dlerror()'s reason on failure (@why_len bytes).
 *
 * The library stays loaded for the life of the process. Not thread-safe:
 * callers run it under pthread_once().
 * Return: 0, or -1 with @why set.
 */
int ep_lazylib_load(const char *const *sonames, const char *const *names, void **fns, size_t n,
		    char *why, size_t why_len);

#endif
