// SPDX-License-Identifier: MIT
/*
 * profile.c - the board profile of `embperf guide`: what a board has (its
 * peer, network interface, a folder per medium and file system, raw
 * targets, audio device), the guide to run and its durations. A small text
 * file of "key = value" lines in sections (doc/cli.md, "Board profiles"):
 *
 *   board = AM62Px SK
 *   guide = ti-am62px
 *   [network]
 *   peer = 192.168.0.1
 *   [storage]
 *   emmc-ext4 = /run/media/mmcblk0p2
 *
 * Everything that can be checked is checked here, before anything runs,
 * and a refusal names the line.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "guide.h"

/* A profile is a page; a bigger file is something else. */
#define PROFILE_MAX_BYTES (64 * 1024)

/* The media and file systems a storage folder key may name: MEDIUM-FS. */
static const char *const media[] = { "emmc", "sd", "ospi", "qspi", "nand", "nor",
				     "usb", "sata", "nvme", "ram" };
static const char *const file_systems[] = { "ext4", "ext3", "ext2", "vfat", "exfat", "ubifs",
					    "jffs2", "f2fs", "xfs", "btrfs", "tmpfs" };

/**
 * struct key_info - a fixed key of a profile.
 * @section: its section.
 * @key:     its name.
 * @help:    what it holds, for messages.
 */
struct key_info {
	const char *section, *key, *help;
};

static const struct key_info keys[] = {
	{ "", "board", "the board's name, the guide's heading" },
	{ "", "guide", "the guide to run: a built-in one (ti-am62px, xilinx-lmbench, microblaze-netperf) or a guide file" },
	{ "", "durations", "short (seconds per row) or full (the guide's own durations, 60 s network trials)" },
	{ "network", "peer", "the host running `embperf serve`, or local" },
	{ "network", "interface", "the network interface under test (eth0)" },
	{ "audio", "device", "the ALSA PCM (hw:0,0, plughw:0,0)" },
	{ "storage", "destructive", "1: raw block devices may be written (their data is lost)" },
	{ "storage", "remount", "1: unmount and mount each folder before a read (root; the folders are mount points)" },
	{ "storage", "file_size", "the file size of the file system and raw rows (100M)" },
	{ "storage", "ubifs_file_size", "the file size of the UBIFS rows (8M: a flash volume is small and slow)" },
	{ "storage", "fio_file_size", "the file size of the fio rows (1G, as TI's fio runs)" },
};

static const char *const sections[] = { "", "network", "audio", "storage", "parameters" };


static int in_list(const char *word, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], word, len))
			return 1;
	return 0;
}

#define IN(word, len, list) in_list(word, len, list, sizeof(list) / sizeof(list[0]))

/* "emmc-ext4": a medium, '-', a file system. */
static int is_folder_key(const char *key)
{
	const char *dash = strchr(key, '-');

	return dash && IN(key, (size_t)(dash - key), media) &&
	       IN(dash + 1, strlen(dash + 1), file_systems);
}

/* "raw-sd": "raw-" and a medium. */
static int is_raw_key(const char *key)
{
	return !strncmp(key, "raw-", 4) && IN(key + 4, strlen(key + 4), media);
}

static const struct key_info *fixed_key(const char *key)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].key, key))
			return &keys[i];
	return NULL;
}

/* The section a key belongs to; NULL for no key of a profile. */
static const char *section_of(const char *key)
{
	const struct key_info *k = fixed_key(key);

	if (k)
		return k->section;
	if (is_folder_key(key) || is_raw_key(key))
		return "storage";
	return NULL;
}

/**
 * profile_lacks() - why a row cannot run without the profile key @name.
 * @name: the variable a guide's row names.
 * @buf:  receives "the profile names no peer ([network] peer = the host ...)".
 * @size: size of @buf.
 */
void profile_lacks(const char *name, char *buf, size_t size)
{
	const struct key_info *k = fixed_key(name);
	const char *section = section_of(name);

	if (k)
		snprintf(buf, size, "the profile names no %s ([%s] %s = %s)", name,
			 *k->section ? k->section : "top", name, k->help);
	else if (section && is_raw_key(name))
		snprintf(buf, size, "the profile names no %s ([storage] %s = a block device or file, with destructive = 1 for a device)",
			 name, name);
	else if (section)
		snprintf(buf, size, "the profile names no %s ([storage] %s = a folder on that medium and file system)",
			 name, name);
	else
		snprintf(buf, size, "no value for ${%s} (no profile key of that name)", name);
}

/* The keys of @section, for a refusal. */
static void keys_of(const char *section, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	if (!strcmp(section, "parameters")) {
		snprintf(buf, size, "any parameter of the guide's kernels (repetitions, duration, ...)");
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && used < size; i++)
		if (!strcmp(keys[i].section, section))
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
						 keys[i].key);
	if (!strcmp(section, "storage") && used < size)
		snprintf(buf + used, size - used,
			 ", MEDIUM-FS (a folder: emmc-ext4, sd-vfat, ospi-ubifs, ...), raw-MEDIUM (raw-sd, raw-ospi, ...)");
}

static char *trim(char *s)
{
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	return s;
}

static int add_item(struct profile *p, const char *section, const char *key, const char *value,
		    const char *where, char *err, size_t err_size)
{
	const char *belongs = !strcmp(section, "parameters") ? "parameters" : section_of(key);
	struct profile_item *item, *grown;
	char list[512];

	if (!belongs || strcmp(belongs, section)) {
		keys_of(section, list, sizeof(list));
		if (belongs)
			return suite_fail(err, err_size, -EBADMSG, "%s: key '%s' belongs in section [%s]",
				    where, key, *belongs ? belongs : "top (before any [section])");
		return suite_fail(err, err_size, -EBADMSG, "%s: unknown key '%s' in %s%s%s (accepted: %s)",
			    where, key, *section ? "[" : "the top", section, *section ? "]" : "",
			    list);
	}
	item = profile_find(p, key);
	if (item)
		return suite_fail(err, err_size, -EBADMSG, "%s: key '%s' is already given at %s", where,
			    key, item->where);
	grown = realloc(p->items, (size_t)(p->n_items + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->items = grown;
	item = &p->items[p->n_items++];
	*item = (struct profile_item){ .section = section, .key = key, .value = value };
	snprintf(item->where, sizeof(item->where), "%s", where);
	return 0;
}

/* "[network]": the section's name, or an error naming the line. */
static int parse_section(char *line, const char **section, const char *where, char *err,
			 size_t err_size)
{
	size_t len = strlen(line);

	line[len - 1] = '\0';
	line = trim(line + 1);
	for (size_t i = 1; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (!strcmp(line, sections[i])) {
			*section = sections[i];
			return 0;
		}
	}
	return suite_fail(err, err_size, -EBADMSG,
		    "%s: unknown section [%s] (accepted: [network], [audio], [storage], [parameters])",
		    where, line);
}

static int parse_lines(struct profile *p, char *err, size_t err_size)
{
	const char *section = "";
	char *line = p->text, where[160];
	int lineno = 0, ret = 0;

	while (line && !ret) {
		char *newline = strchr(line, '\n'), *eq, *s;

		if (newline)
			*newline = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", p->origin, lineno);
		s = trim(line);
		line = newline ? newline + 1 : NULL;
		if (!*s || *s == '#')
			continue;
		if (*s == '[' && s[strlen(s) - 1] == ']') {
			ret = parse_section(s, &section, where, err, err_size);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq || eq == s)
			return suite_fail(err, err_size, -EBADMSG,
				    "%s: expected 'key = value' or '[section]', got '%s'", where, s);
		*eq = '\0';
		ret = add_item(p, section, trim(s), trim(eq + 1), where, err, err_size);
	}
	return ret;
}

/* key=value operands: they replace the file's keys or add to them. */
static int add_operands(struct profile *p, char **operands, int n, char *err, size_t err_size)
{
	size_t total = 0;
	char *cursor;

	for (int i = 0; i < n; i++)
		total += strlen(operands[i]) + 1;
	p->owned = malloc(total + 1);
	if (!p->owned)
		return -ENOMEM;
	cursor = p->owned;
	for (int i = 0; i < n; i++) {
		char where[160], *eq, *key;
		const char *section;
		struct profile_item *old;
		int ret;

		snprintf(where, sizeof(where), "operand '%s'", operands[i]);
		strcpy(cursor, operands[i]);
		key = cursor;
		cursor += strlen(cursor) + 1;
		eq = strchr(key, '=');
		if (!eq || eq == key)
			return suite_fail(err, err_size, -EBADMSG, "%s: expected key=value", where);
		*eq = '\0';
		old = profile_find(p, key);
		if (old)
			old->key = ""; /* replaced: the operand wins */
		section = section_of(key);
		ret = add_item(p, section ? section : "parameters", key, eq + 1, where, err,
			       err_size);
		if (ret)
			return ret;
	}
	return 0;
}

/* Read @path (at most PROFILE_MAX_BYTES) into a NUL-terminated buffer. */
static int read_profile(const char *path, char **text, char *err, size_t err_size)
{
	char *buf = malloc(PROFILE_MAX_BYTES + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!buf || fd < 0) {
		int code = !buf ? -ENOMEM : -errno;

		free(buf);
		if (fd >= 0)
			close(fd);
		return suite_fail(err, err_size, code, "%s: %s", path, strerror(-code));
	}
	n = read(fd, buf, PROFILE_MAX_BYTES + 1);
	close(fd);
	if (n < 0 || n > PROFILE_MAX_BYTES || memchr(buf, '\0', (size_t)n)) {
		int code = n < 0 ? -errno : -EBADMSG;

		free(buf);
		return suite_fail(err, err_size, code, "%s: %s", path,
			    n < 0 ? strerror(-code) : "not a profile (larger than 64 KiB, or binary)");
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

/* Is the block device @dev, or one of its partitions, mounted? */
static int mounted(dev_t dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char parent[64], path[96];
		FILE *pf;

		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 || !maj)
			continue;
		if (makedev(maj, min) == dev) {
			found = 1;
			break;
		}
		/* A partition: its disk's dev is one folder up in sysfs. */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", maj, min);
		pf = fopen(path, "re");
		if (pf && fgets(parent, sizeof(parent), pf) &&
		    sscanf(parent, "%u:%u", &maj, &min) == 2 && makedev(maj, min) == dev)
			found = 1;
		if (pf)
			fclose(pf);
	}
	fclose(f);
	return found;
}

static int check_raw(const struct profile *p, const struct profile_item *it, char *err,
		     size_t err_size)
{
	struct stat st;

	if (stat(it->value, &st) < 0)
		return suite_fail(err, err_size, -EINVAL, "%s: %s = %s: %s", it->where, it->key, it->value,
			    strerror(errno));
	if (S_ISREG(st.st_mode))
		return 0;
	if (!S_ISBLK(st.st_mode))
		return suite_fail(err, err_size, -EINVAL,
			    "%s: %s = %s: neither a block device nor a file (a raw flash is read through its mtdblock device)",
			    it->where, it->key, it->value);
	if (mounted(st.st_rdev))
		return suite_fail(err, err_size, -EINVAL,
			    "%s: %s = %s: the device or one of its partitions is mounted; a raw target must not be (unmount it, or name a free device)",
			    it->where, it->key, it->value);
	if (strcmp(profile_value(p, "destructive", "0"), "1"))
		return suite_fail(err, err_size, -EINVAL,
			    "%s: %s = %s: a block device is written by the guide's raw rows, which destroys its data: add 'destructive = 1' to [storage] to allow it",
			    it->where, it->key, it->value);
	return 0;
}

static int check_value(const struct profile *p, const struct profile_item *it, char *err,
		       size_t err_size)
{
	struct stat st;
	char path[300];

	if (!*it->value)
		return suite_fail(err, err_size, -EINVAL, "%s: %s has no value", it->where, it->key);
	if (is_folder_key(it->key) && stat(it->value, &st) < 0)
		return suite_fail(err, err_size, -EINVAL, "%s: %s = %s: %s (a folder on that medium and file system)",
			    it->where, it->key, it->value, strerror(errno));
	if (is_folder_key(it->key) && !S_ISDIR(st.st_mode))
		return suite_fail(err, err_size, -EINVAL, "%s: %s = %s: not a folder", it->where, it->key,
			    it->value);
	if (is_raw_key(it->key))
		return check_raw(p, it, err, err_size);
	if (!strcmp(it->key, "interface")) {
		snprintf(path, sizeof(path), "/sys/class/net/%s", it->value);
		if (strchr(it->value, '/') || access(path, F_OK) < 0)
			return suite_fail(err, err_size, -EINVAL,
				    "%s: interface = %s: this host has no such network interface (see ip link)",
				    it->where, it->value);
	}
	if (!strcmp(it->key, "durations") && strcmp(it->value, "short") && strcmp(it->value, "full"))
		return suite_fail(err, err_size, -EINVAL, "%s: durations = %s: accepted: short, full",
			    it->where, it->value);
	if ((!strcmp(it->key, "destructive") || !strcmp(it->key, "remount")) &&
	    strcmp(it->value, "0") && strcmp(it->value, "1"))
		return suite_fail(err, err_size, -EINVAL, "%s: %s = %s: accepted: 0, 1", it->where,
			    it->key, it->value);
	return 0;
}

/**
 * profile_load() - read and check a board profile (see guide.h).
 * @arg:        path, or a built-in guide's name.
 * @operands:   key=value that add to or replace the file's.
 * @n_operands: their number.
 * @out:        receives the profile.
 * @err:        receives a message naming the line.
 * @err_size:   size of @err.
 *
 * Return: 0 or a negative errno.
 */
int profile_load(const char *arg, char **operands, int n_operands, struct profile **out,
		 char *err, size_t err_size)
{
	struct profile *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	p->origin = strdup(arg);
	if (!p->origin) {
		profile_free(p);
		return -ENOMEM;
	}
	/* A built-in guide's name with no such file: a profile saying only that. */
	if (access(arg, F_OK) < 0 && !strchr(arg, '/') && suite_builtin_text(arg)) {
		p->text = malloc(strlen(arg) + 16);
		if (p->text)
			sprintf(p->text, "guide = %s\n", arg);
		ret = p->text ? 0 : -ENOMEM;
	} else {
		ret = read_profile(arg, &p->text, err, err_size);
	}
	if (!ret)
		ret = parse_lines(p, err, err_size);
	if (!ret)
		ret = add_operands(p, operands, n_operands, err, err_size);
	for (int i = 0; !ret && i < p->n_items; i++)
		if (*p->items[i].key && strcmp(p->items[i].section, "parameters"))
			ret = check_value(p, &p->items[i], err, err_size);
	if (ret) {
		profile_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

/**
 * profile_find() - the item of a key.
 * @p:   profile.
 * @key: key.
 *
 * Return: the item, or NULL.
 */
struct profile_item *profile_find(const struct profile *p, const char *key)
{
	for (int i = 0; i < p->n_items; i++)
		if (!strcmp(p->items[i].key, key))
			return &p->items[i];
	return NULL;
}

/**
 * profile_value() - the value of a key.
 * @p:    profile.
 * @key:  key.
 * @dflt: what to return when the profile lacks it.
 *
 * Return: the value or @dflt.
 */
const char *profile_value(const struct profile *p, const char *key, const char *dflt)
{
	const struct profile_item *it = profile_find(p, key);

	return it && *it->value ? it->value : dflt;
}

/**
 * profile_free() - release a profile.
 * @p: profile, or NULL.
 */
void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->items);
	free(p->text);
	free(p->owned);
	free(p->origin);
	free(p);
}
