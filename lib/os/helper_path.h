/* SPDX-License-Identifier: MIT */
/*
 * helper_path.h - where the library's helper programs (embperf-hello) are.
 */
#ifndef EMBPERF_OS_HELPER_PATH_H
#define EMBPERF_OS_HELPER_PATH_H

/**
 * ep_os_helper_path() - the helper program @name of this copy of the library.
 * @name:           the program's file name, "embperf-hello".
 * @installed_path: where an installation keeps it (the configured libexec path).
 *
 * A library loaded from its build tree uses the helper built next to it
 * (EP_OS_BUILD_HELPER_DIR below the folder of the library's own file), so
 * the build tree's command, front ends and Python bindings run without an
 * installation; any other copy uses @installed_path.
 *
 * Return: a path the caller frees, or NULL when out of memory.
 */
char *ep_os_helper_path(const char *name, const char *installed_path);

#endif /* EMBPERF_OS_HELPER_PATH_H */
