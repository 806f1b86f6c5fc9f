// SPDX-License-Identifier: MIT
/*
 * sysinfo.c - describe the system a report was measured on: CPU model,
 * CPU count, cache sizes (sysfs), memory, kernel, clock resolution.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "sysinfo.h"
#include "util.h"

#define SYSFS_CACHE "/sys/devices/system/cpu/cpu0/cache"

struct kv_list {
	struct ep_kv *kv;
	int n;
	int cap;
	int failed;
};

static void kv_add(struct kv_list *l, const char *key, const char *value)
{
	if (l->failed || !value || !*value)
		return;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 32;
		struct ep_kv *p = realloc(l->kv, (size_t)cap * sizeof(*p));

		if (!p) {
			l->failed = 1;
			return;
		}
		l->kv = p;
		l->cap = cap;
	}
	l->kv[l->n].key = ep_strdup(key);
	l->kv[l->n].value = ep_strdup(value);
	if (!l->kv[l->n].key || !l->kv[l->n].value) {
		free(l->kv[l->n].key);
		free(l->kv[l->n].value);
		l->failed = 1;
		return;
	}
	l->n++;
}

static void kv_add_u64(struct kv_list *l, const char *key, uint64_t value)
{
	char text[32];

	if (!value)
		return;
	snprintf(text, sizeof(text), "%" PRIu64, value);
	kv_add(l, key, text);
}

int ep_read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ok;

	buf[0] = '\0';
	if (!f)
		return -errno;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok) {
		buf[0] = '\0';
		return -ENODATA;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "48K" / "1024K" / "32M" from sysfs to bytes. */
static uint64_t parse_sysfs_size(const char *text)
{
	char *end;
	uint64_t v = strtoull(text, &end, 10);

	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default:  return v;
	}
}

/* Attribute @attr of cache @index in sysfs, as ep_read_first_line() reads it. */
static int read_cache_attr(int index, const char *attr, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), SYSFS_CACHE "/index%d/%s", index, attr);
	return ep_read_first_line(path, buf, size);
}

static void add_caches(struct kv_list *l)
{
	uint64_t line_bytes = 0;

	for (int i = 0; i < 16; i++) {
		char level[16], type[32], size[32], line[32], key[32];

		if (read_cache_attr(i, "level", level, sizeof(level)))
			break;
		if (read_cache_attr(i, "type", type, sizeof(type)) ||
		    read_cache_attr(i, "size", size, sizeof(size)))
			continue;
		/* "cache_l1i_bytes", "cache_l1d_bytes", "cache_l2_bytes" */
		snprintf(key, sizeof(key), "cache_l%s%s_bytes", level,
			 !strcmp(type, "Instruction") ? "i" : !strcmp(type, "Data") ? "d" : "");
		kv_add_u64(l, key, parse_sysfs_size(size));
		if (!line_bytes && !read_cache_attr(i, "coherency_line_size", line, sizeof(line)))
			line_bytes = strtoull(line, NULL, 10);
	}
	kv_add_u64(l, "cache_line_bytes", line_bytes);
}

/* The first "key : value" line of /proc/cpuinfo whose key is in @keys. */
static void add_cpuinfo(struct kv_list *l, const char *name, const char *const *keys)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		for (int i = 0; keys[i]; i++) {
			size_t klen = strlen(keys[i]);

			/* The key must be followed by blanks up to the colon only:
			 * "cpu" must not match "cpu family". */
			if (strncmp(line, keys[i], klen) ||
			    line + klen + strspn(line + klen, " \t") != colon)
				continue;
			colon += 1 + strspn(colon + 1, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			kv_add(l, name, colon);
			fclose(f);
			return;
		}
	}
	fclose(f);
}

uint64_t ep_meminfo_value(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	uint64_t kib = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			kib = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib;
}

/*
 * Kernels before 3.14 have no MemAvailable; MemFree + Buffers + Cached was
 * the estimate then (free(1)'s "free" column before it), a little generous
 * since not all of the cache can be dropped. Without /proc at all (a
 * minimal firmware image), sysinfo() still tells free and buffer RAM.
 */
uint64_t ep_mem_available(const char **source)
{
	static const char *const sources[] = {
		"MemAvailable in /proc/meminfo",
		"MemFree + Buffers + Cached in /proc/meminfo",
		"freeram + bufferram of sysinfo()",
	};
	uint64_t kib = ep_meminfo_value("MemAvailable");
	int from = 0;
	struct sysinfo si;

	if (!kib) {
		from = 1;
		kib = ep_meminfo_value("MemFree");
		if (kib)
			kib += ep_meminfo_value("Buffers") + ep_meminfo_value("Cached");
	}
	if (!kib && !sysinfo(&si) && si.mem_unit) {
		from = 2;
		kib = ((uint64_t)si.freeram + si.bufferram) * si.mem_unit / 1024;
	}
	if (source)
		*source = kib ? sources[from] : "";
	return kib * 1024;
}

uint64_t ep_mem_available_bytes(void)
{
	return ep_mem_available(NULL);
}

void ep_mem_format_bytes(uint64_t bytes, char *out, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < EP_ARRAY_SIZE(units)) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(out, size, "%" PRIu64 " bytes", bytes);
	else
		snprintf(out, size, "%.1f %s", v, units[u]);
}

/* The bracketed choice of a sysfs selector such as "always [madvise] never". */
static void add_bracketed(struct kv_list *l, const char *key, const char *path)
{
	char text[256], *open, *close;

	if (ep_read_first_line(path, text, sizeof(text)))
		return;
	open = strchr(text, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		kv_add(l, key, open + 1);
	} else {
		kv_add(l, key, text);
	}
}

static void add_os_release(struct kv_list *l)
{
	char line[256];
	FILE *f = fopen("/etc/os-release", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		char *v = line + 12;

		v[strcspn(v, "\n")] = '\0';
		if (*v == '"') {
			v++;
			v[strcspn(v, "\"")] = '\0';
		}
		kv_add(l, "os", v);
		break;
	}
	fclose(f);
}

int ep_sysinfo_collect(uint64_t clock_res_ns, struct ep_kv **out)
{
	static const char *const model_keys[] = { "model name", "Hardware", "Processor",
						   "cpu model", "cpu", NULL };
	struct kv_list l = { 0 };
	struct utsname uts;
	char text[256];

	add_cpuinfo(&l, "cpu_model", model_keys);
	kv_add_u64(&l, "cpus_online", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	kv_add_u64(&l, "cpus_configured", (uint64_t)sysconf(_SC_NPROCESSORS_CONF));
	if (!ep_read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", text, sizeof(text)))
		kv_add_u64(&l, "cpu_max_mhz", strtoull(text, NULL, 10) / 1000);
	add_bracketed(&l, "cpufreq_governor",
		      "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	add_caches(&l);
	kv_add_u64(&l, "mem_total_bytes", ep_meminfo_value("MemTotal") * 1024);
	kv_add_u64(&l, "page_size_bytes", (uint64_t)sysconf(_SC_PAGESIZE));
	add_bracketed(&l, "transparent_hugepage", "/sys/kernel/mm/transparent_hugepage/enabled");
	if (!uname(&uts)) {
		snprintf(text, sizeof(text), "%s %s", uts.sysname, uts.release);
		kv_add(&l, "kernel", text);
		kv_add(&l, "kernel_build", uts.version);
		kv_add(&l, "machine", uts.machine);
		kv_add(&l, "hostname", uts.nodename);
	}
	add_os_release(&l);
	kv_add_u64(&l, "clock_resolution_ns", clock_res_ns);
	kv_add(&l, "clock", "CLOCK_MONOTONIC_RAW");
	kv_add(&l, "library_version", EMBPERF_VERSION);
#ifdef __VERSION__
	kv_add(&l, "compiler", __VERSION__);
#endif
	if (l.failed) {
		ep_kv_free(l.kv, l.n);
		return -ENOMEM;
	}
	*out = l.kv;
	return l.n;
}

void ep_kv_free(struct ep_kv *kv, int n)
{
	for (int i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}
