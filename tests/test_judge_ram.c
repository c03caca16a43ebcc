/*
 * test_judge_ram.c - judge/ram.c and project.c: the LRU model at its
 * ends and its inverse, the page cache the GPUs need (none needed, the
 * whole dataset, records per file), this VM's share, the reserve, the one
 * RAM rule at its edge; the projection and its range, the vCPUs for the
 * GPUs and their reserve, the storage ceiling for files and for shards,
 * and a shape's fit. Made-up figures; expected values worked by hand.
 */
#include <math.h>

#include "harness.h"
#include "judge.h"

FR_TEST(judge_ram, lru_model_ends_and_a_midpoint)
{
	cr_assert_float_eq(jdg_lru_hit(0), 0, 1e-15);
	cr_assert_float_eq(jdg_lru_hit(-1), 0, 1e-15);
	cr_assert_float_eq(jdg_lru_hit(1), 1, 1e-15);
	cr_assert_float_eq(jdg_lru_hit(2), 1, 1e-15);
	cr_assert_float_eq(jdg_lru_hit(0.5), 0.5 + 0.5 * log(0.5), 1e-12);
	/* small fractions: f^2 / 2 */
	cr_assert_float_eq(jdg_lru_hit(1e-4), 0.5e-8, 1e-12);
}

FR_TEST(judge_ram, inverse_round_trips)
{
	const double f[] = { 0.05, 0.3, 0.51, 0.9 };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		cr_assert_float_eq(jdg_lru_fraction_for_hit(jdg_lru_hit(f[i])),
				   f[i], 1e-8);
	cr_assert_float_eq(jdg_lru_fraction_for_hit(0), 0, 1e-15);
	cr_assert_float_eq(jdg_lru_fraction_for_hit(1), 1, 1e-15);
}

static struct jdg_ram_need_in need_in(double need)
{
	return (struct jdg_ram_need_in){ .need_samples_per_s = need,
		.need_per_gpu = 900, .files_per_sample = 1,
		.bytes_per_sample = 100e3, .storage_files_per_s = 1000,
		.storage_bytes_per_s = 200e6, .storage_is_ceiling = true,
		.dataset_bytes = 100ull << 30 };
}

FR_TEST(judge_ram, no_cache_needed_at_the_ceiling)
{
	struct jdg_ram_need_in in = need_in(1000);
	struct jdg_ram_need out;

	jdg_ram_need(&in, &out);
	cr_assert(out.known);
	cr_assert_float_eq(out.storage_samples_per_s, 1000, 1e-9);
	cr_assert(out.no_cache_needed, "storage exactly meets the demand");
	cr_assert_eq(out.page_cache_bytes, 0);
}

FR_TEST(judge_ram, needed_fraction_from_the_model)
{
	struct jdg_ram_need_in in = need_in(2000);
	struct jdg_ram_need out;

	jdg_ram_need(&in, &out);
	cr_assert_float_eq(out.hit_needed, 0.5, 1e-12);
	cr_assert_float_eq(jdg_lru_hit(out.fraction_needed), 0.5, 1e-8);
	cr_assert_not(out.none_suffices);
	cr_assert_eq(out.ram_bytes, out.page_cache_bytes);
	cr_assert_float_eq((double)out.vm_ram_bytes,
			   ceil((double)out.ram_bytes / 0.8), 1);
}

FR_TEST(judge_ram, records_per_file_raise_the_ceiling)
{
	/* shards: one file read carries 100 samples */
	struct jdg_ram_need_in in = need_in(2000);
	struct jdg_ram_need out;

	in.files_per_sample = 0.01;
	in.storage_bytes_per_s = 0;
	jdg_ram_need(&in, &out);
	cr_assert_float_eq(out.storage_samples_per_s, 100000, 1e-6);
	cr_assert(out.no_cache_needed);
}

FR_TEST(judge_ram, whole_dataset_when_above_fraction_max)
{
	struct jdg_ram_need_in in = need_in(1e6);
	struct jdg_ram_need out;

	jdg_ram_need(&in, &out);
	cr_assert(out.none_suffices);
	cr_assert_eq(out.ram_bytes, 0);
	cr_assert_eq(out.vm_ram_bytes, 0);
}

FR_TEST(judge_ram, this_vm_share_and_gpus_through)
{
	struct jdg_ram_need_in in = need_in(2000);
	struct jdg_ram_need out;

	in.ram_limit = 250ull << 30;    /* 80 % = 200 GiB: it all fits */
	jdg_ram_need(&in, &out);
	cr_assert(out.enough_here);
	cr_assert_float_eq(out.hit_here, 1, 1e-15);
	cr_assert_float_eq(out.gpus_here, JDG_GPUS_MAX, 1e-9);
	in.ram_limit = 10ull << 30;     /* 8 GiB of a 100 GiB dataset */
	jdg_ram_need(&in, &out);
	cr_assert_not(out.enough_here);
	cr_assert_float_eq(out.fraction_here, 0.08, 1e-12);
	cr_assert_float_eq(out.gpus_here,
			   1000 / ((1 - jdg_lru_hit(0.08)) * 900), 1e-9);
}

FR_TEST(judge_ram, unknown_without_a_ceiling)
{
	struct jdg_ram_need_in in = need_in(2000);
	struct jdg_ram_need out;

	in.storage_files_per_s = in.storage_bytes_per_s = 0;
	jdg_ram_need(&in, &out);
	cr_assert_not(out.known);
	cr_assert_float_eq(out.hit_here, -1, 1e-15);
	cr_assert_float_eq(jdg_gpus_through(0, 0.5, 900), -1, 1e-15);
}

FR_TEST(judge_ram, reserve_and_the_one_ram_rule_at_its_edge)
{
	cr_assert_eq(jdg_reserve_ram(256, 2, 1000),
		     512000 + JDG_RESERVE_PROCESS_BYTES);
	cr_assert(jdg_ram_holds(600, 200, 1000), "exactly 80 %");
	cr_assert_not(jdg_ram_holds(601, 200, 1000));
	cr_assert_not(jdg_ram_holds(0, 0, 0), "unknown RAM holds nothing");
}

FR_TEST(judge_ram, model_disagreement_at_its_tolerance)
{
	cr_assert_not(jdg_lru_disagrees(0.35, 0.30), "5 points: agrees");
	cr_assert(jdg_lru_disagrees(0.41, 0.30));
	cr_assert(jdg_lru_disagrees(0.19, 0.30), "below counts too");
	cr_assert_not(jdg_lru_disagrees(0.5, 0.5));
}

FR_TEST(judge_ram, ram_fit_in_each_case)
{
	struct jdg_ram_need n = { 0 };

	cr_assert_eq(jdg_ram_fit(&n, false), JDG_RAM_FIT_UNKNOWN);
	cr_assert_eq(jdg_ram_fit(&n, true), JDG_RAM_FIT_ENOUGH,
		     "no ceiling, but the whole dataset fits");
	n.known = true;
	cr_assert_eq(jdg_ram_fit(&n, false), JDG_RAM_FIT_SHORT);
	n.none_suffices = true;
	cr_assert_eq(jdg_ram_fit(&n, false), JDG_RAM_FIT_NONE);
	n.at_most = true;
	cr_assert_eq(jdg_ram_fit(&n, false), JDG_RAM_FIT_UNKNOWN,
		     "a lower-bound ceiling says nothing of short");
	n.enough_here = true;
	cr_assert_eq(jdg_ram_fit(&n, false), JDG_RAM_FIT_ENOUGH);
}

FR_TEST(judge_project, range_linear_and_by_measured_scaling)
{
	double lo, hi;

	/* top: 8 vCPUs at 800/s (100 each), need 12, scaling 0.8 */
	jdg_project(12, 8, 800, 100, 0.8, &lo, &hi);
	cr_assert_float_eq(hi, 1200, 1e-9);
	cr_assert_float_eq(lo, 800 + 4 * 100 * 0.8, 1e-9);
	/* unknown or super-linear scaling: the range closes */
	jdg_project(12, 8, 800, 100, -1, &lo, &hi);
	cr_assert_float_eq(lo, hi, 1e-9);
	jdg_project(12, 8, 800, 100, 1.2, &lo, &hi);
	cr_assert_float_eq(lo, hi, 1e-9);
}

FR_TEST(judge_project, vcpus_for_gpus_and_reserve)
{
	cr_assert_eq(jdg_vcpus_for(4, 2.5), 10);
	cr_assert_eq(jdg_vcpus_for(3, 1.0 / 3), 1, "exact within 1e-9");
	cr_assert_eq(jdg_vcpus_for(4, 2.51), 11);
	cr_assert_eq(jdg_vcpus_for(4, -1), 0);
	cr_assert_eq(jdg_vcpus_for(0, 3), 0);
}

FR_TEST(judge_project, gpus_fed_with_the_reserve_taken)
{
	/* 100/s per vCPU on 10 vCPUs, 300/s per GPU, 1 vCPU reserved each:
	 * G x 300 <= 100 (10 - G) -> G <= 2.5 */
	cr_assert_eq(jdg_gpus_fed_reserved(3, 100, 10, 300, 1), 2);
	cr_assert_eq(jdg_gpus_fed_reserved(1, 100, 10, 300, 1), 1,
		     "never above the count fed");
	/* exactly at the edge: 100 x 12 / (300 + 100) = 3 */
	cr_assert_eq(jdg_gpus_fed_reserved(5, 100, 12, 300, 1), 3);
	cr_assert_eq(jdg_gpus_fed_reserved(5, 0, 12, 300, 1), 5,
		     "unknown rate: unchanged");
}

FR_TEST(judge_project, storage_ceiling_files_and_shards)
{
	cr_assert_float_eq(jdg_storage_gpus(1800, 1, 900), 2, 1e-12);
	cr_assert_float_eq(jdg_storage_gpus(1800, -1, 900), 2, 1e-12);
	cr_assert_float_eq(jdg_storage_gpus(1800, 1.02, 900), 2, 1e-12,
			   "a file per sample: files/s, never lowered");
	cr_assert_float_eq(jdg_storage_gpus(18, 0.01, 900), 2, 1e-12,
			   "100 records per shard file");
	cr_assert_float_eq(jdg_storage_gpus(1800, 1, 0), 0, 1e-12);
}

FR_TEST(judge_project, shape_fit_edges)
{
	cr_assert_eq(jdg_fit(0, 0), JDG_FIT_YES);
	cr_assert_eq(jdg_fit(-0.1, 0), JDG_FIT_MAYBE);
	cr_assert_eq(jdg_fit(-2, -0.01), JDG_FIT_NO);
}

FR_TEST(judge_project, hidden_smt_at_its_edges)
{
	/* 2 vCPUs give 1.4 x one: 70 % scaling, exactly the edge */
	cr_assert(jdg_hidden_smt(1.4, 1.25));
	cr_assert_not(jdg_hidden_smt(1.41, 1.25), "scales too well");
	cr_assert_not(jdg_hidden_smt(1.4, 1.24), "same CPU per sample: load");
	cr_assert_not(jdg_hidden_smt(1.4, -1), "unknown CPU ratio");
	cr_assert_not(jdg_hidden_smt(-1, 2));
}

FR_TEST(judge_project, smt_yield_clamp_and_kinds)
{
	double tl, th, cl, ch;

	cr_assert_float_eq(jdg_smt_clamp(0.8), 1, 1e-15);
	cr_assert_float_eq(jdg_smt_clamp(1.2), 1.2, 1e-15);
	cr_assert_float_eq(jdg_smt_clamp(2.5), JDG_SMT_YIELD_MAX, 1e-15);
	/* 2 thread-vCPUs per GPU here, yield 1..1.3: 1..1.3 cores */
	jdg_kinds_per_gpu(2, true, 1, 1.3, &tl, &th, &cl, &ch);
	cr_assert_float_eq(tl, 2, 1e-12);
	cr_assert_float_eq(th, 2, 1e-12);
	cr_assert_float_eq(cl, 1, 1e-12);
	cr_assert_float_eq(ch, 1.3, 1e-12);
	/* 2 cores per GPU here: 2 x 2 / 1.3 .. 4 threads */
	jdg_kinds_per_gpu(2, false, 1, 1.3, &tl, &th, &cl, &ch);
	cr_assert_float_eq(cl, 2, 1e-12);
	cr_assert_float_eq(tl, 4 / 1.3, 1e-12);
	cr_assert_float_eq(th, 4, 1e-12);
	jdg_kinds_per_gpu(-1, false, 1, 1.3, &tl, &th, &cl, &ch);
	cr_assert_float_eq(tl, -1, 1e-15);
	cr_assert_float_eq(ch, -1, 1e-15);
}

FR_TEST(judge_project, gpu_decoder_limit_at_its_capacity)
{
	cr_assert(jdg_decoder_limits(3000, 3000.5));
	cr_assert_not(jdg_decoder_limits(3000, 3000), "equal: it keeps up");
	cr_assert_not(jdg_decoder_limits(3000, 2000));
	cr_assert_not(jdg_decoder_limits(0, 5000), "no stated capacity");
	cr_assert_not(jdg_decoder_limits(-1, 5000));
	cr_assert_not(jdg_decoder_limits(3000, NAN));
}
