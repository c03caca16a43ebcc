/*
 * test_report_run.c - the run's report from hand-made results: a run too
 * short to judge (window inside the warm-up, fewer than 2 batches per
 * GPU) gets "no verdict (run too short: ...)" in text and JSON, a --ram
 * run whose cgroup did not limit its page cache says so, and an unknown
 * hit ratio is said in words and null in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "loader.h"
#include "report.h"

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
	r->workload = "imagenet";
	r->dataset = "/data";
	r->cache = "cold";
	r->gpu_type = "A100";
	r->gpu_detail = "A100 80GB";
	r->gpu_count = gpus;
	r->demand_per_gpu = 300;
	r->au_threshold = 0.9;
	r->bottleneck = "gpu";
	r->cpu_outside_mask_s = -1;
	r->fraction_resident = -1;
	r->hit_ratio = -1;
	r->gpu_sync_all = true;
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
	r.cache = "ram";
	r.ram_bytes = 1 << 20;
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
