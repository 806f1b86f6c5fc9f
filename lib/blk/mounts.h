/* SPDX-License-Identifier: MIT */
/*
 * mounts.h - the mount table as the block kernels need it: which file
 * system a folder is on (blk.fs's labels and remount), and whether a device
 * is mounted (blk.mtd's refusal). Read from /proc/self/mountinfo.
 */
#ifndef EMBPERF_BLK_MOUNTS_H
#define EMBPERF_BLK_MOUNTS_H

#include <stddef.h>

#define BLK_MNT_PATH_MAX 4096
#define BLK_MNT_OPTS_MAX 1024

/**
 * struct blk_mount - one line of /proc/self/mountinfo.
 * @devnum:     "MAJOR:MINOR" of the mounted device (0:N for virtual ones).
 * @point:      mount point (unescaped).
 * @fstype:     file system type ("ext4", "vfat", "ubifs", "tmpfs").
 * @source:     mount source ("/dev/mmcblk1p1", "ubi0:rootfs", "tmpfs").
 * @opts:       per-mount options ("rw,relatime").
 * @super_opts: the file system's own options ("rw,errors=remount-ro").
 */
struct blk_mount {
	char devnum[24];
	char point[BLK_MNT_PATH_MAX];
	char fstype[64];
	char source[BLK_MNT_PATH_MAX];
	char opts[BLK_MNT_OPTS_MAX];
	char super_opts[BLK_MNT_OPTS_MAX];
};

/**
 * blk_mount_of() - the mount a path is on: the last-mounted entry whose
 * mount point is the longest prefix (by path components) of its real path.
 * @path: an existing file or folder.
 * @m:    receives the entry.
 * Return: 0, or a negative errno (realpath() or /proc unreadable; -ENOENT
 * when no entry matched).
 */
int blk_mount_of(const char *path, struct blk_mount *m);

/**
 * blk_mount_by_source() - the first mount whose source is @source.
 * @m: receives it; may be NULL.
 * Return: 1 when found, 0 when not, a negative errno when /proc cannot be read.
 */
int blk_mount_by_source(const char *source, struct blk_mount *m);

/**
 * blk_mount_by_devnum() - the first mount of the device "MAJOR:MINOR" @devnum.
 * @m: receives it; may be NULL.
 * Return: 1 when found, 0 when not, a negative errno when /proc cannot be read.
 */
int blk_mount_by_devnum(const char *devnum, struct blk_mount *m);

/**
 * blk_mount_flags() - mount(2) flags and data from @m's options, to mount
 * it again as it was: per-mount options become MS_* flags, the file
 * system's own options (less "rw"/"ro") the data string in @data.
 * Return: the MS_* flags.
 */
unsigned long blk_mount_flags(const struct blk_mount *m, char *data, size_t size);

#endif /* EMBPERF_BLK_MOUNTS_H */
