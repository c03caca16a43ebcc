/*
 * test_verdict.c - the verdict (reports/verdict.c): GPUs fed at the
 * boundary (exactly T x demand is fed), the sweep's verdict drawn from
 * hand-made point sets (cpu-bound and projected, storage-bound, fed, fed
 * only warm, the checks with emulated GPUs lowering or raising the
 * computed count), the top point the check runs take being the verdict's,
 * a check run at the wrong G ignored and said so, and the run report, the
 * sweep verdict and compare agreeing on GPUs fed for the same numbers;
 * (suite verdict_units) the catalogue in the user's units as the text,
 * JSON and HTML reports give it: each shape's kind of vCPU, the vCPUs
 * needed as a range where the SMT yield is assumed, the reserve, the
 * same-CPU-generation caveat, why the yield is what it is, and a
 * storage-bound feed that judges no catalogue said as such.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "loader.h"
#include "report.h"
#include "report_sweep.h"
#include "verdict.h"

/* A100 tuned row: 2,470 samples/s, so one GPU needs 2,223 at 90 % AU. */
#define DEMAND 2470.0
#define NEED (0.9 * DEMAND)

struct pt {
	unsigned vcpus;
	enum stg_cache_state cache;
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
	s->setup.vcpus_total = vcpus_total;
	s->setup.gpu_type = "A100";
	s->setup.gpu_count = gpus;
	s->setup.demand_per_gpu = DEMAND;
	s->setup.au_threshold = 0.90;
	s->setup.bytes = 140ull * 1000 * 1000 * 1000;
	s->setup.ram_total = 64ull << 30;
	s->setup.ram_available = 60ull << 30;
	s->setup.cgroup_limit = -1;
	s->lru_ram_steady = -1;
	s->lru_half_steady = -1;
}

struct verdict_case {
	const char *name;
	struct pt pts[8];
	size_t npts;
	unsigned vcpus_total, gpus;
	/* expected, per cache state (cold, ram, warm); -1 = not measured */
	int fed[STG_CACHE_STATES];
	const char *limiting[STG_CACHE_STATES];
	bool projected_warm;
	bool storage_ceiling;
};

static const struct verdict_case cases[] = {
	{ "cpu-bound, projected: 8 vCPUs for 1 A100 on a 2-vCPU VM",
	  { { 1, STG_CACHE_COLD, 300, "cpu", 30 },
	    { 2, STG_CACHE_COLD, 560, "cpu", 60 },
	    { 1, STG_CACHE_WARM, 310, "cpu", 31 },
	    { 2, STG_CACHE_WARM, 580, "cpu", 60 } }, 4, 2, 1,
	  { 0, -1, 0 }, { "cpu", NULL, "cpu" }, true, false },
	{ "storage-bound cold, fed warm",
	  { { 8, STG_CACHE_COLD, 1000, "storage", 110 },
	    { 8, STG_CACHE_WARM, 20000, "cpu", 0 } }, 2, 8, 8,
	  { 0, -1, 8 }, { "storage", NULL, "gpu" }, false, true },
	{ "fed in every state: 96 vCPUs, 8 A100s",
	  { { 96, STG_CACHE_COLD, 19000, "cpu", 2100 },
	    { 96, STG_CACHE_RAM, 19500, "cpu", 1800 },
	    { 96, STG_CACHE_WARM, 20000, "cpu", 0 } }, 3, 96, 8,
	  { 8, 8, 8 }, { "gpu", "gpu", "gpu" }, false, false },
	{ "fed only warm: 2 of 4 cold, 4 warm",
	  { { 32, STG_CACHE_COLD, 5000, "storage", 550 },
	    { 32, STG_CACHE_WARM, 9000, "cpu", 0 } }, 2, 32, 4,
	  { 2, -1, 4 }, { "storage", NULL, "gpu" }, false, true },
};

FR_TEST(verdict, table_of_hand_made_point_sets)
{
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct verdict_case *vc = &cases[k];
		struct rpt_sweep s;

		sweep_make(&s, vc->pts, vc->npts, vc->vcpus_total, vc->gpus);
		rpt_sweep_verdict(&s);
		for (int c = 0; c < STG_CACHE_STATES; c++) {
			const struct rpt_cache_verdict *cv = &s.v.cache[c];

			if (vc->fed[c] < 0) {
				cr_assert(!cv->measured, "%s: %s measured",
					  vc->name, stg_cache_state_name(c));
				continue;
			}
			cr_assert(cv->measured, "%s: %s", vc->name,
				  stg_cache_state_name(c));
			cr_assert_eq(cv->gpus_fed, (unsigned)vc->fed[c],
				     "%s: %s fed %u, want %d", vc->name,
				     stg_cache_state_name(c), cv->gpus_fed,
				     vc->fed[c]);
			cr_assert_str_eq(cv->limiting, vc->limiting[c], "%s: %s",
					 vc->name, stg_cache_state_name(c));
		}
		if (vc->fed[STG_CACHE_WARM] >= 0)
			cr_assert_eq(s.v.cache[STG_CACHE_WARM].projected,
				     vc->projected_warm, "%s", vc->name);
		cr_assert_eq(s.v.storage_is_ceiling, vc->storage_ceiling, "%s",
			     vc->name);
		cr_assert(strlen(s.v.headline) > 10, "%s", vc->name);
	}
}

FR_TEST(verdict, projection_uses_the_measured_per_vcpu_rate)
{
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;

	sweep_make(&s, cases[0].pts, cases[0].npts, 2, 1);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
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

FR_TEST(verdict, a_sweep_short_of_this_vms_vcpus_says_how_many_it_measured)
{
	static const struct pt one[] = {
		{ 1, STG_CACHE_WARM, 310, "cpu", 30 },
	};
	struct rpt_sweep s;

	sweep_make(&s, one, 1, 4, 1);   /* --vcpus 1 on a 4-vCPU VM */
	rpt_sweep_verdict(&s);
	cr_expect_not_null(strstr(s.v.headline, "measured at 1 of this VM's 4 "
				  "vCPUs"), "%s", s.v.headline);
	sweep_make(&s, one, 1, 1, 1);   /* the same point, all of a 1-vCPU VM */
	rpt_sweep_verdict(&s);
	cr_expect_null(strstr(s.v.headline, "measured at"), "%s",
		       s.v.headline);
	/* storage-bound: more vCPUs would not feed more, and it says so */
	{
		static const struct pt slow[] = {
			{ 1, STG_CACHE_COLD, 300, "storage", 30 },
		};

		sweep_make(&s, slow, 1, 4, 1);
		rpt_sweep_verdict(&s);
		cr_expect_null(strstr(s.v.headline, "may feed more"), "%s",
			       s.v.headline);
	}
}

FR_TEST(verdict, a_python_pipelines_rate_is_per_worker_vcpu)
{
	/* torch at 2 vCPUs with its 1 DataLoader worker: 170 samples/s; at
	 * 1 vCPU (worker and main process on one CPU): 155 */
	static const struct pt tp[] = {
		{ 1, STG_CACHE_WARM, 155, "cpu", 20 },
		{ 2, STG_CACHE_WARM, 170, "cpu", 20 },
	};
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv;

	sweep_make(&s, tp, 2, 2, 8);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
	cr_expect_float_eq(cv->per_vcpu_rate, 85.0, 1e-9, "per pinned vCPU");
	pts_buf[1].feed_vcpus = 1;      /* the main process: the reserve */
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
	cr_expect_float_eq(cv->per_vcpu_rate, 170.0, 1e-9);
	cr_expect_float_eq(cv->vcpus_per_gpu, NEED / 170.0, 1e-9);
	cr_expect_float_eq(cv->scaling, 170.0 / 155.0, 1e-9,
			   "per feed vCPU against the 1-vCPU point");
	/* the CPU check still counts every pinned vCPU */
	cr_expect_float_eq(cv->cpu_per_vcpu, 85.0 * cv->cpu_s_per_sample,
			   1e-9);
	cr_expect_lt(s.v.smt_yield, 0, "one worker says nothing of SMT");
	/* the projection counts feed vCPUs from the 1 the top point fed on:
	 * scaling per feed vCPU is above 1, so both ends are needed x 170 */
	cr_expect(cv->projected);
	cr_expect_eq(cv->feed_vcpus, 1);
	cr_expect_float_eq(cv->projected_samples_per_s,
			   cv->vcpus_needed * 170.0, 1e-6);
	cr_expect_float_eq(cv->projected_lo, cv->vcpus_needed * 170.0, 1e-6);
	/* on an SMT host the footnote says why no yield was measured */
	{
		char buf[200];

		s.setup.vcpu_kind = STG_VCPU_THREAD;
		s.setup.threads_per_core = 2;
		rpt_sweep_verdict(&s);
		rpt_smt_yield_text(&s, buf, sizeof(buf));
		cr_expect_not_null(strstr(buf, "fed on one of them"), "%s",
				   buf);
	}
}

FR_TEST(verdict, storage_ceiling_in_files_and_gpus)
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

FR_TEST(verdict, checks_confirm_lower_or_raise_the_computed_count)
{
	struct rpt_sweep s;
	/* 5,000 samples/s: floor(5000 / 2223) = 2 */
	const struct pt p[] = { { 16, STG_CACHE_WARM, 5000, "cpu", 0 } };

	sweep_make(&s, p, 1, 16, 4);
	s.confirm[STG_CACHE_WARM][0] = (struct rpt_confirm){ true, 2, 0.95,
							      NULL };
	s.confirm[STG_CACHE_WARM][1] = (struct rpt_confirm){ true, 3, 0.70,
							      NULL };
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed_computed, 2);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed, 2);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].confirmation,
		     RPT_CONF_CONFIRMED);

	/* G itself starved (uneven arrivals with synchronous steps) */
	s.confirm[STG_CACHE_WARM][0].au = 0.85;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed, 1);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].confirmation, RPT_CONF_LOWERED);

	/* G + 1 fed too */
	s.confirm[STG_CACHE_WARM][0].au = 0.99;
	s.confirm[STG_CACHE_WARM][1].au = 0.91;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed, 3);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].confirmation, RPT_CONF_RAISED);

	/* no check run: the computed count stands, labelled computed */
	memset(s.confirm, 0, sizeof(s.confirm));
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed, 2);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].confirmation, RPT_CONF_NONE);
}

FR_TEST(verdict, zero_computed_is_checked_with_one_gpu)
{
	struct rpt_sweep s;
	const struct pt p[] = { { 2, STG_CACHE_COLD, 600, "cpu", 60 } };

	sweep_make(&s, p, 1, 2, 1);
	s.confirm[STG_CACHE_COLD][1] = (struct rpt_confirm){ true, 1, 0.27,
							      NULL };
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_COLD].gpus_fed, 0);
	cr_assert_eq(s.v.cache[STG_CACHE_COLD].confirmation,
		     RPT_CONF_CONFIRMED);
}

FR_TEST(verdict, catalog_check_counts_spare_and_lacking_vcpus)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "big8", .cloud = "X", .gpus = 8, .gpu = "A100",
		  .vcpus = 96, .vcpu_kind = STG_VCPU_CORE, .ram_gib = 1152 },
		{ .name = "small1", .cloud = "X", .gpus = 1, .gpu = "A100",
		  .vcpus = 4, .vcpu_kind = STG_VCPU_CORE, .ram_gib = 16,
		  .recalled = true },
		{ .name = "other", .cloud = "X", .gpus = 8, .gpu = "H100",
		  .vcpus = 192, .vcpu_kind = STG_VCPU_THREAD,
		  .ram_gib = 2048 },
	};
	struct rpt_sweep s;
	/* 1,000 samples/s per vCPU: 2.223 vCPUs per GPU */
	const struct pt p[] = { { 100, STG_CACHE_WARM, 100000, "cpu", 0 },
				{ 50, STG_CACHE_COLD, 50000, "cpu", 0 } };

	sweep_make(&s, p, 2, 100, 8);
	s.setup.threads_per_core = 1;         /* a vCPU here is a core */
	s.reserve_vcpus_per_gpu = 0;    /* the reserve is its own test */
	s.setup.gpu_type = "A100-40GB";
	s.shapes = shapes;
	s.nshapes = 3;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.catalog_cache, STG_CACHE_WARM);
	cr_assert_eq(s.v.nfits, 2, "only the A100 shapes are judged");
	cr_assert_str_eq(s.v.fits[0].shape->name, "big8");
	cr_assert_float_eq(s.v.fits[0].vcpus_needed, 8 * NEED / 1000, 1e-9);
	cr_assert_float_eq(s.v.fits[0].vcpus_needed_lo, 8 * NEED / 1000,
			   1e-9, "core shape, core here: no assumption");
	cr_assert_float_eq(s.v.fits[0].vcpus_spare, 96 - 8 * NEED / 1000,
			   1e-9);
	cr_assert_eq(s.v.fits[0].fits, RPT_FIT_YES);
	cr_assert(s.v.fits[0].ram_holds_dataset);
	cr_assert(s.v.fits[1].vcpus_spare > 0);
	cr_assert(!s.v.fits[1].ram_holds_dataset, "140 GB in 16 GiB");
}

FR_TEST(verdict, thread_vcpu_and_core_vcpu_shapes_need_different_counts)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "threads", .gpus = 8, .gpu = "A100", .vcpus = 96,
		  .vcpu_kind = STG_VCPU_THREAD, .ram_gib = 1152 },
		{ .name = "cores", .gpus = 8, .gpu = "A100", .vcpus = 96,
		  .vcpu_kind = STG_VCPU_CORE, .ram_gib = 900 },
	};
	/* 1,000 samples/s per vCPU */
	const struct pt p[] = { { 16, STG_CACHE_WARM, 16000, "cpu", 0 } };
	const struct rpt_shape_fit *th, *co;
	struct rpt_sweep s;

	sweep_make(&s, p, 1, 16, 8);
	s.setup.threads_per_core = 1;         /* measured on whole cores */
	s.reserve_vcpus_per_gpu = 0;
	s.shapes = shapes;
	s.nshapes = 2;
	rpt_sweep_verdict(&s);
	th = &s.v.fits[0];
	co = &s.v.fits[1];
	cr_assert_eq(s.v.vcpu_kind, STG_VCPU_CORE);
	cr_assert_float_eq(co->vcpus_needed, 8 * NEED / 1000, 1e-9);
	/* a hyperthread gives yield/2 of a core: 2/1.3 .. 2/1.0 x as many */
	cr_assert_float_eq(th->vcpus_needed_lo, 8 * NEED / 1000 * 2 /
			   RPT_SMT_YIELD_HI, 1e-9);
	cr_assert_float_eq(th->vcpus_needed, 8 * NEED / 1000 * 2 /
			   RPT_SMT_YIELD_LO, 1e-9);
	cr_assert_gt(th->vcpus_needed_lo, co->vcpus_needed);

	/* measured where vCPUs are threads with a measured yield of 1.2:
	 * the thread shape takes the rate as is, the core shape converts */
	{
		const struct pt q[] = {
			{ 1, STG_CACHE_WARM, 1000, "cpu", 0 },
			{ 2, STG_CACHE_WARM, 1200, "cpu", 0 },
			{ 16, STG_CACHE_WARM, 9600, "cpu", 0 } };

		sweep_make(&s, q, 3, 16, 8);
		s.setup.threads_per_core = 2;
		s.reserve_vcpus_per_gpu = 0;
		s.shapes = shapes;
		s.nshapes = 2;
		rpt_sweep_verdict(&s);
		cr_assert_eq(s.v.vcpu_kind, STG_VCPU_THREAD);
		cr_assert_float_eq(s.v.smt_yield, 1.2, 1e-9);
		cr_assert_float_eq(th->vcpus_needed, 8 * NEED / 600, 1e-9);
		cr_assert_float_eq(th->vcpus_needed_lo, th->vcpus_needed, 1e-9);
		cr_assert_float_eq(co->vcpus_needed, 8 * NEED / 600 * 1.2 / 2,
				   1e-9);
	}
	/* a guest without siblings whose 2 vCPUs scale like one core's
	 * two threads: the measurement outranks the topology */
	{
		const struct pt q[] = {
			{ 1, STG_CACHE_WARM, 1000, "cpu", 0 },
			{ 2, STG_CACHE_WARM, 1250, "cpu", 0 } };

		sweep_make(&s, q, 2, 2, 1);
		s.setup.threads_per_core = 1;
		/* each vCPU busy all along, 1.6 x the CPU per sample */
		pts_buf[0].stages.process_cpu_s = 10.0;
		pts_buf[1].stages.process_cpu_s = 20.0;
		rpt_sweep_verdict(&s);
		cr_assert_eq(s.v.vcpu_kind, STG_VCPU_THREAD);
		cr_assert_str_eq(s.v.vcpu_kind_basis, "measured scaling");
		cr_assert_float_eq(s.v.smt_yield, 1.25, 1e-9);
		/* the same scaling at the same CPU per sample: the point got
		 * less CPU (a loaded machine), not a shared core */
		pts_buf[1].stages.process_cpu_s = 12.5;
		rpt_sweep_verdict(&s);
		cr_assert_eq(s.v.vcpu_kind, STG_VCPU_CORE);
		pts_buf[1].stages.process_cpu_s = 20.0;
		/* 2 vCPUs at 86 % of twice one (this project's test VMs):
		 * still cores */
		pts_buf[1].samples_per_s = 1720;
		rpt_sweep_verdict(&s);
		cr_assert_eq(s.v.vcpu_kind, STG_VCPU_CORE);
		cr_assert_str_eq(s.v.vcpu_kind_basis, "topology");
		cr_assert_lt(s.v.smt_yield, 0);
	}
}

FR_TEST(verdict, the_training_jobs_reserve_changes_spare_and_fits)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "tight", .gpus = 8, .gpu = "A100", .vcpus = 24,
		  .vcpu_kind = STG_VCPU_CORE, .ram_gib = 256,
		  .demand_total = 16621, .demand_multi_measured = true },
	};
	/* 1,000 samples/s per vCPU, 16 vCPUs, 2 GPUs asked */
	const struct pt p[] = { { 16, STG_CACHE_WARM, 16000, "cpu", 0 } };
	struct rpt_sweep s;
	const struct rpt_cache_verdict *cv = NULL;
	const double need8 = 0.9 * 16621;

	sweep_make(&s, p, 1, 16, 2);
	s.setup.threads_per_core = 1;
	s.reserve_vcpus_per_gpu = 0;
	s.setup.bytes = 100ull << 30;
	s.setup.ram_total = 200ull << 30;
	s.shapes = shapes;
	s.nshapes = 1;
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
	/* the shape's own multi-GPU demand judges it: 16,621, not 8 x */
	cr_assert_float_eq(s.v.fits[0].demand_total, 16621, 1e-9);
	cr_assert_float_eq(s.v.fits[0].vcpus_needed, need8 / 1000, 1e-9);
	cr_assert_eq(s.v.fits[0].fits, RPT_FIT_YES, "15 of 24 without it");
	cr_assert_eq(cv->vcpus_spare, 16 - 5);
	cr_assert_eq(cv->gpus_fed_reserved, cv->gpus_fed);
	cr_assert(s.v.ram_holds_dataset, "100 GiB <= 80 %% of 200 GiB");

	s.reserve_vcpus_per_gpu = 1.5;
	s.reserve_ram_per_gpu = 31ull << 30;
	rpt_sweep_verdict(&s);
	cr_assert_float_eq(s.v.fits[0].vcpus_reserved, 12, 1e-9);
	cr_assert_eq(s.v.fits[0].fits, RPT_FIT_NO, "15 + 12 > 24");
	cr_assert_eq(cv->vcpus_reserved, 3);
	cr_assert_eq(cv->vcpus_spare, 16 - 5 - 3);
	/* 16,000 feeds 7 at 2,223 each; with 1.5 vCPUs per GPU taken:
	 * G <= 16,000 / (2,223 + 1,500) = 4.3 */
	cr_assert_eq(cv->gpus_fed, 7);
	cr_assert_eq(cv->gpus_fed_reserved, 4);
	cr_assert(strstr(s.v.headline, "feeds 4 once the training job"),
		  "%s", s.v.headline);
	/* the one RAM rule: 100 + 2 x 31 GiB > 160 GiB */
	cr_assert_not(s.v.ram_holds_dataset);
	cr_assert_eq(s.v.ram_reserved, 62ull << 30);
	cr_assert_not(s.v.fits[0].ram_holds_dataset, "100 + 8 x 31 > 204.8");
	cr_assert_eq(rpt_reserve_ram_default(256, 2, 602112),
		     256ull * 2 * 602112 + RPT_RESERVE_PROCESS_BYTES);
}

FR_TEST(verdict, a_storage_bound_row_has_no_vcpus_per_gpu_and_no_catalogue)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "p", .gpus = 8, .gpu = "A100", .vcpus = 96,
		  .vcpu_kind = STG_VCPU_THREAD, .ram_gib = 1152 },
	};
	const struct pt p[] = { { 4, STG_CACHE_COLD, 1100, "storage", 120 } };
	const struct rpt_cache_verdict *cv;
	struct rpt_sweep s;

	sweep_make(&s, p, 1, 4, 8);
	s.shapes = shapes;
	s.nshapes = 1;
	pts_buf[0].reads_in_flight_max = 32;
	pts_buf[0].read_latency_s = 0.028;      /* 1,100 x 28 ms = 30.8 */
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_COLD];
	cr_assert(cv->measured);
	cr_assert(cv->storage_bound);
	cr_assert_lt(cv->vcpus_per_gpu, 0, "null: more vCPUs do not help");
	cr_assert_eq(cv->vcpus_needed, 0);
	cr_assert_not(cv->projected);
	cr_assert_eq(s.v.catalog_cache, -1, "never judges the catalogue");
	cr_assert_lt(s.v.fits[0].vcpus_needed, 0);
	cr_assert(strstr(s.v.storage_advice, "more reads in flight"), "%s",
		  s.v.storage_advice);
	cr_expect(strstr(s.v.storage_advice, "a cold run with twice the "
			 "--depth tells which"), "%s", s.v.storage_advice);
	cr_assert(strstr(s.v.headline, "limited by storage"), "%s",
		  s.v.headline);
	/* the same rate with few reads in flight: the throughput limits */
	pts_buf[0].read_latency_s = 0.002;      /* 2.2 in flight of 32 */
	rpt_sweep_verdict(&s);
	cr_assert(strstr(s.v.storage_advice, "will not help"), "%s",
		  s.v.storage_advice);
	/* 1,100 files/s feed 3 GPUs of 400; a reserve of 1 vCPU per GPU
	 * takes CPU, which a storage-bound feed does not lack */
	s.setup.demand_per_gpu = 400;
	s.reserve_vcpus_per_gpu = 1;
	rpt_sweep_verdict(&s);
	cr_assert_eq(cv->gpus_fed, 3);
	cr_assert_eq(cv->gpus_fed_reserved, 3);
	pts_buf[0].bottleneck = "cpu";          /* the same rate, CPU-bound */
	rpt_sweep_verdict(&s);
	cr_assert_eq(cv->gpus_fed_reserved, 1, "275 x 4 / (360 + 275)");
}

FR_TEST(verdict, a_cold_point_that_hit_the_page_cache_is_not_cold)
{
	const struct pt p[] = { { 4, STG_CACHE_COLD, 3000, "cpu", 120 },
				{ 4, STG_CACHE_WARM, 3100, "cpu", 0 } };
	struct rpt_sweep s;

	sweep_make(&s, p, 2, 4, 1);
	pts_buf[0].hit_ratio = 0.50;
	pts_buf[0].odirect_refused = true;
	rpt_sweep_verdict(&s);
	cr_assert_not(rpt_point_usable(&pts_buf[0]));
	cr_assert_not(s.v.cache[STG_CACHE_COLD].measured);
	cr_assert(strstr(s.v.cache[STG_CACHE_COLD].not_judged, "not cold"));
	cr_assert(strstr(s.v.cache[STG_CACHE_COLD].not_judged, "O_DIRECT"));
	cr_assert_not(s.v.storage_known, "no storage ceiling from it");
	pts_buf[0].hit_ratio = 0.01;
	rpt_sweep_verdict(&s);
	cr_assert(s.v.cache[STG_CACHE_COLD].measured);
}

FR_TEST(verdict, dropped_and_failed_points_are_not_used)
{
	struct rpt_sweep s;
	const struct pt p[] = { { 1, STG_CACHE_WARM, 300, "cpu", 0 },
				{ 2, STG_CACHE_WARM, 99999, "cpu", 0 } };

	/* the point at all of this VM's vCPUs failed: fewer vCPUs judge */
	sweep_make(&s, p, 2, 2, 1);
	pts_buf[1].status = RPT_POINT_FAILED;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].vcpus_top, 1);
	cr_assert(!s.v.cache[STG_CACHE_WARM].top_is_all);
	cr_assert(s.v.cache[STG_CACHE_WARM].projected);
	/* dropped for the budget: no verdict from fewer vCPUs */
	pts_buf[1].status = RPT_POINT_DROPPED;
	rpt_sweep_verdict(&s);
	cr_assert_not(s.v.cache[STG_CACHE_WARM].measured);
	cr_assert(s.v.cache[STG_CACHE_WARM].top_dropped);
	cr_assert(strstr(s.v.cache[STG_CACHE_WARM].not_judged, "budget"));
	cr_assert(strstr(s.v.headline, "no verdict"), "%s", s.v.headline);
	/* a RAM-axis size dropped at all vCPUs is not the state's point */
	{
		const struct pt q[] = {
			{ 1, STG_CACHE_RAM, 300, "cpu", 0 },
			{ 2, STG_CACHE_RAM, 560, "cpu", 0 },
			{ 2, STG_CACHE_RAM, 0, "cpu", 0 } };

		sweep_make(&s, q, 3, 2, 1);
		pts_buf[2].status = RPT_POINT_DROPPED;
		pts_buf[2].ram_axis = true;
		rpt_sweep_verdict(&s);
		cr_assert(s.v.cache[STG_CACHE_RAM].measured);
		cr_assert_not(s.v.cache[STG_CACHE_RAM].top_dropped);
		cr_assert_eq(s.v.cache[STG_CACHE_RAM].vcpus_top, 2);
	}
}

/* ---- GPUs fed, and one choice of the top point ---- */

FR_TEST(verdict, exactly_t_times_demand_counts_as_fed)
{
	/* T x demand is rarely exact in binary: G x T x demand, multiplied
	 * in any order (0.7 x 2470 x 3 gives 5186.999999999999), must give
	 * G, and a hair less must not */
	static const double thr[] = { 0.9, 0.7 };

	for (size_t t = 0; t < 2; t++)
		for (unsigned k = 1; k <= 64; k++) {
			const double at[] = {
				k * (thr[t] * DEMAND), (k * thr[t]) * DEMAND,
				k * DEMAND * thr[t], thr[t] * (k * DEMAND),
			};

			for (size_t o = 0; o < 4; o++)
				cr_assert_eq(rpt_verdict_gpus_fed(at[o], DEMAND,
					     thr[t]), k, "%u x %.1f x demand = "
					     "%.17g", k, thr[t], at[o]);
			cr_assert_eq(rpt_verdict_gpus_fed(at[0] * (1 - 1e-6),
				     DEMAND, thr[t]), k - 1, "just under %u x "
				     "T x demand", k);
		}
	cr_assert_eq(rpt_verdict_gpus_fed(6669, DEMAND, 0.9), 3,
		     "3 x 2,223 = 6,669");
	cr_assert_eq(rpt_verdict_gpus_fed(6668.99, DEMAND, 0.9), 2);
	cr_assert_eq(rpt_verdict_gpus_fed(700, 1000, 0.7), 1, "a 70 %% "
		     "workload: 700 of 1,000 feeds one");
	/* no demand, no threshold: nothing is judged fed */
	cr_assert_eq(rpt_verdict_gpus_fed(1e6, 0, 0.9), 0);
	cr_assert_eq(rpt_verdict_gpus_fed(1e6, -5, 0.9), 0);
	cr_assert_eq(rpt_verdict_gpus_fed(1e6, DEMAND, 0), 0);
	cr_assert_eq(rpt_verdict_gpus_fed(1e6, DEMAND, -1), 0);
	cr_assert_eq(rpt_verdict_gpus_fed(NAN, DEMAND, 0.9), 0);
	cr_assert_eq(rpt_verdict_gpus_fed(1e300, 1, 0.9),
		     RPT_VERDICT_GPUS_MAX, "capped");
	/* the measured AU at exactly the threshold is fed too */
	cr_assert(rpt_verdict_au_fed(0.9, 0.9));
	cr_assert(!rpt_verdict_au_fed(0.8999, 0.9));
	cr_assert_float_eq(rpt_verdict_threshold(0), LDR_DEFAULT_AU_THRESHOLD,
			   1e-12);
	cr_assert_float_eq(rpt_verdict_threshold(0.7), 0.7, 1e-12);
}

FR_TEST(verdict, top_point_of_the_checks_is_the_verdicts)
{
	const struct pt p[] = {
		{ 1, STG_CACHE_WARM, 300, "cpu", 0 },
		{ 4, STG_CACHE_WARM, 1100, "cpu", 0 },
		{ 8, STG_CACHE_WARM, 9000, "cpu", 0 },   /* too short */
		{ 16, STG_CACHE_WARM, 99999, "cpu", 0 }, /* dropped */
		{ 4, STG_CACHE_WARM, 1200, "cpu", 0 },   /* same count, later */
		{ 2, STG_CACHE_RAM, 700, "cpu", 0 },
		{ 4, STG_CACHE_RAM, 5000, "cpu", 0 },    /* not limited */
		{ 2, STG_CACHE_COLD, 650, "storage", 60 },
	};
	struct rpt_sweep s;

	/* 32 vCPUs: the dropped 16-vCPU point is not the VM's all */
	sweep_make(&s, p, sizeof(p) / sizeof(p[0]), 32, 1);
	pts_buf[2].measured_s = 0.5;
	pts_buf[3].status = RPT_POINT_DROPPED;
	pts_buf[6].ram_not_limited = true;
	cr_assert_eq(rpt_verdict_top(pts_buf, s.npoints, STG_CACHE_WARM), 1,
		     "usable, most vCPUs, the first of equals");
	cr_assert_eq(rpt_verdict_top(pts_buf, s.npoints, STG_CACHE_RAM), 5);
	cr_assert_eq(rpt_verdict_top(pts_buf, s.npoints, STG_CACHE_COLD), 7);
	cr_assert_eq(rpt_verdict_top(pts_buf, 0, STG_CACHE_COLD), -1);
	cr_assert_eq(rpt_verdict_top(pts_buf, 1, STG_CACHE_COLD), -1);

	/* what the check runs do: run G and G + 1 where rpt_verdict_top
	 * says, with G from rpt_verdict_gpus_fed there */
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const int top = rpt_verdict_top(pts_buf, s.npoints,
						(enum stg_cache_state)c);
		const unsigned g = rpt_verdict_gpus_fed(
			pts_buf[top].samples_per_s, DEMAND, 0.9);

		cr_assert_geq(top, 0);
		s.confirm[c][0] = (struct rpt_confirm){ g > 0, g, 0.95, NULL,
							pts_buf[top].vcpus };
		s.confirm[c][1] = (struct rpt_confirm){ true, g + 1, 0.40,
							NULL,
							pts_buf[top].vcpus };
	}
	rpt_sweep_verdict(&s);
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &s.v.cache[c];
		const int top = rpt_verdict_top(pts_buf, s.npoints,
						(enum stg_cache_state)c);

		cr_assert_eq(cv->top, top, "%s", stg_cache_state_name(c));
		cr_assert_eq(cv->vcpus_top, pts_buf[top].vcpus);
		cr_assert_float_eq(cv->samples_per_s,
				   pts_buf[top].samples_per_s, 1e-9);
		cr_assert_eq(cv->check.ignored, 0, "%s: %s",
			     stg_cache_state_name(c), cv->check.note);
		cr_assert_eq(cv->check.used_g1, 1);
		cr_assert_eq(cv->confirmation, RPT_CONF_CONFIRMED, "%s",
			     stg_cache_state_name(c));
	}
	cr_assert_eq(s.v.cache[STG_CACHE_WARM].vcpus_top, 4);
	cr_assert_float_eq(s.v.cache[STG_CACHE_WARM].samples_per_s, 1100,
			   1e-9);
}

FR_TEST(verdict, check_run_at_another_g_is_ignored_and_said)
{
	/* 5,000 samples/s: G = 2 */
	const struct pt p[] = { { 16, STG_CACHE_WARM, 5000, "cpu", 0 } };
	const struct rpt_cache_verdict *cv;
	struct rpt_sweep s;
	char *buf = NULL;
	size_t len = 0;
	json_t *j, *pc, *confs;
	FILE *f;

	sweep_make(&s, p, 1, 16, 4);
	/* a run with 1 GPU starving would lower G = 1 to 0; it is not G */
	s.confirm[STG_CACHE_WARM][0] = (struct rpt_confirm){ true, 1, 0.50,
							      NULL, 16 };
	s.confirm[STG_CACHE_WARM][1] = (struct rpt_confirm){ true, 3, 0.70,
							      NULL, 16 };
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_WARM];
	cr_assert_eq(cv->gpus_fed_computed, 2);
	cr_assert_eq(cv->gpus_fed, 2, "the 1-GPU run changes nothing");
	cr_assert_eq(cv->confirmation, RPT_CONF_NONE,
		     "G itself was never checked");
	cr_assert_eq(cv->check.ignored, 1);
	cr_assert_eq(cv->check.used_g, -1);
	cr_assert_eq(cv->check.used_g1, 1);
	cr_assert(strstr(cv->check.note, "G = 2"), "%s", cv->check.note);
	cr_assert(strstr(cv->check.note, "1 GPU "), "%s", cv->check.note);

	/* said in the text, JSON and HTML reports */
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	rpt_sweep_print(f, &s);
	fclose(f);
	cr_assert(strstr(buf, "NOT USED: check runs for G = 2"), "%s", buf);
	free(buf);
	j = rpt_sweep_json(&s, false);
	cr_assert_not_null(j);
	pc = json_array_get(json_object_get(json_object_get(j, "verdict"),
					    "per_cache"), 0);
	cr_assert_eq(json_integer_value(json_object_get(pc,
		"checks_ignored")), 1);
	cr_assert(json_is_string(json_object_get(pc, "checks_note")));
	confs = json_object_get(pc, "confirmations");
	cr_assert_eq(json_array_size(confs), 2);
	cr_assert(json_is_false(json_object_get(json_array_get(confs, 0),
						"used")));
	cr_assert(json_is_true(json_object_get(json_array_get(confs, 1),
					       "used")));
	json_decref(j);
	buf = rpt_sweep_html(&s);
	cr_assert(strstr(buf, "check runs NOT USED"));
	free(buf);

	/* a run at G, but at another vCPU count than the verdict's point */
	s.confirm[STG_CACHE_WARM][0] = (struct rpt_confirm){ true, 2, 0.50,
							      NULL, 8 };
	rpt_sweep_verdict(&s);
	cr_assert_eq(cv->gpus_fed, 2, "not lowered by a run at 8 vCPUs");
	cr_assert_eq(cv->check.ignored, 1);
	cr_assert(strstr(cv->check.note, "at 8 vCPUs"), "%s", cv->check.note);

	/* the same run at the verdict's point does lower it */
	s.confirm[STG_CACHE_WARM][0].vcpus = 16;
	rpt_sweep_verdict(&s);
	cr_assert_eq(cv->gpus_fed, 1);
	cr_assert_eq(cv->confirmation, RPT_CONF_LOWERED);
	cr_assert_eq(cv->check.ignored, 0);
	cr_assert_str_eq(cv->check.note, "");
}

FR_TEST(verdict, runs_in_any_order_and_extra_runs_are_counted)
{
	const struct rpt_confirm runs[] = {
		{ true, 4, 0.91, NULL, 0 },     /* G + 1, fed */
		{ false, 3, 0, "no time", 0 },  /* not run: not counted */
		{ true, 3, 0.97, NULL, 0 },     /* G */
		{ true, 3, 0.10, NULL, 0 },     /* a second G: not used */
		{ true, 9, 0.10, NULL, 0 },     /* neither */
	};
	struct rpt_check ck;

	rpt_verdict_confirm(3, runs, 5, 12, 0.9, &ck);
	cr_assert_eq(ck.gpus_fed, 4);
	cr_assert_eq(ck.confirmation, RPT_CONF_RAISED);
	cr_assert_eq(ck.used_g, 2);
	cr_assert_eq(ck.used_g1, 0);
	cr_assert_eq(ck.ignored, 2);
	cr_assert(strstr(ck.note, "9 GPUs"), "%s", ck.note);
	/* no runs: the computed count stands */
	rpt_verdict_confirm(3, NULL, 0, 12, 0.9, &ck);
	cr_assert_eq(ck.gpus_fed, 3);
	cr_assert_eq(ck.confirmation, RPT_CONF_NONE);
	cr_assert_eq(ck.ignored, 0);
}

/* A run report of SPS samples/s (raw feed) against DEMAND at THR. */
static unsigned run_gpus_fed(double sps, double thr, json_t **fed_json)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct rpt_run r;
	unsigned g;
	json_t *j;

	cr_assert_not_null(res);
	memset(&r, 0, sizeof(r));
	res->samples_per_s = sps;
	res->measured_s = 10;
	res->samples = (uint64_t)(sps * 10);
	res->batch = 256;
	res->batches = 100;
	r.res = res;
	r.setup.gpu_type = "A100";
	r.setup.gpu_count = 0;
	r.setup.demand_per_gpu = DEMAND;
	r.setup.au_threshold = thr;
	r.cpu_outside_mask_s = -1;
	r.fraction_resident = -1;
	r.hit_ratio = -1;
	g = rpt_run_gpus_fed(&r);
	j = rpt_run_json(&r);
	cr_assert_not_null(j);
	*fed_json = json_incref(json_object_get(json_object_get(j, "gpus"),
						"fed_at_threshold"));
	json_decref(j);
	free(res);
	return g;
}

FR_TEST(verdict, run_sweep_and_compare_agree_on_gpus_fed)
{
	static const struct { double sps, thr; unsigned want; } feeds[] = {
		{ 500, 0.9, 0 }, { 1000, 0.9, 0 }, { NEED, 0.9, 1 },
		{ NEED - 0.01, 0.9, 0 }, { 2 * NEED, 0.9, 2 },
		{ 6669, 0.9, 3 }, { 6668.99, 0.9, 2 },
		{ 8 * NEED + 1, 0.9, 8 }, { 19000, 0.9, 8 },
		{ 21000, 0.9, 9 },
		/* 0.7 x 2470 x 3 = 5186.999999999999 in binary: fed 3 */
		{ (3 * 0.7) * DEMAND, 0.7, 3 }, { 5186.9, 0.7, 2 },
		{ 21000, 0.7, 12 },
	};

	for (size_t i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
		const struct pt p[] = {
			{ 96, STG_CACHE_WARM, feeds[i].sps, "cpu", 0 },
		};
		const unsigned want = feeds[i].want;
		struct rpt_candidate cand;
		struct rpt_sweep s;
		json_t *sj, *fed;
		char why[512];
		unsigned run_g;

		run_g = run_gpus_fed(feeds[i].sps, feeds[i].thr, &fed);
		sweep_make(&s, p, 1, 96, 8);
		s.setup.version = "test";
		s.setup.au_threshold = feeds[i].thr;
		rpt_sweep_verdict(&s);
		sj = rpt_sweep_json(&s, false);
		cr_assert_not_null(sj);
		cr_assert_eq(rpt_candidate_from_json(sj, "t.json", &cand, why,
						     sizeof(why)), 0, "%s", why);
		cr_assert_eq(run_g, want, "run at %.2f: %u, want %u",
			     feeds[i].sps, run_g, want);
		cr_assert_eq((unsigned)json_integer_value(fed), want);
		cr_assert_eq(s.v.cache[STG_CACHE_WARM].gpus_fed, want,
			     "sweep at %.2f", feeds[i].sps);
		cr_assert_eq(cand.gpus_fed[STG_CACHE_WARM], (int)want,
			     "compare at %.2f", feeds[i].sps);
		cr_assert_eq(cand.gpus_fed_stored[STG_CACHE_WARM], (int)want);
		cr_assert(!rpt_candidate_note(&cand, STG_CACHE_WARM, why,
					      sizeof(why)), "%s", why);
		rpt_candidate_free(&cand);
		json_decref(sj);
		json_decref(fed);
	}
}

FR_TEST(verdict, run_too_short_is_not_judged)
{
	struct rpt_run_numbers n = {
		.measured = true, .samples_per_s = 3 * NEED, .batches = 3,
		.batch = 256, .measured_s = 2, .gpu_count = 2,
		.demand_per_gpu = DEMAND, .au_threshold = 0.9, .au = 0.95,
	};
	struct rpt_run_judgement j;

	/* 2 GPUs need 4 batches */
	rpt_verdict_run(&n, &j);
	cr_assert(j.too_short);
	cr_assert_eq(j.gpus_fed, 0);
	cr_assert(strstr(j.why, "at least 4 needed"), "%s", j.why);
	n.batches = 4;
	rpt_verdict_run(&n, &j);
	cr_assert(!j.too_short, "%s", j.why);
	cr_assert_eq(j.gpus_fed, 3);
	cr_assert(j.asked_fed);
	n.warmup_incomplete = true;
	rpt_verdict_run(&n, &j);
	cr_assert(j.too_short);
	cr_assert(strstr(j.why, "warm-up"), "%s", j.why);
	/* the default threshold when none is given */
	n.warmup_incomplete = false;
	n.au_threshold = 0;
	n.au = 0.89;
	rpt_verdict_run(&n, &j);
	cr_assert_float_eq(j.au_threshold, LDR_DEFAULT_AU_THRESHOLD, 1e-12);
	cr_assert(!j.asked_fed);
}

/* ---- points that must not be judged: a ram point its cgroup did not
 * limit, points too short, figures that contradict each other ---- */

static struct rpt_point review_pts[8];

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
	s->setup.version = "test";
	s->setup.workload = "imagenet";
	s->setup.dataset = "/data";
	s->setup.files = 30;
	s->setup.bytes = 2805760;
	s->setup.pipeline = "native";
	s->setup.cpu_model = "cpu";
	s->setup.vcpus_total = 2;
	s->setup.threads_per_core = 1;
	s->setup.ram_total = 24ull << 30;
	s->setup.ram_available = 20ull << 30;
	s->setup.cgroup_limit = -1;
	s->setup.gpu_type = "A100";
	s->setup.gpu_detail = "A100 80GB";
	s->setup.gpu_count = 1;
	s->setup.demand_per_gpu = DEMAND;
	s->setup.demand_kind = "train";
	s->setup.demand_source = "a README";
	s->setup.au_threshold = 0.9;
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
	point_set(&review_pts[0], 1, STG_CACHE_COLD, 513, 6.5, 0.97,
		  "storage");
	point_set(&review_pts[1], 1, STG_CACHE_RAM, 937,
		  ram_long ? 10 : 0.064, ram_long ? 0.9 : 4.68, "cpu");
	point_set(&review_pts[2], 1, STG_CACHE_WARM, 888, 8.6, 1.04, "cpu");
	point_set(&review_pts[3], 2, STG_CACHE_COLD, 708, 9.0, 0.99,
		  "storage");
	point_set(&review_pts[4], 2, STG_CACHE_RAM, 1012,
		  ram_long ? 10 : 0.059, ram_long ? 0.9 : 4.97, "cpu");
	point_set(&review_pts[5], 2, STG_CACHE_WARM, 831, 20.9, 1.00, "cpu");
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
	cv = &s.v.cache[STG_CACHE_RAM];
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
	cv = &s.v.cache[STG_CACHE_RAM];
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
	point_set(&review_pts[0], 1, STG_CACHE_WARM, 384, 2.0, 1.0, "cpu");
	cr_assert_eq(review_pts[0].batches, 3);
	cr_assert(rpt_point_too_short(&review_pts[0]));
	point_set(&review_pts[0], 1, STG_CACHE_WARM, 512, 2.0, 1.0, "cpu");
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
	point_set(&review_pts[0], 1, STG_CACHE_WARM, 480, 10, 1.0, "cpu");
	point_set(&review_pts[1], 2, STG_CACHE_WARM, 1012, 10, 4.97, "cpu");
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
	point_set(&review_pts[1], 2, STG_CACHE_WARM, 1012, 10, 1.9, "cpu");
	sweep_init(&s, 2);
	rpt_sweep_verdict(&s);
	cr_assert_not(s.v.cache[STG_CACHE_WARM].inconsistent);
	cr_assert(s.v.cache[STG_CACHE_WARM].projected);
}

FR_TEST(verdict, a_storage_bound_state_that_feeds_the_asked_gpus_stays_storage_bound)
{
	/* 3,000 samples/s storage-bound at 8 vCPUs feeds 1 A100 */
	const struct pt p[] = { { 8, STG_CACHE_COLD, 3000, "storage", 300 } };
	const struct rpt_cache_verdict *cv;
	struct rpt_sweep s;

	sweep_make(&s, p, 1, 8, 1);
	rpt_sweep_verdict(&s);
	cv = &s.v.cache[STG_CACHE_COLD];
	cr_assert_str_eq(cv->limiting, "gpu");
	cr_assert(cv->storage_bound);
	cr_assert_lt(cv->vcpus_per_gpu, 0, "no vCPUs per GPU from it");
	cr_assert_eq(s.v.catalog_cache, -1);
}

FR_TEST(verdict, a_measured_smt_yield_is_held_between_one_and_two)
{
	/* a handicapped 1-vCPU point: 2 sibling threads give 2.5 x */
	const struct pt p[] = { { 1, STG_CACHE_WARM, 400, "cpu", 0 },
				{ 2, STG_CACHE_WARM, 1000, "cpu", 0 } };
	struct rpt_sweep s;

	sweep_make(&s, p, 2, 2, 1);
	s.setup.threads_per_core = 2;
	rpt_sweep_verdict(&s);
	cr_assert_float_eq(s.v.smt_yield, 2.5, 1e-9, "reported as measured");
	cr_assert_float_eq(s.v.smt_yield_hi, RPT_SMT_YIELD_MAX, 1e-9);
	cr_assert_float_eq(s.v.smt_yield_lo, RPT_SMT_YIELD_MAX, 1e-9);
	/* cores per GPU never fewer than threads per GPU */
	cr_assert_geq(s.v.cache[STG_CACHE_WARM].core_per_gpu_lo,
		      s.v.cache[STG_CACHE_WARM].thread_per_gpu_lo * 1.0 - 1e-9);
	pts_buf[1].samples_per_s = 360;         /* below one thread alone */
	rpt_sweep_verdict(&s);
	cr_assert_float_eq(s.v.smt_yield_lo, 1.0, 1e-9);
}

FR_TEST(verdict, the_state_point_comes_before_a_ram_axis_size_at_equal_vcpus)
{
	const struct pt p[] = { { 2, STG_CACHE_RAM, 900, "cpu", 0 },
				{ 2, STG_CACHE_RAM, 500, "cpu", 0 } };
	struct rpt_sweep s;

	sweep_make(&s, p, 2, 2, 1);
	pts_buf[0].ram_axis = true;             /* planned first, axis */
	cr_assert_eq(rpt_verdict_top(pts_buf, 2, STG_CACHE_RAM), 1);
	pts_buf[1].status = RPT_POINT_FAILED;
	cr_assert_eq(rpt_verdict_top(pts_buf, 2, STG_CACHE_RAM), 0,
		     "an axis size when the state's own failed");
}

FR_TEST(verdict, a_cpu_bound_cold_point_does_not_say_a_shape_lacks_ram)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "small", .gpus = 8, .gpu = "A100", .vcpus = 96,
		  .vcpu_kind = STG_VCPU_CORE, .ram_gib = 16 },
	};
	/* cold CPU-bound at 500/s: the storage was never the limit */
	const struct pt p[] = { { 4, STG_CACHE_COLD, 500, "cpu", 60 } };
	struct rpt_sweep s;

	sweep_make(&s, p, 1, 4, 8);
	s.shapes = shapes;
	s.nshapes = 1;
	rpt_sweep_verdict(&s);
	cr_assert(s.v.ram_need.at_most);
	cr_assert_not(s.v.fits[0].ram_holds_dataset, "140 GB in 16 GiB");
	cr_assert_eq(s.v.fits[0].ram_fit, RPT_RAM_FIT_UNKNOWN);
	cr_assert_null(strstr(s.v.ram_text, "storage-bound at"), "%s",
		       s.v.ram_text);
	/* the same rate storage-bound: now the storage is the limit */
	pts_buf[0].bottleneck = "storage";
	rpt_sweep_verdict(&s);
	cr_assert_neq(s.v.fits[0].ram_fit, RPT_RAM_FIT_UNKNOWN);
}

/* ---- the catalogue in the user's units, as the reports say it ---- */

/* A100 shapes of both vCPU kinds, one that fits, one that fits only at
 * the best end of the SMT-yield range, one that lacks vCPUs. */
static const struct rpt_shape unit_shapes[] = {
	{ .name = "threads.96", .cloud = "X", .gpus = 8, .gpu = "A100",
	  .vcpus = 96, .vcpu_kind = STG_VCPU_THREAD,
	  .vcpu_kind_source = "X: 2 vCPUs per core", .ram_gib = 1152,
	  .demand_row = "A100-40GB", .demand_total = 8 * 2375.0,
	  .demand_basis = "measured", .demand_source = "a README (40GB)" },
	{ .name = "threads.40", .cloud = "X", .gpus = 8, .gpu = "A100",
	  .vcpus = 40, .vcpu_kind = STG_VCPU_THREAD,
	  .vcpu_kind_source = "X: 2 vCPUs per core", .ram_gib = 512,
	  .demand_row = "A100-40GB", .demand_total = 8 * 2375.0,
	  .demand_basis = "measured", .demand_source = "a README (40GB)" },
	{ .name = "cores.24", .cloud = "Y", .gpus = 8, .gpu = "A100",
	  .vcpus = 24, .vcpu_kind = STG_VCPU_CORE,
	  .vcpu_kind_source = "Y: 24 physical cores", .ram_gib = 900,
	  .demand_row = "A100", .demand_total = 16621,
	  .demand_basis = "measured", .demand_multi_measured = true,
	  .demand_source = "a README (8 x A100: 16,621)" },
};

/* What the pipeline needs of 8 GPUs that eat D samples/s together, at a
 * rate of R samples/s per vCPU: 0.9 D / R vCPUs of this VM's kind. */
#define UNITS_NEED(d, r) (0.9 * (d) / (r))

/*
 * A sweep for 8 x A100 with the shapes above and a reserve of 1.5 vCPUs
 * and 3 GiB per GPU. THREADS false: 16 whole cores at 1,000 samples/s
 * each, warm (the SMT yield assumed); true: SMT siblings, 1,000 samples/s
 * on one thread, 1,200 on one core's two (a measured yield of 1.2), 600
 * per vCPU at 16.
 */
static void units_sweep(struct rpt_sweep *s, bool threads)
{
	const struct pt cores[] = { { 16, STG_CACHE_WARM, 16000, "cpu", 0 } };
	const struct pt sibs[] = { { 1, STG_CACHE_WARM, 1000, "cpu", 0 },
				   { 2, STG_CACHE_WARM, 1200, "cpu", 0 },
				   { 16, STG_CACHE_WARM, 9600, "cpu", 0 } };

	if (threads)
		sweep_make(s, sibs, 3, 16, 8);
	else
		sweep_make(s, cores, 1, 16, 8);
	s->setup.threads_per_core = threads ? 2 : 1;
	s->setup.version = "test";
	s->setup.workload = "imagenet";
	s->setup.dataset = "/data";
	s->setup.pipeline = "native";
	s->setup.cpu_model = "Test CPU 9000";
	s->setup.gpu_detail = "A100 80GB";
	s->setup.demand_kind = "train";
	s->setup.demand_source = "a README";
	s->budget_rule = "";
	s->notes = "";
	s->reserve_vcpus_per_gpu = 1.5;
	s->reserve_ram_per_gpu = 3ull << 30;
	s->reserve_ram_how = "";
	s->shapes = unit_shapes;
	s->nshapes = sizeof(unit_shapes) / sizeof(unit_shapes[0]);
	rpt_sweep_verdict(s);
}

/* S's text report with each run of spaces and line breaks made one
 * space, so that a phrase is found wherever the report wrapped it. */
static char *flat_text(const struct rpt_sweep *s)
{
	char *t = sweep_text(s), *o = t;

	for (const char *p = t; *p; p++) {
		if (*p == ' ' || *p == '\n') {
			if (o > t && o[-1] == ' ')
				continue;
			*o++ = ' ';
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return t;
}

/* The entry of catalog[] named NAME in verdict V (JSON). */
static json_t *catalog_entry(json_t *v, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(v, "catalog"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")),
			    name))
			return e;
	cr_assert_fail("no %s in catalog[]", name);
	return NULL;
}

static double num_of(json_t *o, const char *key)
{
	json_t *n = json_object_get(o, key);

	cr_assert(json_is_number(n), "%s is not a number", key);
	return json_number_value(n);
}

FR_TEST(verdict_units, json_carries_the_vcpu_kinds_the_yield_and_the_reserve)
{
	struct rpt_sweep s;
	json_t *j, *v, *th, *co, *r;
	const double th_need = UNITS_NEED(8 * 2375.0, 1000);
	const double co_need = UNITS_NEED(16621, 1000);

	/* cores here: a thread shape needs 2/1.3 .. 2/1.0 x as many */
	units_sweep(&s, false);
	j = rpt_sweep_json(&s, false);
	cr_assert_not_null(j);
	v = json_object_get(j, "verdict");
	cr_assert_str_eq(json_string_value(json_object_get(v, "vcpu_kind")),
			 "core");
	cr_assert(json_is_null(json_object_get(v, "smt_yield")));
	r = json_object_get(v, "smt_yield_range");
	cr_assert_float_eq(json_number_value(json_array_get(r, 0)),
			   RPT_SMT_YIELD_LO, 1e-9);
	cr_assert_float_eq(json_number_value(json_array_get(r, 1)),
			   RPT_SMT_YIELD_HI, 1e-9);
	cr_assert(strstr(json_string_value(json_object_get(v,
		"smt_yield_basis")), "no SMT siblings here"));
	r = json_object_get(v, "reserve");
	cr_assert_float_eq(num_of(r, "vcpus_per_gpu"), 1.5, 1e-12);
	cr_assert_eq(json_integer_value(json_object_get(r,
		"ram_bytes_per_gpu")), 3ll << 30);
	th = catalog_entry(v, "threads.96");
	co = catalog_entry(v, "cores.24");
	cr_assert_str_eq(json_string_value(json_object_get(th, "vcpu_kind")),
			 "thread");
	cr_assert_str_eq(json_string_value(json_object_get(th,
		"vcpu_kind_source")), "X: 2 vCPUs per core");
	cr_assert_str_eq(json_string_value(json_object_get(co, "vcpu_kind")),
			 "core");
	cr_assert_float_eq(num_of(th, "vcpus_needed_low"),
			   th_need * 2 / RPT_SMT_YIELD_HI, 1e-6);
	cr_assert_float_eq(num_of(th, "vcpus_needed"),
			   th_need * 2 / RPT_SMT_YIELD_LO, 1e-6);
	cr_assert_float_eq(num_of(co, "vcpus_needed_low"), co_need, 1e-6);
	cr_assert_float_eq(num_of(co, "vcpus_needed"), co_need, 1e-6);
	cr_assert_float_eq(num_of(co, "vcpus_reserved"), 12, 1e-9);
	cr_assert_str_eq(json_string_value(json_object_get(th, "fits")),
			 "fits");
	cr_assert_str_eq(json_string_value(json_object_get(catalog_entry(v,
		"threads.40"), "fits")), "maybe");
	cr_assert_str_eq(json_string_value(json_object_get(co, "fits")),
			 "lacks", "24 - 15 - 12 < 0");
	cr_assert_str_eq(json_string_value(json_object_get(co,
		"demand_source")), "a README (8 x A100: 16,621)");
	cr_assert(json_is_null(json_object_get(v, "catalog_not_judged")));
	json_decref(j);

	/* threads here, yield measured: the thread shape takes the rate as
	 * is, the core shape converts with the measured 1.2 */
	units_sweep(&s, true);
	j = rpt_sweep_json(&s, false);
	v = json_object_get(j, "verdict");
	cr_assert_str_eq(json_string_value(json_object_get(v, "vcpu_kind")),
			 "thread");
	cr_assert_float_eq(num_of(v, "smt_yield"), 1.2, 1e-9);
	r = json_object_get(v, "smt_yield_range");
	cr_assert_float_eq(json_number_value(json_array_get(r, 0)), 1.2, 1e-9);
	cr_assert_float_eq(json_number_value(json_array_get(r, 1)), 1.2, 1e-9);
	th = catalog_entry(v, "threads.96");
	co = catalog_entry(v, "cores.24");
	cr_assert_float_eq(num_of(th, "vcpus_needed"),
			   UNITS_NEED(8 * 2375.0, 600), 1e-6);
	cr_assert_float_eq(num_of(th, "vcpus_needed_low"),
			   UNITS_NEED(8 * 2375.0, 600), 1e-6);
	cr_assert_float_eq(num_of(co, "vcpus_needed"),
			   UNITS_NEED(16621, 600) * 1.2 / 2, 1e-6);
	cr_assert_float_eq(num_of(co, "vcpus_needed_low"),
			   UNITS_NEED(16621, 600) * 1.2 / 2, 1e-6);
	json_decref(j);
}

FR_TEST(verdict_units, text_catalogue_says_where_its_rate_holds_and_the_range)
{
	struct rpt_sweep s;
	char *text;

	units_sweep(&s, false);
	text = flat_text(&s);
	cr_assert(strstr(text, "measured on Test CPU 9000"), "%s", text);
	cr_assert(strstr(text, "same CPU generation only"), "%s", text);
	/* 17.1 cores: 26.3 .. 34.2 threads */
	cr_assert(strstr(text, "27-35"), "%s", text);
	cr_assert(strstr(text, "1.5 vCPU and 3.22 GB RAM per GPU"), "%s",
		  text);
	free(text);
}

FR_TEST(verdict_units, footnote_says_why_the_smt_yield_is_what_it_is)
{
	struct rpt_sweep s;
	char *text;

	/* no siblings here */
	units_sweep(&s, false);
	text = flat_text(&s);
	cr_assert(strstr(text, "SMT yield of 1.00-1.30, assumed: no SMT"),
		  "%s", text);
	free(text);

	/* siblings, measured */
	units_sweep(&s, true);
	text = flat_text(&s);
	cr_assert(strstr(text, "SMT yield of 1.20, measured here"), "%s",
		  text);
	cr_assert_null(strstr(text, "no SMT siblings"), "%s", text);
	free(text);

	/* siblings, but the 2-vCPU point was dropped by the budget */
	units_sweep(&s, true);
	pts_buf[1].status = RPT_POINT_DROPPED;
	rpt_sweep_verdict(&s);
	cr_assert_lt(s.v.smt_yield, 0);
	text = flat_text(&s);
	cr_assert(strstr(text, "1.00-1.30, assumed: the sibling points"),
		  "%s", text);
	cr_assert(strstr(text, "dropped by the budget"), "%s", text);
	cr_assert_null(strstr(text, "no SMT siblings"), "%s", text);
	free(text);

	/* ... or it failed */
	pts_buf[1].status = RPT_POINT_FAILED;
	pts_buf[1].why = "child killed";
	rpt_sweep_verdict(&s);
	text = flat_text(&s);
	cr_assert(strstr(text, "not both measured: failed"), "%s", text);
	cr_assert_null(strstr(text, "no SMT siblings"), "%s", text);
	free(text);
}

FR_TEST(verdict_units, html_catalogue_has_the_kind_the_range_the_reserve_and_the_caveat)
{
	struct rpt_sweep s;
	char *html;

	units_sweep(&s, false);
	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	cr_assert(strstr(html, "<th>vCPU</th>"));
	cr_assert(strstr(html, "<td class=\"vcpu-kind\" title=\"X: 2 vCPUs "
			 "per core\">thread</td>"), "%s", html);
	cr_assert(strstr(html, "<td class=\"vcpu-kind\" title=\"Y: 24 "
			 "physical cores\">core</td>"));
	/* threads.96: 26.3 .. 34.2 threads; cores.24: 15 cores */
	cr_assert(strstr(html, "<td class=\"needed\">27&ndash;35</td>"));
	cr_assert(strstr(html, "<td class=\"needed\">15</td>"));
	cr_assert(strstr(html, "<td class=\"reserved\">12 vCPUs, 25.77 GB"
			 "</td>"));
	cr_assert(strstr(html, "<td class=\"fit\">fits</td>"));
	cr_assert(strstr(html, "<td class=\"fit\">maybe</td>"));
	cr_assert(strstr(html, "<td class=\"fit\">lacks</td>"));
	cr_assert(strstr(html, "8 x A100-40GB: 19,000 samples/s (<span class="
			 "\"basis\" title=\"a README (40GB)\">measured</span>"),
		  "%s", html);
	cr_assert(strstr(html, "the source's measured multi-GPU figure"));
	cr_assert(strstr(html, "measured on Test CPU 9000"));
	cr_assert(strstr(html, "same CPU generation only"));
	cr_assert(strstr(html, "SMT yield of 1.00-1.30, assumed: no SMT"));
	free(html);
}

FR_TEST(verdict_units, a_storage_bound_sweep_says_so_instead_of_no_shape)
{
	const struct pt p[] = { { 4, STG_CACHE_COLD, 1100, "storage", 120 } };
	struct rpt_sweep s;
	char *html, *text;
	json_t *j;

	units_sweep(&s, false);
	sweep_make(&s, p, 1, 4, 8);
	s.setup.version = "test";
	s.setup.cpu_model = "Test CPU 9000";
	s.shapes = unit_shapes;
	s.nshapes = sizeof(unit_shapes) / sizeof(unit_shapes[0]);
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.catalog_cache, -1);
	html = rpt_sweep_html(&s);
	cr_assert_null(strstr(html, "No catalogued shape"));
	cr_assert(strstr(html, "the feed here is storage-bound (cold): more "
			 "vCPUs do not help, so the catalogue is not judged "
			 "from it"), "%s", html);
	free(html);
	text = flat_text(&s);
	cr_assert(strstr(text, "storage-bound (cold): more vCPUs do not help"),
		  "%s", text);
	free(text);
	j = rpt_sweep_json(&s, false);
	cr_assert(strstr(json_string_value(json_object_get(json_object_get(j,
		"verdict"), "catalog_not_judged")), "storage-bound"));
	json_decref(j);

	/* one state judged CPU-bound: the catalogue is judged by it */
	{
		const struct pt q[] = {
			{ 4, STG_CACHE_COLD, 1100, "storage", 120 },
			{ 4, STG_CACHE_WARM, 4000, "cpu", 0 } };

		sweep_make(&s, q, 2, 4, 8);
		s.setup.version = "test";
		s.shapes = unit_shapes;
		s.nshapes = 1;
		rpt_sweep_verdict(&s);
		cr_assert_eq(s.v.catalog_cache, STG_CACHE_WARM);
		html = rpt_sweep_html(&s);
		cr_assert_null(strstr(html, "catalog-unjudged"));
		cr_assert(strstr(html, "<table class=\"catalog\">"));
		free(html);
	}
}

FR_TEST(sweep_verdict, a_ram_point_is_labelled_with_the_page_cache_it_had)
{
	struct rpt_sweep s;
	char *text;

	/* asked 1.4 MB, held 2.8 MB (the whole dataset) */
	reviewer_sweep(&s, false, true);
	text = sweep_text(&s);
	cr_assert(strstr(text, "ram 2.8 MB"), "%s", text);
	cr_assert_null(strstr(text, "ram 1.4 MB"), "%s", text);
	free(text);
	/* not measured: the asked size, the only one known */
	review_pts[1].cache_seen_bytes = 0;
	review_pts[4].cache_seen_bytes = 0;
	rpt_sweep_verdict(&s);
	text = sweep_text(&s);
	cr_assert(strstr(text, "ram 1.4 MB"), "%s", text);
	free(text);
}
