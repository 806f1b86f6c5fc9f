// SPDX-License-Identifier: MIT
/*
 * os_ctx.c - os.ctx: context switch time, the method of lmbench's lat_ctx
 * (McVoy & Staelin).
 *
 * `procs` members - the calling thread and procs - 1 children (or threads)
 * - form a ring of pipes and pass a 4-byte token around it. Each member,
 * when the token reaches it, sums its own private working set of `size`
 * bytes, then writes the token on. One hop (write, wake-up of the next
 * member, its read and its sum) is the unit of work; its time, less the
 * time of one pipe write + read + sum done in a single thread (the
 * overhead body, as lat_ctx subtracts), is the cost of a context switch
 * including the cache refill a working set of that size causes.
 *
 * Hop accounting. The engine asks for any number of hops, not a multiple of
 * the ring. The token therefore carries a count: member i forwards it while
 * the count says more hops remain and otherwise writes it to its own exit
 * pipe back to the caller. A body makes whole trips around the ring and at
 * most two shorter trips, so the hops of a body are exactly what the engine
 * asked (one more only when that is impossible: a 2-member ring and an odd
 * count, where the error is one hop in the whole sample).
 *
 * Why the waits need no poll(): every member's input pipe is written by
 * exactly one other process (the caller holds no write end but the first),
 * so when any child dies, end-of-file travels along the ring and reaches
 * the caller's read, which then fails. The caller keeps the read end of the
 * first pipe open, so its own writes never raise SIGPIPE. A hop therefore
 * costs exactly one blocking write and one blocking read, as in lat_ctx.
 *
 * A member that is alive but stopped (SIGSTOP) or stuck would leave that
 * read blocked for ever, deaf to cancel and budget. Member 1 is therefore
 * the IPC kernels' helper process (partner.h), whose watchdog thread sees a
 * body make no trip for `timeout`, or for a short grace after a cancel or
 * the budget's end, and then kills every member: end-of-file ends the wait
 * and the body returns why. The body only bumps a counter per trip.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/kernel.h"
#include "lib/core/util.h"
#include "lib/os/child.h"
#include "lib/os/partner.h"

/* lat_ctx sums with plain scalar code (built with -O); keep ours scalar too,
 * so summing costs the same instructions as there. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#define CTX_MIN_PROCS 2
#define CTX_MAX_PROCS 1024
#define CTX_MAX_SIZE ((int64_t)64 << 20)
#define CTX_TRIPS_PER_CHECK 32           /* trips between cancel/budget checks */
#define CTX_THREAD_STACK_BYTES (256 << 10) /* members do little; ASan needs headroom */
#define CTX_STOP 0 /* token value that ends a member thread */

enum ctx_mode { MODE_PROCESS, MODE_THREADS };

/**
 * struct ctx_member - what member i of the ring (1..procs-1) uses.
 * @in_r:   read end of the pipe from member i - 1.
 * @next_w: write end of the pipe to member i + 1 (the caller for the last).
 * @exit_w: write end of the pipe back to the caller, used when a trip ends here.
 * @work:   its private working set.
 * @words:  longs in @work.
 * @thread: its thread (threads mode).
 * @started: the thread was created.
 */
struct ctx_member {
	int in_r;
	int next_w;
	int exit_w;
	long *work;
	size_t words;
	pthread_t thread;
	int started;
};

/**
 * struct ctx_state - the run's state.
 * @run:        the run (messages, cancel and budget checks).
 * @mode:       process or threads.
 * @procs:      members of the ring, the caller included.
 * @size_bytes: working set of each member.
 * @words:      longs summed per visit.
 * @map:        the working sets: the caller's only (process mode; children
 *              get private copies by copy-on-write), or one per member.
 * @map_bytes:  length of @map.
 * @stride_words: distance between two members' working sets in @map.
 * @first_w:    write end of the pipe to member 1.
 * @first_r:    read end of that pipe, kept by the caller (process mode) so
 *              its writes never meet a pipe without reader.
 * @exit_r:     exit_r[i]: read end of the pipe member i writes when a trip
 *              ends there (index 1..procs-1; the last is the ring's end).
 * @members:    the members (threads mode: their descriptors and threads).
 * @ring_fds:   every pipe descriptor of the ring the caller holds, to close.
 * @n_ring_fds: how many.
 * @ovh:        the overhead's pipes, [i][0] read, [i][1] write.
 * @n_ovh:      how many (procs, as lat_ctx cycles through as many).
 * @ovh_next:   next overhead pipe to use.
 * @children:   the children (process mode), member 1 excepted.
 * @partner:    member 1 and the watchdog that unblocks a stalled trip
 *              (process mode).
 * @sink:       sums land here so they cannot be optimised away.
 */
struct ctx_state {
	struct ep_run *run;
	int mode;
	int procs;
	size_t size_bytes;
	size_t words;
	void *map;
	size_t map_bytes;
	size_t stride_words;
	int first_w;
	int first_r;
	int *exit_r;
	struct ctx_member *members;
	int *ring_fds;
	int n_ring_fds;
	int (*ovh)[2];
	int n_ovh;
	int ovh_next;
	struct ep_children children;
	struct ep_partner partner;
	volatile unsigned long sink;
};

static const struct ep_param_desc ctx_params[] = {
	{ "procs", EP_PT_INT, "2", { { CTX_MIN_PROCS, CTX_MAX_PROCS } }, NULL, "",
	  "members of the ring, the caller included (lat_ctx's #procs)" },
	{ "size", EP_PT_SIZE, "0", { { 0, CTX_MAX_SIZE } }, NULL, "bytes",
	  "private working set each member sums when the token reaches it (lat_ctx -s, in bytes)" },
	{ "mode", EP_PT_ENUM, "process", { { 0, 0 } }, "process|threads", "",
	  "members are processes (lat_ctx) or threads of the caller (systems without fork)" },
	EP_PARTNER_TIMEOUT_PARAM,
};

static const struct ep_metric_desc ctx_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "microseconds per context switch, pipe transfer and summing subtracted; median as lat_ctx" },
};


#define CTX_SUM_BLOCK_WORDS 128 /* lat_ctx sums 1 KiB blocks of longs */

/*
 * Sum a working set the way lat_ctx's members do: each 1 KiB block as one
 * straight run of 128 adds of a memory word into one register, then the
 * block's sum into the total; a shorter tail word by word (lat_ctx skips
 * it; lmbench's sizes have none). A plain one-word loop is not the same
 * work: on AMD EPYC family 25 model 17 it took 14.0 us for a cached 256 KiB
 * set against 6.6 us for the blocks, and os.ctx then subtracted an
 * overhead of 10-18 us where lat_ctx subtracts 6.5-9 (doc/methodology-os.md).
 * The sum wraps (unsigned): the contents are arbitrary and a signed
 * overflow would be undefined.
 */
static unsigned long sum_words(const long *p, size_t words)
{
	unsigned long sum = 0;
	size_t i = 0;

	for (; i + CTX_SUM_BLOCK_WORDS <= words; i += CTX_SUM_BLOCK_WORDS) {
		unsigned long block = 0;

#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable) unroll(full)
#else
#pragma GCC unroll 128
#endif
		for (size_t j = 0; j < CTX_SUM_BLOCK_WORDS; j++)
			block += (unsigned long)p[i + j];
		sum += block;
	}
	for (; i < words; i++)
		sum += (unsigned long)p[i];
	return sum;
}

/* read() or write() of one token, retried when a signal interrupts it.
 * Return: 0, -EPIPE when the other end is gone, or another -errno. */
static int token_io(int fd, int32_t *token, int writing)
{
	ssize_t n;

	do
		n = writing ? write(fd, token, sizeof(*token)) : read(fd, token, sizeof(*token));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(*token))
		return 0;
	return n < 0 ? -errno : -EPIPE;
}

/*
 * One member's life: wait for the token, sum the working set, pass the
 * token on. The token holds the hops the trip still makes; at 1 this
 * member's hop is the trip's last and goes back to the caller. Returns when
 * the ring breaks (end-of-file) or CTX_STOP arrives.
 */
static void member_loop(const struct ctx_member *m)
{
	volatile unsigned long sink;
	int32_t token;

	for (;;) {
		if (token_io(m->in_r, &token, 0) || token <= CTX_STOP)
			return;
		sink = sum_words(m->work, m->words);
		(void)sink;
		token--;
		if (token_io(token ? m->next_w : m->exit_w, &token, 1))
			return;
	}
}

/* A member's start: it writes its own working set (with @fill) first, as
 * lat_ctx's children do, then serves the ring. */
static void serve(const struct ctx_member *m, int fill)
{
	if (m->words)
		memset(m->work, fill, m->words * sizeof(long));
	member_loop(m);
}

static void *member_thread(void *arg)
{
	serve(arg, 1);
	return NULL;
}

/* The caller's working set: the start of the mapping. */
static const long *own_work(const struct ctx_state *st)
{
	return st->map;
}

/*
 * One trip of @hops hops (2..procs): the token goes to member 1, on to
 * member hops - 1, and back. The caller then sums its own working set, as
 * lat_ctx's timing process does once per trip around the ring.
 */
static int trip(struct ctx_state *st, int hops)
{
	int32_t token = hops - 1;
	int rc = token_io(st->first_w, &token, 1);

	if (!rc)
		rc = token_io(st->exit_r[hops - 1], &token, 0);
	ep_partner_beat(&st->partner);
	/* The watchdog killed the ring: say why (cancel, budget, timeout). */
	if (rc && __atomic_load_n(&st->partner.fired, __ATOMIC_ACQUIRE))
		return ep_partner_failed(&st->partner, rc, "os.ctx: token of the ring");
	if (rc)
		return ep_run_fail(st->run, rc,
				   "os.ctx: the ring of %d %s broke (%s): a member ended or was "
				   "killed from outside",
				   st->procs, st->mode == MODE_PROCESS ? "processes" : "threads",
				   strerror(-rc));
	st->sink = sum_words(own_work(st), st->words);
	return 0;
}

/**
 * struct ctx_plan - the trips of one body call.
 * @full:      trips around the whole ring.
 * @short_hops: hops of up to two shorter trips (2..procs - 1 each).
 * @n_short:   how many shorter trips.
 */
struct ctx_plan {
	uint64_t full;
	int short_hops[2];
	int n_short;
};

/*
 * Split @units hops into trips of 2..@procs hops. A remainder of 1 cannot
 * be one trip (a trip leaves and returns: two hops at least), so one whole
 * trip becomes two short ones, procs - 1 and 2 hops. With procs == 2 (or a
 * single unit) that is impossible and the body makes one hop more.
 */
static void plan_trips(uint64_t units, int procs, struct ctx_plan *p)
{
	uint64_t rem = units % (uint64_t)procs;

	p->full = units / (uint64_t)procs;
	p->n_short = 0;
	if (rem == 0)
		return;
	if (rem >= 2) {
		p->short_hops[p->n_short++] = (int)rem;
		return;
	}
	if (p->full > 0 && procs >= 3) {
		p->full--;
		p->short_hops[p->n_short++] = procs - 1;
		p->short_hops[p->n_short++] = 2;
		return;
	}
	p->short_hops[p->n_short++] = 2;
}

/* @n trips around the whole ring, checking cancel and budget now and then. */
static int full_trips(struct ctx_state *st, uint64_t n)
{
	int rc;

	for (uint64_t t = 0; t < n; t++) {
		if (t % CTX_TRIPS_PER_CHECK == CTX_TRIPS_PER_CHECK - 1) {
			rc = ep_run_check(st->run);
			if (rc)
				return rc;
		}
		rc = trip(st, st->procs);
		if (rc)
			return rc;
	}
	return 0;
}

/* Body: @units context switches, i.e. hops of the token. */
static int ctx_body(void *arg, uint64_t units)
{
	struct ctx_state *st = arg;
	struct ctx_plan plan;
	int rc;

	plan_trips(units, st->procs, &plan);
	ep_partner_enter(&st->partner);
	rc = full_trips(st, plan.full);
	for (int i = 0; i < plan.n_short && !rc; i++)
		rc = trip(st, plan.short_hops[i]);
	ep_partner_leave(&st->partner);
	return rc;
}

/*
 * Overhead: what a hop costs without a switch - one write and one read of
 * a pipe and one sum of the working set, in the calling thread, cycling
 * through procs pipes as lat_ctx's overhead loop does.
 */
static int ctx_overhead(void *arg, uint64_t units)
{
	struct ctx_state *st = arg;
	int32_t token = 1;
	int rc;

	while (units--) {
		const int *p = st->ovh[st->ovh_next];

		rc = token_io(p[1], &token, 1);
		if (!rc)
			rc = token_io(p[0], &token, 0);
		if (rc)
			return ep_run_fail(st->run, rc, "os.ctx: overhead pipe: %s", strerror(-rc));
		if (++st->ovh_next == st->n_ovh)
			st->ovh_next = 0;
		st->sink = sum_words(own_work(st), st->words);
	}
	return 0;
}

/* pipe2() with O_CLOEXEC; a failure fails the run. */
static int make_pipe(struct ctx_state *st, int p[2])
{
	if (pipe2(p, O_CLOEXEC))
		return ep_run_fail(st->run, -errno, "os.ctx: pipe(): %s", strerror(errno));
	return 0;
}

/* Remember a descriptor the caller holds, for teardown. */
static void hold_fd(struct ctx_state *st, int fd)
{
	st->ring_fds[st->n_ring_fds++] = fd;
}

static void close_pair(int p[2])
{
	ep_ipc_close(&p[0]);
	ep_ipc_close(&p[1]);
}

/* In the child that becomes member @i: keep its three pipe ends, make its
 * working set private (copy-on-write of the caller's) and serve the ring. */
static void __attribute__((noreturn)) run_member_process(const struct ctx_member *m, int i)
{
	const int keep[3] = { m->in_r, m->next_w, m->exit_w };

	ep_child_keep_fds(keep, 3);
	serve(m, i & 0x7f);
	_exit(0);
}

/* Member 1, in the child ep_partner_start() forked with its three descriptors. */
static void run_first_member(void *arg)
{
	serve(arg, 1);
}

/* The watchdog's unblock action, after it killed member 1: kill the others
 * too, so end-of-file reaches the caller wherever the token stalled. They
 * are reaped in teardown, once the watchdog is stopped. */
static void kill_members(void *arg)
{
	const struct ctx_state *st = arg;

	for (int i = 0; i < st->children.n; i++)
		kill(st->children.pids[i], SIGKILL);
}

/*
 * Fork member @i: member 1 as the watched helper process (partner.h), the
 * others into the children set. Return: 0 in a child of i > 1 (member 1's
 * child never returns), the pid in the parent, or a negative errno.
 */
static pid_t fork_member(struct ctx_state *st, struct ctx_member *m, int i)
{
	struct ep_partner_cfg cfg = {
		.name = "ring member 1",
		.fn = run_first_member,
		.arg = m,
		.keep = { m->in_r, m->next_w, m->exit_w },
		.n_keep = 3,
		.timeout_ns = (uint64_t)ep_param_int(st->run, "timeout"),
		.unblock = kill_members,
		.unblock_arg = st,
	};
	int rc;

	if (i > 1)
		return ep_child_fork(&st->children);
	rc = ep_partner_start(st->run, &st->partner, &cfg);
	return rc ? rc : st->partner.pid;
}

/*
 * Fork members 1..procs-1. Member i reads the pipe member i - 1 writes and
 * writes two: the next member's and its own exit pipe to the caller (the
 * last member's two are the same). The caller keeps only the first pipe
 * and the exit pipes' read ends, so end-of-file reaches it when any child
 * dies.
 */
static int start_processes(struct ctx_state *st)
{
	int ring0[2], in_r, rc = make_pipe(st, ring0);

	if (rc)
		return rc;
	hold_fd(st, ring0[0]);
	hold_fd(st, ring0[1]);
	st->first_r = ring0[0];
	st->first_w = ring0[1];
	in_r = ring0[0];
	for (int i = 1; i < st->procs; i++) {
		int last = i == st->procs - 1;
		int next[2] = { -1, -1 }, exitp[2] = { -1, -1 };
		struct ctx_member m = { .in_r = in_r, .work = st->map, .words = st->words };
		pid_t pid;

		rc = last ? 0 : make_pipe(st, next);
		if (!rc)
			rc = make_pipe(st, exitp);
		if (rc) {
			close_pair(next);
			if (in_r != st->first_r)
				close(in_r);
			return rc;
		}
		m.next_w = last ? exitp[1] : next[1];
		m.exit_w = exitp[1];
		pid = fork_member(st, &m, i);
		if (pid == 0)
			run_member_process(&m, i);
		if (in_r != st->first_r)
			close(in_r);
		close(exitp[1]);
		ep_ipc_close(&next[1]);
		hold_fd(st, exitp[0]);
		st->exit_r[i] = exitp[0];
		in_r = next[0];
		if (pid < 0) {
			ep_ipc_close(&in_r);
			if (i == 1) /* ep_partner_start() said what failed */
				return (int)pid;
			return ep_child_fork_error(st->run, (int)pid, "procs",
						   ep_param_text(st->run, "procs"), i - 1, "fork()");
		}
	}
	return 0;
}

/* Threads mode: procs pipes in one process, member i a thread. Pipe i is
 * ring[2 * i] (read end) and ring[2 * i + 1], held in st->ring_fds. */
static int start_threads(struct ctx_state *st)
{
	int n = st->procs, rc = 0;
	int *ring = st->ring_fds + st->n_ring_fds;
	pthread_attr_t attr;

	for (int i = 0; i < n && !rc; i++) {
		rc = make_pipe(st, ring + 2 * i);
		if (!rc)
			st->n_ring_fds += 2;
	}
	if (rc)
		return rc;
	st->first_w = ring[1];
	for (int i = 1; i < n; i++) {
		struct ctx_member *m = &st->members[i];

		st->exit_r[i] = ring[2 * n - 2];
		m->in_r = ring[2 * i - 2];
		m->next_w = ring[2 * i + 1];
		m->exit_w = ring[2 * n - 1];
		/* No working set (size=0): no map, and no arithmetic on NULL. */
		m->work = st->map ? (long *)st->map + (size_t)i * st->stride_words : NULL;
		m->words = st->words;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, CTX_THREAD_STACK_BYTES);
	for (int i = 1; i < n && !rc; i++) {
		int err = pthread_create(&st->members[i].thread, &attr, member_thread,
					 &st->members[i]);

		if (err)
			rc = ep_child_fork_error(st->run, -err, "procs",
						 ep_param_text(st->run, "procs"), i - 1,
						 "pthread_create()");
		else
			st->members[i].started = 1;
	}
	pthread_attr_destroy(&attr);
	return rc;
}

/* Threads mode: a CTX_STOP token to each member's input ends it. */
static void stop_threads(struct ctx_state *st)
{
	int32_t stop = CTX_STOP;

	for (int i = 1; i < st->procs; i++)
		if (st->members[i].started)
			token_io(i == 1 ? st->first_w : st->members[i - 1].next_w, &stop, 1);
	for (int i = 1; i < st->procs; i++)
		if (st->members[i].started) {
			pthread_join(st->members[i].thread, NULL);
			st->members[i].started = 0;
		}
}

EP_UNTIMED static void ctx_teardown(void *state)
{
	struct ctx_state *st = state;

	if (st->members)
		stop_threads(st);
	ep_partner_stop(&st->partner); /* the watchdog first: it may kill the children */
	ep_children_free(&st->children);
	for (int i = 0; i < st->n_ring_fds; i++)
		close(st->ring_fds[i]);
	for (int i = 0; i < st->n_ovh; i++)
		close_pair(st->ovh[i]);
	if (st->map)
		munmap(st->map, st->map_bytes);
	free(st->ovh);
	free(st->ring_fds);
	free(st->exit_r);
	free(st->members);
}

/* Descriptors the caller holds at once, for the RLIMIT_NOFILE check. */
static int fds_needed(int mode, int procs)
{
	int ovh = 2 * procs;

	if (mode == MODE_THREADS)
		return 2 * procs + ovh;
	/* first pipe, procs - 1 exit pipes, two pipes being handed over */
	return 2 + (procs - 1) + 4 + ovh;
}

/* Map the working sets and check they fit in memory. */
static int map_working_sets(struct ctx_state *st)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stride = (st->size_bytes + page - 1) / page * page;
	int sets = st->mode == MODE_THREADS ? st->procs : 1;
	uint64_t total = (uint64_t)stride * (uint64_t)st->procs;
	char value[96];
	int rc;

	if (!stride)
		return 0;
	/* Each of the procs members has its own working set of 'size'. */
	snprintf(value, sizeof(value), "%s' for each of the %d members ('procs')",
		 ep_param_text(st->run, "size"), st->procs);
	rc = ep_mem_check_fits(st->run, "size", value, total);
	if (rc)
		return rc;
	st->map_bytes = stride * (size_t)sets;
	st->map = mmap(NULL, st->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return ep_run_fail(st->run, -ENOMEM, "parameter 'size': cannot map %zu bytes",
				   st->map_bytes);
	}
	st->stride_words = stride / sizeof(long);
	memset(st->map, 1, st->size_bytes); /* the caller's own set; members write theirs */
	return 0;
}

static int make_overhead_pipes(struct ctx_state *st)
{
	int rc = 0;

	for (int i = 0; i < st->procs && !rc; i++) {
		rc = make_pipe(st, st->ovh[i]);
		if (!rc)
			st->n_ovh++;
	}
	return rc;
}

/* Fill a zeroed state: parameters, descriptors -1, arrays. Return: 0 or -ENOMEM. */
static int ctx_init(struct ep_run *run, struct ctx_state *st)
{
	int procs = (int)ep_param_int(run, "procs");

	st->run = run;
	st->procs = procs;
	st->mode = (int)ep_param_int(run, "mode");
	st->size_bytes = (size_t)ep_param_int(run, "size");
	st->words = st->size_bytes / sizeof(long);
	st->first_w = st->first_r = -1;
	st->exit_r = calloc((size_t)procs, sizeof(*st->exit_r));
	st->ring_fds = calloc((size_t)(2 * procs + 2), sizeof(*st->ring_fds));
	st->ovh = calloc((size_t)procs, sizeof(*st->ovh));
	if (st->mode == MODE_THREADS)
		st->members = calloc((size_t)procs, sizeof(*st->members));
	if (!st->exit_r || !st->ring_fds || !st->ovh ||
	    (st->mode == MODE_THREADS && !st->members) ||
	    ep_children_init(&st->children, procs))
		return -ENOMEM;
	for (int i = 0; i < procs; i++)
		st->ovh[i][0] = st->ovh[i][1] = -1;
	return 0;
}

EP_UNTIMED static int ctx_setup(struct ep_run *run, void **state)
{
	struct ctx_state *st = *state;
	struct ep_case c = { .metric = 0, .body = ctx_body, .overhead = ctx_overhead };
	int rc;

	rc = ctx_init(run, st);
	if (!rc)
		rc = ep_fd_room(run, "procs", ep_param_text(run, "procs"),
				fds_needed(st->mode, st->procs));
	if (!rc)
		rc = map_working_sets(st);
	if (!rc)
		rc = st->mode == MODE_THREADS ? start_threads(st) : start_processes(st);
	if (!rc)
		rc = make_overhead_pipes(st);
	/* Once around the ring: every member is ready and the token flows. */
	if (!rc)
		rc = trip(st, st->procs);
	if (!rc) {
		c.arg = st;
		rc = ep_run_add_params_case(run, &c, "procs", "size", "mode", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_ctx = {
	.name = "os.ctx",
	.summary = "context switch time through a ring of pipes (lmbench lat_ctx); mode=process needs fork()",
	EP_PARAMS(ctx_params),
	EP_METRICS(ctx_metrics),
	.engine_defaults = ep_lmbench_ipc_defaults,
	.setup = ctx_setup,
	.teardown = ctx_teardown,
	.state_bytes = sizeof(struct ctx_state),
};
