// SPDX-License-Identifier: MIT
/*
 * test_blk_fs.c - blk.fs (TI's file system method: write + fsync, cold
 * read, per buffer size).
 *
 * Each test works in a new folder under /tmp (or a file system mounted on
 * it) and checks that the kernel's file is gone afterwards. Only the
 * figures' consistency is asserted (every byte of the file counted once
 * per trial, one result per direction and buffer size), never their size.
 * Mounting (tmpfs, a loop device with ext4) needs root; without it those
 * tests skip and say so.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "embperf.h"
#include "lib/blk/mounts.h"
#include "proc_state.h"

static embperf_ctx *ctx;
static embperf_bench *b;
static char dir[64];
static char loop_dev[64]; /* a loop device a test attached, detached in teardown */

/** setup() - a bench of blk.fs (one trial per case, 4 MiB) and a new folder under /tmp. */
static void setup(void)
{
	strcpy(dir, "/tmp/test-blk-fs-XXXXXX");
	cr_assert(mkdtemp(dir));
	ctx = embperf_ctx_new();
	cr_assert(ctx);
	b = embperf_bench_new(ctx, "blk.fs");
	cr_assert(b, "blk.fs is registered");
	tp_set(b, "repetitions", "1");
	tp_set(b, "size", "4M");
	tp_set(b, "bs", "102400,1M");
	tp_set(b, "folder", dir);
}

/** teardown() - free, unmount what a test mounted on the folder, remove it. */
static void teardown(void)
{
	char cmd[256];

	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	umount2(dir, MNT_DETACH);
	if (loop_dev[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s", loop_dev);
		cr_assert_eq(system(cmd), 0);
		loop_dev[0] = '\0';
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.img'", dir, dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(blk_fs, .init = setup, .fini = teardown, .timeout = 120);

/** run_fails() - run, which must fail with @err and a message holding @words. */
static void run_fails(int err, const char *words)
{
	int rc = embperf_bench_run(b);

	cr_assert_eq(rc, err, "rc %d (%s), wanted %d", rc, embperf_bench_errmsg(b), err);
	cr_assert(strstr(embperf_bench_errmsg(b), words), "message '%s' names '%s'",
		  embperf_bench_errmsg(b), words);
}

/** result() - the result of @metric with @labels_part in its labels, or NULL. */
static const embperf_result *result(const char *metric, const char *labels_part)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (!strcmp(embperf_result_metric(r), metric) &&
		    strstr(embperf_result_labels(r), labels_part))
			return r;
	}
	return NULL;
}

/** count() - results of @metric. */
static int count(const char *metric)
{
	int n = 0;

	for (int i = 0; i < embperf_bench_result_count(b); i++)
		n += !strcmp(embperf_result_metric(embperf_bench_result(b, i)), metric);
	return n;
}

/**
 * check_case() - the case @op at @bs_bytes moved the whole 4 MiB file in
 * calls of @bs_bytes (the last one shorter) in each of its @trials, at a
 * positive rate. (cpu_system, from /proc/stat's ticks, may be missing for a
 * trial shorter than a tick.)
 */
static void check_case(const char *op, double bs_bytes, const char *fs, int trials)
{
	char labels[96];
	const embperf_result *r;

	snprintf(labels, sizeof(labels), "op=%s fs=%s bs=%.0f size=4M", op, fs, bs_bytes);
	r = result("throughput", labels);
	cr_assert(r, "a throughput result labelled '%s'", labels);
	cr_assert_gt(embperf_result_value(r), 0.0);
	cr_assert_float_eq(tp_counter(r, "units"), trials * ceil(4.0 * 1024 * 1024 / bs_bytes),
			   1e-9, "%s: one call per buffer of the file, %.0f calls", labels,
			   tp_counter(r, "units"));
	cr_assert(result("cpu_process", labels));
}

/** fs_name() - the mount table's type of the folder's file system. */
static const char *fs_name(const char *path)
{
	static struct blk_mount m;

	cr_assert_eq(blk_mount_of(path, &m), 0);
	return m.fstype;
}

Test(blk_fs, writes_and_reads_each_buffer_size_and_leaves_nothing)
{
	const char *fs = fs_name(dir);

	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(count("throughput"), 4, "2 sizes x 2 directions");
	check_case("write", 102400, fs, 1);
	check_case("read", 102400, fs, 1);
	check_case("write", 1048576, fs, 1);
	check_case("read", 1048576, fs, 1);
	cr_assert_eq(tp_count_entries(dir), 0, "the file is removed");
}

Test(blk_fs, read_alone_lays_the_file_out_first)
{
	char shm[64] = "/dev/shm/test-blk-fs-XXXXXX";

	if (!mkdtemp(shm))
		cr_skip_test("no /dev/shm here: %s", strerror(errno));
	tp_set(b, "folder", shm);
	tp_set(b, "op", "read");
	tp_set(b, "bs", "256k");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(count("throughput"), 1, "read only");
	check_case("read", 262144, fs_name(shm), 1);
	cr_assert_eq(tp_count_entries(shm), 0, "the file is removed");
	rmdir(shm);
}

Test(blk_fs, bad_input_names_the_parameter_and_leaves_nothing)
{
	char path[96];
	int fd;

	tp_set(b, "bs", "1M,lots");
	run_fails(-EINVAL, "parameter 'bs': value '1M,lots': item 'lots' is not a size");
	tp_set(b, "bs", "8M");
	run_fails(-EINVAL, "parameter 'bs': size 8388608 is above 'size'");
	tp_set(b, "bs", "1M");
	tp_set(b, "size", "15T");
	run_fails(-ENOSPC, "short by");
	tp_set(b, "size", "4M");
	tp_set(b, "folder", "");
	run_fails(-EINVAL, "parameter 'folder' is empty");
	snprintf(path, sizeof(path), "%s/missing", dir);
	tp_set(b, "folder", path);
	run_fails(-ENOENT, "parameter 'folder'");
	snprintf(path, sizeof(path), "%s/plain", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	tp_set(b, "folder", path);
	run_fails(-ENOTDIR, "is not a folder");
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(tp_count_entries(dir), 0);
}

/** as_nobody() - in a child that dropped root: the run's rc (as an exit code) and message. */
static int as_nobody(char *msg, size_t size)
{
	int pfd[2], status = 0;
	pid_t pid;
	ssize_t n;

	cr_assert_eq(pipe(pfd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int rc;

		close(pfd[0]);
		if (setgid(65534) || setuid(65534))
			_exit(100);
		rc = embperf_bench_run(b);
		n = write(pfd[1], embperf_bench_errmsg(b), strlen(embperf_bench_errmsg(b)));
		_exit(n < 0 ? 101 : -rc);
	}
	close(pfd[1]);
	n = read(pfd[0], msg, size - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(blk_fs, remount_is_refused_without_root_and_off_a_mount_point)
{
	char msg[512];

	tp_set(b, "remount", "1");
	if (geteuid()) {
		run_fails(-EPERM, "parameter 'remount': value '1' needs root");
		cr_skip_test("not root: the mount-point and tmpfs refusals need root");
	}
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(as_nobody(msg, sizeof(msg)), EPERM, "%s", msg);
	cr_assert(strstr(msg, "parameter 'remount': value '1' needs root"), "%s", msg);
	run_fails(-EINVAL, "is not a mount point");
	if (mount("none", dir, "tmpfs", 0, "size=8m"))
		cr_skip_test("tmpfs cannot be mounted here");
	run_fails(-EINVAL, "loses its files when unmounted");
	cr_assert_eq(tp_count_entries(dir), 0);
	umount(dir);
}

/**
 * loop_ext4() - an ext4 image of 32 MiB on a loop device (@dev, detached
 * by teardown) mounted on the folder. Return: 0 or -1.
 */
static int loop_ext4(char *dev, size_t size)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "truncate -s 32M %s.img && mkfs.ext4 -q -F %s.img >/dev/null "
		 "2>&1 && losetup -f --show %s.img 2>/dev/null", dir, dir, dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(dev, (int)size, p))
		dev[0] = '\0';
	dev[strcspn(dev, "\n")] = '\0';
	if (pclose(p) || !dev[0])
		return -1;
	return mount(dev, dir, "ext4", MS_NOATIME, NULL);
}

Test(blk_fs, remount_as_root_reads_after_mounting_again)
{
	struct blk_mount m;
	int rc;

	if (geteuid() || loop_ext4(loop_dev, sizeof(loop_dev)))
		cr_skip_test("no ext4 loop mount: needs root, losetup and mkfs.ext4");
	tp_set(b, "remount", "1");
	tp_set(b, "bs", "1M");
	tp_set(b, "repetitions", "2");
	rc = embperf_bench_run(b);
	cr_assert_eq(blk_mount_of(dir, &m), 0);
	cr_assert_str_eq(m.point, dir, "mounted again");
	cr_assert_str_eq(m.fstype, "ext4");
	cr_assert(strstr(m.opts, "noatime"), "mounted with its options again: %s", m.opts);
	cr_assert_eq(rc, 0, "%s", embperf_bench_errmsg(b));
	check_case("read", 1048576, "ext4", 2);
	cr_assert_eq(tp_count_entries(dir), 1, "only lost+found is left");
	cr_assert_eq(umount(dir), 0);
}

Test(blk_fs, cancel_and_budget_remove_the_file)
{
	struct tp_canceller cn;

	tp_set_count(b, "1000");
	tp_set(b, "size", "1M");
	tp_set(b, "bs", "4k");
	tp_cancel_after(&cn, ctx, 100);
	cr_assert_eq(embperf_bench_run(b), -ECANCELED, "%s", embperf_bench_errmsg(b));
	tp_cancel_join(&cn);
	cr_assert_eq(tp_count_entries(dir), 0, "removed after cancel");
	embperf_ctx_free(ctx);
	embperf_bench_free(b);
	ctx = embperf_ctx_new();
	b = embperf_bench_new(ctx, "blk.fs");
	tp_set(b, "folder", dir);
	tp_set_count(b, "1000");
	tp_set(b, "size", "1M");
	tp_set(b, "bs", "4k");
	cr_assert_eq(embperf_ctx_set_budget_ns(ctx, 150000000ULL), 0);
	embperf_bench_run(b);
	cr_assert_eq(tp_count_entries(dir), 0, "removed after the budget ran out");
}

static volatile int fill_stop;

/**
 * fill_when_started() - once the kernel's file exists, keep the folder's
 * file system full (what the kernel's trials free between them is taken
 * again) until fill_stop.
 */
static void *fill_when_started(void *arg)
{
	static char block[65536];
	struct timespec ts = { 0, 200000 };
	char path[96];
	int fd;

	(void)arg;
	while (tp_count_entries(dir) == 0 && !fill_stop)
		nanosleep(&ts, NULL);
	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return NULL;
	while (!fill_stop)
		if (write(fd, block, sizeof(block)) <= 0)
			nanosleep(&ts, NULL);
	close(fd);
	return NULL;
}

Test(blk_fs, a_file_system_filling_up_mid_write_names_it_and_removes_the_file)
{
	pthread_t tid;
	char path[96];
	int rc;

	if (geteuid() || mount("none", dir, "tmpfs", 0, "size=8m"))
		cr_skip_test("an 8 MiB tmpfs cannot be mounted here: needs root");
	tp_set(b, "op", "write");
	tp_set(b, "bs", "4k");
	/* Room for the filler thread to start late (qemu-user on a loaded
	 * host): the run ends at the first write the full file system refuses,
	 * about as soon as the filler has run. */
	tp_set_count(b, "2000");
	fill_stop = 0;
	cr_assert_eq(pthread_create(&tid, NULL, fill_when_started, NULL), 0);
	rc = embperf_bench_run(b);
	fill_stop = 1;
	pthread_join(tid, NULL);
	cr_assert_eq(rc, -ENOSPC, "rc %d: %s", rc, embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "No space left on device"), "%s",
		  embperf_bench_errmsg(b));
	cr_assert(strstr(embperf_bench_errmsg(b), "the file is removed"), "%s",
		  embperf_bench_errmsg(b));
	snprintf(path, sizeof(path), "%s/filler", dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(tp_count_entries(dir), 0, "only the filler was left");
	umount(dir);
}
