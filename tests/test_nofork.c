// SPDX-License-Identifier: MIT
/*
 * test_nofork.c - the kernels that fork, on a system without fork() (a noMMU
 * kernel, or a C library without it, as on small systems).
 *
 * Every such kernel has mode=threads, where its partner is a thread of the
 * caller, or says that it needs fork(). A system without fork() is made
 * here with a seccomp filter in the test's own process, as a noMMU kernel
 * is: fork() and a clone() without CLONE_VM fail with ENOSYS, while
 * threads and vfork-like clones (CLONE_VM, which noMMU has, and which
 * LeakSanitizer's tracer uses) work; clone3(), whose flags a filter cannot
 * read, fails with ENOSYS too, and glibc then falls back to clone(). Then
 * mode=process must fail with ENOSYS and a message that names fork() and
 * what to use instead, and mode=threads must measure. Without seccomp (a
 * kernel built without it) those tests skip.
 *
 * Threads mode must leave nothing behind either: no thread, no descriptor,
 * no child; a stalled partner thread ends with the 'timeout' parameter.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/os/partner.h"
#include "proc_state.h"

static embperf_ctx *ctx;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	/* A private System V IPC namespace when allowed, as test_os_ipc. */
	(void)unshare(CLONE_NEWIPC);
}

static void teardown(void)
{
	embperf_ctx_free(ctx);
}

TestSuite(nofork, .init = setup, .fini = teardown, .timeout = 120);

/* The kernels whose partner is a process by default, with mode=threads. */
static const char *const partner_kernels[] = {
	"os.pipe.lat", "os.pipe.bw", "os.unix.lat", "os.unix.bw", "os.tcp.lat",
	"os.tcp.connect", "os.udp.lat", "os.sem",
};

static embperf_bench *new_bench(const char *kernel, const char *mode)
{
	embperf_bench *b = embperf_bench_new(ctx, kernel);

	cr_assert(b, "%s missing: %s", kernel, embperf_ctx_errmsg(ctx));
	tp_set(b, "repetitions", "3");
	tp_set(b, "sample_time", "2ms");
	tp_set(b, "counters", "0");
	if (mode)
		tp_set(b, "mode", mode);
	return b;
}

/* ------------------------------------------------------ a system without fork */

/* Append one instruction; jumps are patched once the targets are known. */
#define EMIT(insn) (prog[n++] = (struct sock_filter)insn)

/*
 * Make fork() fail with ENOSYS in this process, as on a noMMU kernel.
 * Return: 0, or -errno when the kernel refuses a filter (then skip).
 */
static int deny_fork(void)
{
	static const long denied[] = {
#ifdef __NR_clone3
		__NR_clone3,
#endif
#ifdef __NR_fork
		__NR_fork,
#endif
	};
	struct sock_filter prog[16];
	struct sock_fprog fprog;
	int deny_jumps[8], n_deny = 0, clone_jump, n = 0, allow, deny;
	/* The low 32 bits of clone()'s first argument, the flags. */
	size_t flags_off = offsetof(struct seccomp_data, args[0]) +
			   (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0);

	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		deny_jumps[n_deny++] = n;
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 0));
	}
	clone_jump = n;
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 0));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)flags_off));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_VM, 0, 0));
	allow = n;
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	deny = n;
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
	for (int i = 0; i < n_deny; i++)
		prog[deny_jumps[i]].jt = (unsigned char)(deny - deny_jumps[i] - 1);
	prog[clone_jump].jf = (unsigned char)(allow - clone_jump - 1);
	prog[allow - 1].jt = 0;                              /* shares memory: allow */
	prog[allow - 1].jf = (unsigned char)(deny - allow); /* a new process: deny */
	fprog.len = (unsigned short)n;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0))
		return -errno;
	return 0;
}

static void without_fork(void)
{
	int err = deny_fork();
	pid_t pid;

	if (err)
		cr_skip_test("cannot install a seccomp filter: %s", strerror(-err));
	/* The filter works: a fork fails, a thread does not (tested below). */
	pid = fork();
	if (pid == 0)
		_exit(0);
	cr_assert_eq(pid, -1, "fork() still works under the filter");
	cr_assert_eq(errno, ENOSYS);
}

static void assert_fails_naming(embperf_bench *b, int err, const char *a, const char *c)
{
	const char *msg;

	cr_assert_eq(embperf_bench_run(b), err, "%s: %s", embperf_bench_kernel(b),
		     embperf_bench_errmsg(b));
	msg = embperf_bench_errmsg(b);
	cr_assert(strstr(msg, a) && strstr(msg, c), "%s: message lacks '%s' or '%s': %s",
		  embperf_bench_kernel(b), a, c, msg);
}

static void assert_measures(embperf_bench *b, const char *label)
{
	const embperf_result *r;

	cr_assert_eq(embperf_bench_run(b), 0, "%s: %s", embperf_bench_kernel(b),
		     embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 1);
	r = embperf_bench_result(b, 0);
	cr_assert(embperf_result_value(r) > 0.0, "%s: %g", embperf_bench_kernel(b),
		  embperf_result_value(r));
	cr_assert(strstr(embperf_result_labels(r), label), "%s: labels '%s'",
		  embperf_bench_kernel(b), embperf_result_labels(r));
}

Test(nofork, partner_kernels_need_fork_or_threads)
{
	without_fork();
	for (size_t i = 0; i < sizeof(partner_kernels) / sizeof(partner_kernels[0]); i++) {
		embperf_bench *b = new_bench(partner_kernels[i], NULL);

		assert_fails_naming(b, -ENOSYS, "fork()", "mode=threads");
		embperf_bench_free(b);
		b = new_bench(partner_kernels[i], "threads");
		assert_measures(b, "mode=threads");
		embperf_bench_free(b);
		cr_assert_eq(tp_children().n, 0);
	}
}

Test(nofork, ctx_needs_fork_or_threads)
{
	embperf_bench *b;

	without_fork();
	b = new_bench("os.ctx", "process");
	assert_fails_naming(b, -ENOSYS, "fork()", "mode=threads");
	embperf_bench_free(b);
	b = new_bench("os.ctx", "threads");
	assert_measures(b, "mode=threads");
	embperf_bench_free(b);
}

/* os.fcntl has no threads mode: its refusal names fork() and no parameter. */
Test(nofork, fcntl_says_it_needs_fork_and_names_no_mode)
{
	embperf_bench *b;

	without_fork();
	b = new_bench("os.fcntl", NULL);
	cr_assert_eq(embperf_bench_run(b), -ENOSYS, "%s", embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "needs fork()"), "%s", embperf_bench_errmsg(b));
	cr_assert_null(strstr(embperf_bench_errmsg(b), "'mode'"), "%s", embperf_bench_errmsg(b));
	cr_assert_null(strstr(embperf_bench_errmsg(b), "mode=threads"), "%s", embperf_bench_errmsg(b));
	embperf_bench_free(b);
	cr_assert_eq(tp_children().n, 0);
}

Test(nofork, proc_says_it_needs_fork)
{
	static const char *const ops[] = { "fork", "exec", "sh" };
	embperf_bench *b;

	without_fork();
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		b = new_bench("os.proc", NULL);
		tp_set(b, "op", ops[i]);
		/* Any program: it never runs, there is no fork() to run it. */
		tp_set(b, "exec_path", "/bin/sh");
		assert_fails_naming(b, -ENOSYS, "needs fork()", "proccall");
		cr_assert(strstr(embperf_bench_errmsg(b), ops[i]), "%s", embperf_bench_errmsg(b));
		embperf_bench_free(b);
	}
	b = new_bench("os.proc", NULL);
	tp_set(b, "op", "proccall");
	assert_measures(b, "op=proccall");
	embperf_bench_free(b);
}

/* `embperf describe` shows the summary and the parameters' help. */
Test(nofork, describe_says_which_need_fork)
{
	static const char *const forking[] = {
		"os.pipe.lat", "os.pipe.bw", "os.unix.lat", "os.unix.bw", "os.tcp.lat",
		"os.tcp.connect", "os.udp.lat", "os.sem", "os.proc", "os.ctx",
	};

	for (size_t i = 0; i < sizeof(forking) / sizeof(forking[0]); i++) {
		const char *summary = embperf_kernel_summary(forking[i]);

		cr_assert(summary && strstr(summary, "needs fork()"), "%s: %s", forking[i],
			  summary ? summary : "(none)");
	}
}

/* ------------------------------------------------ threads mode leaves nothing */

/* Threads of this process named @name. */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	cr_assert(d);
	while ((de = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name)))
			n++;
		if (f)
			fclose(f);
	}
	closedir(d);
	return n;
}

static void cancel_on_progress(void *user, const char *kernel, const char *what, double f)
{
	embperf_ctx_cancel(user);
}

Test(nofork, threads_mode_leaves_nothing_after_a_run_or_a_cancel)
{
	for (size_t i = 0; i < sizeof(partner_kernels) / sizeof(partner_kernels[0]); i++) {
		int fds = tp_count_fds(), threads = tp_count_threads();
		embperf_bench *b = new_bench(partner_kernels[i], "threads");

		assert_measures(b, "mode=threads");
		embperf_bench_free(b);
		b = new_bench(partner_kernels[i], "threads");
		tp_set_count(b, "20");
		embperf_ctx_set_progress_fn(ctx, cancel_on_progress, ctx);
		cr_assert_eq(embperf_bench_run(b), -ECANCELED, "%s: %s", partner_kernels[i],
			     embperf_bench_errmsg(b));
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		embperf_ctx_reset_cancel(ctx);
		embperf_bench_free(b);
		cr_assert_eq(tp_children().n, 0, "%s: a child process", partner_kernels[i]);
		cr_assert_eq(tp_count_fds(), fds, "%s: %d descriptors before, %d after",
			     partner_kernels[i], fds, tp_count_fds());
		cr_assert_eq(tp_count_threads_settled(threads), threads,
			     "%s: %d threads before, %d after", partner_kernels[i], threads,
			     tp_count_threads());
		cr_assert_eq(threads_named(EP_PARTNER_THREAD_NAME), 0);
	}
}

/* ---------------------------------------------- a stalled partner thread */

/*
 * SIGUSR2 stalls the thread it lands on for a second, as SIGSTOP stops a
 * process: longer than the 300 ms 'timeout', short enough that the thread
 * then finds its descriptors dropped and leaves by itself.
 */
static void stall_handler(int sig)
{
	struct timespec left = { .tv_sec = 1 };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

/* From the progress callback: stall every partner thread. */
static void stall_partner_threads(void *user, const char *kernel, const char *what, double f)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *fp;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		fp = fopen(path, "r");
		if (fp && fgets(comm, sizeof(comm), fp) &&
		    !strncmp(comm, EP_PARTNER_THREAD_NAME, strlen(EP_PARTNER_THREAD_NAME)))
			syscall(SYS_tgkill, getpid(), atoi(de->d_name), SIGUSR2);
		if (fp)
			fclose(fp);
	}
	if (d)
		closedir(d);
}

Test(nofork, stalled_partner_thread_times_out)
{
	static const char *const streams[] = { "os.pipe.lat", "os.unix.lat", "os.tcp.lat",
					       "os.pipe.bw" };
	struct sigaction sa = { .sa_handler = stall_handler };

	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		int fds = tp_count_fds(), threads = tp_count_threads();
		embperf_bench *b = new_bench(streams[i], "threads");

		tp_set_count(b, "1000");
		tp_set(b, "timeout", "300ms");
		embperf_ctx_set_progress_fn(ctx, stall_partner_threads, NULL);
		cr_assert_eq(embperf_bench_run(b), -ETIMEDOUT, "%s: %s", streams[i],
			     embperf_bench_errmsg(b));
		embperf_ctx_set_progress_fn(ctx, NULL, NULL);
		cr_assert(strstr(embperf_bench_errmsg(b), "'timeout'") &&
				  strstr(embperf_bench_errmsg(b), "thread"),
			  "%s", embperf_bench_errmsg(b));
		embperf_bench_free(b);
		cr_assert_eq(tp_count_fds(), fds, "%s: %d descriptors before, %d after", streams[i],
			     fds, tp_count_fds());
		cr_assert_eq(tp_count_threads_settled(threads), threads, "%s: a thread is left",
			     streams[i]);
	}
}
