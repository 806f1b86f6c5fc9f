/* SPDX-License-Identifier: MIT */
/*
 * crypto.h - what the crypto kernels share: the algorithms with their known
 * vectors, one operation handle over the two back ends (libcrypto's EVP
 * interface, loaded on first use, and the kernel crypto API through AF_ALG
 * sockets), and libcrypto's public-key signatures (doc/methodology-crypto.md).
 */
#ifndef EMBPERF_CRYPTO_CRYPTO_H
#define EMBPERF_CRYPTO_CRYPTO_H

#include <stddef.h>

#include "lib/core/kernel.h"

enum cr_backend { CR_EVP, CR_AFALG };
enum cr_kind { CR_CIPHER, CR_DIGEST };
/*
 * How an AF_ALG cipher buffer travels: sendmsg() + read(); or the afalg
 * engine's AIO read after sendmsg() (as built by default) or after
 * vmsplice() + splice() (its zero-copy build); crypto.speed's io values.
 */
enum cr_io { CR_IO_SYNC, CR_IO_AIO, CR_IO_AIO_SPLICE };

/** cr_defaults - the engine defaults of crypto.speed and crypto.pkey (crypto_speed.c). */
extern const struct ep_default cr_defaults[];

/** cr_io_name() - "sync", "aio" or "aio-splice". */
const char *cr_io_name(int io);

#define CR_CHECK_BYTES 16  /* bytes of a known answer compared */
#define CR_MAX_IN_BYTES 32 /* the longest known-vector input */
#define CR_MAX_MD_BYTES 64 /* the longest digest (SHA-512) */
#define CR_DRIVER_MAX 64   /* "cbc-aes-aesni", "openssl-3.0.13" */
#define CR_WHY_MAX 320     /* room for a reason */

/**
 * struct cr_alg - an algorithm and its known vector (FIPS 180, RFC 1321,
 * NIST SP 800-38A, SP 800-67).
 * @name:        openssl's name, which EVP fetches ("aes-128-cbc", "sha256").
 * @kname:       the kernel crypto API's name ("cbc(aes)", "sha256").
 * @key, @iv:    ciphers: the vector's key and IV (@iv NULL: ECB).
 * @in:          the vector's input.
 * @kind:        an enum cr_kind.
 * @key_bytes:   length of @key.
 * @iv_bytes:    length of @iv (0: none).
 * @block_bytes: ciphers: the block, which every buffer size is a multiple of.
 * @in_bytes:    length of @in.
 * @out_bytes:   digests: the digest's length.
 * @expect:      ciphers: the last CR_CHECK_BYTES of the output; digests: the
 *               first ones.
 */
struct cr_alg {
	const char *name;
	const char *kname;
	const unsigned char *key;
	const unsigned char *iv;
	const unsigned char *in;
	unsigned char kind, key_bytes, iv_bytes, block_bytes, in_bytes, out_bytes;
	unsigned char expect[CR_CHECK_BYTES];
};

/** cr_algs - every algorithm the kernels know (CR_N_ALGS), in the order `alg=all` runs them. */
#define CR_N_ALGS 11
extern const struct cr_alg cr_algs[CR_N_ALGS];

/** cr_alg_find() - the algorithm of openssl's @name (exactly as listed), or NULL. */
const struct cr_alg *cr_alg_find(const char *name);

/** cr_backend_name() - "evp" or "afalg". */
const char *cr_backend_name(int backend);

/**
 * cr_backend_check() - is @backend there: libcrypto loads (EVP), the kernel
 * has AF_ALG sockets (afalg)?
 * Return: 0, or -EOPNOTSUPP with the reason in @why.
 */
int cr_backend_check(int backend, char *why, size_t why_size);

/**
 * cr_list_item() - the next item of the comma-separated list at *@p into
 * @item (@size bytes); *@p moves past it.
 * Return: 1 with an item, 0 at the end of the list, -EINVAL for an empty
 * item or one longer than @item holds.
 */
int cr_list_item(const char **p, char *item, size_t size);

/**
 * struct cr_op - one algorithm opened on one back end, keyed with its
 * vector's key and IV, ready to process buffers.
 * @alg:     the algorithm.
 * @backend: an enum cr_backend.
 * @io:      an enum cr_io (other than CR_IO_SYNC: AF_ALG ciphers only).
 * @run:     process @len bytes of @buf: ciphers encrypt in place, digests
 *           hash into @out. Return: 0 or a negative errno.
 * @evp_ctx: EVP: the cipher's context (EVP_CIPHER_CTX).
 * @evp_alg: EVP: the fetched cipher or digest (EVP_CIPHER, EVP_MD).
 * @tfm_fd:  AF_ALG: the algorithm's socket (bound, keyed); -1 when closed.
 * @fd:      AF_ALG: the operation's socket (accept()ed); -1 when closed.
 * @msg_ctl: AF_ALG ciphers: the control messages every sendmsg() carries
 *           (ALG_SET_OP encrypt, ALG_SET_IV), @msg_ctl_len bytes.
 * @pipe_fd:  AF_ALG with CR_IO_AIO_SPLICE: the pipe the buffer is vmsplice()d
 *           into, [0] read end, [1] write end; -1 when closed.
 * @event_fd: AF_ALG with an AIO @io: the eventfd the AIO read signals; -1
 *           when closed.
 * @aio_ctx:  AF_ALG with an AIO @io: the io_setup() context (0: none).
 * @out:     the last digest.
 * @driver:  what serves it: the kernel's driver ("cbc-aes-aesni", from
 *           /proc/crypto) or "openssl-VERSION".
 */
struct cr_op {
	const struct cr_alg *alg;
	int backend;
	int io;
	int (*run)(struct cr_op *op, unsigned char *buf, size_t len);
	void *evp_ctx;
	void *evp_alg;
	int tfm_fd;
	int fd;
	union {
		size_t align; /* a cmsghdr's */
		unsigned char bytes[64];
	} msg_ctl;
	size_t msg_ctl_len;
	int pipe_fd[2];
	int event_fd;
	unsigned long aio_ctx;
	unsigned char out[CR_MAX_MD_BYTES];
	char driver[CR_DRIVER_MAX];
};

/**
 * cr_op_open() - open @alg on @backend, its buffers to travel as @io says
 * (an enum cr_io; other than CR_IO_SYNC: AF_ALG ciphers only, the caller
 * checks); @op
 * is then closed with cr_op_close(), also after a failure.
 * @why: receives the reason of a failure ("the kernel offers no cbc(des3_ede)").
 * Return: 0; -EOPNOTSUPP when the back end or the algorithm is not there
 * (no libcrypto, no AF_ALG, the kernel or library lacks it); -ENOMEM; -EIO.
 */
int cr_op_open(struct cr_op *op, const struct cr_alg *alg, int backend, int io, char *why,
	       size_t why_size);

/** cr_op_close() - close what cr_op_open() opened; safe on a zeroed or closed @op. */
void cr_op_close(struct cr_op *op);

/**
 * cr_op_check() - run the algorithm's known vector through a freshly opened
 * @op and compare the answer (once, before anything is timed: a wrong
 * driver is worse than a slow one). Ciphers leave @op's chaining state
 * moved on.
 * Return: 0; -EIO naming the algorithm, the back end and its driver, what
 * came out and what was expected; or the run's error.
 */
int cr_op_check(struct cr_op *op, char *why, size_t why_size);

/**
 * cr_offered() - the algorithms @backend offers on this system,
 * comma-separated, into @buf (each opened and closed once).
 * Return: how many.
 */
int cr_offered(int backend, char *buf, size_t size);

/* The back ends (evp.c, afalg.c): cr_op_open()'s and cr_op_close()'s parts. */
int cr_evp_open(struct cr_op *op, char *why, size_t why_size);
void cr_evp_close(struct cr_op *op);
int cr_afalg_open(struct cr_op *op, char *why, size_t why_size);

/**
 * cr_afalg_aio_open() - switch @op, an AF_ALG cipher opened and its control
 * messages built, to the afalg engine's path its @op->io names
 * (afalg_aio.c): sendmsg() of the control messages and the data
 * (CR_IO_AIO) or of the control messages with MSG_MORE, then vmsplice()
 * and splice() of the data (CR_IO_AIO_SPLICE); then io_submit() of the
 * read, read() of its eventfd, io_getevents().
 * Return: 0; -EOPNOTSUPP without Linux AIO; or the negative errno of
 * pipe(), eventfd() or io_setup(), with the reason in @why.
 */
int cr_afalg_aio_open(struct cr_op *op, char *why, size_t why_size);

/** cr_afalg_aio_close() - close what cr_afalg_aio_open() opened; safe when it opened nothing. */
void cr_afalg_aio_close(struct cr_op *op);

/**
 * cr_driver_of() - the driver the kernel's crypto API hands out for @kname:
 * of the entries the file @path (/proc/crypto) lists under that name, not
 * internal and not larval (still being set up), the one of the highest
 * priority; "unknown" when there is none or @path cannot be read.
 */
void cr_driver_of(const char *path, const char *kname, char *buf, size_t size);

/**
 * cr_afalg_socket() - a new AF_ALG socket.
 * Return: its descriptor, or -EOPNOTSUPP with the reason in @why.
 */
int cr_afalg_socket(char *why, size_t why_size);

/**
 * cr_evp_version() - "openssl-3.0.13": the driver name of the EVP back
 * end into @buf, or the reason libcrypto cannot be loaded.
 * Return: 0, or -EOPNOTSUPP when libcrypto cannot be loaded.
 */
int cr_evp_version(char *buf, size_t size);

/**
 * struct cr_pkey - a key pair of libcrypto, and a signature to verify.
 * @key:        the key (EVP_PKEY).
 * @sign_ctx:   a context initialised for signing (EVP_PKEY_CTX).
 * @verify_ctx: one initialised for verifying.
 * @tbs_bytes:  bytes signed: openssl speed's 36 (RSA) or 20 (ECDSA).
 * @sig_bytes:  length of @sig.
 * @tbs:        what is signed.
 * @sig:        its signature, made by cr_pkey_check().
 */
struct cr_pkey {
	void *key;
	void *sign_ctx;
	void *verify_ctx;
	size_t tbs_bytes;
	size_t sig_bytes;
	unsigned char tbs[36];
	unsigned char sig[512];
};

/**
 * cr_pkey_open() - generate a key with libcrypto and set up its signing
 * and verifying contexts; cr_pkey_close() it also after a failure.
 * @type:  "RSA" or "EC".
 * @curve: EC: the curve ("P-256"); RSA: NULL.
 * @bits:  RSA: the modulus's bits.
 * Return: 0, -EOPNOTSUPP (no libcrypto, or it refuses the key), -ENOMEM.
 */
int cr_pkey_open(struct cr_pkey *pk, const char *type, const char *curve, unsigned bits,
		 char *why, size_t why_size);

/** cr_pkey_sign() - sign @pk->tbs into @pk->sig. Return: 0 or -EIO. */
int cr_pkey_sign(struct cr_pkey *pk);

/** cr_pkey_verify() - verify @pk->sig of @pk->tbs. Return: 0, or -EBADMSG when it does not verify. */
int cr_pkey_verify(struct cr_pkey *pk);

/**
 * cr_pkey_check() - sign, verify the signature, and verify it again with
 * one bit flipped, which must fail (no fixed keys: a round trip, not a
 * known answer; doc/methodology-crypto.md).
 * Return: 0, or -EIO saying which step went wrong.
 */
int cr_pkey_check(struct cr_pkey *pk, char *why, size_t why_size);

/** cr_pkey_close() - free the key and contexts; safe on a zeroed or closed @pk. */
void cr_pkey_close(struct cr_pkey *pk);

#endif /* EMBPERF_CRYPTO_CRYPTO_H */
