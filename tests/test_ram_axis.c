/*
 * test_ram_axis.c - the RAM axis of `feedrate sweep`: the LRU model of
 * shuffled epochs and its inverse on worked values; the page cache the
 * asked GPUs need (rpt_verdict_ram_need) for made-up storage ceilings
 * and demands (a storage fast enough needs none, one too slow a stated
 * share of the dataset, one far too slow more than the model allows, and
 * a CPU-bound cold point makes every figure an upper bound); the curve
 * the sweep's verdict draws from hand-made points, the model held
 * against measured ram points (agreeing and disagreeing), the catalogue's
 * RAM for its GPUs, their JSON keys; and --ram LIST refused as a usage
 * error where it is malformed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "report_sweep.h"
#include "verdict.h"

#define GB 1000000000ull

/* ---- the model ---- */

FR_TEST(ram_axis, model_gives_the_worked_values)
{
	/* f + (1 - f) ln(1 - f): 0.1605 at 51 %, 0.1534 at 50 % */
	cr_assert_float_eq(rpt_lru_hit_model(0.51), 0.1605, 5e-5);
	cr_assert_float_eq(rpt_lru_hit_model(0.5), 0.5 + 0.5 * log(0.5),
			   1e-12);
	cr_assert_float_eq(rpt_lru_hit_model(0.0), 0.0, 1e-15);
	cr_assert_float_eq(rpt_lru_hit_model(-1.0), 0.0, 1e-15);
	cr_assert_float_eq(rpt_lru_hit_model(1.0), 1.0, 1e-15);
	cr_assert_float_eq(rpt_lru_hit_model(2.0), 1.0, 1e-15);
	/* a small cache hits about f^2 / 2 */
	cr_assert_float_eq(rpt_lru_hit_model(1e-4), 0.5e-8, 1e-11);
	/* always below the fraction that fits, rising */
	for (int k = 1; k < 100; k++) {
		const double f = k / 100.0;

		cr_assert_lt(rpt_lru_hit_model(f), f);
		cr_assert_gt(rpt_lru_hit_model(f),
			     rpt_lru_hit_model(f - 0.01));
	}
}

FR_TEST(ram_axis, inverse_returns_the_fraction_that_reaches_a_hit_ratio)
{
	cr_assert_float_eq(rpt_lru_fraction_for_hit(0.1605), 0.51, 1e-4);
	cr_assert_float_eq(rpt_lru_fraction_for_hit(0.0), 0.0, 1e-15);
	cr_assert_float_eq(rpt_lru_fraction_for_hit(-0.5), 0.0, 1e-15);
	cr_assert_float_eq(rpt_lru_fraction_for_hit(1.0), 1.0, 1e-15);
	for (int k = 1; k < 20; k++) {
		const double f = k / 20.0;
		const double h = rpt_lru_hit_model(f);

		cr_assert_float_eq(rpt_lru_fraction_for_hit(h), f, 1e-7,
				   "f %.2f", f);
	}
}

/* ---- the page cache needed, from plain numbers ---- */

/* 1 A100 (2,470 samples/s, 2,223 at 90 % AU) of 110 KB files, a 140 GB
 * dataset, 4 GB reserved, 1 GB of pipeline, a 64 GB VM. */
static struct rpt_ram_need_in need_in(double files_per_s, bool ceiling)
{
	return (struct rpt_ram_need_in){
		.need_samples_per_s = 2223, .need_per_gpu = 2223,
		.files_per_sample = 1, .bytes_per_sample = 110e3,
		.storage_files_per_s = files_per_s,
		.storage_bytes_per_s = files_per_s * 110e3,
		.storage_is_ceiling = ceiling, .dataset_bytes = 140 * GB,
		.reserved_bytes = 4 * GB, .own_bytes = 1 * GB,
		.ram_limit = 64 * GB,
	};
}

FR_TEST(ram_axis, storage_fast_enough_needs_no_page_cache)
{
	const struct rpt_ram_need_in in = need_in(3000, true);
	struct rpt_ram_need n;

	rpt_verdict_ram_need(&in, &n);
	cr_assert(n.known);
	cr_assert(n.no_cache_needed);
	cr_assert(!n.none_suffices);
	cr_assert_eq(n.page_cache_bytes, 0);
	cr_assert_float_eq(n.fraction_needed, 0, 1e-15);
	/* the reserve and the pipeline still need their RAM */
	cr_assert_eq(n.ram_bytes, 5 * GB);
	cr_assert_eq(n.vm_ram_bytes, (uint64_t)ceil(5 * GB / RPT_RAM_SHARE));
	cr_assert(n.enough_here);
}

FR_TEST(ram_axis, storage_too_slow_needs_a_stated_share_of_the_dataset)
{
	/* half the demand from storage: half the reads must hit, which
	 * takes the fraction f with f + (1 - f) ln(1 - f) = 0.5 */
	const struct rpt_ram_need_in in = need_in(2223.0 / 2, true);
	const double f = rpt_lru_fraction_for_hit(0.5);
	struct rpt_ram_need n;
	double here, g;

	rpt_verdict_ram_need(&in, &n);
	cr_assert(n.known && !n.no_cache_needed && !n.none_suffices);
	cr_assert(!n.at_most);
	cr_assert_float_eq(n.hit_needed, 0.5, 1e-12);
	cr_assert_float_eq(n.fraction_needed, f, 1e-9);
	cr_assert(f > 0.78 && f < 0.82, "f %.4f", f);
	cr_assert_float_eq((double)n.page_cache_bytes, f * 140 * GB, 2);
	cr_assert_eq(n.ram_bytes, n.page_cache_bytes + 5 * GB);
	/* this VM: 80 % of 64 GB less 5 GB = 46.2 GB of page cache, 33 %
	 * of the dataset: too little, storage-bound below one GPU */
	here = 0.8 * 64 * GB - 5 * GB;
	cr_assert_float_eq((double)n.page_cache_here, here, 1);
	cr_assert_float_eq(n.hit_here, rpt_lru_hit_model(here / (140 * GB)),
			   1e-9);
	g = 2223.0 / 2 / ((1 - n.hit_here) * 2223);
	cr_assert_float_eq(n.gpus_here, g, 1e-9);
	cr_assert(!n.enough_here);
}

FR_TEST(ram_axis, storage_far_too_slow_needs_more_than_any_page_cache)
{
	/* 1 % of the demand: 99 % of reads must hit */
	const struct rpt_ram_need_in in = need_in(22.23, true);
	struct rpt_ram_need n;

	rpt_verdict_ram_need(&in, &n);
	cr_assert(n.known && n.none_suffices);
	cr_assert_gt(n.fraction_needed, RPT_RAM_FRACTION_MAX);
	cr_assert_eq(n.page_cache_bytes, 0);
	cr_assert_eq(n.ram_bytes, 0, "none suffices: no RAM figure");
	cr_assert_eq(n.vm_ram_bytes, 0);
	cr_assert(!n.enough_here);
}

FR_TEST(ram_axis, bytes_ceiling_counts_when_it_is_the_lower)
{
	/* files/s would serve the demand, the MB/s only half of it */
	struct rpt_ram_need_in in = need_in(3000, true);
	struct rpt_ram_need n;

	in.storage_bytes_per_s = 2223.0 / 2 * 110e3;
	rpt_verdict_ram_need(&in, &n);
	cr_assert_float_eq(n.storage_samples_per_s, 2223.0 / 2, 1e-9);
	cr_assert_float_eq(n.hit_needed, 0.5, 1e-12);
}

FR_TEST(ram_axis, cpu_bound_cold_point_makes_the_need_an_upper_bound)
{
	const struct rpt_ram_need_in in = need_in(2223.0 / 2, false);
	struct rpt_ram_need n;

	rpt_verdict_ram_need(&in, &n);
	cr_assert(n.at_most);
	cr_assert_gt(n.page_cache_bytes, 0);
}

FR_TEST(ram_axis, a_vm_that_holds_the_whole_dataset_is_enough)
{
	struct rpt_ram_need_in in = need_in(2223.0 / 2, true);
	struct rpt_ram_need n;

	in.ram_limit = 512 * GB;
	rpt_verdict_ram_need(&in, &n);
	cr_assert_gt(n.fraction_here, 1);
	cr_assert_float_eq(n.hit_here, 1, 1e-15);
	cr_assert(n.enough_here);
	cr_assert_eq(n.gpus_here, RPT_VERDICT_GPUS_MAX);
}

FR_TEST(ram_axis, no_storage_figure_is_unknown)
{
	struct rpt_ram_need_in in = need_in(0, true);
	struct rpt_ram_need n;

	in.storage_bytes_per_s = 0;
	rpt_verdict_ram_need(&in, &n);
	cr_assert(!n.known);
	cr_assert_eq(n.ram_bytes, 0);
}

/* ---- the sweep's verdict: curve, model check, words, catalogue ---- */

static struct rpt_point rpts[8];

/*
 * A 2-vCPU VM with 64 GB RAM, a 10 GB dataset of 100 KB files, storage
 * cold at STORAGE samples/s (storage-bound), warm at 5,000 (CPU); two ram
 * points at 25 % and 50 % cached with hit ratios HIT25 and HIT50.
 */
static void ram_sweep(struct rpt_sweep *s, double storage, double hit25,
		      double hit50, unsigned gpus)
{
	const uint64_t ds = 10 * GB;

	memset(s, 0, sizeof(*s));
	memset(rpts, 0, sizeof(rpts));
	for (int i = 0; i < 4; i++) {
		struct rpt_point *p = &rpts[i];

		p->vcpus = 2;
		p->status = RPT_POINT_MEASURED;
		p->measured_s = 10;
		p->hit_ratio = 0;
		p->bottleneck = "storage";
		p->sample_bytes = ds;
	}
	rpts[0].cache = STG_CACHE_COLD;
	rpts[0].samples_per_s = storage;
	rpts[1].cache = STG_CACHE_RAM;
	rpts[1].ram_bytes = ds / 2;
	rpts[1].cgroup_bytes = ds / 2 + 300000000;
	rpts[1].hit_ratio = hit50;
	rpts[1].samples_per_s = storage / (1 - hit50);
	rpts[2].cache = STG_CACHE_WARM;
	rpts[2].samples_per_s = 5000;
	rpts[2].hit_ratio = 1;
	rpts[2].bottleneck = "cpu";
	rpts[3].cache = STG_CACHE_RAM;
	rpts[3].ram_axis = true;
	rpts[3].ram_bytes = ds / 4;
	rpts[3].cgroup_bytes = ds / 4 + 200000000;
	rpts[3].hit_ratio = hit25;
	rpts[3].samples_per_s = storage / (1 - hit25);
	for (int i = 0; i < 4; i++) {
		rpts[i].files_per_s = rpts[i].samples_per_s;
		rpts[i].read_bytes_per_s = rpts[i].samples_per_s * 100e3;
		rpts[i].samples = (uint64_t)(rpts[i].samples_per_s * 10);
		rpts[i].batches = rpts[i].samples / 64;
	}
	s->points = rpts;
	s->npoints = 4;
	s->vcpus_total = 2;
	s->gpu_type = "A100";
	s->gpu_count = gpus;
	s->demand_per_gpu = 2470;
	s->au_threshold = 0.9;
	s->bytes = ds;
	s->ram_total = 64 * GB;
	s->ram_available = 60 * GB;
	s->cgroup_limit = -1;
	s->reserve_ram_per_gpu = 2 * GB;
	s->lru_ram_steady = s->lru_half_steady = -1;
}

/* The curve's measured row of point I, or NULL. */
static const struct rpt_ram_row *row_of(const struct rpt_sweep *s, int i)
{
	for (size_t k = 0; k < s->v.nram_curve; k++)
		if (s->v.ram_curve[k].point == i)
			return &s->v.ram_curve[k];
	return NULL;
}

FR_TEST(ram_axis, curve_holds_measured_points_beside_the_model)
{
	struct rpt_sweep s;
	const struct rpt_ram_row *r50, *r25;

	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25) + 0.01,
		  rpt_lru_hit_model(0.5) - 0.02, 1);
	rpt_sweep_verdict(&s);
	r50 = row_of(&s, 1);
	r25 = row_of(&s, 3);
	cr_assert_not_null(r50);
	cr_assert_not_null(r25);
	cr_assert_str_eq(r50->source, "measured");
	cr_assert_float_eq(r50->fraction, 0.5, 1e-12);
	cr_assert_float_eq(r50->model_hit, rpt_lru_hit_model(0.5), 1e-12);
	cr_assert(!r50->disagrees && !r25->disagrees);
	cr_assert_eq(s.v.ram_model_checked, 2);
	cr_assert_eq(s.v.ram_model_disagree, 0);
	cr_assert_not_null(strstr(s.v.ram_model_text, "agrees"));
	/* the pipeline's own memory: the most a cgroup held beside it */
	cr_assert_eq(s.v.own_bytes, 300000000);
	/* sorted by page cache, model rows every tenth */
	for (size_t k = 1; k < s.v.nram_curve; k++)
		cr_assert_geq(s.v.ram_curve[k].fraction,
			      s.v.ram_curve[k - 1].fraction);
	cr_assert_geq(s.v.nram_curve, 4 + 11);
	/* model rows' feed: min(CPU 5,000, storage / (1 - hit)) */
	for (size_t k = 0; k < s.v.nram_curve; k++) {
		const struct rpt_ram_row *r = &s.v.ram_curve[k];

		if (r->point >= 0)
			continue;
		cr_assert_float_eq(r->samples_per_s, fmin(5000, r->hit_ratio
				   < 1 ? 1000 / (1 - r->hit_ratio) : INFINITY),
				   1e-6);
	}
}

FR_TEST(ram_axis, measured_ram_point_far_from_the_model_is_said_to_disagree)
{
	struct rpt_sweep s;

	/* 50 % cached hitting 50 %: a FIFO-like or not-dropping cache */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), 0.5, 1);
	rpt_sweep_verdict(&s);
	cr_assert(row_of(&s, 1)->disagrees);
	cr_assert(!row_of(&s, 3)->disagrees);
	cr_assert_eq(s.v.ram_model_disagree, 1);
	cr_assert_not_null(strstr(s.v.ram_model_text, "MODEL DISAGREES"),
			   "%s", s.v.ram_model_text);
	cr_assert_not_null(strstr(s.v.ram_model_text, "conservative"), "%s",
			   s.v.ram_model_text);
	/* hitting nothing with half cached: a cache dropped at open */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), 0.0, 1);
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.ram_model_disagree, 1);
	cr_assert_not_null(strstr(s.v.ram_model_text, "optimistic"), "%s",
			   s.v.ram_model_text);
}

FR_TEST(ram_axis, ram_verdict_in_words_for_one_and_eight_gpus)
{
	struct rpt_sweep s;
	json_t *j, *v;

	/* 1 A100 needs 2,223/s; storage 1,500/s: a stated share */
	ram_sweep(&s, 1500, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	rpt_sweep_verdict(&s);
	cr_assert(s.v.ram_need.known && !s.v.ram_need.none_suffices);
	cr_assert_not_null(strstr(s.v.ram_text, "of page cache ("), "%s",
			   s.v.ram_text);
	cr_assert_not_null(strstr(s.v.ram_text, "enough"), "%s",
			   s.v.ram_text);
	j = rpt_sweep_json(&s, false);
	v = json_object_get(j, "verdict");
	cr_assert(json_is_integer(json_object_get(v, "ram_needed_bytes")));
	cr_assert_eq((uint64_t)json_integer_value(json_object_get(v,
		"ram_needed_bytes")), s.v.ram_need.ram_bytes);
	cr_assert(json_is_array(json_object_get(v, "ram_curve")));
	cr_assert(json_is_string(json_object_get(json_array_get(
		json_object_get(v, "ram_curve"), 0), "hit_ratio_source")));
	cr_assert(json_is_real(json_object_get(json_object_get(v, "ram"),
					       "fraction_needed")));
	json_decref(j);

	/* 8 of them need 17,784/s from 1,500/s: 92 % of reads must hit */
	ram_sweep(&s, 1500, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  8);
	rpt_sweep_verdict(&s);
	cr_assert(s.v.ram_need.none_suffices);
	cr_assert_not_null(strstr(s.v.ram_text, "no RAM size is enough "
				  "below 100 % of the dataset"), "%s",
			   s.v.ram_text);
	/* this 64 GB VM holds the 10 GB dataset whole */
	cr_assert_not_null(strstr(s.v.ram_text, "this VM holds all of it"));
	j = rpt_sweep_json(&s, false);
	cr_assert(json_is_null(json_object_get(json_object_get(j, "verdict"),
					       "ram_needed_bytes")));
	json_decref(j);
}

FR_TEST(ram_axis, catalogue_says_whether_each_shape_has_the_page_cache)
{
	static const struct rpt_shape shapes[] = {
		{ .name = "small", .gpu = "A100", .gpus = 1, .vcpus = 12,
		  .vcpu_kind = STG_VCPU_THREAD, .ram_gib = 8 },
		{ .name = "large", .gpu = "A100", .gpus = 1, .vcpus = 12,
		  .vcpu_kind = STG_VCPU_THREAD, .ram_gib = 64 },
	};
	struct rpt_sweep s;

	/* a 100 GB dataset: neither holds it whole */
	ram_sweep(&s, 1500, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	s.bytes = 100 * GB;
	s.shapes = shapes;
	s.nshapes = 2;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.nfits, 2);
	cr_assert_eq(s.v.fits[0].ram_fit, RPT_RAM_FIT_SHORT);
	cr_assert_gt(s.v.fits[0].ram_needed_bytes,
		     (uint64_t)(0.8 * 8 * 1073741824.0));
	cr_assert_eq(s.v.fits[1].ram_fit, RPT_RAM_FIT_SHORT,
		     "64 GiB less its reserve: %llu of page cache",
		     (unsigned long long)s.v.fits[1].page_cache_bytes);
	/* faster storage: the large one has enough */
	ram_sweep(&s, 2000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	s.bytes = 100 * GB;
	s.shapes = shapes;
	s.nshapes = 2;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.fits[1].ram_fit, RPT_RAM_FIT_ENOUGH, "need %llu, "
		     "has %llu", (unsigned long long)s.v.fits[1].ram_needed_bytes,
		     (unsigned long long)s.v.fits[1].page_cache_bytes);
}

FR_TEST(ram_axis, no_cold_point_says_there_is_no_ceiling)
{
	struct rpt_sweep s;

	ram_sweep(&s, 1000, 0.03, 0.15, 1);
	rpts[0].status = RPT_POINT_DROPPED;
	rpt_sweep_verdict(&s);
	cr_assert(!s.v.ram_need.known);
	cr_assert_not_null(strstr(s.v.ram_text, "no storage ceiling"));
}

/* ---- --ram LIST on the command line ---- */

FR_TEST(ram_axis, malformed_ram_lists_are_usage_errors)
{
	static const char *const bad[] = {
		"0%", "101%", "25%,,50%", "512K", "abc", "25", "-5%", "%",
		"1G,2G,3G,4G,5G,6G,7G,8G,9G", "25%,", ",25%", "0x10%",
	};
	char *dir = fr_test_tmpdir();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "sweep", "--ram",
				 (char *)bad[i], "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 2, "--ram %s", bad[i]);
	}
	fr_test_rmtree(dir);
}

FR_TEST(ram_axis, well_formed_ram_lists_pass_the_parser)
{
	static const char *const good[] = {
		"25%,50%,75%", "16G", "1M", "12.5%,100%", "8G,25%",
		"1G,2G,3G,4G,5G,6G,7G,8G",
	};
	char *dir = fr_test_tmpdir(), path[4096];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "sweep", "--ram",
				 (char *)good[i], "/nonexistent", NULL };
		char buf[4096] = "";
		FILE *f;
		size_t n;

		/* it gets as far as the dataset, which is missing */
		fr_test_run(dir, argv, 30);
		snprintf(path, sizeof(path), "%s/stderr", dir);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		cr_assert_null(strstr(buf, "--ram wants"), "--ram %s: %s",
			       good[i], buf);
	}
	fr_test_rmtree(dir);
}
