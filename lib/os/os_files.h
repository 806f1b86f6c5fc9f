/* SPDX-License-Identifier: MIT */
/*
 * os_files.h - what the file and mapping kernels of lib/os share: the
 * 'tmpdir' parameter, temporary files that never outlive a run, the user's
 * 'file' parameter, and the word-summing read of lmbench's bandwidth tests.
 */
#ifndef EMBPERF_OS_FILES_H
#define EMBPERF_OS_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/run.h"

#define EP_OS_PATH_MAX 4096

/* Parameter descriptions every file kernel lists (same names, same help). */
#define EP_OS_PARAM_TMPDIR                                                              \
	{ "tmpdir", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",                              \
	  "directory for temporary files, removed when the run ends; empty: $TMPDIR or /tmp" }
#define EP_OS_PARAM_FILE(what)                                                          \
	{ "file", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",                                \
	  "existing file to " what " (at least 'size' bytes); empty: a temporary file in "  \
	  "'tmpdir'" }

/**
 * struct ep_os_file - a file a kernel reads or maps.
 * @fd:         open descriptor, or -1.
 * @path:       its name while the kernel needs one ("" once a temporary file
 *              is unlinked).
 * @temporary:  the kernel created it: ep_os_file_close() removes it.
 * @size_bytes: size of the file.
 */
struct ep_os_file {
	int fd;
	char path[EP_OS_PATH_MAX];
	int temporary;
	uint64_t size_bytes;
};

/**
 * ep_os_tmpdir() - the directory named by the 'tmpdir' parameter, checked.
 * @run:  run; its 'tmpdir' parameter is read and failures are described in it.
 * @dir:  receives the directory.
 * @size: room in @dir.
 *
 * An empty parameter means $TMPDIR, or /tmp when that is unset or empty.
 *
 * Return: 0; -ENOENT, -ENOTDIR, -EACCES or -ENAMETOOLONG with a message that
 * names 'tmpdir', the value and what is accepted.
 */
int ep_os_tmpdir(struct ep_run *run, char *dir, size_t size);

/**
 * ep_os_mkstemp() - create a new file, @prefix-XXXXXX, in the folder 'tmpdir'.
 * @run:    run receiving the message.
 * @dir:    the folder, as ep_os_tmpdir() gave it.
 * @prefix: the file's name before its random part ("embperf-select").
 * @path:   receives the file's path.
 * @size:   room in @path.
 *
 * Return: the new file's descriptor (read-write, O_CLOEXEC), or a negative
 * errno with a message naming 'tmpdir', the folder and what is accepted.
 */
int ep_os_mkstemp(struct ep_run *run, const char *dir, const char *prefix, char *path,
		  size_t size);

/**
 * ep_os_file_init() - mark a file as not open, so closing it is a no-op.
 * @f: file.
 */
void ep_os_file_init(struct ep_os_file *f);

/**
 * ep_os_file_open() - open the file a kernel works on: the 'file' parameter
 * when set, otherwise a new temporary file of @size_bytes in 'tmpdir'.
 * @run:        run (parameters 'file', 'tmpdir' and 'size'; error messages).
 * @prefix:     start of the temporary file's name ("embperf-mmap").
 * @size_bytes: bytes the kernel uses; a user's file must hold at least these.
 * @writable:   open for writing too (lat_mmap writes through its mapping).
 * @keep_name:  keep the temporary file's name until ep_os_file_close() (for
 *              kernels that open it again by name); otherwise it is unlinked
 *              at once and nothing can be left behind.
 * @f:          receives the open file.
 *
 * A temporary file is filled with data (not sparse, so reads and mappings
 * find real pages in the page cache) and fsync()ed, as lmbench's script
 * writes its file with lmdd fsync=1: later writeback cannot disturb samples.
 *
 * A @size_bytes beyond the memory available is refused first
 * (ep_mem_check_fits(), parameter 'size'): these kernels measure pages in
 * the page cache, and such a file would be read from the disk.
 *
 * Return: 0; a negative errno with a message naming 'file', 'tmpdir' or
 * 'size' (-ENOMEM: more than the memory available). On failure nothing is
 * left open or on disk.
 */
int ep_os_file_open(struct ep_run *run, const char *prefix, uint64_t size_bytes, int writable,
		    int keep_name, struct ep_os_file *f);

/**
 * ep_os_file_close() - close the file; remove it if it is a temporary one.
 * @f: file; left closed. Closing twice is harmless.
 */
void ep_os_file_close(struct ep_os_file *f);

/**
 * ep_os_sum_words() - read a buffer by adding up its 8-byte words.
 * @buf:   start, 8-byte aligned.
 * @bytes: length; a tail shorter than a word is not read.
 *
 * The read of lmbench's bw_file_rd and bw_mmap_rd: one serial chain of
 * additions per 1 KiB block, never vectorised, so the rate is that of a
 * program consuming the data word by word as the original measures it.
 *
 * Return: the sum (only so the reads cannot be optimised away).
 */
uint64_t ep_os_sum_words(const void *buf, size_t bytes);

/**
 * ep_os_lmbench_batch() - the units lmbench's benchmp times in one batch
 * (os_fs.c).
 * @unit_ns:   time of one unit (1e9 / the rate).
 * @window_ns: benchmp's timing window, lmbench's 'enough'.
 *
 * benchmp's search run on units that each take @unit_ns: the count a run
 * of lmbench settles on, and prints where it prints one (lat_fs's second
 * column): about the units of one second, whatever the window, unless the
 * window is 1 s or more. Its overhead corrections (a clock read, a loop)
 * and its whole-microsecond clock are left out.
 *
 * Return: the count; 0 when @unit_ns or @window_ns is not positive, or when
 * benchmp would give up (units too short to fill the window with 2^27).
 */
uint64_t ep_os_lmbench_batch(double unit_ns, double window_ns);

/**
 * ep_os_random_order() - the numbers 0 to @n - 1 in a random order
 * (Fisher-Yates), the same for the same @seed (splitmix64 draws).
 * @order: set to the order, to free().
 * @n:     how many; at least 1.
 * @seed:  the generator's start.
 *
 * Return: 0, or -ENOMEM.
 */
int ep_os_random_order(size_t **order, size_t n, uint64_t seed);

#endif /* EMBPERF_OS_FILES_H */
