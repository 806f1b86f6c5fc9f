// SPDX-License-Identifier: MIT
/*
 * ops_select.c - which type/operation pairs cpu.ops and cpu.par measure,
 * and the values their chains start from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/util.h"
#include "lib/cpu/ops_chains.h"

static const char *const type_names[CPU_N_TYPES] = {
	[CPU_T_INT] = "int", [CPU_T_INT64] = "int64",
	[CPU_T_FLOAT] = "float", [CPU_T_DOUBLE] = "double",
};

static const char *const op_names[CPU_N_OPS] = {
	[CPU_OP_BIT] = "bit", [CPU_OP_ADD] = "add", [CPU_OP_MUL] = "mul",
	[CPU_OP_DIV] = "div", [CPU_OP_MOD] = "mod", [CPU_OP_BOGO] = "bogo",
};

const char *ep_cpu_type_name(enum cpu_type type)
{
	return type >= 0 && type < CPU_N_TYPES ? type_names[type] : "?";
}

const char *ep_cpu_op_name(enum cpu_op op)
{
	return op >= 0 && op < CPU_N_OPS ? op_names[op] : "?";
}

static int is_integer(enum cpu_type type)
{
	return type == CPU_T_INT || type == CPU_T_INT64;
}

int ep_cpu_combo_exists(enum cpu_type type, enum cpu_op op, int for_par)
{
	switch (op) {
	case CPU_OP_ADD:
	case CPU_OP_MUL:
	case CPU_OP_DIV:
		return 1;
	case CPU_OP_BIT:
	case CPU_OP_MOD:
		return is_integer(type);
	case CPU_OP_BOGO:
		return !for_par && !is_integer(type);
	default:
		return 0;
	}
}

/* "add|mul|div|bogo": the operations @type has, for the error message. */
static void ops_of(enum cpu_type type, int for_par, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int op = 0; op < CPU_N_OPS; op++) {
		if (!ep_cpu_combo_exists(type, (enum cpu_op)op, for_par))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					len ? "|" : "", op_names[op]);
	}
}

static int no_such_combo(struct ep_run *run, int type, int op, int for_par)
{
	const char *tool = for_par ? "par_ops" : "lat_ops";
	char accepted[64];

	if (type == CPU_N_TYPES) {
		/* op=bogo in cpu.par: no type has it. */
		return ep_run_fail(run, -EINVAL,
				   "parameter 'op': value '%s' is not measured by cpu.par (%s has no "
				   "bogoflops: a vector loop, not a chain); accepted: "
				   "bit|add|mul|div|mod|all",
				   op_names[op], tool);
	}
	ops_of((enum cpu_type)type, for_par, accepted, sizeof(accepted));
	return ep_run_fail(run, -EINVAL,
			   "parameter 'op': value '%s' does not exist for type=%s (lmbench's %s has "
			   "no %s %s); accepted with type=%s: %s|all",
			   op_names[op], type_names[type], tool, type_names[type], op_names[op],
			   type_names[type], accepted);
}

int ep_cpu_select(struct ep_run *run, int for_par, struct cpu_combo *out)
{
	int type = (int)ep_param_int(run, "type");
	int op = (int)ep_param_int(run, "op");
	int n = 0;

	for (int t = 0; t < CPU_N_TYPES; t++) {
		if (type != CPU_N_TYPES && type != t)
			continue;
		for (int o = 0; o < CPU_N_OPS; o++) {
			if (op != CPU_N_OPS && op != o)
				continue;
			if (!ep_cpu_combo_exists((enum cpu_type)t, (enum cpu_op)o, for_par))
				continue;
			out[n].type = (enum cpu_type)t;
			out[n].op = (enum cpu_op)o;
			n++;
		}
	}
	if (!n)
		return no_such_combo(run, type, op, for_par);
	return n;
}

/**
 * struct int_seed - an integer operation's chain values: chain i starts at
 * @base + i * @step, and the operands after the chains are @arg0, @arg1.
 */
struct int_seed {
	uint64_t base, step, arg0, arg1;
};

/*
 * int: 32-bit chains. mul starts odd (never becomes 0) and multiplies by an
 * odd value that uses all 32 bits. Division sizes as lat_ops': a dividend of
 * 38 << 20 over 37 gives a 20-bit quotient, which divides back to 37; mod:
 * (v % 63) | 63 settles at 63 % 63, as lat_ops'.
 */
static const struct int_seed int_seeds[] = {
	[CPU_OP_BIT] = { 0x5a5a5a5u, 977u, 0x12345678u, 0x10204u },
	[CPU_OP_ADD] = { 57u, 1u, 3u, 0 },
	[CPU_OP_MUL] = { 37431u, 2u, 0x9e3779b1u, 0 },
	[CPU_OP_DIV] = { 37u, 1u, 38u << 20, 0 },
	[CPU_OP_MOD] = { 1000u, 1u, 63u, 0 },
};

/*
 * int64: values that use the upper half. Division: lat_ops' sizes, a
 * dividend near 2^51 over a divisor near 2^38 (37 + i times 2^33 + 1) and
 * back; remainder: a divisor of 2^56 + 1 and a dividend of the same size.
 */
#define DIV64_STEP (((uint64_t)1 << 33) + 1)
static const struct int_seed int64_seeds[] = {
	[CPU_OP_BIT] = { 0x5a5a5a5a5a5a5a5ull, 977u, 0x123456789abcdefull, 0x1020400000000ull },
	[CPU_OP_ADD] = { ((uint64_t)254 << 30) + 37420u, 1u, ((uint64_t)1 << 40) + 3u, 0 },
	[CPU_OP_MUL] = { ((uint64_t)7 << 32) + 37421u, 2u, 0x9e3779b97f4a7c15ull, 0 },
	[CPU_OP_DIV] = { 37 * DIV64_STEP, DIV64_STEP, (37 * DIV64_STEP + 17) << 13, 0 },
	[CPU_OP_MOD] = { ((uint64_t)3 << 56) + 7, 12345u, ((uint64_t)1 << 56) + 1, 0 },
};

/* The chains and operands of an integer type from its table. */
static void seed_int(union cpu_vals *v, enum cpu_type type, enum cpu_op op)
{
	const struct int_seed *s = type == CPU_T_INT ? &int_seeds[op] : &int64_seeds[op];
	uint64_t vals[CPU_NVALS] = { 0 };

	for (int i = 0; i < CPU_MAX_CHAINS; i++)
		vals[i] = s->base + s->step * (uint64_t)i;
	vals[CPU_MAX_CHAINS] = s->arg0;
	vals[CPU_MAX_CHAINS + 1] = s->arg1;
	for (int i = 0; i < CPU_NVALS; i++) {
		if (type == CPU_T_INT)
			v->u32[i] = (uint32_t)vals[i];
		else
			v->u64[i] = vals[i];
	}
}

/* Floating point: a sum that grows by 1 (float: until 2^24, where it
 * stays), a product by 4 then 1/4 (exact), a quotient pi / v that swings
 * between two values. */
static void seed_fp(union cpu_vals *v, enum cpu_type type, enum cpu_op op)
{
	double start[CPU_MAX_CHAINS], b, c = 0.0;

	for (int i = 0; i < CPU_MAX_CHAINS; i++)
		start[i] = op == CPU_OP_ADD ? 1.0 + i : 1.41421356 + 0.125 * i;
	b = op == CPU_OP_ADD ? 1.0 : op == CPU_OP_MUL ? 4.0 : 3.14159265;
	if (op == CPU_OP_MUL)
		c = 0.25;
	for (int i = 0; i < CPU_MAX_CHAINS; i++) {
		if (type == CPU_T_FLOAT)
			v->f32[i] = (float)start[i];
		else
			v->f64[i] = start[i];
	}
	if (type == CPU_T_FLOAT) {
		v->f32[CPU_MAX_CHAINS] = (float)b;
		v->f32[CPU_MAX_CHAINS + 1] = (float)c;
	} else {
		v->f64[CPU_MAX_CHAINS] = b;
		v->f64[CPU_MAX_CHAINS + 1] = c;
	}
}

void ep_cpu_seed(union cpu_vals *vals, const struct cpu_combo *c)
{
	memset(vals, 0, sizeof(*vals));
	if (c->op == CPU_OP_BOGO)
		return;
	if (c->type == CPU_T_INT || c->type == CPU_T_INT64)
		seed_int(vals, c->type, c->op);
	else
		seed_fp(vals, c->type, c->op);
}
