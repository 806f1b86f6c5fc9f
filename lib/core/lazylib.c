// SPDX-License-Identifier: MIT
/*
 * lazylib.c - a shared library loaded when first needed (lazylib.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "lazylib.h"

/* load() - ep_lazylib_open()'s first call: 0, or -1 with @l->why set. */
static int load(struct ep_lazylib *l, void *table, size_t n, const char *names,
		const char *sonames)
{
	void *lib = NULL;
	size_t i;

	for (; !lib && *sonames; sonames += strlen(sonames) + 1)
		lib = dlopen(sonames, RTLD_NOW | RTLD_LOCAL);
	for (i = 0; lib && i < n; i++, names += strlen(names) + 1) {
		void *fn = dlsym(lib, names);

		if (!fn)
			break;
		/* copied, not assigned: the table's fields are function pointers */
		memcpy((char *)table + i * sizeof(fn), &fn, sizeof(fn));
	}
	if (lib && i == n)
		return 0;
	snprintf(l->why, sizeof(l->why), "%s", dlerror());
	if (lib) {
		/* A library without every symbol is not used: close it, and
		 * leave no pointer into it behind. */
		memset(table, 0, n * sizeof(void *));
		dlclose(lib);
	}
	return -1;
}

const char *ep_lazylib_open(struct ep_lazylib *l, void *table, size_t n, const char *names,
			    const char *sonames)
{
	int state;

	pthread_mutex_lock(&l->lock);
	if (!l->state)
		l->state = load(l, table, n, names, sonames) ? -1 : 1;
	state = l->state;
	pthread_mutex_unlock(&l->lock);
	return state > 0 ? NULL : l->why;
}
