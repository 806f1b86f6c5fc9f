// SPDX-License-Identifier: MIT
/*
 * os_fs.c - os.fs: file creation and deletion rates, the method of
 * lmbench's lat_fs (McVoy & Staelin).
 *
 * For each file size (lat_fs: 0k, 1k, 4k, 10k) two cases run:
 *
 *   create  one unit is creat(), one write() of the size (none for 0k) and
 *           close() of a new file
 *   delete  one unit is unlink() of a file created earlier
 *
 * and each reports files per second. As in lat_fs, files live in
 * directories of at most 100 entries below a private directory in
 * 'tmpdir', and are named by absolute paths built before timing.
 *
 * lat_fs makes a fresh set of files around each timed batch (untimed setup
 * and cleanup). The engine times bodies back to back, so this kernel keeps
 * a pool of names instead: the create case fills the pool from its start,
 * the delete case empties it in the order the files were made (as lat_fs
 * deletes), and everything outside the bodies - emptying the pool before a
 * create case, making up files a delete case will need - happens in the
 * cases' prepare(), untimed. The 'files' parameter bounds a sample's batch,
 * which bounds the pool and the untimed work.
 *
 * A third metric, num_files, is lat_fs's second column: the files lat_fs
 * creates in one timed batch, the count lmbench's benchmp settles on: it
 * calibrates a batch to its timing window ('enough'), then scales it to
 * last one second. So it is about the files created per second, a rate in
 * disguise (TI's tables list it as "lat_fs-0k (num_files)"): os.fs derives
 * it from the median create rate by benchmp's rule (ep_os_lmbench_batch()),
 * not from its own batches, which 'files' caps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/result.h"
#include "lib/core/params.h"
#include "lib/core/util.h"
#include "lib/os/os_files.h"

#define FS_MAX_FILE_BYTES ((int64_t)1 << 20) /* largest file size accepted */
#define FS_MAX_SIZES 16                      /* sizes in one run */
#define FS_PER_DIR 100                       /* lat_fs's default -n */
#define FS_MAX_POOL ((size_t)4 << 20)        /* names in the pool */
#define FS_CHECK_FILES 64                    /* untimed files between cancel checks */
#define FS_LABEL_MAX 32
/*
 * Units the engine may ask of one case beyond repetitions + warmup samples,
 * in samples: calibration grows its count at least 1.4-fold per step up to
 * the cap, so all its steps together stay below 3.5 samples.
 */
#define FS_CALIBRATION_SAMPLES 6

enum { METRIC_CREATE, METRIC_DELETE, METRIC_NUM_FILES };

struct fs_state;

/**
 * struct fs_case - one case: create or delete files of one size.
 * @st:    the run's state.
 * @bytes: size of each file.
 * @label: "size=4k".
 */
struct fs_case {
	struct fs_state *st;
	size_t bytes;
	char label[FS_LABEL_MAX];
};

/**
 * struct fs_state - the run's state.
 * @run:         the run (cancel checks and error messages).
 * @root:        the private directory below 'tmpdir'; "" until made.
 * @names:       absolute path of pool entry k at @names + k * @name_stride.
 * @name_stride: bytes per name.
 * @n_names:     entries in the pool.
 * @n_dirs:      directories of @FS_PER_DIR entries that hold the pool.
 * @dirs_exist:  the directories are there.
 * @head:        next pool entry to create.
 * @tail:        next pool entry to delete; files exist at [@tail, @head).
 * @pool_bytes:  size of the files that exist.
 * @per_case:    most files one case may consume (the pool's share).
 * @data:        what the files are filled with (zeros).
 * @cases:       two per size: create, delete.
 * @n_cases:     number of @cases.
 */
struct fs_state {
	struct ep_run *run;
	char root[EP_OS_PATH_MAX];
	char *names;
	size_t name_stride;
	size_t n_names;
	size_t n_dirs;
	int dirs_exist;
	size_t head;
	size_t tail;
	size_t pool_bytes;
	size_t per_case;
	char *data;
	struct fs_case *cases;
	int n_cases;
};

static const struct ep_param_desc fs_params[] = {
	{ "size", EP_PT_STRING, "0k,1k,4k,10k", { { 0, 0 } }, NULL, "bytes",
	  "file sizes, comma-separated, each 0..1M (lat_fs: 0k,1k,4k,10k; -s one size)" },
	{ "files", EP_PT_INT, "100", { { 1, 100000 } }, NULL, "",
	  "most files created or deleted in one sample; bounds the untimed set-up work" },
	{ "enough", EP_PT_DURATION, "5ms", { { 100000, 60000000000LL } }, NULL, "ns",
	  "lmbench's timing window (its ENOUGH; 5ms where its clock test passes at once): "
	  "num_files is lat_fs's count for it" },
	EP_OS_PARAM_TMPDIR,
};

/*
 * lmbench's defaults, and no extra warm-up while samples trend: every
 * sample consumes files of the pool, which is sized from these counts, and
 * a create rate that falls as the directories fill is the measurement, not
 * a warm-up.
 */
static const struct ep_default fs_defaults[] = {
	{ "repetitions", "11" },
	{ "spread", "0" },
	{ "warmup_max", "0" },
	{ NULL, NULL },
};

static const struct ep_metric_desc fs_metrics[] = {
	[METRIC_CREATE] = { "create", "files/s", EP_METRIC_PER_SECOND, 1.0, EP_PRIMARY_MEDIAN, 1,
			    "files created (creat, write, close) per second, median as lat_fs" },
	[METRIC_DELETE] = { "delete", "files/s", EP_METRIC_PER_SECOND, 1.0, EP_PRIMARY_MEDIAN, 1,
			    "files deleted (unlink) per second, median as lat_fs" },
	[METRIC_NUM_FILES] = { "num_files", "files", EP_METRIC_VALUE, 1.0, EP_PRIMARY_MEDIAN, 1,
			       "files lat_fs times in one batch at the create rate measured: "
			       "about one second of creates (lat_fs's second column)" },
};

static const char *name_of(const struct fs_state *st, size_t k)
{
	return st->names + k * st->name_stride;
}

/* Directory @d of the pool, into @buf; the root leaves room for it (make_root). */
static void dir_name(const struct fs_state *st, size_t d, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/%zu", st->root, d) >= (int)size)
		buf[0] = '\0';
}

/* Remove every file that exists; untimed. */
static int remove_files(struct fs_state *st, int check)
{
	int rc = 0;

	while (st->tail < st->head) {
		unlink(name_of(st, st->tail++));
		if (check && st->tail % FS_CHECK_FILES == 0 && (rc = ep_run_check(st->run)))
			break;
	}
	if (st->tail == st->head)
		st->head = st->tail = 0;
	return rc;
}

static void remove_dirs(struct fs_state *st)
{
	char path[EP_OS_PATH_MAX];

	for (size_t d = 0; st->dirs_exist && d < st->n_dirs; d++) {
		dir_name(st, d, path, sizeof(path));
		rmdir(path);
	}
	st->dirs_exist = 0;
}

/* Empty directories for the whole pool, fresh as lat_fs makes them. */
static int make_dirs(struct fs_state *st)
{
	char path[EP_OS_PATH_MAX];

	remove_dirs(st);
	st->dirs_exist = 1;
	for (size_t d = 0; d < st->n_dirs; d++) {
		dir_name(st, d, path, sizeof(path));
		if (mkdir(path, 0700) && errno != EEXIST) {
			int err = errno;

			return ep_run_fail(st->run, -err, "os.fs: cannot make directory '%s': %s",
					   path, strerror(err));
		}
	}
	return 0;
}

/* Create pool entry @head as a file of @bytes; the work of one create unit. */
static inline int create_one(struct fs_state *st, size_t bytes)
{
	const char *name = name_of(st, st->head);
	int fd = creat(name, 0666);
	ssize_t written = 0;
	int err;

	if (fd < 0) {
		err = errno;
		return ep_run_fail(st->run, -err, "os.fs: cannot create '%s': %s", name,
				   strerror(err));
	}
	if (bytes)
		written = write(fd, st->data, bytes);
	if (written != (ssize_t)bytes) {
		err = written < 0 ? errno : ENOSPC;
		close(fd);
		unlink(name);
		return ep_run_fail(st->run, -err, "os.fs: cannot write %zu bytes to '%s': %s",
				   bytes, name, strerror(err));
	}
	close(fd);
	st->head++;
	return 0;
}

/* body (create): make @units new files of the case's size. */
static int fs_create(void *arg, uint64_t units)
{
	struct fs_case *fc = arg;
	struct fs_state *st = fc->st;

	if (units > st->n_names - st->head)
		return ep_run_fail(st->run, -EOVERFLOW,
				   "os.fs: the engine asked for more files than the pool of %zu "
				   "holds; this is a bug, please report it", st->n_names);
	while (units--) {
		int rc = create_one(st, fc->bytes);

		if (rc)
			return rc;
	}
	return 0;
}

/* body (delete): unlink the @units oldest files. */
static int fs_delete(void *arg, uint64_t units)
{
	struct fs_case *fc = arg;
	struct fs_state *st = fc->st;

	if (units > st->head - st->tail)
		return ep_run_fail(st->run, -EOVERFLOW,
				   "os.fs: the engine asked to delete more files than the %zu made "
				   "ready; this is a bug, please report it", st->head - st->tail);
	while (units--) {
		if (unlink(name_of(st, st->tail))) {
			int err = errno;

			return ep_run_fail(st->run, -err, "os.fs: cannot delete '%s': %s",
					   name_of(st, st->tail), strerror(err));
		}
		st->tail++;
	}
	return 0;
}

/* prepare (create): an empty pool in fresh directories. */
static int fs_prepare_create(void *arg)
{
	struct fs_case *fc = arg;
	struct fs_state *st = fc->st;
	int rc = remove_files(st, 1);

	if (!rc)
		rc = make_dirs(st);
	st->pool_bytes = fc->bytes;
	return rc;
}

/* prepare (delete): as many files of this size as the case may delete. */
static int fs_prepare_delete(void *arg)
{
	struct fs_case *fc = arg;
	struct fs_state *st = fc->st;
	int rc = 0;

	if (st->pool_bytes != fc->bytes || st->n_names - st->tail < st->per_case) {
		rc = fs_prepare_create(arg);
		if (rc)
			return rc;
	}
	while (!rc && st->head - st->tail < st->per_case) {
		rc = create_one(st, fc->bytes);
		if (!rc && st->head % FS_CHECK_FILES == 0)
			rc = ep_run_check(st->run);
	}
	return rc;
}

/* Text of one size for labels: lat_fs's "0k", "1k", ...; bytes otherwise. */
static void size_label(size_t bytes, char *buf, size_t size)
{
	char text[24] = "0k";

	if (bytes)
		ep_format_size((int64_t)bytes, text, sizeof(text));
	snprintf(buf, size, "size=%s", text);
}

/* Parse the 'size' list into @bytes; returns how many, or a negative errno. */
static int parse_sizes(struct ep_run *run, size_t *bytes)
{
	static const struct ep_param_desc one = {
		"size", EP_PT_SIZE, "0", { { 0, FS_MAX_FILE_BYTES } }, NULL, "bytes", ""
	};
	const char *list = ep_param_text(run, "size");
	int n = 0;

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		char item[64], err[EP_ERRMSG_MAX];
		struct ep_value v;
		int rc;

		if (len == 0 || len >= sizeof(item) || n == FS_MAX_SIZES)
			return ep_run_refuse(run, -EINVAL, "size", " is not a list of sizes; "
					     "accepted: up to %d sizes 0..1M separated by commas, "
					     "e.g. 0k,1k,4k,10k", FS_MAX_SIZES);
		memcpy(item, p, len);
		item[len] = '\0';
		rc = ep_param_parse(&one, item, &v, err, sizeof(err));
		if (rc)
			return ep_run_fail(run, rc, "%s", err);
		ep_value_free(&v);
		for (int i = 0; i < n; i++)
			if (bytes[i] == (size_t)v.i)
				return ep_run_refuse(run, -EINVAL, "size", " lists %s twice; "
						     "accepted: distinct sizes", item);
		bytes[n++] = (size_t)v.i;
		p += len;
		if (!*p)
			return n;
	}
}

/*
 * Size the pool: one case may use calibration plus warm-up plus the
 * samples, each at most 'files' files. Check memory, disk space and inodes.
 */
static int size_pool(struct ep_run *run, struct fs_state *st, const size_t *bytes, int n)
{
	uint64_t files = (uint64_t)ep_param_int(run, "files");
	uint64_t samples = (uint64_t)ep_param_int(run, "repetitions") +
			   (uint64_t)ep_param_int(run, "warmup") +
			   (uint64_t)ep_param_int(run, "warmup_max") + FS_CALIBRATION_SAMPLES;
	uint64_t per_case = files * samples, largest = 0, block = 4096;
	struct statvfs vfs;

	if (per_case > FS_MAX_POOL)
		return ep_run_refuse(run, -ERANGE, "files", " with %" PRIu64 " samples per case "
				     "needs a pool of %" PRIu64 " files; accepted: files x (repetitions "
				     "+ warmup + warmup_max + %d) <= %zu", samples, per_case,
				     FS_CALIBRATION_SAMPLES, FS_MAX_POOL);
	for (int i = 0; i < n; i++)
		largest = bytes[i] > largest ? bytes[i] : largest;
	if (!statvfs(st->root, &vfs)) {
		uint64_t per_file = vfs.f_frsize ? vfs.f_frsize : block;
		uint64_t need = per_case * ((largest + per_file - 1) / per_file * per_file);

		if (need > (uint64_t)vfs.f_bavail * vfs.f_frsize)
			return ep_run_refuse(run, -ENOSPC, "files", " may need %" PRIu64 " bytes "
					     "in '%s', more than is free; accepted: fewer files, smaller "
					     "sizes or another 'tmpdir'", need, st->root);
		if (vfs.f_files && per_case + per_case / FS_PER_DIR > vfs.f_favail)
			return ep_run_refuse(run, -ENOSPC, "files", " may need %" PRIu64 " inodes "
					     "in '%s', more than are free; accepted: fewer files or "
					     "another 'tmpdir'", per_case, st->root);
	}
	st->per_case = (size_t)per_case;
	st->n_names = (size_t)per_case;
	st->n_dirs = (st->n_names + FS_PER_DIR - 1) / FS_PER_DIR;
	st->data = calloc(1, largest ? largest : 1);
	return st->data ? 0 : -ENOMEM;
}

/* Absolute names of the pool, built once: the bodies only use them. */
static int make_names(struct fs_state *st)
{
	st->name_stride = strlen(st->root) + 2 * 24;
	st->names = malloc(st->n_names * st->name_stride);
	if (!st->names)
		return -ENOMEM;
	for (size_t k = 0; k < st->n_names; k++)
		snprintf(st->names + k * st->name_stride, st->name_stride, "%s/%zu/%zu", st->root,
			 k / FS_PER_DIR, k % FS_PER_DIR);
	return 0;
}

static int add_cases(struct ep_run *run, struct fs_state *st, const size_t *bytes, int n)
{
	st->cases = calloc((size_t)n * 2, sizeof(*st->cases));
	if (!st->cases)
		return -ENOMEM;
	st->n_cases = 2 * n;
	for (int i = 0; i < st->n_cases; i++) {
		struct fs_case *fc = &st->cases[i];
		int create = i % 2 == 0;
		struct ep_case c = {
			.metric = create ? METRIC_CREATE : METRIC_DELETE,
			.labels = fc->label,
			.body = create ? fs_create : fs_delete,
			.prepare = create ? fs_prepare_create : fs_prepare_delete,
			.arg = fc,
			.max_units = (uint64_t)ep_param_int(run, "files"),
		};
		int rc;

		fc->st = st;
		fc->bytes = bytes[i / 2];
		size_label(fc->bytes, fc->label, sizeof(fc->label));
		rc = ep_run_add_case(run, &c);
		if (rc)
			return rc;
	}
	return 0;
}

static void fs_teardown(void *state)
{
	struct fs_state *st = state;

	if (st->root[0]) {
		remove_files(st, 0);
		remove_dirs(st);
		rmdir(st->root);
	}
	free(st->names);
	free(st->data);
	free(st->cases);
}

/* The private directory below 'tmpdir'. */
static int make_root(struct ep_run *run, struct fs_state *st)
{
	char dir[EP_OS_PATH_MAX];
	int rc = ep_os_tmpdir(run, dir, sizeof(dir));

	if (rc)
		return rc;
	/* ep_os_tmpdir() keeps 64 bytes free: room for this and the pool's names. */
	if (snprintf(st->root, sizeof(st->root), "%s/embperf-fs-XXXXXX", dir) >=
	    (int)sizeof(st->root)) {
		st->root[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(st->root)) {
		int err = errno;

		st->root[0] = '\0';
		return ep_run_fail(run, -err, "parameter 'tmpdir': cannot make a directory in "
				   "'%s': %s", dir, strerror(err));
	}
	return 0;
}

static int fs_setup(struct ep_run *run, void **state)
{
	size_t bytes[FS_MAX_SIZES];
	struct fs_state *st = *state;
	int n = parse_sizes(run, bytes), rc;

	if (n < 0)
		return n;
	st->run = run;
	rc = make_root(run, st);
	if (!rc)
		rc = size_pool(run, st, bytes, n);
	if (!rc)
		rc = make_names(st);
	if (!rc)
		rc = add_cases(run, st, bytes, n);
	return rc;
}

/*
 * benchmp (lmbench3 lib_timing.c) first calibrates: it times a batch of n
 * units, starting at 1, and keeps n once a batch lasts 0.99 to 1.2 times
 * its window; otherwise it scales n to 1.1 windows from the batch's time,
 * or, below 150 us, a time too short to scale from, multiplies it by 8 (and
 * gives up past 2^27). Then, when the window is shorter than its SHORT (1 s),
 * it scales the calibrated n to last SHORT (+1), and times that count.
 */
#define LMB_KEEP_LO 0.99
#define LMB_KEEP_HI 1.2
#define LMB_AIM 1.1
#define LMB_SCALE_FROM_US 150.0
#define LMB_MAX_UNITS (1ULL << 27)
#define LMB_SHORT_US 1e6

/* benchmp's calibration: the count it keeps for @window_us; 0: it gives up. */
static uint64_t lmbench_calibrate(double unit_us, double window_us)
{
	uint64_t n = 1;

	/* Past the first scaling n stays (the time is linear); a bound all the same. */
	for (int step = 0; step < 64; step++) {
		double batch_us = (double)n * unit_us;
		uint64_t next;

		if (batch_us >= LMB_KEEP_LO * window_us && batch_us <= LMB_KEEP_HI * window_us)
			return n;
		if (batch_us > LMB_SCALE_FROM_US)
			next = (uint64_t)((double)n / batch_us * LMB_AIM * window_us + 1.0);
		else
			next = n << 3;
		if (next > LMB_MAX_UNITS)
			return 0;
		if (next == n)
			return n; /* the window holds no whole count: benchmp keeps n */
		n = next;
	}
	return n;
}

/* benchmp's search run on units of @unit_ns (see os_files.h). */
uint64_t ep_os_lmbench_batch(double unit_ns, double window_ns)
{
	double unit_us = unit_ns / 1e3, window_us = window_ns / 1e3;
	uint64_t n;

	if (!(unit_us > 0.0) || !(window_us > 0.0))
		return 0;
	n = lmbench_calibrate(unit_us, window_us);
	if (!n || window_us >= LMB_SHORT_US)
		return n;
	/* SHORT x n / (n x unit): the calibrated batch's rate over SHORT. */
	return (uint64_t)(LMB_SHORT_US / unit_us) + 1;
}

/* finish: lat_fs's num_files, from the median create rate. */
static int fs_finish(struct ep_run *run, void *state)
{
	struct fs_state *st = state;
	double window_ns = (double)ep_param_int(run, "enough");

	for (int i = 0; i < st->n_cases; i += 2) {
		const struct embperf_result *res =
			ep_run_find_result(run, METRIC_CREATE, st->cases[i].label);
		double rate = res ? embperf_result_value(res) : 0.0;
		uint64_t files = rate > 0.0 ? ep_os_lmbench_batch(1e9 / rate, window_ns) : 0;
		int rc;

		if (!files)
			continue;
		rc = ep_run_add_value(run, METRIC_NUM_FILES, st->cases[i].label, (double)files);
		if (rc)
			return rc;
	}
	return 0;
}

const struct ep_kernel ep_kernel_os_fs = {
	.name = "os.fs",
	.summary = "file create and delete rates at several file sizes (lmbench lat_fs)",
	EP_PARAMS(fs_params),
	EP_METRICS(fs_metrics),
	.engine_defaults = fs_defaults,
	.setup = fs_setup,
	.finish = fs_finish,
	.teardown = fs_teardown,
	.state_bytes = sizeof(struct fs_state),
	.cpu_bound = 1,
};
