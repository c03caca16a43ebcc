/*
 * workloads.h - feedrate's named workloads: what a dataset of that kind looks
 * like on disk, what one sample costs to prepare, how fast one GPU eats
 * samples (the demand table, every number with its source), and the
 * generator of a synthetic dataset with the same statistics.
 *
 * Workloads are data: job files (jobfile.h; the built-ins are
 * workloads/jobs/NAME.ini, compiled in), each naming a generator ops table,
 * looked up by name. Uses augment/'s public header (the encoder).
 */
#ifndef FEEDRATE_WORKLOADS_H
#define FEEDRATE_WORKLOADS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "augment.h"
#include "fmt_gen.h"   /* the generator contract */
#include "storage.h"   /* enum stg_vcpu_kind */

/* ---- the demand table ---- */

enum wl_demand_kind {
	WL_DEMAND_TRAIN = 0,  /* tuned training throughput of a real GPU
	                         (its recipe's own data loader) */
	WL_DEMAND_MLPERF,     /* MLPerf Storage's emulated accelerator */
	WL_DEMAND_CEILING,    /* the GPU's own ceiling: its rate fed by
	                         GPU-side decode (MLPerf Training closed
	                         division, per GPU at 8) */
};

/* How a demand row's figure was obtained (one basis for every row). */
enum wl_demand_basis {
	WL_BASIS_MEASURED = 0, /* the source measured this GPU (NVIDIA
	                          DeepLearningExamples, tuned) */
	WL_BASIS_DERIVED,      /* the measured A100 row x this GPU's ratio
	                          to A100 in one same-method table */
	WL_BASIS_ESTIMATE,     /* no measurement found: an estimate */
};

/* One row: how many samples/s one GPU of a type consumes. */
struct wl_demand {
	const char *gpu;        /* short name matched by --gpus, e.g. "A100" */
	const char *gpu_detail; /* full name, e.g. "A100 80GB SXM" */
	enum wl_demand_kind kind;
	double samples_per_s;   /* one GPU alone */
	double range_lo, range_hi; /* derived from a range of figures: its
	                              ends (samples_per_s inside); 0 none */
	unsigned multi_gpus;    /* the source measured this many GPUs
	                           together (0: no multi-GPU figure) ... */
	double multi_samples_per_s; /* ... at this total (all GPUs) */
	unsigned batch;         /* MLPerf rows: batch size (0 elsewhere) */
	double compute_s;       /* MLPerf rows: emulated step time (0 elsewhere) */
	enum wl_demand_basis basis;
	const char *source;     /* where the number comes from; never NULL */
	double tokens_per_s;    /* token workloads: the source's figure, in
	                           tokens/s per GPU (samples_per_s is it
	                           divided by the workload's seq_len); 0
	                           elsewhere */
};

/*
 * How far a row's G-GPU figure may exceed G x its 1-GPU figure and still
 * be "at most": a source's rounding of the per-GPU figure (relative).
 * The job-file loader refuses a row beyond it.
 */
#define WL_DEMAND_ROUNDING 1e-3

/* "measured", "derived", "estimate". */
const char *wl_demand_basis_name(enum wl_demand_basis b);

/*
 * Total samples/s COUNT GPUs of ROW eat together: the source's measured
 * multi-GPU figure when COUNT == ROW->multi_gpus, else COUNT x the 1-GPU
 * figure. *MULTI_MEASURED (may be NULL) says whether the measured
 * multi-GPU figure was used. 0 for a NULL ROW or COUNT 0.
 */
double wl_demand_total(const struct wl_demand *row, unsigned count,
		       bool *multi_measured);

/* The ranges a workload's batch and sample cap take, in a job file
 * (batch, max_sample_bytes) and on the command line (--batch,
 * --max-sample-bytes) alike. */
#define WL_BATCH_MAX 65536u
#define WL_SAMPLE_BYTES_MIN 4096.0
#define WL_SAMPLE_BYTES_MAX (16.0 * (1ull << 30))

/* ---- the workload table ---- */

struct ldr_transform;

/* The per-sample pipeline a workload names (job file: transform = ...). */
enum wl_xform {
	WL_XFORM_NONE = 0,
	WL_XFORM_IMAGE_TRAIN,   /* "image-train": decode -> RandomResizedCrop
	                           -> flip -> normalize -> layout/dtype */
	WL_XFORM_VOLUME,        /* "volume-crop": .npy / .npz -> random crop
	                           (padded where smaller) -> random flips on
	                           the three axes -> f32 */
	WL_XFORM_TOKENS,        /* "tokens": a window of seq_len + 1 tokens ->
	                           int64 or int32 */
	WL_XFORM_COSMOFLOW,     /* "cosmoflow": raw int16 volume (a TFRecord
	                           feature) -> log(1 + x) -> f32 */
	WL_XFORM_COUNT
};

/* "image-train", "volume-crop", "tokens", "cosmoflow" ("none" for 0). */
const char *wl_xform_name(enum wl_xform x);

/* Everything a workload's transform takes from its definition. */
struct wl_xform_params {
	struct aug_params aug;         /* image-train: crop size, scale and
	                                  ratio range, flip p, mean/std,
	                                  dtype, layout */
	uint32_t vol_crop[3];          /* volume-crop: crop D, H, W (128^3) */
	bool vol_flip;                 /* volume-crop: flip each axis, p .5 */
	uint32_t cosmo_shape[4];       /* cosmoflow: D, H, W, C of "x" */
	uint32_t seq_len;              /* tokens: a sample holds seq_len + 1 */
	uint32_t token_bytes;          /* tokens: 8 (int64) or 4 (int32) out */
	char key[64];                  /* the payload in a record: TFRecord
	                                  feature, MDS column, .npz member;
	                                  "" = the format's default */
	uint64_t max_inflate;          /* volume-crop: the largest .npz
	                                  member a worker inflates (its
	                                  buffer grows to it); 0 = the
	                                  workload's max_sample_bytes, else
	                                  WL_VOL_DEFAULT_MAX_INFLATE */
};

/* What a workload's transform keeps for as long as runs use it. */
struct wl_transform_state {
	struct aug_params aug;
	struct wl_xform_params xp;     /* a copy of the workload's */
	void *priv;                    /* the transform's own (freed by
	                                  wl_transform_state_release) */
};

/* Frees what wl_transform_make left in ST->priv; accepts a zeroed ST. */
void wl_transform_state_release(struct wl_transform_state *st);

struct wl_workload {
	const char *name;          /* "imagenet" */
	const char *description;
	const char *layout;        /* on-disk layout in words */
	const char *file_ext;      /* ".JPEG" */
	/* Size statistics of the real dataset, with their source. */
	uint64_t dataset_files;
	double mean_file_bytes;
	double mean_width, mean_height;
	const char *stats_source;
	/* The sample handed to the GPU. */
	unsigned out_channels, out_height, out_width;
	const char *transform;     /* the per-sample work in words */
	double au_threshold;       /* AU a GPU must reach to count as fed */
	const char *au_source;
	const struct wl_demand *demand;
	size_t ndemand;
	const struct wl_gen_ops *gen;
	/* Draws the image of file `index` of a set generated with `seed`
	 * (image workloads; NULL elsewhere). Pure: same inputs, same spec. */
	void (*image_spec)(uint64_t seed, uint64_t index,
			   struct wl_image_spec *spec);
	/* The workload's native pipeline (WL_XFORM_NONE: it has none) and
	 * its parameters; wl_transform_make() builds it. */
	enum wl_xform xform;
	struct wl_xform_params xp;
	/* The format its data is stored in (gen writes it; run reads it;
	 * WL_FORMAT_AUTO: detect, the image workloads' default). */
	int format;                /* enum wl_format (formats.h) */
	unsigned batch;            /* default --batch (0: LDR_DEFAULT_BATCH) */
	enum wl_demand_kind default_demand; /* default --demand */
	uint64_t max_sample_bytes; /* default --max-sample-bytes (0: the
	                              command's) */
	double sd_file_bytes;      /* standard deviation of the file (or
	                              sample) size, for gen; 0 = none */
	const char *job_file;      /* where it was defined: "builtin:NAME.ini"
	                              or the user's path */
};

/* Number of entries in the workload table: the built-in job files, parsed
 * once on the first call of any of these four (any thread may call them;
 * the table is never freed). */
size_t wl_count(void);

/* Entry i (0 <= i < wl_count()), or NULL past the end. */
const struct wl_workload *wl_at(size_t i);

/*
 * Looks a built-in workload up by its exact name. Returns 0 and stores the
 * entry, or -ENOENT (-EINVAL for a NULL argument). Any thread.
 */
int wl_find(const char *name, const struct wl_workload **out);

/*
 * Writes the valid workload names, separated by ", ", into buf (always
 * NUL-terminated when len > 0), for "unknown workload" messages.
 * Returns the length the full list needs (like snprintf).
 */
size_t wl_names(char *buf, size_t len);

/*
 * The demand row for a GPU type (case-insensitive short name, e.g. "a100")
 * and a kind. Returns the row, or NULL when the table has none.
 */
const struct wl_demand *wl_demand_find(const struct wl_workload *w,
				       const char *gpu,
				       enum wl_demand_kind kind);

/* "train" / "mlperf" / "ceiling". */
const char *wl_demand_kind_name(enum wl_demand_kind kind);

/*
 * The kind a --demand word names: "train" (also "tuned"), "mlperf" or
 * "ceiling", any case. Returns 0 and stores it, or -EINVAL.
 */
int wl_demand_kind_parse(const char *word, enum wl_demand_kind *out);

/* The ImageNet statistics draw (the imagenet entry's image_spec). */
void wl_imagenet_spec(uint64_t seed, uint64_t index,
		      struct wl_image_spec *spec);

/*
 * Class folder name for class `i` of a generated image set: ImageNet's
 * WordNet-id style ("n01440764"), increasing with i. buf needs 10 bytes.
 */
void wl_class_name(uint32_t i, char buf[16]);

/* Class count for a set of `files` images: ~100 images per class like a
 * small ImageNet subset, at least 1 and at most ImageNet's 1000. */
uint32_t wl_class_count(uint64_t files);

/* ---- --gpus and the train transform (wl_gpus.c, wl_transform.c) ---- */

/* Most emulated GPUs a --gpus spec may ask for. */
#define WL_GPUS_MAX 1024u

/* A parsed --gpus spec: COUNT GPUs of the demand row ROW. */
struct wl_gpu_spec {
	unsigned count;              /* 0 = no consumer (raw feed rate) */
	const struct wl_demand *row; /* never NULL after a successful parse */
	bool type_given;             /* the spec named the type */
};

/*
 * The default demand row of W for KIND: its first row of that kind (for
 * imagenet, A100). NULL when W has no row of KIND.
 */
const struct wl_demand *wl_demand_default(const struct wl_workload *w,
					  enum wl_demand_kind kind);

/*
 * Parse a --gpus spec against W's demand table of KIND: "8xA100",
 * "2XH100", "8*A100", "A100" (one GPU), "0" or "0xA100" (no consumer).
 * GPU names are case-insensitive. A bare count takes the default row.
 * Returns 0 and fills *OUT, or -EINVAL (malformed, or more than
 * WL_GPUS_MAX), -ENOENT (a GPU name not in the table) or -ENODATA (the
 * GPU has no row of KIND), with one line for the user in WHY (WHY_LEN
 * bytes, may be NULL) that lists the known names. Any thread.
 */
int wl_gpu_spec_parse(const struct wl_workload *w, const char *spec,
		      enum wl_demand_kind kind, struct wl_gpu_spec *out,
		      char *why, size_t why_len);

/*
 * The distinct GPU names of W's rows of KIND, separated by ", ", into BUF
 * (always NUL-terminated when LEN > 0). Returns the length the full list
 * needs (like snprintf).
 */
size_t wl_gpu_names(const struct wl_workload *w, enum wl_demand_kind kind,
		    char *buf, size_t len);

struct ldr_transform;

/*
 * The imagenet train transform as a loader transform: aug_train_sample()
 * with PARAMS on a per-worker aug_ctx (created on the worker's thread),
 * its per-step times in ldr_step_times (decode; resize incl. crop and
 * flip; normalize and layout in other), and the augment error codes
 * mapped to the loader's kinds (-AUG_ECORRUPT -> -LDR_ECORRUPT,
 * -AUG_ETRUNCATED -> -LDR_ETRUNCATED, -AUG_EUNSUPPORTED ->
 * -LDR_EUNSUPPORTED, -AUG_ETOOLARGE -> -LDR_ETOOBIG, -AUG_ENOTJPEG ->
 * -LDR_ENOTFORMAT; -errno as it is). PARAMS is not copied: it must outlive
 * every run that uses *OUT (the contexts copy it when they are made).
 * Checks PARAMS by making one context now. Returns 0, or
 * aug_ctx_create()'s error (-EINVAL, -ENOTSUP, -ENOMEM). Any thread.
 */
int wl_transform_train(const struct aug_params *params,
		       struct ldr_transform *out);

/*
 * Workload W's native pipeline as a loader transform into *OUT, its state
 * in *ST (which must outlive every run that uses *OUT), and the pipeline
 * in words into DESC (DESC_LEN bytes): the commands take a workload's
 * transform from here, never by name. Returns 0, -ENOTSUP when W has no
 * transform, or the transform's own error.
 */
int wl_transform_make(const struct wl_workload *w,
		      struct wl_transform_state *st, struct ldr_transform *out,
		      char *desc, size_t desc_len);

/* The imagenet train pipeline (the default aug_params) for the table. */
int wl_imagenet_transform(struct wl_transform_state *st,
			  struct ldr_transform *out, char *desc,
			  size_t desc_len);

/* ---- the tokens transform (tokens.c; the format is formats/tokens.h) ---- */

/*
 * The tokens transform of ST->xp (seq_len > 0; token_bytes 8: int64, 4:
 * int32, 0: 8) into *OUT: a sample is a struct wl_token_span (LEN =
 * sizeof it; anything else is -LDR_ENOTFORMAT); its first seq_len + 1
 * tokens are converted to the output type, little-endian, and a shorter
 * span is padded with zeros (an MDS sample of seq_len tokens, as
 * llm-foundry's concat writer makes them, gets one zero). Float element
 * types are -LDR_EUNSUPPORTED. Per-sample time goes in other_s (the
 * decompression is the shard reader's). DESC (DESC_LEN bytes) gets the
 * pipeline in words. ST must outlive every run of *OUT. Returns 0 or
 * -EINVAL (seq_len 0, token_bytes not 4 or 8). Any thread.
 */
int wl_tokens_transform(struct wl_transform_state *st,
			struct ldr_transform *out, char *desc, size_t desc_len);

/* The loader error kind (negative) for a -AUG_E* code or -errno. */
int wl_transform_err(int aug_err);

/* ---- gpu-decode: the host's share of a GPU JPEG decode (wl_gpudec.c) */

/* A GPU's JPEG decoder, as the sources state it (one row per GPU name
 * of the demand tables). */
struct wl_gpu_decoder {
	const char *gpu;                /* the demand rows' short name */
	bool hw;                        /* has NVJPG: gpu-decode's default
	                                   path is hw, else hybrid */
	double img_per_s;               /* JPEG decode capacity per GPU at
	                                   ImageNet sizes; 0 not stated */
	double range_lo, range_hi;      /* the sources' figures */
	const char *kind;               /* "lower bound", "not stated", ... */
	const char *source;
};

/* GPU's decoder row (case-insensitive), or NULL when none is known. */
const struct wl_gpu_decoder *wl_gpu_decoder_find(const char *gpu);

/* Every decoder row into *ROWS; returns how many. */
size_t wl_gpu_decoders(const struct wl_gpu_decoder **rows);

/* "hw" or "hybrid". */
const char *wl_gpu_decode_mode_name(enum aug_gd_mode m);

/*
 * Workload W's gpu-decode pipeline (image-train workloads only, else
 * -ENOTSUP) in MODE as a loader transform into *OUT, its state in *ST
 * (which must outlive every run of *OUT). Each sample's slot holds a
 * struct aug_gd_desc; its payload goes to the batch's staging area,
 * whose first chunk is STAGE_BYTES (0: 1 MiB). The sample's path is
 * counted (paths "hw", "hybrid", "hybrid_progressive", "hybrid_cmyk");
 * a PNG fails as "unsupported" (kind png_not_gpu_decoded). The pipeline
 * in words to DESC. 0, -EINVAL or -ENOMEM.
 */
int wl_transform_gpu_decode(const struct wl_workload *w,
			    enum aug_gd_mode mode, size_t stage_bytes,
			    struct wl_transform_state *st,
			    struct ldr_transform *out, char *desc,
			    size_t desc_len);

/*
 * One line naming the pipeline PARAMS describe and its decoder settings,
 * e.g. "feedrate native: libjpeg-turbo, ISLOW IDCT, fancy upsampling, ROI
 * decode, DCT scaling, avx2 kernels -> 224x224 f32 CHW". ISA is the one a
 * context really uses (aug_ctx_isa). Returns the length (like snprintf).
 */
size_t wl_transform_describe(const struct aug_params *params,
			     enum aug_isa isa, char *buf, size_t len);

/* ---- the instance catalog (wl_instances.c) ---- */

/*
 * One cloud GPU shape, from ../shared/reference/instances.md (AWS EC2
 * instance-type docs; Azure gpu-accelerated size pages; GCP
 * accelerator-optimized machine docs and skypilot-catalog gcp/vms.csv).
 * A *_recalled flag marks a figure recalled, not re-read from the
 * provider's page ("mem" there): reports flag it.
 */
struct wl_instance {
	const char *name;          /* "p4d.24xlarge" */
	const char *cloud;         /* "AWS", "GCP", "Azure" */
	unsigned gpus;
	const char *gpu;           /* family matched against --gpus: "A100" */
	const char *gpu_detail;    /* "A100 40GB" */
	const char *gpu_row;       /* the demand row of its own GPU model:
	                              "A100-40GB" for p4d */
	unsigned vcpus;
	enum stg_vcpu_kind vcpu_kind; /* thread (AWS, GCP) or core (Azure ND) */
	const char *vcpu_kind_source;
	double ram_gib;
	bool ram_recalled;
	const char *local_disk;    /* in words, "EBS only" */
	bool disk_recalled;
	const char *network;
	bool network_recalled;
	const char *source;
};

/* Number of catalogued shapes, and entry I (NULL past the end). */
size_t wl_instance_count(void);
const struct wl_instance *wl_instance_at(size_t i);

/* The shape named NAME (case-insensitive), or NULL. */
const struct wl_instance *wl_instance_find(const char *name);

/* ---- what --workload names (wl_resolve.c) ---- */

/*
 * NAME into *W: a built-in by name, else a job file when NAME has a '/',
 * ends in .ini or names an existing file (loaded and kept until exit; a
 * later call frees the earlier one). 0, -EINVAL with the user's words in
 * WHY (an unknown name with the valid ones; a job file's error with its
 * file, line and key, or a file that cannot be read), or -ENOMEM. One
 * thread.
 */
int wl_workload_resolve(const char *name, const struct wl_workload **w,
			char *why, size_t why_len);

/* The path of the job file wl_workload_resolve loaded; NULL when none. */
const char *wl_job_loaded(void);

#endif /* FEEDRATE_WORKLOADS_H */
