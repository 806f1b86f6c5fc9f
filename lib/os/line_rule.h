/* SPDX-License-Identifier: MIT */
/*
 * line_rule.h - the cache line size from a curve of time per load against
 * stride (os.cacheline), apart from the measuring so that tests can apply
 * it to synthetic curves.
 */
#ifndef EMBPERF_OS_LINE_RULE_H
#define EMBPERF_OS_LINE_RULE_H

#include <stddef.h>

#define EP_LINE_JUMP 1.3  /* line_find: a rise over the previous stride that marks the jump */
#define EP_LINE_FLAT 1.15 /* line_find: a rise small enough to count as the plateau */
/* The smallest line size the rule reports: no CPU has a line under 16
 * bytes, so a plateau after 4 or 8 bytes (strides start at a pointer's
 * size) is noise, seen on a flat emulated curve in the armhf CI job. */
#define EP_LINE_MIN_BYTES 16

/**
 * ep_line_find() - lmbench line_find's rule on a curve.
 * @ns:           time per load at each stride, ns.
 * @stride_bytes: the strides, smallest first, each twice the one before.
 * @n:            number of points.
 *
 * Walking up the strides, the first rise of more than EP_LINE_JUMP over the
 * previous stride marks the jump; after it, the first stride less than
 * EP_LINE_FLAT above the previous one is past the line, and the line is
 * the stride before it. A plateau that would put the line below
 * EP_LINE_MIN_BYTES is not the line: the walk goes on as if no jump had
 * been seen. A curve that keeps rising (prefetchers pulling in
 * neighbouring lines, per-page costs shared by fewer loads as the stride
 * grows) or never jumps gives no line.
 *
 * Return: the line size in bytes, or 0 when the curve shows no jump then
 * plateau ("not found here").
 */
size_t ep_line_find(const double *ns, const size_t *stride_bytes, int n);

/**
 * ep_line_curve_text() - the curve as evidence: "8 B 8.8 ns, 16 B 15.2 ns".
 * @buf:          output, always terminated.
 * @size:         its size in bytes.
 * @ns:           time per load at each stride, ns.
 * @stride_bytes: the strides.
 * @n:            number of points.
 */
void ep_line_curve_text(char *buf, size_t size, const double *ns, const size_t *stride_bytes,
			int n);

#endif /* EMBPERF_OS_LINE_RULE_H */
