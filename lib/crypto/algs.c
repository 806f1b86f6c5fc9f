// SPDX-License-Identifier: MIT
/*
 * algs.c - the algorithms of the crypto kernels with their known vectors,
 * and the operation handle over the two back ends (crypto.h).
 *
 * The vectors are published ones, checked once per run before anything is
 * timed:
 *   AES ECB and CBC  NIST SP 800-38A, F.1 and F.2: the first two blocks of
 *                    its plaintext under its keys (CBC: its IV); the second
 *                    output block is compared, which depends on the first
 *                    through the chaining.
 *   TDES CBC         NIST SP 800-67's worked example (three keys, ECB):
 *                    with IV 0 and each plaintext block after the first
 *                    XORed with the example's previous ciphertext block, CBC
 *                    gives the example's ciphertext; its last 16 bytes are
 *                    compared.
 *   MD5, SHA-1,      "abc" (RFC 1321 A.5; FIPS 180 / NIST's examples): the
 *   SHA-256, -512    digest's first 16 bytes are compared.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/crypto/crypto.h"

#define AES_IN "\x6b\xc1\xbe\xe2\x2e\x40\x9f\x96\xe9\x3d\x7e\x11\x73\x93\x17\x2a" \
	       "\xae\x2d\x8a\x57\x1e\x03\xac\x9c\x9e\xb7\x6f\xac\x45\xaf\x8e\x51"
#define AES_IV "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
#define AES_KEY128 "\x2b\x7e\x15\x16\x28\xae\xd2\xa6\xab\xf7\x15\x88\x09\xcf\x4f\x3c"
#define AES_KEY192 "\x8e\x73\xb0\xf7\xda\x0e\x64\x52\xc8\x10\xf3\x2b\x80\x90\x79\xe5" \
		   "\x62\xf8\xea\xd2\x52\x2c\x6b\x7b"
#define AES_KEY256 "\x60\x3d\xeb\x10\x15\xca\x71\xbe\x2b\x73\xae\xf0\x85\x7d\x77\x81" \
		   "\x1f\x35\x2c\x07\x3b\x61\x08\xd7\x2d\x98\x10\xa3\x09\x14\xdf\xf4"
#define TDES_KEY "\x01\x23\x45\x67\x89\xab\xcd\xef\x23\x45\x67\x89\xab\xcd\xef\x01" \
		 "\x45\x67\x89\xab\xcd\xef\x01\x23"
/* "The qufck brown fox jump", blocks 2 and 3 XORed with ciphertext blocks 1 and 2 */
#define TDES_IN "\x54\x68\x65\x20\x71\x75\x66\x63\xc3\x06\x9f\xfe\x8a\x4c\xeb\x7f" \
		"\xaa\x8d\x64\xa1\x78\x50\x02\x96"
#define TDES_IV "\0\0\0\0\0\0\0\0"

#define U (const unsigned char *)
#define AES(name, kname, key, bits, iv, iv_bytes, expect)                                    \
	{ name, kname, U key, U iv, U AES_IN, CR_CIPHER, bits / 8, iv_bytes, 16, 32, 0, expect }
#define DIGEST(name, out_bytes, expect) \
	{ name, name, NULL, NULL, U "abc", CR_DIGEST, 0, 0, 1, 3, out_bytes, expect }

const struct cr_alg cr_algs[CR_N_ALGS] = {
	AES("aes-128-cbc", "cbc(aes)", AES_KEY128, 128, AES_IV, 16,
	    "\x50\x86\xcb\x9b\x50\x72\x19\xee\x95\xdb\x11\x3a\x91\x76\x78\xb2"),
	AES("aes-192-cbc", "cbc(aes)", AES_KEY192, 192, AES_IV, 16,
	    "\xb4\xd9\xad\xa9\xad\x7d\xed\xf4\xe5\xe7\x38\x76\x3f\x69\x14\x5a"),
	AES("aes-256-cbc", "cbc(aes)", AES_KEY256, 256, AES_IV, 16,
	    "\x9c\xfc\x4e\x96\x7e\xdb\x80\x8d\x67\x9f\x77\x7b\xc6\x70\x2c\x7d"),
	AES("aes-128-ecb", "ecb(aes)", AES_KEY128, 128, NULL, 0,
	    "\xf5\xd3\xd5\x85\x03\xb9\x69\x9d\xe7\x85\x89\x5a\x96\xfd\xba\xaf"),
	AES("aes-192-ecb", "ecb(aes)", AES_KEY192, 192, NULL, 0,
	    "\x97\x41\x04\x84\x6d\x0a\xd3\xad\x77\x34\xec\xb3\xec\xee\x4e\xef"),
	AES("aes-256-ecb", "ecb(aes)", AES_KEY256, 256, NULL, 0,
	    "\x59\x1c\xcb\x10\xd4\x10\xed\x26\xdc\x5b\xa7\x4a\x31\x36\x28\x70"),
	{ "des-ede3-cbc", "cbc(des3_ede)", U TDES_KEY, U TDES_IV, U TDES_IN, CR_CIPHER, 24, 8, 8,
	  24, 0, "\xcc\xe2\x1c\x81\x12\x25\x6f\xe6\x68\xd5\xc0\x5d\xd9\xb6\xb9\x00" },
	DIGEST("md5", 16, "\x90\x01\x50\x98\x3c\xd2\x4f\xb0\xd6\x96\x3f\x7d\x28\xe1\x7f\x72"),
	DIGEST("sha1", 20, "\xa9\x99\x3e\x36\x47\x06\x81\x6a\xba\x3e\x25\x71\x78\x50\xc2\x6c"),
	DIGEST("sha256", 32, "\xba\x78\x16\xbf\x8f\x01\xcf\xea\x41\x41\x40\xde\x5d\xae\x22\x23"),
	DIGEST("sha512", 64, "\xdd\xaf\x35\xa1\x93\x61\x7a\xba\xcc\x41\x73\x49\xae\x20\x41\x31"),
};
const struct cr_alg *cr_alg_find(const char *name)
{
	for (int i = 0; i < CR_N_ALGS; i++)
		if (!strcmp(cr_algs[i].name, name))
			return &cr_algs[i];
	return NULL;
}

const char *cr_backend_name(int backend)
{
	return backend == CR_AFALG ? "afalg" : "evp";
}

int cr_backend_check(int backend, char *why, size_t why_size)
{
	int fd;

	if (backend == CR_EVP)
		return cr_evp_version(why, why_size);
	fd = cr_afalg_socket(why, why_size);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int cr_list_item(const char **p, char *item, size_t size)
{
	size_t len = strcspn(*p, ",");

	if (!**p)
		return 0;
	if (!len || len >= size)
		return -EINVAL;
	memcpy(item, *p, len);
	item[len] = '\0';
	*p += len + ((*p)[len] == ',');
	return 1;
}

int cr_op_open(struct cr_op *op, const struct cr_alg *alg, int backend, int io, char *why,
	       size_t why_size)
{
	memset(op, 0, sizeof(*op));
	op->alg = alg;
	op->backend = backend;
	op->io = io;
	op->tfm_fd = op->fd = -1;
	op->pipe_fd[0] = op->pipe_fd[1] = op->event_fd = -1;
	return backend == CR_AFALG ? cr_afalg_open(op, why, why_size)
				   : cr_evp_open(op, why, why_size);
}

void cr_op_close(struct cr_op *op)
{
	if (op->backend == CR_EVP) {
		cr_evp_close(op);
		return;
	}
	cr_afalg_aio_close(op);
	if (op->fd >= 0)
		close(op->fd);
	if (op->tfm_fd >= 0)
		close(op->tfm_fd);
	op->fd = op->tfm_fd = -1;
}

/* @n bytes of @p as hex into @buf (2 * @n + 1 bytes). */
static void hex(const unsigned char *p, size_t n, char *buf)
{
	for (size_t i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
}

const char *cr_io_name(int io)
{
	return io == CR_IO_AIO ? "aio" : io == CR_IO_AIO_SPLICE ? "aio-splice" : "sync";
}

/* " io=aio" after the back end's name in a message, when @op takes an AIO path. */
static const char *io_words(const struct cr_op *op)
{
	return op->io == CR_IO_AIO ? " io=aio" : op->io == CR_IO_AIO_SPLICE ? " io=aio-splice" : "";
}

int cr_op_check(struct cr_op *op, char *why, size_t why_size)
{
	const struct cr_alg *a = op->alg;
	unsigned char buf[CR_MAX_IN_BYTES];
	const unsigned char *got = op->out;
	char got_hex[2 * CR_CHECK_BYTES + 1], want_hex[2 * CR_CHECK_BYTES + 1];
	int rc;

	memcpy(buf, a->in, a->in_bytes);
	rc = op->run(op, buf, a->in_bytes);
	if (rc) {
		snprintf(why, why_size, "%s through %s%s (%s) fails on its known vector: %s",
			 a->name, cr_backend_name(op->backend), io_words(op), op->driver,
			 strerror(-rc));
		return rc;
	}
	if (a->kind == CR_CIPHER)
		got = buf + a->in_bytes - CR_CHECK_BYTES;
	if (!memcmp(got, a->expect, CR_CHECK_BYTES))
		return 0;
	hex(got, CR_CHECK_BYTES, got_hex);
	hex(a->expect, CR_CHECK_BYTES, want_hex);
	snprintf(why, why_size, "%s through %s%s (%s) gives a wrong answer for its known vector: "
		 "%s where %s is right", a->name, cr_backend_name(op->backend), io_words(op),
		 op->driver, got_hex, want_hex);
	return -EIO;
}

int cr_offered(int backend, char *buf, size_t size)
{
	char why[CR_WHY_MAX];
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < CR_N_ALGS; i++) {
		struct cr_op op;

		if (!cr_op_open(&op, &cr_algs[i], backend, CR_IO_SYNC, why, sizeof(why))) {
			int len = snprintf(buf + used, size - used, "%s%s", n ? "," : "",
					   cr_algs[i].name);

			if (len > 0 && (size_t)len < size - used)
				used += (size_t)len;
			n++;
		}
		cr_op_close(&op);
	}
	return n;
}
