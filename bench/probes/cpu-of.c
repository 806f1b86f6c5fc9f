// SPDX-License-Identifier: MIT
/*
 * cpu-of - a command's whole CPU time, every process and thread of it:
 *
 *   cpu-of FILE COMMAND [ARG...]
 *
 * runs COMMAND, waits for it, and writes "USER_US SYSTEM_US" to FILE: the
 * rusage of the children waited for (RUSAGE_CHILDREN), which takes in the
 * command's threads, the processes it forked and waited for, and the
 * io_uring workers (io-wq threads belong to the process that made the ring).
 * Exits with the command's status. bench/fidelity/compare-fio-vm.sh wraps fio and
 * embperf in it alike, so that their CPU per I/O is counted the same way
 * whatever each tool reports of itself (fio: its job thread's RUSAGE_THREAD;
 * blk.io: its process's RUSAGE_SELF). Not installed, not run by the tests.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long long tv_us(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int status = 0;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: cpu-of FILE COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cpu-of: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cpu-of: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		out = fopen(argv[1], "w");
		if (!out) {
			fprintf(stderr, "cpu-of: %s: %s\n", argv[1], strerror(errno));
			return 2;
		}
		fprintf(out, "%lld %lld\n", tv_us(ru.ru_utime), tv_us(ru.ru_stime));
		fclose(out);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
