// SPDX-License-Identifier: MIT
/*
 * helper_path.c - where the library's helper programs are.
 *
 * An installation keeps the helpers (embperf-hello) under
 * $libexecdir/embperf/, a path fixed at configure time. A build tree keeps
 * them elsewhere: libembperf.so in lib/, the helpers in lib/os/. A program
 * run from the build tree must use the build tree's helpers, or it would
 * fail before 'ninja install' (or exec an older installed copy). The
 * library finds its own file with dladdr() and looks for the helper in
 * EP_OS_BUILD_HELPER_DIR below that file's folder; only when no executable
 * is there does it use the installed path. A program that links the static
 * archive finds its own executable instead, where no helper folder is, and
 * so uses the installed path too.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/os/helper_path.h"
#include "lib/os/os_paths.h"

/* Any object of the library: dladdr() names the file that holds it. */
static const char helper_anchor;

/* Folder of the file this code was loaded from, into @dir; 0 or -1. */
static int own_folder(char *dir, size_t size)
{
	char real[PATH_MAX];
	Dl_info info;
	char *slash;

	if (!dladdr(&helper_anchor, &info) || !info.dli_fname || !*info.dli_fname)
		return -1;
	if (!realpath(info.dli_fname, real))
		return -1;
	slash = strrchr(real, '/');
	if (!slash || (size_t)(slash - real) >= size)
		return -1;
	memcpy(dir, real, (size_t)(slash - real));
	dir[slash - real] = '\0';
	return 0;
}

char *ep_os_helper_path(const char *name, const char *installed_path)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (own_folder(dir, sizeof(dir)) == 0 &&
	    snprintf(path, sizeof(path), "%s/%s/%s", dir, EP_OS_BUILD_HELPER_DIR, name) <
		    (int)sizeof(path) &&
	    access(path, X_OK) == 0)
		return ep_strdup(path);
	return ep_strdup(installed_path);
}
