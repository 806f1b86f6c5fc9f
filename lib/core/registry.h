/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the kernels of this build and their combined parameter
 * lists (registry.c).
 */
#ifndef EMBPERF_CORE_REGISTRY_H
#define EMBPERF_CORE_REGISTRY_H

#include "kernel.h"

/** ep_kernel_find() - registry lookup; NULL when there is no such kernel. */
const struct ep_kernel *ep_kernel_find(const char *name);

/**
 * ep_area_left_out() - the area a kernel name belongs to, when that area is
 * one this build left out (-Dareas).
 * @name: a kernel name such as "os.ctx".
 *
 * Return: the area ("os"), or NULL when the name's area is built in or is no
 * known area.
 */
const char *ep_area_left_out(const char *name);

/** ep_areas_built() - the areas of this build, comma-separated ("core,mem,cpu"). */
const char *ep_areas_built(void);

/** ep_kernels_chosen() - -Dkernels= as given ("mem_lat,cpu_ops"), or NULL when every kernel of the areas is in. */
const char *ep_kernels_chosen(void);

/** ep_kernel_param_total() - kernel parameters plus engine parameters. */
int ep_kernel_param_total(const struct ep_kernel *k);

/** ep_kernel_param() - parameter @index of the combined list, or NULL. */
const struct ep_param_desc *ep_kernel_param(const struct ep_kernel *k, int index);

/** ep_kernel_param_index() - index of parameter @name in @k's combined list, or -1. */
int ep_kernel_param_index(const struct ep_kernel *k, const char *name);

/** ep_kernel_param_default() - default text of parameter @index for kernel @k. */
const char *ep_kernel_param_default(const struct ep_kernel *k, int index);

#endif /* EMBPERF_CORE_REGISTRY_H */
