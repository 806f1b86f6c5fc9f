/* SPDX-License-Identifier: MIT */
/*
 * mhz.h - cpu.mhz's estimate of the clock period from loop times, apart
 * from the kernel so that tests can feed it known times.
 */
#ifndef EMBPERF_CPU_MHZ_H
#define EMBPERF_CPU_MHZ_H

#define MHZ_MAX_LOOPS 16
#define MHZ_MAX_CYCLES 6       /* the fastest loop takes at most this many cycles */
#define MHZ_FIT_TOLERANCE 0.2  /* cycles a loop may sit off a whole count */
#define MHZ_FINE_FIT_TOLERANCE 0.1 /* the same when the fastest loop takes > 1 cycle */

/**
 * ep_cpu_mhz_period() - the clock period that loop times are whole multiples of.
 * @t_ns:      time of one expression of each loop (all > 0).
 * @n:         number of loops, 2 to MHZ_MAX_LOOPS.
 * @period_ns: receives the period.
 *
 * For each guess c = 1..MHZ_MAX_CYCLES of the fastest loop's cycles, every
 * loop gets its nearest whole count, a least-squares line through the origin
 * gives the period, and the guess with the smallest c^2 * (mean square
 * distance of the loops from their counts, in cycles) wins.
 *
 * Return: 0, or -EAGAIN when that period leaves a loop more than
 * MHZ_FIT_TOLERANCE cycles off a whole count (MHZ_FINE_FIT_TOLERANCE when
 * the winning guess is more than one cycle; too noisy), or -EINVAL for a
 * bad @n or time.
 */
int ep_cpu_mhz_period(const double *t_ns, int n, double *period_ns);

#endif /* EMBPERF_CPU_MHZ_H */
