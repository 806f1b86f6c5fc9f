// SPDX-License-Identifier: MIT
/*
 * registry.c - the kernels of this build, and their descriptions.
 *
 * Adding a kernel: one file in its area's folder and one line in
 * kernels.def, in its area's `#if EMBPERF_AREA_<AREA>` block.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#include "cfg.h"
#include "params.h"
#include "registry.h"
#include "result.h"
#include "util.h"

#define EP_KERNEL(sym) extern const struct ep_kernel ep_kernel_##sym;
#include "kernels.def"
#undef EP_KERNEL

/*
 * EP_ENTRY_IF(EMBPERF_KERNEL_sym, x): "x," when config.h set the kernel's macro to 1
 * (-Dkernels= chose it, or chose none), nothing when 0. A kernel left out
 * is not referenced, so a static link drops its code.
 */
#define EP_PASTE_(a, b) a##b
#define EP_PASTE(a, b) EP_PASTE_(a, b)
#define EP_ENTRY_1(x) x,
#define EP_ENTRY_0(x)
#define EP_ENTRY_IF(flag, x) EP_PASTE(EP_ENTRY_, flag)(x)

static const struct ep_kernel *const kernels[] = {
#define EP_KERNEL(sym) EP_ENTRY_IF(EMBPERF_KERNEL_##sym, &ep_kernel_##sym)
#include "kernels.def"
#undef EP_KERNEL
};

int embperf_kernel_count(void)
{
	return (int)EP_ARRAY_SIZE(kernels);
}

const char *embperf_kernel_name(int index)
{
	if (index < 0 || index >= embperf_kernel_count())
		return NULL;
	return kernels[index]->name;
}

const struct ep_kernel *ep_kernel_find(const char *name)
{
	for (size_t i = 0; name && i < EP_ARRAY_SIZE(kernels); i++)
		if (!strcmp(kernels[i]->name, name))
			return kernels[i];
	return NULL;
}

const char *ep_area_left_out(const char *name)
{
	static const struct {
		const char *name;
		int built;
	} areas[] = { EMBPERF_AREA_TABLE };
	size_t len;

	if (!name)
		return NULL;
	/* A kernel's area is the first component of its name. */
	len = strcspn(name, ".");
	for (size_t i = 0; name[len] && i < EP_ARRAY_SIZE(areas); i++)
		if (strlen(areas[i].name) == len && !strncmp(areas[i].name, name, len))
			return areas[i].built ? NULL : areas[i].name;
	return NULL;
}

const char *ep_areas_built(void)
{
	return EMBPERF_AREAS;
}

const char *ep_kernels_chosen(void)
{
	return EMBPERF_KERNELS[0] ? EMBPERF_KERNELS : NULL;
}

/* The kernel's summary; NULL with errno ENOENT when absent. */
const char *embperf_kernel_summary(const char *kernel)
{
	const struct ep_kernel *k = ep_kernel_find(kernel);

	if (!k)
		errno = ENOENT;
	return k ? k->summary : NULL;
}

int ep_kernel_param_total(const struct ep_kernel *k)
{
	return k->n_params + ep_engine_param_count(k);
}

const struct ep_param_desc *ep_kernel_param(const struct ep_kernel *k, int index)
{
	if (index < 0 || index >= ep_kernel_param_total(k))
		return NULL;
	if (index < k->n_params)
		return &k->params[index];
	return ep_engine_param(k, index - k->n_params);
}

int ep_kernel_param_index(const struct ep_kernel *k, const char *name)
{
	for (int i = 0; name && i < ep_kernel_param_total(k); i++)
		if (!strcmp(ep_kernel_param(k, i)->name, name))
			return i;
	return -1;
}

const char *ep_kernel_param_default(const struct ep_kernel *k, int index)
{
	const struct ep_param_desc *d = ep_kernel_param(k, index);

	if (!d)
		return NULL;
	if (index >= k->n_params && k->engine_defaults) {
		for (const struct ep_default *o = k->engine_defaults; o->name; o++)
			if (!strcmp(o->name, d->name))
				return o->value;
	}
	return d->def ? d->def : "";
}

int embperf_kernel_param_count(const char *kernel)
{
	const struct ep_kernel *k = ep_kernel_find(kernel);

	return k ? ep_kernel_param_total(k) : -ENOENT;
}

/* Copy @text to the caller's buffer; return its full length. */
static int copy_out(const char *text, char *buf, size_t size)
{
	if (!text)
		return -EINVAL;
	if (size)
		snprintf(buf, size, "%s", text);
	return (int)strlen(text);
}

int embperf_kernel_param_info(const char *kernel, int index, enum embperf_info field, char *buf,
			      size_t size)
{
	const struct ep_kernel *k = ep_kernel_find(kernel);
	const struct ep_param_desc *d = k ? ep_kernel_param(k, index) : NULL;
	char range[256];

	if (!d)
		return -ENOENT;
	switch (field) {
	case EMBPERF_INFO_NAME:
		return copy_out(d->name, buf, size);
	case EMBPERF_INFO_TYPE:
		return copy_out(ep_ptype_name(d->type), buf, size);
	case EMBPERF_INFO_DEFAULT:
		return copy_out(ep_kernel_param_default(k, index), buf, size);
	case EMBPERF_INFO_RANGE:
		ep_param_accepted(d, range, sizeof(range));
		return copy_out(range, buf, size);
	case EMBPERF_INFO_UNIT:
		return copy_out(d->unit ? d->unit : "", buf, size);
	case EMBPERF_INFO_HELP:
		return copy_out(d->help ? d->help : "", buf, size);
	case EMBPERF_INFO_GROUP:
		return copy_out(index < k->n_params ? "kernel" : "engine", buf, size);
	default:
		return -EINVAL;
	}
}

int embperf_kernel_metric_count(const char *kernel)
{
	const struct ep_kernel *k = ep_kernel_find(kernel);

	return k ? k->n_metrics : -ENOENT;
}

int embperf_kernel_metric_info(const char *kernel, int index, enum embperf_info field, char *buf,
			       size_t size)
{
	const struct ep_kernel *k = ep_kernel_find(kernel);
	const struct ep_metric_desc *m;

	if (!k || index < 0 || index >= k->n_metrics)
		return -ENOENT;
	m = &k->metrics[index];
	switch (field) {
	case EMBPERF_INFO_NAME:
		return copy_out(m->name, buf, size);
	case EMBPERF_INFO_UNIT:
		return copy_out(m->unit, buf, size);
	case EMBPERF_INFO_HELP:
		return copy_out(m->help ? m->help : "", buf, size);
	case EMBPERF_INFO_PRIMARY:
		return copy_out(ep_primary_name(m->primary), buf, size);
	case EMBPERF_INFO_BETTER:
		return copy_out(ep_better_name(m->higher_better), buf, size);
	default:
		return -EINVAL;
	}
}
