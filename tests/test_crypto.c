// SPDX-License-Identifier: MIT
/*
 * test_crypto.c - crypto.speed and crypto.pkey (lib/crypto): each back
 * end's answer to every known vector, a corrupted vector (answer, key or
 * input) caught by the check, a foreign key caught by the signature check,
 * the driver lookup in /proc/crypto, bad parameters named with what is
 * accepted, the algorithms a back end offers, and a short run's figures.
 *
 * A back end this machine lacks (libcrypto, AF_ALG sockets: many VMs and
 * containers have none) makes its tests skip naming it; the VM tier
 * (tests/vm/crypto-afalg.sh) runs the AF_ALG path on Debian's kernel.
 * Figures are held to gross bounds only (a unit mistake, a factor of 1000),
 * and to relations that hold whatever the load: kB/s is 1000 x MB/s.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embperf.h"
#include "lib/crypto/crypto.h"
#include "proc_state.h"

static embperf_ctx *ctx;
static embperf_bench *b;

static void setup(void)
{
	ctx = embperf_ctx_new();
	cr_assert(ctx);
}

static void teardown(void)
{
	embperf_bench_free(b);
	b = NULL;
	embperf_ctx_free(ctx);
}

TestSuite(crypto, .init = setup, .fini = teardown, .timeout = 120);

/* Skip the test, naming what is missing, when @backend is not there. */
static void need_backend(int backend)
{
	char why[CR_WHY_MAX];

	if (cr_backend_check(backend, why, sizeof(why)))
		cr_skip_test("backend %s is not on this machine: %s", cr_backend_name(backend), why);
}

/*
 * Every algorithm @backend offers passes its known vector, its buffers
 * travelling as @io says (an AIO one: the ciphers only); returns how many.
 */
static int check_all(int backend, int io)
{
	int checked = 0;

	for (int i = 0; i < CR_N_ALGS; i++) {
		struct cr_op op;
		char why[CR_WHY_MAX];
		int rc;

		if (io != CR_IO_SYNC && cr_algs[i].kind != CR_CIPHER)
			continue;
		rc = cr_op_open(&op, &cr_algs[i], backend, io, why, sizeof(why));

		if (rc == -EOPNOTSUPP) {
			cr_log_info("%s: %s not offered: %s", cr_backend_name(backend),
				    cr_algs[i].name, why);
			cr_op_close(&op);
			continue;
		}
		cr_assert_eq(rc, 0, "%s: %s", cr_algs[i].name, why);
		rc = cr_op_check(&op, why, sizeof(why));
		cr_assert_eq(rc, 0, "%s", why);
		cr_log_info("%s io=%s %s: driver %s, known vector right", cr_backend_name(backend),
			    cr_io_name(io), cr_algs[i].name, op.driver);
		cr_op_close(&op);
		checked++;
	}
	return checked;
}

Test(crypto, evp_answers_every_known_vector)
{
	need_backend(CR_EVP);
	/* OpenSSL 3's default provider has all of them (single DES would be legacy) */
	cr_assert_eq(check_all(CR_EVP, CR_IO_SYNC), CR_N_ALGS);
}

Test(crypto, afalg_answers_every_known_vector_it_offers)
{
	need_backend(CR_AFALG);
	cr_assert_gt(check_all(CR_AFALG, CR_IO_SYNC), 0, "the kernel offers none of them through AF_ALG");
}

Test(crypto, afalg_aio_answers_every_cipher_known_vector_it_offers)
{
	need_backend(CR_AFALG);
	for (int io = CR_IO_AIO; io <= CR_IO_AIO_SPLICE; io++)
		cr_assert_gt(check_all(CR_AFALG, io), 0,
			     "the kernel offers no cipher through AF_ALG (io=%s)", cr_io_name(io));
}

/*
 * @bytes of a known pattern at @offset into a page-aligned buffer (freed
 * by the caller), encrypted by a fresh aes-128-cbc through AF_ALG and @io.
 */
static unsigned char *encrypt_pattern(int io, size_t offset, size_t bytes)
{
	unsigned char *page = NULL;
	struct cr_op op;
	char why[CR_WHY_MAX];
	int rc;

	cr_assert_eq(posix_memalign((void **)&page, 4096, offset + bytes), 0);
	for (size_t i = 0; i < bytes; i++)
		page[offset + i] = (unsigned char)(i * 7 + 3);
	rc = cr_op_open(&op, cr_alg_find("aes-128-cbc"), CR_AFALG, io, why, sizeof(why));
	if (rc == -EOPNOTSUPP) {
		cr_op_close(&op);
		free(page);
		cr_skip_test("aes-128-cbc through AF_ALG io=%s: %s", cr_io_name(io), why);
	}
	cr_assert_eq(rc, 0, "%s", why);
	rc = op.run(&op, page + offset, bytes);
	cr_op_close(&op);
	cr_assert_eq(rc, 0, "io=%s, %zu bytes at offset %zu: %s", cr_io_name(io), bytes, offset,
		     strerror(-rc));
	return page;
}

/*
 * 64 KiB at a 64-byte offset spans 17 pages, one more than a pipe's slots:
 * io=aio-splice moves it in two vmsplice()/splice() rounds. Every path
 * must give io=sync's ciphertext.
 */
Test(crypto, the_aio_paths_give_the_sync_answer_for_a_64k_buffer_afalg)
{
	const size_t offset = 64, bytes = 64 * 1024;
	unsigned char *want;

	need_backend(CR_AFALG);
	want = encrypt_pattern(CR_IO_SYNC, offset, bytes);
	for (int io = CR_IO_AIO; io <= CR_IO_AIO_SPLICE; io++) {
		unsigned char *got = encrypt_pattern(io, offset, bytes);

		cr_assert_eq(memcmp(got + offset, want + offset, bytes), 0,
			     "io=%s differs from io=sync", cr_io_name(io));
		free(got);
	}
	free(want);
}

/* The check of @alg (a corrupted copy) through @backend and @io fails, naming both. */
static void check_fails(const struct cr_alg *alg, int backend, int io)
{
	struct cr_op op;
	char why[CR_WHY_MAX];
	int rc = cr_op_open(&op, alg, backend, io, why, sizeof(why));

	if (rc == -EOPNOTSUPP) {
		cr_op_close(&op);
		return;
	}
	cr_assert_eq(rc, 0, "%s", why);
	rc = cr_op_check(&op, why, sizeof(why));
	cr_op_close(&op);
	cr_assert_eq(rc, -EIO, "a corrupted %s must fail its check (rc %d)", alg->name, rc);
	cr_assert(strstr(why, alg->name) && strstr(why, cr_backend_name(backend)) &&
			  strstr(why, "wrong answer") && (io == CR_IO_SYNC || strstr(why, cr_io_name(io))),
		  "%s", why);
}

/* Corrupted answers (first and last byte compared), keys and inputs; an AIO @io: ciphers. */
static void corrupt_all(int backend, int io)
{
	for (int i = 0; i < CR_N_ALGS; i++) {
		struct cr_alg bad = cr_algs[i];
		unsigned char other[CR_MAX_IN_BYTES];

		if (io != CR_IO_SYNC && bad.kind != CR_CIPHER)
			continue;
		for (int at = 0; at < CR_CHECK_BYTES; at += CR_CHECK_BYTES - 1) {
			bad = cr_algs[i];
			bad.expect[at] ^= 0x01;
			check_fails(&bad, backend, io);
		}
		bad = cr_algs[i];
		memcpy(other, bad.kind == CR_CIPHER ? bad.key : bad.in,
		       bad.kind == CR_CIPHER ? bad.key_bytes : bad.in_bytes);
		other[1] ^= 0x80;
		if (bad.kind == CR_CIPHER)
			bad.key = other;
		else
			bad.in = other;
		check_fails(&bad, backend, io);
	}
}

Test(crypto, a_corrupted_vector_fails_the_check_evp)
{
	need_backend(CR_EVP);
	corrupt_all(CR_EVP, CR_IO_SYNC);
}

Test(crypto, a_corrupted_vector_fails_the_check_afalg)
{
	need_backend(CR_AFALG);
	corrupt_all(CR_AFALG, CR_IO_SYNC);
}

Test(crypto, a_corrupted_vector_fails_the_check_afalg_aio)
{
	need_backend(CR_AFALG);
	corrupt_all(CR_AFALG, CR_IO_AIO);
	corrupt_all(CR_AFALG, CR_IO_AIO_SPLICE);
}

Test(crypto, the_driver_is_the_highest_priority_usable_entry)
{
	char path[] = "/tmp/embperf-crypto-XXXXXX", driver[CR_DRIVER_MAX];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	cr_assert(f);
	fputs("name         : cbc(aes)\ndriver       : cbc(aes-generic)\npriority     : 100\n\n"
	      "name         : cbc(aes)\ndriver       : cbc-aes-sa2ul\npriority     : 300\n"
	      "internal     : no\ntype         : skcipher\n\n"
	      "name         : cbc(aes)\ndriver       : __cbc-aes-ce\npriority     : 400\n"
	      "internal     : yes\n\n"
	      "name         : cbc(aes)\ndriver       : cbc-aes-larval\npriority     : 500\n"
	      "type         : larval\n\n"
	      "name         : ecb(aes)\ndriver       : ecb-aes-sa2ul\npriority     : 900\n\n"
	      "name         : cbc(aes)\ndriver       : cbc-aes-neon\npriority     : 200\n",
	      f);
	fclose(f);
	cr_driver_of(path, "cbc(aes)", driver, sizeof(driver));
	cr_expect_str_eq(driver, "cbc-aes-sa2ul");
	cr_driver_of(path, "ecb(aes)", driver, sizeof(driver));
	cr_expect_str_eq(driver, "ecb-aes-sa2ul");
	cr_driver_of(path, "sha256", driver, sizeof(driver));
	cr_expect_str_eq(driver, "unknown");
	unlink(path);
	cr_driver_of(path, "cbc(aes)", driver, sizeof(driver));
	cr_expect_str_eq(driver, "unknown", "an unreadable file names no driver");
}

Test(crypto, the_algorithms_a_backend_offers_are_listed)
{
	char list[512], why[CR_WHY_MAX];
	int n = cr_offered(CR_EVP, list, sizeof(list)), commas = 0;

	for (const char *p = list; *p; p++)
		commas += *p == ',';
	cr_assert_eq(n ? commas + 1 : 0, n, "%d names in '%s'", n, list);
	if (cr_backend_check(CR_EVP, why, sizeof(why)) == 0) {
		cr_assert_eq(n, CR_N_ALGS, "%s", list);
		cr_assert(strstr(list, "aes-128-cbc") && strstr(list, "sha512"), "%s", list);
	} else {
		cr_assert_eq(n, 0, "no libcrypto, yet '%s'", list);
	}
	n = cr_offered(CR_AFALG, list, sizeof(list));
	if (cr_backend_check(CR_AFALG, why, sizeof(why)))
		cr_assert_eq(n, 0, "no AF_ALG, yet '%s'", list);
	cr_log_info("afalg offers %d: %s", n, list);
}

/* ---- parameters, through the public API ---- */

static void bench(const char *kernel)
{
	b = embperf_bench_new(ctx, kernel);
	cr_assert(b, "%s is registered", kernel);
	tp_set(b, "duration", "50ms");
	tp_set(b, "repetitions", "1");
}

/* The run fails with @err and a message naming each of @words (NULL-ended). */
static void run_fails(int err, const char *const *words)
{
	int rc = embperf_bench_run(b);

	cr_assert_eq(rc, err, "rc %d: %s", rc, embperf_bench_errmsg(b));
	for (; *words; words++)
		cr_assert(strstr(embperf_bench_errmsg(b), *words), "message '%s' names '%s'",
			  embperf_bench_errmsg(b), *words);
}

/* crypto.speed with @name=@value fails with @err naming @words. */
static void speed_refuses(const char *name, const char *value, int err, const char *const *words)
{
	bench("crypto.speed");
	tp_set(b, name, value);
	run_fails(err, words);
	embperf_bench_free(b);
	b = NULL;
}

Test(crypto, bad_alg_and_size_are_named_with_what_is_accepted)
{
	need_backend(CR_EVP);
	speed_refuses("alg", "aes-128-cbc,rot13", -EINVAL,
		      (const char *const[]){ "'alg'", "rot13", "aes-192-ecb", "sha512", "all", NULL });
	speed_refuses("alg", "", -EINVAL, (const char *const[]){ "'alg'", "md5", NULL });
	speed_refuses("alg", "sha1,sha1", -EINVAL, (const char *const[]){ "'alg'", "twice", NULL });
	speed_refuses("size", "16,100", -EINVAL,
		      (const char *const[]){ "'size'", "100", "16-byte", NULL });
	speed_refuses("size", "0", -EINVAL, (const char *const[]){ "'size'", "'0'", "64k", NULL });
	speed_refuses("size", "65537", -EINVAL, (const char *const[]){ "'size'", "64k", NULL });
	speed_refuses("size", "16,,64", -EINVAL, (const char *const[]){ "'size'", "16,,64", NULL });
	speed_refuses("size", "64,64", -EINVAL, (const char *const[]){ "'size'", "twice", NULL });
	bench("crypto.speed");
	tp_set(b, "alg", "des-ede3-cbc");
	tp_set(b, "size", "24,20");
	run_fails(-EINVAL, (const char *const[]){ "'size'", "20", "8-byte", NULL });
}

Test(crypto, a_bad_backend_is_named_with_what_is_accepted)
{
	char why[CR_WHY_MAX];

	bench("crypto.speed");
	cr_assert_eq(embperf_bench_set(b, "backend", "openssl"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "backend") &&
			  strstr(embperf_bench_errmsg(b), "evp|afalg"),
		  "%s", embperf_bench_errmsg(b));
	tp_set(b, "backend", "afalg");
	tp_set(b, "alg", "sha256");
	tp_set(b, "size", "64");
	if (cr_backend_check(CR_AFALG, why, sizeof(why)) == 0) {
		cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
		return;
	}
	run_fails(-EOPNOTSUPP, (const char *const[]){ "'backend'", "afalg", "AF_ALG", "evp", NULL });
}

Test(crypto, io_aio_is_refused_off_the_afalg_cipher_path_and_a_bad_io_named)
{
	/* before the back end is looked for: the same answer with or without it */
	speed_refuses("io", "aio", -EINVAL,
		      (const char *const[]){ "'io'", "'aio'", "backend=evp", "sync", "ciphers", NULL });
	bench("crypto.speed");
	tp_set(b, "backend", "afalg");
	tp_set(b, "alg", "aes-128-cbc,sha256");
	tp_set(b, "io", "aio");
	run_fails(-EINVAL, (const char *const[]){ "'io'", "'aio'", "sha256", "digest", "sync",
						  "backend=afalg", NULL });
	embperf_bench_free(b);
	bench("crypto.speed");
	tp_set(b, "backend", "afalg");
	tp_set(b, "alg", "md5");
	tp_set(b, "io", "aio-splice");
	run_fails(-EINVAL, (const char *const[]){ "'io'", "'aio-splice'", "md5", "digest", NULL });
	embperf_bench_free(b);
	bench("crypto.speed");
	cr_assert_eq(embperf_bench_set(b, "io", "async"), -EINVAL);
	cr_assert(strstr(embperf_bench_errmsg(b), "'io'") &&
			  strstr(embperf_bench_errmsg(b), "async") &&
			  strstr(embperf_bench_errmsg(b), "sync|aio|aio-splice"),
		  "%s", embperf_bench_errmsg(b));
}

Test(crypto, io_is_in_the_labels_of_afalg_only)
{
	need_backend(CR_EVP);
	bench("crypto.speed");
	tp_set(b, "size", "16");
	tp_set(b, "io", "sync");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	for (int i = 0; i < embperf_bench_result_count(b); i++)
		cr_assert_null(strstr(embperf_result_labels(embperf_bench_result(b, i)), "io="),
			       "backend=evp: %s", embperf_result_labels(embperf_bench_result(b, i)));
}

/* ---- a short run ---- */

/* The result of @metric with label alg=@alg and size=@size. */
static const embperf_result *find(const char *metric, const char *alg, const char *size)
{
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);
		char a[32], s[32];

		if (!strcmp(embperf_result_metric(r), metric) &&
		    embperf_result_label(r, "alg", a, sizeof(a)) > 0 && !strcmp(a, alg) &&
		    embperf_result_label(r, "size", s, sizeof(s)) > 0 && !strcmp(s, size))
			return r;
	}
	return NULL;
}

Test(crypto, a_short_run_gives_kilobytes_megabytes_and_cpu_load_per_algorithm)
{
	static const char *const algs[] = { "aes-128-cbc", "sha256" }, *const sizes[] = { "16", "1024" };
	char driver[64];

	need_backend(CR_EVP);
	bench("crypto.speed");
	tp_set(b, "alg", "aes-128-cbc,sha256");
	tp_set(b, "size", "16,1k");
	tp_set(b, "repetitions", "2");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	for (int a = 0; a < 2; a++) {
		double lo = INFINITY, hi = -INFINITY;
		const embperf_result *load = find("cpu_load", algs[a], "all");

		for (int s = 0; s < 2; s++) {
			const embperf_result *kb = find("kbps", algs[a], sizes[s]);
			const embperf_result *mb = find("throughput", algs[a], sizes[s]);
			const embperf_result *cpu = find("cpu_process", algs[a], sizes[s]);

			cr_assert(kb && mb && cpu, "%s size %s: every metric", algs[a], sizes[s]);
			cr_log_info("%s %s bytes: %.0f kB/s, %.1f %% CPU", algs[a], sizes[s],
				    embperf_result_value(kb), embperf_result_value(cpu));
			/* a unit mistake or a stuck loop, not a speed: 0.1 MB/s .. 1 TB/s */
			cr_assert(embperf_result_value(mb) > 0.1 && embperf_result_value(mb) < 1e6,
				  "%g MB/s", embperf_result_value(mb));
			cr_assert_float_eq(embperf_result_value(kb), 1000.0 * embperf_result_value(mb),
					   1e-9 * embperf_result_value(kb), "kB/s is 1000 x MB/s");
			cr_assert_eq(embperf_result_sample_count(cpu), 2);
			for (int k = 0; k < 2; k++) {
				lo = fmin(lo, embperf_result_sample(cpu, k));
				hi = fmax(hi, embperf_result_sample(cpu, k));
			}
			cr_assert_gt(embperf_result_label(kb, "driver", driver, sizeof(driver)), 0);
			cr_assert_eq(strncmp(driver, "openssl-", 8), 0, "%s", driver);
		}
		cr_assert(load, "cpu_load of %s (size=all)", algs[a]);
		/* the mean of its trials' loads lies among them */
		cr_assert(embperf_result_value(load) >= lo - 1e-9 &&
				  embperf_result_value(load) <= hi + 1e-9,
			  "%g outside [%g, %g]", embperf_result_value(load), lo, hi);
	}
}

Test(crypto, alg_all_runs_every_algorithm_the_backend_offers)
{
	char list[512];
	int n = cr_offered(CR_EVP, list, sizeof(list)), loads = 0;

	need_backend(CR_EVP);
	bench("crypto.speed");
	tp_set(b, "alg", "all");
	tp_set(b, "size", "64");
	tp_set(b, "duration", "10ms");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	for (int i = 0; i < embperf_bench_result_count(b); i++)
		loads += !strcmp(embperf_result_metric(embperf_bench_result(b, i)), "cpu_load");
	cr_assert_eq(loads, n, "one CPU load per algorithm offered (%s)", list);
}

/* ---- crypto.pkey ---- */

Test(crypto, a_signature_checks_out_and_a_foreign_key_does_not)
{
	struct cr_pkey a, c;
	char why[CR_WHY_MAX];
	void *swap;

	need_backend(CR_EVP);
	cr_assert_eq(cr_pkey_open(&a, "EC", "P-256", 0, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cr_pkey_open(&c, "EC", "P-256", 0, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cr_pkey_check(&a, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cr_pkey_verify(&a), 0);
	/* a's signature against c's key: the check must say so */
	swap = a.verify_ctx;
	a.verify_ctx = c.verify_ctx;
	c.verify_ctx = swap;
	cr_assert_eq(cr_pkey_check(&a, why, sizeof(why)), -EIO);
	cr_assert(strstr(why, "verifying"), "%s", why);
	cr_pkey_close(&a);
	cr_pkey_close(&c);
}

Test(crypto, pkey_counts_signatures_and_verifications)
{
	need_backend(CR_EVP);
	bench("crypto.pkey");
	tp_set(b, "key", "ecdsap256,rsa1024");
	cr_assert_eq(embperf_bench_run(b), 0, "%s", embperf_bench_errmsg(b));
	cr_assert_eq(embperf_bench_result_count(b), 4 * 3, "2 keys x 2 ops x 3 metrics");
	for (int i = 0; i < embperf_bench_result_count(b); i++) {
		const embperf_result *r = embperf_bench_result(b, i);

		if (strcmp(embperf_result_metric(r), "ops"))
			continue;
		cr_log_info("%s: %.0f ops/s", embperf_result_labels(r), embperf_result_value(r));
		/* 1 a second would be a 1990s board; 10^8 no signature */
		cr_assert(embperf_result_value(r) > 1 && embperf_result_value(r) < 1e8, "%s: %g",
			  embperf_result_labels(r), embperf_result_value(r));
	}
	embperf_bench_free(b);
	b = NULL;
	bench("crypto.pkey");
	tp_set(b, "key", "ecdsap256,dsa2048");
	run_fails(-EINVAL, (const char *const[]){ "'key'", "dsa2048", "rsa4096", "ecdsap521", NULL });
}
