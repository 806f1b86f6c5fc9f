// SPDX-License-Identifier: MIT
/*
 * fork-exit - what a forked child's way out costs, and how that grows with
 * the shared libraries the process maps:
 *
 *   fork-exit [_exit|exit] [FORKS]
 *
 * forks FORKS children (default 300) one after the other, each leaving at
 * once by _exit(0) (default) or exit(0), and waits for each. Prints the
 * microseconds per fork and reap and the page faults per child (the
 * children's minor faults, RUSAGE_CHILDREN).
 *
 * Built twice from this file: fork-exit maps libc alone, as lmbench's
 * lat_proc does; fork-exit-embperf also maps libembperf and the libraries
 * it needs (it calls the library once so that the link keeps it). exit()
 * runs every mapped library's destructors in the child, and each writes to
 * pages the child then copies; _exit() runs none. doc/methodology-os.md
 * (os.proc) gives the figures. Not installed, not run by the tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef FORK_EXIT_EMBPERF
#include <embperf.h>
#endif

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int usage(const char *why)
{
	fprintf(stderr, "fork-exit: %s; usage: fork-exit [_exit|exit] [FORKS (1-1000000)]\n", why);
	return 2;
}

int main(int argc, char **argv)
{
	int use_exit = 0;
	long forks = 300;
	struct rusage before, after;
	double start_us;

	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		use_exit = 1;
	else if (argc > 1 && strcmp(argv[1], "_exit") != 0)
		return usage("the first argument must be _exit or exit");
	if (argc > 2) {
		char *end;

		forks = strtol(argv[2], &end, 10);
		if (*end || forks < 1 || forks > 1000000)
			return usage("FORKS must be a whole number from 1 to 1000000");
	}
#ifdef FORK_EXIT_EMBPERF
	if (!embperf_version_number())
		return 1;
#endif
	fflush(stdout); /* nothing buffered for the children's exit() to write */
	getrusage(RUSAGE_CHILDREN, &before);
	start_us = now_us();
	for (long i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "fork-exit: fork(): %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			if (use_exit)
				exit(0);
			_exit(0);
		}
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	printf("%s: %.1f us a fork, ", use_exit ? "exit" : "_exit", (now_us() - start_us) / forks);
	getrusage(RUSAGE_CHILDREN, &after);
	printf("%.1f page faults a child\n", (double)(after.ru_minflt - before.ru_minflt) / forks);
	return 0;
}
