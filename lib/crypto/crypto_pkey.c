// SPDX-License-Identifier: MIT
/*
 * crypto_pkey.c - crypto.pkey: RSA and ECDSA signatures and verifications
 * per second through libcrypto, as `openssl speed -elapsed rsa2048
 * ecdsap256` counts them (doc/methodology-crypto.md).
 *
 * A kernel of its own beside crypto.speed: its figure is operations of a
 * key per second, not bytes of a buffer; its parameter is the key, not
 * buffer sizes; and it has one back end, the kernel's AF_ALG having no
 * public-key signatures. One trial case per key and operation; the key is
 * generated in setup (openssl speed uses fixed test keys: the time of an
 * operation does not depend on which key of a size it is), and each key
 * signs, verifies its signature and refuses it with one bit flipped before
 * anything is timed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/util.h"
#include "lib/crypto/crypto.h"

#define PKEY_LABEL_MAX 128

enum { M_OPS, M_CPU_PROCESS, M_CPU_SYSTEM };

/** struct pkey_kind - a key openssl speed names: RSA of @bits, or ECDSA on @curve. */
struct pkey_kind {
	const char *name;
	const char *curve;
	unsigned bits;
};

static const struct pkey_kind pkey_kinds[] = {
	{ "rsa1024", NULL, 1024 },     { "rsa2048", NULL, 2048 },     { "rsa3072", NULL, 3072 },
	{ "rsa4096", NULL, 4096 },     { "ecdsap256", "P-256", 0 }, { "ecdsap384", "P-384", 0 },
	{ "ecdsap521", "P-521", 0 },
};
#define PKEY_N_KINDS ((int)EP_ARRAY_SIZE(pkey_kinds))

/* pkey_kinds' names; the end of the parameter's help, and of its error (one string) */
#define PKEY_NAMES "rsa1024, rsa2048, rsa3072, rsa4096, ecdsap256, ecdsap384, ecdsap521"

static const struct ep_param_desc pkey_params[] = {
	{ "key", EP_PT_STRING, "rsa2048,ecdsap256", { { 0, 0 } }, NULL, "",
	  "keys, comma-separated, from " PKEY_NAMES },
};

static const struct ep_metric_desc pkey_metrics[] = {
	[M_OPS] = { "ops", "ops/s", EP_METRIC_TRIAL_OPS, 1.0, EP_PRIMARY_MEDIAN, 1,
		    "signs (op=sign) or verifies (op=verify) per second" },
	[M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_THIS_PROCESS_HELP),
	[M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM("the system's CPU load, % of all CPUs (/proc/stat)"),
};

/** struct pkey_case - one key, signing or verifying. */
struct pkey_case {
	struct pkey_state *st;
	struct cr_pkey *pk;
	int sign;
	char label[PKEY_LABEL_MAX];
};

/** struct pkey_state - the run's state: the keys (@n_keys) of @kinds and their cases. */
struct pkey_state {
	struct ep_run *run;
	int n_keys;
	const struct pkey_kind *kinds[PKEY_N_KINDS];
	struct cr_pkey keys[PKEY_N_KINDS];
	struct pkey_case cases[2 * PKEY_N_KINDS];
};

/** pkey_body() - one trial: sign (or verify) until the engine says stop. */
static int pkey_body(void *arg, struct ep_trial *t)
{
	struct pkey_case *c = arg;
	struct ep_tally *ta = ep_trial_tally(t);

	while (ep_trial_running(t)) {
		int rc = c->sign ? cr_pkey_sign(c->pk) : cr_pkey_verify(c->pk);

		if (rc)
			return ep_run_fail(c->st->run, rc, "crypto.pkey: %s: %s", c->label,
					   strerror(-rc));
		ep_tally_add(ta, 1, 0);
	}
	return 0;
}

static const struct pkey_kind *find_kind(const char *name)
{
	for (int i = 0; i < PKEY_N_KINDS; i++)
		if (!strcmp(pkey_kinds[i].name, name))
			return &pkey_kinds[i];
	return NULL;
}

/* Generate key @k, check it and add its two cases. */
static int add_key(struct pkey_state *st, const struct pkey_kind *k, const char *driver)
{
	struct cr_pkey *pk = &st->keys[st->n_keys];
	char why[CR_WHY_MAX];
	int rc;

	st->kinds[st->n_keys++] = k;
	rc = cr_pkey_open(pk, k->curve ? "EC" : "RSA", k->curve, k->bits, why, sizeof(why));
	if (!rc)
		rc = cr_pkey_check(pk, why, sizeof(why));
	if (rc)
		return ep_run_fail(st->run, rc, "crypto.pkey: key %s: %s", k->name, why);
	for (int sign = 1; sign >= 0; sign--) {
		struct pkey_case *c = &st->cases[2 * (st->n_keys - 1) + (1 - sign)];
		struct ep_trial_case tc = { .body = pkey_body, .arg = c, .labels = c->label };

		c->st = st;
		c->pk = pk;
		c->sign = sign;
		snprintf(c->label, sizeof(c->label), "key=%s op=%s driver=%s", k->name,
			 sign ? "sign" : "verify", driver);
		if ((rc = ep_run_add_trial(st->run, &tc)))
			return rc;
	}
	return 0;
}

static void pkey_teardown(void *state)
{
	struct pkey_state *st = state;

	for (int i = 0; i < st->n_keys; i++)
		cr_pkey_close(&st->keys[i]);
}

static int pkey_setup(struct ep_run *run, void **state)
{
	struct pkey_state *st = *state;
	const char *text = ep_param_text(run, "key"), *p = text;
	char why[CR_WHY_MAX], driver[CR_DRIVER_MAX], item[32];
	int rc;

	st->run = run;
	if ((rc = cr_evp_version(why, sizeof(why))))
		return ep_run_fail(run, rc, "crypto.pkey: %s", why);
	snprintf(driver, sizeof(driver), "%.*s", CR_DRIVER_MAX - 1, why);
	while ((rc = cr_list_item(&p, item, sizeof(item))) > 0) {
		const struct pkey_kind *k = find_kind(item);

		for (int i = 0; k && i < st->n_keys; i++)
			k = st->kinds[i] == k ? NULL : k; /* listed twice */
		if (!k)
			break;
		if ((rc = add_key(st, k, driver)))
			return rc;
	}
	if (rc == 0 && st->n_keys)
		return 0;
	return ep_run_refuse(run, -EINVAL, "key", "%s%s%s is not accepted; accepted: distinct "
			     "keys, comma-separated, from %s", rc > 0 ? ": item '" : "",
			     rc > 0 ? item : "", rc > 0 ? "'" : "", PKEY_NAMES);
}

const struct ep_kernel ep_kernel_crypto_pkey = {
	.name = "crypto.pkey",
	.summary = "RSA and ECDSA signs and verifies per second and CPU load, as openssl speed",
	EP_PARAMS(pkey_params),
	EP_METRICS(pkey_metrics),
	.engine_defaults = cr_defaults,
	.setup = pkey_setup,
	.teardown = pkey_teardown,
	.state_bytes = sizeof(struct pkey_state),
	.cpu_bound = 1,
	.trials = 1,
};
