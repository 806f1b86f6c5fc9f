/* SPDX-License-Identifier: MIT */
/*
 * addr.h - host:port parsing, CIDR matching and socket addresses, shared by
 * the peer and the network kernels.
 */
#ifndef EMBPERF_NET_ADDR_H
#define EMBPERF_NET_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/** struct ep_cidr - an address block: family, address, prefix length. */
struct ep_cidr {
	int family;
	unsigned char addr[16];
	int prefix;
};

/**
 * ep_addr_parse() - "HOST[:PORT]", "[V6]:PORT" or "V6" into @ss, resolving
 * names (getaddrinfo, numeric service). @default_port when none is given.
 * Return: 0, or -EINVAL with @err saying what is wrong.
 */
int ep_addr_parse(const char *spec, uint16_t default_port, struct sockaddr_storage *ss,
		  socklen_t *len, char *err, size_t err_len);

/** ep_addr_text() - "198.18.0.1:5301" or "[::1]:5301" into @buf. */
const char *ep_addr_text(const struct sockaddr_storage *ss, char *buf, size_t len);

/** ep_addr_port() - the port of @ss; ep_addr_set_port() sets it. */
uint16_t ep_addr_port(const struct sockaddr_storage *ss);
void ep_addr_set_port(struct sockaddr_storage *ss, uint16_t port);

/** ep_addr_same_host() - same family and address (ports not compared). */
int ep_addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/** ep_cidr_parse() - "198.18.0.0/15", "::1/128", or an address alone (a /32 or /128). */
int ep_cidr_parse(const char *text, struct ep_cidr *c);

/** ep_cidr_match() - @ss's address lies in @c (IPv4-mapped IPv6 addresses match IPv4 blocks). */
int ep_cidr_match(const struct ep_cidr *c, const struct sockaddr_storage *ss);

/**
 * ep_connect_timeout() - a TCP connection to @ss within @timeout_ns.
 * Return: the connected (blocking) descriptor, or a negative errno
 * (-ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH, ...).
 */
int ep_connect_timeout(const struct sockaddr_storage *ss, socklen_t len, uint64_t timeout_ns);

/**
 * ep_netk_set_timeouts() - SO_RCVTIMEO and SO_SNDTIMEO of @fd (a blocking
 * connect() of Linux waits at most SO_SNDTIMEO too): the kernels' data
 * sockets (kclient.c) and the peer's (peer_tcp.c) alike.
 */
void ep_netk_set_timeouts(int fd, uint64_t timeout_ns);

/**
 * ep_tcp_set_options() - TCP_NODELAY on @fd when @nodelay, and SO_SNDBUF and
 * SO_RCVBUF of @sockbuf_bytes (0: the system's). Best effort.
 */
void ep_tcp_set_options(int fd, int nodelay, uint32_t sockbuf_bytes);

#endif /* EMBPERF_NET_ADDR_H */
