// SPDX-License-Identifier: MIT
/*
 * test_areas.c - the kernel areas chosen at build time (-Dareas): every
 * registered kernel belongs to a built area, every built area's kernels are
 * there, and asking for a kernel of a left-out area names that area.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lib/core/registry.h"

struct area {
	const char *name;
	int built;
	const char *kernel; /* one kernel the area always has; NULL: none yet */
};

static const struct area areas[] = {
	{ "mem", EMBPERF_AREA_MEM, "mem.lat" },	      { "cpu", EMBPERF_AREA_CPU, "cpu.ops" },
	{ "os", EMBPERF_AREA_OS, "os.syscall" },      { "blk", EMBPERF_AREA_BLK, "blk.io" },
	{ "audio", EMBPERF_AREA_AUDIO, "audio.playback" }, { "net", EMBPERF_AREA_NET, "net.udp.stream" },
	{ "crypto", EMBPERF_AREA_CRYPTO, "crypto.speed" },
};

static const struct area *area_of(const char *kernel)
{
	size_t len = strcspn(kernel, ".");

	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (strlen(areas[i].name) == len && !strncmp(areas[i].name, kernel, len))
			return &areas[i];
	return NULL;
}

Test(areas, registered_kernels_are_of_built_areas)
{
	int n = embperf_kernel_count();

	cr_assert_null(embperf_kernel_name(n), "a name after the %d counted", n);
	for (int i = 0; i < n; i++) {
		const char *name = embperf_kernel_name(i);
		const struct area *a = area_of(name);

		cr_assert_not_null(a, "kernel %s is of no known area", name);
		cr_assert(a->built, "kernel %s is registered but area %s is left out", name,
			  a->name);
	}
}

Test(areas, built_areas_have_their_kernels)
{
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		if (!areas[i].kernel)
			continue;
		cr_assert_eq(embperf_kernel_summary(areas[i].kernel) != NULL, areas[i].built,
			     "%s: built %d, kernel %s %s", areas[i].name, areas[i].built,
			     areas[i].kernel, areas[i].built ? "missing" : "registered");
	}
}

Test(areas, left_out_area_is_named)
{
	embperf_ctx *ctx = embperf_ctx_new();
	char kernel[64];

	cr_assert_not_null(ctx);
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		snprintf(kernel, sizeof(kernel), "%s.nosuch", areas[i].name);
		errno = 0;
		cr_assert_null(embperf_bench_new(ctx, kernel));
		cr_assert_eq(errno, ENOENT);
		if (areas[i].built) {
			cr_assert_null(ep_area_left_out(kernel));
			cr_assert(strstr(embperf_ctx_errmsg(ctx), "does not exist"), "%s",
				  embperf_ctx_errmsg(ctx));
		} else {
			cr_assert_str_eq(ep_area_left_out(kernel), areas[i].name);
			cr_assert(strstr(embperf_ctx_errmsg(ctx), "left out"), "%s",
				  embperf_ctx_errmsg(ctx));
			cr_assert(strstr(embperf_ctx_errmsg(ctx), areas[i].name), "%s",
				  embperf_ctx_errmsg(ctx));
		}
	}
	cr_assert_null(ep_area_left_out("teleport.x"));
	cr_assert_null(ep_area_left_out("mem"));
	cr_assert_null(ep_area_left_out(NULL));
	embperf_ctx_free(ctx);
}

Test(areas, built_list_starts_with_core)
{
	cr_assert_eq(strncmp(ep_areas_built(), "core", 4), 0, "%s", ep_areas_built());
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		cr_assert_eq(strstr(ep_areas_built(), areas[i].name) != NULL, areas[i].built, "%s",
			     areas[i].name);
}

/* A left-out area keeps its public functions (lib/<area>/absent.c). */
Test(areas, server_without_net_says_so)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_server *srv;

	cr_assert_not_null(ctx);
	errno = 0;
	srv = embperf_server_new(ctx);
	if (EMBPERF_AREA_NET) {
		cr_assert_not_null(srv, "%s", embperf_ctx_errmsg(ctx));
		embperf_server_free(srv);
	} else {
		cr_assert_null(srv);
		cr_assert_eq(errno, EOPNOTSUPP);
		cr_assert(strstr(embperf_ctx_errmsg(ctx), "network area was left out"), "%s",
			  embperf_ctx_errmsg(ctx));
		cr_assert_eq(embperf_server_start(NULL), -EOPNOTSUPP);
		cr_assert_eq(embperf_server_run(NULL, 0), -EOPNOTSUPP);
	}
	embperf_ctx_free(ctx);
}
