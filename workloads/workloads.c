/*
 * workloads.c - the workload table (built from the compiled-in job files
 * of workloads/jobs/, where every figure carries its source), demand row
 * lookups, and the statistics of ImageNet's images that the image
 * generators draw.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobfile.h"
#include "workloads.h"
#include "workloads_internal.h"
#include "stg_mix.h"

/*
 * The built-in workloads: workloads/jobs/NAME.ini, compiled in by the
 * Makefile (wl_job_builtins) and parsed once, on first use, into this
 * table; it is never freed. A built-in that does not load is a defect of
 * the build: the program stops saying which file and why.
 */
static const struct wl_workload **table;
static size_t ntable;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_load(void)
{
	char name[128], why[512];

	table = calloc(wl_job_nbuiltins ? wl_job_nbuiltins : 1,
		       sizeof(table[0]));
	if (!table) {
		fprintf(stderr, "feedrate: out of memory loading the "
			"built-in workloads\n");
		abort();
	}
	for (size_t i = 0; i < wl_job_nbuiltins; i++) {
		const struct wl_job_text *t = &wl_job_builtins[i];
		const struct wl_workload *w;
		int err;

		snprintf(name, sizeof(name), "builtin:%s", t->name);
		err = wl_job_parse(name, (const char *)t->text, t->len, &w,
				   why, sizeof(why));
		for (size_t k = 0; !err && k < ntable; k++)
			if (!strcmp(table[k]->name, w->name)) {
				snprintf(why, sizeof(why), "%s: workload %s "
					 "is also %s", name, w->name,
					 table[k]->job_file);
				err = -EINVAL;
			}
		if (err) {
			fprintf(stderr, "feedrate: built-in job file: %s\n",
				why);
			abort();
		}
		table[ntable++] = w;
	}
}

static void table_get(void)
{
	pthread_once(&table_once, table_load);
}

size_t wl_count(void)
{
	table_get();
	return ntable;
}

const struct wl_workload *wl_at(size_t i)
{
	table_get();
	return i < ntable ? table[i] : NULL;
}

int wl_find(const char *name, const struct wl_workload **out)
{
	if (!name || !out)
		return -EINVAL;
	table_get();
	for (size_t i = 0; i < ntable; i++)
		if (!strcmp(table[i]->name, name)) {
			*out = table[i];
			return 0;
		}
	return -ENOENT;
}

size_t wl_names(char *buf, size_t len)
{
	size_t need = 0;

	if (len)
		buf[0] = '\0';
	table_get();
	for (size_t i = 0; i < ntable; i++) {
		const char *sep = i ? ", " : "";
		const int n = snprintf(len > need ? buf + need : NULL,
				       len > need ? len - need : 0, "%s%s",
				       sep, table[i]->name);

		if (n > 0)
			need += (size_t)n;
	}
	return need;
}

const struct wl_demand *wl_demand_find(const struct wl_workload *w,
				       const char *gpu,
				       enum wl_demand_kind kind)
{
	if (!w || !gpu)
		return NULL;
	for (size_t i = 0; i < w->ndemand; i++)
		if (w->demand[i].kind == kind &&
		    !strcasecmp(w->demand[i].gpu, gpu))
			return &w->demand[i];
	return NULL;
}

const char *wl_demand_basis_name(enum wl_demand_basis b)
{
	switch (b) {
	case WL_BASIS_MEASURED: return "measured";
	case WL_BASIS_DERIVED: return "derived";
	case WL_BASIS_ESTIMATE: return "estimate";
	default: return "?";
	}
}

double wl_demand_total(const struct wl_demand *row, unsigned count,
		       bool *multi_measured)
{
	const bool multi = row && count && count == row->multi_gpus &&
			   row->multi_samples_per_s > 0;

	if (multi_measured)
		*multi_measured = multi;
	if (!row || !count)
		return 0;
	return multi ? row->multi_samples_per_s : count * row->samples_per_s;
}

const char *wl_demand_kind_name(enum wl_demand_kind kind)
{
	switch (kind) {
	case WL_DEMAND_MLPERF: return "mlperf";
	case WL_DEMAND_CEILING: return "ceiling";
	default: return "train";
	}
}

int wl_demand_kind_parse(const char *word, enum wl_demand_kind *out)
{
	if (!word || !out)
		return -EINVAL;
	if (!strcasecmp(word, "train") || !strcasecmp(word, "tuned"))
		*out = WL_DEMAND_TRAIN;
	else if (!strcasecmp(word, "mlperf"))
		*out = WL_DEMAND_MLPERF;
	else if (!strcasecmp(word, "ceiling"))
		*out = WL_DEMAND_CEILING;
	else
		return -EINVAL;
	return 0;
}

/* ---- ImageNet's image statistics ---- */

static double unit_of(uint64_t v)
{
	return (double)(v >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * A stratified uniform: within each block of 64 consecutive files the 64
 * values fall one in each 1/64 slice (a seeded stride permutation), so a
 * set of a few hundred files already has the distribution's mean and a
 * small set's mean file size does not wander.
 */
static double strat_unit(uint64_t seed, uint64_t index, uint64_t salt,
			 unsigned stride)
{
	const uint64_t block = index / 64;
	const unsigned off =
		(unsigned)(stg_mix64(seed ^ salt ^ (block * 7919)) & 63);
	const unsigned slot = (unsigned)((index % 64) * stride + off) & 63;

	return (slot + unit_of(stg_mix64(seed ^ salt ^ (index * 31 + 17)))) /
	       64.0;
}

/*
 * Dimensions. ImageNet's images mostly come from photo sites that served
 * them at 500 px on the long side (500x375 and 375x500 most of all, then
 * 500x333), with a long tail of smaller and larger pictures (from ~100 px to
 * a few thousand). The shares below are this generator's model of that:
 * 34 % 500x375, 12 % 375x500, 10 % 500x333, 4 % 333x500, 16 % other aspect
 * ratios at 500 px, 8 % smaller (100-499 px), 16 % larger (500-2000 px,
 * most below 1000). Mean ~503x430 (~250k px); with the quality mix below
 * and content whose bits per pixel match real photographs (checked by
 * tests/bench/gen), the mean file is ~108 KB.
 */
static void imagenet_dims(double u, uint64_t h, uint32_t *w, uint32_t *hh)
{
	const double v = unit_of(stg_mix64(h));
	const bool portrait = unit_of(stg_mix64(h ^ 0x55)) < 0.22;
	double lng, asp;

	if (u < 0.34) {
		*w = 500, *hh = 375;
		return;
	}
	if (u < 0.46) {
		*w = 375, *hh = 500;
		return;
	}
	if (u < 0.56) {
		*w = 500, *hh = 333;
		return;
	}
	if (u < 0.60) {
		*w = 333, *hh = 500;
		return;
	}
	if (u < 0.76) {
		/* other aspect ratios at 500 px */
		lng = 500;
		asp = 0.5 + 0.5 * v;
	} else if (u < 0.84) {
		/* small pictures, 100-499 px */
		lng = 100.0 * pow(4.99, (u - 0.76) / 0.08);
		asp = v < 0.5 ? 0.75 : v < 0.8 ? 0.667 : 1.0;
	} else {
		/* larger pictures: 500 px up to ~2000, most below 1000 */
		const double t = (u - 0.84) / 0.16;

		lng = 500.0 * pow(4.0, t * t);
		asp = v < 0.55 ? 0.75 : v < 0.85 ? 0.667 : v < 0.95 ? 0.5625 :
			1.0;
	}
	{
		uint32_t a = (uint32_t)lround(lng);
		uint32_t b = (uint32_t)lround(lng * asp);

		if (b < 16)
			b = 16;
		if (portrait)
			*w = b, *hh = a;
		else
			*w = a, *hh = b;
	}
}

void wl_imagenet_spec(uint64_t seed, uint64_t index,
		      struct wl_image_spec *spec)
{
	const uint64_t h = stg_mix64(seed ^ stg_mix64(index + 0x1234567));
	const double u = strat_unit(seed, index, 0xd1e5, 29);
	const double q = unit_of(stg_mix64(h ^ 0xa11));
	const double s = unit_of(stg_mix64(h ^ 0xb22));

	memset(spec, 0, sizeof(*spec));
	imagenet_dims(u, h, &spec->width, &spec->height);
	/* quality 85-97: 10 % 85-89, 35 % 90-94, 55 % 95-97 */
	spec->quality = q < 0.10 ? 85 + (int)(q / 0.10 * 5) :
		q < 0.45 ? 90 + (int)((q - 0.10) / 0.35 * 5) :
		95 + (int)((q - 0.45) / 0.55 * 3);
	spec->subsamp = s < 0.65 ? AUG_ENC_420 : AUG_ENC_444;
	spec->fmt = AUG_ENC_RGB;
	/* Scheduled by index so every set of a few hundred files has some:
	 * grayscale 1 in 64 (ImageNet: ~1.7 %), progressive 1 in 100,
	 * CMYK 1 in 500 (ImageNet train holds a few dozen). */
	if (index % 64 == 7)
		spec->fmt = AUG_ENC_GRAY;
	else if (index % 500 == 123)
		spec->fmt = AUG_ENC_CMYK;
	if (index % 100 == 31)
		spec->progressive = true;
	spec->content_seed = stg_mix64(h ^ 0xc0ffee);
}

void wl_class_name(uint32_t i, char buf[16])
{
	/* WordNet-id style, increasing, like n01440764 */
	snprintf(buf, 16, "n%08u", 1440764u + i * 9973u);
}

uint32_t wl_class_count(uint64_t files)
{
	const uint64_t c = (files + 99) / 100;

	return c < 1 ? 1 : c > 1000 ? 1000 : (uint32_t)c;
}
