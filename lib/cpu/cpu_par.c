// SPDX-License-Identifier: MIT
/*
 * cpu_par.c - cpu.par: the instruction-level parallelism of simple
 * arithmetic operations, the method of lmbench's par_ops (McVoy & Staelin).
 *
 * For each type/operation pair, the same dependent chain as cpu.ops runs
 * as 1, 2, 3, 4, 6, 8, 12 and 16 independent chains (up to the 'chains'
 * parameter) interleaved step by step. A case times
 * one chain count ("step_time": the time for every chain to advance by one
 * operation, best of the samples as par_ops). With t(1) the time of one
 * chain and t(k) that of k chains, k chains deliver k * t(1) / t(k)
 * operations in the time of one; the parallelism is the largest of these
 * over k (at least 1, k = 1 included), as par_ops takes its best k.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/util.h"
#include "lib/cpu/ops_chains.h"

/* Independent chains must stay scalar operations, not lanes of a vector. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#define PAR_LABEL_MAX 48
#define PAR_MAX_SETS (CPU_N_TYPES * CPU_N_OPS)

enum { PAR_METRIC_PARALLELISM, PAR_METRIC_STEP_TIME };

/**
 * struct par_set - one type/operation pair and its chains' values, shared
 * by its cases (one per chain count; they run one after another).
 */
struct par_set {
	struct cpu_combo combo;
	union cpu_vals vals;
};

/**
 * struct par_state - the run's state.
 * @sets:       one per type/operation pair.
 * @n_sets:     number of @sets.
 * @max_chains: the counts of par_counts up to this are measured.
 */
struct par_state {
	struct par_set sets[PAR_MAX_SETS];
	int n_sets;
	int max_chains;
};

static const struct ep_param_desc par_params[] = {
	{ "type", EP_PT_ENUM, "all", { { 0, 0 } }, CPU_TYPE_CHOICES, "",
	  "data type: int (32-bit), int64, float, double, or all" },
	{ "op", EP_PT_ENUM, "all", { { 0, 0 } }, CPU_OP_CHOICES, "",
	  "operation; bit and mod exist for int and int64 (bogo is cpu.ops only)" },
	{ "chains", EP_PT_INT, "16", { { 1, CPU_MAX_CHAINS } }, NULL, "",
	  "largest number of independent chains tried: counts 1, 2, 3, 4, 6, 8, 12, 16 up "
	  "to this (par_ops: 1 to 16)" },
};

static const struct ep_metric_desc par_metrics[] = {
	[PAR_METRIC_PARALLELISM] = { "parallelism", "x", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MAX, 1,
				     "operations that overlap: best over k of k * t(1) / t(k), "
				     "as par_ops" },
	[PAR_METRIC_STEP_TIME] = { "step_time", "ns", EP_METRIC_TIME, CPU_PAR_OPS_PER_UNIT,
				   EP_PRIMARY_MIN, 0,
				   "time for every chain to advance by one operation, best of "
				   "the samples as par_ops" },
};

/*
 * The chain counts measured: 1 to 4, then 6, 8, 12 and 16 (up to 'chains').
 * k * t(1) / t(k) stops growing once k reaches the parallelism the core
 * offers (the extra chains wait for a free unit), so the best k of par_ops'
 * 1..16 is matched by the next count of this list; half the counts keep the
 * library's code near half the size (see doc/methodology-cpu.md).
 */
static const int par_counts[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
#define PAR_N_COUNTS ((int)EP_ARRAY_SIZE(par_counts))

/* The bodies of one type/operation pair for each count of par_counts. */
#define PAR_FAMILY(name, T, MEMBER, STEP, XN)                                         \
	CPU_CHAIN_FN(name##_1, T, MEMBER, CPU_CHAINS1, STEP, XN)                     \
	CPU_CHAIN_FN(name##_2, T, MEMBER, CPU_CHAINS2, STEP, XN)                     \
	CPU_CHAIN_FN(name##_3, T, MEMBER, CPU_CHAINS3, STEP, XN)                     \
	CPU_CHAIN_FN(name##_4, T, MEMBER, CPU_CHAINS4, STEP, XN)                     \
	CPU_CHAIN_FN(name##_6, T, MEMBER, CPU_CHAINS6, STEP, XN)                     \
	CPU_CHAIN_FN(name##_8, T, MEMBER, CPU_CHAINS8, STEP, XN)                     \
	CPU_CHAIN_FN(name##_12, T, MEMBER, CPU_CHAINS12, STEP, XN)                   \
	CPU_CHAIN_FN(name##_16, T, MEMBER, CPU_CHAINS16, STEP, XN)                   \
	static const ep_body_fn name[PAR_N_COUNTS] = {                               \
		name##_1, name##_2, name##_3,  name##_4,                             \
		name##_6, name##_8, name##_12, name##_16,                            \
	};

/*
 * Four operations of each chain per unit (two-operation steps: two steps).
 * par_ops unrolls ten; four keeps the 128 bodies near 40 KiB of code, and
 * the loop's counter and branch still run beside the chains.
 */
PAR_FAMILY(par_int_bit, uint32_t, u32, CPU_STEP_IBIT, CPU_X2)
PAR_FAMILY(par_int_add, uint32_t, u32, CPU_STEP_IADD, CPU_X4)
PAR_FAMILY(par_int_mul, uint32_t, u32, CPU_STEP_IMUL, CPU_X4)
PAR_FAMILY(par_int_div, int32_t, i32, CPU_STEP_IDIV, CPU_X4)
PAR_FAMILY(par_int_mod, int32_t, i32, CPU_STEP_IMOD, CPU_X4)
PAR_FAMILY(par_int64_bit, uint64_t, u64, CPU_STEP_IBIT, CPU_X2)
PAR_FAMILY(par_int64_add, uint64_t, u64, CPU_STEP_IADD, CPU_X4)
PAR_FAMILY(par_int64_mul, uint64_t, u64, CPU_STEP_IMUL, CPU_X4)
PAR_FAMILY(par_int64_div, int64_t, i64, CPU_STEP_IDIV, CPU_X4)
PAR_FAMILY(par_int64_mod, int64_t, i64, CPU_STEP_IMOD, CPU_X4)
PAR_FAMILY(par_float_add, float, f32, CPU_STEP_FADD, CPU_X4)
PAR_FAMILY(par_float_mul, float, f32, CPU_STEP_FMUL, CPU_X2)
PAR_FAMILY(par_float_div, float, f32, CPU_STEP_FDIV, CPU_X4)
PAR_FAMILY(par_double_add, double, f64, CPU_STEP_FADD, CPU_X4)
PAR_FAMILY(par_double_mul, double, f64, CPU_STEP_FMUL, CPU_X2)
PAR_FAMILY(par_double_div, double, f64, CPU_STEP_FDIV, CPU_X4)

static const ep_body_fn *const par_bodies[CPU_N_TYPES][CPU_N_OPS] = {
	[CPU_T_INT] = { [CPU_OP_BIT] = par_int_bit, [CPU_OP_ADD] = par_int_add,
			[CPU_OP_MUL] = par_int_mul, [CPU_OP_DIV] = par_int_div,
			[CPU_OP_MOD] = par_int_mod },
	[CPU_T_INT64] = { [CPU_OP_BIT] = par_int64_bit, [CPU_OP_ADD] = par_int64_add,
			  [CPU_OP_MUL] = par_int64_mul, [CPU_OP_DIV] = par_int64_div,
			  [CPU_OP_MOD] = par_int64_mod },
	[CPU_T_FLOAT] = { [CPU_OP_ADD] = par_float_add, [CPU_OP_MUL] = par_float_mul,
			  [CPU_OP_DIV] = par_float_div },
	[CPU_T_DOUBLE] = { [CPU_OP_ADD] = par_double_add, [CPU_OP_MUL] = par_double_mul,
			   [CPU_OP_DIV] = par_double_div },
};

/* "type=int op=add", with " chains=K" when @chains > 0. */
static void set_label(const struct cpu_combo *c, int chains, char *buf, size_t size)
{
	int len = snprintf(buf, size, "type=%s op=%s", ep_cpu_type_name(c->type),
			   ep_cpu_op_name(c->op));

	if (chains > 0 && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, " chains=%d", chains);
}

static int add_set_cases(struct ep_run *run, struct par_set *set, int max_chains)
{
	struct ep_case ec = { .metric = PAR_METRIC_STEP_TIME, .arg = &set->vals };
	char label[PAR_LABEL_MAX];
	int rc = 0;

	ep_cpu_seed(&set->vals, &set->combo);
	for (int i = 0; i < PAR_N_COUNTS && par_counts[i] <= max_chains && !rc; i++) {
		set_label(&set->combo, par_counts[i], label, sizeof(label));
		ec.labels = label;
		ec.body = par_bodies[set->combo.type][set->combo.op][i];
		rc = ep_run_add_case(run, &ec);
	}
	return rc;
}

EP_UNTIMED static int par_setup(struct ep_run *run, void **state)
{
	struct cpu_combo combos[PAR_MAX_SETS];
	struct par_state *st = *state;
	int n, rc = 0;

	n = ep_cpu_select(run, 1, combos);
	if (n < 0)
		return n;
	st->max_chains = (int)ep_param_int(run, "chains");
	for (int i = 0; i < n && !rc; i++) {
		st->sets[i].combo = combos[i];
		st->n_sets++;
		rc = add_set_cases(run, &st->sets[i], st->max_chains);
	}
	return rc;
}

/* The step time of the case with @label, or NaN. */
static double step_time(const struct ep_run *run, const char *label)
{
	const struct embperf_result *r = ep_run_find_result(run, PAR_METRIC_STEP_TIME, label);

	return r ? r->value : NAN;
}

/* Best over k of k * t(1) / t(k); never below 1 (k = 1 counts). */
static int add_parallelism(struct ep_run *run, const struct par_set *set, int max_chains)
{
	char label[PAR_LABEL_MAX];
	double t1, best = 1.0;

	set_label(&set->combo, 1, label, sizeof(label));
	t1 = step_time(run, label);
	if (!(t1 > 0.0))
		return ep_run_fail(run, -ENODATA, "cpu.par: no time for one chain of %s", label);
	for (int i = 1; i < PAR_N_COUNTS && par_counts[i] <= max_chains; i++) {
		int k = par_counts[i];
		double tk;

		set_label(&set->combo, k, label, sizeof(label));
		tk = step_time(run, label);
		if (tk > 0.0 && k * t1 / tk > best)
			best = k * t1 / tk;
	}
	set_label(&set->combo, 0, label, sizeof(label));
	return ep_run_add_value(run, PAR_METRIC_PARALLELISM, label, best);
}

EP_UNTIMED static int par_finish(struct ep_run *run, void *state)
{
	const struct par_state *st = state;
	int rc = 0;

	for (int i = 0; i < st->n_sets && !rc; i++)
		rc = add_parallelism(run, &st->sets[i], st->max_chains);
	return rc;
}

const struct ep_kernel ep_kernel_cpu_par = {
	.name = "cpu.par",
	.summary = "instruction-level parallelism of arithmetic operations (lmbench par_ops)",
	EP_PARAMS(par_params),
	EP_METRICS(par_metrics),
	.engine_defaults = ep_lmbench_count_defaults,
	.setup = par_setup,
	.finish = par_finish,
	.state_bytes = sizeof(struct par_state),
	.cpu_bound = 1,
};
