// SPDX-License-Identifier: MIT
/*
 * proto.c - control messages: JSON bodies with a length prefix, validated
 * member by member on the way in (proto.h).
 *
 * Validation is a table per message type: each member has a JSON type, a
 * range, whether it is required, and where its value goes. A member outside
 * the table is ignored (a newer client may send more); a required member
 * that is missing, a member of the wrong type or out of its range refuses
 * the whole message.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/core/clock.h"
#include "proto.h"

static const char *const type_names[EP_MSG_TYPE_COUNT] = {
	"hello", "welcome", "error", "start", "ready", "stop", "report", "bye",
};

static const char *const test_names[EP_TEST_COUNT] = {
	"udp.sink", "udp.source", "tcp.sink", "tcp.source", "tcp.rr", "tcp.crr", "udp.rr",
	"l2.sink", "l2.source", "tcp.both",
};

static const char *const pacing_names[] = { "precise", "burst", "none" };

const char *ep_msg_type_name(enum ep_msg_type type)
{
	return type < EP_MSG_TYPE_COUNT ? type_names[type] : "?";
}

const char *ep_net_test_name(enum ep_net_test test)
{
	return test < EP_TEST_COUNT ? test_names[test] : "?";
}

/* How a member is read. */
enum field_kind { FK_U64, FK_U32, FK_U16, FK_INT, FK_DOUBLE, FK_TEXT, FK_TEST, FK_PACING };

/* What a member's table entry says besides its type and range (struct field @flags). */
enum {
	F_REQUIRED = 1, /* a message without it is refused */
	/* Sent only when not 0: a side that does not know it (proto_minor: a 1.0
	 * side; the others: an older minor) gets messages as they were. */
	F_IF_SET = 2,
};

/* One member of a message: how it is read and written, the same table both ways. */
struct field {
	const char *name;
	enum field_kind kind;
	size_t offset;   /* into struct ep_msg */
	size_t size;     /* FK_TEXT: the buffer's size */
	double min, max; /* numbers */
	unsigned int flags;
};

#define M(member) offsetof(struct ep_msg, member)
#define S(member) offsetof(struct ep_msg, start.member)
#define R(member) offsetof(struct ep_msg, report.member)
#define U32MAX 4294967295.0
#define U64MAX 18446744073709551615.0

/* hello: the first three members; welcome: all of them. */
static const struct field greeting_fields[] = {
	{ "proto", FK_INT, M(proto), 0, 0, 1000, F_REQUIRED },
	{ "proto_minor", FK_INT, M(proto_minor), 0, 0, 1000, F_IF_SET },
	{ "software", FK_TEXT, M(software), sizeof(((struct ep_msg *)0)->software), 0, 0, 0 },
	{ "max_rate_bps", FK_DOUBLE, M(max_rate_bps), 0, 0, 1e15, F_REQUIRED },
	{ "max_duration_ns", FK_U64, M(max_duration_ns), 0, 0, U64MAX, F_REQUIRED },
	{ "max_size", FK_U32, M(max_size_bytes), 0, 0, U32MAX, F_REQUIRED },
};

static const struct field error_fields[] = {
	{ "code", FK_TEXT, M(code), sizeof(((struct ep_msg *)0)->code), 0, 0, F_REQUIRED },
	{ "text", FK_TEXT, M(text), sizeof(((struct ep_msg *)0)->text), 0, 0, 0 },
};

static const struct field start_fields[] = {
	{ "test", FK_TEST, S(test), 0, 0, 0, F_REQUIRED },
	{ "flow", FK_U32, S(flow), 0, 0, U32MAX, F_REQUIRED },
	{ "size", FK_U32, S(size_bytes), 0, 1, EP_PEER_MAX_STREAM_IO_BYTES, F_REQUIRED },
	{ "response", FK_U32, S(response_bytes), 0, 0, EP_PEER_MAX_SIZE_BYTES, 0 },
	{ "rate_bps", FK_DOUBLE, S(rate_bps), 0, 0, 1e15, 0 },
	{ "pacing", FK_PACING, S(pacing), 0, 0, 0, 0 },
	{ "burst", FK_U32, S(burst), 0, 0, 1000000, 0 },
	{ "wait_ns", FK_U64, S(wait_ns), 0, 0, 1e12, 0 },
	{ "batch", FK_U32, S(batch), 0, 0, 1024, 0 },
	{ "duration_ns", FK_U64, S(duration_ns), 0, 1, U64MAX, F_REQUIRED },
	{ "port", FK_U16, S(port), 0, 0, 65535, 0 },
	{ "drop_every", FK_U32, S(drop_every), 0, 0, U32MAX, 0 },
	{ "count", FK_U64, S(count), 0, 0, U64MAX, 0 },
	{ "echo_every", FK_U32, S(echo_every), 0, 0, U32MAX, 0 },
	{ "nodelay", FK_U32, S(nodelay), 0, 0, 1, 0 },
	{ "sockbuf", FK_U32, S(sockbuf_bytes), 0, 0, EP_PEER_MAX_SOCKBUF_BYTES, 0 },
	{ "recv_size", FK_U32, S(recv_bytes), 0, 0, EP_PEER_MAX_STREAM_IO_BYTES, 0 },
	{ "io_wait", FK_U32, S(io_wait), 0, 0, 1, F_IF_SET },
};

static const struct field ready_fields[] = {
	{ "port", FK_U16, M(port), 0, 0, 65535, F_REQUIRED },
	{ "flow", FK_U32, M(flow), 0, 0, U32MAX, F_REQUIRED },
	{ "source_port", FK_U16, M(source_port), 0, 0, 65535, F_IF_SET },
};

static const struct field stop_fields[] = {
	{ "flow", FK_U32, M(flow), 0, 0, U32MAX, F_REQUIRED },
	{ "sent", FK_U64, M(sent), 0, 0, U64MAX, 0 },
	{ "ramp_sent", FK_U64, M(ramp_sent), 0, 0, U64MAX, 0 },
};

static const struct field report_fields[] = {
	{ "flow", FK_U32, R(flow), 0, 0, U32MAX, F_REQUIRED },
	{ "received", FK_U64, R(received), 0, 0, U64MAX, F_REQUIRED },
	{ "bytes", FK_U64, R(bytes), 0, 0, U64MAX, F_REQUIRED },
	{ "duplicated", FK_U64, R(duplicated), 0, 0, U64MAX, 0 },
	{ "reordered", FK_U64, R(reordered), 0, 0, U64MAX, 0 },
	{ "expected", FK_U64, R(expected), 0, 0, U64MAX, 0 },
	{ "sent", FK_U64, R(sent), 0, 0, U64MAX, 0 },
	{ "dropped", FK_U64, R(dropped), 0, 0, U64MAX, 0 },
	{ "jitter_ns", FK_DOUBLE, R(jitter_ns), 0, 0, 1e15, 0 },
	{ "cpu_process_pct", FK_DOUBLE, R(cpu_process_pct), 0, -1, 1e5, 0 },
	{ "cpu_system_pct", FK_DOUBLE, R(cpu_system_pct), 0, -1, 100.5, 0 },
	{ "elapsed_ns", FK_U64, R(elapsed_ns), 0, 0, U64MAX, 0 },
	{ "ls_have", FK_U32, R(ls_have), 0, 0, 7, 0 },
	{ "ls_qdisc_drops", FK_U64, R(ls_qdisc_drops), 0, 0, U64MAX, 0 },
	{ "ls_tx_dropped", FK_U64, R(ls_tx_dropped), 0, 0, U64MAX, 0 },
	{ "ls_tx_errors", FK_U64, R(ls_tx_errors), 0, 0, U64MAX, 0 },
	{ "ls_rx_dropped", FK_U64, R(ls_rx_dropped), 0, 0, U64MAX, 0 },
	{ "ls_rx_errors", FK_U64, R(ls_rx_errors), 0, 0, U64MAX, 0 },
	{ "ls_rx_over", FK_U64, R(ls_rx_over), 0, 0, U64MAX, 0 },
	{ "ls_rx_fifo", FK_U64, R(ls_rx_fifo), 0, 0, U64MAX, 0 },
	{ "ls_rx_missed", FK_U64, R(ls_rx_missed), 0, 0, U64MAX, 0 },
	{ "ls_udp_sndbuf", FK_U64, R(ls_udp_sndbuf), 0, 0, U64MAX, 0 },
	{ "ls_udp_rcvbuf", FK_U64, R(ls_udp_rcvbuf), 0, 0, U64MAX, 0 },
	{ "ls_udp_in_errors", FK_U64, R(ls_udp_in_errors), 0, 0, U64MAX, 0 },
	{ "ls_udp_no_ports", FK_U64, R(ls_udp_no_ports), 0, 0, U64MAX, 0 },
	{ "capture_drops", FK_U64, R(capture_drops), 0, 0, U64MAX, 0 },
};

#define ALL(table) { table, sizeof(table) / sizeof((table)[0]) }

/* Each message type's members: the first @n rows of @f (bye has none). */
static const struct {
	const struct field *f;
	size_t n;
} fields_of[EP_MSG_TYPE_COUNT] = {
	[EP_MSG_HELLO] = { greeting_fields, 3 },
	[EP_MSG_WELCOME] = ALL(greeting_fields),
	[EP_MSG_ERROR] = ALL(error_fields),
	[EP_MSG_START] = ALL(start_fields),
	[EP_MSG_READY] = ALL(ready_fields),
	[EP_MSG_STOP] = ALL(stop_fields),
	[EP_MSG_REPORT] = ALL(report_fields),
};

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int index_of(const char *text, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(text, names[i]))
			return i;
	return -1;
}

/* A JSON number as a double: integers of json-c's int64 or uint64 kind too. */
static int number_of(struct json_object *o, double *out)
{
	enum json_type t = json_object_get_type(o);

	if (t == json_type_int) {
		/* json-c keeps values above INT64_MAX as uint64. */
		if (json_object_get_int64(o) == INT64_MAX)
			*out = (double)json_object_get_uint64(o);
		else
			*out = (double)json_object_get_int64(o);
		return 0;
	}
	if (t == json_type_double) {
		*out = json_object_get_double(o);
		return isfinite(*out) ? 0 : -1;
	}
	return -1;
}

static int read_enum(struct json_object *o, const struct field *f, struct ep_msg *m, char *err,
		     size_t err_len)
{
	const char *text = json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
	int i = -1;

	if (text && f->kind == FK_TEST)
		i = index_of(text, test_names, EP_TEST_COUNT);
	else if (text)
		i = index_of(text, pacing_names, 3);
	if (i < 0)
		return bad(err, err_len, "member '%s': unknown value%s", f->name, "");
	*(int *)(void *)((char *)m + f->offset) = i;
	return 0;
}

static int read_text(struct json_object *o, const struct field *f, struct ep_msg *m, char *err,
		     size_t err_len)
{
	char *dst = (char *)m + f->offset;
	const char *text;

	if (!json_object_is_type(o, json_type_string))
		return bad(err, err_len, "member '%s': %s", f->name, "not a string");
	text = json_object_get_string(o);
	if ((size_t)json_object_get_string_len(o) >= f->size || strlen(text) >= f->size)
		return bad(err, err_len, "member '%s': %s", f->name, "too long");
	strcpy(dst, text);
	return 0;
}

static int read_number(struct json_object *o, const struct field *f, struct ep_msg *m, char *err,
		       size_t err_len)
{
	void *dst = (char *)m + f->offset;
	double v;

	if (number_of(o, &v))
		return bad(err, err_len, "member '%s': %s", f->name, "not a number");
	if (v < f->min || v > f->max)
		return bad(err, err_len, "member '%s': %s", f->name, "out of range");
	if (f->kind != FK_DOUBLE && v != floor(v))
		return bad(err, err_len, "member '%s': %s", f->name, "not an integer");
	switch (f->kind) {
	case FK_U64:
		*(uint64_t *)dst = v >= U64MAX ? UINT64_MAX : (uint64_t)v;
		break;
	case FK_U32:
		*(uint32_t *)dst = (uint32_t)v;
		break;
	case FK_U16:
		*(uint16_t *)dst = (uint16_t)v;
		break;
	case FK_INT:
		*(int *)dst = (int)v;
		break;
	default:
		*(double *)dst = v;
	}
	return 0;
}

static int read_field(struct json_object *obj, const struct field *f, struct ep_msg *m, char *err,
		      size_t err_len)
{
	struct json_object *o;

	if (!json_object_object_get_ex(obj, f->name, &o) || !o)
		return f->flags & F_REQUIRED ? bad(err, err_len, "member '%s' %s", f->name, "is missing") : 0;
	switch (f->kind) {
	case FK_TEXT:
		return read_text(o, f, m, err, err_len);
	case FK_TEST:
	case FK_PACING:
		return read_enum(o, f, m, err, err_len);
	default:
		return read_number(o, f, m, err, err_len);
	}
}

static int parse_object(struct json_object *obj, struct ep_msg *m, char *err, size_t err_len)
{
	struct json_object *type;
	int t;

	if (!json_object_is_type(obj, json_type_object))
		return bad(err, err_len, "not a JSON object%s%s", "", "");
	if (!json_object_object_get_ex(obj, "type", &type) ||
	    !json_object_is_type(type, json_type_string))
		return bad(err, err_len, "member 'type' %s%s", "is missing or not a string", "");
	t = index_of(json_object_get_string(type), type_names, EP_MSG_TYPE_COUNT);
	if (t < 0)
		return bad(err, err_len, "unknown message type%s%s", "", "");
	m->type = (enum ep_msg_type)t;
	for (size_t i = 0; i < fields_of[t].n; i++) {
		int rc = read_field(obj, &fields_of[t].f[i], m, err, err_len);

		if (rc)
			return rc;
	}
	return 0;
}

int ep_msg_parse(const char *text, size_t len, struct ep_msg *m, char *err, size_t err_len)
{
	struct json_tokener *tok;
	struct json_object *obj;
	int rc;

	memset(m, 0, sizeof(*m));
	if (err_len)
		err[0] = '\0';
	if (len == 0 || len > EP_MSG_MAX_BYTES)
		return bad(err, err_len, "message of %s bytes%s", len ? "too many" : "0", "");
	/* The messages nest nothing; depth 3 leaves a newer client room for a
	 * member of its own and keeps a hostile message cheap. */
	tok = json_tokener_new_ex(3);
	if (!tok)
		return -ENOMEM;
	obj = json_tokener_parse_ex(tok, text, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		json_object_put(obj);
		json_tokener_free(tok);
		return bad(err, err_len, "not valid JSON%s%s", "", "");
	}
	json_tokener_free(tok);
	rc = parse_object(obj, m, err, err_len);
	json_object_put(obj);
	return rc;
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_double(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void add_text(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

/* One member of @m into @o, as read_field() reads it back. */
static void write_field(struct json_object *o, const struct field *f, const struct ep_msg *m)
{
	const char *src = (const char *)m + f->offset;
	uint64_t v;

	switch (f->kind) {
	case FK_TEXT:
		add_text(o, f->name, src);
		return;
	case FK_TEST:
		add_text(o, f->name, ep_net_test_name(*(const enum ep_net_test *)(const void *)src));
		return;
	case FK_PACING:
		add_text(o, f->name, pacing_names[*(const enum ep_pacing *)(const void *)src]);
		return;
	case FK_DOUBLE:
		add_double(o, f->name, *(const double *)(const void *)src);
		return;
	case FK_U64:
		v = *(const uint64_t *)(const void *)src;
		break;
	case FK_U32:
		v = *(const uint32_t *)(const void *)src;
		break;
	case FK_U16:
		v = *(const uint16_t *)(const void *)src;
		break;
	default:
		v = (uint64_t)*(const int *)(const void *)src;
	}
	if (v || !(f->flags & F_IF_SET))
		add_u64(o, f->name, v);
}

int ep_msg_encode(const struct ep_msg *m, unsigned char *buf, size_t cap)
{
	struct json_object *o = json_object_new_object();
	const char *text;
	size_t len;

	if (!o)
		return -ENOMEM;
	add_text(o, "type", ep_msg_type_name(m->type));
	for (size_t i = 0; m->type < EP_MSG_TYPE_COUNT && i < fields_of[m->type].n; i++)
		write_field(o, &fields_of[m->type].f[i], m);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	len = text ? strlen(text) : 0;
	if (!text || len > EP_MSG_MAX_BYTES || len + 4 > cap) {
		json_object_put(o);
		return text ? -EMSGSIZE : -ENOMEM;
	}
	buf[0] = (unsigned char)(len >> 24);
	buf[1] = (unsigned char)(len >> 16);
	buf[2] = (unsigned char)(len >> 8);
	buf[3] = (unsigned char)len;
	memcpy(buf + 4, text, len);
	json_object_put(o);
	return (int)(len + 4);
}

static size_t frame_body_len(const struct ep_frame_reader *r)
{
	return (size_t)r->buf[0] << 24 | (size_t)r->buf[1] << 16 | (size_t)r->buf[2] << 8 |
	       r->buf[3];
}

int ep_frame_read(int fd, struct ep_frame_reader *r)
{
	for (;;) {
		size_t want = 4;
		ssize_t n;

		if (r->have >= 4) {
			size_t body = frame_body_len(r);

			if (body == 0 || body > EP_MSG_MAX_BYTES)
				return -EMSGSIZE;
			want = 4 + body;
			if (r->have == want)
				return (int)body;
		}
		n = recv(fd, r->buf + r->have, want - r->have, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0
			       : errno == EINTR			     ? 0
								     : -errno;
		r->have += (size_t)n;
	}
}

void ep_frame_reset(struct ep_frame_reader *r)
{
	r->have = 0;
}

/* Wait until @fd is ready for @events or @deadline_ns passes. */
static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = ep_now_ns();
		struct pollfd p = { .fd = fd, .events = events };
		int ms, rc;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		rc = poll(&p, 1, ms);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

int ep_msg_send(int fd, const struct ep_msg *m, uint64_t timeout_ns)
{
	unsigned char buf[4 + EP_MSG_MAX_BYTES];
	uint64_t deadline = ep_now_ns() + timeout_ns;
	int len = ep_msg_encode(m, buf, sizeof(buf));
	size_t done = 0;

	if (len < 0)
		return len;
	while (done < (size_t)len) {
		ssize_t n = send(fd, buf + done, (size_t)len - done, MSG_DONTWAIT | MSG_NOSIGNAL);
		int rc;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

int ep_msg_recv(int fd, struct ep_msg *m, uint64_t timeout_ns, char *err, size_t err_len)
{
	struct ep_frame_reader r;
	uint64_t deadline = ep_now_ns() + timeout_ns;

	r.have = 0;
	for (;;) {
		int rc = ep_frame_read(fd, &r);

		if (rc > 0)
			return ep_msg_parse((const char *)r.buf + 4, (size_t)rc, m, err, err_len);
		if (rc < 0)
			return rc;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
}
