// SPDX-License-Identifier: MIT
/*
 * afalg.c - the AF_ALG back end: the kernel crypto API from user space, the
 * path a SoC's crypto accelerator serves (its driver registers the
 * algorithm at a higher priority than the generic C code).
 *
 * One algorithm socket bound to "skcipher" / "cbc(aes)" (or "hash" /
 * "sha256") and keyed once, one operation socket accept()ed from it. A
 * cipher buffer is one sendmsg() carrying ALG_SET_OP (encrypt) and ALG_SET_IV
 * with the data, then read() of the result in place, as OpenSSL's afalg
 * engine sends the IV with every buffer; a digest is one send() of the
 * buffer and read() of the digest. That is io=sync; with io=aio or
 * io=aio-splice a cipher buffer takes the afalg engine's own system calls
 * (afalg_aio.c). Which
 * driver served it is the highest-priority one /proc/crypto lists under the
 * name, read after the bind (the kernel builds a template's instance,
 * "cbc(aes)", on first use).
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/crypto/crypto.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

/* read() until @len bytes came. Return: 0 or a negative errno. */
static int read_all(int fd, unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int afalg_encrypt(struct cr_op *op, unsigned char *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = op->msg_ctl.bytes,
			      .msg_controllen = op->msg_ctl_len };
	/* Never blocks: all of a buffer that the socket's send buffer cannot
	 * hold would wait for a read() that only this thread can do. */
	ssize_t n = sendmsg(op->fd, &msg, MSG_DONTWAIT);

	if (n != (ssize_t)len)
		return n < 0 ? -errno : -EMSGSIZE;
	return read_all(op->fd, buf, len);
}

static int afalg_digest(struct cr_op *op, unsigned char *buf, size_t len)
{
	ssize_t n = send(op->fd, buf, len, 0);

	if (n != (ssize_t)len)
		return n < 0 ? -errno : -EIO;
	return read_all(op->fd, op->out, op->alg->out_bytes);
}

_Static_assert(CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16) <=
		       sizeof(((struct cr_op *)0)->msg_ctl.bytes),
	       "room for ALG_SET_OP and a 16-byte ALG_SET_IV");

/* The control messages of every cipher sendmsg(): encrypt, and the IV. */
static void build_ctl(struct cr_op *op)
{
	const struct cr_alg *a = op->alg;
	struct msghdr msg = { .msg_control = op->msg_ctl.bytes,
			      .msg_controllen = sizeof(op->msg_ctl.bytes) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	uint32_t encrypt = ALG_OP_ENCRYPT;
	struct af_alg_iv iv = { .ivlen = a->iv_bytes };

	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(encrypt));
	memcpy(CMSG_DATA(c), &encrypt, sizeof(encrypt));
	op->msg_ctl_len = CMSG_SPACE(sizeof(encrypt));
	if (!a->iv_bytes)
		return;
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(iv) + a->iv_bytes);
	memcpy(CMSG_DATA(c), &iv, sizeof(iv));
	memcpy(CMSG_DATA(c) + sizeof(iv), a->iv, a->iv_bytes);
	op->msg_ctl_len += CMSG_SPACE(sizeof(iv) + a->iv_bytes);
}

/**
 * struct entry - one algorithm of /proc/crypto as far as read.
 * @match:  its name is the one looked for, and it is usable from user space.
 * @prio:   its priority.
 * @driver: its driver's name.
 */
struct entry {
	int match;
	long prio;
	char driver[CR_DRIVER_MAX];
};

static void keep_best(const struct entry *e, long *best, char *buf, size_t size)
{
	if (e->match && e->prio > *best) {
		*best = e->prio;
		snprintf(buf, size, "%s", e->driver);
	}
}

void cr_driver_of(const char *path, const char *kname, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	struct entry e = { 0 };
	char line[256], key[16], value[CR_DRIVER_MAX];
	long best = -1;

	_Static_assert(CR_DRIVER_MAX == 64, "the sscanf() width below");
	snprintf(buf, size, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s : %63s", key, value) != 2)
			continue;
		if (!strcmp(key, "name")) {
			keep_best(&e, &best, buf, size);
			e.match = !strcmp(value, kname);
		} else if (!strcmp(key, "driver")) {
			snprintf(e.driver, sizeof(e.driver), "%s", value);
		} else if (!strcmp(key, "priority")) {
			e.prio = strtol(value, NULL, 10);
		} else if ((!strcmp(key, "internal") && !strcmp(value, "yes")) ||
			   (!strcmp(key, "type") && !strcmp(value, "larval"))) {
			e.match = 0;
		}
	}
	keep_best(&e, &best, buf, size);
	if (f)
		fclose(f);
}

int cr_afalg_socket(char *why, size_t why_size)
{
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd >= 0)
		return fd;
	return ep_say(why, why_size, -EOPNOTSUPP, "the kernel has no AF_ALG sockets (socket(): "
		      "%s; CONFIG_CRYPTO_USER_API_*)", strerror(errno));
}

int cr_afalg_open(struct cr_op *op, char *why, size_t why_size)
{
	const struct cr_alg *a = op->alg;
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	const char *type = a->kind == CR_CIPHER ? "skcipher" : "hash";

	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", a->kname);
	op->tfm_fd = cr_afalg_socket(why, why_size);
	if (op->tfm_fd < 0)
		return op->tfm_fd;
	if (bind(op->tfm_fd, (struct sockaddr *)&sa, sizeof(sa)))
		return ep_say(why, why_size, -EOPNOTSUPP, "the kernel offers no %s %s through "
			      "AF_ALG (bind(): %s)", type, a->kname, strerror(errno));
	if (a->kind == CR_CIPHER &&
	    setsockopt(op->tfm_fd, SOL_ALG, ALG_SET_KEY, a->key, a->key_bytes))
		return ep_say(why, why_size, -EIO, "the kernel's %s refuses a %u-byte key: %s",
			      a->kname, a->key_bytes, strerror(errno));
	op->fd = accept4(op->tfm_fd, NULL, NULL, SOCK_CLOEXEC);
	if (op->fd < 0)
		return ep_say(why, why_size, -errno, "accept() on the %s socket: %s", a->kname,
			      strerror(errno));
	cr_driver_of("/proc/crypto", a->kname, op->driver, sizeof(op->driver));
	if (a->kind == CR_DIGEST) {
		op->run = afalg_digest;
		return 0;
	}
	build_ctl(op);
	op->run = afalg_encrypt;
	return op->io != CR_IO_SYNC ? cr_afalg_aio_open(op, why, why_size) : 0;
}
