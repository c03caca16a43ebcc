/*
 * test_ram_axis.c - the RAM axis of `feedrate sweep`: the LRU model of
 * shuffled epochs and its inverse on worked values; the page cache the
 * asked GPUs need (rpt_verdict_ram_need) for made-up storage ceilings
 * and demands (a storage fast enough needs none, one too slow a stated
 * share of the dataset, one far too slow more than the model allows, and
 * a CPU-bound cold point makes every figure an upper bound); the curve
 * the sweep's verdict draws from hand-made points, the model held
 * against measured ram points (agreeing and disagreeing), the catalogue's
 * RAM for its GPUs, their JSON keys; a VM too small for the dataset told
 * to use local NVMe or shards; a ram point measured on a sample of the
 * dataset marked in the text's RAM table, in the HTML and in the sweep's
 * notes; the HTML's RAM plot (after the vCPU plot: measured dots, hollow
 * where the model disagrees, the model's curves, the demand and the
 * storage ceiling); and --ram LIST refused as a usage error where it is
 * malformed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "measure.h"
#include "report_sweep.h"
#include "storage.h"
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
	s->setup.vcpus_total = 2;
	s->setup.gpu_type = "A100";
	s->setup.gpu_count = gpus;
	s->setup.demand_per_gpu = 2470;
	s->setup.au_threshold = 0.9;
	s->setup.bytes = ds;
	s->setup.ram_total = 64 * GB;
	s->setup.ram_available = 60 * GB;
	s->setup.cgroup_limit = -1;
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

/*
 * S's JSON holds its RAM judgement: verdict.ram_needed_bytes (an integer
 * equal to the struct's, or null when no size suffices), each
 * verdict.catalog[] entry's ram_needed_bytes (null when none), page-cache
 * and ram_fit (FIT0, FIT1), and verdict.ram_curve[] with a row per curve
 * row: page cache, hit ratio, its source (measured or model) and
 * samples/s.
 */
static void ram_json_check(const struct rpt_sweep *s, const char *fit0,
			   const char *fit1)
{
	const char *fits[2] = { fit0, fit1 };
	json_t *j = rpt_sweep_json(s, false);
	json_t *v = json_object_get(j, "verdict");
	json_t *need = json_object_get(v, "ram_needed_bytes");
	json_t *cat = json_object_get(v, "catalog");
	json_t *curve = json_object_get(v, "ram_curve");
	unsigned measured = 0, model = 0;

	cr_assert_not_null(v);
	if (s->v.ram_need.known && !s->v.ram_need.none_suffices) {
		cr_assert(json_is_integer(need));
		cr_assert_eq((uint64_t)json_integer_value(need),
			     s->v.ram_need.ram_bytes);
	} else {
		cr_assert(json_is_null(need), "no size suffices: null");
	}
	cr_assert(json_is_array(cat));
	cr_assert_eq(json_array_size(cat), s->v.nfits);
	for (size_t i = 0; i < s->v.nfits; i++) {
		const struct rpt_shape_fit *f = &s->v.fits[i];
		json_t *e = json_array_get(cat, i);
		json_t *rn = json_object_get(e, "ram_needed_bytes");
		json_t *pc = json_object_get(e, "page_cache_bytes");

		cr_assert_str_eq(json_string_value(json_object_get(e,
				 "ram_fit")), fits[i], "shape %zu", i);
		if (f->ram_needed_bytes) {
			cr_assert(json_is_integer(rn));
			cr_assert_eq((uint64_t)json_integer_value(rn),
				     f->ram_needed_bytes);
		} else {
			cr_assert(json_is_null(rn), "shape %zu", i);
		}
		cr_assert(json_is_integer(pc));
		cr_assert_eq((uint64_t)json_integer_value(pc),
			     f->page_cache_bytes);
	}
	cr_assert(json_is_array(curve));
	cr_assert_eq(json_array_size(curve), s->v.nram_curve);
	for (size_t i = 0; i < s->v.nram_curve; i++) {
		const struct rpt_ram_row *r = &s->v.ram_curve[i];
		json_t *e = json_array_get(curve, i);
		json_t *pc = json_object_get(e, "page_cache_bytes");
		json_t *hit = json_object_get(e, "hit_ratio");
		json_t *sps = json_object_get(e, "samples_per_s");
		const char *src = json_string_value(json_object_get(e,
						    "hit_ratio_source"));

		cr_assert(json_is_integer(pc));
		cr_assert_eq((uint64_t)json_integer_value(pc),
			     r->page_cache_bytes);
		cr_assert(json_is_real(hit), "row %zu", i);
		cr_assert_float_eq(json_real_value(hit), r->hit_ratio, 1e-9);
		cr_assert_not_null(src);
		cr_assert_str_eq(src, r->point >= 0 ? "measured" : "model");
		measured += !strcmp(src, "measured");
		model += !strcmp(src, "model");
		if (r->samples_per_s >= 0)
			cr_assert_float_eq(json_real_value(sps),
					   r->samples_per_s, 1e-6);
		else
			cr_assert(json_is_null(sps));
	}
	/* cold, the two ram points and warm; the model at every tenth */
	cr_assert_eq(measured, 4);
	cr_assert_geq(model, 11);
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
	s.setup.bytes = 100 * GB;
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
	ram_json_check(&s, "short", "short");
	/* faster storage: the large one has enough */
	ram_sweep(&s, 2000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	s.setup.bytes = 100 * GB;
	s.shapes = shapes;
	s.nshapes = 2;
	rpt_sweep_verdict(&s);
	cr_assert_eq(s.v.fits[1].ram_fit, RPT_RAM_FIT_ENOUGH, "need %llu, "
		     "has %llu", (unsigned long long)s.v.fits[1].ram_needed_bytes,
		     (unsigned long long)s.v.fits[1].page_cache_bytes);
	ram_json_check(&s, "short", "enough");
	/* storage far too slow: no size suffices, here or on either shape */
	ram_sweep(&s, 100, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	s.setup.bytes = 100 * GB;
	s.shapes = shapes;
	s.nshapes = 2;
	rpt_sweep_verdict(&s);
	cr_assert(s.v.ram_need.none_suffices);
	cr_assert_eq(s.v.fits[0].ram_fit, RPT_RAM_FIT_NONE);
	ram_json_check(&s, "no size suffices", "no size suffices");
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

FR_TEST(ram_axis, vm_too_small_for_the_dataset_is_told_to_use_nvme_or_shards)
{
	struct rpt_sweep s;
	const struct rpt_ram_need *n = &s.v.ram_need;
	char here[96];
	json_t *j, *r;

	/* 8 A100 need 17,784/s from 1,500/s: 92 % of reads must hit; a
	 * 100 GB dataset does not fit this 64 GB VM */
	ram_sweep(&s, 1500, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  8);
	s.setup.bytes = 100 * GB;
	rpt_sweep_verdict(&s);
	cr_assert(n->known && n->none_suffices && !n->at_most);
	cr_assert(!s.v.ram_holds_dataset);
	cr_assert_float_eq(n->hit_needed, 1 - 1500 / (8 * 2470 * 0.9), 1e-9);
	cr_assert_not_null(strstr(s.v.ram_text, "more than 95 % of the "
				  "dataset cached"), "%s", s.v.ram_text);
	cr_assert_not_null(strstr(s.v.ram_text, "no RAM size is enough "
				  "below 100 % of the dataset; use local NVMe "
				  "or shards, or a VM whose RAM holds the whole "
				  "dataset"), "%s", s.v.ram_text);
	cr_assert_null(strstr(s.v.ram_text, "this VM holds all of it"), "%s",
		       s.v.ram_text);
	/* what this VM's page cache gets it: a share, storage-bound */
	cr_assert(!n->enough_here);
	cr_assert_gt(n->fraction_here, 0);
	cr_assert_lt(n->fraction_here, 1);
	snprintf(here, sizeof(here), "(%.0f %% of the dataset): "
		 "storage-bound at ~%.1f GPUs", n->fraction_here * 100,
		 n->gpus_here);
	cr_assert_not_null(strstr(s.v.ram_text, here), "%s | %s", here,
			   s.v.ram_text);
	cr_assert_lt(n->gpus_here, 1);
	cr_assert_eq(n->page_cache_bytes, 0);
	cr_assert_eq(n->ram_bytes, 0);
	j = rpt_sweep_json(&s, false);
	r = json_object_get(json_object_get(j, "verdict"), "ram");
	cr_assert(json_is_null(json_object_get(json_object_get(j, "verdict"),
					       "ram_needed_bytes")));
	cr_assert(json_is_true(json_object_get(r, "none_suffices")));
	cr_assert(json_is_null(json_object_get(r, "page_cache_needed_bytes")));
	cr_assert(json_is_false(json_object_get(r, "enough_here")));
	json_decref(j);
}

/* ---- a ram point measured on a sample of the dataset ---- */

/* How many times NEEDLE occurs in HAY. */
static unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p;
	     p = strstr(p + strlen(needle), needle))
		n++;
	return n;
}

/* The text report of S, malloc'd. */
static char *text_of(const struct rpt_sweep *s)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	cr_assert_not_null(f);
	rpt_sweep_print(f, s);
	fclose(f);
	return t;
}

/* The line of text T holding NEEDLE, malloc'd, or NULL. */
static char *line_with(const char *t, const char *needle)
{
	const char *p = strstr(t, needle), *a, *z;

	if (!p)
		return NULL;
	for (a = p; a > t && a[-1] != '\n'; a--)
		;
	z = strchr(p, '\n');
	return strndup(a, z ? (size_t)(z - a) : strlen(a));
}

#define SMP_FILES 100                   /* 100 MB each: ram_sweep's 10 GB */

/*
 * The measure side of the ram_sweep() VM: 2 vCPUs, the ram state at 50 %
 * and the RAM axis at 25 %, on a dataset DS of SMP_FILES files; the 25 %
 * point read K25 files (SMP_FILES: all of them), its page cache scaled
 * alike. SW's points live in PTS.
 */
static void ms_ram_sweep(struct ms_sweep *sw, struct ms_sweep_point *pts,
			 const struct stg_dataset *ds, size_t k25)
{
	const uint64_t total = stg_dataset_total_bytes(ds);

	memset(sw, 0, sizeof(*sw));
	memset(pts, 0, 4 * sizeof(*pts));
	sw->cfg.base.ds = ds;
	sw->cfg.ram_bytes = total / 2;
	sw->pts = pts;
	sw->npts = 4;
	for (int i = 0; i < 4; i++) {
		pts[i].vcpus = 2;
		pts[i].status = MS_SWEEP_MEASURED;
		pts[i].out.sample_files = SMP_FILES;
		pts[i].out.sample_bytes = total;
	}
	pts[0].cache = STG_CACHE_COLD;
	pts[1].cache = STG_CACHE_RAM;
	pts[1].out.page_cache_bytes = total / 2;
	pts[2].cache = STG_CACHE_WARM;
	pts[3].cache = STG_CACHE_RAM;
	pts[3].ram_axis = true;
	pts[3].ram_bytes = total / 4;
	pts[3].out.sample_files = k25;
	pts[3].out.sample_bytes = total / SMP_FILES * k25;
	pts[3].out.page_cache_bytes = pts[3].out.sample_bytes / 4;
}

/* A dataset of SMP_FILES files of 100 MB, named only (nothing read). */
static struct stg_dataset *smp_dataset(void)
{
	static char names[SMP_FILES][16];
	const char *np[SMP_FILES];
	uint64_t sizes[SMP_FILES];
	struct stg_dataset *ds = NULL;

	for (int i = 0; i < SMP_FILES; i++) {
		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		np[i] = names[i];
		sizes[i] = 100000000;
	}
	cr_assert_eq(stg_dataset_from_names("/", np, sizes, SMP_FILES, &ds),
		     0);
	return ds;
}

FR_TEST(ram_axis, ram_point_on_a_sample_is_marked_and_noted)
{
	struct stg_dataset *ds = smp_dataset();
	struct ms_sweep_point mpts[4];
	struct ms_sweep sw;
	struct rpt_sweep s;
	char note[1024], *t, *row, *html;

	/* the sweep's note: which point, how many files, and why its hit
	 * ratio stands for the whole dataset */
	ms_ram_sweep(&sw, mpts, ds, 40);
	ms_sweep_sample_text(&sw, note, sizeof(note));
	cr_assert_not_null(strstr(note, "2/ram 25 % read 40 of 100 files "
				  "(page cache 1.0 GB)"), "%s", note);
	cr_assert_not_null(strstr(note, "the budget being short"), "%s", note);
	cr_assert_not_null(strstr(note, "with the page cache scaled by the "
				  "same factor"), "%s", note);
	cr_assert_not_null(strstr(note, "the hit ratio depends on that share "
				  "alone, so it holds for the whole dataset"),
			   "%s", note);
	cr_assert_null(strstr(note, "2/ram 50 %"), "%s", note);

	/* the report of the same sweep: the RAM table marks the row and
	 * says what the mark means, the notes carry the sweep's note */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	s.setup.files = SMP_FILES;
	for (int i = 0; i < 4; i++)
		rpts[i].sample_files = SMP_FILES;
	rpts[3].sample_files = 40;
	rpts[3].sample_bytes = 4 * GB;
	rpts[3].ram_bytes = 1 * GB;
	s.notes = note;
	rpt_sweep_verdict(&s);
	cr_assert(rpt_point_sampled(&rpts[3], s.setup.files));
	cr_assert(!rpt_point_sampled(&rpts[1], s.setup.files));
	/* a quarter of the sample cached: the quarter row of the curve */
	cr_assert_float_eq(row_of(&s, 3)->fraction, 0.25, 1e-12);
	t = text_of(&s);
	row = line_with(t, "(ram, sampled 40/100)");
	cr_assert_not_null(row, "%s", t);
	cr_assert_not_null(strstr(row, " 25% "), "%s", row);
	free(row);
	row = line_with(t, "(ram)");
	cr_assert_not_null(row, "the 50 %% point read it all: %s", t);
	cr_assert_not_null(strstr(row, " 50% "), "%s", row);
	free(row);
	cr_assert_not_null(strstr(t, "\n  sampled  K/N: the point read an "
				  "evenly spread sample of K"), "%s", t);
	/* the points table: the point's row marked, the mark explained */
	row = line_with(t, "2 ram 1.00 GB ");
	cr_assert_not_null(row, "%s", t);
	cr_assert_not_null(strstr(row, "10.0sp"), "%s", row);
	free(row);
	row = line_with(t, "2 ram 5.00 GB ");
	cr_assert_not_null(row, "%s", t);
	cr_assert_null(strstr(row, "10.0sp"), "%s", row);
	free(row);
	cr_assert_not_null(strstr(t, "\n  (p: read part of the dataset, an "
				  "evenly spread sample"), "%s", t);
	row = line_with(t, "  notes    ");
	cr_assert_not_null(row, "%s", t);
	cr_assert_not_null(strstr(row, "measured on a sample of the dataset"),
			   "%s", row);
	free(row);
	free(t);
	/* the HTML: the dot's title, the plot's note and the notes */
	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	cr_assert_eq(count_of(html, "data-sampled=\"1\""), 2,
		     "one dot in each panel");
	cr_assert_eq(count_of(html, "; on a sample of 40 of 100 files, "
			      "the page cache scaled alike</title>"), 2);
	cr_assert_eq(count_of(html, "measured (on a sample of 40 of 100 "
			      "files, the page cache scaled alike)</td>"), 1,
		     "the points table's row");
	cr_assert_not_null(strstr(html, "1 ram point was measured on an "
				  "evenly spread sample of the files"));
	cr_assert_not_null(strstr(html, "2/ram 25 % read 40 of 100 files"));
	free(html);

	/* a sweep whose ram points read all the files: no mark, no note */
	ms_ram_sweep(&sw, mpts, ds, SMP_FILES);
	ms_sweep_sample_text(&sw, note, sizeof(note));
	cr_assert_str_eq(note, "");
	rpts[3].sample_files = SMP_FILES;
	rpts[3].sample_bytes = 10 * GB;
	rpts[3].ram_bytes = 10 * GB / 4;
	rpt_sweep_verdict(&s);
	cr_assert(!rpt_point_sampled(&rpts[3], s.setup.files));
	t = text_of(&s);
	cr_assert_null(strstr(t, "sampled"), "%s", t);
	cr_assert_null(strstr(t, "sp\n"), "%s", t);
	cr_assert_null(strstr(t, "(p: "), "%s", t);
	free(t);
	html = rpt_sweep_html(&s);
	cr_assert_null(strstr(html, "data-sampled"));
	cr_assert_null(strstr(html, "on a sample of"));
	cr_assert_null(strstr(html, "evenly spread sample"));
	free(html);
	stg_dataset_destroy(ds);
}

/* ---- the HTML's RAM plot ---- */

/* HTML's RAM plot (its <svg> element), malloc'd, or NULL. */
static char *ram_plot_of(const char *html)
{
	const char *a = strstr(html, "<svg class=\"ram-plot\""), *z;

	if (!a)
		return NULL;
	z = strstr(a, "</svg>");
	cr_assert_not_null(z);
	return strndup(a, (size_t)(z - a) + 6);
}

/* The y of the line of group CLS ("demand", "ceiling") in PLOT. */
static double line_y(const char *plot, const char *cls)
{
	char key[64];
	const char *p;
	double x1, y1;

	snprintf(key, sizeof(key), "<g class=\"%s\"><line ", cls);
	p = strstr(plot, key);
	cr_assert_not_null(p, "no %s line", cls);
	cr_assert_eq(sscanf(p + strlen(key), "x1=\"%lf\" y1=\"%lf\"", &x1,
			    &y1), 2, "%s", cls);
	return y1;
}

/* The fill of the ram dot at FRACTION in PLOT's panel PANEL (0: hit
 * ratio, 1: samples/s), into FILL. */
static void dot_fill(const char *plot, const char *fraction, int panel,
		     char *fill, size_t len)
{
	char key[96];
	const char *p, *f;
	size_t n;

	snprintf(key, sizeof(key), "data-cache=\"ram\" data-fraction=\"%s\"",
		 fraction);
	p = strstr(plot, key);
	for (int k = 0; p && k < panel; k++)
		p = strstr(p + 1, key);
	cr_assert_not_null(p, "no ram dot at %s", fraction);
	f = strstr(p, " fill=\"");
	cr_assert_not_null(f);
	f += 7;
	n = strcspn(f, "\"");
	cr_assert_lt(n, len);
	memcpy(fill, f, n);
	fill[n] = '\0';
}

FR_TEST(ram_axis, html_draws_the_ram_plot_after_the_vcpu_plot)
{
	struct rpt_sweep s;
	const char *vcpu, *ram;
	char *html, *plot;

	/* 1 A100 needs 2,223/s, storage 1,000/s: the demand above it */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	rpt_sweep_verdict(&s);
	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	vcpu = strstr(html, "<svg class=\"plot\"");
	ram = strstr(html, "<svg class=\"ram-plot\"");
	cr_assert_not_null(vcpu);
	cr_assert_not_null(ram);
	cr_assert_gt(ram, vcpu, "the RAM plot comes after the vCPU plot");
	cr_assert_lt(ram, strstr(html, "<h2>points</h2>"));
	cr_assert_eq(count_of(html, "class=\"ram-plot\""), 1);
	plot = ram_plot_of(html);
	/* the measured points, in both panels: cold at 0 %, the ram points
	 * at their shares, warm at 100 % */
	cr_assert_eq(count_of(plot, "<circle class=\"ram-pt\""), 8);
	cr_assert_eq(count_of(plot, "data-cache=\"ram\" data-fraction="
			      "\"0.2500\""), 2);
	cr_assert_eq(count_of(plot, "data-cache=\"ram\" data-fraction="
			      "\"0.5000\""), 2);
	cr_assert_eq(count_of(plot, "data-cache=\"cold\" data-fraction="
			      "\"0.0000\""), 2);
	cr_assert_eq(count_of(plot, "data-cache=\"warm\" data-fraction="
			      "\"1.0000\""), 2);
	/* the model: a curve in each panel, many points each */
	cr_assert_eq(count_of(plot, "<polyline class=\"model\""), 2);
	cr_assert_geq(count_of(strstr(plot, "<polyline class=\"model\""),
			       ","), 50);
	cr_assert_not_null(strstr(plot, "model: LRU, shuffled epochs"));
	/* the asked GPUs' demand above the storage ceiling (y grows down) */
	cr_assert_eq(count_of(plot, "<g class=\"demand\">"), 1);
	cr_assert_not_null(strstr(plot, ">1 x A100 at 90 % AU</text>"));
	cr_assert_eq(count_of(plot, "<g class=\"ceiling\">"), 1);
	cr_assert_not_null(strstr(plot, ">storage ceiling 1,000/s</text>"));
	cr_assert_lt(line_y(plot, "demand"), line_y(plot, "ceiling"));
	/* the hit ratio the demand needs: 1 - 1,000 / 2,223 */
	cr_assert_not_null(strstr(plot, ">hit needed: 55 %</text>"), "%s",
			   plot);
	free(plot);
	free(html);
}

FR_TEST(ram_axis, html_says_a_demand_far_above_the_points_instead_of_flattening_them)
{
	struct rpt_sweep s;
	char *html, *plot;
	const char *top;

	/* 8 A100 need 17,784/s; the points and the ceiling stay near 1,000 */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  8);
	rpt_sweep_verdict(&s);
	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	plot = ram_plot_of(html);
	cr_assert_not_null(plot);
	cr_expect_eq(count_of(plot, "<g class=\"demand\">"), 0);
	cr_expect_not_null(strstr(plot, "class=\"demand-above\""), "%s",
			   plot);
	cr_expect_not_null(strstr(plot, "8 x A100 at 90 % AU need 17,784/s, "
				  "above this panel"), "%s", plot);
	/* the samples/s axis ends near the points, not at the demand */
	top = strstr(plot, "data-panel=\"samples\"");
	cr_assert_not_null(top);
	cr_expect_null(strstr(top, ">20,000<"), "%s", top);
	cr_expect_eq(count_of(plot, "<g class=\"ceiling\">"), 1);
	free(plot);
	free(html);
}

FR_TEST(ram_axis, html_draws_a_ram_point_that_disagrees_with_the_model_hollow)
{
	struct rpt_sweep s;
	char *html, *plot, fill[32], fill25[32];

	/* 50 % cached hitting 50 %: the model says 15 % */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), 0.5, 1);
	rpt_sweep_verdict(&s);
	cr_assert(row_of(&s, 1)->disagrees && !row_of(&s, 3)->disagrees);
	html = rpt_sweep_html(&s);
	plot = ram_plot_of(html);
	cr_assert_not_null(plot);
	for (int panel = 0; panel < 2; panel++) {
		dot_fill(plot, "0.5000", panel, fill, sizeof(fill));
		cr_assert_str_eq(fill, "#fff", "panel %d", panel);
		dot_fill(plot, "0.2500", panel, fill25, sizeof(fill25));
		cr_assert_str_neq(fill25, "#fff", "panel %d", panel);
	}
	cr_assert_eq(count_of(plot, "; DISAGREES with the model</title>"), 2);
	free(plot);
	free(html);
	/* the same point on the model: filled */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	rpt_sweep_verdict(&s);
	html = rpt_sweep_html(&s);
	plot = ram_plot_of(html);
	dot_fill(plot, "0.5000", 0, fill, sizeof(fill));
	cr_assert_str_neq(fill, "#fff");
	cr_assert_null(strstr(plot, "DISAGREES"));
	free(plot);
	free(html);
}

FR_TEST(ram_axis, html_of_a_sweep_without_ram_points_has_no_ram_dots)
{
	struct rpt_sweep s;
	char *html, *plot;

	/* cold and warm only: the RAM plot is the model between them (as
	 * the text's RAM table is), with no ram dot */
	ram_sweep(&s, 1000, rpt_lru_hit_model(0.25), rpt_lru_hit_model(0.5),
		  1);
	rpts[1].status = rpts[3].status = RPT_POINT_DROPPED;
	rpts[1].why = rpts[3].why = "not asked";
	rpt_sweep_verdict(&s);
	html = rpt_sweep_html(&s);
	plot = ram_plot_of(html);
	cr_assert_not_null(plot);
	cr_assert_null(strstr(plot, "data-cache=\"ram\""));
	cr_assert_eq(count_of(plot, "<circle class=\"ram-pt\""), 4);
	free(plot);
	free(html);
	/* no dataset size: no page-cache axis to draw on */
	s.setup.bytes = 0;
	rpt_sweep_verdict(&s);
	html = rpt_sweep_html(&s);
	cr_assert_null(strstr(html, "ram-plot"));
	cr_assert_not_null(strstr(html, "<svg class=\"plot\""));
	free(html);
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
