// SPDX-License-Identifier: MIT
/*
 * lazylib.c - a shared library loaded when first needed (lazylib.h).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "lazylib.h"

int ep_lazylib_load(const char *const *sonames, const char *const *names, void **fns, size_t n,
		    char *why, size_t why_len)
{
	void *lib = NULL;
	size_t i = 0;

	for (; !lib && *sonames; sonames++)
		lib = dlopen(*sonames, RTLD_NOW | RTLD_LOCAL);
	while (lib && i < n && (fns[i] = dlsym(lib, names[i])))
		i++;
	if (lib && i == n)
		return 0;
	snprintf(why, why_len, "%s", dlerror());
	return -1;
}
