// SPDX-License-Identifier: MIT
/*
 * blk_io.c - blk.io: a fio-like job on a file or a block device, as a
 * trial kernel (doc/methodology-blk.md).
 *
 * The target is a folder (a file is created in it with O_EXCL and removed
 * on every exit path unless keep=1), an existing regular file, or a block
 * device (only with destructive=1, never a mounted one). Threads ('jobs')
 * each work on their own region of 'size' / jobs bytes. Read jobs on a file
 * the kernel created find it laid out with the verify pattern before the
 * first trial (not timed). This file reads and checks the parameters and
 * opens the target; job.c does the I/O.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/blk/job.h"
#include "lib/blk/mounts.h"
#include "lib/core/sysinfo.h"
#include "lib/core/util.h"

#define BLK_MAX_BS (64LL << 20)
#define BLK_MAX_SIZE (1LL << 50)

/* One copy of what 'target' accepts, for the three messages that say it. */
static const char blk_accepted_target[] = "accepted: a folder (a file is created in it), an "
	"existing regular file, or a block device with destructive=1";

enum { M_BANDWIDTH, M_IOPS, M_LATENCY, M_SHORT_IOS, M_FSYNCS, M_CPU_PROCESS, M_CPU_SYSTEM };

static const struct ep_param_desc blk_params[] = {
	{ "target", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "folder (a file is created in it and removed), existing regular file, or block device "
	  "(destructive=1)" },
	{ "rw", EP_PT_ENUM, "read", { { 0, 0 } }, "read|write|randread|randwrite|rw|randrw", "",
	  "sequential or random reads, writes, or a mix (fio's rw)" },
	{ "rwmix", EP_PT_INT, "50", { { 0, 100 } }, NULL, "%",
	  "rw, randrw: percentage of reads (fio's rwmixread)" },
	{ "bs", EP_PT_SIZE, "4k", { { 1, BLK_MAX_BS } }, NULL, "bytes", "bytes per I/O" },
	{ "size", EP_PT_SIZE, "16M", { { 1, BLK_MAX_SIZE } }, NULL, "bytes",
	  "file size, or the span of the device used; shared between the jobs" },
	{ "direct", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "", "O_DIRECT (bypass the page cache)" },
	{ "sync", EP_PT_STRING, "none", { { 0, 0 } }, NULL, "",
	  "none, end (fsync when a job ends), every:N (fsync every N writes), dsync (O_DSYNC)" },
	{ "engine", EP_PT_ENUM, "psync", { { 0, 0 } }, "psync|io_uring", "",
	  "psync (pread/pwrite, one I/O at a time) or io_uring (liburing; 'iodepth' in flight)" },
	{ "iodepth", EP_PT_INT, "1", { { 1, 1024 } }, NULL, "",
	  "I/Os in flight per job (fio's iodepth); above 1 needs engine=io_uring" },
	{ "iodepth_batch", EP_PT_INT, "1", { { 0, 1024 } }, NULL, "",
	  "I/Os per io_uring submission (fio's iodepth_batch_submit)" },
	{ "hugepages", EP_PT_ENUM, "off", { { 0, 0 } }, "off|thp|on", "",
	  "I/O buffers: off (base pages where the allocator puts them, fio's mem=malloc), thp "
	  "(transparent huge pages) or on (reserved huge pages, fio's mem=shmhuge)" },
	{ "scramble", EP_PT_ENUM, "fio", { { 0, 0 } }, "fio|sector|off", "",
	  "what each write's block gets before it is written: fio (fio's default scramble_buffers: "
	  "every 512-byte sector's offset and the time, up to two cache lines a sector), sector "
	  "(its offset only, one line), off (the same bytes every time, fio's scramble_buffers=0)" },
	{ "jobs", EP_PT_INT, "1", { { 1, BLK_MAX_JOBS } }, NULL, "",
	  "threads, each on its own region of size/jobs (fio's numjobs)" },
	{ "cache", EP_PT_ENUM, "drop", { { 0, 0 } }, "drop|keep", "",
	  "drop: posix_fadvise(DONTNEED) on the target before each trial (fio's invalidate=1)" },
	{ "verify", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "writes carry a pattern keyed by offset and seed; reads check it" },
	{ "seed", EP_PT_INT, "1", { { 0, INT64_MAX } }, NULL, "",
	  "seed of the verify pattern and of the random offsets" },
	{ "time_based", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "0: a job ends after 'size' bytes or 'duration'; 1: it wraps until 'duration'" },
	{ "keep", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "", "keep the file created in a folder" },
	{ "destructive", EP_PT_BOOL, "0", { { 0, 1 } }, NULL, "",
	  "allow a block device as target (write jobs overwrite it)" },
};

static const struct ep_metric_desc blk_metrics[] = {
	[M_BANDWIDTH] = { "bandwidth", "MB/s", EP_METRIC_TRIAL_MBPS, 1.0, EP_PRIMARY_MEDIAN, 1,
			  "bytes moved / measured time, MB = 10^6 bytes" },
	[M_IOPS] = { "iops", "IO/s", EP_METRIC_TRIAL_OPS, 1.0, EP_PRIMARY_MEDIAN, 1,
		     "completed I/Os of 'bs' per second, all jobs" },
	[M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN, 0,
			"completion latency of each I/O (fio's clat)" },
	[M_SHORT_IOS] = { "short_ios", "calls", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
			  0, "short reads and writes finished by another call, per trial" },
	[M_FSYNCS] = { "fsyncs", "calls", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
		       "fsync() calls of sync=every:N, per trial" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM(EP_CPU_SYSTEM_HELP),
};

static const char *const blk_counters[] = { [C_SHORT_IOS] = "short_ios", [C_FSYNCS] = "fsyncs" };

/**
 * read_sync() - 'sync' into job->sync and job->sync_every.
 * Return: 0, or -EINVAL naming the value and what is accepted.
 */
static int read_sync(struct ep_run *run, struct blk_job *job)
{
	const char *text = ep_param_text(run, "sync");
	char *end;

	if (!strcmp(text, "none") || !strcmp(text, "end") || !strcmp(text, "dsync")) {
		job->sync = !strcmp(text, "none") ? SYNC_NONE : !strcmp(text, "end") ? SYNC_END :
			    SYNC_DSYNC;
		return 0;
	}
	if (!strncmp(text, "every:", 6) && text[6] >= '1' && text[6] <= '9') {
		job->sync_every = strtoull(text + 6, &end, 10);
		job->sync = SYNC_EVERY;
		if (!*end)
			return 0;
	}
	return ep_run_refuse(run, -EINVAL, "sync", " is not a sync mode; accepted: none, end, "
			     "every:N (N >= 1), dsync");
}

/**
 * read_engine() - 'engine', 'iodepth' and 'iodepth_batch' (io_uring in a
 * build without it is refused by blk_uring_init(), naming 'engine').
 * Return: 0, or -EINVAL for iodepth > 1 with psync.
 */
static int read_engine(struct ep_run *run, struct blk_job *job)
{
	job->engine = (int)ep_param_int(run, "engine");
	job->iodepth = (int)ep_param_int(run, "iodepth");
	job->iodepth_batch = (int)ep_param_int(run, "iodepth_batch");
	if (!job->iodepth_batch || job->iodepth_batch > job->iodepth)
		job->iodepth_batch = job->iodepth; /* fio's reading of both */
	if (job->engine == ENGINE_PSYNC && job->iodepth > 1)
		return ep_run_refuse(run, -EINVAL, "iodepth", " needs engine=io_uring; accepted "
				     "with engine=psync: 1");
	return 0;
}

/**
 * read_sizes() - 'bs', 'size' and 'jobs': each job's region holds a block.
 * Return: 0, or -EINVAL naming the parameter.
 */
static int read_sizes(struct ep_run *run, struct blk_job *job)
{
	job->bs_bytes = (uint64_t)ep_param_int(run, "bs");
	job->size_bytes = (uint64_t)ep_param_int(run, "size");
	job->jobs = (int)ep_param_int(run, "jobs");
	if (job->bs_bytes > job->size_bytes)
		return ep_run_refuse(run, -EINVAL, "bs", " is above 'size' (%s); accepted: 1 byte "
				     ".. 'size'", ep_param_text(run, "size"));
	if (job->bs_bytes % 8)
		return ep_run_refuse(run, -EINVAL, "bs", " is not a multiple of 8 bytes; "
				     "accepted: multiples of 8");
	if (job->size_bytes / (uint64_t)job->jobs < job->bs_bytes)
		return ep_run_fail(run, -EINVAL, "parameter 'jobs': value '%d' leaves less than "
				   "'bs' per job of 'size'; accepted: 1..%llu", job->jobs,
				   (unsigned long long)(job->size_bytes / job->bs_bytes));
	return 0;
}

/** read_params() - every parameter but 'target' into @job. Return: 0 or an error. */
static int read_params(struct ep_run *run, struct blk_job *job)
{
	int rc;

	job->rw = (int)ep_param_int(run, "rw");
	job->rwmix_pct = (int)ep_param_int(run, "rwmix");
	job->direct = (int)ep_param_int(run, "direct");
	job->cache_drop = ep_param_int(run, "cache") == 0;
	job->verify = (int)ep_param_int(run, "verify");
	job->seed = (uint64_t)ep_param_int(run, "seed");
	job->time_based = (int)ep_param_int(run, "time_based");
	job->keep = (int)ep_param_int(run, "keep");
	job->hugepages = (int)ep_param_int(run, "hugepages");
	job->scramble = (int)ep_param_int(run, "scramble");
	rc = read_engine(run, job);
	if (!rc)
		rc = read_sync(run, job);
	if (!rc)
		rc = read_sizes(run, job);
	return rc;
}

/** open_flags() - open(2) flags for the job (O_DIRECT is set afterwards). */
static int open_flags(const struct blk_job *job)
{
	return (blk_job_writes(job) || !job->existing ? O_RDWR : O_RDONLY) | O_CLOEXEC |
	       (job->sync == SYNC_DSYNC ? O_DSYNC : 0);
}

/**
 * create_file() - a new file in folder @dir, O_EXCL, named embperf-blk.PID.N.
 * Return: 0, or an error naming 'target'.
 */
static int create_file(struct ep_run *run, struct blk_job *job, const char *dir)
{
	int rc = ep_disk_check_fits(run, "size", "target", dir, job->size_bytes);

	for (int n = 0; !rc && n < 100; n++) {
		if (snprintf(job->path, sizeof(job->path), "%s/embperf-blk.%d.%d", dir,
			     (int)getpid(), n) >= (int)sizeof(job->path))
			return ep_run_refuse(run, -ENAMETOOLONG, "target", " is too long");
		job->fd = open(job->path, open_flags(job) | O_CREAT | O_EXCL, 0600);
		if (job->fd >= 0) {
			job->created = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	if (rc)
		return rc;
	return ep_run_refuse(run, -errno, "target", ": cannot create a file in this folder: %s; "
			     "accepted: a folder this process may write to", strerror(errno));
}

/**
 * open_file() - an existing regular file: big enough for a read job, room
 * in its file system for the rest of 'size' for a write job (beyond the
 * blocks it already holds).
 * Return: 0, or an error naming 'target' or 'size'.
 */
static int open_file(struct ep_run *run, struct blk_job *job, const struct stat *st)
{
	uint64_t have_bytes = (uint64_t)st->st_blocks * 512;

	job->existing = 1;
	if (blk_job_reads(job) && !blk_job_writes(job) && (uint64_t)st->st_size < job->size_bytes)
		return ep_run_refuse(run, -EINVAL, "size", " is above the size of target '%s' "
				     "(%lld bytes); accepted: at most that for a read job",
				     job->path, (long long)st->st_size);
	job->fd = open(job->path, open_flags(job));
	if (job->fd < 0)
		return ep_run_refuse(run, -errno, "target", " cannot be opened %s: %s; "
				     "accepted: a file this process may %s",
				     blk_job_writes(job) ? "for writing" : "for reading",
				     strerror(errno), blk_job_writes(job) ? "write" : "read");
	if (!blk_job_writes(job) || have_bytes >= job->size_bytes)
		return 0;
	return ep_disk_check_fits(run, "size", "target", job->path, job->size_bytes - have_bytes);
}

/** sysfs_line() - the first line of the file @dir/@name/@attr into @buf. Return: 0 or -1. */
static int sysfs_line(const char *dir, const char *name, const char *attr, char *buf,
		      size_t size)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s/%s", dir, name, attr);
	return ep_read_first_line(path, buf, size) ? -1 : 0;
}

/** swap_on() - /dev/@name is an active swap area (/proc/swaps). */
static int swap_on(const char *name)
{
	char line[512], want[300];
	FILE *f = fopen("/proc/swaps", "re");
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "/dev/%s ", name);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

/**
 * part_in_use() - a partition of the whole disk @st is mounted, a swap
 * area, or held by another driver (dm, md). The exclusive open that
 * follows refuses such a disk too (Linux 6.1 does), but says only EBUSY:
 * this names the partition and where it is mounted.
 * @why: receives what, e.g. "its partition loop0p1 is mounted on /mnt (ext4)".
 * Return: 1 when one is in use, 0 when none is.
 */
static int part_in_use(const struct stat *st, char *why, size_t size)
{
	char dir[64], attr[64], devnum[32];
	struct blk_mount m;
	struct dirent *e;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(st->st_rdev), minor(st->st_rdev));
	d = opendir(dir);
	while (d && !found && (e = readdir(d))) {
		char holders[400];
		DIR *h;

		if (e->d_name[0] == '.' || sysfs_line(dir, e->d_name, "partition", attr,
						      sizeof(attr)))
			continue; /* not a partition */
		if (!sysfs_line(dir, e->d_name, "dev", devnum, sizeof(devnum)) &&
		    blk_mount_by_devnum(devnum, &m) == 1) {
			snprintf(why, size, "its partition %.64s is mounted on %.200s (%.32s)",
				 e->d_name, m.point, m.fstype);
			found = 1;
		} else if (swap_on(e->d_name)) {
			snprintf(why, size, "its partition %.64s is a swap area", e->d_name);
			found = 1;
		}
		snprintf(holders, sizeof(holders), "%s/%s/holders", dir, e->d_name);
		h = found ? NULL : opendir(holders);
		while (h && !found && (e = readdir(h)))
			if (e->d_name[0] != '.') {
				snprintf(why, size, "a partition is held by %.64s", e->d_name);
				found = 1;
			}
		if (h)
			closedir(h);
	}
	if (d)
		closedir(d);
	return found;
}

/**
 * open_bdev() - a block device: only with destructive=1, none of its
 * partitions in use, exclusively (a mounted device is busy), at least
 * 'size' long.
 * Return: 0, or an error naming 'destructive', 'target' or 'size'.
 */
static int open_bdev(struct ep_run *run, struct blk_job *job, const struct stat *st)
{
	uint64_t dev_bytes = 0;
	char why[400];

	job->existing = job->bdev = 1;
	if (!ep_param_int(run, "destructive"))
		return ep_run_fail(run, -EPERM, "parameter 'destructive': target '%s' is a block "
				   "device, used only with destructive=1 (write jobs overwrite "
				   "it); accepted: destructive=1, or a folder or regular file as "
				   "'target'", job->path);
	if (part_in_use(st, why, sizeof(why)))
		return ep_run_refuse(run, -EBUSY, "target", " is in use: %s; refused even with "
				     "destructive=1; accepted: a block device none of whose "
				     "partitions is mounted or in use", why);
	job->fd = open(job->path, open_flags(job) | O_EXCL);
	if (job->fd < 0)
		return ep_run_refuse(run, -errno, "target", " cannot be opened exclusively: "
				     "%s%s; accepted: an unmounted block device not in use",
				     strerror(errno), errno == EBUSY ? " (mounted or in use)" : "");
	if (ioctl(job->fd, BLKGETSIZE64, &dev_bytes) == 0 && dev_bytes < job->size_bytes)
		return ep_run_refuse(run, -EINVAL, "size", " is above the size of device '%s' "
				     "(%" PRIu64 " bytes); accepted: at most that", job->path,
				     dev_bytes);
	return 0;
}

/**
 * open_target() - 'target' by its type.
 * Return: 0, or an error naming 'target', the value and what is accepted.
 */
static int open_target(struct ep_run *run, struct blk_job *job)
{
	const char *text = ep_param_text(run, "target");
	struct stat st;

	if (!*text)
		return ep_run_fail(run, -EINVAL, "parameter 'target' is empty; %s",
				   blk_accepted_target);
	if (strlen(text) >= sizeof(job->path) - 32)
		return ep_run_fail(run, -ENAMETOOLONG, "parameter 'target': value is too long");
	if (stat(text, &st))
		return ep_run_refuse(run, -errno, "target", ": %s; %s", strerror(errno),
				     blk_accepted_target);
	if (S_ISDIR(st.st_mode))
		return create_file(run, job, text);
	strcpy(job->path, text);
	if (S_ISREG(st.st_mode))
		return open_file(run, job, &st);
	if (S_ISBLK(st.st_mode))
		return open_bdev(run, job, &st);
	return ep_run_refuse(run, -EINVAL, "target", " is a %s; %s",
			     S_ISCHR(st.st_mode) ? "character device" : "special file",
			     blk_accepted_target);
}

/**
 * dio_align() - the offset alignment O_DIRECT wants on the target:
 * statx(STATX_DIOALIGN), else the device's logical block size (BLKSSZGET),
 * else 512 (then an EINVAL from the first I/O still names it).
 * @how: receives where the figure came from.
 */
static uint64_t dio_align(const struct blk_job *job, const char **how)
{
	struct statx sx;
	int ssz = 0;

	if (!statx(job->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) &&
	    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
		*how = "statx dio_offset_align";
		return sx.stx_dio_offset_align;
	}
	if (job->bdev && !ioctl(job->fd, BLKSSZGET, &ssz) && ssz > 0) {
		*how = "BLKSSZGET logical block size";
		return (uint64_t)ssz;
	}
	*how = "assumed, the smallest logical block size";
	return 512;
}

/**
 * set_direct() - O_DIRECT on the open target, and 'bs' aligned for it.
 * Return: 0, or an error naming 'direct' or 'bs' and the alignment wanted.
 */
static int set_direct(struct ep_run *run, struct blk_job *job)
{
	const char *how = "";
	int fl;

	if (!job->direct)
		return 0;
	fl = fcntl(job->fd, F_GETFL);
	if (fl < 0 || fcntl(job->fd, F_SETFL, fl | O_DIRECT))
		return ep_run_fail(run, -errno, "parameter 'direct': value '1': the file system of "
				   "'%s' refuses O_DIRECT (%s); accepted: direct=0 there (ramfs and "
				   "tmpfs before Linux 6.6 have no direct I/O), or a target on a disk "
				   "file system or a block device", ep_param_text(run, "target"),
				   strerror(errno));
	job->align_bytes = dio_align(job, &how);
	if (job->bs_bytes % job->align_bytes)
		return ep_run_refuse(run, -EINVAL, "bs", " is not a multiple of %" PRIu64 " bytes, "
				     "the alignment O_DIRECT wants on '%s' (%s); accepted with "
				     "direct=1: multiples of %" PRIu64, job->align_bytes,
				     ep_param_text(run, "target"), how, job->align_bytes);
	return 0;
}

/**
 * log_buffer_runs() - say in how many physically contiguous runs the first
 * job's first block lies: a direct I/O of 'bs' takes a segment per run, and
 * a device with fewer segments per request (virtio-blk: 254) splits it, so
 * with hugepages=off the same job can move a third less from one process to
 * the next (doc/methodology-blk.md, "The I/O buffer").
 */
static void log_buffer_runs(struct blk_job *job)
{
	int runs = blk_buf_runs(job->workers[0].buf, (size_t)job->bs_bytes);

	if (runs > 0)
		ep_run_log(job->run, EMBPERF_LOG_INFO, "blk.io: a block of 'bs' in the buffer lies "
			   "in %d physically contiguous run%s of pages (hugepages=%s)", runs,
			   runs == 1 ? "" : "s", ep_param_text(job->run, "hugepages"));
}

/**
 * alloc_workers() - each job's region, generator and buffer, and with
 * engine=io_uring its ring. The buffers' total is checked against the
 * memory available first.
 * Return: 0, -ENOMEM, or the ring's error with the run's message.
 */
static int alloc_workers(struct blk_job *job)
{
	uint64_t region_bytes = job->size_bytes / (uint64_t)job->jobs / job->bs_bytes *
				job->bs_bytes;
	const char *param = job->iodepth > 1 ? "iodepth" : "bs";
	int rc = ep_mem_check_fits(job->run, param, ep_param_text(job->run, param),
				   job->bs_bytes * (uint64_t)job->iodepth * (uint64_t)job->jobs);

	for (int i = 0; !rc && i < job->jobs; i++) {
		struct blk_worker *w = &job->workers[i];

		w->job = job;
		w->lo_bytes = region_bytes * (uint64_t)i;
		w->n_blocks = region_bytes / job->bs_bytes;
		w->rng = (job->seed + 1) * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 7919 + 1;
		rc = blk_buf_alloc(w);
		if (!rc && job->engine == ENGINE_IO_URING)
			rc = blk_uring_init(w);
	}
	return rc;
}

/**
 * make_label() - "rw=randread bs=4k size=16M direct=1 jobs=1 sync=none
 * engine=psync", and " iodepth=N iodepth_batch=B" after engine=io_uring,
 * " hugepages=M" and " scramble=S" when not the default.
 */
static void make_label(struct ep_run *run, struct blk_job *job)
{
	int n = snprintf(job->label, sizeof(job->label), "rw=%s bs=%s size=%s direct=%d jobs=%d "
			 "sync=%s engine=%s", ep_param_text(run, "rw"), ep_param_text(run, "bs"),
			 ep_param_text(run, "size"), job->direct, job->jobs,
			 ep_param_text(run, "sync"), ep_param_text(run, "engine"));

	if (job->engine == ENGINE_IO_URING && n > 0 && (size_t)n < sizeof(job->label))
		n += snprintf(job->label + n, sizeof(job->label) - (size_t)n, " iodepth=%d "
			      "iodepth_batch=%d", job->iodepth, job->iodepth_batch);
	if (job->hugepages != EP_MEM_HUGE_OFF && n > 0 && (size_t)n < sizeof(job->label))
		n += snprintf(job->label + n, sizeof(job->label) - (size_t)n, " hugepages=%s",
			      ep_param_text(run, "hugepages"));
	if (job->scramble != SCRAMBLE_FIO && n > 0 && (size_t)n < sizeof(job->label))
		snprintf(job->label + n, sizeof(job->label) - (size_t)n, " scramble=%s",
			 ep_param_text(run, "scramble"));
}

/**
 * blk_prepare() - before the first trial (not timed): lay out a file the
 * kernel created for a job that reads; preallocate it to 'size' for one
 * that only writes, as fio does by default (fallocate=native): unwritten
 * extents, so the writes do not allocate blocks as they go. As under fio,
 * a file system without fallocate() (ramfs) or a failure is no error: the
 * writes then allocate, or fail naming what they hit.
 * Return: 0 or a negative errno with the run's message.
 */
static int blk_prepare(void *arg)
{
	struct blk_job *job = arg;

	if (job->created && blk_job_reads(job))
		return blk_layout(job);
	if (job->created && fallocate(job->fd, 0, 0, (off_t)job->size_bytes))
		ep_run_log(job->run, EMBPERF_LOG_DEBUG, "blk.io: fallocate: %s", strerror(errno));
	return 0;
}

/** blk_before_trial() - before each trial (not timed): cache=drop makes its reads cold. */
static int blk_before_trial(void *arg, int index)
{
	(void)index;
	blk_drop_cache(arg);
	return 0;
}

/** blk_teardown() - close the target, remove a created file unless keep=1, free the buffers. */
static void blk_teardown(void *state)
{
	struct blk_job *job = state;

	for (int i = 0; i < BLK_MAX_JOBS; i++)
		blk_uring_free(&job->workers[i]); /* before the descriptor it may hold */
	if (job->fd >= 0)
		close(job->fd);
	if (job->created && !job->keep)
		unlink(job->path);
	for (int i = 0; i < BLK_MAX_JOBS; i++)
		blk_buf_free(&job->workers[i]);
}

/** blk_setup() - read the parameters, open the target, add the trial case. */
static int blk_setup(struct ep_run *run, void **state)
{
	struct blk_job *job = *state;
	struct ep_trial_case tc = {
		.body = blk_body,
		.prepare = blk_prepare,
		.before_trial = blk_before_trial,
		.counters = blk_counters,
		.n_counters = (int)EP_ARRAY_SIZE(blk_counters),
	};
	int rc;

	job->fd = -1;
	job->run = run;
	rc = read_params(run, job);
	if (!rc)
		rc = open_target(run, job);
	if (!rc)
		rc = set_direct(run, job);
	if (!rc)
		rc = alloc_workers(job);
	if (rc)
		return rc;
	log_buffer_runs(job);
	if (job->created && job->keep)
		ep_run_log(run, EMBPERF_LOG_INFO, "blk.io: keep=1: the file is %s", job->path);
	make_label(run, job);
	tc.labels = job->label;
	tc.arg = job;
	return ep_run_add_trial(run, &tc);
}

static const struct ep_default blk_defaults[] = {
	{ "repetitions", "3" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_blk_io = {
	.name = "blk.io",
	.summary = "fio-like block I/O job on a file or block device: MB/s, IOPS, latency",
	EP_PARAMS(blk_params),
	EP_METRICS(blk_metrics),
	.engine_defaults = blk_defaults,
	.setup = blk_setup,
	.teardown = blk_teardown,
	.state_bytes = sizeof(struct blk_job),
	.trials = 1,
};
