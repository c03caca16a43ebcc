/*
 * report_sweep.h - the report of `feedrate sweep` (points over vCPU counts
 * and cache states, and the verdict drawn from them), its text, JSON, CSV
 * and HTML forms, and `feedrate compare` over saved sweep reports.
 *
 * reports/ reads result structs only: the command fills struct rpt_sweep
 * with plain numbers (and, optionally, the engine's 1-second series), then
 * rpt_sweep_verdict() draws the verdict from them (verdict.h holds the
 * arithmetic; this file only formats its result). Nothing here runs a
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

#include "report.h"     /* struct rpt_prepare */
#include "verdict.h"    /* points, check runs, shapes and the verdict */

struct rpt_ckpt_brief;  /* report_ckpt.h */

/*
 * Version of the JSON a sweep writes (docs/report-schema.md); raised when a
 * key changes meaning or goes away. `compare` refuses other versions.
 */
#define RPT_SWEEP_SCHEMA_VERSION 2
#define RPT_SWEEP_SCHEMA_NAME "feedrate.sweep"

/* Everything the sweep report says. */
struct rpt_sweep {
	struct rpt_setup setup;         /* workload, dataset, storage, machine,
	                                   GPUs (rpt_setup.h) */
	const char *backend;            /* as run by the last point */
	/* the training job's own share per GPU (verdict.h) */
	double reserve_vcpus_per_gpu;   /* < 0: RPT_RESERVE_VCPUS_PER_GPU */
	uint64_t reserve_ram_per_gpu;
	const char *reserve_ram_how;    /* how the RAM figure was made, in
	                                   words; "" given by the user */
	/* the budget */
	double budget_s, elapsed_s, setup_s;
	const char *budget_rule;        /* the rule, in words */
	struct rpt_prepare prepare;     /* preparation's phases, in all */
	const char *notes;              /* "" none */
	const struct stg_stall *stall;  /* the storage stalled; NULL not */
	/* points, in the order they were planned */
	const struct rpt_point *points;
	size_t npoints;
	/* check runs at each state's top point (rpt_verdict_top), in the
	 * order they ran: G, G + 1, then the counts the checks walked to */
	struct rpt_confirm confirm[STG_CACHE_STATES][RPT_CHECKS_MAX];
	/* LRU estimates of the steady hit ratio (< 0 unknown) */
	uint64_t lru_ram_bytes;         /* the --ram page cache */
	double lru_ram_steady;
	double lru_half_steady;         /* with half of it */
	/* a `feedrate ckpt` report of this VM (--ckpt); NULL none */
	const struct rpt_ckpt_brief *ckpt;
	double usd_per_hour;            /* --price; <= 0 none */
	/* instance catalog (input) */
	const struct rpt_shape *shapes;
	size_t nshapes;
	/* the pipeline these points are for, and (--pipeline native,torch)
	 * the other pipelines of the same sweep: their own points, check
	 * runs and verdicts on the same setup (report_pipeline.c) */
	const char *pipeline_name;      /* NULL: "native" */
	struct rpt_gpu_decode gd;       /* gpu-decode's modelled side */
	const struct ms_python_info *py; /* a Python pipeline's runner (its
	                                   versions); NULL for native */
	unsigned pipeline_workers;      /* --workers; 0: vCPUs - 1 per point */
	const struct rpt_sweep *const *others;
	size_t nothers;
	/* filled by rpt_sweep_verdict() */
	struct rpt_sweep_verdict v;
};

/* Batches each GPU's training process keeps pinned in host memory: the
 * one being copied and the next (the loader's default prefetch per GPU). */
#define RPT_PINNED_BATCHES 2u

struct wl_workload;
/*
 * S's reserve per GPU for the training job's own share: VCPUS (< 0: the
 * default) and RAM_GIVEN (NULL: not given, then RPT_PINNED_BATCHES
 * pinned batches of BATCH (0: the default) of W's output samples plus the
 * process's own, jdg_reserve_ram, said in HOW, HOW_LEN bytes, which S
 * then points to).
 */
void rpt_sweep_fill_reserve(struct rpt_sweep *s, const struct wl_workload *w,
			    unsigned batch, double vcpus,
			    const uint64_t *ram_given, char *how,
			    size_t how_len);

/*
 * Draw the verdict from S's points and check runs into S->v: fills a
 * struct rpt_verdict_in from S and calls rpt_verdict_draw() (verdict.h
 * says what it computes). Pure arithmetic on S; any thread.
 */
void rpt_sweep_verdict(struct rpt_sweep *s);

/* The human report (verdict on top, 80-column tables) of S on F. */
void rpt_sweep_print(FILE *f, const struct rpt_sweep *s);

/* ---- the catalogue's words, the same in the text and HTML reports
 * (report_sweep.c); each writes into BUF (LEN bytes, cut when short) and
 * returns BUF; S's verdict drawn (rpt_sweep_verdict); any thread ---- */

/* "fits", "maybe", "lacks", or "?" (no vCPUs-per-GPU figure). */
const char *rpt_fit_text(enum rpt_fit fit);

/*
 * Why S's catalogue was not judged (S->v.catalog_cache < 0): when every
 * judged cache state is storage-bound, that the feed here is storage-
 * bound, so more vCPUs do not help and the catalogue is not judged from
 * it; else that there is no vCPUs-per-GPU figure to judge it by.
 */
const char *rpt_catalog_unjudged_text(const struct rpt_sweep *s, char *buf,
				      size_t len);

/*
 * Where the catalogue's vCPUs per GPU come from: the row used, and the
 * caveat that a rate per vCPU measured on this CPU model (S->cpu_model)
 * holds for shapes of the same CPU generation only.
 */
const char *rpt_catalog_basis_text(const struct rpt_sweep *s, char *buf,
				   size_t len);

/*
 * The SMT yield the catalogue's conversions use and why: "1.20, measured
 * here ...", or the assumed range because this VM has no SMT siblings,
 * or because (SMT siblings present) the 1- and 2-vCPU points it needs
 * were not both measured: dropped by the budget, failed, not planned or
 * not usable.
 */
const char *rpt_smt_yield_text(const struct rpt_sweep *s, char *buf,
			       size_t len);

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
 * script, nothing fetched): the verdict; samples/s against vCPUs with one
 * line per cache state, its projection dashed to the vCPUs the asked GPUs
 * need (with its range), the demand of 1 .. the asked count of GPUs and
 * the storage ceiling, and the measured points in a zoomed panel where
 * the main one would squeeze them; each point's time series; the machine
 * and storage facts. Every outside string is escaped. Returns a malloc'd
 * string or NULL.
 */
char *rpt_sweep_html(const struct rpt_sweep *s);

/* ---- one verdict per pipeline (report_pipeline.c) ---- */

struct ms_python_info;

/* What one pipeline's verdict says, as `sweep` and `compare` show it. */
struct rpt_pipeline_verdict {
	const char *name;               /* "native", "torch", "python:FILE" */
	char label[160];                /* "torch (PyTorch 1.13.0a0
	                                   DataLoader, 1 worker)" */
	int cache;                      /* the state judged: warm, else ram,
	                                   else cold, the first every pipeline
	                                   of the sweep has; -1 none */
	unsigned vcpus;                 /* its top point */
	unsigned gpus_fed;
	double vcpus_per_gpu;           /* < 0 unknown */
	double vcpus_per_gpu_reserved;  /* with the training job's reserve
	                                   per GPU; < 0 unknown */
	double cpu_s_per_sample;        /* < 0 unknown */
	const char *headline;
	const char *limiting;           /* in the state judged: "gpu" (fed),
	                                   "cpu", "storage", "unknown" */
	const char *cold_limiting;      /* the same when cold was measured,
	                                   else NULL */
	const struct rpt_gpu_decode *gd; /* gpu-decode's modelled side, else
	                                   NULL */
};

/* Is V limited by storage, in the state judged or cold? */
bool rpt_pipeline_storage_bound(const struct rpt_pipeline_verdict *v);

/*
 * The verdict of S's own pipeline (I = 0) and of each of S->others
 * (I = 1..S->nothers) into OUT, judged in the cache state that all of
 * them measured (warm first, then ram, then cold). Run after
 * rpt_sweep_verdict() of each. Returns false when I is out of range.
 */
bool rpt_pipeline_verdict_get(const struct rpt_sweep *s, size_t i,
			      struct rpt_pipeline_verdict *out);

/*
 * The verdict per pipeline in one line into BUF (LEN bytes): "native
 * feeds 2 x A100; torch (PyTorch 1.13.0a0 DataLoader, 1 worker) feeds 0:
 * 2.9x the CPU per sample" (the CPU ratio against the first pipeline).
 * V holds N verdicts; GPU names the type. Returns BUF.
 */
const char *rpt_pipelines_line(const struct rpt_pipeline_verdict *v,
			       size_t n, const char *gpu, char *buf,
			       size_t len);

/* The per-pipeline lines of the text report of S (nothing when S has
 * one pipeline), then each other pipeline's points. */
void rpt_pipelines_print(FILE *f, const struct rpt_sweep *s);


struct rpt_buf;
/*
 * A sweep report's verdict.by_pipeline (ROOT: the report) in one line, as
 * rpt_pipelines_line makes it, into a malloc'd string; NULL when the
 * report has none (native alone) or out of memory.
 */
char *rpt_pipelines_line_json(const json_t *root);

/* An HTML section on B: samples/s against vCPUs, one line per pipeline
 * (the state judged), and the per-pipeline verdict. Nothing for one. */
/* verdict.by_pipeline's entry for pipeline I of S (its verdict V):
 * headline, label, cache, vcpus, gpus_fed, vcpus_per_gpu,
 * cpu_s_per_sample, the reserve and the limit, and gpu-decode's modelled
 * side. A new reference, NULL when out of memory. */
json_t *rpt_pipeline_by_json(const struct rpt_sweep *s, size_t i,
			     const struct rpt_pipeline_verdict *v);
void rpt_pipelines_html(struct rpt_buf *b, const struct rpt_sweep *s);

/* ---- compare (report_compare.c) ---- */

/* One candidate, read back from a sweep report's JSON. */
struct rpt_candidate {
	char *label;                    /* instance type, else the file name */
	char *file;
	char *cpu_model;
	unsigned vcpus;
	enum stg_vcpu_kind vcpu_kind;   /* what one is there: the verdict's
	                                   vcpu_kind, else the machine's
	                                   (threads_per_core in older
	                                   reports); unknown when none says */
	double ram_gib;
	char *storage;                  /* "ext4 on nvme0n1: Amazon EC2 ..." */
	char *gpu;                      /* "A100" */
	unsigned gpu_count;
	double demand_per_gpu;
	double au_threshold;            /* the report's, else the default */
	bool have[STG_CACHE_STATES];
	double samples_per_s[STG_CACHE_STATES];
	unsigned vcpus_at[STG_CACHE_STATES];
	int gpus_fed[STG_CACHE_STATES]; /* the verdict (rpt_verdict_gpus_fed
	                                   and rpt_verdict_confirm) on the
	                                   report's numbers; -1 unknown */
	int gpus_fed_stored[STG_CACHE_STATES]; /* what the report says; -1
	                                          absent */
	unsigned checks_ignored[STG_CACHE_STATES]; /* check runs the rule
	                                              did not use */
	double vcpus_per_gpu[STG_CACHE_STATES]; /* < 0 unknown */
	char *limiting[STG_CACHE_STATES];
	char *headline;
	char *pipelines;                /* verdict.by_pipeline in one line
	                                   (rpt_pipelines_line); NULL none */
};

/*
 * Read a candidate from ROOT (a parsed sweep report); FILE names it.
 * GPUs fed are drawn again by the verdict from the report's numbers
 * (samples_per_s, demand, threshold and check runs); where that differs
 * from the report's own gpus_fed, both are kept and the table says so.
 * Refuses a report that is not a sweep report or has another
 * schema_version: returns -EPROTO (wrong version) or -EINVAL (not a sweep
 * report) with one line for the user in WHY. 0 on success; free the
 * strings with rpt_candidate_free().
 */
int rpt_candidate_from_json(const json_t *root, const char *file,
			    struct rpt_candidate *out, char *why,
			    size_t why_len);
void rpt_candidate_free(struct rpt_candidate *c);

/*
 * Where candidate C's report and the verdict disagree for cache state K
 * (its gpus_fed differs from the one drawn from its numbers, or check
 * runs were not used): one line into BUF (LEN bytes) and true; false and
 * "" when there is nothing to say.
 */
bool rpt_candidate_note(const struct rpt_candidate *c,
			enum stg_cache_state k, char *buf, size_t len);

/* The side-by-side text table (80 columns, candidates in blocks), then
 * each verdict and any disagreement between a report and its numbers. */
void rpt_compare_print(FILE *f, const struct rpt_candidate *c, size_t n);

/* The side-by-side HTML page (a table and a bar chart); malloc'd. */
char *rpt_compare_html(const struct rpt_candidate *c, size_t n);
/* Its body alone (a heading, the table and the chart), into B. */
void rpt_compare_html_body(struct rpt_buf *b, const struct rpt_candidate *c,
			   size_t n);

#endif /* FEEDRATE_REPORT_SWEEP_H */
