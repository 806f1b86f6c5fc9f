/* SPDX-License-Identifier: MIT */
/*
 * emulated.h - tests whose assertion is about this machine's timing (cache
 * sizes, parallelism, ratios, pacing against the wall clock) skip when the
 * tests run under an emulator: under qemu-user an instruction costs what
 * translating and running it on the host costs, so caches, parallel chains
 * and per-operation times do not show the target's shape. The cross
 * builds' test setup sets EMBPERF_EMULATED (tests/meson.build; a board run
 * leaves it unset); set it by hand to run a test binary under qemu alone.
 */
#ifndef EMBPERF_TESTS_EMULATED_H
#define EMBPERF_TESTS_EMULATED_H

#include <stdlib.h>
#include <unistd.h>

/** tp_emulated() - the emulator named by EMBPERF_EMULATED, or NULL when running natively. */
static inline const char *tp_emulated(void)
{
	const char *e = getenv("EMBPERF_EMULATED");

	return e && *e ? e : NULL;
}

/* Skip the calling test under emulation, saying what it measures (@why). */
#define tp_skip_if_emulated(why)                                                      \
	do {                                                                          \
		if (tp_emulated())                                                    \
			cr_skip_test("under emulation (%s): %s", tp_emulated(), why); \
	} while (0)

/*
 * TP_UNDER_ASAN: 1 when the test is built with AddressSanitizer (gcc says
 * so with __SANITIZE_ADDRESS__, clang with __has_feature), whose
 * interceptors and shadow memory change costs and memory as an emulator
 * changes timing.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TP_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_UNDER_ASAN 1
#endif
#endif
#ifndef TP_UNDER_ASAN
#define TP_UNDER_ASAN 0
#endif

/* The binfmt_misc entry that hands this architecture's programs to qemu-user. */
#if defined(__aarch64__)
#define TP_BINFMT "/proc/sys/fs/binfmt_misc/qemu-aarch64"
#elif defined(__arm__)
#define TP_BINFMT "/proc/sys/fs/binfmt_misc/qemu-arm"
#else
#define TP_BINFMT "/proc/sys/fs/binfmt_misc/qemu-" /* no such entry */
#endif

/**
 * tp_target_exec_ok() - can this process exec a program built for the target?
 * Natively, yes; under qemu-user only when binfmt_misc hands such a program to
 * qemu (the exec goes to the build machine's kernel, which runs only its own
 * programs otherwise).
 */
static inline int tp_target_exec_ok(void)
{
	return !tp_emulated() || access(TP_BINFMT, F_OK) == 0;
}

#endif /* EMBPERF_TESTS_EMULATED_H */
