/* SPDX-License-Identifier: MIT */
/*
 * proc_call.h - os.proc op=proccall's timed loop, in a file of its own so
 * that it is built with the timed loops (lib_sources, -O2), not for size
 * with the rest of os.proc: its instructions are what is timed.
 */
#ifndef EMBPERF_OS_PROC_CALL_H
#define EMBPERF_OS_PROC_CALL_H

#include <stdint.h>

/**
 * ep_os_proc_call() - @units calls of a function the compiler may not
 * inline, each adding 1 to the long that @counter points to (lmbench
 * lat_proc's "procedure": use_int() adds to a global).
 * Return: 0.
 */
int ep_os_proc_call(void *counter, uint64_t units);

#endif /* EMBPERF_OS_PROC_CALL_H */
