// SPDX-License-Identifier: MIT
/*
 * proc_state.c - see proc_state.h.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emulated.h"
#include "lib/core/clock.h"
#include "proc_state.h"

int tp_count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	cr_assert(d, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

int tp_count_fds(void)
{
	return tp_count_entries("/proc/self/fd") - 1; /* the listing's own */
}

/* PF_EXITING in /proc/PID/task/TID/stat's flags (field 9): the task is in do_exit(). */
#define TP_PF_EXITING 0x4u

/* Task @tid of this process has begun to exit (or is gone already). */
static int task_exiting(const char *tid)
{
	char path[300], line[1024], *p;
	unsigned flags = 0;
	FILE *f;
	int field = 3;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* The fields after the name: state is field 3, flags field 9. */
	for (p = p ? p + 1 : NULL; p && field < 9; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %u", &flags) != 1)
		return 0;
	return (flags & TP_PF_EXITING) != 0;
}

int tp_count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	cr_assert(d, "/proc/self/task: %s", strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !task_exiting(de->d_name))
			n++;
	closedir(d);
	return n;
}

/*
 * Natively the count is taken at once (a task in do_exit() is not counted).
 * Under emulation it is looked at every 10 ms until @want, for up to 10 s:
 * qemu-user's host thread can outlive pthread_join() by more than the 1 s
 * once allowed on a loaded host (stalls of 1-2 s). A leaked thread never
 * leaves, so a leak still fails, 10 s later; a settled count returns at once.
 */
int tp_count_threads_settled(int want)
{
	int n = tp_count_threads();

	if (n == want || !tp_emulated())
		return n;
	for (uint64_t end = ep_now_ns() + 10000000000ULL; n != want && ep_now_ns() < end;) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		n = tp_count_threads();
	}
	return n;
}

/* State letter and parent of process @pid from /proc/PID/stat; 0 when gone.
 * The command name may hold spaces and parentheses: fields follow the last ')'. */
static char state_of(const char *pid, int *ppid)
{
	char path[300], line[1024];
	FILE *f;
	char *close_paren;
	char state = 0;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && (close_paren = strrchr(line, ')')))
		if (sscanf(close_paren + 1, " %c %d", &state, ppid) != 2)
			state = 0;
	fclose(f);
	return state;
}

struct tp_kids tp_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct tp_kids k = { 0 };
	int self = (int)getpid();

	cr_assert(d);
	while ((de = readdir(d))) {
		int ppid = -1;
		char state;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		state = state_of(de->d_name, &ppid);
		if (!state || ppid != self)
			continue;
		if (k.n < TP_MAX_KIDS) {
			k.pids[k.n] = (pid_t)atoi(de->d_name);
			k.states[k.n] = state;
		}
		k.n++;
		k.zombies += state == 'Z';
	}
	closedir(d);
	return k;
}

/* The canceller's thread: one relative sleep, then the cancel. */
static void *cancel_main(void *arg)
{
	struct tp_canceller *c = arg;
	struct timespec delay = { c->delay_ms / 1000, (long)(c->delay_ms % 1000) * 1000000L };

	nanosleep(&delay, NULL);
	c->cancelled_ns = ep_now_ns();
	embperf_ctx_cancel(c->ctx);
	return NULL;
}

void tp_cancel_after(struct tp_canceller *c, embperf_ctx *ctx, unsigned delay_ms)
{
	int rc;

	c->ctx = ctx;
	c->delay_ms = delay_ms;
	rc = pthread_create(&c->thread, NULL, cancel_main, c);
	cr_assert_eq(rc, 0, "pthread_create: %s", strerror(rc));
}

void tp_cancel_join(struct tp_canceller *c)
{
	pthread_join(c->thread, NULL);
}

uint64_t tp_run_cancelled(embperf_bench *b, embperf_ctx *ctx, unsigned delay_ms)
{
	struct tp_canceller cn;
	uint64_t returned_ns;
	int rc;

	tp_cancel_after(&cn, ctx, delay_ms);
	rc = embperf_bench_run(b);
	returned_ns = ep_now_ns();
	tp_cancel_join(&cn);
	cr_assert_eq(rc, -ECANCELED, "rc %d: %s", rc, embperf_bench_errmsg(b));
	return returned_ns - cn.cancelled_ns;
}

void tp_set(embperf_bench *b, const char *name, const char *value)
{
	cr_assert_eq(embperf_bench_set(b, name, value), 0, "%s %s=%s: %s",
		     embperf_bench_kernel(b), name, value, embperf_bench_errmsg(b));
}

void tp_set_count(embperf_bench *b, const char *count)
{
	char had[32];

	tp_set(b, "repetitions", count);
	/* embperf_bench_get() returns the text's length, -ENOENT without it. */
	if (embperf_bench_get(b, "precision", had, sizeof(had)) < 0)
		return;
	tp_set(b, "precision", "0");
	cr_assert_gt(embperf_bench_get(b, "precision", had, sizeof(had)), 0);
	cr_assert_eq(strtod(had, NULL), 0.0, "%s: precision %s", embperf_bench_kernel(b), had);
}

const embperf_result *tp_find(const embperf_bench *b, const char *metric)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++)
		if (!strcmp(embperf_result_metric(embperf_bench_result(b, i)), metric))
			return embperf_bench_result(b, i);
	return NULL;
}

double tp_counter(const embperf_result *r, const char *name)
{
	double v = NAN;

	embperf_result_counter(r, name, &v);
	return v;
}

int tp_busy(const embperf_result *r)
{
	return tp_counter(r, "cpu_wait_pct") > TP_BUSY_WAIT_PCT; /* NaN: 0 */
}

int tp_fifo_permitted(void)
{
	struct sched_param sp = { .sched_priority = 1 }, old;
	int policy;

	pthread_getschedparam(pthread_self(), &policy, &old);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		return 0;
	pthread_setschedparam(pthread_self(), policy, &old);
	return 1;
}

int tp_drop_rt_permission(void)
{
	struct rlimit zero = { 0, 0 };

	if (setrlimit(RLIMIT_RTPRIO, &zero))
		return 0;
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		return 0;
	prctl(PR_SET_DUMPABLE, 1); /* LeakSanitizer reads /proc/self at exit */
	return !tp_fifo_permitted();
}

/*
 * Figures go to the TAP stream meson reads, after the runner's report:
 * criterion writes its TAP report when every test has run, from the runner
 * process (its workers' output goes to /dev/null), and meson wants the
 * version line first. So a test appends its figure lines to a file the
 * runner made before main, and the runner copies them to its standard
 * output, as TAP comments, when it exits. Criterion keeps that stream on
 * another descriptor than 1; it is the one that is the same file (device
 * and inode) as descriptor 1 was before main.
 */
#define FIGURES_ENV "EMBPERF_TEST_FIGURES"

static pid_t runner_pid;
static char figures_path[64];
static dev_t tap_dev;
static ino_t tap_ino;

/* The runner's descriptor of the TAP stream: 1, or where criterion moved it. */
static int tap_fd(void)
{
	struct stat st;
	char path[64];

	for (int fd = 1; fd < 256; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!stat(path, &st) && st.st_dev == tap_dev && st.st_ino == tap_ino)
			return fd;
	}
	return -1;
}

static void copy_figures(void)
{
	char buf[4096];
	ssize_t n;
	int in, out;

	if (getpid() != runner_pid)
		return; /* a forked worker exiting */
	fflush(NULL); /* the runner's report first */
	in = open(figures_path, O_RDONLY | O_CLOEXEC);
	out = tap_fd();
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	unlink(figures_path);
}

__attribute__((constructor)) static void note_tap_out(void)
{
	struct stat st;
	int fd;

	if (getenv(FIGURES_ENV) || fstat(STDOUT_FILENO, &st))
		return; /* a worker (the runner set it), or no output */
	snprintf(figures_path, sizeof(figures_path), "/tmp/embperf-figures-XXXXXX");
	fd = mkstemp(figures_path);
	if (fd < 0)
		return;
	close(fd);
	tap_dev = st.st_dev;
	tap_ino = st.st_ino;
	runner_pid = getpid();
	setenv(FIGURES_ENV, figures_path, 1);
	atexit(copy_figures);
}

/* One TAP comment line "# TAG: ...", appended to the runner's figures file. */
static void __attribute__((format(printf, 2, 0)))
tap_comment(const char *tag, const char *fmt, va_list ap)
{
	const char *path = getenv(FIGURES_ENV);
	char line[512];
	int n = snprintf(line, sizeof(line), "# %s: ", tag), fd;

	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	/* Not cr_log_warn(): criterion 2.4 exits 1 after any warning (tp_note). */
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		cr_log_info("not recorded: %s", line);
	if (fd >= 0)
		close(fd);
}

void tp_figure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_comment("figure", fmt, ap);
	va_end(ap);
}

void tp_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_comment("note", fmt, ap);
	va_end(ap);
}
