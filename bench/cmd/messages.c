// SPDX-License-Identifier: MIT
/*
 * messages.c - what the command says on stderr. Results go to stdout (or
 * -o FILE); everything else, errors and notes, goes here, prefixed with the
 * command's name so scripts that merge the streams can still tell them apart.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static void vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void vsay(const char *fmt, va_list ap)
{
	cli_progress_clear();
	fputs("embperf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * cli_error() - report an error.
 * @fmt: printf format of the message, without the trailing newline.
 */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

/**
 * cli_note() - report something worth knowing that is not an error.
 * @opt: options; -q silences notes.
 * @fmt: printf format of the message, without the trailing newline.
 */
void cli_note(const struct cli_options *opt, const char *fmt, ...)
{
	va_list ap;

	if (opt->quiet)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}
