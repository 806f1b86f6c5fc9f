// SPDX-License-Identifier: MIT
/*
 * mtd_dev.c - the kernel MTD interface behind blk.mtd (mtd_dev.h).
 *
 * A target is /dev/mtdN (or "mtdN"): a character device whose numbers
 * match /sys/class/mtd/mtdN/dev, the way libmtd recognises one; its name,
 * type and geometry come from that sysfs folder and are checked against
 * the MEMGETINFO ioctl. Erase is MEMERASE64, bad blocks MEMGETBADBLOCK,
 * reads and writes pread()/pwrite() on the character device. Own code on
 * the kernel's UAPI (<mtd/mtd-user.h>): Debian's libmtd is a static,
 * non-PIC archive and cannot go into a shared library.
 */
#include <errno.h>
#include <fcntl.h>
#include <mtd/mtd-user.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/blk/mounts.h"
#include "lib/blk/mtd_dev.h"
#include "lib/core/sysinfo.h"
#include "lib/core/util.h"

#define MTD_SYSFS "/sys/class/mtd"

/** struct mtd_kdev - an open MTD character device. */
struct mtd_kdev {
	int fd;
	int index;
	char name[128];
};

/**
 * sysfs_text() - the first line of /sys/class/mtd/mtdN/@attr into @buf.
 * Return: 0 or a negative errno.
 */
static int sysfs_text(int index, const char *attr, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), MTD_SYSFS "/mtd%d/%s", index, attr);
	return ep_read_first_line(path, buf, size);
}

/**
 * mtd_index() - N of the MTD character device @path: its numbers must be
 * those /sys/class/mtd/mtdN/dev gives.
 * Return: N, or a negative errno with @why set.
 */
static int mtd_index(const char *path, char *why, size_t why_size)
{
	struct stat st;
	char dev[32], want[32];
	int index;

	if (stat(path, &st))
		return ep_say(why, why_size, -errno, "%s", strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return ep_say(why, why_size, -EINVAL, "not a character device");
	if (access(MTD_SYSFS, F_OK))
		return ep_say(why, why_size, -ENODEV, "a character device, but this kernel has no "
			      "MTD support (no " MTD_SYSFS ")");
	index = (int)(minor(st.st_rdev) / 2); /* mtdN is minor 2N, mtdNro 2N + 1 */
	snprintf(want, sizeof(want), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (sysfs_text(index, "dev", dev, sizeof(dev)) || strcmp(dev, want))
		return ep_say(why, why_size, -EINVAL, "a character device that is not MTD (%s "
			      "matches no " MTD_SYSFS "/mtd*/dev)", want);
	return index;
}

/** read_info() - @info from sysfs, checked against MEMGETINFO. Return: 0 or -errno. */
static int read_info(struct mtd_kdev *d, struct blk_mtd_info *info, char *why, size_t why_size)
{
	struct mtd_info_user mi;
	loff_t zero = 0;
	char size[64];

	if (ioctl(d->fd, MEMGETINFO, &mi))
		return ep_say(why, why_size, -errno, "MEMGETINFO: %s", strerror(errno));
	memset(info, 0, sizeof(*info));
	info->index = d->index;
	sysfs_text(d->index, "name", info->name, sizeof(info->name));
	sysfs_text(d->index, "type", info->type, sizeof(info->type));
	info->size_bytes = sysfs_text(d->index, "size", size, sizeof(size)) ? 0 :
			   strtoull(size, NULL, 0);
	if (!info->size_bytes) /* MEMGETINFO's size is 32-bit */
		info->size_bytes = mi.size;
	info->eb_bytes = mi.erasesize;
	info->page_bytes = mi.writesize ? mi.writesize : 1;
	info->has_bad = ioctl(d->fd, MEMGETBADBLOCK, &zero) >= 0;
	snprintf(d->name, sizeof(d->name), "%s", info->name);
	return 0;
}

/** kopen() - open /dev/mtdN (or "mtdN") and read its geometry. */
static int kopen(const char *path, void **dev, struct blk_mtd_info *info, char *why,
		 size_t why_size)
{
	char full[64];
	struct mtd_kdev *d;
	int index, rc;

	if (!strchr(path, '/') && snprintf(full, sizeof(full), "/dev/%s", path) < (int)sizeof(full))
		path = full;
	index = mtd_index(path, why, why_size);
	if (index < 0)
		return index;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->index = index;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		rc = ep_say(why, why_size, -errno, "cannot open it for writing: %s",
			    strerror(errno));
	else
		rc = read_info(d, info, why, why_size);
	if (rc) {
		if (d->fd >= 0)
			close(d->fd);
		free(d);
		return rc;
	}
	*dev = d;
	return 0;
}

/** ubi_attached() - the UBI device mtdN is attached to, or -1. */
static int ubi_attached(int index)
{
	char path[128], buf[32];
	int found = -1;

	for (int u = 0; u < 32 && found < 0; u++) {
		snprintf(path, sizeof(path), "/sys/class/ubi/ubi%d/mtd_num", u);
		if (!ep_read_first_line(path, buf, sizeof(buf)) && atoi(buf) == index)
			found = u;
	}
	return found;
}

/** kin_use() - mounted (mtdblockN, mtdN, mtd:NAME) or attached to UBI. */
static int kin_use(void *dev, char *why, size_t why_size)
{
	struct mtd_kdev *d = dev;
	char src[4][192];
	struct blk_mount m;
	int ubi = ubi_attached(d->index);

	if (ubi >= 0) {
		snprintf(why, why_size, "attached to UBI as ubi%d", ubi);
		return 1;
	}
	snprintf(src[0], sizeof(src[0]), "/dev/mtdblock%d", d->index);
	snprintf(src[1], sizeof(src[1]), "mtd%d", d->index);
	snprintf(src[2], sizeof(src[2]), "mtd:%s", d->name);
	snprintf(src[3], sizeof(src[3]), "/dev/mtd%d", d->index);
	for (int i = 0; i < 4; i++) {
		int rc = blk_mount_by_source(src[i], &m);

		if (rc < 0)
			return rc;
		if (rc) {
			snprintf(why, why_size, "mounted as %s on %s (%s)", src[i], m.point,
				 m.fstype);
			return 1;
		}
	}
	return 0;
}

/** kis_bad() - MEMGETBADBLOCK; a flash without bad blocks answers EOPNOTSUPP: good. */
static int kis_bad(void *dev, uint64_t off_bytes)
{
	struct mtd_kdev *d = dev;
	loff_t off = (loff_t)off_bytes;
	int rc = ioctl(d->fd, MEMGETBADBLOCK, &off);

	if (rc < 0)
		return errno == EOPNOTSUPP ? 0 : -errno;
	return rc > 0;
}

/** kerase() - MEMERASE64 over whole eraseblocks. */
static int kerase(void *dev, uint64_t off_bytes, uint64_t len_bytes)
{
	struct mtd_kdev *d = dev;
	struct erase_info_user64 ei = { .start = off_bytes, .length = len_bytes };

	return ioctl(d->fd, MEMERASE64, &ei) ? -errno : 0;
}

/** kread() - pread() on the character device. */
static ssize_t kread(void *dev, void *buf, size_t len, uint64_t off_bytes)
{
	ssize_t n = pread(((struct mtd_kdev *)dev)->fd, buf, len, (off_t)off_bytes);

	return n < 0 ? -errno : n;
}

/** kwrite() - pwrite() on the character device. */
static ssize_t kwrite(void *dev, const void *buf, size_t len, uint64_t off_bytes)
{
	ssize_t n = pwrite(((struct mtd_kdev *)dev)->fd, buf, len, (off_t)off_bytes);

	return n < 0 ? -errno : n;
}

/** kclose() - close and free. */
static void kclose(void *dev)
{
	struct mtd_kdev *d = dev;

	if (!d)
		return;
	close(d->fd);
	free(d);
}

const struct blk_mtd_ops blk_mtd_kernel_ops = {
	.open = kopen,
	.in_use = kin_use,
	.is_bad = kis_bad,
	.erase = kerase,
	.read = kread,
	.write = kwrite,
	.close = kclose,
};

const struct blk_mtd_ops *ep_blk_mtd_ops = &blk_mtd_kernel_ops;
