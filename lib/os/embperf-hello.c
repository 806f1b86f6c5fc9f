// SPDX-License-Identifier: MIT
/*
 * embperf-hello.c - the program os.proc starts with fork+exec and with
 * fork+/bin/sh -c (lmbench's lat_proc uses a "hello" program the same way).
 *
 * It does the least a real program does: the dynamic loader and the C
 * runtime start it, it writes one line to standard output and exits 0.
 * os.proc points its standard output at /dev/null. Installed to
 * $libexecdir/embperf/, the default of os.proc's exec_path.
 */
#include <unistd.h>

int main(void)
{
	static const char line[] = "embperf-hello\n";

	return write(STDOUT_FILENO, line, sizeof(line) - 1) < 0;
}
