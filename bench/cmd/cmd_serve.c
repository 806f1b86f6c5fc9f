// SPDX-License-Identifier: MIT
/*
 * cmd_serve.c - `embperf serve`: the peer the network kernels measure
 * against, run on the far side (a PC, another board).
 *
 *   embperf serve [--listen ADDR[:PORT]] [--allow CIDR]... [--max-rate RATE]
 *                 [--max-duration TIME] [--for TIME]
 *
 * It serves until interrupted (Ctrl-C, SIGTERM) or for --for's time, and
 * logs connections and refusals on stderr (not with -q).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

static int apply_settings(const struct cli_options *opt, embperf_server *srv)
{
	static const char *const option_of[] = { "--listen", "--max-rate", "--max-duration" };
	const char *names[] = { "listen", "max_rate", "max_duration" };
	const char *values[] = { opt->listen, opt->max_rate, opt->max_duration };

	for (int i = 0; i < 3; i++) {
		if (values[i] && embperf_server_set(srv, names[i], values[i]) < 0) {
			cli_error("%s: %s", option_of[i], embperf_server_errmsg(srv));
			return CLI_EXIT_USAGE;
		}
	}
	for (int i = 0; i < opt->n_allow; i++) {
		if (embperf_server_set(srv, "allow", opt->allow[i]) < 0) {
			cli_error("--allow: %s", embperf_server_errmsg(srv));
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_EXIT_OK;
}

int cmd_serve(const struct cli_options *opt)
{
	struct cli_options session_opt = *opt;
	embperf_server *srv = NULL;
	embperf_ctx *ctx = NULL;
	int status, rc;

	if (opt->argc) {
		cli_error("serve takes no operands ('%s'); see `embperf help serve`", opt->argv[0]);
		return CLI_EXIT_USAGE;
	}
	/* A server says who connects: info messages unless -q. */
	if (!session_opt.verbose)
		session_opt.verbose = 1;
	status = cli_session_open(&session_opt, NULL, &ctx);
	if (status != CLI_EXIT_OK)
		return status;
	srv = embperf_server_new(ctx);
	if (!srv) {
		cli_error("cannot create the server: %s", embperf_strerror(-errno));
		cli_session_close(ctx);
		return CLI_EXIT_RUN;
	}
	status = apply_settings(opt, srv);
	if (status == CLI_EXIT_OK) {
		rc = embperf_server_start(srv);
		if (rc < 0) {
			cli_error("%s", embperf_server_errmsg(srv));
			status = CLI_EXIT_RUN;
		}
	}
	if (status == CLI_EXIT_OK) {
		rc = embperf_server_run(srv, opt->serve_for_ns ? opt->serve_for_ns : UINT64_MAX);
		if (rc == -ECANCELED)
			status = CLI_EXIT_OK; /* interrupted: the normal end of a server */
		else if (rc < 0) {
			cli_error("serve: %s", embperf_strerror(rc));
			status = CLI_EXIT_RUN;
		}
	}
	embperf_server_free(srv);
	cli_session_close(ctx);
	return status;
}
