/* SPDX-License-Identifier: MIT */
/*
 * mtd_dev.h - how blk.mtd reaches a flash: a small set of operations, the
 * kernel MTD interface in mtd_dev.c (<mtd/mtd-user.h> ioctls on /dev/mtdN,
 * discovery under /sys/class/mtd), and an in-memory flash in the tests.
 */
#ifndef EMBPERF_BLK_MTD_DEV_H
#define EMBPERF_BLK_MTD_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * struct blk_mtd_info - what blk.mtd needs to know of a flash.
 * @name:       the MTD's name ("NAND simulator partition 0").
 * @type:       "nand", "nor", "ram", "mlc-nand", ... (sysfs 'type').
 * @size_bytes: whole device.
 * @eb_bytes:   eraseblock size.
 * @page_bytes: smallest write unit (NAND page; 1 on NOR and RAM).
 * @has_bad:    the flash can have bad blocks (MEMGETBADBLOCK answers).
 * @index:      N of mtdN, -1 when unknown.
 */
struct blk_mtd_info {
	char name[128];
	char type[32];
	uint64_t size_bytes;
	uint64_t eb_bytes;
	uint64_t page_bytes;
	int has_bad;
	int index;
};

/**
 * struct blk_mtd_ops - the operations on a flash. Each returns 0 (or a
 * count) or a negative errno, and names what failed in @why where it has one.
 * @open:    open @path, fill @info; *@dev receives the handle.
 * @in_use:  1 when the device is mounted, attached to UBI or otherwise in
 *           use (what in @why, of @why_size), 0 when free, or a negative errno.
 * @is_bad:  1 when the eraseblock at @off_bytes is bad, 0 when good.
 * @erase:   erase @len_bytes from @off_bytes (whole eraseblocks).
 * @read:    read @len bytes at @off_bytes into @buf; the count read.
 * @write:   write @len bytes at @off_bytes; the count written.
 * @close:   release the handle (NULL: nothing).
 */
struct blk_mtd_ops {
	int (*open)(const char *path, void **dev, struct blk_mtd_info *info, char *why,
		    size_t why_size);
	int (*in_use)(void *dev, char *why, size_t why_size);
	int (*is_bad)(void *dev, uint64_t off_bytes);
	int (*erase)(void *dev, uint64_t off_bytes, uint64_t len_bytes);
	ssize_t (*read)(void *dev, void *buf, size_t len, uint64_t off_bytes);
	ssize_t (*write)(void *dev, const void *buf, size_t len, uint64_t off_bytes);
	void (*close)(void *dev);
};

/* The kernel MTD interface. */
extern const struct blk_mtd_ops blk_mtd_kernel_ops;

/* The operations blk.mtd uses: &blk_mtd_kernel_ops; tests point it at a fake flash. */
extern const struct blk_mtd_ops *ep_blk_mtd_ops;

#endif /* EMBPERF_BLK_MTD_DEV_H */
