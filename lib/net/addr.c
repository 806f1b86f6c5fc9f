// SPDX-License-Identifier: MIT
/*
 * addr.c - addresses of peers and clients (addr.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "addr.h"
#include "lib/core/clock.h"

/* Split "host:port", "[v6]:port", "v6" or "host" into @host and @port. */
static int split_host_port(const char *spec, char *host, size_t host_len, char *port,
			   size_t port_len)
{
	const char *colon = strrchr(spec, ':');
	size_t n;

	port[0] = '\0';
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || (end[1] && (end[1] != ':' || !end[2])))
			return -EINVAL;
		n = (size_t)(end - spec - 1);
		if (end[1])
			snprintf(port, port_len, "%s", end + 2);
	} else if (colon && strchr(spec, ':') == colon) {
		n = (size_t)(colon - spec);
		if (!colon[1])
			return -EINVAL;
		snprintf(port, port_len, "%s", colon + 1);
	} else {
		n = strlen(spec); /* a host name, IPv4, or a bare IPv6 address */
	}
	if (n == 0 || n >= host_len)
		return -EINVAL;
	memcpy(host, spec + (spec[0] == '[' ? 1 : 0), n);
	host[n] = '\0';
	return 0;
}

static int parse_port(const char *text, uint16_t *port)
{
	char *end;
	long v;

	if (!text[0])
		return 0;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || v < 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int ep_addr_parse(const char *spec, uint16_t default_port, struct sockaddr_storage *ss,
		  socklen_t *len, char *err, size_t err_len)
{
	char host[256], port_text[16];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;
	uint16_t port = default_port;
	int rc;

	if (!spec || split_host_port(spec, host, sizeof(host), port_text, sizeof(port_text))) {
		snprintf(err, err_len, "'%s' is not HOST[:PORT] or [IPV6]:PORT", spec ? spec : "");
		return -EINVAL;
	}
	if (parse_port(port_text, &port)) {
		snprintf(err, err_len, "port '%s' is not a number from 0 to 65535", port_text);
		return -EINVAL;
	}
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc || !res) {
		snprintf(err, err_len, "host '%s' not found (%s)", host, gai_strerror(rc));
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	ep_addr_set_port(ss, port);
	return 0;
}

const char *ep_addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ep_addr_port(ss));
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, host,
			  sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ep_addr_port(ss));
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}

uint16_t ep_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

void ep_addr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* The address bytes of @ss as IPv6 (IPv4 as ::ffff:a.b.c.d). */
static void as_v6(const struct sockaddr_storage *ss, unsigned char out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	}
}

int ep_addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	unsigned char x[16], y[16];

	as_v6(a, x);
	as_v6(b, y);
	return !memcmp(x, y, 16);
}

int ep_cidr_parse(const char *text, struct ep_cidr *c)
{
	char buf[64];
	const char *slash = strchr(text, '/');
	size_t n = slash ? (size_t)(slash - text) : strlen(text);
	char *end;
	long prefix;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, n);
	buf[n] = '\0';
	memset(c, 0, sizeof(*c));
	if (inet_pton(AF_INET, buf, c->addr + 12) == 1) {
		c->family = AF_INET;
		c->addr[10] = c->addr[11] = 0xff;
		c->prefix = 32;
	} else if (inet_pton(AF_INET6, buf, c->addr) == 1) {
		c->family = AF_INET6;
		c->prefix = 128;
	} else {
		return -EINVAL;
	}
	if (slash) {
		errno = 0;
		prefix = strtol(slash + 1, &end, 10);
		if (errno || *end || !slash[1] || prefix < 0 || prefix > c->prefix)
			return -EINVAL;
		c->prefix = (int)prefix;
	}
	if (c->family == AF_INET)
		c->prefix += 96; /* matched against the IPv4-mapped form */
	return 0;
}

int ep_cidr_match(const struct ep_cidr *c, const struct sockaddr_storage *ss)
{
	unsigned char a[16];
	int full = c->prefix / 8, rest = c->prefix % 8;

	as_v6(ss, a);
	if (memcmp(a, c->addr, (size_t)full))
		return 0;
	if (rest) {
		unsigned char mask = (unsigned char)(0xff << (8 - rest));

		return (a[full] & mask) == (c->addr[full] & mask);
	}
	return 1;
}

static int connect_result(int fd)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		return -errno;
	return -soerr;
}

int ep_connect_timeout(const struct sockaddr_storage *ss, socklen_t len, uint64_t timeout_ns)
{
	uint64_t deadline = ep_now_ns() + timeout_ns;
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1, rc;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rc = connect(fd, (const struct sockaddr *)ss, len) ? -errno : 0;
	while (rc == -EINPROGRESS || rc == -EINTR) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		uint64_t now = ep_now_ns();
		int n;

		if (now >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		n = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (n > 0)
			rc = connect_result(fd);
		else if (n < 0 && errno != EINTR)
			rc = -errno;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

void ep_netk_set_timeouts(int fd, uint64_t timeout_ns)
{
	struct timeval tv = { .tv_sec = (time_t)(timeout_ns / 1000000000),
			      .tv_usec = (suseconds_t)(timeout_ns % 1000000000 / 1000) };

	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1; /* 0 would mean: wait for ever */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

void ep_tcp_set_options(int fd, int nodelay, uint32_t sockbuf_bytes)
{
	int on = nodelay ? 1 : 0, bytes = (int)sockbuf_bytes;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	if (bytes) {
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
	}
}
