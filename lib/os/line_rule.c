// SPDX-License-Identifier: MIT
/*
 * line_rule.c - the cache line size from a latency curve: the rule of
 * lmbench's line_find() (Staelin & McVoy, lmbench3 lib_mem.c), described in
 * line_rule.h and doc/methodology-os.md. A fact and a method, written
 * here anew.
 */
#include <stdio.h>

#include "lib/os/line_rule.h"

size_t ep_line_find(const double *ns, const size_t *stride_bytes, int n)
{
	int jumped = 0;

	for (int i = 1; i < n; i++) {
		if (ns[i] > EP_LINE_JUMP * ns[i - 1])
			jumped = 1;
		else if (jumped && ns[i] < EP_LINE_FLAT * ns[i - 1]) {
			if (stride_bytes[i - 1] >= EP_LINE_MIN_BYTES)
				return stride_bytes[i - 1];
			jumped = 0; /* a "line" under 16 bytes: noise, look further */
		}
	}
	return 0;
}

void ep_line_curve_text(char *buf, size_t size, const double *ns, const size_t *stride_bytes,
			int n)
{
	size_t used = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (int i = 0; i < n && used < size; i++) {
		int len = snprintf(buf + used, size - used, "%s%zu B %.1f ns", i ? ", " : "",
				   stride_bytes[i], ns[i]);

		if (len < 0)
			return;
		used += (size_t)len;
	}
}
