/* SPDX-License-Identifier: MIT */
/*
 * lazylib.h - a shared library loaded when first needed instead of linked.
 *
 * libpcap (layer=l2), libnl-route-3 (the link and qdisc counters) and
 * libcrypto (the crypto kernels' EVP back end) are used by a few paths
 * only, but a library that links them makes every process that loads it
 * load them and what they link at start-up (on Debian: libpcap and the
 * eight libraries it links, the type registrations of libnl-route), CPU
 * time an audio or memory run pays for nothing (doc/methodology-audio.md),
 * and a firmware image that links the library statically would carry them
 * all. Their users resolve the functions they call
 * into a table of pointers on first use, once per process.
 *
 * A user lists the functions it calls in an X-macro and declares the table
 * and its loader with EP_LAZYLIB(); EP_LAZYLIB_OPEN() loads it:
 *
 *	#define FOO_CALLS(X) X(foo_open) X(foo_close)
 *	EP_LAZYLIB(foo, FOO_CALLS, "libfoo.so.1\0" "libfoo.so");
 *	...
 *	const char *why = EP_LAZYLIB_OPEN(foo);
 *
 *	if (why)
 *		return ... why ...;
 *	h = foo.foo_open(...);
 *
 * What changes (the table, its lock and state) starts as zeros and what
 * does not (the names) is a string, not a list of pointers: nothing to
 * relocate or to store in the library's file (the footprint, .ci/footprint.sh).
 */
#ifndef EMBPERF_CORE_LAZYLIB_H
#define EMBPERF_CORE_LAZYLIB_H

#include <pthread.h>
#include <stddef.h>

/**
 * struct ep_lazylib - whether a library was loaded (EP_LAZYLIB()).
 * @lock:  serialises the first ep_lazylib_open() calls.
 * @state: 0 not tried yet, 1 loaded, -1 could not be loaded.
 * @why:   dlerror()'s reason when @state is -1.
 */
struct ep_lazylib {
	pthread_mutex_t lock;
	int state;
	char why[160];
};

/**
 * ep_lazylib_open() - on the first call only, open the first of @sonames
 * that loads and resolve @n symbols from it (and the libraries it links)
 * into @table; later calls give the first one's answer. The library stays
 * loaded for the life of the process; one that lacks a symbol is closed
 * again and @table left all NULL. Thread-safe. EP_LAZYLIB_OPEN() calls
 * it with what EP_LAZYLIB() declared.
 * @l:       the library's state.
 * @table:   a struct of @n function pointers, filled in the order of @names.
 * @n:       how many.
 * @names:   the @n symbol names, each ending in '\0'.
 * @sonames: the library names tried in turn, each ending in '\0', the list
 *           ending in an empty name.
 *
 * Return: NULL when @table is usable, else why the library could not be
 * loaded (dlerror()'s text, kept in @l).
 */
const char *ep_lazylib_open(struct ep_lazylib *l, void *table, size_t n, const char *names,
			    const char *sonames);

/* EP_LAZYLIB()'s pieces: a table field, a name, a count per function. */
#define EP_LAZYLIB_FIELD(f) __typeof__(f) *f;
#define EP_LAZYLIB_NAME(f) #f "\0"
#define EP_LAZYLIB_ONE(f) +1

/**
 * EP_LAZYLIB() - declare the table @tab (static struct, a pointer to each
 * function CALLS lists, under the function's own name) and what
 * EP_LAZYLIB_OPEN(@tab) needs to fill it.
 * @tab:   the table's name.
 * @CALLS: an X-macro naming the functions: CALLS(X) expands X(name) for each.
 * @libs:  a string literal of the library names tried in turn, each but the
 *         last ending in "\0" ("libfoo.so.1\0" "libfoo.so").
 */
#define EP_LAZYLIB(tab, CALLS, libs)                                                    \
	static struct {                                                                 \
		CALLS(EP_LAZYLIB_FIELD)                                                 \
	} tab;                                                                          \
	_Static_assert(sizeof(tab) == (0 CALLS(EP_LAZYLIB_ONE)) * sizeof(void *),       \
		       "a pointer per name");                                           \
	static const char tab##_names_[] = CALLS(EP_LAZYLIB_NAME);                      \
	static const char tab##_libs_[] = libs "\0";                                    \
	static struct ep_lazylib tab##_lazy_ = { .lock = PTHREAD_MUTEX_INITIALIZER }

/**
 * EP_LAZYLIB_OPEN() - load the library of EP_LAZYLIB(@tab) on first use.
 * Return: NULL when @tab is usable, else why the library could not be loaded.
 */
#define EP_LAZYLIB_OPEN(tab)                                                            \
	ep_lazylib_open(&tab##_lazy_, &tab, sizeof(tab) / sizeof(void *), tab##_names_,  \
			tab##_libs_)

#endif
