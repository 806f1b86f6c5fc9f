// SPDX-License-Identifier: MIT
/*
 * session.c - the context a command runs kernels in: budget, CPU, the log
 * and progress callbacks, and the SIGINT/SIGTERM handlers.
 *
 * The library installs no signal handlers: cancelling is the command's job.
 * Its handler only calls embperf_ctx_cancel(), which is async-signal-safe;
 * the run in progress then returns -ECANCELED and the command exits 130.
 * The handlers are installed with SA_RESETHAND, so a second signal kills
 * the command at once if a run ever fails to stop.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

/* The context the signal handler cancels; NULL outside a session. */
static embperf_ctx *volatile signal_ctx;
static struct sigaction saved_sigint, saved_sigterm;

/* Progress line on a terminal: shown, and what it last said. */
static int progress_shown;
static char progress_last[512];

static void on_signal(int signo)
{
	embperf_ctx *ctx = signal_ctx;

	(void)signo;
	if (ctx)
		embperf_ctx_cancel(ctx);
}

static void install_signal_handlers(embperf_ctx *ctx)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	signal_ctx = ctx;
	sigaction(SIGINT, &sa, &saved_sigint);
	sigaction(SIGTERM, &sa, &saved_sigterm);
}

static void restore_signal_handlers(void)
{
	sigaction(SIGINT, &saved_sigint, NULL);
	sigaction(SIGTERM, &saved_sigterm, NULL);
	signal_ctx = NULL;
}

static const char *level_name(int level)
{
	if (level <= EMBPERF_LOG_ERROR)
		return "error";
	if (level == EMBPERF_LOG_WARNING)
		return "warning";
	if (level <= EMBPERF_LOG_INFO)
		return "info";
	return "debug";
}

static void log_to_stderr(void *user_data, int level, const char *message)
{
	(void)user_data;
	cli_progress_clear();
	fprintf(stderr, "embperf: %s: %s\n", level_name(level), message);
}

/* Width of the terminal on stderr, so the progress line never wraps. */
static size_t terminal_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

/*
 * One line, rewritten in place: "[3/56] bw_mem-rd-1mb  op=rd size=1M  42%".
 * It is rewritten only when its text changes, to keep the terminal quiet.
 */
static void show_progress(void *user_data, const char *kernel, const char *what,
			  double fraction)
{
	const struct cli_progress *p = user_data;
	char line[sizeof(progress_last)];
	size_t columns = terminal_columns();
	int pct = (int)(fraction * 100.0 + 0.5);

	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	if (p->count > 1)
		snprintf(line, sizeof(line), "[%d/%d] %s  %s  %d%%", p->index + 1, p->count,
			 p->title ? p->title : kernel, what ? what : "", pct);
	else
		snprintf(line, sizeof(line), "%s  %s  %d%%", kernel, what ? what : "", pct);
	if (strlen(line) >= columns)
		line[columns - 1] = '\0';
	if (progress_shown && strcmp(line, progress_last) == 0)
		return;
	memcpy(progress_last, line, sizeof(line));
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	progress_shown = 1;
}

/**
 * cli_progress_clear() - erase the progress line so that the next message
 * starts on a clean line. Does nothing when no line is shown.
 */
void cli_progress_clear(void)
{
	if (!progress_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_shown = 0;
}

static void set_log_level(const struct cli_options *opt, embperf_ctx *ctx)
{
	int max_level = EMBPERF_LOG_WARNING;

	if (opt->quiet)
		return;
	if (opt->verbose == 1)
		max_level = EMBPERF_LOG_INFO;
	else if (opt->verbose > 1)
		max_level = EMBPERF_LOG_DEBUG;
	embperf_ctx_set_log_fn(ctx, log_to_stderr, NULL, max_level);
}

/**
 * cli_session_open() - create the context a command runs kernels in.
 * @opt:      options: --budget, --cpu, -q, -v.
 * @progress: state the progress line shows; NULL for no progress line. The
 *            line is shown only when stderr is a terminal and -q is not set.
 * @ctx:      receives the context; close it with cli_session_close().
 *
 * Return: CLI_EXIT_OK; CLI_EXIT_USAGE for a CPU the process may not use;
 * CLI_EXIT_RUN when the context cannot be created.
 */
int cli_session_open(const struct cli_options *opt, struct cli_progress *progress,
		     embperf_ctx **ctx)
{
	embperf_ctx *c = embperf_ctx_new();
	int err;

	if (!c) {
		cli_error("cannot create a context: %s", embperf_strerror(-errno));
		return CLI_EXIT_RUN;
	}
	if (opt->cpu >= 0) {
		err = embperf_ctx_set_cpu(c, opt->cpu);
		if (err < 0) {
			cli_error("--cpu: %s", embperf_ctx_errmsg(c));
			embperf_ctx_free(c);
			return CLI_EXIT_USAGE;
		}
	}
	set_log_level(opt, c);
	if (progress && !opt->quiet && isatty(STDERR_FILENO))
		embperf_ctx_set_progress_fn(c, show_progress, progress);
	/* The budget starts now: set it last, once the context is ready. */
	if (opt->budget_ns)
		embperf_ctx_set_budget_ns(c, opt->budget_ns);
	install_signal_handlers(c);
	*ctx = c;
	return CLI_EXIT_OK;
}

/**
 * cli_session_close() - end a session.
 * @ctx: context from cli_session_open(), or NULL.
 */
void cli_session_close(embperf_ctx *ctx)
{
	if (!ctx)
		return;
	restore_signal_handlers();
	cli_progress_clear();
	embperf_ctx_free(ctx);
}

int cli_exit_of_run(int err)
{
	if (err == 0)
		return CLI_EXIT_OK;
	if (err == -ECANCELED)
		return CLI_EXIT_CANCELLED;
	if (err == -ETIME)
		return CLI_EXIT_BUDGET;
	return CLI_EXIT_RUN;
}

int cli_exit_worse(int a, int b)
{
	static const int order[] = {
		CLI_EXIT_CANCELLED, CLI_EXIT_USAGE, CLI_EXIT_FILE, CLI_EXIT_BUDGET,
		CLI_EXIT_RUN,       CLI_EXIT_REGRESSION,
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return CLI_EXIT_OK;
}
