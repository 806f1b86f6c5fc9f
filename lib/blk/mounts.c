// SPDX-License-Identifier: MIT
/*
 * mounts.c - /proc/self/mountinfo for the block kernels (mounts.h).
 *
 * A line is: ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER_OPTS (proc(5)); white space and backslashes in paths are
 * escaped as \ooo octal.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "lib/blk/mounts.h"

/* What scan_mounts() matches its key with. */
enum mount_key { BY_SOURCE, BY_DEVNUM, BY_PATH };

/** unescape() - copy @src into @dst (of @size), turning \ooo into its byte. */
static void unescape(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	while (*src && n + 1 < size) {
		if (src[0] == '\\' && src[1] >= '0' && src[1] <= '3' && src[2] >= '0' &&
		    src[2] <= '7' && src[3] >= '0' && src[3] <= '7') {
			dst[n++] = (char)((src[1] - '0') * 64 + (src[2] - '0') * 8 + (src[3] - '0'));
			src += 4;
		} else {
			dst[n++] = *src++;
		}
	}
	dst[n] = '\0';
}

/**
 * parse_line() - one mountinfo line into @m.
 * Return: 0, or -EINVAL for a line of another shape.
 */
static int parse_line(char *line, struct blk_mount *m)
{
	char *save = NULL, *tok[6] = { 0 }, *t, *fstype, *source, *super_opts;
	int i = 0;

	line[strcspn(line, "\n")] = '\0';
	for (t = strtok_r(line, " ", &save); t && i < 6; t = strtok_r(NULL, " ", &save))
		tok[i++] = t;
	if (i < 6)
		return -EINVAL;
	snprintf(m->devnum, sizeof(m->devnum), "%s", tok[2]);
	unescape(m->point, sizeof(m->point), tok[4]);
	snprintf(m->opts, sizeof(m->opts), "%s", tok[5]);
	while (t && strcmp(t, "-")) /* optional fields end at "-" */
		t = strtok_r(NULL, " ", &save);
	if (!t)
		return -EINVAL;
	fstype = strtok_r(NULL, " ", &save);
	source = strtok_r(NULL, " ", &save);
	super_opts = strtok_r(NULL, " ", &save);
	if (!super_opts)
		return -EINVAL;
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	unescape(m->source, sizeof(m->source), source);
	snprintf(m->super_opts, sizeof(m->super_opts), "%s", super_opts);
	return 0;
}

/** prefix_len() - length of mount point @point when it holds @path, else -1. */
static long prefix_len(const char *point, const char *path)
{
	size_t n = strlen(point);

	if (!strcmp(point, "/"))
		return 1;
	if (strncmp(point, path, n) || (path[n] != '/' && path[n] != '\0'))
		return -1;
	return (long)n;
}

/**
 * scan_mounts() - the mount that @key names: by source or device number
 * (the first such line), or by a path it holds (the last line whose mount
 * point is the longest prefix: later lines are mounted over earlier ones).
 * @m: receives it; may be NULL.
 * Return: 1 when found, 0 when not, a negative errno when /proc cannot be read.
 */
static int scan_mounts(const char *key, enum mount_key by, struct blk_mount *m)
{
	char *line = NULL;
	size_t cap = 0;
	long best = -1;
	struct blk_mount *cur = malloc(sizeof(*cur));
	FILE *f;

	if (!cur)
		return -ENOMEM;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		free(cur);
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		long n;

		if (parse_line(line, cur))
			continue;
		if (by == BY_PATH)
			n = prefix_len(cur->point, key);
		else
			n = strcmp(by == BY_DEVNUM ? cur->devnum : cur->source, key) ? -1 : 0;
		if (n < 0 || n < best)
			continue;
		best = n;
		if (m)
			*m = *cur;
		if (by != BY_PATH)
			break;
	}
	free(line);
	free(cur);
	fclose(f);
	return best >= 0;
}

/** blk_mount_of() - the mount a path is on. */
int blk_mount_of(const char *path, struct blk_mount *m)
{
	char real[PATH_MAX];
	int rc;

	if (!realpath(path, real))
		return -errno;
	rc = scan_mounts(real, BY_PATH, m);
	if (!rc)
		return -ENOENT; /* no mount point holds it */
	return rc < 0 ? rc : 0;
}

/** blk_mount_by_source() - the first mount whose source is @source. */
int blk_mount_by_source(const char *source, struct blk_mount *m)
{
	return scan_mounts(source, BY_SOURCE, m);
}

/** blk_mount_by_devnum() - the first mount of the device @devnum. */
int blk_mount_by_devnum(const char *devnum, struct blk_mount *m)
{
	return scan_mounts(devnum, BY_DEVNUM, m);
}

/** blk_mount_flags() - mount(2) flags and data to mount @m again as it was. */
unsigned long blk_mount_flags(const struct blk_mount *m, char *data, size_t size)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} flags[] = {
		{ "ro", MS_RDONLY }, { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV },
		{ "noexec", MS_NOEXEC }, { "sync", MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC },
		{ "noatime", MS_NOATIME }, { "nodiratime", MS_NODIRATIME },
		{ "relatime", MS_RELATIME }, { "strictatime", MS_STRICTATIME },
	};
	char opts[BLK_MNT_OPTS_MAX], *save = NULL, *t;
	unsigned long out = 0;
	size_t n = 0;

	snprintf(opts, sizeof(opts), "%s", m->opts);
	for (t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (!strcmp(t, flags[i].name))
				out |= flags[i].flag;
	snprintf(opts, sizeof(opts), "%s", m->super_opts);
	data[0] = '\0';
	for (t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "rw") || !strcmp(t, "ro") || n + strlen(t) + 2 > size)
			continue;
		n += (size_t)snprintf(data + n, size - n, "%s%s", n ? "," : "", t);
	}
	return out;
}
