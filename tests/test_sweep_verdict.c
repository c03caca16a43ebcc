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
