// SPDX-License-Identifier: MIT
/*
 * runner.c - main() of the lite test runner (tests/lite/criterion/criterion.h):
 * runs the registered tests one at a time, each in a forked child with its
 * suite's timeout, and prints TAP (--tap) or one line per test and a
 * summary; exit status 1 when a test failed, crashed or timed out.
 *
 * The child reports to the parent through a pipe, one record per write
 * (shorter than PIPE_BUF, so records of a test's own children do not
 * interleave): 'F' a failed check, 'S' a skip and its reason, 'E' the test
 * and its .fini ran to the end. A child that dies or exits without 'E'
 * failed, whatever its exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criterion/criterion.h"

#define REC_MAX 2048 /* a record, < PIPE_BUF */

static struct crl_test *tests;
static struct crl_suite *suites;

/* The test process's state (in the forked child). */
static int report_fd = -1;
static pid_t test_pid;
static jmp_buf abort_jmp;

void crl_register_test(struct crl_test *t)
{
	t->next = tests;
	tests = t;
}

void crl_register_suite(struct crl_suite *s)
{
	s->next = suites;
	suites = s;
}

/* send() - one record of @type with @text to the parent. */
static void send_record(char type, const char *text)
{
	char rec[REC_MAX];
	int n = snprintf(rec, sizeof(rec), "%c%s", type, text);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(rec))
		n = sizeof(rec) - 1;
	rec[n++] = '\0';
	if (report_fd >= 0 && write(report_fd, rec, n) != n)
		_exit(125); /* the parent is gone or the pipe broke: it fails the test */
}

/* in_test_thread() - is this the test's own thread (not a child or another thread)? */
static int in_test_thread(void)
{
	return (pid_t)syscall(SYS_gettid) == test_pid;
}

/* leave_test() - end the test after a failed assertion or a skip. A child
 * process or thread of the test cannot jump back to the runner: it exits. */
static void __attribute__((noreturn)) leave_test(void)
{
	if (in_test_thread())
		longjmp(abort_jmp, 1);
	_exit(1);
}

/* vfailed() - send an 'F' record: where, what, and the message (prefixed by one character). */
static void __attribute__((format(printf, 4, 0)))
vfailed(const char *file, int line, const char *what, const char *fmt, va_list ap)
{
	char msg[REC_MAX - 256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	char rec[REC_MAX];
	if (msg[1])
		snprintf(rec, sizeof(rec), "%s:%d: %s", file, line, msg + 1);
	else
		snprintf(rec, sizeof(rec), "%s:%d: %s is false", file, line, what);
	send_record('F', rec);
}

void crl_assert_failed(const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfailed(file, line, what, fmt, ap);
	va_end(ap);
	leave_test();
}

void crl_expect_failed(const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfailed(file, line, what, fmt, ap);
	va_end(ap);
}

void crl_skip(const char *fmt, ...)
{
	char msg[REC_MAX - 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send_record('S', msg + 1);
	leave_test();
}

void crl_log(const char *level, const char *fmt, ...)
{
	char msg[REC_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "[%s] %s\n", level, msg + 1);
}

/* suite_of() - the options of @t's suite (zeros when it has no TestSuite()). */
static struct crl_opts suite_opts(const struct crl_test *t)
{
	struct crl_opts none = { 0 };

	for (const struct crl_suite *s = suites; s; s = s->next)
		if (strcmp(s->name, t->suite) == 0)
			return s->opts;
	return none;
}

/* child_main() - in the forked child: init, the test, fini; then 'E'. */
static void __attribute__((noreturn)) child_main(const struct crl_test *t, int fd)
{
	struct crl_opts so = suite_opts(t);

	report_fd = fd;
	test_pid = getpid();
	/* A program the test execs must not keep the report pipe. */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (setjmp(abort_jmp) == 0) {
		if (so.init)
			so.init();
		if (t->opts.init)
			t->opts.init();
		t->fn();
	}
	/* .fini runs after a failure or skip too: it frees what init made. A
	 * failure in .fini ends .fini. */
	if (setjmp(abort_jmp) == 0) {
		if (t->opts.fini)
			t->opts.fini();
		if (so.fini)
			so.fini();
	}
	fflush(NULL);
	send_record('E', "");
	_exit(0);
}

/* struct outcome - what the parent learnt of one test. */
struct outcome {
	int failed;      /* a failed check, a crash, a timeout, no end */
	int skipped;
	char skip[REC_MAX];
	char *diag;      /* failure lines, '\n'-separated (malloc'd) */
	size_t diag_len;
};

static void add_diag(struct outcome *o, const char *line)
{
	size_t n = strlen(line);
	char *d = realloc(o->diag, o->diag_len + n + 2);

	if (!d)
		return;
	o->diag = d;
	memcpy(d + o->diag_len, line, n);
	o->diag_len += n;
	d[o->diag_len++] = '\n';
	d[o->diag_len] = '\0';
}

/* take_records() - parse the complete records in @buf[0..*len), keep the rest. */
static void take_records(struct outcome *o, char *buf, size_t *len, int *ended)
{
	size_t start = 0;

	for (size_t i = 0; i < *len; i++) {
		if (buf[i])
			continue;
		const char *r = buf + start;
		if (r[0] == 'F') {
			o->failed = 1;
			add_diag(o, r + 1);
		} else if (r[0] == 'S') {
			o->skipped = 1;
			snprintf(o->skip, sizeof(o->skip), "%s", r + 1);
		} else if (r[0] == 'E') {
			*ended = 1;
		}
		start = i + 1;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

/* now_s() - monotonic seconds. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* timeout_scale() - EMBPERF_TEST_TIMEOUT_SCALE (emulated runs are slower), 1 if unset. */
static double timeout_scale(void)
{
	const char *s = getenv("EMBPERF_TEST_TIMEOUT_SCALE");
	double v = s ? strtod(s, NULL) : 0;

	return v > 0 ? v : 1;
}

/* watch() - read @fd until the child @pid exits or @timeout_s passes (0: none). */
static void watch(struct outcome *o, pid_t pid, int fd, double timeout_s)
{
	static char buf[8 * REC_MAX];
	size_t len = 0;
	int ended = 0, status = 0, timed_out = 0;
	double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, 100);

		if (r > 0) {
			ssize_t n = read(fd, buf + len, sizeof(buf) - len);
			if (n > 0) {
				len += n;
				take_records(o, buf, &len, &ended);
				if (len == sizeof(buf))
					len = 0; /* an unterminated flood: drop it */
			}
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (deadline && now_s() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			timed_out = 1;
			break;
		}
	}
	/* What the child wrote before it exited (its own children may hold the
	 * pipe open: do not wait for them). */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (ssize_t n; (n = read(fd, buf + len, sizeof(buf) - len)) > 0;) {
		len += n;
		take_records(o, buf, &len, &ended);
		if (len == sizeof(buf))
			len = 0;
	}
	char line[256];
	if (timed_out) {
		snprintf(line, sizeof(line), "timed out after %g s", timeout_s);
		add_diag(o, line);
		o->failed = 1;
	} else if (WIFSIGNALED(status)) {
		snprintf(line, sizeof(line), "crashed: signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		add_diag(o, line);
		o->failed = 1;
	} else if (!ended) {
		snprintf(line, sizeof(line), "exited with status %d before the test ended",
			 WEXITSTATUS(status));
		add_diag(o, line);
		o->failed = 1;
	}
}

/* run_one() - run @t in a child; the outcome. */
static struct outcome run_one(const struct crl_test *t)
{
	struct outcome o = { 0 };
	struct crl_opts so = suite_opts(t);
	double timeout_s = t->opts.timeout > 0 ? t->opts.timeout : so.timeout;
	int pfd[2];

	if (t->opts.disabled || so.disabled) {
		o.skipped = 1;
		snprintf(o.skip, sizeof(o.skip), "disabled");
		return o;
	}
	fflush(NULL);
	if (pipe(pfd) != 0) {
		add_diag(&o, "pipe() failed");
		o.failed = 1;
		return o;
	}
	pid_t pid = fork();
	if (pid < 0) {
		add_diag(&o, "fork() failed");
		o.failed = 1;
		close(pfd[0]);
		close(pfd[1]);
		return o;
	}
	if (pid == 0) {
		close(pfd[0]);
		child_main(t, pfd[1]);
	}
	close(pfd[1]);
	watch(&o, pid, pfd[0], timeout_s * timeout_scale());
	close(pfd[0]);
	return o;
}

/* by_name() - qsort order: suite, then test name (criterion's order). */
static int by_name(const void *a, const void *b)
{
	const struct crl_test *x = *(struct crl_test *const *)a;
	const struct crl_test *y = *(struct crl_test *const *)b;
	int c = strcmp(x->suite, y->suite);

	return c ? c : strcmp(x->name, y->name);
}

/* selected() - the tests @filter (a glob of "suite/name", NULL: all) matches, sorted. */
static struct crl_test **selected(const char *filter, size_t *n)
{
	size_t count = 0, k = 0;

	for (struct crl_test *t = tests; t; t = t->next)
		count++;
	struct crl_test **v = calloc(count ? count : 1, sizeof(*v));
	if (!v) {
		perror("calloc");
		exit(2);
	}
	for (struct crl_test *t = tests; t; t = t->next) {
		char full[512];
		snprintf(full, sizeof(full), "%s/%s", t->suite, t->name);
		if (!filter || fnmatch(filter, full, 0) == 0)
			v[k++] = t;
	}
	qsort(v, k, sizeof(*v), by_name);
	*n = k;
	return v;
}

/* print_diag() - @o's failure lines, each prefixed by @prefix. */
static void print_diag(const struct outcome *o, const char *prefix)
{
	const char *p = o->diag;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		printf("%s%.*s\n", prefix, n, p);
		p += n + (nl != NULL);
	}
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f, "usage: %s [--tap] [--filter=GLOB] [--list] [--jobs=N]\n"
		   "  --tap          TAP output (for meson's protocol: 'tap')\n"
		   "  --filter=GLOB  only the tests whose SUITE/NAME matches GLOB\n"
		   "  --list         print the tests and exit\n"
		   "  --jobs=N       accepted for criterion's command line; tests run one at a time\n"
		   "Environment: EMBPERF_TEST_TIMEOUT_SCALE multiplies the suites' timeouts.\n",
		argv0);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int tap = 0, list = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--tap") == 0 || strcmp(a, "-t") == 0)
			tap = 1;
		else if (strncmp(a, "--filter=", 9) == 0)
			filter = a + 9;
		else if (strcmp(a, "--filter") == 0 && i + 1 < argc)
			filter = argv[++i];
		else if (strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0)
			list = 1;
		else if (strncmp(a, "--jobs=", 7) == 0 || strncmp(a, "-j", 2) == 0)
			continue;
		else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, argv[0]);
			return 0;
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	size_t n;
	struct crl_test **v = selected(filter, &n);
	if (list) {
		for (size_t i = 0; i < n; i++)
			printf("%s/%s\n", v[i]->suite, v[i]->name);
		free(v);
		return 0;
	}
	if (tap)
		printf("TAP version 13\n1..%zu\n# lite runner (tests/lite): %zu tests\n", n, n);
	size_t passed = 0, failed = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		const struct crl_test *t = v[i];
		double t0_s = now_s();
		struct outcome o = run_one(t);
		double took_s = now_s() - t0_s;
		if (o.failed) {
			failed++;
			if (tap) {
				printf("not ok %zu - %s::%s\n", i + 1, t->suite, t->name);
				print_diag(&o, "# ");
			} else {
				print_diag(&o, "[FAIL] ");
				printf("[FAIL] %s::%s\n", t->suite, t->name);
			}
		} else if (o.skipped) {
			skipped++;
			if (tap)
				printf("ok %zu - %s::%s # SKIP %s\n", i + 1, t->suite, t->name, o.skip);
			else
				printf("[SKIP] %s::%s: %s\n", t->suite, t->name, o.skip);
		} else {
			passed++;
			if (tap)
				printf("ok %zu - %s::%s\n", i + 1, t->suite, t->name);
			else
				printf("[PASS] %s::%s\n", t->suite, t->name);
		}
		/* Where a slow suite's time goes (a comment line, ignored by TAP). */
		if (took_s >= 1.0)
			printf("# %s::%s took %.1f s\n", t->suite, t->name, took_s);
		fflush(stdout);
		free(o.diag);
	}
	printf("%sTested: %zu | Passing: %zu | Failing: %zu | Skipped: %zu\n", tap ? "# " : "",
	       n, passed, failed, skipped);
	free(v);
	return failed ? 1 : 0;
}
