// SPDX-License-Identifier: MIT
/*
 * proc_call.c - os.proc op=proccall's timed loop (proc_call.h). Built -O2
 * (lib/os/meson.build), as every loop whose instructions are timed: built
 * for size with the rest of os.proc, the callee and the loop lay
 * unaligned. The figures before and after, and the 1.2 ns level the -O2
 * loop still reads in some runs, are in doc/methodology-os.md.
 */
#include "lib/os/proc_call.h"

/*
 * Not inlined, and the asm keeps the compiler from treating the call as
 * removable. The add is a plain one, as lat_proc's use_int() adds to a
 * global: a volatile counter makes it a separate load, add and store,
 * about one cycle more per call than lat_proc.
 */
static __attribute__((noinline)) void proc_callee(long *counter, long v)
{
	__asm__ __volatile__("" ::: "memory");
	*counter += v;
}

int ep_os_proc_call(void *counter, uint64_t units)
{
	while (units--)
		proc_callee(counter, 1);
	return 0;
}
