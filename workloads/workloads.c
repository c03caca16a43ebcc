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

#include "formats.h"
#include "loader.h"
#include "workloads.h"
#include "workloads_internal.h"

#define DLE_PT_RN50 "NVIDIA DeepLearningExamples, PyTorch/Classification/" \
	"ConvNets/resnet50v1.5/README.md (AMP, batch 256)"
#define LAMBDA_FP16 "lambdal/deeplearning-benchmark pytorch/" \
	"pytorch-train-throughput-fp16.csv (resnet50, 1 GPU)"
#define MLPS_RN50 "mlcommons/storage configs/dlio/workload/" \
	"resnet50_*.yaml (same in argonne-lcf/dlio_benchmark)"

/*
 * ResNet-50 v1.5 training on ImageNet, images/s per GPU, on one basis
 * (../shared/reference/gpu-demand.md): NVIDIA's tuned DeepLearningExamples
 * figure where one exists (measured); else that A100 80GB figure, 2,470,
 * times the GPU's ratio to A100 80GB SXM4 (1,582) in Lambda's one
 * same-method table (derived); else an estimate.
 */
#define DLE_A100 2470.0
#define LAMBDA_A100 1582.0
static const struct wl_demand imagenet_demand[] = {
	/* tuned training throughput */
	{ .gpu = "A100", .gpu_detail = "A100 80GB SXM", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = DLE_A100, .multi_gpus = 8,
	  .multi_samples_per_s = 16621, .basis = WL_BASIS_MEASURED,
	  .source = DLE_PT_RN50 "; 8x A100 80GB: 16,621 (2,078 per GPU)" },
	{ .gpu = "A100-40GB", .gpu_detail = "A100 40GB",
	  .kind = WL_DEMAND_TRAIN, .samples_per_s = 2375,
	  .basis = WL_BASIS_MEASURED,
	  .source = "NVIDIA DeepLearningExamples, TensorFlow/Classification/"
	  "ConvNets/resnet50v1.5 README (AMP+XLA)" },
	{ .gpu = "V100", .gpu_detail = "V100 16GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = 1200, .basis = WL_BASIS_MEASURED,
	  .source = DLE_PT_RN50 " (derived would be 2,470 x 833/1,582 = "
	  "1,301)" },
	{ .gpu = "H100", .gpu_detail = "H100 80GB SXM", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = DLE_A100 * 2791 / LAMBDA_A100,
	  .range_lo = DLE_A100 * 2616 / LAMBDA_A100,
	  .range_hi = DLE_A100 * 2791 / LAMBDA_A100,
	  .basis = WL_BASIS_DERIVED,
	  .source = "2,470 (" DLE_PT_RN50 ") x H100 SXM5 / A100 80GB SXM4 in "
	  LAMBDA_FP16 ": (2,616-2,791) / 1,582" },
	{ .gpu = "H100-PCIe", .gpu_detail = "H100 80GB PCIe",
	  .kind = WL_DEMAND_TRAIN, .samples_per_s = DLE_A100 * 1866 /
	  LAMBDA_A100, .range_lo = DLE_A100 * 1851 / LAMBDA_A100,
	  .range_hi = DLE_A100 * 1866 / LAMBDA_A100,
	  .basis = WL_BASIS_DERIVED,
	  .source = "2,470 (" DLE_PT_RN50 ") x H100 PCIe / A100 80GB SXM4 in "
	  LAMBDA_FP16 ": (1,851-1,866) / 1,582" },
	{ .gpu = "H200", .gpu_detail = "H200", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = DLE_A100 * 2791 / LAMBDA_A100,
	  .basis = WL_BASIS_ESTIMATE,
	  .source = "estimate: no measurement found; H100 SXM's derived "
	  "figure (same compute, more memory bandwidth)" },
	{ .gpu = "A10G", .gpu_detail = "A10G 24GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = DLE_A100 * 638 / LAMBDA_A100,
	  .basis = WL_BASIS_DERIVED,
	  .source = "2,470 (" DLE_PT_RN50 ") x A10 / A100 80GB SXM4 in "
	  LAMBDA_FP16 ": 638 / 1,582; Lambda's A10 (150 W) stands in for "
	  "AWS's A10G, a variant of it" },
	{ .gpu = "L4", .gpu_detail = "L4 24GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = 500, .basis = WL_BASIS_ESTIMATE,
	  .source = "estimate: no training figure found" },
	{ .gpu = "T4", .gpu_detail = "T4 16GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = 425, .basis = WL_BASIS_ESTIMATE,
	  .source = "estimate: V100 training x T4/V100 AMP inference ratio "
	  "in " DLE_PT_RN50 },
	/* MLPerf Storage emulated accelerators: batch / computation_time */
	{ .gpu = "A100", .gpu_detail = "A100 (MLPerf Storage emulated)",
	  .kind = WL_DEMAND_MLPERF, .samples_per_s = 400.0 / 0.435,
	  .batch = 400, .compute_s = 0.435, .basis = WL_BASIS_MEASURED,
	  .source = MLPS_RN50 " (batch 400, computation_time 0.435 s: 920 "
	  "samples/s)" },
	{ .gpu = "H100", .gpu_detail = "H100 (MLPerf Storage emulated)",
	  .kind = WL_DEMAND_MLPERF, .samples_per_s = 400.0 / 0.224,
	  .batch = 400, .compute_s = 0.224, .basis = WL_BASIS_MEASURED,
	  .source = MLPS_RN50 " (batch 400, computation_time 0.224 s: 1,786 "
	  "samples/s)" },
};

/* temporary: replaced by a job file */
#define FOUNDRY_MPT "mosaicml/llm-foundry scripts/train/benchmarking/" \
	"README.md (MPT-7B, seq 2048)"
static const struct wl_demand tokens_demand[] = {
	{ .gpu = "A100", .gpu_detail = "A100 80GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = 4641.0 / 2048, .tokens_per_s = 4641,
	  .basis = WL_BASIS_MEASURED, .source = FOUNDRY_MPT },
	{ .gpu = "H100", .gpu_detail = "H100 80GB", .kind = WL_DEMAND_TRAIN,
	  .samples_per_s = 10643.0 / 2048, .tokens_per_s = 10643,
	  .basis = WL_BASIS_MEASURED, .source = FOUNDRY_MPT },
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
		.xform = WL_XFORM_IMAGE_TRAIN,
		.format = 0,    /* WL_FORMAT_AUTO */
		.default_demand = WL_DEMAND_TRAIN,
		.job_file = "builtin",
	},
	{       /* temporary: replaced by a job file */
		.name = "tokens",
		.description = "LLM pre-training, GPT-style windows of "
			"seq_len + 1 tokens",
		.layout = "token files: Megatron .idx/.bin, nanoGPT .bin "
			"(flat or llm.c header), .bin.zst; MDS token columns",
		.file_ext = ".bin",
		.mean_file_bytes = 100 << 20,
		.stats_source = "gen: 100 MiB files, documents of mean 1,128 "
			"tokens (nanoGPT openwebtext/prepare.py)",
		/* int64 x 2049 = the bytes of 2 x 2049 floats */
		.out_channels = 2,
		.out_height = 1,
		.out_width = 2049,
		.transform = "windows of 2048 + 1 tokens -> int64",
		.au_threshold = LDR_DEFAULT_AU_THRESHOLD,
		.au_source = "feedrate's default (90 %)",
		.demand = tokens_demand,
		.ndemand = sizeof(tokens_demand) / sizeof(tokens_demand[0]),
		.gen = &wl_gen_tokens,
		.xform = WL_XFORM_TOKENS,
		.xp = { .seq_len = 2048, .token_bytes = 8 },
		.format = WL_FORMAT_TOKENS,
		.batch = 8,
		.default_demand = WL_DEMAND_TRAIN,
		.job_file = "builtin",
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
