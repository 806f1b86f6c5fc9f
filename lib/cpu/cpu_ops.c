// SPDX-License-Identifier: MIT
/*
 * cpu_ops.c - cpu.ops: the latency of simple arithmetic operations, the
 * method of lmbench's lat_ops (McVoy & Staelin).
 *
 * Each case runs one dependent chain of its operation (ops_chains.h), 100
 * operations per unit, and reports nanoseconds per operation. The chain of
 * a remainder needs an or to go on; a chain of ors alone is the case's
 * overhead, which the engine measures and subtracts, as lat_ops subtracts
 * its bit-operation time from mod (and from mul, whose chain here needs no
 * helper operation). "bogo" is lat_ops' bogoflops: x = (1 + x) * (1.5 - x)
 * / x over a vector of 1000 elements, independent from each other, so it
 * measures how well the floating-point units overlap rather than a latency;
 * one element counts as one operation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/cpu/ops_chains.h"

/*
 * Keep each operation a scalar instruction: gcc -O2 could turn the bogo
 * loop into vector code, which lat_ops (built with -O) never runs. clang
 * is held back by the asm statements and a loop pragma.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#define OPS_LABEL_MAX 32
#define OPS_MAX_CASES (CPU_N_TYPES * CPU_N_OPS)

/**
 * struct ops_case - one type/operation pair.
 * @vals:     chain value and operands: what a chain body receives.
 * @bogo:     bogo only: the vector of CPU_BOGO_ELEMENTS floats or doubles.
 * @bogo_pos: bogo only: element where the next unit starts.
 */
struct ops_case {
	union cpu_vals vals;
	void *bogo;
	size_t bogo_pos;
};

/** struct ops_state - the run's cases. */
struct ops_state {
	struct ops_case cases[OPS_MAX_CASES];
	int n_cases;
};

static const struct ep_param_desc ops_params[] = {
	{ "type", EP_PT_ENUM, "all", { { 0, 0 } }, CPU_TYPE_CHOICES, "",
	  "data type: int (32-bit), int64, float, double, or all" },
	{ "op", EP_PT_ENUM, "all", { { 0, 0 } }, CPU_OP_CHOICES, "",
	  "operation; bit and mod exist for int and int64, bogo (bogoflops) for float and double" },
};

static const struct ep_metric_desc ops_metrics[] = {
	{ "latency", "ns", EP_METRIC_TIME, CPU_OPS_PER_UNIT, EP_PRIMARY_MEDIAN, 0,
	  "time of one operation in a dependent chain (bogo: one vector element), "
	  "median of the samples as lat_ops" },
};

/* One chain, 100 operations per unit (two-operation steps: 50 steps). */
CPU_CHAIN_FN(ops_int_bit, uint32_t, u32, CPU_CHAINS1, CPU_STEP_IBIT, CPU_X50)
CPU_CHAIN_FN(ops_int_add, uint32_t, u32, CPU_CHAINS1, CPU_STEP_IADD, CPU_X100)
CPU_CHAIN_FN(ops_int_mul, uint32_t, u32, CPU_CHAINS1, CPU_STEP_IMUL, CPU_X100)
CPU_CHAIN_FN(ops_int_div, int32_t, i32, CPU_CHAINS1, CPU_STEP_IDIV, CPU_X100)
CPU_CHAIN_FN(ops_int_mod, int32_t, i32, CPU_CHAINS1, CPU_STEP_IMOD, CPU_X100)
CPU_CHAIN_FN(ops_int_or, int32_t, i32, CPU_CHAINS1, CPU_STEP_IOR, CPU_X100)
CPU_CHAIN_FN(ops_int64_bit, uint64_t, u64, CPU_CHAINS1, CPU_STEP_IBIT, CPU_X50)
CPU_CHAIN_FN(ops_int64_add, uint64_t, u64, CPU_CHAINS1, CPU_STEP_IADD, CPU_X100)
CPU_CHAIN_FN(ops_int64_mul, uint64_t, u64, CPU_CHAINS1, CPU_STEP_IMUL, CPU_X100)
CPU_CHAIN_FN(ops_int64_div, int64_t, i64, CPU_CHAINS1, CPU_STEP_IDIV, CPU_X100)
CPU_CHAIN_FN(ops_int64_mod, int64_t, i64, CPU_CHAINS1, CPU_STEP_IMOD, CPU_X100)
CPU_CHAIN_FN(ops_int64_or, int64_t, i64, CPU_CHAINS1, CPU_STEP_IOR, CPU_X100)
CPU_CHAIN_FN(ops_float_add, float, f32, CPU_CHAINS1, CPU_STEP_FADD, CPU_X100)
CPU_CHAIN_FN(ops_float_mul, float, f32, CPU_CHAINS1, CPU_STEP_FMUL, CPU_X50)
CPU_CHAIN_FN(ops_float_div, float, f32, CPU_CHAINS1, CPU_STEP_FDIV, CPU_X100)
CPU_CHAIN_FN(ops_double_add, double, f64, CPU_CHAINS1, CPU_STEP_FADD, CPU_X100)
CPU_CHAIN_FN(ops_double_mul, double, f64, CPU_CHAINS1, CPU_STEP_FMUL, CPU_X50)
CPU_CHAIN_FN(ops_double_div, double, f64, CPU_CHAINS1, CPU_STEP_FDIV, CPU_X100)

/* One element: x = (1 + x) * (1.5 - x) / x, kept a scalar computation. */
#define BOGO_ELEMENT(T)                                               \
	{                                                             \
		T v = *q;                                             \
                                                                      \
		v = ((T)1.0f + v) * ((T)1.5f - v) / v;                \
		CPU_KEEP_FP(v);                                       \
		*q++ = v;                                             \
	}

#if defined(__clang__)
#define BOGO_NO_VECTOR _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define BOGO_NO_VECTOR
#endif

/*
 * BOGO_FN() - bogoflops over 100 elements per unit, ten to an iteration as
 * lat_ops unrolls them, walking the vector round. The elements do not
 * depend on each other.
 */
#define BOGO_FN(name, T)                                                      \
	static int name(void *arg, uint64_t units)                            \
	{                                                                     \
		struct ops_case *oc = arg;                                    \
		size_t pos = oc->bogo_pos;                                    \
                                                                              \
		while (units--) {                                             \
			T *q = (T *)oc->bogo + pos;                           \
                                                                              \
			BOGO_NO_VECTOR                                        \
			for (int i = 0; i < CPU_OPS_PER_UNIT / 10; i++) {     \
				CPU_X10(BOGO_ELEMENT(T))                      \
			}                                                     \
			pos += CPU_OPS_PER_UNIT;                              \
			if (pos == CPU_BOGO_ELEMENTS)                         \
				pos = 0;                                      \
		}                                                             \
		oc->bogo_pos = pos;                                           \
		return 0;                                                     \
	}

BOGO_FN(ops_float_bogo, float)
BOGO_FN(ops_double_bogo, double)

static const ep_body_fn ops_bodies[CPU_N_TYPES][CPU_N_OPS] = {
	[CPU_T_INT] = { [CPU_OP_BIT] = ops_int_bit, [CPU_OP_ADD] = ops_int_add,
			[CPU_OP_MUL] = ops_int_mul, [CPU_OP_DIV] = ops_int_div,
			[CPU_OP_MOD] = ops_int_mod },
	[CPU_T_INT64] = { [CPU_OP_BIT] = ops_int64_bit, [CPU_OP_ADD] = ops_int64_add,
			  [CPU_OP_MUL] = ops_int64_mul, [CPU_OP_DIV] = ops_int64_div,
			  [CPU_OP_MOD] = ops_int64_mod },
	[CPU_T_FLOAT] = { [CPU_OP_ADD] = ops_float_add, [CPU_OP_MUL] = ops_float_mul,
			  [CPU_OP_DIV] = ops_float_div, [CPU_OP_BOGO] = ops_float_bogo },
	[CPU_T_DOUBLE] = { [CPU_OP_ADD] = ops_double_add, [CPU_OP_MUL] = ops_double_mul,
			   [CPU_OP_DIV] = ops_double_div, [CPU_OP_BOGO] = ops_double_bogo },
};

/* Helper operations inside a chain, subtracted as the case's overhead. */
static ep_body_fn overhead_of(const struct cpu_combo *c)
{
	if (c->op != CPU_OP_MOD)
		return NULL;
	return c->type == CPU_T_INT ? ops_int_or : ops_int64_or;
}

/* lat_ops fills its vector with 3.14159265 and lets it evolve from there. */
static int alloc_bogo(struct ops_case *oc, enum cpu_type type)
{
	size_t elem = type == CPU_T_FLOAT ? sizeof(float) : sizeof(double);

	oc->bogo = calloc(CPU_BOGO_ELEMENTS, elem);
	if (!oc->bogo)
		return -ENOMEM;
	for (int i = 0; i < CPU_BOGO_ELEMENTS; i++) {
		if (type == CPU_T_FLOAT)
			((float *)oc->bogo)[i] = 3.14159265f;
		else
			((double *)oc->bogo)[i] = 3.14159265;
	}
	return 0;
}

EP_UNTIMED static void ops_teardown(void *state)
{
	struct ops_state *st = state;

	for (int i = 0; i < st->n_cases; i++)
		free(st->cases[i].bogo);
}

static int add_case(struct ep_run *run, struct ops_state *st, const struct cpu_combo *c)
{
	struct ops_case *oc = &st->cases[st->n_cases++];
	struct ep_case ec = { .metric = 0 };
	char label[OPS_LABEL_MAX];
	int rc;

	ep_cpu_seed(&oc->vals, c);
	if (c->op == CPU_OP_BOGO) {
		rc = alloc_bogo(oc, c->type);
		if (rc)
			return rc;
	}
	snprintf(label, sizeof(label), "type=%s op=%s", ep_cpu_type_name(c->type),
		 ep_cpu_op_name(c->op));
	ec.labels = label; /* the engine copies it */
	ec.body = ops_bodies[c->type][c->op];
	ec.overhead = overhead_of(c);
	/* Chain bodies take the values, bogo bodies the whole case. */
	ec.arg = c->op == CPU_OP_BOGO ? (void *)oc : (void *)&oc->vals;
	return ep_run_add_case(run, &ec);
}

EP_UNTIMED static int ops_setup(struct ep_run *run, void **state)
{
	struct cpu_combo combos[OPS_MAX_CASES];
	struct ops_state *st = *state;
	int n, rc = 0;

	n = ep_cpu_select(run, 0, combos);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !rc; i++)
		rc = add_case(run, st, &combos[i]);
	return rc;
}

const struct ep_kernel ep_kernel_cpu_ops = {
	.name = "cpu.ops",
	.summary = "latency of integer and floating-point operations (lmbench lat_ops)",
	EP_PARAMS(ops_params),
	EP_METRICS(ops_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = ops_setup,
	.teardown = ops_teardown,
	.state_bytes = sizeof(struct ops_state),
	.cpu_bound = 1,
};
