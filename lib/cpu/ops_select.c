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

/* int: 32-bit chains. Division sizes as lat_ops': a dividend of 38 << 20
 * over 37 gives a 20-bit quotient, which divides back to 37. */
static void seed_int(union cpu_vals *v, enum cpu_op op)
{
	for (int i = 0; i < CPU_MAX_CHAINS; i++) {
		switch (op) {
		case CPU_OP_BIT:
			v->u32[i] = 0x5a5a5a5u + 977u * (uint32_t)i;
			break;
		case CPU_OP_ADD:
			v->u32[i] = 57u + (uint32_t)i;
			break;
		case CPU_OP_MUL:
			v->u32[i] = 37431u + 2u * (uint32_t)i; /* odd: never becomes 0 */
			break;
		case CPU_OP_DIV:
			v->i32[i] = 37 + i;
			break;
		default: /* mod: (v % 63) | 63 settles at 63 % 63, as lat_ops' */
			v->i32[i] = 1000 + i;
			break;
		}
	}
	switch (op) {
	case CPU_OP_BIT:
		v->u32[CPU_MAX_CHAINS] = 0x12345678u;
		v->u32[CPU_MAX_CHAINS + 1] = 0x10204u;
		break;
	case CPU_OP_ADD:
		v->u32[CPU_MAX_CHAINS] = 3u;
		break;
	case CPU_OP_MUL:
		v->u32[CPU_MAX_CHAINS] = 0x9e3779b1u; /* odd, all 32 bits used */
		break;
	case CPU_OP_DIV:
		v->i32[CPU_MAX_CHAINS] = 38 << 20;
		break;
	default:
		v->i32[CPU_MAX_CHAINS] = 63;
		break;
	}
}

/* int64: values that use the upper half. Division: lat_ops' sizes, a
 * dividend near 2^51 over a divisor near 2^38 and back; remainder: a
 * divisor of 2^56 + 1 and a dividend of the same size. */
static void seed_int64(union cpu_vals *v, enum cpu_op op)
{
	const int64_t div_r0 = 37 * (((int64_t)1 << 33) + 1);

	for (int i = 0; i < CPU_MAX_CHAINS; i++) {
		uint64_t k = (uint64_t)i;

		switch (op) {
		case CPU_OP_BIT:
			v->u64[i] = 0x5a5a5a5a5a5a5a5ull + 977u * k;
			break;
		case CPU_OP_ADD:
			v->u64[i] = ((uint64_t)254 << 30) + 37420u + k;
			break;
		case CPU_OP_MUL:
			v->u64[i] = ((uint64_t)7 << 32) + 37421u + 2u * k;
			break;
		case CPU_OP_DIV:
			v->i64[i] = (37 + i) * (((int64_t)1 << 33) + 1);
			break;
		default:
			v->i64[i] = ((int64_t)3 << 56) + 12345 * i + 7;
			break;
		}
	}
	switch (op) {
	case CPU_OP_BIT:
		v->u64[CPU_MAX_CHAINS] = 0x123456789abcdefull;
		v->u64[CPU_MAX_CHAINS + 1] = 0x1020400000000ull;
		break;
	case CPU_OP_ADD:
		v->u64[CPU_MAX_CHAINS] = ((uint64_t)1 << 40) + 3u;
		break;
	case CPU_OP_MUL:
		v->u64[CPU_MAX_CHAINS] = 0x9e3779b97f4a7c15ull;
		break;
	case CPU_OP_DIV:
		v->i64[CPU_MAX_CHAINS] = (div_r0 + 17) << 13;
		break;
	default:
		v->i64[CPU_MAX_CHAINS] = ((int64_t)1 << 56) + 1;
		break;
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
	if (c->type == CPU_T_INT)
		seed_int(vals, c->op);
	else if (c->type == CPU_T_INT64)
		seed_int64(vals, c->op);
	else
		seed_fp(vals, c->type, c->op);
}
