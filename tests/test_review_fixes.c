/*
 * test_review_fixes.c - behaviours a review of `run`, `sweep` and their
 * reports asked for:
 * - a --ram point whose page cache grew past 1.25 x the asked size is
 *   "not limited": its hit ratio is the LRU estimate, and the verdict does
 *   not take its figures as a ram measurement (sweep and run);
 * - points too short to judge (a window under 1 s, fewer than 4 batches)
 *   and figures that contradict each other (per-vCPU rate x CPU per
 *   sample > 1.05) are not projected;
 * - a run too short to judge (window inside the warm-up, fewer than 2
 *   batches per GPU) gets "no verdict (run too short: ...)";
 * - --gpus with --gpu-rate: one helper for run and sweep, names of
 *   [A-Za-z0-9._-] only;
 * - a hit ratio from fewer than 20 probes is unknown; the storage line
 *   says "cold" once; --warmup takes any zero with a unit and no sign; a
 *   JSON write failure (exit 5) wins over --max-errors (exit 4); compare
 *   and --tmpdir messages name the file, escaped.
 * Suite review_fixes is fast (reports, helpers, usage errors through
 * $FEEDRATE_BIN); review_fixes_slow runs measurements.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "harness.h"
#include "loader.h"
#include "measure.h"
#include "report.h"
#include "report_sweep.h"
#include "workloads.h"

/* ---- helpers ---- */

/* DIR/NAME as a NUL-terminated malloc'd string. */
static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert_geq(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static json_t *load_json(const char *path)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);

	cr_assert_not_null(j, "%s: %s (line %d)", path, je.text, je.line);
	return j;
}

/* A report printed into memory. */
static char *sweep_text(const struct rpt_sweep *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_sweep_print(f, s);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

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

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- a sweep of hand-made points ---- */

static struct rpt_point pts[8];

/* A measured point: SPS samples/s over WINDOW_S seconds, CPU_MS of CPU
 * per sample, batches of 256. */
static void point_set(struct rpt_point *p, unsigned vcpus, enum stg_cache_state c,
		      double sps, double window_s, double cpu_ms,
		      const char *bottleneck)
{
	memset(p, 0, sizeof(*p));
	p->vcpus = vcpus;
	p->cache = c;
	p->status = RPT_POINT_MEASURED;
	p->samples_per_s = sps;
	p->files_per_s = sps;
	p->read_bytes_per_s = sps * 110e3;
	p->measured_s = window_s;
	p->samples = (uint64_t)(sps * window_s + 0.5);
	p->batches = p->samples / 256;
	p->stages.process_cpu_s = (double)p->samples * cpu_ms * 1e-3;
	p->bottleneck = bottleneck;
	p->bottleneck_why = "";
	p->au = sps / 2470;
	p->hit_ratio = c == STG_CACHE_COLD ? 0 : 1;
	p->fraction_resident = -1;
	p->cpu_outside_mask_s = -1;
	p->cache_how = "";
	p->backend = "uring";
}

static void sweep_init(struct rpt_sweep *s, size_t npts)
{
	memset(s, 0, sizeof(*s));
	s->version = "test";
	s->workload = "imagenet";
	s->dataset = "/data";
	s->files = 30;
	s->bytes = 2805760;
	s->pipeline = "native";
	s->cpu_model = "cpu";
	s->vcpus_total = 2;
	s->threads_per_core = 1;
	s->ram_total = 24ull << 30;
	s->ram_available = 20ull << 30;
	s->cgroup_limit = -1;
	s->gpu_type = "A100";
	s->gpu_detail = "A100 80GB";
	s->gpu_count = 1;
	s->demand_per_gpu = 2470;
	s->demand_kind = "train";
	s->demand_source = "a README";
	s->au_threshold = 0.9;
	s->budget_s = 60;
	s->budget_rule = "";
	s->notes = "";
	s->points = pts;
	s->npoints = npts;
	s->lru_ram_bytes = 1377513;
	s->lru_ram_steady = 0.22;
	s->lru_half_steady = 0.023;
}

/*
 * The reviewer's sweep of a 2.8 MB dataset: cold and warm at 1 and 2
 * vCPUs; the ram points 60 samples in 0.06 s at 4.97 ms CPU per sample,
 * their page cache 2.8 MB against 1.4 MB asked.
 */
static void reviewer_sweep(struct rpt_sweep *s, bool ram_not_limited,
			   bool ram_long)
{
	point_set(&pts[0], 1, STG_CACHE_COLD, 513, 6.5, 0.97, "storage");
	point_set(&pts[1], 1, STG_CACHE_RAM, 937, ram_long ? 10 : 0.064,
		  ram_long ? 0.9 : 4.68, "cpu");
	point_set(&pts[2], 1, STG_CACHE_WARM, 888, 8.6, 1.04, "cpu");
	point_set(&pts[3], 2, STG_CACHE_COLD, 708, 9.0, 0.99, "storage");
	point_set(&pts[4], 2, STG_CACHE_RAM, 1012, ram_long ? 10 : 0.059,
		  ram_long ? 0.9 : 4.97, "cpu");
	point_set(&pts[5], 2, STG_CACHE_WARM, 831, 20.9, 1.00, "cpu");
	for (int i = 1; i < 6; i += 3) {
		pts[i].ram_bytes = 1377513;
		pts[i].cgroup_bytes = 682002665;
		pts[i].cache_seen_bytes = 2805760;
		pts[i].ram_not_limited = ram_not_limited;
		pts[i].hit_ratio = ram_not_limited ? 0.22 : 1.0;
		pts[i].hit_ratio_estimated = ram_not_limited;
	}
	sweep_init(s, 6);
	rpt_sweep_verdict(s);
}

/* ---- 1: a ram point that was not limited ---- */

FR_TEST(review_fixes, ram_point_over_the_slack_counts_as_not_limited)
{
	/* the reviewer's point: 2.8 MB held against 1.4 MB asked */
	cr_assert_not(ms_ram_limited(1377513, 2805760));
	cr_assert(ms_ram_limited(1377513, 1377513));
	cr_assert(ms_ram_limited(1000000, 1250000));
	cr_assert_not(ms_ram_limited(1000000, 1250001));
	/* unknown: nothing to say it was not */
	cr_assert(ms_ram_limited(1000000, 0));
}

FR_TEST(review_fixes, unlimited_ram_point_is_not_judged_and_shows_no_measured_hit_ratio)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *v, *p;
	char *text;
	size_t i;

	/* long enough: only the missing limit keeps it out */
	reviewer_sweep(&s, true, true);
	cv = &s.v.cache[STG_CACHE_RAM];
	cr_assert_not(cv->measured, "the ram row used a warm run");
	cr_assert_not_null(cv->not_judged);
	cr_assert_not_null(strstr(cv->not_judged, "not limited"));
	cr_assert_not(cv->projected);
	cr_assert_lt(cv->vcpus_per_gpu, 0, "vCPUs per GPU from a warm run");
	cr_assert_neq(s.v.catalog_cache, STG_CACHE_RAM);
	cr_assert(s.v.cache[STG_CACHE_WARM].measured);
	cr_assert(s.v.cache[STG_CACHE_COLD].measured);

	text = sweep_text(&s);
	cr_assert_null(strstr(text, "hit ratio was 100.0"), "%s", text);
	cr_assert_not_null(strstr(text, "not judged"), "%s", text);
	cr_assert_not_null(strstr(text, "LRU estimate: 22.0 %"), "%s", text);
	/* the points table marks the ram rows estimated and not limited */
	cr_assert_eq(count(text, " 22.0e "), 2, "%s", text);
	cr_assert_not_null(strstr(text, "w: the page cache was not limited"));
	free(text);

	j = rpt_sweep_json(&s, false);
	cr_assert_not_null(j);
	v = json_object_get(j, "verdict");
	cr_assert(json_is_string(json_object_get(json_object_get(v,
		"not_judged"), "ram")));
	cr_assert_null(json_object_get(json_object_get(v, "gpus_fed"), "ram"));
	json_array_foreach(json_object_get(v, "per_cache"), i, p)
		cr_assert_str_neq(json_string_value(json_object_get(p,
			"cache")), "ram");
	json_array_foreach(json_object_get(j, "points"), i, p) {
		if (strcmp(json_string_value(json_object_get(p, "cache")),
			   "ram"))
			continue;
		cr_assert(json_is_false(json_object_get(p, "ram_limited")));
		cr_assert(json_is_true(json_object_get(p,
			"hit_ratio_estimated")));
		cr_assert(json_is_false(json_object_get(p, "usable")));
	}
	json_decref(j);
}

FR_TEST(review_fixes, limited_ram_point_is_judged)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;

	reviewer_sweep(&s, false, true);
	cv = &s.v.cache[STG_CACHE_RAM];
	cr_assert(cv->measured);
	cr_assert_null(cv->not_judged);
	cr_assert_float_eq(cv->hit_ratio, 1.0, 1e-9);
	cr_assert_not(cv->hit_ratio_estimated);
}

/* ---- 5: points too short, figures inconsistent ---- */

FR_TEST(review_fixes, too_short_points_are_marked_and_not_projected)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *p;
	char *text;
	size_t i, short_seen = 0;

	/* limited, but 60 samples in 0.06 s */
	reviewer_sweep(&s, false, false);
	cr_assert(rpt_point_too_short(&pts[4]));
	cr_assert_not(rpt_point_too_short(&pts[5]));
	cv = &s.v.cache[STG_CACHE_RAM];
	cr_assert_not(cv->measured);
	cr_assert_not(cv->projected);
	cr_assert_not_null(strstr(cv->not_judged, "too short"));
	text = sweep_text(&s);
	/* the reviewer's impossible projection is gone */
	cr_assert_null(strstr(text, "4.97 ms CPU per sample"), "%s", text);
	cr_assert_null(strstr(text, "506 samples/s"), "%s", text);
	cr_assert_not_null(strstr(text, "0.1s!"), "%s", text);
	free(text);
	j = rpt_sweep_json(&s, false);
	json_array_foreach(json_object_get(j, "points"), i, p)
		if (json_is_true(json_object_get(p, "too_short")))
			short_seen++;
	cr_assert_eq(short_seen, 2);
	json_decref(j);

	/* a window of 2 s but only 3 batches is too short as well */
	point_set(&pts[0], 1, STG_CACHE_WARM, 384, 2.0, 1.0, "cpu");
	cr_assert_eq(pts[0].batches, 3);
	cr_assert(rpt_point_too_short(&pts[0]));
	point_set(&pts[0], 1, STG_CACHE_WARM, 512, 2.0, 1.0, "cpu");
	cr_assert_not(rpt_point_too_short(&pts[0]));
}

FR_TEST(review_fixes, inconsistent_cpu_figures_are_not_projected)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *p;
	char *text;
	size_t i;

	/* 506 samples/s per vCPU x 4.97 ms = 2.5 CPU-s per vCPU-s */
	point_set(&pts[0], 1, STG_CACHE_WARM, 480, 10, 1.0, "cpu");
	point_set(&pts[1], 2, STG_CACHE_WARM, 1012, 10, 4.97, "cpu");
	sweep_init(&s, 2);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
	cr_assert(cv->measured);
	cr_assert(cv->inconsistent);
	cr_assert_float_eq(cv->cpu_per_vcpu, 506 * 4.97e-3, 1e-6);
	cr_assert_not(cv->projected, "projected from impossible figures");
	text = sweep_text(&s);
	cr_assert_not_null(strstr(text, "inconsistent"), "%s", text);
	cr_assert_null(strstr(text, "the feed would be"), "%s", text);
	free(text);
	j = rpt_sweep_json(&s, false);
	json_array_foreach(json_object_get(json_object_get(j, "verdict"),
					   "per_cache"), i, p)
		cr_assert(json_is_false(json_object_get(p,
			"figures_consistent")));
	json_decref(j);

	/* 1.0 CPU-s per vCPU-s is sane and projects */
	point_set(&pts[1], 2, STG_CACHE_WARM, 1012, 10, 1.9, "cpu");
	sweep_init(&s, 2);
	rpt_sweep_verdict(&s);
	cr_assert_not(s.v.cache[STG_CACHE_WARM].inconsistent);
	cr_assert(s.v.cache[STG_CACHE_WARM].projected);
}

/* ---- 6: the storage line says "cold" once ---- */

FR_TEST(review_fixes, storage_line_says_cold_once)
{
	struct rpt_sweep s;
	char *text, *a, *b;

	reviewer_sweep(&s, true, true);
	cr_assert(s.v.storage_is_ceiling);
	text = sweep_text(&s);
	a = strstr(text, "\nstorage and RAM\n");
	cr_assert_not_null(a);
	b = strstr(a, "  RAM      ");
	cr_assert_not_null(b);
	*b = '\0';
	cr_assert_eq(count(a, "cold"), 1, "%s", a);
	cr_assert_not_null(strstr(a, "this disk feeds"), "%s", a);
	free(text);
}

/* ---- 2, 3: --gpus and --gpu-rate, one helper ---- */

FR_TEST(review_fixes, gpu_rate_names_outside_the_safe_set_are_usage_errors)
{
	static const char *const bad[] = {
		"2x\xff\xfe", "x", "2xA100x", "2xa100X", "4xMY GPU",
		"4x<b>", "4xcaf\xc3\xa9", "4xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	};
	const struct wl_workload *w;
	struct ms_gpus g;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(ms_gpus_resolve(w, bad[i], WL_DEMAND_TRAIN,
					     300, &g, gwhy, sizeof(gwhy)), -EINVAL,
			     "run accepted '%s'", bad[i]);
		cr_assert_eq(ms_gpus_resolve(w, bad[i],
					     WL_DEMAND_TRAIN, 300, &g, gwhy, sizeof(gwhy)),
			     -EINVAL, "sweep accepted '%s'", bad[i]);
	}
}

FR_TEST(review_fixes, gpu_rate_fallback_is_the_same_for_run_and_sweep)
{
	const struct wl_workload *w;
	struct ms_gpus a, b;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(ms_gpus_resolve(w, "4xMY-GPU_2.0", WL_DEMAND_TRAIN,
				     300, &a, gwhy, sizeof(gwhy)), 0);
	cr_assert_eq(ms_gpus_resolve(w, "4xMY-GPU_2.0",
				     WL_DEMAND_TRAIN, 300, &b, gwhy, sizeof(gwhy)), 0);
	cr_assert_eq(a.count, 4);
	cr_assert_str_eq(a.type, "MY-GPU_2.0");
	cr_assert(a.type_given, "the type was named");
	cr_assert_null(a.row);
	cr_assert_float_eq(a.demand, 300, 1e-9);
	cr_assert_str_eq(a.demand_kind, "gpu-rate");
	cr_assert_not(a.default_type);
	cr_assert_eq(b.count, a.count);
	cr_assert_str_eq(b.type, a.type);
	cr_assert_eq(b.type_given, a.type_given);

	/* a bare count: the count as given (0 included), "GPU" */
	cr_assert_eq(ms_gpus_resolve(w, "0", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 0);
	cr_assert_eq(ms_gpus_resolve(w, "3", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 3);
	cr_assert_str_eq(a.type, "GPU");
	cr_assert_not(a.type_given);
	/* a table GPU with a rate keeps its name, takes the rate */
	cr_assert_eq(ms_gpus_resolve(w, "2xh100", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)), 0);
	cr_assert_str_eq(a.type, "H100");
	cr_assert_float_eq(a.demand, 300, 1e-9);
	/* without a rate: the table */
	cr_assert_eq(ms_gpus_resolve(w, NULL, WL_DEMAND_TRAIN, 0, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 1);
	cr_assert(a.default_type);
	cr_assert_str_eq(a.type, "A100");
	cr_assert_float_eq(a.demand, 2470, 1e-9);
	cr_assert_eq(ms_gpus_resolve(w, "4xMYGPU", WL_DEMAND_TRAIN, 0, &a, gwhy, sizeof(gwhy)), -EINVAL);
}

FR_TEST(review_fixes, bad_gpu_names_exit_2_with_the_name_escaped)
{
	char *dir = fr_test_tmpdir();
	static const char *const specs[] = { "2x\xff\xfe", "x", "2xA100x" };
	static const char *const cmds[] = { "run", "sweep" };

	for (size_t c = 0; c < 2; c++)
		for (size_t k = 0; k < 3; k++) {
			char *argv[] = { (char *)fr_test_bin(), (char *)cmds[c],
					 "--gpus", (char *)specs[k],
					 "--gpu-rate", "300", "/nonexistent",
					 NULL };
			char *err;

			cr_assert_eq(fr_test_run(dir, argv, 30), 2, "%s %s",
				     cmds[c], specs[k]);
			err = slurp(dir, "stderr");
			cr_assert_null(strchr(err, '\xff'), "raw byte: %s",
				       err);
			if (k == 0)
				cr_assert_not_null(strstr(err, "2x\\xff\\xfe"),
						   "%s", err);
			free(err);
		}
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes, sweep_refuses_gpus_0)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--gpus", "0", "--gpu-rate",
			 "300", "/nonexistent", NULL };
	char *argv2[] = { (char *)fr_test_bin(), "sweep", "--gpus", "0",
			  "/nonexistent", NULL };
	char *err;

	cr_assert_eq(fr_test_run(dir, argv, 30), 2);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "--gpus 0"), "%s", err);
	free(err);
	cr_assert_eq(fr_test_run(dir, argv2, 30), 2);
	fr_test_rmtree(dir);
}

/* ---- 4: a run too short to judge ---- */

static struct ldr_result *run_res;

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

FR_TEST(review_fixes, run_too_short_gives_no_verdict_in_text_and_json,
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

FR_TEST(review_fixes, run_ram_not_limited_is_said_and_marked,
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

/* ---- 6: small ones ---- */

FR_TEST(review_fixes, hit_ratio_from_too_few_probes_is_unknown,
	.fini = run_res_free)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct rpt_run r;
	char src[256], *text;
	json_t *j;

	cr_assert_not_null(res);
	res->probed_reads = 1;
	res->probed_bytes = 100000;
	res->probed_hit_bytes = 100000;
	snprintf(res->probe_method, sizeof(res->probe_method), "cachestat");
	cr_assert_lt(ms_hit_ratio(NULL, 1, 0, false, res, src, sizeof(src)),
		     0);
	cr_assert_not_null(strstr(src, "too few probes"), "%s", src);
	res->probed_reads = MS_MIN_PROBES;
	cr_assert_float_eq(ms_hit_ratio(NULL, 1, 0, false, res, src,
					sizeof(src)), 1.0, 1e-9);
	cr_assert_not_null(strstr(src, "measured"), "%s", src);
	free(res);

	/* the report says unknown, JSON null */
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

FR_TEST(review_fixes, warmup_takes_any_zero_with_a_unit_and_no_sign)
{
	char *dir = fr_test_tmpdir();
	static const char *const ok[] = { "0", "0s", "0m", "0h", "0ms",
					  "0.0", "0min", "1.5s" };
	static const char *const bad[] = { "-0", "-1", "+0", "0x", ".", "" };

	/* accepted: the run gets as far as the missing dataset (exit 5) */
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", "--warmup",
				 (char *)ok[i], "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 5, "--warmup %s", ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", "--warmup",
				 (char *)bad[i], "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 2, "--warmup '%s'",
			     bad[i]);
	}
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes, samples_help_says_whole_batches)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--help", NULL };
	char *out;

	cr_assert_eq(fr_test_run(dir, argv, 30), 0);
	out = slurp(dir, "stdout");
	cr_assert_not_null(strstr(out, "at least N measured samples (whole"),
			   "%s", out);
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes, compare_on_a_missing_file_names_it)
{
	char *dir = fr_test_tmpdir();
	char path[4096];
	char *argv[] = { (char *)fr_test_bin(), "compare", path, NULL };
	char *err;

	snprintf(path, sizeof(path), "%s/no-such-\xff.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 30), 5);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "no-such-\\xff.json"), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	cr_assert_null(strchr(err, '\xff'), "raw byte: %s", err);
	free(err);
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes, tmpdir_candidates_are_printed_escaped)
{
	char *dir = fr_test_tmpdir();
	char tmp[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--tmpdir", tmp, "--gen-size",
			 "4M", NULL };
	char *err;

	snprintf(tmp, sizeof(tmp), "%s/missing-\xff", dir);
	cr_assert_eq(fr_test_run(dir, argv, 30), 5);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "missing-\\xff"), "%s", err);
	cr_assert_null(strchr(err, '\xff'), "raw byte: %s", err);
	free(err);
	fr_test_rmtree(dir);
}

/* ---- slow: measurements ---- */

/* `feedrate gen -q --files N DIR/data`; the dataset root (malloc'd). */
static char *gen_files(const char *dir, const char *n)
{
	char data[4096];
	char *argv[] = { (char *)fr_test_bin(), "gen", "-q", "--files", (char *)n,
			 data, NULL };

	snprintf(data, sizeof(data), "%s/data", dir);
	cr_assert_eq(fr_test_run(dir, argv, 300), 0, "feedrate gen failed");
	return strdup(data);
}

FR_TEST(review_fixes_slow, run_too_short_says_no_verdict_end_to_end)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_files(dir, "30");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--duration", "1", "--samples",
			 "5", "--epochs", "1", "--json", js, data, NULL };
	char *out;
	json_t *j;
	const char *src;

	snprintf(js, sizeof(js), "%s/r.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	out = slurp(dir, "stdout");
	cr_assert_not_null(strstr(out, "no verdict (run too short"), "%s",
			   out);
	free(out);
	j = load_json(js);
	cr_assert(json_is_string(json_object_get(j, "verdict_withheld")));
	cr_assert(!strncmp(json_string_value(json_object_get(j, "verdict")),
			   "no verdict (run too short", 25));
	/* a cold run of one batch probes a handful of reads: unknown */
	src = json_string_value(json_object_get(j, "hit_ratio_source"));
	if (json_integer_value(json_object_get(j, "samples")) < 1000) {
		cr_assert(json_is_null(json_object_get(j, "hit_ratio")),
			  "hit ratio from %s", src);
		cr_assert_not_null(strstr(src, "too few probes"), "%s", src);
	}
	json_decref(j);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes_slow, json_write_failure_wins_over_max_errors)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_files(dir, "40");
	char js[4096], bad[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "0", "--max-errors",
			 "1", "--duration", "30", "--json", js, data, NULL };
	char *err;

	/* two files that are not images: --max-errors 1 stops the run */
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(bad, sizeof(bad), "%s/train/n01440764/bad%d.JPEG",
			 data, i);
		f = fopen(bad, "w");
		cr_assert_not_null(f, "%s", bad);
		fputs("not an image at all", f);
		cr_assert_eq(fclose(f), 0);
	}
	snprintf(js, sizeof(js), "%s/no-such-folder/r.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 300), 5);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "cannot write the JSON"), "%s", err);
	cr_assert_not_null(strstr(err, "--max-errors 1"), "%s", err);
	free(err);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(review_fixes_slow, sweep_ram_point_of_a_tiny_dataset_is_not_taken_as_measured)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_files(dir, "30");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--cache", "ram,warm",
			 "--vcpus", "1", "--budget", "40s", "--no-check",
			 "--json", js, data, NULL };
	json_t *j, *p, *v;
	size_t i;
	bool ram_seen = false;
	char *out;

	snprintf(js, sizeof(js), "%s/r.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	out = slurp(dir, "stdout");
	cr_assert_null(strstr(out, "hit ratio was 100.0 %, measured"), "%s",
		       out);
	free(out);
	j = load_json(js);
	v = json_object_get(j, "verdict");
	json_array_foreach(json_object_get(j, "points"), i, p) {
		const json_t *seen = json_object_get(p,
						     "page_cache_seen_bytes");
		double asked;

		if (strcmp(json_string_value(json_object_get(p, "cache")),
			   "ram") || strcmp(json_string_value(
			   json_object_get(p, "status")), "measured"))
			continue;
		ram_seen = true;
		if (json_is_null(json_object_get(p, "cgroup_bytes")))
			cr_skip_test("no memory cgroup can be made here");
		cr_assert(json_is_integer(seen));
		asked = (double)json_integer_value(json_object_get(p,
			"ram_bytes"));
		/* the rule, as reported */
		cr_assert_eq(json_is_true(json_object_get(p, "ram_limited")),
			     (double)json_integer_value(seen) <= 1.25 * asked);
		if (json_is_false(json_object_get(p, "ram_limited"))) {
			cr_assert(json_is_true(json_object_get(p,
				"hit_ratio_estimated")));
			cr_assert(json_is_string(json_object_get(
				json_object_get(v, "not_judged"), "ram")));
			cr_assert_null(json_object_get(json_object_get(v,
				"gpus_fed"), "ram"));
		}
		/* two epochs of 30 files: a handful of batches at most */
		cr_assert(json_is_true(json_object_get(p, "too_short")));
		cr_assert(json_is_false(json_object_get(p, "usable")));
	}
	cr_assert(ram_seen, "no ram point was measured");
	json_decref(j);
	free(data);
	fr_test_rmtree(dir);
}
