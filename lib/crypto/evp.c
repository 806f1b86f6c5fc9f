// SPDX-License-Identifier: MIT
/*
 * evp.c - the EVP back end: libcrypto (OpenSSL 3), loaded with dlopen() on
 * first use (lib/core/lazylib.h), so that the library neither links it nor
 * needs its headers, and a firmware image that links libembperf statically
 * carries no OpenSSL. Without libcrypto the back end answers -EOPNOTSUPP
 * with the loader's reason.
 *
 * The calls are openssl speed -evp's own: a cipher is one context keyed
 * once, each buffer one EVP_EncryptUpdate() in place; a digest is one
 * EVP_Digest() of the buffer; the cipher or digest is fetched once
 * (EVP_CIPHER_fetch, EVP_MD_fetch) as openssl speed does, not looked up per
 * call. Signatures: EVP_PKEY_sign() and EVP_PKEY_verify() of openssl
 * speed's 36 (RSA) or 20 (ECDSA) bytes with a generated key.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/lazylib.h"
#include "lib/core/util.h"
#include "lib/crypto/crypto.h"

/*
 * libcrypto's functions, declared here for their types (OpenSSL 3.0's
 * prototypes, every handle a void pointer): the table below holds pointers
 * to them, nothing links them.
 */
void *EVP_CIPHER_fetch(void *libctx, const char *algorithm, const char *properties);
void EVP_CIPHER_free(void *cipher);
void *EVP_CIPHER_CTX_new(void);
void EVP_CIPHER_CTX_free(void *ctx);
int EVP_EncryptInit_ex(void *ctx, const void *cipher, void *engine, const unsigned char *key,
		       const unsigned char *iv);
int EVP_EncryptUpdate(void *ctx, unsigned char *out, int *outl, const unsigned char *in,
		      int inl);
void *EVP_MD_fetch(void *libctx, const char *algorithm, const char *properties);
void EVP_MD_free(void *md);
int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size,
	       const void *type, void *engine);
const char *OpenSSL_version(int type);
void *EVP_PKEY_Q_keygen(void *libctx, const char *propq, const char *type, ...);
void EVP_PKEY_free(void *pkey);
void *EVP_PKEY_CTX_new(void *pkey, void *engine);
void EVP_PKEY_CTX_free(void *ctx);
int EVP_PKEY_sign_init(void *ctx);
int EVP_PKEY_sign(void *ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs,
		  size_t tbslen);
int EVP_PKEY_verify_init(void *ctx);
int EVP_PKEY_verify(void *ctx, const unsigned char *sig, size_t siglen,
		    const unsigned char *tbs, size_t tbslen);

#define OSSL_VERSION_STRING 6 /* OpenSSL_version(): "3.0.13" */

#define OSSL_CALLS(X)                                                                       \
	X(EVP_CIPHER_fetch) X(EVP_CIPHER_free) X(EVP_CIPHER_CTX_new) X(EVP_CIPHER_CTX_free)  \
	X(EVP_EncryptInit_ex) X(EVP_EncryptUpdate) X(EVP_MD_fetch) X(EVP_MD_free)            \
	X(EVP_Digest) X(OpenSSL_version) X(EVP_PKEY_Q_keygen) X(EVP_PKEY_free)               \
	X(EVP_PKEY_CTX_new) X(EVP_PKEY_CTX_free) X(EVP_PKEY_sign_init) X(EVP_PKEY_sign)      \
	X(EVP_PKEY_verify_init) X(EVP_PKEY_verify)
EP_LAZYLIB(ossl, OSSL_CALLS, "libcrypto.so.3\0" "libcrypto.so");

/* Load libcrypto; else -EOPNOTSUPP with the loader's reason in @why. */
static int load(char *why, size_t why_size)
{
	const char *fail = EP_LAZYLIB_OPEN(ossl);

	if (!fail)
		return 0;
	return ep_say(why, why_size, -EOPNOTSUPP, "libcrypto of OpenSSL 3 cannot be loaded (%s)",
		      fail);
}

int cr_evp_version(char *buf, size_t size)
{
	int rc = load(buf, size);

	if (!rc)
		snprintf(buf, size, "openssl-%s", ossl.OpenSSL_version(OSSL_VERSION_STRING));
	return rc;
}

static int evp_encrypt(struct cr_op *op, unsigned char *buf, size_t len)
{
	int outl;

	return ossl.EVP_EncryptUpdate(op->evp_ctx, buf, &outl, buf, (int)len) == 1 ? 0 : -EIO;
}

static int evp_digest(struct cr_op *op, unsigned char *buf, size_t len)
{
	return ossl.EVP_Digest(buf, len, op->out, NULL, op->evp_alg, NULL) == 1 ? 0 : -EIO;
}

int cr_evp_open(struct cr_op *op, char *why, size_t why_size)
{
	const struct cr_alg *a = op->alg;
	int rc = load(why, why_size);

	if (rc)
		return rc;
	cr_evp_version(op->driver, sizeof(op->driver));
	if (a->kind == CR_DIGEST) {
		op->evp_alg = ossl.EVP_MD_fetch(NULL, a->name, NULL);
		op->run = evp_digest;
	} else {
		op->evp_alg = ossl.EVP_CIPHER_fetch(NULL, a->name, NULL);
		op->run = evp_encrypt;
	}
	if (!op->evp_alg)
		return ep_say(why, why_size, -EOPNOTSUPP, "libcrypto (%s) offers no %s", op->driver,
			      a->name);
	if (a->kind == CR_DIGEST)
		return 0;
	op->evp_ctx = ossl.EVP_CIPHER_CTX_new();
	if (!op->evp_ctx)
		return -ENOMEM;
	if (ossl.EVP_EncryptInit_ex(op->evp_ctx, op->evp_alg, NULL, a->key, a->iv) != 1)
		return ep_say(why, why_size, -EIO, "libcrypto (%s) cannot key %s", op->driver,
			      a->name);
	return 0;
}

void cr_evp_close(struct cr_op *op)
{
	if (op->evp_ctx)
		ossl.EVP_CIPHER_CTX_free(op->evp_ctx);
	if (op->evp_alg && op->alg->kind == CR_DIGEST)
		ossl.EVP_MD_free(op->evp_alg);
	else if (op->evp_alg)
		ossl.EVP_CIPHER_free(op->evp_alg);
	op->evp_ctx = op->evp_alg = NULL;
}

int cr_pkey_open(struct cr_pkey *pk, const char *type, const char *curve, unsigned bits,
		 char *why, size_t why_size)
{
	int rc = load(why, why_size);

	memset(pk, 0, sizeof(*pk));
	if (rc)
		return rc;
	/* EVP_PKEY_Q_keygen()'s last argument: a size_t for RSA, a string for EC */
	pk->key = curve ? ossl.EVP_PKEY_Q_keygen(NULL, NULL, type, curve)
			: ossl.EVP_PKEY_Q_keygen(NULL, NULL, type, (size_t)bits);
	if (!pk->key)
		return ep_say(why, why_size, -EOPNOTSUPP, "libcrypto cannot make the key");
	pk->sign_ctx = ossl.EVP_PKEY_CTX_new(pk->key, NULL);
	pk->verify_ctx = ossl.EVP_PKEY_CTX_new(pk->key, NULL);
	if (!pk->sign_ctx || !pk->verify_ctx)
		return -ENOMEM;
	if (ossl.EVP_PKEY_sign_init(pk->sign_ctx) != 1 ||
	    ossl.EVP_PKEY_verify_init(pk->verify_ctx) != 1)
		return ep_say(why, why_size, -EOPNOTSUPP, "libcrypto cannot sign or verify with it");
	/* openssl speed's message: 36 bytes for RSA, 20 for ECDSA */
	pk->tbs_bytes = curve ? 20 : 36;
	for (size_t i = 0; i < pk->tbs_bytes; i++)
		pk->tbs[i] = (unsigned char)i;
	return 0;
}

int cr_pkey_sign(struct cr_pkey *pk)
{
	pk->sig_bytes = sizeof(pk->sig);
	return ossl.EVP_PKEY_sign(pk->sign_ctx, pk->sig, &pk->sig_bytes, pk->tbs,
				  pk->tbs_bytes) == 1 ? 0 : -EIO;
}

int cr_pkey_verify(struct cr_pkey *pk)
{
	return ossl.EVP_PKEY_verify(pk->verify_ctx, pk->sig, pk->sig_bytes, pk->tbs,
				    pk->tbs_bytes) == 1 ? 0 : -EBADMSG;
}

int cr_pkey_check(struct cr_pkey *pk, char *why, size_t why_size)
{
	const char *step = "signing";
	int bad;

	if (cr_pkey_sign(pk))
		goto fail;
	step = "verifying its own signature";
	if (cr_pkey_verify(pk))
		goto fail;
	pk->sig[pk->sig_bytes / 2] ^= 0x10;
	bad = cr_pkey_verify(pk);
	pk->sig[pk->sig_bytes / 2] ^= 0x10;
	step = "refusing its signature with a bit flipped";
	if (bad)
		return 0;
fail:
	return ep_say(why, why_size, -EIO, "libcrypto fails at %s", step);
}

void cr_pkey_close(struct cr_pkey *pk)
{
	if (pk->sign_ctx)
		ossl.EVP_PKEY_CTX_free(pk->sign_ctx);
	if (pk->verify_ctx)
		ossl.EVP_PKEY_CTX_free(pk->verify_ctx);
	if (pk->key)
		ossl.EVP_PKEY_free(pk->key);
	pk->sign_ctx = pk->verify_ctx = pk->key = NULL;
}
