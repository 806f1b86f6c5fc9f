// SPDX-License-Identifier: MIT
/*
 * os_proc.c - os.proc: process creation costs, the method of lmbench's
 * lat_proc (McVoy & Staelin). One unit is:
 *
 *   fork      fork(); the child _exit()s at once, or with child_exit=exit
 *             calls exit() as lat_proc's child does; the parent waits for it
 *   exec      fork(); the child execve()s `exec_path` (embperf-hello by
 *             default, lmbench's "hello") with an empty environment; the
 *             parent waits for it to exit
 *   sh        fork(); the child runs `shell` -c `exec_path`, as lat_proc
 *             runs /bin/sh -c /tmp/hello; the parent waits
 *   proccall  a call of a function the compiler may not inline, which adds
 *             its argument to a counter (lat_proc "procedure")
 *   cmd       fork(); the child execvp()s the words of `cmd` (the PATH
 *             searched as lat_cmd's execvp() searches it); the parent waits
 *             (lmbench's lat_cmd)
 *
 * The cost of fork() grows with the caller's address space (page tables
 * to copy), so it measures the process that runs the kernel: the small
 * `embperf` command or a front end compares with lat_proc; a large program
 * linking the library measures its own fork.
 *
 * exit() is not the default: in every child it runs the host program's
 * atexit handlers and flushes its stdio buffers, work (and output) of the
 * program that links the library rather than of fork, and the pages those
 * touch, copied on write (figures in doc/methodology-os.md).
 *
 * Children of exec, sh and cmd have their standard output and error on
 * /dev/null (lat_proc closes standard output; lat_cmd leaves them to the
 * command, and a library prints nothing), die with the parent
 * (PR_SET_PDEATHSIG) and are killed when they outlive `child_timeout`, or
 * when the run is cancelled or its budget ends while waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/run.h"
#include "lib/core/util.h"
#include "lib/os/child.h"
#include "lib/os/helper_path.h"
#include "lib/os/os_paths.h"
#include "lib/os/proc_call.h"

#define PROC_EXIT_EXEC_FAILED 127 /* the shell's code for "cannot execute" */

#define PROC_CMD_MAX_WORDS 64

enum proc_op { OP_FORK, OP_EXEC, OP_SH, OP_PROCCALL, OP_CMD };

enum proc_child_exit { CHILD_EXIT_SYSCALL, CHILD_EXIT_LIBC };

/**
 * struct proc_state - the run's state.
 * @run:        the run: cancel and budget checks, failure messages.
 * @op:         what is timed.
 * @child_exit: how fork's child leaves (enum proc_child_exit).
 * @exec_path:  program exec runs, and sh's command.
 * @shell:      the shell of sh.
 * @command:    sh's command: @exec_path, quoted when the shell would
 *              otherwise split or expand it.
 * @cmd_words:  cmd's words (the argument vector), NULL-terminated; they
 *              point into @cmd_text.
 * @cmd_text:   a copy of parameter 'cmd', cut into words.
 * @devnull:    /dev/null, the children's standard output and error.
 * @timeout_ns: longest a child may live.
 * @counter:    what proccall's callee adds to.
 */
struct proc_state {
	struct ep_run *run;
	int op;
	int child_exit;
	char *exec_path;
	char *shell;
	char *command;
	char *cmd_words[PROC_CMD_MAX_WORDS + 1];
	char *cmd_text;
	int devnull;
	uint64_t timeout_ns;
	long counter;
};

static const struct ep_param_desc proc_params[] = {
	{ "op", EP_PT_ENUM, "fork", { { 0, 0 } }, "fork|exec|sh|proccall|cmd", "",
	  "fork+exit, fork+execve, fork+shell -c, fork+execvp of 'cmd' (these need fork()), or "
	  "a procedure call (lat_proc's rows; cmd: lat_cmd)" },
	{ "exec_path", EP_PT_STRING, EP_OS_HELLO_PATH, { { 0, 0 } }, NULL, "",
	  "program that exec and sh run (lat_proc's hello): embperf-hello as installed" },
	{ "shell", EP_PT_STRING, "/bin/sh", { { 0, 0 } }, NULL, "",
	  "shell that sh runs as 'shell -c exec_path'" },
	{ "cmd", EP_PT_STRING, "", { { 0, 0 } }, NULL, "",
	  "op=cmd: the command line lat_cmd runs, words split at blanks (no quoting; "
	  "op=sh for a shell), the first looked up in PATH" },
	{ "child_exit", EP_PT_ENUM, "_exit", { { 0, 0 } }, "_exit|exit", "",
	  "op=fork: the child leaves by _exit(), or by exit() as lat_proc's does (this program's "
	  "atexit handlers and stdio flush then run in every child)" },
	{ "child_timeout", EP_PT_DURATION, "10s", { { 1000000, 3600000000000LL } }, NULL, "ns",
	  "a child of exec or sh still alive after this is killed and the run fails" },
};

static const struct ep_metric_desc proc_metrics[] = {
	{ "latency", "us", EP_METRIC_TIME, 1000.0, EP_PRIMARY_MEDIAN, 0,
	  "microseconds per process created and reaped (or per procedure call); median as lat_proc" },
};

static int fork_failed(struct proc_state *st, int err)
{
	if (err == -ENOSYS)
		return ep_child_refuse_nofork(st->run, "op", ep_param_text(st->run, "op"),
					      "op=proccall");
	return ep_child_fork_error(st->run, err, "op", ep_param_text(st->run, "op"), 0, "fork()");
}

static int proc_fork(void *arg, uint64_t units)
{
	struct proc_state *st = arg;

	while (units--) {
		int rc = ep_run_check(st->run);
		pid_t pid, r;

		if (rc)
			return rc;
		pid = fork();
		if (pid < 0)
			return fork_failed(st, -errno);
		if (pid == 0) {
			if (st->child_exit == CHILD_EXIT_LIBC)
				exit(0);
			_exit(0);
		}
		do
			r = waitpid(pid, NULL, 0);
		while (r < 0 && errno == EINTR);
		/* ECHILD: the caller ignores SIGCHLD and the kernel reaped it. */
		if (r < 0 && errno != ECHILD)
			return ep_run_fail(st->run, -errno, "os.proc: waitpid(): %s", strerror(errno));
	}
	return 0;
}

/* In the child: output to /dev/null, then become the program. */
static void __attribute__((noreturn)) become(const struct proc_state *st)
{
	static char *const no_env[] = { NULL };

	dup2(st->devnull, STDOUT_FILENO);
	dup2(st->devnull, STDERR_FILENO);
	if (st->op == OP_EXEC) {
		char *const argv[] = { st->exec_path, NULL };

		execve(st->exec_path, argv, no_env);
	} else if (st->op == OP_CMD) {
		execvp(st->cmd_words[0], st->cmd_words); /* lat_cmd's: PATH and environment */
	} else {
		char *const argv[] = { "sh", "-c", st->command, NULL };

		execve(st->shell, argv, environ); /* lat_proc's shell keeps the environment */
	}
	_exit(PROC_EXIT_EXEC_FAILED);
}

/* The child of exec or sh ended badly: say what ran and how it ended. */
static int child_failed(struct proc_state *st, int status)
{
	char how[96];

	ep_child_describe_status(status, how, sizeof(how));
	if (st->op == OP_EXEC)
		return ep_run_fail(st->run, -ECHILD, "parameter 'exec_path': '%s' %s; accepted: a "
				   "program that exits with status 0", st->exec_path, how);
	if (st->op == OP_CMD)
		return ep_run_fail(st->run, -ECHILD, "parameter 'cmd': '%s' %s; accepted: a "
				   "command that exits with status 0", ep_param_text(st->run, "cmd"),
				   how);
	return ep_run_fail(st->run, -ECHILD, "parameters 'shell' and 'exec_path': '%s -c %s' %s; "
			   "accepted: a shell and a program that exit with status 0",
			   st->shell, st->command, how);
}

static int proc_spawn(void *arg, uint64_t units)
{
	struct proc_state *st = arg;

	while (units--) {
		int rc = ep_run_check(st->run), status = 0;
		pid_t pid;

		if (rc)
			return rc;
		pid = ep_child_fork(NULL);
		if (pid < 0)
			return fork_failed(st, (int)pid);
		if (pid == 0)
			become(st);
		rc = ep_child_wait(st->run, pid, st->timeout_ns, &status);
		if (rc == -ETIMEDOUT)
			return ep_run_fail(st->run, rc, "parameter 'child_timeout': the child running "
					   "'%s' was still alive after %s and was killed",
					   st->op == OP_EXEC  ? st->exec_path
					   : st->op == OP_CMD ? ep_param_text(st->run, "cmd")
							      : st->command,
					   ep_param_text(st->run, "child_timeout"));
		if (rc)
			return rc;
		if (status)
			return child_failed(st, status);
	}
	return 0;
}

static void proc_teardown(void *state)
{
	struct proc_state *st = state;

	if (st->devnull >= 0)
		close(st->devnull);
	free(st->exec_path);
	free(st->shell);
	free(st->command);
	free(st->cmd_text);
}

/* A program parameter must name an executable file. */
static int check_program(struct ep_run *run, const char *param, const char *path)
{
	if (!path || !*path)
		return ep_run_fail(run, -EINVAL, "parameter '%s': empty; accepted: the path of an "
				   "executable file", param);
	if (access(path, X_OK) == 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR)
		return ep_run_fail(run, -ENOENT,
				   "parameter '%s': value '%s' does not exist; accepted: the path of "
				   "an executable file%s",
				   param, path,
				   strcmp(param, "exec_path") ? ""
				   : " (the default, embperf-hello, is put there by 'ninja install'; a "
				     "library run from its build tree uses the one built there)");
	return ep_run_fail(run, -errno, "parameter '%s': value '%s' cannot be executed: %s; "
			   "accepted: the path of an executable file", param, path, strerror(errno));
}

/* The shell command: the path itself when the shell reads it as one word
 * (lat_proc passes it bare), otherwise single-quoted. */
static char *shell_command(const char *path)
{
	struct ep_buf b;

	if (!path[strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789/._+-,:@%=")])
		return ep_strdup(path);
	ep_buf_init(&b);
	ep_buf_append(&b, "'", 1);
	for (const char *p = path; *p; p++)
		if (*p == '\'')
			ep_buf_append(&b, "'\\''", 4);
		else
			ep_buf_append(&b, p, 1);
	ep_buf_append(&b, "'", 1);
	return ep_buf_take(&b);
}

/* Does the program @name of a command exist, as execvp() would find it? */
static int in_path(const char *name)
{
	const char *path = getenv("PATH");
	char full[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (path = path ? path : "/bin:/usr/bin"; *path; path += *path == ':') {
		size_t len = strcspn(path, ":");

		snprintf(full, sizeof(full), "%.*s%s%s", (int)len, path, len ? "/" : "", name);
		if (access(full, X_OK) == 0)
			return 1;
		path += len;
	}
	return 0;
}

/* cmd: the words of parameter 'cmd', and their program found. */
static int split_cmd(struct ep_run *run, struct proc_state *st)
{
	const char *cmd = ep_param_text(run, "cmd");
	char *rest = NULL;
	int n = 0;

	st->cmd_text = ep_strdup(cmd);
	if (!st->cmd_text)
		return -ENOMEM;
	for (char *w = strtok_r(st->cmd_text, " \t\n", &rest); w;
	     w = strtok_r(NULL, " \t\n", &rest)) {
		if (n == PROC_CMD_MAX_WORDS)
			return ep_run_fail(run, -E2BIG, "parameter 'cmd': more than %d words; "
					   "accepted: a shorter command line", PROC_CMD_MAX_WORDS);
		st->cmd_words[n++] = w;
	}
	if (!n)
		return ep_run_fail(run, -EINVAL, "parameter 'cmd': empty; accepted with op=cmd: a "
				   "command line such as '/bin/true' or 'ls -l /'");
	if (!in_path(st->cmd_words[0]))
		return ep_run_fail(run, -ENOENT, "parameter 'cmd': program '%s' not found%s; "
				   "accepted: an executable file, by its path or in PATH",
				   st->cmd_words[0], strchr(st->cmd_words[0], '/') ? "" : " in PATH");
	return 0;
}

/* exec, sh and cmd: check the programs, open /dev/null, build the command. */
static int prepare_children(struct ep_run *run, struct proc_state *st)
{
	int rc = st->op == OP_CMD ? split_cmd(run, st) : check_program(run, "exec_path",
									 st->exec_path);

	if (!rc && st->op == OP_SH)
		rc = check_program(run, "shell", st->shell);
	if (rc)
		return rc;
	st->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (st->devnull < 0)
		return ep_run_fail(run, -errno, "os.proc: cannot open /dev/null: %s", strerror(errno));
	st->command = shell_command(st->exec_path);
	return st->command ? 0 : -ENOMEM;
}

/* exec_path as given; its default (the installed path) becomes the build
 * tree's embperf-hello when this library runs from its build tree. */
static char *exec_path(struct ep_run *run)
{
	const char *given = ep_param_text(run, "exec_path");

	if (strcmp(given, EP_OS_HELLO_PATH))
		return ep_strdup(given);
	return ep_os_helper_path("embperf-hello", EP_OS_HELLO_PATH);
}

/*
 * child_exit=exit applies to fork alone. Output the host buffered before the
 * run is written now, so that no child writes a copy of it.
 */
static int check_child_exit(struct ep_run *run, struct proc_state *st)
{
	st->child_exit = (int)ep_param_int(run, "child_exit");
	if (st->child_exit != CHILD_EXIT_LIBC)
		return 0;
	if (st->op != OP_FORK)
		return ep_run_refuse(run, -EINVAL, "child_exit",
				     ": applies to op=fork only, not op=%s; accepted: _exit, or exit "
				     "with op=fork", ep_param_text(run, "op"));
	fflush(NULL);
	return 0;
}

static int proc_setup(struct ep_run *run, void **state)
{
	static const ep_body_fn bodies[] = { proc_fork, proc_spawn, proc_spawn, ep_os_proc_call,
					     proc_spawn };
	struct proc_state *st = *state;
	struct ep_case c = { .metric = 0 };
	int rc = 0;

	st->run = run;
	st->op = (int)ep_param_int(run, "op");
	st->devnull = -1;
	st->timeout_ns = (uint64_t)ep_param_int(run, "child_timeout");
	st->exec_path = exec_path(run);
	st->shell = ep_strdup(ep_param_text(run, "shell"));
	if (!st->exec_path || !st->shell)
		rc = -ENOMEM;
	if (!rc && st->op != OP_FORK && st->op != OP_PROCCALL)
		rc = prepare_children(run, st);
	if (!rc)
		rc = check_child_exit(run, st);
	if (!rc) {
		c.body = bodies[st->op];
		c.arg = st->op == OP_PROCCALL ? (void *)&st->counter : st;
		/* The default's labels stay "op=fork", as before the parameter. */
		rc = st->child_exit == CHILD_EXIT_LIBC
			     ? ep_run_add_params_case(run, &c, "op", "child_exit", NULL)
			     : ep_run_add_params_case(run, &c, "op", NULL);
	}
	return rc;
}

const struct ep_kernel ep_kernel_os_proc = {
	.name = "os.proc",
	.summary = "process creation: fork+exit, fork+exec, fork+/bin/sh -c, procedure call (lmbench lat_proc), a command line (lat_cmd); needs fork() but for op=proccall",
	EP_PARAMS(proc_params),
	EP_METRICS(proc_metrics),
	.engine_defaults = ep_lmbench_defaults,
	.setup = proc_setup,
	.teardown = proc_teardown,
	.state_bytes = sizeof(struct proc_state),
};
