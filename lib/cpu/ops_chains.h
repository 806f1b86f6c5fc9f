/* SPDX-License-Identifier: MIT */
/*
 * ops_chains.h - dependent chains of arithmetic operations, shared by
 * cpu.ops (the latency of one operation: one chain) and cpu.par (the
 * instruction-level parallelism: 1 to 16 independent chains), the methods of
 * lmbench's lat_ops and par_ops (McVoy & Staelin).
 *
 * A chain feeds every result into the next operation, so the time per
 * operation is the operation's latency. Three things keep the compiler from
 * shortening the chain:
 *   - the start values and operands come from memory the compiler cannot
 *     see into (the case's state, filled at run time), so nothing is folded
 *     to a constant;
 *   - after every operation the value passes through an empty asm statement
 *     that claims to change it (CPU_KEEP_*), so consecutive operations
 *     cannot be merged (ten "a += b" into one "a += 10 * b", "a * b * b" into
 *     "a * (b * b)", "r | (s ^ r)" into "r | s");
 *   - the files that use the chains are built without vectorisation, so
 *     independent chains stay scalar operations.
 * The asm statements emit no instruction: the machine runs exactly the
 * operations of the chain, one after another.
 */
#ifndef EMBPERF_CPU_OPS_CHAINS_H
#define EMBPERF_CPU_OPS_CHAINS_H

#include <stdint.h>

#include "lib/core/run.h"

#define CPU_MAX_CHAINS 16                 /* par_ops tries 1 to 16 chains */
#define CPU_NVALS (CPU_MAX_CHAINS + 2)    /* chain values, then two operands */
#define CPU_OPS_PER_UNIT 100              /* cpu.ops: operations per unit */
#define CPU_PAR_OPS_PER_UNIT 4            /* cpu.par: operations of each chain per unit */
#define CPU_BOGO_ELEMENTS 1000            /* lat_ops' bogoflops vector length */

enum cpu_type { CPU_T_INT, CPU_T_INT64, CPU_T_FLOAT, CPU_T_DOUBLE, CPU_N_TYPES };
enum cpu_op { CPU_OP_BIT, CPU_OP_ADD, CPU_OP_MUL, CPU_OP_DIV, CPU_OP_MOD, CPU_OP_BOGO, CPU_N_OPS };

/* Parameter choices, in enum order; "all" is the index CPU_N_TYPES / CPU_N_OPS. */
#define CPU_TYPE_CHOICES "int|int64|float|double|all"
#define CPU_OP_CHOICES "bit|add|mul|div|mod|bogo|all"

/**
 * union cpu_vals - one chain set's values, seen as the type of its chains:
 * [0, CPU_MAX_CHAINS) the chains' current values (kept between body calls),
 * [CPU_MAX_CHAINS] and [CPU_MAX_CHAINS + 1] the operands b and c.
 */
union cpu_vals {
	int32_t i32[CPU_NVALS];
	uint32_t u32[CPU_NVALS];
	int64_t i64[CPU_NVALS];
	uint64_t u64[CPU_NVALS];
	float f32[CPU_NVALS];
	double f64[CPU_NVALS];
};

/** struct cpu_combo - one type/operation pair a run measures. */
struct cpu_combo {
	enum cpu_type type;
	enum cpu_op op;
};

/** ep_cpu_type_name() - "int", "int64", "float" or "double". */
const char *ep_cpu_type_name(enum cpu_type type);

/** ep_cpu_op_name() - "bit", "add", "mul", "div", "mod" or "bogo". */
const char *ep_cpu_op_name(enum cpu_op op);

/**
 * ep_cpu_combo_exists() - tell whether lmbench measures a combination.
 * @type:    the data type.
 * @op:      the operation.
 * @for_par: 1 for par_ops' set (no bogo), 0 for lat_ops' set.
 *
 * lat_ops has bit, add, mul, div and mod for int and int64, and add, mul,
 * div and bogoflops for float and double; par_ops the same without bogoflops.
 *
 * Return: 1 when the combination exists, 0 otherwise.
 */
int ep_cpu_combo_exists(enum cpu_type type, enum cpu_op op, int for_par);

/**
 * ep_cpu_select() - the combinations the run's "type" and "op" parameters ask for.
 * @run:     the run (parameters, detail message).
 * @for_par: as for ep_cpu_combo_exists().
 * @out:     receives up to CPU_N_TYPES * CPU_N_OPS combinations, type-major.
 *
 * "all" selects every existing combination along that parameter; a pair
 * that lmbench does not have (type=float op=bit) is an error naming the
 * parameter, the value and the operations the type accepts.
 *
 * Return: the number of combinations (> 0), or -EINVAL.
 */
int ep_cpu_select(struct ep_run *run, int for_par, struct cpu_combo *out);

/**
 * ep_cpu_seed() - fill the start values and operands of a combination.
 * @vals: destination.
 * @c:    the combination (bogo has no chain and gets nothing).
 *
 * Values stay in a fixed range for ever (no overflow to infinity, no
 * denormal, no division by zero), and divisions see the operand sizes of
 * lat_ops', since dividers take longer on larger quotients.
 */
void ep_cpu_seed(union cpu_vals *vals, const struct cpu_combo *c);

/* ---- keeping values opaque ---------------------------------------------- */

#define CPU_KEEP_INT(v) __asm__("" : "+r"(v))
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2_MATH__))
#define CPU_KEEP_FP(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define CPU_KEEP_FP(v) __asm__("" : "+w"(v))
#elif defined(__riscv) && defined(__riscv_flen) && __riscv_flen >= 64
#define CPU_KEEP_FP(v) __asm__("" : "+f"(v))
#else
/* No register class to name: IEEE rules alone forbid re-associating. */
#define CPU_KEEP_FP(v) ((void)0)
#endif

/* ---- one step of chain i (value v##i; operands b and c) ----------------- */

/* Two bit operations per step (xor, then or), each on the previous result. */
#define CPU_STEP_IBIT(i) v##i ^= b; CPU_KEEP_INT(v##i); v##i |= c; CPU_KEEP_INT(v##i);
#define CPU_STEP_IADD(i) v##i += b; CPU_KEEP_INT(v##i);
#define CPU_STEP_IMUL(i) v##i *= b; CPU_KEEP_INT(v##i);
#define CPU_STEP_IDIV(i) v##i = b / v##i; CPU_KEEP_INT(v##i);
/* The remainder falls below b; or-ing b back keeps the dividend from
 * collapsing to zero. The or is not part of what is measured: cpu.ops
 * subtracts a chain of ors (CPU_STEP_IOR), as lat_ops subtracts its bit time. */
#define CPU_STEP_IMOD(i) v##i %= b; CPU_KEEP_INT(v##i); v##i |= b; CPU_KEEP_INT(v##i);
#define CPU_STEP_IOR(i) v##i |= b; CPU_KEEP_INT(v##i);
#define CPU_STEP_FADD(i) v##i += b; CPU_KEEP_FP(v##i);
/* Two multiplications per step, by b and by c = 1 / b: exact, so the value
 * never drifts towards infinity or zero. */
#define CPU_STEP_FMUL(i) v##i *= b; CPU_KEEP_FP(v##i); v##i *= c; CPU_KEEP_FP(v##i);
#define CPU_STEP_FDIV(i) v##i = b / v##i; CPU_KEEP_FP(v##i);

/* ---- repetition --------------------------------------------------------- */

#define CPU_X2(s) s s
#define CPU_X4(s) s s s s
#define CPU_X5(s) s s s s s
#define CPU_X10(s) CPU_X5(s) CPU_X5(s)
#define CPU_X50(s) CPU_X10(CPU_X5(s))
#define CPU_X100(s) CPU_X10(CPU_X10(s))

/* M(0) .. M(n - 1): one statement per chain. */
#define CPU_CHAINS1(M) M(0)
#define CPU_CHAINS2(M) CPU_CHAINS1(M) M(1)
#define CPU_CHAINS3(M) CPU_CHAINS2(M) M(2)
#define CPU_CHAINS4(M) CPU_CHAINS3(M) M(3)
#define CPU_CHAINS5(M) CPU_CHAINS4(M) M(4)
#define CPU_CHAINS6(M) CPU_CHAINS5(M) M(5)
#define CPU_CHAINS7(M) CPU_CHAINS6(M) M(6)
#define CPU_CHAINS8(M) CPU_CHAINS7(M) M(7)
#define CPU_CHAINS9(M) CPU_CHAINS8(M) M(8)
#define CPU_CHAINS10(M) CPU_CHAINS9(M) M(9)
#define CPU_CHAINS11(M) CPU_CHAINS10(M) M(10)
#define CPU_CHAINS12(M) CPU_CHAINS11(M) M(11)
#define CPU_CHAINS13(M) CPU_CHAINS12(M) M(12)
#define CPU_CHAINS14(M) CPU_CHAINS13(M) M(13)
#define CPU_CHAINS15(M) CPU_CHAINS14(M) M(14)
#define CPU_CHAINS16(M) CPU_CHAINS15(M) M(15)

#define CPU_CHAIN_LOAD(i) cpu_chain_t v##i = x[i];
#define CPU_CHAIN_STORE(i) x[i] = v##i;

/*
 * CPU_CHAIN_FN() - define a body running chains in step.
 * @name:   function name.
 * @T:      type of the chains' values.
 * @MEMBER: the union cpu_vals member of that type.
 * @CHAINS: CPU_CHAINS<n>: how many independent chains.
 * @STEP:   CPU_STEP_*: one step of one chain.
 * @XN:     CPU_X<n>: steps per unit.
 *
 * Each unit advances every chain by XN steps, the chains interleaved step
 * by step so that their operations can overlap. The values are stored back,
 * so the next call continues the chains and the results are not dead code.
 */
#define CPU_CHAIN_FN(name, T, MEMBER, CHAINS, STEP, XN)                            \
	static int name(void *arg, uint64_t units)                                 \
	{                                                                          \
		typedef T cpu_chain_t;                                             \
		cpu_chain_t *x = ((union cpu_vals *)arg)->MEMBER;                  \
		const cpu_chain_t b = x[CPU_MAX_CHAINS], c = x[CPU_MAX_CHAINS + 1]; \
		CHAINS(CPU_CHAIN_LOAD)                                             \
		(void)c;                                                           \
		while (units--) {                                                  \
			XN(CHAINS(STEP))                                           \
		}                                                                  \
		CHAINS(CPU_CHAIN_STORE)                                            \
		return 0;                                                          \
	}

#endif /* EMBPERF_CPU_OPS_CHAINS_H */
