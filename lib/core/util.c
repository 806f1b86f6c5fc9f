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

const char *ep_strerror(int err, char *buf, size_t size)
{
	err = err < 0 ? -err : err;
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	return strerror_r(err, buf, size);
#else
	if (strerror_r(err, buf, size))
		snprintf(buf, size, "error %d", err);
	return buf;
#endif
}

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

int ep_say(char *err, size_t err_size, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && err_size) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return rc;
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

void ep_buf_printf(struct ep_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ep_buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
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

void ep_pairs_free(struct ep_pairs *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->keys[i]);
		free(kv->values[i]);
	}
	free(kv->keys);
	free(kv->values);
	kv->keys = kv->values = NULL;
	kv->n = 0;
}

/* Read one value at *@p (quoted or bare) into @b; advance *@p past it. */
static void pairs_read_value(const char **p, struct ep_buf *b)
{
	const char *s = *p;

	if (*s != '"') {
		size_t n = strcspn(s, " ");

		ep_buf_append(b, s, n);
		*p = s + n;
		return;
	}
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		ep_buf_append(b, s, 1);
	}
	*p = *s ? s + 1 : s;
}

static int pairs_push(struct ep_pairs *kv, char *key, char *value)
{
	char **k = realloc(kv->keys, (kv->n + 1) * sizeof(*k));
	char **v;

	if (k)
		kv->keys = k;
	v = k ? realloc(kv->values, (kv->n + 1) * sizeof(*v)) : NULL;
	if (v)
		kv->values = v;
	if (!k || !v || !key || !value) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	kv->keys[kv->n] = key;
	kv->values[kv->n] = value;
	kv->n++;
	return 0;
}

int ep_pairs_parse(const char *line, struct ep_pairs *kv)
{
	const char *p = line ? line : "";

	kv->keys = kv->values = NULL;
	kv->n = 0;
	for (p += strspn(p, " "); *p; p += strspn(p, " ")) {
		size_t key_len = strcspn(p, "= ");
		struct ep_buf value;
		char *key = malloc(key_len + 1);

		if (key) {
			memcpy(key, p, key_len);
			key[key_len] = '\0';
		}
		p += key_len;
		ep_buf_init(&value);
		ep_buf_append(&value, "", 0);
		if (*p == '=') {
			p++;
			pairs_read_value(&p, &value);
		}
		if (pairs_push(kv, key, ep_buf_take(&value))) {
			ep_pairs_free(kv);
			return -ENOMEM;
		}
	}
	return 0;
}

void ep_pairs_append_value(struct ep_buf *b, const char *value)
{
	if (*value && !strpbrk(value, " \"\\")) {
		ep_buf_append(b, value, strlen(value));
		return;
	}
	ep_buf_append(b, "\"", 1);
	for (const char *s = value; *s; s++) {
		if (*s == '"' || *s == '\\')
			ep_buf_append(b, "\\", 1);
		ep_buf_append(b, s, 1);
	}
	ep_buf_append(b, "\"", 1);
}
