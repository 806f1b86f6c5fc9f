/* SPDX-License-Identifier: MIT */
/*
 * classic.h - the computations of cpu.whetstone and cpu.linpack, for their
 * kernels and their tests: one Whetstone pass with its module results, and
 * LINPACK's matrix generator, factorization, solve and residual.
 */
#ifndef EMBPERF_CPU_CLASSIC_H
#define EMBPERF_CPU_CLASSIC_H

#include <stddef.h>

/**
 * struct ep_whet_values - what the modules of one Whetstone pass leave,
 * the values the original prints after each module (E1 is its array E1(1..4)).
 * @m2:     E1 after module 2 (array elements).
 * @m3:     E1 after module 3 (array as parameter).
 * @m4_j:   J after module 4 (conditional jumps).
 * @m6_j:   J after module 6 (integer arithmetic); @m6_k: K.
 * @m6_e:   E1(1) and E1(2) after module 6.
 * @m7_x:   X after module 7 (trigonometric functions); @m7_y: Y.
 * @m8_z:   Z after module 8 (procedure calls).
 * @m9_e:   E1(1..3) after module 9 (array references).
 * @m11_x:  X after module 11 (standard functions).
 */
struct ep_whet_values {
	double m2[4], m3[4];
	int m4_j, m6_j, m6_k;
	double m6_e[2];
	double m7_x, m7_y, m8_z;
	double m9_e[3];
	double m11_x;
};

/**
 * ep_whetstone_pass() - one pass of the Whetstone benchmark with the loop
 * count @loops (the original's LOOP): 100 000 x @loops Whetstone instructions.
 * @loops: at least 1.
 * @v:     receives the modules' results.
 */
void ep_whetstone_pass(long loops, struct ep_whet_values *v);

/**
 * ep_whet_pa() - module 3's procedure (the original's PA): six rounds of
 * the module's four statements on @e, E1(1..4). Not static, so that the
 * compiler inlines it or not as it does the original's external PA().
 */
void ep_whet_pa(double *e);

/**
 * ep_whetstone_check() - are a pass's results those of a correct build?
 * @v:     the results of ep_whetstone_pass(@loops, @v).
 * @loops: its loop count.
 * @msg:   receives the first wrong value, named by module.
 * @size:  size of @msg.
 *
 * Exact where the algorithm fixes the value (modules 4, 6, 9), the closed
 * forms of modules 8 and 11, and bounds for modules 2, 3 and 7.
 *
 * Return: 0, or -EIO with @msg set.
 */
int ep_whetstone_check(const struct ep_whet_values *v, long loops, char *msg, size_t size);

/* LINPACK: matrices are column-major, a[lda * j + i] is row i of column j. */

/**
 * ep_linpack_matgen() - netlib linpack's test matrix and right-hand side.
 * @a:   n x n matrix, leading dimension @lda, receives the entries.
 * @lda: leading dimension (at least @n).
 * @n:   order.
 * @b:   receives the row sums of @a, so that x = (1, ..., 1) solves a x = b.
 *
 * Return: the largest entry (the original's norma).
 */
double ep_linpack_matgen(double *a, int lda, int n, double *b);

/**
 * ep_linpack_dgefa() - LU factorization with partial pivoting in place
 * (LINPACK's dgefa): @a becomes U and the multipliers, @ipvt the pivot rows.
 * @unrolled: 1 for the unrolled BLAS loops, 0 for the rolled ones.
 * Return: 0, or k + 1 when the pivot of column k is zero (dgesl would
 * divide by zero).
 */
int ep_linpack_dgefa(double *a, int lda, int n, int *ipvt, int unrolled);

/**
 * ep_linpack_dgesl() - solve a x = b with dgefa's factors (LINPACK's dgesl,
 * job 0); @b becomes x.
 */
void ep_linpack_dgesl(const double *a, int lda, int n, const int *ipvt, double *b,
		      int unrolled);

/**
 * ep_linpack_residual() - the original's normalized residual
 * ||a x - b|| / (n ||a|| ||x|| eps), maximum norms, ||a|| = @norma.
 * @a, @b: the matrix and right-hand side as ep_linpack_matgen() made them.
 * @x:     a solution.
 *
 * Return: the normalized residual (about 1 for a correct solve), infinity
 * when a value is not finite.
 */
double ep_linpack_residual(const double *a, int lda, int n, const double *x, const double *b,
			   double norma);

/*
 * The largest normalized residual accepted: correct solves of matgen's
 * systems give 1.7 at n = 100 and at most 20 up to n = 2000 (doc/methodology-cpu.md).
 */
#define EP_LINPACK_RESID_MAX 100.0

#endif /* EMBPERF_CPU_CLASSIC_H */
