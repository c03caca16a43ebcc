/*
 * workloads.c - the workload table and the statistics of each workload's
 * data. Every figure carries its source; "est" rows are estimates with no
 * direct measurement and reports say so when they use one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loader.h"
#include "workloads.h"
#include "workloads_internal.h"

#define DLE_PT_RN50 "NVIDIA DeepLearningExamples, PyTorch/Classification/" \
	"ConvNets/resnet50v1.5/README.md (AMP, batch 256)"
#define MLPS_RN50 "mlcommons/storage configs/dlio/workload/" \
	"resnet50_*.yaml (same in argonne-lcf/dlio_benchmark)"

/* ResNet-50 v1.5 training on ImageNet, images/s per GPU. */
static const struct wl_demand imagenet_demand[] = {
	/* tuned training throughput */
	{ "A100", "A100 80GB", WL_DEMAND_TRAIN, 2470, 0, 0, false,
	  DLE_PT_RN50 "; 8xA100: 16,621" },
	{ "A100-40GB", "A100 40GB", WL_DEMAND_TRAIN, 2375, 0, 0, false,
	  "NVIDIA DeepLearningExamples, TensorFlow resnet50v1.5 README "
	  "(AMP+XLA)" },
	{ "V100", "V100 16GB", WL_DEMAND_TRAIN, 1200, 0, 0, false,
	  DLE_PT_RN50 },
	{ "H100", "H100 SXM", WL_DEMAND_TRAIN, 2790, 0, 0, false,
	  "lambdal/deeplearning-benchmark, "
	  "pytorch-train-throughput-v2-fp16.csv" },
	{ "H200", "H200", WL_DEMAND_TRAIN, 2900, 0, 0, true,
	  "estimate: no measurement found; same compute as H100 (2,790)" },
	{ "A10G", "A10G", WL_DEMAND_TRAIN, 638, 0, 0, false,
	  "lambdal/deeplearning-benchmark (\"LambdaCloud A10\", used as "
	  "proxy for A10G)" },
	{ "L4", "L4", WL_DEMAND_TRAIN, 500, 0, 0, true,
	  "estimate: no training figure found" },
	{ "T4", "T4", WL_DEMAND_TRAIN, 425, 0, 0, true,
	  "estimate: V100 training x T4/V100 AMP inference ratio in "
	  "NVIDIA DeepLearningExamples ResNet-50 README" },
	/* MLPerf Storage emulated accelerators: batch / computation_time */
	{ "A100", "A100 (MLPerf Storage emulated)", WL_DEMAND_MLPERF,
	  400.0 / 0.435, 400, 0.435, false, MLPS_RN50 " (batch 400, "
	  "computation_time 0.435 s: 920 samples/s)" },
	{ "H100", "H100 (MLPerf Storage emulated)", WL_DEMAND_MLPERF,
	  400.0 / 0.224, 400, 0.224, false, MLPS_RN50 " (batch 400, "
	  "computation_time 0.224 s: 1,786 samples/s)" },
};

static const struct wl_workload workloads[] = {
	{
		.name = "imagenet",
		.description = "ImageNet-1k classification, ResNet-50 training",
		.layout = "ImageFolder: DIR/train/<class>/<class>_<n>.JPEG",
		.file_ext = ".JPEG",
		.dataset_files = 1281167,  /* ILSVRC2012 train images */
		.mean_file_bytes = 114.7e3,
		.mean_width = 400,
		.mean_height = 350,
		.stats_source = "files: ILSVRC2012 train set (1,281,167 "
			"images); mean size 114.7 KB: MLPerf Storage "
			"resnet50 workload (mlcommons/storage configs/dlio); "
			"~400x350 mean: feedrate DESIGN.md",
		.out_channels = 3,
		.out_height = 224,
		.out_width = 224,
		.transform = "decode -> RandomResizedCrop 224 (scale 0.08-1, "
			"ratio 3/4-4/3) -> flip -> normalize -> CHW",
		.au_threshold = LDR_DEFAULT_AU_THRESHOLD,
		.au_source = "MLPerf Storage: AU threshold 90 % for resnet50",
		.demand = imagenet_demand,
		.ndemand = sizeof(imagenet_demand) / sizeof(imagenet_demand[0]),
		.gen = &wl_gen_imagefolder,
		.image_spec = wl_imagenet_spec,
		.make_transform = wl_imagenet_transform,
	},
};

#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

size_t wl_count(void)
{
	return NWORKLOADS;
}

const struct wl_workload *wl_at(size_t i)
{
	return i < NWORKLOADS ? &workloads[i] : NULL;
}

int wl_find(const char *name, const struct wl_workload **out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (!strcmp(workloads[i].name, name)) {
			*out = &workloads[i];
			return 0;
		}
	return -ENOENT;
}

size_t wl_names(char *buf, size_t len)
{
	size_t need = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NWORKLOADS; i++) {
		const char *sep = i ? ", " : "";
		const int n = snprintf(len > need ? buf + need : NULL,
				       len > need ? len - need : 0, "%s%s",
				       sep, workloads[i].name);

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

const char *wl_demand_kind_name(enum wl_demand_kind kind)
{
	return kind == WL_DEMAND_MLPERF ? "mlperf" : "train";
}

/* ---- ImageNet's image statistics ---- */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

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
	const unsigned off = (unsigned)(mix64(seed ^ salt ^ (block * 7919)) & 63);
	const unsigned slot = (unsigned)((index % 64) * stride + off) & 63;

	return (slot + unit_of(mix64(seed ^ salt ^ (index * 31 + 17)))) / 64.0;
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
	const double v = unit_of(mix64(h));
	const bool portrait = unit_of(mix64(h ^ 0x55)) < 0.22;
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
	const uint64_t h = mix64(seed ^ mix64(index + 0x1234567));
	const double u = strat_unit(seed, index, 0xd1e5, 29);
	const double q = unit_of(mix64(h ^ 0xa11));
	const double s = unit_of(mix64(h ^ 0xb22));

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
	spec->content_seed = mix64(h ^ 0xc0ffee);
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
