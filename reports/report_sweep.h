/*
 * report_sweep.h - the report of `feedrate sweep` (points over vCPU counts
 * and cache states, and the verdict drawn from them), its text, JSON, CSV
 * and HTML forms, and `feedrate compare` over saved sweep reports.
 *
 * reports/ reads result structs only: the command fills struct rpt_sweep
 * with plain numbers (and, optionally, the engine's 1-second series), then
 * rpt_sweep_verdict() draws the verdict from them. Nothing here runs a
 * measurement. Strings are owned by the caller; paths are raw bytes and
 * are escaped (rpt_path_text, then HTML escaping) where they are written.
 */
#ifndef FEEDRATE_REPORT_SWEEP_H
#define FEEDRATE_REPORT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct ldr_series_point;

/*
 * Version of the JSON a sweep writes (docs/report-schema.md); raised when a
 * key changes meaning or goes away. `compare` refuses other versions.
 */
#define RPT_SWEEP_SCHEMA_VERSION 1
#define RPT_SWEEP_SCHEMA_NAME "feedrate.sweep"

/* Cache states, in the order a sweep measures and reports them. */
enum rpt_cache {
	RPT_CACHE_COLD = 0,
	RPT_CACHE_RAM,
	RPT_CACHE_WARM,
	RPT_CACHES
};

/* "cold", "ram", "warm". */
const char *rpt_cache_name(enum rpt_cache c);

/* Parse one of those names. Returns 0 or -EINVAL. */
int rpt_cache_parse(const char *s, enum rpt_cache *out);

enum rpt_point_status {
	RPT_POINT_MEASURED = 0,
	RPT_POINT_DROPPED,      /* the budget rule left no time for it */
	RPT_POINT_FAILED,       /* it ran and failed (why says how) */
};

/* Per-stage CPU and wall seconds of a point's measured window. */
struct rpt_stages {
	double decode_s, resize_s, other_s;
	double worker_cpu_s, reader_cpu_s, consumer_cpu_s, process_cpu_s;
	double worker_busy_s, worker_wait_s;
};

/* One measurement point: K vCPUs, one cache state, the raw feed rate. */
struct rpt_point {
	unsigned vcpus;
	enum rpt_cache cache;
	enum rpt_point_status status;
	const char *why;                /* dropped / failed: words; else "" */
	uint64_t ram_bytes;             /* ram: the page cache it models */
	uint64_t cgroup_bytes;          /* ram: the cgroup limit (page cache
	                                   + the run's own memory), 0 none */
	uint64_t cache_seen_bytes;      /* ram: page cache charged to the
	                                   cgroup after the run; 0 unknown */
	bool ram_not_limited;           /* ram: it held more than 1.25 x
	                                   ram_bytes, so the point ran warm:
	                                   its hit ratio is an estimate and
	                                   the verdict does not use it */
	double samples_per_s;           /* raw feed, no GPU consuming */
	double au;                      /* computed for the asked GPU count:
	                                   min(1, feed / (G x demand)); < 0
	                                   unknown */
	double hit_ratio;               /* < 0 unknown */
	bool hit_ratio_estimated;
	double fraction_resident;       /* verified before; < 0 unknown */
	const char *bottleneck;         /* "cpu", "storage", "unknown" */
	const char *bottleneck_why;
	double measured_s, warmup_s;
	uint64_t samples, errors, epochs_done;
	uint64_t batches;               /* batches in the window */
	uint64_t sample_files, sample_bytes;  /* the part of the dataset
	                                         read (ram: may be a sample) */
	double read_bytes_per_s, files_per_s;
	double cpu_outside_mask_s;      /* < 0 unknown */
	struct rpt_stages stages;
	const char *backend;
	const char *cache_how;          /* how the state was made, in words */
	const struct ldr_series_point *series;  /* 1 s series; may be NULL */
	unsigned series_len;
};

/* CPU seconds the whole measuring process spent per delivered sample
 * (0 when nothing was delivered). */
double rpt_point_cpu_s_per_sample(const struct rpt_point *p);

/* A measured point shorter than this (window, or batches) is too short. */
#define RPT_POINT_MIN_WINDOW_S 1.0
#define RPT_POINT_MIN_BATCHES 4

/*
 * Was measured point P too short to judge: a window under
 * RPT_POINT_MIN_WINDOW_S or fewer than RPT_POINT_MIN_BATCHES batches?
 * Its start-up then dominates its figures (CPU per sample above all).
 */
bool rpt_point_too_short(const struct rpt_point *p);

/*
 * May the verdict use P: measured, not too short, and (ram) its page
 * cache was limited?
 */
bool rpt_point_usable(const struct rpt_point *p);

/* Per-vCPU rate x CPU per sample above this: the figures contradict
 * each other (more CPU than the vCPUs had) and nothing is projected. */
#define RPT_CPU_PER_VCPU_MAX 1.05

/* A run with G emulated GPUs that checks the computed gpus_fed. */
struct rpt_confirm {
	bool run;                       /* it ran and measured something */
	unsigned gpus;
	double au;                      /* measured */
	const char *why;                /* not run: why */
};

/* One catalogued cloud shape (the command fills these from workloads/). */
struct rpt_shape {
	const char *name;               /* "p4d.24xlarge" */
	const char *cloud;              /* "AWS" */
	unsigned gpus;
	const char *gpu;                /* family: "A100" */
	const char *gpu_detail;         /* "A100 40GB" */
	unsigned vcpus;
	double ram_gib;
	bool recalled;                  /* some figure marked "mem" */
};

/* The verdict for one cache state. */
struct rpt_cache_verdict {
	bool measured;                  /* some point of it was measured and
	                                   usable (rpt_point_usable) */
	const char *not_judged;         /* points were measured but none is
	                                   usable: why, in words; else NULL */
	unsigned vcpus_top;             /* the largest measured vCPU count */
	bool top_is_all;                /* vcpus_top == the machine's */
	double samples_per_s;           /* at vcpus_top */
	double hit_ratio;               /* at vcpus_top; < 0 unknown */
	bool hit_ratio_estimated;
	unsigned gpus_fed_computed;     /* floor(feed / (T x demand)) */
	unsigned gpus_fed;              /* after the confirmation runs */
	int confirmation;               /* RPT_CONF_* */
	const char *limiting;           /* "gpu" (fed), "cpu", "storage",
	                                   "unknown" */
	double per_vcpu_rate;           /* samples/s per vCPU at vcpus_top */
	double scaling;                 /* feed(top) / (top x feed(1 vCPU));
	                                   < 0 when 1 vCPU was not measured */
	double cpu_s_per_sample;        /* at vcpus_top */
	double cpu_per_vcpu;            /* per_vcpu_rate x cpu_s_per_sample:
	                                   CPU-s per vCPU-s, <= 1 when sane */
	bool inconsistent;              /* cpu_per_vcpu > RPT_CPU_PER_VCPU_MAX:
	                                   no projection */
	double vcpus_per_gpu;           /* T x demand / per_vcpu_rate; < 0
	                                   unknown */
	unsigned vcpus_needed;          /* for the asked GPU count */
	bool projected;                 /* vcpus_needed > machine vCPUs, the
	                                   state is CPU-bound and its figures
	                                   are consistent */
	double projected_samples_per_s; /* at vcpus_needed, same CPU model */
};

enum {
	RPT_CONF_NONE = 0,      /* no confirmation run */
	RPT_CONF_CONFIRMED,     /* G fed, G+1 not */
	RPT_CONF_LOWERED,       /* G not fed: G-1 */
	RPT_CONF_RAISED,        /* G+1 fed too: G+1 */
};

/* One catalogued shape judged against the measured pipeline. */
struct rpt_shape_fit {
	const struct rpt_shape *shape;
	double vcpus_needed;            /* shape->gpus x vcpus_per_gpu */
	double vcpus_spare;             /* shape->vcpus - needed (< 0: lacks) */
	bool ram_holds_dataset;         /* dataset <= 80 % of its RAM */
};

#define RPT_SHAPES_MAX 32

struct rpt_sweep_verdict {
	struct rpt_cache_verdict cache[RPT_CACHES];
	/* storage, seen cold */
	bool storage_known;
	double storage_bytes_per_s, storage_files_per_s;
	bool storage_is_ceiling;        /* cold was storage-bound: this IS
	                                   the ceiling; else a lower bound */
	double storage_gpus;            /* files/s / (T x demand) */
	/* RAM */
	bool ram_holds_dataset;         /* dataset <= available RAM (and the
	                                   cgroup limit) */
	/* the catalog check, with the vCPUs per GPU of `catalog_cache` */
	int catalog_cache;              /* -1: no vCPUs-per-GPU figure */
	size_t nfits;
	struct rpt_shape_fit fits[RPT_SHAPES_MAX];
	char headline[400];
};

/* Everything the sweep report says. */
struct rpt_sweep {
	const char *version;            /* feedrate's */
	/* what was measured */
	const char *workload;
	const char *dataset;            /* raw bytes */
	bool generated;
	uint64_t files, bytes;
	const char *fs_type, *fs_device;
	bool fs_network;
	const char *pipeline;
	const char *backend;            /* as run by the last point */
	/* the machine */
	const char *cpu_model;
	unsigned vcpus_total;           /* usable CPUs */
	unsigned threads_per_core;
	uint64_t ram_total, ram_available;
	int64_t cgroup_limit;           /* -1 none */
	const char *instance_type, *vendor;   /* DMI, "" unknown */
	int gpus_present;               /* NVIDIA GPUs seen */
	/* the GPUs judged against */
	const char *gpu_type, *gpu_detail;
	unsigned gpu_count;             /* asked (default 1) */
	double demand_per_gpu;
	const char *demand_kind, *demand_source;
	bool demand_est;
	double au_threshold;
	/* the budget */
	double budget_s, elapsed_s, setup_s;
	const char *budget_rule;        /* the rule, in words */
	const char *notes;              /* "" none */
	/* points, in the order they were planned */
	const struct rpt_point *points;
	size_t npoints;
	/* confirmation runs at the top vCPU count: [cache][0] = G, [1] = G+1 */
	struct rpt_confirm confirm[RPT_CACHES][2];
	/* LRU estimates of the steady hit ratio (< 0 unknown) */
	uint64_t lru_ram_bytes;         /* the --ram page cache */
	double lru_ram_steady;
	double lru_half_steady;         /* with half of it */
	/* instance catalog (input) */
	const struct rpt_shape *shapes;
	size_t nshapes;
	/* filled by rpt_sweep_verdict() */
	struct rpt_sweep_verdict v;
};

/*
 * Draw the verdict from S's points and confirmation runs into S->v:
 * only usable points count (rpt_point_usable: not too short, a ram
 * point's page cache limited; a state with measured points but no usable
 * one is "not judged", with why); for each cache state, the feed at its
 * largest usable vCPU count,
 * gpus_fed = floor(feed / (T x demand)) then corrected by the
 * confirmation runs (G not fed: G-1; G+1 fed: G+1), the limiting
 * resource (gpu when the asked GPUs are fed, else the point's
 * bottleneck), vCPUs per GPU from the measured per-vCPU rate, and a
 * projection when the asked GPUs need more vCPUs than the machine has
 * and the figures are consistent (per-vCPU rate x CPU per sample <=
 * RPT_CPU_PER_VCPU_MAX);
 * the storage ceiling seen cold; the RAM check; the catalog check.
 * Pure arithmetic on S; any thread.
 */
void rpt_sweep_verdict(struct rpt_sweep *s);

/* The human report (verdict on top, 80-column tables) of S on F. */
void rpt_sweep_print(FILE *f, const struct rpt_sweep *s);

/*
 * The JSON report of S (schema RPT_SWEEP_SCHEMA_NAME, version
 * RPT_SWEEP_SCHEMA_VERSION, documented in docs/report-schema.md).
 * WITH_SERIES adds each point's 1 s series. NULL when out of memory.
 */
json_t *rpt_sweep_json(const struct rpt_sweep *s, bool with_series);

/*
 * The CSV report: a header line, then one row per point (dropped and
 * failed ones too, with their status). Returns a malloc'd string the
 * caller frees, or NULL when out of memory.
 */
char *rpt_sweep_csv(const struct rpt_sweep *s);

/*
 * The HTML report: one self-contained file (inline CSS and SVG, no
 * script, nothing fetched): the verdict, samples/s against vCPUs with one
 * line per cache state and the demand of 1, 2, ... GPUs, the storage
 * ceiling, each point's time series, the machine and storage facts.
 * Every outside string is escaped. Returns a malloc'd string or NULL.
 */
char *rpt_sweep_html(const struct rpt_sweep *s);

/* ---- compare (report_compare.c) ---- */

/* One candidate, read back from a sweep report's JSON. */
struct rpt_candidate {
	char *label;                    /* instance type, else the file name */
	char *file;
	char *cpu_model;
	unsigned vcpus;
	double ram_gib;
	char *storage;                  /* "ext4 on nvme0n1: Amazon EC2 ..." */
	char *gpu;                      /* "A100" */
	unsigned gpu_count;
	double demand_per_gpu;
	bool have[RPT_CACHES];
	double samples_per_s[RPT_CACHES];
	unsigned vcpus_at[RPT_CACHES];
	int gpus_fed[RPT_CACHES];       /* -1 unknown */
	double vcpus_per_gpu[RPT_CACHES]; /* < 0 unknown */
	char *limiting[RPT_CACHES];
	char *headline;
};

/*
 * Read a candidate from ROOT (a parsed sweep report); FILE names it.
 * Refuses a report that is not a sweep report or has another
 * schema_version: returns -EPROTO (wrong version) or -EINVAL (not a sweep
 * report) with one line for the user in WHY. 0 on success; free the
 * strings with rpt_candidate_free().
 */
int rpt_candidate_from_json(const json_t *root, const char *file,
			    struct rpt_candidate *out, char *why,
			    size_t why_len);
void rpt_candidate_free(struct rpt_candidate *c);

/* The side-by-side text table (80 columns, candidates in blocks). */
void rpt_compare_print(FILE *f, const struct rpt_candidate *c, size_t n);

/* The side-by-side HTML page (a table and a bar chart); malloc'd. */
char *rpt_compare_html(const struct rpt_candidate *c, size_t n);

/* ---- small shared helpers (report_html.c) ---- */

/* A growable string; every append fails soft (ok = false) on ENOMEM. */
struct rpt_buf {
	char *s;
	size_t len, cap;
	bool ok;
};

void rpt_buf_init(struct rpt_buf *b);
void rpt_buf_printf(struct rpt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append TEXT (UTF-8) with &, <, >, " and ' escaped. */
void rpt_buf_html(struct rpt_buf *b, const char *text);
/* Append raw BYTES of a path: rpt_path_text, then HTML-escaped. */
void rpt_buf_html_path(struct rpt_buf *b, const char *path);
/* The string (ownership passes to the caller), or NULL after ENOMEM. */
char *rpt_buf_take(struct rpt_buf *b);

#endif /* FEEDRATE_REPORT_SWEEP_H */
