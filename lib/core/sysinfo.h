/* SPDX-License-Identifier: MIT */
/*
 * sysinfo.h - the system's description and its memory (sysinfo.c).
 */
#ifndef EMBPERF_CORE_SYSINFO_H
#define EMBPERF_CORE_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct ep_kv - one system information entry.
 */
struct ep_kv {
	char *key;
	char *value;
};

/**
 * ep_sysinfo_collect() - read the system description (CPU, caches, memory, kernel).
 * @clock_res_ns: the clock resolution to record.
 * @out:          receives a malloc'd array of entries (free with ep_kv_free()).
 * Return: number of entries, or -ENOMEM.
 */
int ep_sysinfo_collect(uint64_t clock_res_ns, struct ep_kv **out);

/** ep_kv_free() - free @n entries and the array. */
void ep_kv_free(struct ep_kv *kv, int n);

/**
 * ep_mem_available() - memory the system can give a run now.
 * @source: receives what the figure is ("MemAvailable in /proc/meminfo", or
 *          the estimate used where that is missing); may be NULL.
 *
 * MemAvailable of /proc/meminfo; on kernels without it MemFree + Buffers +
 * Cached; without /proc, sysinfo()'s free and buffer RAM.
 *
 * Return: bytes; 0 when the system does not tell.
 */
uint64_t ep_mem_available(const char **source);

/**
 * ep_read_first_line() - the first line of a small file (sysfs, procfs),
 * without its newline.
 * @path: the file.
 * @buf:  receives the line; "" when the file cannot be read or is empty.
 * @size: size of @buf (a longer line is cut).
 *
 * Return: 0, -errno when the file cannot be opened, -ENODATA when it is empty.
 */
int ep_read_first_line(const char *path, char *buf, size_t size);

/**
 * ep_meminfo_value() - the number of a "Key: N" line of /proc/meminfo.
 * @key: the key without its colon ("MemAvailable", "HugePages_Free").
 *
 * Return: N as written (the kB lines in KiB); 0 when the line or the file is
 * missing.
 */
uint64_t ep_meminfo_value(const char *key);

/** ep_mem_available_bytes() - ep_mem_available(NULL). */
uint64_t ep_mem_available_bytes(void);

/**
 * ep_mem_format_bytes() - a byte count for messages: "1.5 GiB", "512 KiB".
 * @bytes: the count.
 * @out:   destination.
 * @size:  size of @out.
 */
void ep_mem_format_bytes(uint64_t bytes, char *out, size_t size);

#endif /* EMBPERF_CORE_SYSINFO_H */
