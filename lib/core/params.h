/* SPDX-License-Identifier: MIT */
/*
 * params.h - parsing and canonical formatting of parameter values.
 */
#ifndef EMBPERF_CORE_PARAMS_H
#define EMBPERF_CORE_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/**
 * struct ep_value - a parsed parameter value.
 * @i:    integer-like types in base units; enum: index; size-range: low bound.
 * @hi:   size-range: high bound (== @i for a single size).
 * @d:    EP_PT_DOUBLE value (also set, converted, for integer-like types).
 * @text: canonical text, malloc'd.
 */
struct ep_value {
	int64_t i;
	int64_t hi;
	double d;
	char *text;
};

/**
 * ep_param_parse() - parse @text for parameter @d.
 * @err: receives "parameter 'NAME': value 'TEXT' ...; accepted: ..." on failure.
 *
 * Return: 0 and *@out filled (free with ep_value_free()); -EINVAL for a
 * malformed value; -ERANGE for a value out of range or overflowing; -ENOMEM.
 */
int ep_param_parse(const struct ep_param_desc *d, const char *text, struct ep_value *out,
		   char *err, size_t errlen);

/** ep_value_free() - free the value's text. */
void ep_value_free(struct ep_value *v);

/** ep_ptype_name() - "size", "duration", ... */
const char *ep_ptype_name(enum ep_ptype type);

/**
 * ep_param_accepted() - what a parameter accepts, for descriptions and
 * messages: "512..1G", "rd|wr|cp", "0..1".
 */
void ep_param_accepted(const struct ep_param_desc *d, char *buf, size_t size);

#endif /* EMBPERF_CORE_PARAMS_H */
