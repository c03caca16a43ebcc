/*
 * test_report_run.c - the run's report from hand-made results: a run too
 * short to judge (window inside the warm-up, fewer than 2 batches per
 * GPU) gets "no verdict (run too short: ...)" in text and JSON, a --ram
 * run whose cgroup did not limit its page cache says so, an unknown
 * hit ratio is said in words and null in JSON, and a run stopped by a
 * signal whose child was killed keeps the totals the child left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "loader.h"
#include "report.h"
#include "report_run_end.h"

/* R's text report, in memory. */
static char *run_text(const struct rpt_run *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_run_print(f, r);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* Reachable until the test's .fini frees it (see harness.h). */
static struct ldr_result *run_res;

/* A run of GPUS x A100 at 300 samples/s each that measured BATCHES
 * batches of 256 in 0.1 s each. */
static void run_make(struct rpt_run *r, unsigned gpus, uint64_t batches,
		     bool warmup_incomplete)
{
	if (!run_res)
		run_res = calloc(1, sizeof(*run_res));
	cr_assert_not_null(run_res);
	memset(run_res, 0, sizeof(*run_res));
	memset(r, 0, sizeof(*r));
	run_res->batch = 256;
	run_res->batches = batches;
	run_res->samples = batches * 256;
	run_res->measured_s = 0.1 * (double)batches;
	run_res->samples_per_s = 2560;
	run_res->au = 1.0;
	run_res->gpus = gpus;
	run_res->warmup_incomplete = warmup_incomplete;
	snprintf(run_res->backend, sizeof(run_res->backend), "uring");
	r->res = run_res;
	r->setup.workload = "imagenet";
	r->setup.dataset = "/data";
	r->setup.cache = "cold";
	r->setup.gpu_type = "A100";
	r->setup.gpu_detail = "A100 80GB";
	r->setup.gpu_count = gpus;
	r->setup.demand_per_gpu = 300;
	r->setup.au_threshold = 0.9;
	r->bottleneck = "gpu";
	r->cpu_outside_mask_s = -1;
	r->fraction_resident = -1;
	r->hit_ratio = -1;
	r->setup.gpu_sync_all = true;
}

static void run_res_free(void)
{
	free(run_res);
	run_res = NULL;
}

FR_TEST(report_run, run_too_short_gives_no_verdict_in_text_and_json,
	.fini = run_res_free)
{
	struct rpt_run r;
	char buf[512], why[256];
	const json_t *g;
	json_t *j;
	char *text;

	/* --samples 5: one batch of 256 in 0.1 s, "1 x A100" */
	run_make(&r, 1, 1, false);
	cr_assert(rpt_run_too_short(&r, why, sizeof(why)));
	rpt_run_verdict(&r, buf, sizeof(buf));
	cr_assert(!strncmp(buf, "no verdict (run too short: ", 27), "%s", buf);
	cr_assert_eq(rpt_run_gpus_fed(&r), 0);
	text = run_text(&r);
	cr_assert_not_null(strstr(text, "no verdict (run too short"), "%s",
			   text);
	cr_assert_null(strstr(text, "feeds 1xA100"), "%s", text);
	free(text);
	j = rpt_run_json(&r);
	cr_assert(!strncmp(json_string_value(json_object_get(j, "verdict")),
			   "no verdict (run too short", 25));
	cr_assert(json_is_string(json_object_get(j, "verdict_withheld")));
	g = json_object_get(j, "gpus");
	cr_assert(json_is_null(json_object_get(g, "fed_at_threshold")));
	json_decref(j);

	/* the window ended inside the warm-up: too short however long */
	run_make(&r, 1, 50, true);
	rpt_run_verdict(&r, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "run too short"), "%s", buf);
	cr_assert_not_null(strstr(buf, "warm-up"), "%s", buf);

	/* 2 batches per GPU: 4 GPUs need 8 */
	run_make(&r, 4, 7, false);
	cr_assert(rpt_run_too_short(&r, why, sizeof(why)));
	run_make(&r, 4, 8, false);
	cr_assert_not(rpt_run_too_short(&r, why, sizeof(why)));
	rpt_run_verdict(&r, buf, sizeof(buf));
	cr_assert(strncmp(buf, "no verdict", 10), "%s", buf);
	/* a raw feed still needs 2 batches */
	run_make(&r, 0, 1, false);
	cr_assert(rpt_run_too_short(&r, why, sizeof(why)));
	run_make(&r, 0, 2, false);
	cr_assert_not(rpt_run_too_short(&r, why, sizeof(why)));
	j = rpt_run_json(&r);
	cr_assert(json_is_null(json_object_get(j, "verdict_withheld")));
	cr_assert(json_is_integer(json_object_get(json_object_get(j, "gpus"),
						  "fed_at_threshold")));
	json_decref(j);
}

FR_TEST(report_run, run_ram_not_limited_is_said_and_marked,
	.fini = run_res_free)
{
	struct rpt_run r;
	char buf[512];
	json_t *j;

	run_make(&r, 1, 50, false);
	r.setup.cache = "ram";
	r.setup.ram_bytes = 1 << 20;
	r.cache_seen_bytes = 3 << 20;
	r.ram_not_limited = true;
	r.hit_ratio = 0.2;
	r.hit_ratio_estimated = true;
	r.hit_ratio_source = "estimated: LRU";
	rpt_run_verdict(&r, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "NOT limited"), "%s", buf);
	j = rpt_run_json(&r);
	cr_assert(json_is_false(json_object_get(j, "ram_limited")));
	cr_assert_eq(json_integer_value(json_object_get(j,
		"page_cache_seen_bytes")), 3 << 20);
	cr_assert(json_is_true(json_object_get(j, "hit_ratio_estimated")));
	json_decref(j);
}

FR_TEST(report_run, unknown_hit_ratio_is_said_and_null_in_json,
	.fini = run_res_free)
{
	struct rpt_run r;
	char *text;
	json_t *j;

	run_make(&r, 1, 50, false);
	r.hit_ratio = -1;
	r.hit_ratio_source = "too few probes: 1 read probed";
	text = run_text(&r);
	cr_assert_not_null(strstr(text, "page-cache hit ratio unknown (too "
				  "few probes"), "%s", text);
	free(text);
	j = rpt_run_json(&r);
	cr_assert(json_is_null(json_object_get(j, "hit_ratio")));
	json_decref(j);
}

/* R's demand fields as ms_gpus_resolve fills them for COUNT x A100. */
static void run_demand_a100(struct rpt_run *r, unsigned count, bool multi)
{
	r->setup.gpu_type = "A100";
	r->setup.gpu_detail = "A100 80GB SXM";
	r->setup.gpu_count = count;
	r->setup.demand_single = 2470;
	r->setup.demand_total = multi ? 16621 : count * 2470.0;
	r->setup.demand_per_gpu = count ? r->setup.demand_total / count : 2470;
	r->setup.demand_multi_measured = multi;
	r->setup.demand_basis = "measured";
	r->setup.demand_kind = "train";
	r->setup.demand_source = "NVIDIA DeepLearningExamples";
}

FR_TEST(report_run, demand_line_names_row_basis_source_and_the_multi_gpu_figure,
	.fini = run_res_free)
{
	struct rpt_run r;
	const json_t *g;
	json_t *j;
	char *text;

	run_make(&r, 8, 50, false);
	run_demand_a100(&r, 8, true);
	text = run_text(&r);
	cr_assert_not_null(strstr(text, "demand: A100 row (A100 80GB SXM), "
				  "train, measured: 8 x A100: 16,621 samples/s, "
				  "the source's measured 8-GPU figure (2,078 per "
				  "GPU); source: NVIDIA DeepLearningExamples\n"),
			   "%s", text);
	/* the emulated GPUs eat the per-GPU share of that figure */
	cr_assert_not_null(strstr(text, "2,078 samples/s each"), "%s", text);
	free(text);
	j = rpt_run_json(&r);
	g = json_object_get(j, "gpus");
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"demand_per_gpu")), 2077.625, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"demand_total")), 16621, 1e-9);
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"demand_single")), 2470, 1e-9);
	cr_assert(json_is_true(json_object_get(g, "demand_multi_measured")));
	cr_assert_str_eq(json_string_value(json_object_get(g, "demand_basis")),
			 "measured");
	cr_assert(json_is_null(json_object_get(g, "demand_range")));
	json_decref(j);

	/* 4 GPUs: no 4-GPU figure, count x per-GPU, and it says so */
	run_make(&r, 4, 50, false);
	run_demand_a100(&r, 4, false);
	text = run_text(&r);
	cr_assert_not_null(strstr(text, "measured: 4 x 2,470 = 9,880 samples/s "
				  "(no multi-GPU figure: count x per-GPU)"),
			   "%s", text);
	free(text);
	j = rpt_run_json(&r);
	g = json_object_get(j, "gpus");
	cr_assert(json_is_false(json_object_get(g, "demand_multi_measured")));
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"demand_total")), 9880, 1e-9);
	json_decref(j);
}

FR_TEST(report_run, demand_text_says_derived_ranges_estimates_and_rates)
{
	struct rpt_demand_words d = {
		.gpu_type = "H100", .gpu_detail = "H100 80GB SXM", .count = 8,
		.single = 4357.6, .total = 8 * 4357.6, .basis = "derived",
		.range_lo = 4084.3, .range_hi = 4357.6, .kind = "train",
		.source = "2,470 x 2,791 / 1,582",
	};
	char buf[512];
	size_t n;

	n = rpt_demand_text(buf, sizeof(buf), &d);
	cr_assert_eq(n, strlen(buf));
	cr_assert_str_eq(buf, "H100 row (H100 80GB SXM), train, derived: 8 x "
			 "4,358 = 34,861 samples/s (no multi-GPU figure: count "
			 "x per-GPU); the source's figures give 4,084-4,358 "
			 "per GPU; source: 2,470 x 2,791 / 1,582");
	/* a short buffer: cut, terminated, the whole length returned */
	cr_assert_eq(rpt_demand_text(buf, 10, &d), n);
	cr_assert_eq(strlen(buf), 9);

	/* a derived 8-GPU figure is not called measured */
	d.total = 32094.1;
	d.multi_measured = true;
	rpt_demand_text(buf, sizeof(buf), &d);
	cr_assert_not_null(strstr(buf, "8 x H100: 32,094 samples/s, the "
				  "source's derived 8-GPU figure (4,012 per "
				  "GPU)"), "%s", buf);
	cr_assert_null(strstr(buf, "measured"), "%s", buf);
	cr_assert_str_eq(rpt_demand_multi_words("derived"), "a multi-GPU "
			 "figure derived from a measured one");
	cr_assert_str_eq(rpt_demand_multi_words("measured"), "the source's "
			 "measured multi-GPU figure");
	d.multi_measured = false;
	d.total = 8 * 4357.6;

	d = (struct rpt_demand_words){ .gpu_type = "H200",
		.gpu_detail = "H200", .count = 1, .single = 4357.6,
		.total = 4357.6, .basis = "estimate", .kind = "train",
		.source = "estimate: none found", .default_type = true };
	rpt_demand_text(buf, sizeof(buf), &d);
	cr_assert_not_null(strstr(buf, "train, an ESTIMATE (the default type; "
				  "choose one with --gpus NxTYPE): 4,358 "
				  "samples/s for 1 GPU"), "%s", buf);

	d = (struct rpt_demand_words){ .gpu_type = "MYGPU",
		.gpu_detail = "user-given rate", .count = 3, .single = 250,
		.total = 750, .basis = "gpu-rate", .kind = "gpu-rate",
		.source = "--gpu-rate (given on the command line)" };
	rpt_demand_text(buf, sizeof(buf), &d);
	cr_assert_str_eq(buf, "MYGPU at the rate given with --gpu-rate: 3 x 250 "
			 "= 750 samples/s (count x the given rate); source: "
			 "--gpu-rate (given on the command line)");

	d.count = 0;
	d.total = 0;
	rpt_demand_text(buf, sizeof(buf), &d);
	cr_assert_not_null(strstr(buf, ": 250 samples/s per GPU (none "
				  "emulated)"), "%s", buf);
}

FR_TEST(report_run, vcpu_kind_is_said_in_text_and_json, .fini = run_res_free)
{
	static const struct {
		enum stg_vcpu_kind kind;
		int tpc;
		const char *text, *json;
	} cases[] = {
		{ STG_VCPU_THREAD, 2, "vCPU kind: thread (SMT siblings present: "
		  "2 threads per core)\n", "thread" },
		{ STG_VCPU_CORE, 1, "vCPU kind: core (no SMT siblings)\n",
		  "core" },
		{ STG_VCPU_UNKNOWN, -1, "vCPU kind: unknown", "unknown" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stg_cpu_info cpu = { .vcpu_kind = cases[i].kind,
					    .threads_per_core = cases[i].tpc };
		struct rpt_run r;
		const json_t *m;
		json_t *j;
		char *text;

		run_make(&r, 1, 50, false);
		r.setup.vcpu_kind = cpu.vcpu_kind;
		r.setup.threads_per_core = cpu.threads_per_core;
		text = run_text(&r);
		cr_assert_not_null(strstr(text, cases[i].text), "%s", text);
		free(text);
		j = rpt_run_json(&r);
		m = json_object_get(j, "machine");
		cr_assert_str_eq(json_string_value(json_object_get(m,
				 "vcpu_kind")), cases[i].json);
		if (cases[i].tpc > 0)
			cr_assert_eq(json_integer_value(json_object_get(m,
				     "threads_per_core")), cases[i].tpc);
		else
			cr_assert(json_is_null(json_object_get(m,
				  "threads_per_core")));
		json_decref(j);
	}
}

/* A token workload's run says its feed and its demand in tokens/s, the
 * reads that demand needs (the dataset's stored bytes per sample x the
 * demand) and, only where something was decompressed, the decompressed
 * bytes/s. */
FR_TEST(report_run, a_token_run_gives_tokens_per_s_and_the_reads_demand_needs,
	.fini = run_res_free)
{
	struct rpt_run r;
	json_t *j;
	const json_t *g, *rd;
	char *text;

	run_make(&r, 8, 40, false);
	r.setup.workload = "tokens";
	r.setup.format = "tokens";
	r.setup.records = 1000;               /* windows per epoch */
	r.setup.bytes = 4096000;        /* 4,096 bytes stored per window */
	r.setup.tokens_per_sample = 2048;
	r.setup.demand_single = 2.0;
	r.setup.demand_total = 16.0;          /* 8 x 2 samples/s */
	r.setup.demand_basis = "measured";
	r.setup.demand_kind = "train";
	r.setup.demand_source = "a source";
	run_res->decompressed_bytes = 0;
	text = run_text(&r);
	/* 2,560 samples/s x 2,048 tokens */
	cr_assert(strstr(text, "tokens/s   5,242,880 (2048 tokens a sample)"),
		  "%s", text);
	/* 16 samples/s x 2,048 = 32,768 tokens/s; x 4,096 B = 65.5 KB/s */
	cr_assert(strstr(text, "= 32,768 tokens/s (2048 tokens a sample)"),
		  "%s", text);
	cr_assert(strstr(text, "reads needed: 65.5 KB/s (4.1 KB stored per "
			 "sample)"), "%s", text);
	cr_assert_null(strstr(text, "decompress "), "%s", text);
	free(text);
	j = rpt_run_json(&r);
	cr_assert_not_null(j);
	g = json_object_get(j, "gpus");
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"demand_tokens_per_s")), 32768.0, 1e-6);
	cr_assert_float_eq(json_real_value(json_object_get(g,
		"reads_needed_bytes_per_s")), 16.0 * 4096, 1e-6);
	cr_assert_float_eq(json_real_value(json_object_get(j, "tokens_per_s")),
			   2560.0 * 2048, 1e-6);
	rd = json_object_get(j, "reads");
	cr_assert_float_eq(json_real_value(json_object_get(rd,
		"needed_bytes_per_s")), 16.0 * 4096, 1e-6);
	cr_assert_null(json_object_get(rd, "decompressed_bytes_per_s"));
	json_decref(j);

	/* 4 s measured (40 batches x 0.1 s): 8 MB decompressed = 2 MB/s */
	run_res->decompressed_bytes = 8000000;
	j = rpt_run_json(&r);
	rd = json_object_get(j, "reads");
	cr_assert_float_eq(json_real_value(json_object_get(rd,
		"decompressed_bytes_per_s")), 2e6, 1e-6);
	json_decref(j);
	text = run_text(&r);
	cr_assert(strstr(text, "decompress 2.0 MB/s"), "%s", text);
	free(text);
}

/*
 * `run` stopped by a signal: a child killed for answering it late (a
 * loaded machine) leaves its running totals, which the report gives,
 * partial; a child that left none gives a report with no numbers.
 */
FR_TEST(report_run, a_child_killed_after_the_signal_leaves_its_totals,
	.fini = run_res_free)
{
	static const char *const names[] = { "a.jpg", "b.jpg" };
	static const uint64_t sizes[] = { 1000, 24 };
	struct rpt_run rr;
	struct rpt_run_out *o = calloc(1, sizeof(*o));
	struct ms_run *mr = calloc(1, sizeof(*mr));
	struct ms_dataset md;
	char buf[512];
	json_t *j;

	cr_assert(o && mr);
	memset(&md, 0, sizeof(md));
	cr_assert_eq(stg_dataset_from_names("/", names, sizes, 2, &md.ds), 0);
	md.format = WL_FORMAT_FOLDER;
	for (int left = 1; left >= 0; left--) {
		run_make(&rr, 1, 12, false);
		/* ldr_live_to_result's marks on what the child published */
		run_res->window_partial = left;
		if (!left)
			memset(run_res, 0, sizeof(*run_res));
		memset(mr, 0, sizeof(*mr));
		mr->res = run_res;
		mr->err = mr->po.err = -ECHILD;
		snprintf(mr->po.err_text, sizeof(mr->po.err_text), "the "
			 "measurement child was killed by signal 9");
		mr->end = ms_run_end(mr, SIGINT);
		cr_assert_eq(mr->end, MS_RUN_INTERRUPTED);
		cr_assert_eq(rpt_run_fill_end(&rr, o, mr, "A100", false, &md,
					      SIGINT), 0);
		cr_expect_eq(rr.signal, SIGINT);
		j = rpt_run_json(&rr);
		cr_assert_not_null(j);
		cr_expect_str_eq(json_string_value(json_object_get(j,
				 "stopped_by")), "signal");
		cr_expect(json_is_true(json_object_get(j, "partial")));
		if (left) {
			cr_expect_eq(rr.res, run_res, "the totals are dropped");
			cr_expect(json_is_true(json_object_get(j,
				  "window_partial")));
			cr_expect_float_eq(json_number_value(json_object_get(j,
					   "measured_s")), 1.2, 1e-9);
			cr_expect_eq(json_integer_value(json_object_get(j,
				     "samples")), 12 * 256);
			rpt_run_verdict(&rr, buf, sizeof(buf));
			cr_expect_not_null(strstr(buf, "running totals"),
					   "%s", buf);
		} else {
			cr_expect_null(rr.res);
			cr_expect_null(json_object_get(j, "measured_s"),
				       "numbers of a child that left none");
			cr_expect_not_null(strstr(json_string_value(
				json_object_get(j, "run_error")), "interrupted"));
		}
		json_decref(j);
	}
	stg_dataset_destroy(md.ds);
	free(mr);
	free(o);
}
