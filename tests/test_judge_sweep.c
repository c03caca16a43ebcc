/*
 * test_judge_sweep.c - a sweep's points (judge/sweep.c): which point is
 * usable (each reason, at its edge), which judges a cache state, a top
 * dropped for the budget, the SMT yield (measured, clamped, hidden SMT,
 * assumed), one state's verdict (fed at exactly T x demand x count,
 * CPU-bound with a projection, storage-bound, inconsistent figures), the
 * catalogue's state and a shape's fit, the storage seen cold and the
 * advice at the depth-busy edge, the pipeline's own memory, the RAM limit
 * and the RAM curve's rows. Made-up figures; expected values by hand.
 */
#include <math.h>

#include "harness.h"
#include "judge.h"

#define T 0.9

/* A usable point: 2 s, 10 batches. */
static struct jdg_point P(enum stg_cache_state c, unsigned vcpus,
			  double rate)
{
	return (struct jdg_point){ .cache = c, .measured = true,
		.vcpus = vcpus, .measured_s = 2, .batches = 10,
		.samples_per_s = rate, .hit_ratio = -1,
		.bound = JDG_BOUND_CPU, .read_latency_s = -1 };
}

FR_TEST(judge_sweep, usable_edges_and_reasons_in_order)
{
	struct jdg_point p = P(STG_CACHE_COLD, 2, 100);

	p.measured_s = JDG_POINT_MIN_WINDOW_S;
	p.batches = JDG_POINT_MIN_BATCHES;
	cr_assert(jdg_point_usable(&p));
	p.measured_s = nextafter(JDG_POINT_MIN_WINDOW_S, 0);
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_TOO_SHORT);
	p.measured_s = 2;
	p.batches = JDG_POINT_MIN_BATCHES - 1;
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_TOO_SHORT);
	/* not cold outranks too short; exactly the limit is still cold */
	p.hit_ratio = JDG_COLD_HIT_MAX;
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_TOO_SHORT);
	p.hit_ratio = JDG_COLD_HIT_MAX + 1e-6;
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_NOT_COLD);
	/* the same hit ratio on a warm point is what warm means */
	p.cache = STG_CACHE_WARM;
	p.batches = 10;
	cr_assert(jdg_point_usable(&p));
	p.cache = STG_CACHE_RAM;
	p.ram_not_limited = true;
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_RAM_NOT_LIMITED);
	p.measured = false;
	cr_assert_eq(jdg_point_unusable(&p), JDG_UNUSABLE_NOT_MEASURED);
}

FR_TEST(judge_sweep, feed_vcpus)
{
	struct jdg_point p = P(STG_CACHE_WARM, 4, 100);

	cr_assert_eq(jdg_point_feed_vcpus(&p), 4);
	p.feed_vcpus = 3;
	cr_assert_eq(jdg_point_feed_vcpus(&p), 3);
	p.feed_vcpus = 4;
	cr_assert_eq(jdg_point_feed_vcpus(&p), 4);
	p.feed_vcpus = 9;       /* more than it had: its vCPUs */
	cr_assert_eq(jdg_point_feed_vcpus(&p), 4);
}

FR_TEST(judge_sweep, top_most_vcpus_own_size_first)
{
	struct jdg_point pts[6] = {
		P(STG_CACHE_RAM, 2, 100), P(STG_CACHE_RAM, 4, 200),
		P(STG_CACHE_RAM, 4, 300), P(STG_CACHE_WARM, 8, 900),
		P(STG_CACHE_RAM, 8, 10), P(STG_CACHE_RAM, 8, 20),
	};

	pts[4].ram_axis = true;
	/* at 8 vCPUs the RAM-axis size yields to the state's own size */
	cr_assert_eq(jdg_top(pts, 6, STG_CACHE_RAM), 5);
	pts[5].measured_s = 0.5;        /* too short: the axis size judges */
	cr_assert_eq(jdg_top(pts, 6, STG_CACHE_RAM), 4);
	/* on a full tie the first */
	cr_assert_eq(jdg_top(pts, 3, STG_CACHE_RAM), 1);
	cr_assert_eq(jdg_top(pts, 6, STG_CACHE_COLD), -1);
	cr_assert_eq(jdg_top(pts, 0, STG_CACHE_RAM), -1);
	cr_assert_eq(jdg_point_at(pts, 6, STG_CACHE_RAM, 4), 1);
	cr_assert_eq(jdg_point_at(pts, 6, STG_CACHE_RAM, 3), -1);
}

FR_TEST(judge_sweep, top_dropped_and_not_judged)
{
	struct jdg_point pts[4] = {
		P(STG_CACHE_COLD, 2, 100), P(STG_CACHE_COLD, 8, 0),
		P(STG_CACHE_WARM, 4, 50), P(STG_CACHE_WARM, 8, 60),
	};

	pts[1].measured = false;
	pts[1].dropped = true;
	cr_assert(jdg_top_dropped(pts, 4, STG_CACHE_COLD, 8));
	cr_assert_not(jdg_top_dropped(pts, 4, STG_CACHE_WARM, 8));
	/* a RAM-axis size dropped at all vCPUs does not stop a verdict */
	pts[1].ram_axis = true;
	cr_assert_not(jdg_top_dropped(pts, 4, STG_CACHE_COLD, 8));
	/* not judged: the unusable measured point with the most vCPUs */
	pts[2].batches = 1;
	pts[3].measured_s = 0.1;
	cr_assert_eq(jdg_not_judged(pts, 4, STG_CACHE_WARM), 3);
	cr_assert_eq(jdg_not_judged(pts, 4, STG_CACHE_COLD), -1);
}

FR_TEST(judge_sweep, smt_measured_clamped_hidden_assumed)
{
	struct jdg_point pts[2] = {
		P(STG_CACHE_WARM, 1, 100), P(STG_CACHE_WARM, 2, 130),
	};
	struct jdg_smt s;

	jdg_smt(pts, 2, STG_VCPU_THREAD, &s);
	cr_assert_float_eq(s.yield, 1.3, 1e-12);
	cr_assert_float_eq(s.yield_lo, 1.3, 1e-12);
	cr_assert_float_eq(s.yield_hi, 1.3, 1e-12);
	pts[1].samples_per_s = 250;     /* more than doubled: clamped */
	jdg_smt(pts, 2, STG_VCPU_THREAD, &s);
	cr_assert_float_eq(s.yield_hi, JDG_SMT_YIELD_MAX, 1e-12);
	/* cores scaling at exactly the hidden-SMT edge, each vCPU needing
	 * exactly JDG_HIDDEN_SMT_CPU x the CPU: hidden SMT */
	pts[1].samples_per_s = 200 * JDG_HIDDEN_SMT_SCALING;
	pts[0].cpu_s_per_sample = 0.01;
	pts[1].cpu_s_per_sample = 0.01 * JDG_HIDDEN_SMT_CPU;
	jdg_smt(pts, 2, STG_VCPU_CORE, &s);
	cr_assert_eq(s.kind, STG_VCPU_THREAD);
	cr_assert(s.kind_measured);
	cr_assert_float_eq(s.yield, 2 * JDG_HIDDEN_SMT_SCALING, 1e-12);
	/* the same scaling at the same CPU per sample: load, not SMT */
	pts[1].cpu_s_per_sample = 0.01;
	jdg_smt(pts, 2, STG_VCPU_CORE, &s);
	cr_assert_eq(s.kind, STG_VCPU_CORE);
	cr_assert_lt(s.yield, 0);
	cr_assert_float_eq(s.yield_lo, JDG_SMT_YIELD_LO, 1e-12);
	cr_assert_float_eq(s.yield_hi, JDG_SMT_YIELD_HI, 1e-12);
	/* a storage-bound 2-vCPU point says nothing of a second thread */
	pts[1].bound = JDG_BOUND_STORAGE;
	jdg_smt(pts, 2, STG_VCPU_THREAD, &s);
	cr_assert_lt(s.yield, 0);
	pts[1].bound = JDG_BOUND_CPU;
	pts[1].feed_vcpus = 1;          /* one worker fed it */
	jdg_smt(pts, 2, STG_VCPU_THREAD, &s);
	cr_assert_lt(s.yield, 0);
}

static const struct jdg_smt smt_cores = {
	.kind = STG_VCPU_CORE, .yield = -1,
	.yield_lo = JDG_SMT_YIELD_LO, .yield_hi = JDG_SMT_YIELD_HI,
};

static struct jdg_cache_in cache_in(enum stg_cache_state c, unsigned gpus)
{
	return (struct jdg_cache_in){ .cache = c, .demand_per_gpu = 100,
		.au_threshold = T, .gpu_count = gpus, .vcpus_total = 8,
		.reserve_vcpus_per_gpu = 1, .smt = &smt_cores };
}

FR_TEST(judge_sweep, cache_fed_exactly_at_the_need)
{
	/* 4 GPUs x T x 100 = 360 samples/s */
	struct jdg_point pts[2] = {
		P(STG_CACHE_WARM, 1, 100), P(STG_CACHE_WARM, 8, 360),
	};
	const struct jdg_cache_in in = cache_in(STG_CACHE_WARM, 4);
	struct jdg_cache j;

	jdg_cache_judge(pts, 2, &in, &j);
	cr_assert(j.measured);
	cr_assert_eq(j.top, 1);
	cr_assert(j.top_is_all);
	cr_assert_eq(j.gpus_fed, 4);
	cr_assert(j.gpu_limits);
	cr_assert_not(j.cpu_limits);
	cr_assert_not(j.more_vcpus_may_help);
	cr_assert_float_eq(j.per_vcpu_rate, 45, 1e-12);
	cr_assert_float_eq(j.scaling, 0.45, 1e-12);
	/* 90 / 45 = 2 vCPUs per GPU: 8 for 4, + 4 reserved, 8 have: -4 */
	cr_assert_float_eq(j.vcpus_per_gpu, 2, 1e-12);
	cr_assert_eq(j.vcpus_needed, 8);
	cr_assert_eq(j.vcpus_reserved, 4);
	cr_assert_eq(j.vcpus_spare, -4);
	/* a hair less: 3 fed, CPU-bound, and the reserve takes one more */
	pts[1].samples_per_s = 359.9;
	jdg_cache_judge(pts, 2, &in, &j);
	cr_assert_eq(j.gpus_fed, 3);
	cr_assert(j.cpu_limits);
	cr_assert_lt(j.gpus_fed_reserved, j.gpus_fed);
	cr_assert(j.projected);
	cr_assert_leq(j.projected_lo, j.projected_hi);
}

FR_TEST(judge_sweep, cache_storage_bound_and_inconsistent)
{
	struct jdg_point pts[1] = { P(STG_CACHE_COLD, 4, 100) };
	struct jdg_cache_in in = cache_in(STG_CACHE_COLD, 2);
	struct jdg_cache j;

	pts[0].bound = JDG_BOUND_STORAGE;
	jdg_cache_judge(pts, 1, &in, &j);
	cr_assert(j.storage_bound);
	cr_assert_not(j.cpu_limits);
	cr_assert_lt(j.vcpus_per_gpu, 0);
	cr_assert_eq(j.gpus_fed_reserved, j.gpus_fed);
	cr_assert_not(j.more_vcpus_may_help);
	cr_assert_lt(j.scaling, 0);     /* no 1-vCPU point */
	/* CPU-bound at 4 of 8 vCPUs, 25 samples/s per vCPU at 0.05 CPU-s
	 * each = 1.25 CPU per vCPU: inconsistent, no projection */
	pts[0].bound = JDG_BOUND_CPU;
	pts[0].cpu_s_per_sample = 0.05;
	jdg_cache_judge(pts, 1, &in, &j);
	cr_assert(j.inconsistent);
	cr_assert_not(j.projected);
	cr_assert(j.more_vcpus_may_help);
	/* 1.0 CPU per vCPU is consistent */
	pts[0].cpu_s_per_sample = 0.04;
	jdg_cache_judge(pts, 1, &in, &j);
	cr_assert_not(j.inconsistent);
	cr_assert(j.projected);
}

FR_TEST(judge_sweep, no_verdict_from_fewer_vcpus_when_dropped)
{
	struct jdg_point pts[2] = {
		P(STG_CACHE_RAM, 4, 500), P(STG_CACHE_RAM, 8, 0),
	};
	const struct jdg_cache_in in = cache_in(STG_CACHE_RAM, 1);
	struct jdg_cache j;

	pts[1].measured = false;
	pts[1].dropped = true;
	jdg_cache_judge(pts, 2, &in, &j);
	cr_assert(j.top_dropped);
	cr_assert_not(j.measured);
	cr_assert_eq(j.top, -1);
	cr_assert_eq(j.not_judged, -1);
}

FR_TEST(judge_sweep, states_for_headline_and_catalogue)
{
	struct jdg_cache c[STG_CACHE_STATES] = { 0 };

	cr_assert_eq(jdg_best_state(c), -1);
	cr_assert_eq(jdg_warmest_state(c), -1);
	cr_assert_eq(jdg_catalog_state(c), -1);
	c[STG_CACHE_COLD] = (struct jdg_cache){ .measured = true,
		.gpus_fed = 3, .vcpus_per_gpu = 1 };
	c[STG_CACHE_RAM] = (struct jdg_cache){ .measured = true,
		.gpus_fed = 3, .vcpus_per_gpu = 2, .inconsistent = true };
	/* the coldest on a tie; the warmest measured */
	cr_assert_eq(jdg_best_state(c), STG_CACHE_COLD);
	cr_assert_eq(jdg_warmest_state(c), STG_CACHE_RAM);
	cr_assert_eq(jdg_catalog_state(c), STG_CACHE_COLD);
	c[STG_CACHE_COLD].storage_bound = true;
	cr_assert_eq(jdg_catalog_state(c), -1);
	c[STG_CACHE_RAM].inconsistent = false;
	cr_assert_eq(jdg_catalog_state(c), STG_CACHE_RAM);
}

FR_TEST(judge_sweep, shape_fit_edges)
{
	/* 1 thread-vCPU per GPU here, yield 1.0..1.3: a core needs 0.5 to
	 * 0.65 per GPU; the need is T x 100 per GPU */
	const struct jdg_cache cv = { .measured = true, .vcpus_per_gpu = 1,
		.thread_per_gpu_lo = 1, .thread_per_gpu_hi = 1,
		.core_per_gpu_lo = 0.5, .core_per_gpu_hi = 0.65 };
	struct jdg_shape_in in = { .vcpus = 12, .gpus = 8, .threads = true,
		.demand_per_gpu = 100, .au_threshold = T, .need_per_gpu = 90,
		.reserve_vcpus_per_gpu = 0.5 };
	struct jdg_shape s;

	/* 8 threads needed + 4 reserved = 12: fits at exactly 0 spare */
	jdg_shape_fit(&in, &cv, &s);
	cr_assert_float_eq(s.demand_total, 800, 1e-9);
	cr_assert_float_eq(s.vcpus_needed, 8, 1e-9);
	cr_assert_float_eq(s.vcpus_spare, 0, 1e-9);
	cr_assert_eq(s.fits, JDG_FIT_YES);
	in.vcpus = 11.9;
	jdg_shape_fit(&in, &cv, &s);
	cr_assert_eq(s.fits, JDG_FIT_NO);
	/* cores: 4 to 5.2 needed + 4: 9 vCPUs fit only at the high yield */
	in.threads = false;
	in.vcpus = 9;
	jdg_shape_fit(&in, &cv, &s);
	cr_assert_eq(s.fits, JDG_FIT_MAYBE);
	cr_assert_float_eq(s.vcpus_needed_lo, 4, 1e-9);
	cr_assert_float_eq(s.vcpus_needed, 5.2, 1e-9);
	/* its own demand row outranks the asked one */
	in.demand_total = 400;
	jdg_shape_fit(&in, &cv, &s);
	cr_assert_eq(s.fits, JDG_FIT_YES);
	jdg_shape_fit(&in, NULL, &s);
	cr_assert_eq(s.fits, JDG_FIT_UNKNOWN);
	cr_assert_lt(s.vcpus_needed, 0);
}

FR_TEST(judge_sweep, storage_seen_cold)
{
	struct jdg_point pts[3] = {
		P(STG_CACHE_COLD, 2, 100), P(STG_CACHE_COLD, 4, 100),
		P(STG_CACHE_WARM, 4, 900),
	};
	struct jdg_storage st;

	pts[0].files_per_s = 50;        /* shards: 2 samples per file */
	pts[0].read_bytes_per_s = 9e6;
	pts[1].files_per_s = 50;        /* a tie: the first */
	pts[1].read_bytes_per_s = 5e6;
	pts[1].bound = JDG_BOUND_STORAGE;
	pts[2].files_per_s = 1e6;       /* warm: not the storage */
	jdg_storage(pts, 3, 10, &st);
	cr_assert(st.known);
	cr_assert(st.is_ceiling);
	cr_assert_eq(st.point, 0);
	cr_assert_float_eq(st.bytes_per_s, 9e6, 1);
	cr_assert_float_eq(st.files_per_sample, 0.5, 1e-12);
	cr_assert_float_eq(st.gpus, 10, 1e-9);
	jdg_storage(pts + 2, 1, 10, &st);
	cr_assert_not(st.known);
	cr_assert_eq(st.point, -1);
	cr_assert_float_eq(st.gpus, 0, 1e-12);
}

FR_TEST(judge_sweep, storage_advice_at_the_busy_edge)
{
	struct jdg_point p = P(STG_CACHE_COLD, 4, 100);
	double inflight;

	p.files_per_s = 1000;
	p.reads_in_flight_max = 10;
	p.read_latency_s = JDG_DEPTH_BUSY * 10 / 1000;  /* exactly 8 */
	cr_assert_eq(jdg_storage_advice(&p, true, &inflight),
		     JDG_ADVICE_DEPTH_FULL);
	cr_assert_float_eq(inflight, 8, 1e-9);
	p.read_latency_s = 0.0079;
	cr_assert_eq(jdg_storage_advice(&p, true, &inflight),
		     JDG_ADVICE_THROUGHPUT);
	p.reads_in_flight_max = 0;      /* unknown depth: not full */
	cr_assert_eq(jdg_storage_advice(&p, true, &inflight),
		     JDG_ADVICE_THROUGHPUT);
	p.read_latency_s = -1;
	cr_assert_eq(jdg_storage_advice(&p, true, &inflight),
		     JDG_ADVICE_UNKNOWN);
	cr_assert_lt(inflight, 0);
	cr_assert_eq(jdg_storage_advice(&p, false, &inflight),
		     JDG_ADVICE_NONE);
	cr_assert_eq(jdg_storage_advice(NULL, true, &inflight),
		     JDG_ADVICE_NONE);
}

FR_TEST(judge_sweep, own_memory_and_ram_limit)
{
	struct jdg_point pts[3] = {
		P(STG_CACHE_RAM, 4, 1), P(STG_CACHE_RAM, 8, 1),
		P(STG_CACHE_WARM, 8, 1),
	};

	cr_assert_eq(jdg_own_memory(pts, 3), 0);
	pts[0].ram_bytes = 1000;
	pts[0].cgroup_bytes = 1300;
	pts[1].ram_bytes = 1000;
	pts[1].cgroup_bytes = 1000;     /* nothing beside: not a figure */
	pts[2].cgroup_bytes = 9000;     /* not a ram point */
	cr_assert_eq(jdg_own_memory(pts, 3), 300);
	pts[0].measured = false;
	cr_assert_eq(jdg_own_memory(pts, 3), 0);
	cr_assert_eq(jdg_ram_limit(100, 80, -1), 100);
	cr_assert_eq(jdg_ram_limit(0, 80, -1), 80);
	cr_assert_eq(jdg_ram_limit(100, 80, 60), 60);
	cr_assert_eq(jdg_ram_limit(100, 80, 100), 100);
	cr_assert_eq(jdg_ram_limit(100, 80, 0), 0);
}

FR_TEST(judge_sweep, ram_rows_sorted_counted_and_worst)
{
	struct jdg_point pts[4] = {
		P(STG_CACHE_COLD, 8, 100), P(STG_CACHE_RAM, 8, 200),
		P(STG_CACHE_WARM, 8, 400), P(STG_CACHE_RAM, 4, 150),
	};
	const struct jdg_ram_need need = { .known = true,
		.storage_samples_per_s = 100, .fraction_needed = 0.25,
		.fraction_here = 0.5 };
	const struct jdg_ram_rows_in in = { .dataset_bytes = 1000,
		.cpu_samples_per_s = 400, .need = &need };
	struct jdg_ram_row rows[JDG_RAM_ROWS_MAX];
	unsigned checked, disagree;
	size_t n;

	pts[1].ram_bytes = 500;         /* half cached; the model: 0.153 */
	pts[1].hit_ratio = 0.40;
	pts[3].ram_bytes = 500;         /* fewer vCPUs: not a row */
	n = jdg_ram_rows(pts, 4, &in, rows, &checked, &disagree);
	/* 3 measured + 11 tenths + the need at 0.25 + this VM's at 0.5 */
	cr_assert_eq(n, 16);
	for (size_t i = 1; i < n; i++)
		cr_assert_leq(rows[i - 1].fraction, rows[i].fraction);
	cr_assert_eq(rows[0].point, 0);         /* measured before model */
	cr_assert_eq(rows[1].point, -1);
	cr_assert_eq(checked, 1);
	cr_assert_eq(disagree, 1);
	cr_assert_eq(jdg_ram_worst_row(rows, n) >= 0, 1);
	cr_assert_eq(rows[jdg_ram_worst_row(rows, n)].point, 1);
	/* a model row's feed: the lower of the CPU's and the storage's
	 * through the misses; at 0: 100 */
	cr_assert_float_eq(rows[1].samples_per_s, 100, 1e-9);
	cr_assert_float_eq(rows[n - 1].samples_per_s, 400, 1e-9);
	/* within the tolerance: agrees */
	pts[1].hit_ratio = jdg_lru_hit(0.5) + JDG_RAM_MODEL_TOL - 1e-6;
	n = jdg_ram_rows(pts, 4, &in, rows, &checked, &disagree);
	cr_assert_eq(disagree, 0);
	/* an estimate is a row but not held against the model */
	pts[1].hit_ratio_estimated = true;
	n = jdg_ram_rows(pts, 4, &in, rows, &checked, &disagree);
	cr_assert_eq(checked, 0);
	cr_assert_eq(jdg_ram_worst_row(rows, n), -1);
	/* no need figures: only the measured rows and the tenths */
	{
		const struct jdg_ram_rows_in bare = { .dataset_bytes = 1000,
			.cpu_samples_per_s = -1 };

		n = jdg_ram_rows(pts, 4, &bare, rows, &checked, &disagree);
		cr_assert_eq(n, 14);
		cr_assert_lt(rows[1].samples_per_s, 0);
	}
	n = jdg_ram_rows(pts, 0, &in, rows, &checked, &disagree);
	cr_assert_eq(n, 13);
}

FR_TEST(judge_rules, asked_fed_demand_total_and_busy)
{
	cr_assert(jdg_asked_fed(4, 4));
	cr_assert(jdg_asked_fed(5, 4));
	cr_assert_not(jdg_asked_fed(3, 4));
	cr_assert_not(jdg_asked_fed(-1, 1));    /* unknown */
	cr_assert_not(jdg_asked_fed(3, 0));     /* none asked */
	cr_assert_float_eq(jdg_demand_total(700, 100, 8), 700, 1e-12);
	cr_assert_float_eq(jdg_demand_total(0, 100, 8), 800, 1e-12);
	cr_assert_float_eq(jdg_demand_total(-1, 100, 0), 0, 1e-12);
	cr_assert(jdg_cpu_busy(JDG_CPU_BUSY));
	cr_assert_not(jdg_cpu_busy(nextafter(JDG_CPU_BUSY, 0)));
	cr_assert_not(jdg_cpu_busy(NAN));
}

FR_TEST(judge_rules, node_fed)
{
	cr_assert(jdg_node_fed(true, 2, 0, 0));
	cr_assert_not(jdg_node_fed(false, 2, 0, 0));    /* raw feed */
	cr_assert_not(jdg_node_fed(true, 0, 0, 0));     /* nothing counted */
	cr_assert_not(jdg_node_fed(true, 2, 1, 0));     /* a rank lost */
	cr_assert_not(jdg_node_fed(true, 2, 0, 1));     /* a rank below T */
}

FR_TEST(judge_rules, cluster_scaling_base_and_edge)
{
	/* 1 rank 100; 2 ranks exactly 90 % (180); 4 ranks 89 % (356);
	 * 8 ranks not measured */
	const double rates[] = { 100, 180, 356, -1 };
	const unsigned ranks[] = { 1, 2, 4, 8 };
	double eff[4];

	cr_assert_eq(jdg_cluster_scaling(rates, ranks, 4, eff), 2);
	cr_assert_float_eq(eff[0], 1, 1e-12);
	cr_assert_float_eq(eff[1], 0.9, 1e-12);
	cr_assert_float_eq(eff[2], 0.89, 1e-12);
	cr_assert_lt(eff[3], 0);
	/* no 1-rank figure: nothing scales, every efficiency unknown */
	cr_assert_eq(jdg_cluster_scaling(rates + 1, ranks + 1, 3, eff), 0);
	cr_assert_lt(eff[0], 0);
	cr_assert_eq(jdg_cluster_scaling(rates, ranks, 0, eff), 0);
}

FR_TEST(judge_rules, cluster_nodes_and_the_slowest_unfed)
{
	const bool fed[] = { false, true, false, false, false };
	const unsigned counted[] = { 2, 2, 2, 0, 1 };
	const unsigned missing[] = { 0, 0, 0, 0, 1 };
	const double rates[] = { 300, 10, 200, 0, 5 };

	cr_assert_eq(jdg_cluster_nodes(4, 3), 4);
	cr_assert_eq(jdg_cluster_nodes(2, 3), 3);
	/* node 1 is fed, 3 counted nothing, 4 lost a rank: node 2 */
	cr_assert_eq(jdg_slowest_unfed(fed, counted, missing, rates, 5), 2);
	cr_assert_eq(jdg_slowest_unfed(fed, counted, missing, rates, 2), 0);
	cr_assert_eq(jdg_slowest_unfed(fed + 1, counted + 1, missing + 1,
				       rates + 1, 1), -1);
	/* a tie: the first */
	{
		const double same[] = { 200, 10, 200, 0, 5 };

		cr_assert_eq(jdg_slowest_unfed(fed, counted, missing, same, 5),
			     0);
	}
}

FR_TEST(judge_rules, storage_feeds_the_asked_gpus)
{
	cr_assert(jdg_storage_feeds(4, 4));
	cr_assert(jdg_storage_feeds(4.5, 4));
	cr_assert_not(jdg_storage_feeds(3.999, 4));
	cr_assert(jdg_storage_feeds(0, 0));
	cr_assert_not(jdg_storage_feeds(NAN, 1));
}

FR_TEST(judge_rules, cluster_fed_every_node)
{
	cr_assert(jdg_cluster_fed(true, 3, 3));
	cr_assert_not(jdg_cluster_fed(true, 2, 3));
	cr_assert_not(jdg_cluster_fed(false, 3, 3));    /* raw feed */
	cr_assert_not(jdg_cluster_fed(true, 0, 0));     /* no node judged */
}

FR_TEST(judge_rules, ram_model_feed)
{
	/* storage 100 cold: 200 at half the reads hit, capped by the CPU */
	cr_assert_float_eq(jdg_ram_model_feed(100, 400, 0.5), 200, 1e-9);
	cr_assert_float_eq(jdg_ram_model_feed(100, 150, 0.5), 150, 1e-9);
	cr_assert_float_eq(jdg_ram_model_feed(100, 400, 1), 400, 1e-9);
	cr_assert_float_eq(jdg_ram_model_feed(100, -1, 0), 100, 1e-9);
	cr_assert_lt(jdg_ram_model_feed(100, -1, 1), 0);  /* all hit, no CPU */
	cr_assert_lt(jdg_ram_model_feed(0, -1, 0.5), 0);
}
