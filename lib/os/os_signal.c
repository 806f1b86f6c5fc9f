// SPDX-License-Identifier: MIT
/*
 * os_signal.c - os.signal: signal costs, the method of lmbench's lat_sig
 * (McVoy & Staelin). One unit is:
 *
 *   install  one sigaction() installing a handler for SIGUSR1
 *   catch    one SIGUSR1 sent to the calling thread and caught by an empty
 *            handler, less the cost of sending a signal that is not
 *            delivered (signal 0): the overhead body
 *   prot     one write to a read-only page: the fault, SIGSEGV, the handler
 *            and the return that retries the write; less the cost of a
 *            caught signal beyond its sending (catch - send), as lat_sig
 *            subtracts: the overhead body is "catch", its credit "send",
 *            each timed on its own outside any handler. (Sending signal 0
 *            from the prot handler instead, to make one overhead body do,
 *            cost 0.5-0.7 us there against 0.35 us outside and read 1.6x
 *            lat_sig's figure. Of the rest, ~0.1 us per fault was the
 *            engine's perf events while attached (now counted over an
 *            extra sample, not the timed ones) and the remainder an
 *            SA_SIGINFO handler, see below.)
 *
 * Signal handlers. The library otherwise never installs one; this kernel
 * must. Each body installs its handler on entry and puts the caller's
 * disposition (and signal mask) back before it returns, so the caller's
 * handlers are replaced only while a sample is being timed, never between
 * samples, after the run or on an error. During those milliseconds a
 * SIGUSR1 (catch, install) or a SIGSEGV/SIGBUS (prot) sent by someone else
 * reaches the kernel's handler instead of the caller's. SIGINT and SIGTERM
 * are never touched. Signals go to the calling thread (tgkill()), not the
 * process, so other threads of the caller receive none.
 *
 * The prot handler is a plain one (no SA_SIGINFO), as lat_sig's: the
 * siginfo copy of an SA_SIGINFO handler cost 2-3% of each ~1.95 us fault,
 * 10-15% of the 0.4 us left after the subtraction. It finds its counters
 * through a thread-local pointer, set only while the body runs (SIGSEGV
 * goes to the faulting thread, so runs in several threads do not meet);
 * after the last counted fault it makes the page writable, so the retried
 * write completes and the body returns. A fault in a thread with no body
 * running resets the default action: a real crash still crashes.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/run.h"

enum sig_op { OP_INSTALL, OP_CATCH, OP_PROT };

/**
 * struct prot_counters - what the prot handler reads and counts.
 * @count:      faults handled in this body call.
 * @target:     faults to take before letting the write complete.
 * @ro_page:    the read-only page.
 * @page_bytes: its size.
 */
struct prot_counters {
	volatile uint64_t count;
	uint64_t target;
	char *ro_page;
	size_t page_bytes;
};

/**
 * struct sig_state - the run's state.
 * @run:        the run, for failure messages from the bodies.
 * @pid:        this process.
 * @tid:        the thread running the benchmark.
 * @pc:         prot: the handler's counters and the read-only page
 *              (NULL when not mapped).
 */
struct sig_state {
	struct ep_run *run;
	pid_t pid;
	pid_t tid;
	struct prot_counters pc;
};

/**
 * struct sig_saved - the caller's dispositions and mask, put back by disarm().
 * @sig:  signals replaced.
 * @n:    how many.
 * @act:  their previous dispositions.
 * @mask: the thread's previous signal mask.
 */
struct sig_saved {
	int sig[2];
	int n;
	struct sigaction act[2];
	sigset_t mask;
};

static const struct ep_param_desc sig_params[] = {
	{ "op", EP_PT_ENUM, "install", { { 0, 0 } }, "install|catch|prot", "",
	  "what is timed, as lat_sig's: installing a handler, catching a signal, a protection fault" },
};

static const struct ep_metric_desc sig_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "microseconds per install, catch (send subtracted) or protection fault (catch subtracted); "
	  "median as lat_sig" },
};

static void on_signal_nothing(int sig)
{
	(void)sig;
}

/* The counters of the prot body running in this thread, or NULL. Volatile:
 * only the handler reads it, so the compiler would drop the stores.
 * Initial exec: read in a signal handler, it must never be allocated lazily. */
static __thread struct prot_counters *volatile prot_running
	__attribute__((tls_model("initial-exec")));

/* SIGSEGV/SIGBUS of the prot body: count, and after the last counted fault
 * let the write through. */
static void on_prot_fault(int sig)
{
	struct prot_counters *pc = prot_running;

	if (!pc) {
		/* No body here: a real crash. Let it happen as it would have. */
		signal(sig, SIG_DFL);
		return;
	}
	if (++pc->count >= pc->target)
		mprotect(pc->ro_page, pc->page_bytes, PROT_READ | PROT_WRITE);
}

/* Install @handler for @sigs and unblock them in this thread, remembering
 * what was there. */
static int arm(struct sig_saved *saved, const int *sigs, int n, void (*handler)(int))
{
	struct sigaction sa;
	sigset_t unblock;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sigemptyset(&unblock);
	sa.sa_handler = handler;
	saved->n = 0;
	pthread_sigmask(SIG_BLOCK, NULL, &saved->mask);
	for (int i = 0; i < n; i++) {
		if (sigaction(sigs[i], &sa, &saved->act[i]))
			return -errno;
		saved->sig[saved->n++] = sigs[i];
		sigaddset(&unblock, sigs[i]);
	}
	return -pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
}

/* Put the caller's dispositions and mask back. */
static void disarm(const struct sig_saved *saved)
{
	for (int i = 0; i < saved->n; i++)
		sigaction(saved->sig[i], &saved->act[i], NULL);
	pthread_sigmask(SIG_SETMASK, &saved->mask, NULL);
}

static int sig_install(void *arg, uint64_t units)
{
	struct sigaction sa, old, caller;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal_nothing;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, NULL, &caller))
		return -errno;
	while (units--)
		sigaction(SIGUSR1, &sa, &old);
	sigaction(SIGUSR1, &caller, NULL);
	return 0;
}

/* Overhead of catch: sending a signal that is never delivered. */
static int sig_send(void *arg, uint64_t units)
{
	struct sig_state *st = arg;

	while (units--)
		tgkill(st->pid, st->tid, 0);
	return 0;
}

static int sig_catch(void *arg, uint64_t units)
{
	static const int usr1[] = { SIGUSR1 };
	struct sig_state *st = arg;
	struct sig_saved saved;
	int rc = arm(&saved, usr1, 1, on_signal_nothing);

	if (!rc)
		while (units--)
			tgkill(st->pid, st->tid, SIGUSR1);
	disarm(&saved);
	return rc;
}

static int sig_prot(void *arg, uint64_t units)
{
	static const int faults[] = { SIGSEGV, SIGBUS };
	struct sig_state *st = arg;
	struct prot_counters *pc = &st->pc;
	struct sig_saved saved;
	int rc;

	pc->count = 0;
	pc->target = units;
	prot_running = pc;
	rc = arm(&saved, faults, 2, on_prot_fault);
	if (!rc)
		*(volatile char *)pc->ro_page = 1; /* faults until the handler lets it through */
	disarm(&saved);
	prot_running = NULL;
	if (mprotect(pc->ro_page, pc->page_bytes, PROT_READ))
		return ep_run_fail(st->run, -errno, "os.signal: mprotect(): %s", strerror(errno));
	if (!rc && pc->count != units)
		return ep_run_fail(st->run, -EIO, "os.signal: %llu protection faults for %llu asked",
				   (unsigned long long)pc->count, (unsigned long long)units);
	return rc;
}

static void sig_teardown(void *state)
{
	struct sig_state *st = state;

	if (st->pc.ro_page)
		munmap(st->pc.ro_page, st->pc.page_bytes);
}

/* One read-only page to write to. */
static int map_prot_page(struct sig_state *st)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (map == MAP_FAILED)
		return ep_run_fail(st->run, -ENOMEM, "os.signal: cannot map a page");
	st->pc.ro_page = map;
	st->pc.page_bytes = page;
	return 0;
}

static int sig_setup(struct ep_run *run, void **state)
{
	static const ep_body_fn bodies[] = { sig_install, sig_catch, sig_prot };
	static const ep_body_fn overheads[] = { NULL, sig_send, sig_catch };
	static const ep_body_fn credits[] = { NULL, NULL, sig_send };
	int op = (int)ep_param_int(run, "op");
	struct sig_state *st = *state;
	struct ep_case c = { .metric = 0, .body = bodies[op], .overhead = overheads[op],
			     .overhead_credit = credits[op] };
	int rc = 0;

	st->run = run;
	st->pid = getpid();
	st->tid = gettid();
	if (op == OP_PROT)
		rc = map_prot_page(st);
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "op", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_signal = {
	.name = "os.signal",
	.summary = "signal handler install, catch and protection fault costs (lmbench lat_sig)",
	EP_PARAMS(sig_params),
	EP_METRICS(sig_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = sig_setup,
	.teardown = sig_teardown,
	.state_bytes = sizeof(struct sig_state),
	.cpu_bound = 1,
};
