/*
 * test_sweep_verdict.c - the sweep's verdict drawn from hand-made point
 * sets (cpu-bound and projected, storage-bound, fed, fed only warm, the
 * checks with emulated GPUs lowering or raising the computed count). The
 * budget rule and the --ram sample's size are the planner's: see
 * test_measure_plan.c.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "report_sweep.h"

/* A100 tuned row: 2,470 samples/s, so one GPU needs 2,223 at 90 % AU. */
#define DEMAND 2470.0
#define NEED (0.9 * DEMAND)

struct pt {
	unsigned vcpus;
	enum rpt_cache cache;
	double sps;
	const char *bottleneck;
	double read_mb_s;
};

static struct rpt_point pts_buf[16];

static void sweep_make(struct rpt_sweep *s, const struct pt *p, size_t n,
		       unsigned vcpus_total, unsigned gpus)
{
	memset(s, 0, sizeof(*s));
	memset(pts_buf, 0, sizeof(pts_buf));
	for (size_t i = 0; i < n; i++) {
		struct rpt_point *q = &pts_buf[i];

		q->vcpus = p[i].vcpus;
		q->cache = p[i].cache;
		q->status = RPT_POINT_MEASURED;
		q->samples_per_s = p[i].sps;
		q->files_per_s = p[i].sps;
		q->read_bytes_per_s = p[i].read_mb_s * 1e6;
		q->bottleneck = p[i].bottleneck;
		q->samples = (uint64_t)(p[i].sps * 10);
		q->batches = q->samples / 256;
		q->measured_s = 10;     /* long enough to be judged */
		q->stages.process_cpu_s = 10.0 * p[i].vcpus;
		q->hit_ratio = -1;
	}
	s->points = pts_buf;
	s->npoints = n;
	s->vcpus_total = vcpus_total;
	s->gpu_type = "A100";
	s->gpu_count = gpus;
	s->demand_per_gpu = DEMAND;
	s->au_threshold = 0.90;
	s->bytes = 140ull * 1000 * 1000 * 1000;
	s->ram_total = 64ull << 30;
	s->ram_available = 60ull << 30;
	s->cgroup_limit = -1;
	s->lru_ram_steady = -1;
	s->lru_half_steady = -1;
}

struct verdict_case {
	const char *name;
	struct pt pts[8];
	size_t npts;
	unsigned vcpus_total, gpus;
	/* expected, per cache state (cold, ram, warm); -1 = not measured */
	int fed[RPT_CACHES];
	const char *limiting[RPT_CACHES];
	bool projected_warm;
	bool storage_ceiling;
};

static const struct verdict_case cases[] = {
	{ "cpu-bound, projected: 8 vCPUs for 1 A100 on a 2-vCPU VM",
	  { { 1, RPT_CACHE_COLD, 300, "cpu", 30 },
	    { 2, RPT_CACHE_COLD, 560, "cpu", 60 },
	    { 1, RPT_CACHE_WARM, 310, "cpu", 31 },
	    { 2, RPT_CACHE_WARM, 580, "cpu", 60 } }, 4, 2, 1,
	  { 0, -1, 0 }, { "cpu", NULL, "cpu" }, true, false },
	{ "storage-bound cold, fed warm",
	  { { 8, RPT_CACHE_COLD, 1000, "storage", 110 },
	    { 8, RPT_CACHE_WARM, 20000, "cpu", 0 } }, 2, 8, 8,
	  { 0, -1, 8 }, { "storage", NULL, "gpu" }, false, true },
	{ "fed in every state: 96 vCPUs, 8 A100s",
	  { { 96, RPT_CACHE_COLD, 19000, "cpu", 2100 },
	    { 96, RPT_CACHE_RAM, 19500, "cpu", 1800 },
	    { 96, RPT_CACHE_WARM, 20000, "cpu", 0 } }, 3, 96, 8,
	  { 8, 8, 8 }, { "gpu", "gpu", "gpu" }, false, false },
	{ "fed only warm: 2 of 4 cold, 4 warm",
	  { { 32, RPT_CACHE_COLD, 5000, "storage", 550 },
	    { 32, RPT_CACHE_WARM, 9000, "cpu", 0 } }, 2, 32, 4,
	  { 2, -1, 4 }, { "storage", NULL, "gpu" }, false, true },
};

FR_TEST(sweep_verdict, table_of_hand_made_point_sets)
{
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct verdict_case *vc = &cases[k];
		struct rpt_sweep s;

		sweep_make(&s, vc->pts, vc->npts, vc->vcpus_total, vc->gpus);
		rpt_sweep_verdict(&s);
		for (int c = 0; c < RPT_CACHES; c++) {
			const struct rpt_cache_verdict *cv = &s.v.cache[c];

			if (vc->fed[c] < 0) {
				cr_assert(!cv->measured, "%s: %s measured",
					  vc->name, rpt_cache_name(c));
				continue;
			}
			cr_assert(cv->measured, "%s: %s", vc->name,
				  rpt_cache_name(c));
			cr_assert_eq(cv->gpus_fed, (unsigned)vc->fed[c],
				     "%s: %s fed %u, want %d", vc->name,
				     rpt_cache_name(c), cv->gpus_fed,
				     vc->fed[c]);
			cr_assert_str_eq(cv->limiting, vc->limiting[c], "%s: %s",
					 vc->name, rpt_cache_name(c));
		}
		if (vc->fed[RPT_CACHE_WARM] >= 0)
			cr_assert_eq(s.v.cache[RPT_CACHE_WARM].projected,
				     vc->projected_warm, "%s", vc->name);
		cr_assert_eq(s.v.storage_is_ceiling, vc->storage_ceiling, "%s",
			     vc->name);
		cr_assert(strlen(s.v.headline) > 10, "%s", vc->name);
	}
}

FR_TEST(sweep_verdict, projection_uses_the_measured_per_vcpu_rate)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;

	sweep_make(&s, cases[0].pts, cases[0].npts, 2, 1);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[RPT_CACHE_WARM];
	/* 580 / 2 = 290 per vCPU; 2,223 / 290 = 7.67 vCPUs per GPU */
	cr_assert_float_eq(cv->per_vcpu_rate, 290.0, 1e-9);
	cr_assert_float_eq(cv->vcpus_per_gpu, NEED / 290.0, 1e-9);
	cr_assert_eq(cv->vcpus_needed, 8);
	cr_assert_float_eq(cv->projected_samples_per_s, 8 * 290.0, 1e-9);
	/* scaling from 1 vCPU: 580 / (2 x 310) */
	cr_assert_float_eq(cv->scaling, 580.0 / 620.0, 1e-9);
	cr_assert(strstr(s.v.headline, "limited by cpu"), "%s",
		  s.v.headline);
}

FR_TEST(sweep_verdict, storage_ceiling_in_files_and_gpus)
{
	struct rpt_sweep s;

	sweep_make(&s, cases[1].pts, cases[1].npts, 8, 8);
	rpt_sweep_verdict(&s);
	cr_assert(s.v.storage_known);
	cr_assert_float_eq(s.v.storage_bytes_per_s, 110e6, 1e-3);
	cr_assert_float_eq(s.v.storage_files_per_s, 1000, 1e-9);
	cr_assert_float_eq(s.v.storage_gpus, 1000 / NEED, 1e-9);
	/* 140 GB does not fit in 60 GiB available */
	cr_assert(!s.v.ram_holds_dataset);
}

FR_TEST(sweep_verdict, checks_confirm_lower_or_raise_the_computed_count)
{
	struct rpt_sweep s;
	/* 5,000 samples/s: floor(5000 / 2223) = 2 */
	const struct pt p[] = { { 16, RPT_CACHE_WARM, 5000, "cpu", 0 } };

	sweep_make(&s, p, 1, 16, 4);
	s.confirm[RPT_CACHE_WARM][0] = (struct rpt_confirm){ true, 2, 0.95,
							      NULL };
	s.confirm[RPT_CACHE_WARM][1] = (struct rpt_confirm){ true, 3, 0.70,
							      NULL };
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].gpus_fed_computed, 2);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].gpus_fed, 2);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].confirmation,
		     RPT_CONF_CONFIRMED);

	/* G itself starved (uneven arrivals with synchronous steps) */
	s.confirm[RPT_CACHE_WARM][0].au = 0.85;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].gpus_fed, 1);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].confirmation, RPT_CONF_LOWERED);

	/* G + 1 fed too */
	s.confirm[RPT_CACHE_WARM][0].au = 0.99;
	s.confirm[RPT_CACHE_WARM][1].au = 0.91;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].gpus_fed, 3);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].confirmation, RPT_CONF_RAISED);

	/* no check run: the computed count stands, labelled computed */
	memset(s.confirm, 0, sizeof(s.confirm));
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].gpus_fed, 2);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].confirmation, RPT_CONF_NONE);
}

FR_TEST(sweep_verdict, zero_computed_is_checked_with_one_gpu)
{
	struct rpt_sweep s;
	const struct pt p[] = { { 2, RPT_CACHE_COLD, 600, "cpu", 60 } };

	sweep_make(&s, p, 1, 2, 1);
	s.confirm[RPT_CACHE_COLD][1] = (struct rpt_confirm){ true, 1, 0.27,
							      NULL };
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_COLD].gpus_fed, 0);
	cr_assert_eq(s.v.cache[RPT_CACHE_COLD].confirmation,
		     RPT_CONF_CONFIRMED);
}

FR_TEST(sweep_verdict, catalog_check_counts_spare_and_lacking_vcpus)
{
	static const struct rpt_shape shapes[] = {
		{ "big8", "X", 8, "A100", "A100 40GB", 96, 1152, false },
		{ "small1", "X", 1, "A100", "A100 40GB", 4, 16, true },
		{ "other", "X", 8, "H100", "H100 80GB", 192, 2048, false },
	};
	struct rpt_sweep s;
	/* 1,000 samples/s per vCPU: 2.223 vCPUs per GPU */
	const struct pt p[] = { { 100, RPT_CACHE_WARM, 100000, "cpu", 0 },
				{ 50, RPT_CACHE_COLD, 50000, "cpu", 0 } };

	sweep_make(&s, p, 2, 100, 8);
	s.gpu_type = "A100-40GB";
	s.shapes = shapes;
	s.nshapes = 3;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.catalog_cache, RPT_CACHE_WARM);
	cr_assert_eq(s.v.nfits, 2, "only the A100 shapes are judged");
	cr_assert_str_eq(s.v.fits[0].shape->name, "big8");
	cr_assert_float_eq(s.v.fits[0].vcpus_needed, 8 * NEED / 1000, 1e-9);
	cr_assert_float_eq(s.v.fits[0].vcpus_spare, 96 - 8 * NEED / 1000,
			   1e-9);
	cr_assert(s.v.fits[0].ram_holds_dataset);
	cr_assert(s.v.fits[1].vcpus_spare > 0);
	cr_assert(!s.v.fits[1].ram_holds_dataset, "140 GB in 16 GiB");
}

FR_TEST(sweep_verdict, dropped_and_failed_points_are_not_used)
{
	struct rpt_sweep s;
	const struct pt p[] = { { 1, RPT_CACHE_WARM, 300, "cpu", 0 },
				{ 2, RPT_CACHE_WARM, 99999, "cpu", 0 } };

	sweep_make(&s, p, 2, 2, 1);
	pts_buf[1].status = RPT_POINT_DROPPED;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[RPT_CACHE_WARM].vcpus_top, 1);
	cr_assert(!s.v.cache[RPT_CACHE_WARM].top_is_all);
	cr_assert(s.v.cache[RPT_CACHE_WARM].projected);
}

/* ---- points that must not be judged: a ram point its cgroup did not
 * limit, points too short, figures that contradict each other ---- */

static struct rpt_point review_pts[8];

/* A measured point: SPS samples/s over WINDOW_S seconds, CPU_MS of CPU
 * per sample, batches of 256. */
static void point_set(struct rpt_point *p, unsigned vcpus, enum rpt_cache c,
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
	p->hit_ratio = c == RPT_CACHE_COLD ? 0 : 1;
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
	s->demand_per_gpu = DEMAND;
	s->demand_kind = "train";
	s->demand_source = "a README";
	s->au_threshold = 0.9;
	s->budget_s = 60;
	s->budget_rule = "";
	s->notes = "";
	s->points = review_pts;
	s->npoints = npts;
	s->lru_ram_bytes = 1377513;
	s->lru_ram_steady = 0.22;
	s->lru_half_steady = 0.023;
}

/*
 * A review's sweep of a 2.8 MB dataset: cold and warm at 1 and 2 vCPUs;
 * the ram points (RAM_LONG false) 60 samples in 0.06 s at 4.97 ms CPU per
 * sample, their page cache 2.8 MB against 1.4 MB asked (limited or not as
 * RAM_NOT_LIMITED says).
 */
static void reviewer_sweep(struct rpt_sweep *s, bool ram_not_limited,
			   bool ram_long)
{
	point_set(&review_pts[0], 1, RPT_CACHE_COLD, 513, 6.5, 0.97,
		  "storage");
	point_set(&review_pts[1], 1, RPT_CACHE_RAM, 937,
		  ram_long ? 10 : 0.064, ram_long ? 0.9 : 4.68, "cpu");
	point_set(&review_pts[2], 1, RPT_CACHE_WARM, 888, 8.6, 1.04, "cpu");
	point_set(&review_pts[3], 2, RPT_CACHE_COLD, 708, 9.0, 0.99,
		  "storage");
	point_set(&review_pts[4], 2, RPT_CACHE_RAM, 1012,
		  ram_long ? 10 : 0.059, ram_long ? 0.9 : 4.97, "cpu");
	point_set(&review_pts[5], 2, RPT_CACHE_WARM, 831, 20.9, 1.00, "cpu");
	for (int i = 1; i < 6; i += 3) {
		review_pts[i].ram_bytes = 1377513;
		review_pts[i].cgroup_bytes = 682002665;
		review_pts[i].cache_seen_bytes = 2805760;
		review_pts[i].ram_not_limited = ram_not_limited;
		review_pts[i].hit_ratio = ram_not_limited ? 0.22 : 1.0;
		review_pts[i].hit_ratio_estimated = ram_not_limited;
	}
	sweep_init(s, 6);
	rpt_sweep_verdict(s);
}

/* S's text report, in memory. */
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

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

FR_TEST(sweep_verdict, unlimited_ram_point_is_not_judged_and_shows_no_measured_hit_ratio)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *v, *p;
	char *text;
	size_t i;

	/* long enough: only the missing limit keeps it out */
	reviewer_sweep(&s, true, true);
	cv = &s.v.cache[RPT_CACHE_RAM];
	cr_assert_not(cv->measured, "the ram row used a warm run");
	cr_assert_not_null(cv->not_judged);
	cr_assert_not_null(strstr(cv->not_judged, "not limited"));
	cr_assert_not(cv->projected);
	cr_assert_lt(cv->vcpus_per_gpu, 0, "vCPUs per GPU from a warm run");
	cr_assert_neq(s.v.catalog_cache, RPT_CACHE_RAM);
	cr_assert(s.v.cache[RPT_CACHE_WARM].measured);
	cr_assert(s.v.cache[RPT_CACHE_COLD].measured);

	text = sweep_text(&s);
	cr_assert_null(strstr(text, "hit ratio was 100.0"), "%s", text);
	cr_assert_not_null(strstr(text, "not judged"), "%s", text);
	cr_assert_not_null(strstr(text, "LRU estimate: 22.0 %"), "%s", text);
	/* the points table marks the ram rows estimated and not limited */
	cr_assert_eq(count_of(text, " 22.0e "), 2, "%s", text);
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

FR_TEST(sweep_verdict, limited_ram_point_is_judged)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;

	reviewer_sweep(&s, false, true);
	cv = &s.v.cache[RPT_CACHE_RAM];
	cr_assert(cv->measured);
	cr_assert_null(cv->not_judged);
	cr_assert_float_eq(cv->hit_ratio, 1.0, 1e-9);
	cr_assert_not(cv->hit_ratio_estimated);
}

FR_TEST(sweep_verdict, too_short_points_are_marked_and_not_projected)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *p;
	char *text;
	size_t i, short_seen = 0;

	/* limited, but 60 samples in 0.06 s */
	reviewer_sweep(&s, false, false);
	cr_assert(rpt_point_too_short(&review_pts[4]));
	cr_assert_not(rpt_point_too_short(&review_pts[5]));
	cv = &s.v.cache[RPT_CACHE_RAM];
	cr_assert_not(cv->measured);
	cr_assert_not(cv->projected);
	cr_assert_not_null(strstr(cv->not_judged, "too short"));
	text = sweep_text(&s);
	/* the review's impossible projection is gone */
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
	point_set(&review_pts[0], 1, RPT_CACHE_WARM, 384, 2.0, 1.0, "cpu");
	cr_assert_eq(review_pts[0].batches, 3);
	cr_assert(rpt_point_too_short(&review_pts[0]));
	point_set(&review_pts[0], 1, RPT_CACHE_WARM, 512, 2.0, 1.0, "cpu");
	cr_assert_not(rpt_point_too_short(&review_pts[0]));
}

FR_TEST(sweep_verdict, inconsistent_cpu_figures_are_not_projected)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;
	json_t *j, *p;
	char *text;
	size_t i;

	/* 506 samples/s per vCPU x 4.97 ms = 2.5 CPU-s per vCPU-s */
	point_set(&review_pts[0], 1, RPT_CACHE_WARM, 480, 10, 1.0, "cpu");
	point_set(&review_pts[1], 2, RPT_CACHE_WARM, 1012, 10, 4.97, "cpu");
	sweep_init(&s, 2);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[RPT_CACHE_WARM];
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
	point_set(&review_pts[1], 2, RPT_CACHE_WARM, 1012, 10, 1.9, "cpu");
	sweep_init(&s, 2);
	rpt_sweep_verdict(&s);
	cr_assert_not(s.v.cache[RPT_CACHE_WARM].inconsistent);
	cr_assert(s.v.cache[RPT_CACHE_WARM].projected);
}
