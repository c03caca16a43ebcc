/*
 * report.h - writing what feedrate measured: safe text for names that come
 * from users' datasets, and atomic report files.
 */
#ifndef FEEDRATE_REPORT_H
#define FEEDRATE_REPORT_H

#include <stddef.h>

#include <jansson.h>

/*
 * Turn LEN bytes of a file name into printable UTF-8: valid UTF-8 sequences
 * (other than control characters) are kept; any other byte, and control
 * characters and backslash, are written as "\xNN" ("\\" for a backslash) so
 * that different names never print the same. Returns a malloc'd,
 * NUL-terminated string the caller frees, or NULL when out of memory.
 */
char *rpt_path_text(const char *bytes, size_t len);

/*
 * A JSON string holding rpt_path_text(path, strlen(path)). Returns a new
 * reference, or NULL when out of memory.
 */
json_t *rpt_json_path(const char *path);

/*
 * Write ROOT as indented JSON to PATH. "-" writes to stdout. Any other path
 * is written atomically: to a temporary file in the same folder, flushed
 * with fsync, then renamed over PATH, so a reader never sees half a report
 * and a failure (full disk, unwritable folder) leaves PATH untouched.
 * A FIFO, /dev/null, a terminal and /dev/stdout are written through; a
 * block device, a folder, a socket or another character device is refused
 * before a byte is written (-EINVAL, -EISDIR for a folder), however the
 * path reaches it. Returns 0 or -errno. Does not take ownership of ROOT.
 */
int rpt_json_write(json_t *root, const char *path);

/*
 * Write LEN bytes of DATA to PATH atomically, as rpt_json_write does ("-"
 * is stdout). Returns 0 or -errno.
 */
int rpt_file_write(const char *path, const void *data, size_t len);

/* ==== the report of one run (report_run.c) ==== */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rpt_setup.h"
#include "storage.h"
#include "verdict.h"    /* the verdict's arithmetic */

struct ldr_result;

/* Version of the JSON a run writes; raised when a key changes meaning
 * (2: "pipeline" became an object: name, description, versions,
 * workers). */
#define RPT_RUN_SCHEMA_VERSION 2

struct ms_python_info;

/*
 * The "pipeline" object of run and sweep reports: name (NAME, NULL:
 * "native"), description (DESC), workers (WORKERS: the native engine's
 * transform threads, a Python pipeline's DataLoader workers), and for a
 * Python pipeline (PY not NULL) interpreter, versions {python, torch,
 * torchvision, pillow, libjpeg; null where unknown}, cpu_s {main,
 * workers} and processes [{pid, role, cpus, cgroup}]; versions is null
 * for native. A new reference, NULL when out of memory.
 */
json_t *rpt_pipeline_json(const char *name, const char *desc,
			  unsigned workers, const struct ms_python_info *py);

/*
 * A Python pipeline's runner on F, as lines of the run report (indent
 * "  "): the interpreter, the processes with their CPUs and cgroup, and
 * that the stage split is not known. Nothing for PY NULL.
 */
void rpt_pipeline_print(FILE *f, const struct ms_python_info *py);

struct ms_pipeline_spec;
/*
 * The pipeline PS as reports name it, in words, into BUF (LEN bytes):
 * native: NATIVE_DESC (the transform's line); torch: "torch: torchvision
 * ImageFolder + DataLoader (PyTorch V, torchvision V, Pillow V, libjpeg
 * V), W workers"; python:FILE likewise with FILE's make_loader. PY may be
 * NULL (versions unknown). Returns BUF.
 */
const char *rpt_pipeline_text(const struct ms_pipeline_spec *ps,
			      const struct ms_python_info *py,
			      const char *native_desc, unsigned workers,
			      char *buf, size_t len);

/*
 * Preparation's phases as a report shows them (run: the point's; sweep:
 * every point's and check run's added up), the listing included. SET
 * false: not reported.
 */
struct rpt_prepare {
	bool set;
	double list_s, evict_s, warm_s, verify_s;
	uint64_t files;                 /* files evicted or warmed */
	uint64_t verify_sample;         /* files whose residency was checked */
	double verify_bound;            /* the verified shares' sampling error
	                                   at CONFIDENCE; 0 every file
	                                   checked; < 0 nothing verified */
	double confidence;
	unsigned listings;              /* listings the command made */
	unsigned reused;                /* states a sample found made */
	const char *method;             /* how files were evicted or warmed */
};

/* PREP as the JSON object "prepare" (NULL when not set). */
json_t *rpt_prepare_json(const struct rpt_prepare *prep);

/* PREP as one text line "  prepare    list 6.4 s, evict ..." to F
 * (nothing when not set). */
void rpt_prepare_print(FILE *f, const struct rpt_prepare *prep);

/*
 * Everything the report of `feedrate run` says, gathered by the command:
 * the engine's result plus what was measured around it. Strings are
 * owned by the caller and may be NULL or "" where they do not apply;
 * paths are raw bytes (the report escapes them with rpt_path_text).
 */
/* gpu-decode's modelled side: struct rpt_gpu_decode (verdict.h). */


/* G for GPU (its decoder row) and PATH ("hw", "hybrid"). */
void rpt_gpu_decode_fill(struct rpt_gpu_decode *g, const char *gpu,
			 const char *path);

/* "modelled: the CPU share measured here, the GPU share from SOURCE"
 * into BUF (LEN bytes). Returns BUF. */
const char *rpt_gpu_decode_modelled(const struct rpt_gpu_decode *g,
				    char *buf, size_t len);

/*
 * Is the GPU's decoder, not the VM, the limit at DEMAND samples/s per
 * GPU (its stated capacity below it)? The words into BUF (LEN bytes;
 * "" when not). A capacity that is not stated is never the limit.
 */
bool rpt_gpu_decode_limit(const struct rpt_gpu_decode *g, double demand,
			  char *buf, size_t len);

/* G with RES's path counts and staging (RES may be NULL) as JSON. */
json_t *rpt_gpu_decode_json(const struct rpt_gpu_decode *g,
			    const struct ldr_result *res, double demand);

/* G's lines of a run report (paths, staging, modelled, limit) on F. */
void rpt_gpu_decode_print(FILE *f, const struct rpt_gpu_decode *g,
			  const struct ldr_result *res, double demand);

struct rpt_run {
	struct rpt_setup setup;         /* workload, dataset, storage, machine,
	                                   GPUs, knobs (rpt_setup.h) */
	/* what was measured, besides the setup */
	uint64_t listing_errors;        /* entries the listing skipped */
	struct rpt_listing_kind {       /* ... by kind, one example each */
		const char *kind;       /* "dangling_link", "opendir", ... */
		uint64_t count;
		const char *example;    /* raw bytes, may be NULL */
	} listing_kinds[16];
	unsigned nlisting_kinds;
	const char *pipeline_name;      /* "native" (NULL too), "torch",
	                                   "python:FILE" */
	const struct ms_python_info *py; /* a Python pipeline's runner (its
	                                   versions, workers, processes);
	                                   NULL for native */
	struct rpt_gpu_decode gd;       /* gpu-decode's modelled side */

	/* where it ran */
	unsigned vcpus;
	const char *cpus_how;           /* ldr_cpu_choice.how */
	double cpu_outside_mask_s;      /* < 0: unknown */

	/* page cache */
	const char *cache_how;          /* how the state was made, in words */
	double fraction_resident;       /* verified before the run; < 0
	                                   unknown */
	double hit_ratio;               /* < 0 unknown */
	const char *hit_ratio_source;   /* "measured ...", "estimated ...",
	                                   "too few probes ..." */
	bool hit_ratio_estimated;
	uint64_t cache_seen_bytes;      /* --ram: page cache charged to the
	                                   cgroup after the run; 0 unknown */
	struct rpt_prepare prepare;     /* its phases, timed */
	bool ram_not_limited;           /* --ram: it held more than
	                                   LDR_RAM_SLACK x ram_bytes: the run
	                                   was warmer than asked */
	uint64_t page_cache_bytes;      /* --ram: the page cache modelled */
	uint64_t cgroup_limit_bytes;    /* --ram: the cgroup limit (page cache
	                                   + the run's own memory), 0 none */

	/* the result */
	const struct ldr_result *res;   /* NULL when the run never started */
	const char *bottleneck;         /* ldr_bottleneck_name() */
	int run_error;                  /* 0, or the -errno ldr_run gave */
	const char *run_error_text;     /* words for it */
	int signal;                     /* SIGINT/SIGTERM that stopped it */
	const struct stg_stall *stall;  /* the storage stalled; NULL not */
	const char *notes;              /* other remarks, "" none */
};

/*
 * How many GPUs of the run's type the measured feed rate keeps at or
 * above the AU threshold: rpt_verdict_gpus_fed() on the run's numbers
 * (floor(samples_per_s / (T x demand))). 0 when unknown (and when the
 * run was too short to judge).
 */
unsigned rpt_run_gpus_fed(const struct rpt_run *r);

/*
 * Was R's measurement too short to judge (rpt_verdict_run(): the window
 * ended inside the warm-up, or fewer than RPT_RUN_MIN_BATCHES_PER_GPU
 * batches per emulated GPU, at least RPT_RUN_MIN_BATCHES, were
 * measured)? Writes the reason into WHY (LEN bytes) and returns true;
 * false when it can be judged or nothing was measured at all.
 */
bool rpt_run_too_short(const struct rpt_run *r, char *why, size_t len);

/* The one-line verdict, e.g. "this VM feeds 8xA100 at >= 90 % AU". */
void rpt_run_verdict(const struct rpt_run *r, char *buf, size_t len);

/* The human report of R on F. Reads R only. */
void rpt_run_print(FILE *f, const struct rpt_run *r);

/*
 * The JSON report of R (a new object; schema_version, samples_per_s, au,
 * bottleneck, vcpus, machine{vcpu_kind,threads_per_core}, cache,
 * hit_ratio, gpus{type,count,demand_per_gpu,demand_single,demand_total,
 * demand_multi_measured,demand_basis,demand_source}, stages, errors,
 * backend, dataset{files,bytes}, fraction_resident, cpu_outside_mask_s,
 * ...). NULL when out of memory.
 */
json_t *rpt_run_json(const struct rpt_run *r);

/* What a demand line says: the row judged against and at which count. */
struct rpt_demand_words {
	const char *gpu_type;           /* "A100" (the row, or --gpus name) */
	const char *gpu_detail;         /* "A100 80GB SXM" */
	unsigned count;                 /* asked GPUs; 0 none emulated */
	double single;                  /* one GPU alone */
	double total;                   /* COUNT GPUs together */
	bool multi_measured;            /* TOTAL is the row's multi-GPU
	                                   figure (measured, or derived
	                                   from a measured one: BASIS) */
	const char *basis;              /* "measured", "derived", "estimate",
	                                   "gpu-rate" */
	double range_lo, range_hi;      /* per GPU; 0 none */
	const char *kind;               /* "train", "mlperf", "ceiling",
	                                   "gpu-rate" */
	const char *source;
	bool default_type;              /* the type was not asked for */
	unsigned tokens_per_sample;     /* token workloads: tokens/s are
	                                   samples/s x this; 0 none */
	double bytes_per_sample;        /* the dataset's stored bytes per
	                                   sample (its bytes / samples per
	                                   epoch): the reads the demand
	                                   needs; 0 unknown */
};

/* S's GPUs and demand as a demand line takes them (rpt_demand_text). */
struct rpt_demand_words rpt_setup_demand_words(const struct rpt_setup *s);

/*
 * What a row's multi-GPU figure is, by the row's BASIS: "the source's
 * measured multi-GPU figure" ("measured"), else "a multi-GPU figure
 * derived from a measured one" (the row's source says how). Static.
 */
const char *rpt_demand_multi_words(const char *basis);

/* Stored bytes per sample of a dataset of BYTES holding RECORDS samples
 * per epoch (0 when either is 0). */
double rpt_bytes_per_sample(uint64_t bytes, uint64_t records);

/* Adds to a report's "gpus" object G what a demand of EATEN samples/s
 * means: "tokens_per_sample" and "demand_tokens_per_s" (TOKENS_PER_SAMPLE
 * non-zero) and "reads_needed_bytes_per_s" (BYTES_PER_SAMPLE x EATEN, null
 * when unknown). */
void rpt_demand_json_extra(json_t *g, unsigned tokens_per_sample,
			   double eaten, double bytes_per_sample);

/*
 * The demand line of run and sweep reports into BUF (LEN bytes, always
 * terminated when LEN > 0), without a label: the row, its basis and
 * kind, the samples/s at the asked count, then its source, e.g.
 * "A100 row (A100 80GB SXM), train, measured: 8 x A100: 16,621
 * samples/s, the source's measured 8-GPU figure (2,078 per GPU); source:
 * ..." or "... 4 x 2,470 = 9,880 samples/s (no multi-GPU figure: count x
 * per-GPU); ...". A token workload's line gives the tokens/s too, and
 * where BYTES_PER_SAMPLE is known the reads that demand needs ("reads
 * needed: 1.61 GB/s (146.6 MB stored per sample)"). Returns what snprintf
 * would: the length the whole line needs.
 */
size_t rpt_demand_text(char *buf, size_t len, const struct rpt_demand_words *d);

/*
 * What one vCPU is on this machine, in words, into BUF (LEN bytes):
 * "thread (SMT siblings present: 2 threads per core)", "core (no SMT
 * siblings)" or "unknown (...)". THREADS_PER_CORE <= 0: unknown.
 */
void rpt_vcpu_kind_text(char *buf, size_t len, enum stg_vcpu_kind kind,
			int threads_per_core);

/* ---- filled from measure/'s results (reports/report_fill.c) ---- */

struct stg_dataset;
struct ldr_result;
struct ms_point_out;
struct ms_sweep_point;
struct ms_gpus;
struct rpt_point;

/* R's listing problems by kind, one example each, from MD (the rest of
 * the dataset is R's setup: rpt_setup_fill). */
struct ms_dataset;
void rpt_run_fill_listing(struct rpt_run *rr, const struct ms_dataset *md);

/*
 * R's vCPU, page-cache, hit-ratio and result fields from a point's
 * outcome PO and result RES (both must outlive R); RAM: it was a --ram
 * point of a dataset of FILES_TOTAL files. The cache's description is
 * written into HOW (HOW_LEN bytes), which R then points to.
 */
void rpt_run_fill_point(struct rpt_run *r, const struct ms_point_out *po,
			const struct ldr_result *res, bool ram,
			size_t files_total, char *how, size_t how_len);

/*
 * R's result after the point PO (as rpt_run_fill_point, RAM: a --ram
 * point, MD the dataset listed in MD->list_s), the signal that stopped it
 * (the point's, else STOP), the preparation's phases, and what R's NOTES
 * (NOTES_LEN bytes) must say of it: preparation's remark, a cold state
 * O_DIRECT could not make, a --ram run too short to settle. Everything
 * pointed to must outlive R.
 */
void rpt_run_fill_result(struct rpt_run *rr, const struct ms_point_out *po,
			 const struct ldr_result *res, bool ram,
			 const struct ms_dataset *md, int stop, char *how,
			 size_t how_len, char *notes, size_t notes_len);

/*
 * R says the storage stalled (STALL, which must outlive R); its results
 * are PARTIAL, the window's running totals when it had opened (NULL: no
 * results). TEXT (TEXT_LEN bytes) gets the stall in words, NOTES the
 * measurement child HELD_PID (0 none) left in the kernel.
 */
void rpt_run_fill_stalled(struct rpt_run *rr, const struct stg_stall *stall,
			  const struct ldr_result *partial, int held_pid, char *text, size_t text_len,
			  char *notes, size_t notes_len);

/*
 * A sweep's point P from SP (which must outlive P), judged against
 * DEMAND_TOTAL samples/s (the asked GPUs' demand); the cache's
 * description is written into HOW.
 */
void rpt_point_fill(struct rpt_point *p, const struct ms_sweep_point *sp,
		    double demand_total, size_t files_total, char *how,
		    size_t how_len);

struct rpt_sweep;
struct ms_machine;
struct ms_dataset;
struct ms_prep_phases;

/*
 * OUT from preparation's phases PH (a point's, or a sweep's added up),
 * the listing's LIST_S and METHOD (owned by the caller): the listings
 * counted by the storage layer, the confidence of the sample's bound.
 */
void rpt_prepare_fill(struct rpt_prepare *out, const struct ms_prep_phases *ph,
		      double list_s, const char *method);

/*
 * The progress line of a preparation phase into BUF: "evict 123,456 of
 * 1,281,167 files, 310 k files/s". Pure.
 */
void rpt_prep_progress_line(char *buf, size_t len, const char *phase,
			    uint64_t done, uint64_t total, double elapsed_s);

/*
 * A sweep's setup R->setup from what the command opened (IN, as
 * rpt_setup_fill reads it); an unknown SMT group counts as one thread per
 * core. Everything pointed to must outlive R.
 */
void rpt_sweep_fill_setup(struct rpt_sweep *r,
			  const struct rpt_setup_src *in);

/* `feedrate gen`'s summary line for the dataset written in DIR. */
struct wl_gen_stats;
void rpt_gen_print(FILE *f, const char *dir, const struct wl_gen_stats *st,
		   uint64_t seed, unsigned jobs);

/* What gen's summary of a sharded set names besides its figures. */
struct rpt_gen_shards {
	const char *from;               /* --from SRC; NULL: synthetic */
	const char *dir;
	const char *format;             /* "wds", "mds", "tfrecord" */
	bool zstd;
	int zstd_level;
	uint64_t seed;
	unsigned jobs;
};

/* The summary of a sharded set: gen's line with the format, the shard
 * count and bytes in place of the folder (and what --from left out). */
struct wl_shard_stats;
void rpt_gen_print_shards(FILE *f, const struct rpt_gen_shards *g,
			  const struct wl_gen_stats *st,
			  const struct wl_shard_stats *sst);

/*
 * The summary line of a generator that is not an image set (volumes,
 * token streams, cosmoflow records): files, LAYOUT, bytes, mean and
 * spread of the file size, seed, jobs, time. One line on F.
 */
void rpt_gen_print_files(FILE *f, const char *dir, const char *layout,
			 const struct wl_gen_stats *st, uint64_t seed,
			 unsigned jobs);

/* What gen wrote, for rpt_gen_done: SHARDS for a sharded set, else an
 * ImageFolder of images (IMAGES) or LAYOUT's files. */
struct rpt_gen_done {
	const struct rpt_gen_shards *shards;
	bool images;
	const char *dir, *layout;
	uint64_t seed;
	unsigned jobs;
};

/* gen's summary of what it wrote: one of the three lines above. */
void rpt_gen_done(FILE *f, const struct rpt_gen_done *d,
		  const struct wl_gen_stats *st,
		  const struct wl_shard_stats *sst);

/* gen's progress as one updating terminal line on F (a newline when
 * DONE). */
void rpt_gen_progress(FILE *f, const struct wl_gen_stats *st, bool done);

/* A failed gen, for rpt_gen_failed. SST: the shards complete (NULL for
 * files); ERRPATH: the path the writer failed on ("" none). */
struct rpt_gen_failure {
	int rc;
	const char *dir, *from;
	const struct wl_gen_stats *st;
	const struct wl_shard_stats *sst;
	const char *errpath;
};

/* Says G on F: what failed, where, and what was complete. Returns true
 * when the failure is the user's (DIR not an empty folder: a usage
 * error), false otherwise. */
bool rpt_gen_failed(FILE *f, const struct rpt_gen_failure *g);

/* Says why --from cannot be converted (wl_gen_from_check's ERR: -EEXIST,
 * DIR inside SRC; else SRC, or DIR when !ON_SRC, not looked at). */
void rpt_gen_from_failed(FILE *f, const char *from, const char *dir,
			 int err, bool on_src);

/*
 * The "ram" object of a ram point's JSON (run and sweep alike): the page
 * cache the report names (page_cache_bytes) and the memory cgroup's limit
 * (cgroup_limit_bytes: that page cache plus the run's own memory,
 * measured; null when no cgroup could be made). A new reference.
 */
json_t *rpt_json_ram(uint64_t page_cache_bytes, uint64_t cgroup_limit_bytes);

/*
 * The instance catalogue (workloads/) as report shapes: at most MAX into
 * OUT (the strings are the catalogue's). Each shape's demand is that of
 * its own GPU model's row in W, of the kind of GS's row (the family's row
 * when its model has none; none with --gpu-rate). Returns how many.
 */
struct rpt_shape;
struct wl_workload;
size_t rpt_shapes_fill(struct rpt_shape *out, size_t max,
		       const struct wl_workload *w, const struct ms_gpus *gs);

/* Bytes of one point's cache description. */
#define RPT_HOW_LEN 1024

/*
 * R's points from the sweep SW: PTS and HOW hold SW->npts entries (owned
 * by the caller, they must outlive R); R->backend is the last one run.
 */
struct ms_sweep;
void rpt_sweep_fill_points(struct rpt_sweep *r, struct rpt_point *pts,
			   char (*how)[RPT_HOW_LEN], const struct ms_sweep *sw,
			   double demand_total, size_t files_total);

/* A ram point's protocol and figures in words, into HOW. */
void rpt_ram_how(const struct ms_point_out *po, uint64_t epochs,
		 size_t files_total, char *how, size_t how_len);

/* ==== end run report ==== */

/* ==== where a report may go (report_io.c) ==== */

/*
 * May a report be written to PATH? Pure: looks at the file system (stat,
 * realpath, faccessat) and creates, opens and changes nothing, so a
 * command calls it for every report path before it measures anything.
 *
 * Accepted: "-" (stdout); a regular file or a new file in an existing
 * folder the caller may write in; a FIFO; /dev/null, /dev/zero, /dev/full
 * and terminals (/dev/stdout is judged by what stdout is). A symbolic link
 * is judged by its target.
 * Refused: a block device, a folder, a socket, any other character device,
 * a link to nothing, a name whose folder does not exist or cannot be
 * written in (the writer makes its temporary file there), a new name
 * under /dev or /proc (the writer writes there only into what exists),
 * and anything the run reads: READ_ROOTS (N_ROOTS entries, NULL or ""
 * entries skipped) are the dataset folder and the files the run reads (a
 * --list file, a job file). A path inside a READ_ROOTS folder is refused,
 * compared by device and inode after resolving the path's folder, so
 * "data/../data/x.json", a symlinked parent and a bind mount are caught;
 * a READ_ROOTS file is refused as the target itself (also through a hard
 * link). A READ_ROOTS entry that does not exist is skipped.
 *
 * Returns 0, or -errno (-EISDIR a folder; -ENOENT a missing folder, a
 * dangling link or a new name under /dev; -EACCES or -EROFS an unwritable
 * folder; -ENOMEM; -EINVAL the rest) with one line for the user in WHY
 * (WHY_LEN bytes, paths printable as rpt_path_text makes them; "" on
 * success). Any thread.
 */
int rpt_out_path_check(const char *path, const char *const *read_roots,
		       size_t n_roots, char *why, size_t why_len);

/*
 * Do report paths A and B name one file, however spelled ("r.json",
 * "./r.json", "d/../r.json", a symlinked folder)? Each path's folder is
 * resolved; "-" equals only "-". Pure: looks, changes nothing.
 */
bool rpt_out_path_same(const char *a, const char *b);

/* ==== end report paths ==== */

/* ==== the reports of `feedrate io` (report_iorun.c) and `feedrate info`
 * (report_info.c) ==== */

struct ms_io_config;
struct ms_io_result;

/*
 * The text report of `feedrate io` on F: SETUP's dataset (as given, raw
 * bytes; escaped here), the setup CFG asked for, and what RES measured (speed,
 * completion latency percentiles, read errors by kind with one example
 * each, listing errors, files that could not be evicted). Reads CFG and
 * RES only.
 */
void rpt_iorun_print(FILE *f, const struct rpt_setup *setup,
		     const struct ms_io_config *cfg,
		     const struct ms_io_result *res);

/*
 * The JSON report of `feedrate io` (a new object: command, dataset,
 * backend, backend_reason, notes, options{...}, files_listed, files,
 * io_bytes, total_ios, runtime_s, bw_bytes, iops, files_per_s,
 * clat_ns{min,max,mean,percentile}, errors{total,kinds},
 * listing_errors, listing_error_examples). NULL when out of memory.
 */
json_t *rpt_iorun_json(const struct rpt_setup *setup,
		       const struct ms_io_config *cfg,
		       const struct ms_io_result *res);

/*
 * What `feedrate info` detected, gathered by the command. Strings from
 * outside (sysfs, mountinfo, paths) may hold any bytes; the report
 * escapes them.
 */
struct rpt_info {
	const char *version;            /* FEEDRATE_VERSION */
	struct stg_cpu_info cpu;
	struct stg_mem_info mem;
	struct stg_gpu_info gpus;
	struct stg_dmi_info dmi;
	int uring_err;                  /* stg_uring_probe's */
	char uring_why[256];
	const char *path;               /* NULL: no storage part */
	int fs_err;                     /* stg_detect_fs's */
	struct stg_fs_info fs;
	bool probed;                    /* --probe-cache was asked */
	int probe_err;
	const char *probe_file;         /* the file probed, may be NULL */
	struct stg_cache_probe probe;
	/* PATH as a dataset: its format and, for shards, what the count
	 * found (format[0] == 0: not looked at) */
	char format[16];                /* "folder", "wds", "mds", ... */
	char format_why[256];
	int ds_err;                     /* opening the shards: 0 or -errno */
	char ds_why[512];
	uint64_t shards, records, compressed_shards, shard_bytes;
	double count_s;
	const char *records_source;     /* wl_count_source_name of the
	                                   weakest source a count came from */
	uint64_t by_source[4];          /* shards counted by index, cache,
	                                   walk (scanned), estimate */
	unsigned count_warnings;
	char count_warning[320];
	unsigned ds_nerr;
	struct {
		char kind[24];
		uint64_t count;
		char example[320];
	} ds_err_kinds[8];
};

/*
 * The text report of IN on F: "Machine", then "Storage under PATH" when
 * IN->path is set; one "label  value" per line, values wrapped at 80
 * columns.
 */
void rpt_info_print(FILE *f, const struct rpt_info *in);

/*
 * The JSON report of IN (a new object: feedrate_version, machine{...},
 * and storage{...} when IN->path is set). NULL when out of memory.
 */
json_t *rpt_info_json(const struct rpt_info *in);

/* The dataset part of IN from shard set S (opened on IN->path): shards,
 * records, compressed shards, bytes, counting time and the first error
 * kinds. */
struct wl_shardset;
void rpt_info_fill_shards(struct rpt_info *in, const struct wl_shardset *s);

/* ==== end io and info reports ==== */

/* ==== a stall (reports/report_stall.c) ==== */

/*
 * The stall in words, one line: "STALLED: no read completed for 3.0 s
 * (--stall-timeout 3 s) while 12 reads were in flight, in the window;
 * the oldest waited 3.1 s, on train/n01/x.jpg". BUF of LEN bytes. The
 * file name is made printable (rpt_path_text).
 */
void rpt_stall_text(const struct stg_stall *s, char *buf, size_t len);

/*
 * The report's `stalled` object (docs/report-schema.md): phase,
 * reads_in_flight, oldest_age_s, oldest_file, no_completion_s,
 * stall_timeout_s; JSON null when S is NULL or not stalled.
 */
json_t *rpt_stall_json(const struct stg_stall *s);

/*
 * The report a command writes when its own thread cannot (it waits in
 * the kernel): schema and schema_version as the command's report has
 * them (SCHEMA NULL: none), command, partial true, stopped_by ("stalled"
 * or "signal"), stalled (rpt_stall_json) and note. A new object, NULL
 * when out of memory.
 */
json_t *rpt_stall_partial_json(const char *command, const char *schema,
			       int schema_version,
			       const struct stg_stall *stall, int sig,
			       const char *note);

/*
 * What the command had opened before its thread got stuck (O, from
 * ms_opened_get), into ROOT: `dataset` {path, listed, generated, files,
 * format, bytes, fs_type, device: null where not known yet; null when
 * no folder was recorded} and `machine` {cpu_model, vcpus,
 * threads_per_core, vcpu_kind, ram_bytes, ram_available_bytes,
 * cgroup_limit_bytes}, keyed as the commands' own reports key them (for
 * "command": "io", `dataset` is the path and `files_listed` the count, as
 * in io's report, the object above then being `dataset_detail`).
 */
struct ms_opened;       /* measure.h */
void rpt_stall_partial_opened(json_t *root, const struct ms_opened *o);

/* The same in words: a "dataset" and a "machine" line. */
void rpt_stall_opened_print(FILE *f, const struct ms_opened *o);

#endif /* FEEDRATE_REPORT_H */
