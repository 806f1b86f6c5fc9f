// SPDX-License-Identifier: MIT
/*
 * test_lazylib.c - lib/core/lazylib.h, the loader of libpcap,
 * libnl-route-3 and libcrypto: the first library name that opens fills the
 * table, once; a library or a function that is not there is refused with the dynamic
 * loader's reason, the same on every call, and leaves the table empty;
 * threads that ask at once all get a filled table. libm stands in for the
 * optional libraries: it is there wherever the tests run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "lib/core/lazylib.h"

/* Declared for its type only: no library defines it. */
double ep_test_no_such_function(double x);

/* libm under glibc's soname; musl's libc holds libm's functions. */
#define LIBM "libm.so.6\0" "libc.so"

#define M_CALLS(X) X(cos) X(sqrt)
EP_LAZYLIB(m, M_CALLS, "libembperf-no-such-library.so.9\0" LIBM);

#define GONE_CALLS(X) X(cos)
EP_LAZYLIB(gone, GONE_CALLS, "libembperf-no-such-library.so.9\0" "libembperf-no-such-library.so");

#define HALF_CALLS(X) X(cos) X(ep_test_no_such_function) X(sqrt)
EP_LAZYLIB(half, HALF_CALLS, LIBM);

#define RACE_CALLS(X) X(cos) X(sqrt)
EP_LAZYLIB(race, RACE_CALLS, LIBM);

Test(lazylib, the_first_name_that_opens_fills_the_table_once)
{
	cr_assert_null(m.cos, "nothing is loaded before the first use");
	cr_assert_null(EP_LAZYLIB_OPEN(m), "libm skipped over a name that does not open");
	cr_assert_eq(m.cos(0.0), 1.0);
	cr_assert_eq(m.sqrt(16.0), 4.0);
	cr_assert_null(EP_LAZYLIB_OPEN(m), "a second call gives the first one's answer");
	cr_assert_eq(m.sqrt(9.0), 3.0);
}

Test(lazylib, a_missing_library_is_refused_with_the_loaders_reason_every_time)
{
	const char *why = EP_LAZYLIB_OPEN(gone);

	cr_assert_not_null(why);
	cr_assert(strstr(why, "libembperf-no-such-library.so"), "names the library: %s", why);
	cr_assert_eq(EP_LAZYLIB_OPEN(gone), why, "a second call gives the same reason");
	cr_assert(strstr(why, "libembperf-no-such-library.so"), "%s", why);
}

Test(lazylib, a_missing_function_is_refused_naming_it)
{
	const char *why = EP_LAZYLIB_OPEN(half);

	cr_assert_not_null(why, "a table with a function the library lacks is not usable");
	cr_assert(strstr(why, "ep_test_no_such_function"), "names the function: %s", why);
	cr_assert_null(half.cos, "the functions found before the missing one are not left "
		       "pointing into a library that is not kept");
	cr_assert_eq(EP_LAZYLIB_OPEN(half), why);
}

#define RACERS 8

static pthread_barrier_t start;

/* racer() - ask for the table when every racer is ready; 1 when it works. */
static void *racer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	return (void *)(long)(!EP_LAZYLIB_OPEN(race) && race.cos(0.0) == 1.0 &&
			      race.sqrt(4.0) == 2.0);
}

Test(lazylib, threads_asking_at_once_all_get_a_filled_table)
{
	pthread_t tid[RACERS];

	cr_assert_eq(pthread_barrier_init(&start, NULL, RACERS), 0);
	for (int i = 0; i < RACERS; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, racer, NULL), 0);
	for (int i = 0; i < RACERS; i++) {
		void *ok;

		pthread_join(tid[i], &ok);
		cr_assert_eq((long)ok, 1, "racer %d found the table unfilled or wrong", i);
	}
	pthread_barrier_destroy(&start);
}
