/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers shared inside the library: strings, a growable
 * text buffer, and the canonical formatting of units.
 */
#ifndef EMBPERF_CORE_UTIL_H
#define EMBPERF_CORE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define EP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define EP_ERRMSG_MAX 512

/*
 * EP_UNTIMED - marks a function of a timed file (lib_sources, built -O2
 * whatever the build type: lib/meson.build) that runs outside every timed
 * loop: a kernel's setup, case preparation, finish and teardown, a result's
 * analysis. gcc builds a cold function for size, as the -Os part, and puts
 * it apart from the timed code; the timed functions' instructions stay
 * those of -O2 (doc/building.md, "Two kinds of code"). Never on a body, an
 * overhead loop, or a function a body calls.
 */
#define EP_UNTIMED __attribute__((cold))

/** ep_strdup() - strdup that accepts NULL (gives ""). Return: NULL on ENOMEM. */
char *ep_strdup(const char *s);

/** ep_asprintf() - allocate a formatted string. Return: NULL on ENOMEM. */
char *ep_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * ep_say() - write the message of a failure into a caller's buffer, for
 * the functions that take an error buffer and its size.
 * @err:      receives the message; NULL (or @err_size 0): none is written.
 * @err_size: bytes of @err.
 * @rc:       what to return.
 * @fmt:      printf format of the message.
 * Return: @rc.
 */
int ep_say(char *err, size_t err_size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * struct ep_buf - growable NUL-terminated text.
 * @data: the text ("" after init); @len: its length; @cap: bytes allocated;
 * @failed: set once an allocation failed (later appends are ignored).
 */
struct ep_buf {
	char *data;
	size_t len;
	size_t cap;
	int failed;
};

void ep_buf_init(struct ep_buf *b);
void ep_buf_free(struct ep_buf *b);
/** ep_buf_printf() - append formatted text. */
void ep_buf_printf(struct ep_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** ep_buf_append() - append @n bytes of @s. */
void ep_buf_append(struct ep_buf *b, const char *s, size_t n);
/** ep_buf_take() - hand the text to the caller (free()), or NULL if an allocation failed. */
char *ep_buf_take(struct ep_buf *b);

/**
 * ep_strerror() - the text of errno @err (either sign) in @buf, thread-safe.
 *
 * glibc's strerror_r() with _GNU_SOURCE returns the text, the POSIX one
 * (musl's, and glibc's without _GNU_SOURCE) an error code: this is either.
 *
 * Return: the text, in @buf or static.
 */
const char *ep_strerror(int err, char *buf, size_t size);

/**
 * ep_format_size() - canonical text of a byte count: the largest binary
 * suffix that divides it exactly ("64M", "1536k", "100").
 */
void ep_format_size(int64_t bytes, char *buf, size_t size);

/** ep_format_duration() - canonical text of nanoseconds: "5ms", "1500us", "2s", "0". */
void ep_format_duration(int64_t ns, char *buf, size_t size);

/** ep_format_double() - shortest text that reads back to the same double ("%.17g" at most). */
void ep_format_double(double v, char *buf, size_t size);

/**
 * ep_bit_reverse() - @j with its lowest @bits bits in reverse order: the
 * order in which lmbench's par_mem and line visit the lines of a page, so
 * that consecutive loads land far apart and no prefetcher follows them.
 */
size_t ep_bit_reverse(size_t j, unsigned int bits);

/**
 * struct ep_pairs - key=value pairs parsed from one line.
 * @keys, @values: @n strings each, malloc'd.
 */
struct ep_pairs {
	char **keys;
	char **values;
	size_t n;
};

/**
 * ep_pairs_parse() - split "k=v k=\"a b\" ..." into pairs. A value that holds
 * a space, a quote or a backslash is written in double quotes with \" and
 * \\ escaped (ep_pairs_append_value() writes it so); a bare word without '='
 * is a key with an empty value.
 * Return: 0 or -ENOMEM (@kv is then empty).
 */
int ep_pairs_parse(const char *line, struct ep_pairs *kv);

/** ep_pairs_free() - free the pairs; @kv becomes empty. */
void ep_pairs_free(struct ep_pairs *kv);

/** ep_pairs_append_value() - append @value to @b, quoted when ep_pairs_parse() needs it. */
void ep_pairs_append_value(struct ep_buf *b, const char *value);

#endif /* EMBPERF_CORE_UTIL_H */
