// SPDX-License-Identifier: MIT
/*
 * test_blk_io.c - blk.io (fio-like jobs on files and block devices).
 *
 * Every test works in its own new folder under /tmp (or on /dev/shm) and
 * most check that the folder is empty afterwards: the kernel's files never
 * outlive a run, whatever ended it. Figures are never asserted, only their
 * consistency (bandwidth = IOPS x bs, one latency per I/O, percentiles in
 * order), so the tests hold on a loaded 2-CPU VM. Sizes are 4-8 MiB and
 * trials 200 ms.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "embperf.h"
#include "emulated.h"
#include "lib/blk/job.h"
#include "proc_state.h"

static embperf_ctx *ctx;
static embperf_bench *b;
static char dir[64];

/** setup() - a bench of blk.io (one 200 ms trial) and a new folder under /tmp. */
static void setup(void)
{
	strcpy(dir, "/tmp/test-blk-io-XXXXXX");
	cr_assert(mkdtemp(dir));
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = embperf_bench_new(ctx, "blk.io");
	cr_assert(b, "blk.io is registered");
	cr_assert_eq(embperf_bench_set(b, "duration", "200ms"), 0);
	cr_assert_eq(embperf_bench_set(b, "repetitions", "1"), 0);
	cr_assert_eq(embperf_bench_set(b, "size", "8M"), 0);
	cr_assert_eq(embperf_bench_set(b, "target", dir), 0);
}

/**
 * teardown() - free the bench and the context, unmount what a failed test
 * left mounted in the folder, remove the folder (and what is in it).
 */
static void teardown(void)
{
	char cmd[128];

	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	snprintf(cmd, sizeof(cmd), "%s/mnt", dir);
	umount2(cmd, MNT_DETACH);
	umount2(dir, MNT_DETACH);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(blk_io, .init = setup, .fini = teardown, .timeout = 60);

/** set() - set a parameter that must be accepted. */
static void set(const char *name, const char *value)
{
	cr_assert_eq(embperf_bench_set(b, name, value), 0, "%s=%s: %s", name, value,
		     embperf_bench_errmsg(b));
}

/** run_ok() - run, which must succeed. */
static void run_ok(void)
{
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
}

/** run_fails() - run, which must fail with @err and a message holding @words. */
static void run_fails(int err, const char *words)
{
	int rc = embperf_bench_run(b);

	cr_assert_eq(rc, err, "rc %d (%s), wanted %d", rc, embperf_bench_errmsg(b), err);
	cr_assert(strstr(embperf_bench_errmsg(b), words), "message '%s' names '%s'",
		  embperf_bench_errmsg(b), words);
}

/** files_in() - entries of @path other than . and .. */
static int files_in(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	cr_assert(d, "%s", path);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/** assert_empty() - nothing left behind in @path. */
static void assert_empty(const char *path)
{
	cr_assert_eq(files_in(path), 0, "files left behind in %s", path);
}

/** find() - the result of @metric from the last run, or NULL. */
static const embperf_result *find(const char *metric)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++)
		if (!strcmp(embperf_result_metric(embperf_bench_result(b, i)), metric))
			return embperf_bench_result(b, i);
	return NULL;
}

/** counter() - a result's counter, NaN when absent. */
static double counter(const embperf_result *r, const char *name)
{
	double v = NAN;

	embperf_result_counter(r, name, &v);
	return v;
}

/**
 * check_rates() - one trial's figures agree: bandwidth = IOPS x bs / 10^6,
 * one latency per I/O, percentiles ascending within [min, max].
 */
static void check_rates(double bs_bytes)
{
	const embperf_result *bw = find("bandwidth"), *iops = find("iops"), *lat = find("latency");
	double ops, last, max;

	cr_assert(bw && iops && lat);
	ops = counter(iops, "units");
	cr_assert_gt(ops, 0.0, "some I/O was counted");
	cr_assert_float_eq(embperf_result_value(bw), embperf_result_value(iops) * bs_bytes / 1e6,
			   1e-6 * embperf_result_value(bw) + 1e-9, "MB/s %.3f vs IOPS %.1f x %.0f",
			   embperf_result_value(bw), embperf_result_value(iops), bs_bytes);
	cr_assert_float_eq(embperf_result_dist_stat(lat, EMBPERF_STAT_N), ops, 1e-9,
			   "one latency per I/O");
	last = embperf_result_dist_stat(lat, EMBPERF_STAT_MIN);
	max = embperf_result_dist_stat(lat, EMBPERF_STAT_MAX);
	cr_assert_gt(last, 0.0, "an I/O takes time");
	cr_assert_geq(embperf_result_percentile_count(lat), 5);
	for (int i = 0; i < embperf_result_percentile_count(lat); i++) {
		double pct, v;

		cr_assert_eq(embperf_result_percentile_at(lat, i, &pct, &v), 0);
		cr_assert(v >= last && v <= max, "p%g = %.3f after %.3f, max %.3f", pct, v, last, max);
		last = v;
	}
}

/**
 * check_empty_trial() - a run whose trial has no latency: then no I/O was
 * counted and nothing moved either (an I/O counted without its latency is
 * a bug, not a starved trial).
 */
static void check_empty_trial(void)
{
	const embperf_result *bw = find("bandwidth"), *iops = find("iops");

	cr_assert(bw && iops, "an empty trial still gives bandwidth and IOPS");
	cr_assert_eq(counter(iops, "units"), 0.0, "%.0f I/Os counted, no latency",
		     counter(iops, "units"));
	cr_assert_eq(embperf_result_value(bw), 0.0, "%.3f MB/s moved, no latency",
		     embperf_result_value(bw));
}

static void run_uring(void);

/**
 * run_until_io() - run by @run (run_ok or run_uring) until a trial holds
 * completed I/O, at most 3 runs, and check that run (check_rates()).
 * On a loaded 2-CPU VM the job can be kept off the CPUs for the whole
 * measured part of the 200 ms trial (a busy-loop soak saw it with jobs=2;
 * with jobs=1 it takes a preemption just before the first I/O): a correct
 * empty trial, with no latency. Such a run is checked to be empty and
 * taken again; a job that never completes an I/O still fails at run 3.
 */
static void run_until_io(void (*run)(void), double bs_bytes)
{
	for (int n = 1;; n++) {
		run();
		if (find("latency") || n == 3)
			break;
		check_empty_trial();
		tp_note("blk_io: run %d: no I/O completed inside the trial; taken again", n);
	}
	cr_assert(find("latency"), "no I/O completed inside the trials of 3 runs");
	check_rates(bs_bytes);
}

/** fs_name() - "ext4", "tmpfs" or "other" for the file system of @path. */
static const char *fs_name(const char *path)
{
	struct statfs sfs;

	cr_assert_eq(statfs(path, &sfs), 0);
	return sfs.f_type == EXT4_SUPER_MAGIC ? "ext4" : sfs.f_type == TMPFS_MAGIC ? "tmpfs" :
	       "other";
}

Test(blk_io, sequential_read_on_tmp_is_consistent_and_leaves_nothing)
{
	cr_log_info("/tmp is %s", fs_name(dir));
	set("rw", "read");
	run_until_io(run_ok, 4096);
	cr_assert_leq(counter(find("iops"), "units"), 8.0 * 1024 * 1024 / 4096,
		      "a size-bound job reads 'size' once");
	assert_empty(dir);
}

/**
 * dir_on_dev_shm() - the test's folder moves to /dev/shm (tmpfs) and is the
 * target, so that the fini (after a failed check too) and skip_uring()
 * remove it there; skip without /dev/shm.
 */
static void dir_on_dev_shm(void)
{
	cr_assert_eq(rmdir(dir), 0);
	strcpy(dir, "/dev/shm/test-blk-io-XXXXXX");
	if (!mkdtemp(dir))
		cr_skip_test("no /dev/shm here: %s", strerror(errno));
	set("target", dir);
}

Test(blk_io, random_write_on_dev_shm_is_consistent)
{
	dir_on_dev_shm();
	cr_log_info("/dev/shm is %s", fs_name(dir));
	set("rw", "randwrite");
	set("bs", "16k");
	set("time_based", "1");
	run_until_io(run_ok, 16384);
	assert_empty(dir);
}

/* Two threads: run_until_io() says why a run may be taken again. */
Test(blk_io, mixed_random_jobs_in_threads_merge_their_tallies)
{
	set("rw", "randrw");
	set("rwmix", "70");
	set("jobs", "2");
	set("time_based", "1");
	run_until_io(run_ok, 4096);
	assert_empty(dir);
}

Test(blk_io, direct_io_on_tmp_works_where_the_file_system_allows_it)
{
	int rc;

	set("rw", "randread");
	set("direct", "1");
	set("size", "4M");
	rc = embperf_bench_run(b);
	if (strcmp(fs_name(dir), "ext4"))
		cr_assert(rc == 0 || strstr(embperf_bench_errmsg(b), "O_DIRECT"), "%s",
			  embperf_bench_errmsg(b));
	else
		cr_assert_eq(rc, 0, "ext4 takes O_DIRECT: %s", embperf_bench_errmsg(b));
	/* The first run says whether O_DIRECT is taken; its figures are taken again. */
	if (!rc)
		run_until_io(run_ok, 4096);
	assert_empty(dir);
}

Test(blk_io, direct_io_on_dev_shm_works_or_says_why_not)
{
	char shm[64] = "/dev/shm/test-blk-io-XXXXXX";
	int rc;

	if (!mkdtemp(shm))
		cr_skip_test("no /dev/shm here: %s", strerror(errno));
	set("target", shm);
	set("direct", "1");
	set("size", "4M");
	rc = embperf_bench_run(b);
	/* tmpfs takes O_DIRECT since Linux 6.6; before, it refuses it at open. */
	cr_assert(rc == 0 || (rc == -EINVAL && strstr(embperf_bench_errmsg(b), "'direct'")),
		  "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_log_info("direct=1 on tmpfs: %s", rc ? embperf_bench_errmsg(b) : "taken");
	cr_assert_eq(files_in(shm), 0, "files left behind in %s", shm);
	rmdir(shm);
}

Test(blk_io, direct_io_refused_by_ramfs_is_a_clear_error)
{
	if (geteuid() || mount("none", dir, "ramfs", 0, NULL))
		cr_skip_test("ramfs (no O_DIRECT) cannot be mounted here: needs root");
	set("direct", "1");
	run_fails(-EINVAL, "parameter 'direct': value '1': the file system of");
	cr_assert(strstr(embperf_bench_errmsg(b), "refuses O_DIRECT"));
	assert_empty(dir);
	umount(dir);
}

Test(blk_io, unaligned_bs_with_direct_names_the_alignment)
{
	set("direct", "1");
	set("bs", "1000");
	if (embperf_bench_run(b) == 0)
		cr_skip_test("this file system takes 1000-byte O_DIRECT I/O");
	cr_assert(strstr(embperf_bench_errmsg(b), "parameter 'bs': value '1000'") ||
		  strstr(embperf_bench_errmsg(b), "parameter 'direct'"), "%s",
		  embperf_bench_errmsg(b));
	cr_log_info("%s", embperf_bench_errmsg(b));
	assert_empty(dir);
}

/** only_file() - the path of the one file in the test's folder. */
static void only_file(char *path, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert(d);
	path[0] = '\0';
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cr_assert_lt((size_t)snprintf(path, size, "%s/%.100s", dir, e->d_name), size);
	closedir(d);
	cr_assert(path[0], "the kept file is there");
}

/**
 * write_kept_pattern() - write a 4 MiB file of the verify pattern and keep it
 * (its path into @path), then point the bench at it to read it back, not
 * kept (verify=1, rw=read, keep=0).
 */
static void write_kept_pattern(char *path, size_t size)
{
	set("rw", "write");
	set("size", "4M");
	set("verify", "1");
	set("keep", "1");
	set("duration", "10s");
	run_ok();
	only_file(path, size);
	set("target", path);
	set("rw", "read");
	set("keep", "0");
}

/** corrupt_at() - overwrite 8 bytes of the file @path at @offset with junk. */
static void corrupt_at(const char *path, off_t offset)
{
	uint64_t junk = 0x0123456789abcdefULL;
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, &junk, sizeof(junk), offset), (ssize_t)sizeof(junk));
	close(fd);
}

Test(blk_io, verify_catches_a_corrupted_block_and_names_its_offset)
{
	char path[512];

	write_kept_pattern(path, sizeof(path));
	run_ok(); /* the whole file holds the pattern */
	corrupt_at(path, 3 * 4096 + 40);
	run_fails(-EILSEQ, "at offset 12328");
	cr_log_info("%s", embperf_bench_errmsg(b));
	cr_assert_eq(access(path, F_OK), 0, "a file that was given is never removed");
}

Test(blk_io, cancel_removes_the_file)
{
	struct tp_canceller cn;

	set("rw", "randwrite");
	set("time_based", "1");
	set("duration", "20s");
	tp_cancel_after(&cn, ctx, 100);
	cr_assert_eq(embperf_bench_run(b), -ECANCELED, "%s", embperf_bench_errmsg(b));
	tp_cancel_join(&cn);
	assert_empty(dir);
}

Test(blk_io, budget_removes_the_file)
{
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 200000000ULL), 0);
	set("rw", "randread");
	set("time_based", "1");
	set("duration", "20s");
	embperf_bench_run(b);
	assert_empty(dir);
}

/** full_after_10() - pwrite() that fills the disk after 10 calls. */
static ssize_t full_after_10(int fd, const void *buf, size_t n, off_t off)
{
	static int calls;

	if (++calls > 10) {
		errno = ENOSPC;
		return -1;
	}
	return pwrite(fd, buf, n, off);
}

Test(blk_io, a_full_disk_mid_job_names_it_and_removes_the_file)
{
	set("rw", "write");
	/* A 200 ms trial can end before its first write (starved): 10 s, ended by the error. */
	set("duration", "10s");
	ep_blk_pwrite = full_after_10;
	run_fails(-ENOSPC, "No space left on device");
	ep_blk_pwrite = pwrite;
	cr_assert(strstr(embperf_bench_errmsg(b), "write at offset"), "%s", embperf_bench_errmsg(b));
	assert_empty(dir);
}

/** fail_writes() - a pwrite that fails every time: the file keeps only its preallocation. */
static ssize_t fail_writes(int fd, const void *buf, size_t n, off_t off)
{
	(void)fd, (void)buf, (void)n, (void)off;
	errno = EIO;
	return -1;
}

Test(blk_io, a_write_job_preallocates_its_new_file_as_fio_does)
{
	char path[512];
	struct stat st;

	if (!strcmp(fs_name(dir), "other"))
		cr_skip_test("/tmp is neither ext4 nor tmpfs: fallocate() may be missing there");
	set("rw", "randwrite");
	set("keep", "1");
	set("duration", "10s"); /* ended by the first write's error, not a starved 200 ms */
	ep_blk_pwrite = fail_writes;
	run_fails(-EIO, "write at offset");
	ep_blk_pwrite = pwrite;
	only_file(path, sizeof(path));
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_size, 8 << 20, "the file is preallocated to 'size' (fio's fallocate=native)");
	cr_assert_geq((long long)st.st_blocks * 512, 8LL << 20, "with its blocks allocated");
	cr_assert_eq(unlink(path), 0);
}

/*
 * fio's scramble_buffers, byte for byte: in each sector the offset at the
 * start of line (nsec ^ offset) & 7 and the time in bytes 48 to 63, and
 * nothing else touched.
 */
Test(blk_io, scramble_fio_writes_what_fio_writes_into_each_sector)
{
	static const struct {
		uint64_t off_bytes, stamp_ns;
		size_t line;
	} cases[] = { { 4096, 3000000005ull, 5 }, { 0, 7000000008ull, 0 } };
	uint64_t buf[3 * 512 / 8];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memset(buf, 0, sizeof(buf));
		blk_scramble_fio(buf, sizeof(buf), cases[c].off_bytes, cases[c].stamp_ns);
		for (size_t w = 0; w < sizeof(buf) / 8; w++) {
			size_t sector = w / 64, at = w % 64 * 8;
			uint64_t want = 0;

			if (at == 64 * cases[c].line)
				want = cases[c].off_bytes + 512 * sector;
			else if (at == 48)
				want = cases[c].stamp_ns / 1000000000u;
			else if (at == 56)
				want = cases[c].stamp_ns % 1000000000u;
			cr_assert_eq(buf[w], want, "case %zu: sector %zu byte %zu: %llu, want %llu", c,
				     sector, at, (unsigned long long)buf[w], (unsigned long long)want);
		}
	}
}

/** scrambled_file() - write 64 KiB in 4 KiB blocks with scramble=@mode, keep the file, read it. */
static void scrambled_file(const char *mode, unsigned char *data, size_t len)
{
	char path[512];
	int fd;

	set("rw", "write");
	set("bs", "4k");
	set("size", "64k");
	set("keep", "1");
	set("scramble", mode);
	run_ok();
	if (strcmp(mode, "fio"))
		cr_assert(strstr(embperf_result_labels(find("iops")), "scramble="), "%s",
			  embperf_result_labels(find("iops")));
	else
		cr_assert_null(strstr(embperf_result_labels(find("iops")), "scramble"), "%s",
			       embperf_result_labels(find("iops")));
	only_file(path, sizeof(path));
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, data, len, 0), (ssize_t)len);
	close(fd);
	cr_assert_eq(unlink(path), 0);
}

/*
 * What each mode leaves in the file: fio's stamp (every sector's offset in
 * one of its first eight lines, a time in bytes 48 to 63), the offset alone
 * in each sector's first word, or the buffer's pattern unchanged.
 */
Test(blk_io, scramble_modes_leave_their_marks_in_the_file)
{
	static unsigned char data[64 << 10];
	uint64_t pattern[4096 / 8];

	blk_pattern_fill(pattern, sizeof(pattern), 0, 1);
	scrambled_file("fio", data, sizeof(data));
	for (size_t s = 0; s < sizeof(data) / 512; s++) {
		uint64_t word, nsec;
		int found = 0;

		for (size_t line = 0; line < 8; line++) {
			memcpy(&word, data + 512 * s + 64 * line, sizeof(word));
			found |= word == 512 * s;
		}
		memcpy(&nsec, data + 512 * s + 56, sizeof(nsec));
		cr_assert(found, "sector %zu: its offset in none of its first eight lines", s);
		cr_assert_lt(nsec, 1000000000u, "sector %zu: bytes 56-63 hold nanoseconds", s);
	}
	scrambled_file("sector", data, sizeof(data));
	for (size_t s = 0; s < sizeof(data) / 512; s++) {
		const unsigned char *in_pattern = (const unsigned char *)pattern + 512 * (s % 8);

		cr_assert(memcmp(data + 512 * s, in_pattern, 8), "sector %zu: first word stamped", s);
		cr_assert_eq(memcmp(data + 512 * s + 8, in_pattern + 8, 504), 0,
			     "sector %zu: the rest is the buffer's pattern", s);
	}
	scrambled_file("off", data, sizeof(data));
	for (size_t blk = 0; blk < sizeof(data) / 4096; blk++)
		cr_assert_eq(memcmp(data + 4096 * blk, pattern, 4096), 0,
			     "block %zu: the buffer's pattern, unchanged", blk);
	cr_assert_neq(embperf_bench_set(b, "scramble", "maybe"), 0, "scramble=maybe is refused");
	cr_assert(strstr(embperf_bench_errmsg(b), "'scramble'"), "%s", embperf_bench_errmsg(b));
}

Test(blk_io, sync_every_n_writes_counts_its_fsyncs)
{
	double ops;

	set("rw", "write");
	set("size", "4M");
	set("sync", "every:4");
	run_ok();
	ops = counter(find("iops"), "units");
	cr_assert_float_eq(embperf_result_value(find("fsyncs")), floor(ops / 4), 1.0,
			   "%.0f writes, %.0f fsyncs", ops, embperf_result_value(find("fsyncs")));
	set("sync", "dsync");
	run_ok();
	set("sync", "end");
	run_ok();
	assert_empty(dir);
}

/** loop_device() - attach @backing to a free loop device into @dev. Return: 0 or -1. */
static int loop_device(const char *backing, char *dev, size_t size)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null", backing);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(dev, (int)size, p))
		dev[0] = '\0';
	dev[strcspn(dev, "\n")] = '\0';
	return pclose(p) == 0 && dev[0] ? 0 : -1;
}

/**
 * check_mounted_refused() - with ext4 made on @dev and mounted, blk.io
 * refuses it even with destructive=1 (skipped, with a log line, without
 * mkfs.ext4).
 */
static void check_mounted_refused(const char *dev)
{
	char cmd[160], mnt[96];

	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F %s >/dev/null 2>&1", dev);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (system(cmd) || mkdir(mnt, 0700) || mount(dev, mnt, "ext4", 0, NULL)) {
		tp_note("blk_io: mounted-device refusal not checked: mkfs.ext4 or mount failed");
		return;
	}
	set("rw", "write");
	run_fails(-EBUSY, "mounted or in use");
	cr_assert_eq(umount(mnt), 0);
}

Test(blk_io, a_block_device_needs_destructive_and_a_mounted_one_is_refused)
{
	char backing[128], dev[64], cmd[128];
	int fd;

	snprintf(backing, sizeof(backing), "%s/backing", dir);
	fd = open(backing, O_CREAT | O_RDWR, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 8 << 20), 0);
	close(fd);
	if (geteuid() || loop_device(backing, dev, sizeof(dev)))
		cr_skip_test("no loop device: needs root and a free /dev/loop*");
	set("target", dev);
	set("size", "1M");
	run_fails(-EPERM, "parameter 'destructive'");
	set("destructive", "1");
	set("rw", "read");
	run_until_io(run_ok, 4096);
	check_mounted_refused(dev);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	cr_assert_eq(system(cmd), 0);
}

Test(blk_io, bad_input_names_the_parameter_and_leaves_nothing)
{
	char missing[96];

	cr_assert_neq(embperf_bench_set(b, "bs", "0"), 0, "bs=0 is refused");
	cr_assert(strstr(embperf_bench_errmsg(b), "'bs'"), "%s", embperf_bench_errmsg(b));
	set("bs", "16M");
	run_fails(-EINVAL, "parameter 'bs': value '16M' is above 'size'");
	set("bs", "4k");
	set("sync", "sometimes");
	run_fails(-EINVAL, "parameter 'sync': value 'sometimes'");
	set("sync", "none");
	set("iodepth", "8");
	run_fails(-EINVAL, "parameter 'iodepth'");
	set("iodepth", "1");
	set("rw", "write");
	set("size", "1000T");
	run_fails(-ENOSPC, "short by");
	set("size", "8M");
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	set("target", missing);
	run_fails(-ENOENT, "parameter 'target'");
	set("target", "/dev/null");
	run_fails(-EINVAL, "is a character device");
	set("target", "");
	run_fails(-EINVAL, "parameter 'target' is empty");
	assert_empty(dir);
}

Test(blk_io, a_read_only_folder_is_refused)
{
	if (geteuid() == 0) {
		if (mount("none", dir, "tmpfs", MS_RDONLY, "size=1m"))
			cr_skip_test("a read-only tmpfs cannot be mounted here");
	} else {
		cr_assert_eq(chmod(dir, 0555), 0);
	}
	set("rw", "write");
	set("size", "64k");
	run_fails(geteuid() ? -EACCES : -EROFS, "cannot create a file in this folder");
	if (geteuid() == 0)
		umount(dir);
	else
		chmod(dir, 0755);
	assert_empty(dir);
}

/*
 * engine=io_uring. The kernel or a seccomp filter (containers) may refuse
 * io_uring_setup: then the run fails naming 'engine' and the tests skip,
 * saying so. A build without liburing answers -EOPNOTSUPP.
 */

/** skip_uring() - remove the test's folder (fini does not run after a skip), skip. */
static void skip_uring(const char *why, const char *detail)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	cr_skip_test("%s%s", why, detail);
}

/**
 * run_uring() - run a job with engine=io_uring; skip when io_uring is not
 * in the build or the kernel refuses it (after checking the refusal is the
 * clear error naming 'engine').
 */
static void run_uring(void)
{
	int rc;

	set("engine", "io_uring");
	rc = embperf_bench_run(b);
	if (rc && strstr(embperf_bench_errmsg(b), "parameter 'engine': value 'io_uring'")) {
		cr_assert(rc == -EOPNOTSUPP || rc == -EPERM || rc == -ENOSYS || rc == -EACCES,
			  "rc %d: %s", rc, embperf_bench_errmsg(b));
		skip_uring("io_uring not usable here: ", embperf_bench_errmsg(b));
	}
	cr_assert_eq(rc, 0, "%s", embperf_bench_errmsg(b));
}

Test(blk_io, io_uring_is_a_feature_and_without_it_the_engine_says_so)
{
	set("engine", "io_uring");
	if (embperf_has_feature("io_uring"))
		skip_uring("io_uring is in this build (the refusal is for builds without it)", "");
	run_fails(-EOPNOTSUPP, "parameter 'engine': value 'io_uring' is not in this build");
	assert_empty(dir);
}

Test(blk_io, io_uring_random_reads_at_depth_8_are_consistent)
{
	int direct = strcmp(fs_name(dir), "ext4") == 0;

	set("rw", "randread");
	set("iodepth", "8");
	set("direct", direct ? "1" : "0");
	set("time_based", "1");
	run_until_io(run_uring, 4096);
	cr_assert(strstr(embperf_result_labels(find("iops")), "engine=io_uring iodepth=8"), "%s",
		  embperf_result_labels(find("iops")));
	assert_empty(dir);
}

Test(blk_io, io_uring_sequential_read_covers_size_once)
{
	set("rw", "read");
	set("bs", "64k");
	set("iodepth", "4");
	run_until_io(run_uring, 65536);
	cr_assert_leq(counter(find("iops"), "units"), 8.0 * 1024 * 1024 / 65536,
		      "a size-bound job reads 'size' once, whatever the depth");
	assert_empty(dir);
}

/* Two threads: run_until_io() says why a run may be taken again. */
Test(blk_io, io_uring_mixed_jobs_on_dev_shm_merge_their_tallies)
{
	dir_on_dev_shm();
	set("rw", "randrw");
	set("jobs", "2");
	set("iodepth", "16");
	set("time_based", "1");
	run_until_io(run_uring, 4096);
	assert_empty(dir);
}

Test(blk_io, io_uring_verify_reads_back_what_psync_wrote_and_catches_corruption)
{
	char path[512];

	write_kept_pattern(path, sizeof(path));
	set("iodepth", "16");
	run_uring(); /* the whole file holds the pattern */
	corrupt_at(path, 5 * 4096 + 16);
	run_fails(-EILSEQ, "at offset 20496");
	cr_log_info("%s", embperf_bench_errmsg(b));
}

Test(blk_io, io_uring_writes_verify_under_psync_reads)
{
	char path[512];

	set("rw", "randwrite");
	set("size", "4M");
	set("verify", "1");
	set("keep", "1");
	set("iodepth", "32");
	set("time_based", "1");
	set("duration", "300ms");
	run_uring();
	only_file(path, sizeof(path));
	/* Random writes leave holes; a sequential pass fills the rest. */
	set("rw", "write");
	set("time_based", "0");
	set("duration", "10s");
	set("target", path);
	run_uring();
	set("engine", "psync");
	set("iodepth", "1");
	set("rw", "read");
	set("keep", "0");
	run_until_io(run_ok, 4096);
}

Test(blk_io, io_uring_sync_every_n_writes_counts_its_fsyncs)
{
	double ops;

	set("rw", "write");
	set("size", "4M");
	set("iodepth", "8");
	set("sync", "every:4");
	run_uring();
	ops = counter(find("iops"), "units");
	cr_assert_float_eq(embperf_result_value(find("fsyncs")), floor(ops / 4), 1.0,
			   "%.0f writes, %.0f fsyncs", ops, embperf_result_value(find("fsyncs")));
	set("sync", "end");
	run_uring();
	assert_empty(dir);
}

Test(blk_io, io_uring_batched_submissions_keep_fsync_counts_and_name_the_batch)
{
	double ops;

	set("rw", "write");
	set("size", "4M");
	set("iodepth", "8");
	set("iodepth_batch", "3"); /* not a divisor of the sync interval */
	set("sync", "every:4");
	run_uring();
	ops = counter(find("iops"), "units");
	cr_assert_float_eq(embperf_result_value(find("fsyncs")), floor(ops / 4), 1.0,
			   "%.0f writes, %.0f fsyncs", ops, embperf_result_value(find("fsyncs")));
	cr_assert(strstr(embperf_result_labels(find("iops")), "iodepth=8 iodepth_batch=3"), "%s",
		  embperf_result_labels(find("iops")));
	set("iodepth_batch", "0"); /* fio's 0: 'iodepth' */
	set("sync", "none");
	run_uring();
	cr_assert(strstr(embperf_result_labels(find("iops")), "iodepth_batch=8"), "%s",
		  embperf_result_labels(find("iops")));
	assert_empty(dir);
}

Test(blk_io, io_uring_cancel_removes_the_file)
{
	struct tp_canceller cn;
	int rc;

	set("rw", "randwrite");
	set("iodepth", "32");
	set("time_based", "1");
	set("duration", "20s");
	set("engine", "io_uring");
	tp_cancel_after(&cn, ctx, 100);
	rc = embperf_bench_run(b);
	tp_cancel_join(&cn);
	if (rc != -ECANCELED && strstr(embperf_bench_errmsg(b), "parameter 'engine'")) {
		skip_uring("io_uring not usable here: ", embperf_bench_errmsg(b));
	}
	cr_assert_eq(rc, -ECANCELED, "%s", embperf_bench_errmsg(b));
	assert_empty(dir);
}

Test(blk_io, io_uring_budget_removes_the_file)
{
	int rc;

	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 200000000ULL), 0);
	set("rw", "randread");
	set("iodepth", "32");
	set("time_based", "1");
	set("duration", "20s");
	set("engine", "io_uring");
	rc = embperf_bench_run(b);
	if (rc && strstr(embperf_bench_errmsg(b), "parameter 'engine'"))
		skip_uring("io_uring not usable here: ", embperf_bench_errmsg(b));
	cr_assert_eq(rc, -ETIME, "rc %d: %s", rc, embperf_bench_errmsg(b));
	assert_empty(dir);
}

/** huge_pages_free() - HugePages_Free of /proc/meminfo (-1 when it does not say). */
static long huge_pages_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/**
 * read_back_with_hugepages() - the kept pattern file read back and verified
 * at depth 4 (every slot of the buffer) with hugepages=@mode; the labels
 * name a mode other than off.
 */
static void read_back_with_hugepages(const char *mode)
{
	char path[512], word[32];

	write_kept_pattern(path, sizeof(path));
	set("hugepages", mode);
	set("iodepth", "4");
	run_uring();
	cr_assert(find("iops"), "hugepages=%s: a result", mode);
	snprintf(word, sizeof(word), " hugepages=%s", mode);
	if (strcmp(mode, "off"))
		cr_assert(strstr(embperf_result_labels(find("iops")), word), "%s",
			  embperf_result_labels(find("iops")));
	else
		cr_assert_null(strstr(embperf_result_labels(find("iops")), "hugepages"), "%s",
			       embperf_result_labels(find("iops")));
	cr_assert_eq(access(path, F_OK), 0, "a file that was given is never removed");
}

Test(blk_io, hugepages_off_reads_back_through_every_slot)
{
	read_back_with_hugepages("off");
}

Test(blk_io, hugepages_thp_reads_back_through_every_slot)
{
	/* madvise() is advice: without THP the same buffer has base pages */
	read_back_with_hugepages("thp");
}

Test(blk_io, hugepages_on_reads_back_or_names_the_missing_pages)
{
	long free_pages = huge_pages_free();

	if (free_pages >= 2) {
		cr_log_info("%ld huge pages free: hugepages=on reads back", free_pages);
		read_back_with_hugepages("on");
		return;
	}
	if (free_pages < 0)
		cr_skip_test("/proc/meminfo has no HugePages_Free: no huge pages here");
	/* 4 blocks of 1 MiB need two 2 MiB pages; fewer are free */
	set("hugepages", "on");
	set("bs", "1M");
	set("iodepth", "4");
	set("engine", embperf_has_feature("io_uring") ? "io_uring" : "psync");
	if (!embperf_has_feature("io_uring"))
		set("iodepth", "1");
	run_fails(-ENOMEM, "parameter 'hugepages': value 'on' needs");
	assert_empty(dir);
}

/**
 * map_page_at() - move the faulted page @page to @where (MREMAP_FIXED).
 * Return: @where.
 */
static char *map_page_at(char *page, char *where)
{
	void *p = mremap(page, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, where);

	cr_assert_neq(p, MAP_FAILED, "mremap: %s", strerror(errno));
	return p;
}

/*
 * Two pages faulted apart, then placed side by side in both orders: their
 * frames can follow each other in at most one order, so the two buffers
 * count at least three runs between them, and one page is one run.
 */
Test(blk_io, buffer_runs_count_physically_contiguous_pages)
{
	char *a, *b2, *slots;
	int ab, ba;

	/* Under qemu-user /proc/self/pagemap is the emulator's own, indexed by
	 * host addresses: the guest's addresses read other pages' entries. */
	tp_skip_if_emulated("/proc/self/pagemap is the emulator's, at host addresses");
	if (sysconf(_SC_PAGESIZE) != 4096)
		cr_skip_test("a page of %ld bytes (the test places 4096-byte pages)",
			     sysconf(_SC_PAGESIZE));
	a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	slots = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(a != MAP_FAILED && b2 != MAP_FAILED && slots != MAP_FAILED);
	a[0] = 1;
	b2[0] = 2;
	if (blk_buf_runs(a, 4096) < 0)
		cr_skip_test("/proc/self/pagemap gives no page frame numbers here (they need "
			     "CAP_SYS_ADMIN)");
	cr_assert_eq(blk_buf_runs(a, 4096), 1, "one page, one run");
	a = map_page_at(a, slots);
	b2 = map_page_at(b2, slots + 4096);
	ab = blk_buf_runs(slots, 2 * 4096);
	a = map_page_at(a, slots + 2 * 4096);
	ba = blk_buf_runs(slots + 4096, 2 * 4096);
	cr_assert(a[0] == 1 && b2[0] == 2, "the pages moved with their data");
	cr_assert(ab >= 1 && ab <= 2 && ba >= 1 && ba <= 2, "runs %d and %d of two pages", ab, ba);
	cr_assert_geq(ab + ba, 3, "A,B in %d runs and B,A in %d: both orders cannot be contiguous",
		      ab, ba);
	munmap(slots, 3 * 4096);
}

/** frame_of() - the page frame number of the page at @addr (0: not given). */
static uint64_t frame_of(int pagemap_fd, const void *addr)
{
	uint64_t entry = 0;

	cr_assert_eq(pread(pagemap_fd, &entry, sizeof(entry),
			   (off_t)((uintptr_t)addr / 4096 * sizeof(entry))), (ssize_t)sizeof(entry));
	return entry & ((1ULL << 55) - 1);
}

/* The runs of a 1 MiB buffer are the breaks between frames, counted here apart. */
Test(blk_io, buffer_runs_match_the_frames_of_a_megabyte)
{
	size_t len = 1 << 20;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	int runs = 0;

	cr_assert(buf != MAP_FAILED);
	if (sysconf(_SC_PAGESIZE) != 4096 || fd < 0)
		cr_skip_test("no /proc/self/pagemap or pages not of 4096 bytes here");
	memset(buf, 1, len);
	if (!frame_of(fd, buf))
		cr_skip_test("/proc/self/pagemap gives no page frame numbers here (they need "
			     "CAP_SYS_ADMIN)");
	for (size_t off = 0; off < len; off += 4096)
		runs += !off || frame_of(fd, buf + off) != frame_of(fd, buf + off - 4096) + 1;
	cr_log_info("a 1 MiB buffer faulted in order: %d runs", runs);
	cr_assert_eq(blk_buf_runs(buf, len), runs);
	close(fd);
	munmap(buf, len);
}
