// SPDX-License-Identifier: MIT
/*
 * util.c - strings, a growable buffer and canonical unit formatting.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

char *ep_strdup(const char *s)
{
	return strdup(s ? s : "");
}

char *ep_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : out;
}

void ep_buf_init(struct ep_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
}

void ep_buf_free(struct ep_buf *b)
{
	free(b->data);
	ep_buf_init(b);
}

/* Make room for @extra more bytes plus the NUL. */
static int ep_buf_reserve(struct ep_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->failed)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -ENOMEM;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void ep_buf_append(struct ep_buf *b, const char *s, size_t n)
{
	if (ep_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void ep_buf_vprintf(struct ep_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || ep_buf_reserve(b, (size_t)n))
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void ep_buf_printf(struct ep_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ep_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *ep_buf_take(struct ep_buf *b)
{
	char *p;

	if (b->failed) {
		ep_buf_free(b);
		return NULL;
	}
	if (!b->data && ep_buf_reserve(b, 0))
		return NULL;
	if (!b->len)
		b->data[0] = '\0';
	p = b->data;
	ep_buf_init(b);
	return p;
}

void ep_format_size(int64_t bytes, char *buf, size_t size)
{
	static const char suffix[] = { 'T', 'G', 'M', 'k' };
	static const int shift[] = { 40, 30, 20, 10 };

	for (size_t i = 0; i < EP_ARRAY_SIZE(suffix); i++) {
		int64_t unit = (int64_t)1 << shift[i];

		if (bytes != 0 && bytes % unit == 0) {
			snprintf(buf, size, "%" PRId64 "%c", bytes / unit, suffix[i]);
			return;
		}
	}
	snprintf(buf, size, "%" PRId64, bytes);
}

void ep_format_duration(int64_t ns, char *buf, size_t size)
{
	static const char *const suffix[] = { "s", "ms", "us" };
	static const int64_t unit[] = { 1000000000, 1000000, 1000 };

	for (size_t i = 0; i < EP_ARRAY_SIZE(unit); i++) {
		if (ns != 0 && ns % unit[i] == 0) {
			snprintf(buf, size, "%" PRId64 "%s", ns / unit[i], suffix[i]);
			return;
		}
	}
	snprintf(buf, size, ns ? "%" PRId64 "ns" : "%" PRId64, ns);
}

void ep_format_double(double v, char *buf, size_t size)
{
	/* The shortest of %.15g..%.17g that reads back to the same bits. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			return;
	}
}

size_t ep_bit_reverse(size_t j, unsigned int bits)
{
	size_t r = 0;

	for (unsigned int b = 0; b < bits; b++)
		if (j & ((size_t)1 << b))
			r |= (size_t)1 << (bits - 1 - b);
	return r;
}
