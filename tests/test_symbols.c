// SPDX-License-Identifier: MIT
/*
 * test_symbols.c - links every public symbol against the shared library,
 * through the installed header only. tests/check_symbols.sh checks that
 * this list, the header, the version script and the library's exports agree.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>

#include "embperf.h"

typedef void (*any_fn)(void);

static const struct {
	const char *name;
	any_fn fn;
} public_symbols[] = {
	{ "embperf_version_number", (any_fn)embperf_version_number },
	{ "embperf_version_string", (any_fn)embperf_version_string },
	{ "embperf_strerror", (any_fn)embperf_strerror },
	{ "embperf_has_feature", (any_fn)embperf_has_feature },
	{ "embperf_free", (any_fn)embperf_free },
	{ "embperf_ctx_new", (any_fn)embperf_ctx_new },
	{ "embperf_ctx_free", (any_fn)embperf_ctx_free },
	{ "embperf_ctx_set_budget_ns", (any_fn)embperf_ctx_set_budget_ns },
	{ "embperf_ctx_remaining_ns", (any_fn)embperf_ctx_remaining_ns },
	{ "embperf_ctx_cancel", (any_fn)embperf_ctx_cancel },
	{ "embperf_ctx_reset_cancel", (any_fn)embperf_ctx_reset_cancel },
	{ "embperf_ctx_is_cancelled", (any_fn)embperf_ctx_is_cancelled },
	{ "embperf_ctx_set_log_fn", (any_fn)embperf_ctx_set_log_fn },
	{ "embperf_ctx_set_progress_fn", (any_fn)embperf_ctx_set_progress_fn },
	{ "embperf_ctx_set_cpu", (any_fn)embperf_ctx_set_cpu },
	{ "embperf_ctx_get_cpu", (any_fn)embperf_ctx_get_cpu },
	{ "embperf_ctx_sysinfo_count", (any_fn)embperf_ctx_sysinfo_count },
	{ "embperf_ctx_sysinfo_key", (any_fn)embperf_ctx_sysinfo_key },
	{ "embperf_ctx_sysinfo", (any_fn)embperf_ctx_sysinfo },
	{ "embperf_ctx_errmsg", (any_fn)embperf_ctx_errmsg },
	{ "embperf_kernel_count", (any_fn)embperf_kernel_count },
	{ "embperf_kernel_name", (any_fn)embperf_kernel_name },
	{ "embperf_kernel_summary", (any_fn)embperf_kernel_summary },
	{ "embperf_kernel_param_count", (any_fn)embperf_kernel_param_count },
	{ "embperf_kernel_param_info", (any_fn)embperf_kernel_param_info },
	{ "embperf_kernel_metric_count", (any_fn)embperf_kernel_metric_count },
	{ "embperf_kernel_metric_info", (any_fn)embperf_kernel_metric_info },
	{ "embperf_bench_new", (any_fn)embperf_bench_new },
	{ "embperf_bench_free", (any_fn)embperf_bench_free },
	{ "embperf_bench_kernel", (any_fn)embperf_bench_kernel },
	{ "embperf_bench_set", (any_fn)embperf_bench_set },
	{ "embperf_bench_set_int", (any_fn)embperf_bench_set_int },
	{ "embperf_bench_set_double", (any_fn)embperf_bench_set_double },
	{ "embperf_bench_get", (any_fn)embperf_bench_get },
	{ "embperf_bench_run", (any_fn)embperf_bench_run },
	{ "embperf_bench_result_count", (any_fn)embperf_bench_result_count },
	{ "embperf_bench_result", (any_fn)embperf_bench_result },
	{ "embperf_bench_errmsg", (any_fn)embperf_bench_errmsg },
	{ "embperf_result_kernel", (any_fn)embperf_result_kernel },
	{ "embperf_result_metric", (any_fn)embperf_result_metric },
	{ "embperf_result_unit", (any_fn)embperf_result_unit },
	{ "embperf_result_title", (any_fn)embperf_result_title },
	{ "embperf_result_labels", (any_fn)embperf_result_labels },
	{ "embperf_result_label", (any_fn)embperf_result_label },
	{ "embperf_result_params", (any_fn)embperf_result_params },
	{ "embperf_result_value", (any_fn)embperf_result_value },
	{ "embperf_result_stat", (any_fn)embperf_result_stat },
	{ "embperf_result_primary", (any_fn)embperf_result_primary },
	{ "embperf_result_higher_is_better", (any_fn)embperf_result_higher_is_better },
	{ "embperf_result_sample_count", (any_fn)embperf_result_sample_count },
	{ "embperf_result_sample", (any_fn)embperf_result_sample },
	{ "embperf_result_counter_count", (any_fn)embperf_result_counter_count },
	{ "embperf_result_counter_name", (any_fn)embperf_result_counter_name },
	{ "embperf_result_counter", (any_fn)embperf_result_counter },
	{ "embperf_result_cpu", (any_fn)embperf_result_cpu },
	{ "embperf_result_truncated", (any_fn)embperf_result_truncated },
	{ "embperf_result_verdict", (any_fn)embperf_result_verdict },
	{ "embperf_result_percentile_count", (any_fn)embperf_result_percentile_count },
	{ "embperf_result_percentile_at", (any_fn)embperf_result_percentile_at },
	{ "embperf_result_percentile", (any_fn)embperf_result_percentile },
	{ "embperf_result_dist_stat", (any_fn)embperf_result_dist_stat },
	{ "embperf_result_trial_count", (any_fn)embperf_result_trial_count },
	{ "embperf_result_trial", (any_fn)embperf_result_trial },
	{ "embperf_result_trial_name", (any_fn)embperf_result_trial_name },
	{ "embperf_result_label_count", (any_fn)embperf_result_label_count },
	{ "embperf_result_label_key", (any_fn)embperf_result_label_key },
	{ "embperf_result_label_value", (any_fn)embperf_result_label_value },
	{ "embperf_result_param_count", (any_fn)embperf_result_param_count },
	{ "embperf_result_param_key", (any_fn)embperf_result_param_key },
	{ "embperf_result_param_value", (any_fn)embperf_result_param_value },
	{ "embperf_result_flags", (any_fn)embperf_result_flags },
	{ "embperf_result_note", (any_fn)embperf_result_note },
	{ "embperf_result_baseline", (any_fn)embperf_result_baseline },
	{ "embperf_report_new", (any_fn)embperf_report_new },
	{ "embperf_report_free", (any_fn)embperf_report_free },
	{ "embperf_report_add", (any_fn)embperf_report_add },
	{ "embperf_report_result_count", (any_fn)embperf_report_result_count },
	{ "embperf_report_result", (any_fn)embperf_report_result },
	{ "embperf_report_find", (any_fn)embperf_report_find },
	{ "embperf_result_key", (any_fn)embperf_result_key },
	{ "embperf_report_sysinfo", (any_fn)embperf_report_sysinfo },
	{ "embperf_report_render", (any_fn)embperf_report_render },
	{ "embperf_report_save", (any_fn)embperf_report_save },
	{ "embperf_report_load", (any_fn)embperf_report_load },
	{ "embperf_report_parse", (any_fn)embperf_report_parse },
	{ "embperf_report_compare", (any_fn)embperf_report_compare },
	{ "embperf_report_errmsg", (any_fn)embperf_report_errmsg },
	{ "embperf_report_add_result", (any_fn)embperf_report_add_result },
	{ "embperf_report_set_sysinfo", (any_fn)embperf_report_set_sysinfo },
	{ "embperf_server_new", (any_fn)embperf_server_new },
	{ "embperf_server_free", (any_fn)embperf_server_free },
	{ "embperf_server_set", (any_fn)embperf_server_set },
	{ "embperf_server_start", (any_fn)embperf_server_start },
	{ "embperf_server_port", (any_fn)embperf_server_port },
	{ "embperf_server_run", (any_fn)embperf_server_run },
	{ "embperf_server_stat", (any_fn)embperf_server_stat },
	{ "embperf_server_errmsg", (any_fn)embperf_server_errmsg },
};

/*
 * Each public function is exported under its own name: the dynamic linker
 * finds, by the name, the function the header's declaration linked to (a
 * name hidden by the version script, exported under another name, or paired
 * with the wrong function in the table fails).
 */
Test(symbols, every_public_symbol_is_exported_under_its_name)
{
	for (size_t i = 0; i < sizeof(public_symbols) / sizeof(public_symbols[0]); i++) {
		void *found = dlsym(RTLD_DEFAULT, public_symbols[i].name);

		cr_assert(found == (void *)public_symbols[i].fn, "%s: dlsym gives %p, the link %p",
			  public_symbols[i].name, found, (void *)public_symbols[i].fn);
	}
}

Test(symbols, shared_library_works_through_the_header)
{
	embperf_ctx *ctx = embperf_ctx_new();
	embperf_bench *b;

	cr_assert_not_null(ctx);
	/* The count is where the names end. */
	cr_assert_null(embperf_kernel_name(embperf_kernel_count()));
	for (int i = 0; i < embperf_kernel_count(); i++)
		cr_assert_not_null(embperf_kernel_name(i), "kernel %d of %d", i, embperf_kernel_count());
	if (embperf_kernel_count() == 0) {
		/* -Dareas= (core alone) registers no kernel: nothing to set. */
		embperf_ctx_free(ctx);
		cr_skip_test("this build has no kernel area (-Dareas=)");
	}
	b = embperf_bench_new(ctx, embperf_kernel_name(0));
	cr_assert_not_null(b, "%s", embperf_ctx_errmsg(ctx));
	cr_assert_eq(embperf_bench_set(b, "no_such_parameter", "1"), -ENOENT);
	embperf_bench_free(b);
	embperf_ctx_free(ctx);
	cr_assert_eq(embperf_version_number(), EMBPERF_VERSION_NUMBER);
}
