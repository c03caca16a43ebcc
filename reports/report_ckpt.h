/*
 * report_ckpt.h - the report of `feedrate ckpt` (a sharded checkpoint
 * saved and restored on a folder's storage), what its times mean for a
 * training job, and the cost columns of `feedrate compare` and `feedrate
 * sweep` (USD per million samples and per epoch, the checkpoint time
 * beside them).
 *
 * The arithmetic here is pure (no I/O, any thread); the text, JSON and
 * HTML forms read the structs only. Strings are owned by the caller;
 * paths are raw bytes and are escaped where they are written.
 */
#ifndef FEEDRATE_REPORT_CKPT_H
#define FEEDRATE_REPORT_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "judge.h"
#include "rpt_setup.h"
#include "storage.h"

#define RPT_CKPT_SCHEMA_NAME "feedrate.ckpt"
#define RPT_CKPT_SCHEMA_VERSION 1
#define RPT_CKPT_DEFAULT_BUDGET JDG_CKPT_DEFAULT_BUDGET  /* --ckpt-budget */
/* A saved mixed-precision Adam checkpoint: bf16/fp16 weights (2), fp32
 * master weights (4) and two fp32 moments (8) = 14 bytes per parameter;
 * gradients are not saved. MLPerf Storage v2.0's checkpoint workload
 * sizes it so (dlio_benchmark/checkpointing/base_checkpointing.py;
 * Llama3-8B = 105 GB in its submission guidelines), and BLOOM-176B's
 * published checkpoint agrees (2.3 TB, of which 329 GB bf16 weights).
 * 16 is ZeRO's training *memory* (Rajbhandari et al. 2020, section 3.1:
 * the fp16 gradients too). */
#define RPT_CKPT_BYTES_PER_PARAM 14.0

/*
 * What BYTES_PER_PARAM bytes per parameter hold, in words, for the
 * report: 14 (the default), 16, 12, 4 and 2 have their meaning ("a
 * mixed-precision Adam checkpoint"), and *DETAIL (may be NULL) its parts
 * ("bf16/fp16 weights 2 + fp32 master 4 + two fp32 moments 8"); any other
 * value is "as given with --bytes-per-param", its *DETAIL "". Static
 * strings, never NULL. Pure.
 */
const char *rpt_ckpt_bpp_meaning(double bytes_per_param,
				 const char **detail);

/* ==== what a checkpoint's times mean for training (pure) ==== */

/*
 * Share of wall time spent saving when a blocking save of SAVE_S seconds
 * follows every INTERVAL_S seconds of training: SAVE_S / (INTERVAL_S +
 * SAVE_S). -1 when either is not > 0 (SAVE_S 0: 0).
 */
double rpt_ckpt_share(double save_s, double interval_s);

/*
 * The shortest training interval between saves that keeps that share at
 * or under BUDGET (0 < BUDGET < 1): SAVE_S x (1 - BUDGET) / BUDGET.
 * -1 when BUDGET is outside (0, 1) or SAVE_S < 0.
 */
double rpt_ckpt_min_interval(double save_s, double budget);

/*
 * Training time an interruption loses on average (spot reclaim), an
 * interruption being equally likely at any moment of the cycle of
 * INTERVAL_S training + SAVE_S saving: during training, the time since
 * the last save ended; during a save, the whole interval (that save never
 * completed). (I^2 / 2 + S x I) / (I + S). The restore comes on top.
 * -1 when INTERVAL_S is not > 0.
 */
double rpt_ckpt_lost(double save_s, double interval_s);

#define rpt_ckpt_training_in jdg_ckpt_in     /* judge.h */

#define rpt_ckpt_training jdg_ckpt           /* judge.h */

/* IN's figures into *OUT. Pure. */
void rpt_ckpt_training(const struct rpt_ckpt_training_in *in,
		       struct rpt_ckpt_training *out);

/* ==== the ckpt report ==== */

struct ms_ckpt_result;

struct rpt_ckpt {
	struct rpt_setup setup;         /* the folder (dataset: DIR, raw
	                                   bytes), its storage, the machine,
	                                   the GPUs (rpt_setup.h) */
	double params;                  /* <= 0: --size was given */
	double bytes_per_param;
	uint64_t bytes_asked;
	bool direct;
	const struct ms_ckpt_result *res;
	struct rpt_ckpt_training_in tin;
	struct rpt_ckpt_training t;     /* rpt_ckpt_training(&tin) */
	int signal;                     /* stopped by it, 0 none */
	const char *error;              /* "" none */
};

/* What `feedrate ckpt` was asked: the size and the training figures. */
struct rpt_ckpt_ask {
	double params;                  /* 0: --size */
	double bytes_per_param;
	uint64_t size;                  /* 0: --params */
	bool direct;
	double step_s, interval_s, budget, epoch_samples;
};

/*
 * R's request (A; BYTES the checkpoint's size), result RES (borrowed) and
 * what the times mean for training (jdg_ckpt_judge at R's GPUs' demand,
 * R->setup filled before). Pure.
 */
void rpt_ckpt_fill(struct rpt_ckpt *r, const struct rpt_ckpt_ask *a,
		   uint64_t bytes, const struct ms_ckpt_result *res);

/* The human report of R on F. */
void rpt_ckpt_print(FILE *f, const struct rpt_ckpt *r);

/*
 * The JSON report of R (schema RPT_CKPT_SCHEMA_NAME, version
 * RPT_CKPT_SCHEMA_VERSION; docs/report-schema.md): save and restore, each
 * with bytes, seconds and bytes_per_s. NULL when out of memory.
 */
json_t *rpt_ckpt_json(const struct rpt_ckpt *r);

/* A ckpt report read back, for compare. */
struct rpt_ckpt_brief {
	char instance_type[128];
	uint64_t bytes;
	unsigned shards;
	double save_s, restore_s;
	double save_bps, restore_bps;
};

/*
 * Read ROOT as a ckpt report into *OUT. Returns 0, or -EINVAL when it is
 * not one (another schema, another version, no save or restore).
 */
int rpt_ckpt_brief_from_json(const json_t *root, struct rpt_ckpt_brief *out);

/*
 * Read the ckpt report at PATH into *OUT (rpt_report_load, then
 * rpt_ckpt_brief_from_json). Returns 0; -errno when it cannot be read;
 * -EINVAL when it is not JSON or not a ckpt report. WHY (WHY_LEN bytes)
 * says why, without the path.
 */
int rpt_ckpt_brief_load(const char *path, struct rpt_ckpt_brief *out,
			char *why, size_t why_len);

/*
 * A "checkpoint" section for an HTML report, appended to B (the page
 * being built; report_sweep.h's struct rpt_buf): a heading and a table of
 * CK's size, shards, save and restore times and rates. For the sweep
 * page, which can show the ckpt report of the same VM.
 */
struct rpt_buf;
void rpt_ckpt_html(struct rpt_buf *b, const struct rpt_ckpt_brief *ck);

/* ==== cost (compare --price) ==== */

/*
 * USD per million samples at SAMPLES_PER_S on a machine of USD_PER_HOUR:
 * USD_PER_HOUR / 3600 / SAMPLES_PER_S x 1e6. -1 when a figure is not > 0
 * (a price of 0 gives 0).
 */
double rpt_cost_per_msample(double usd_per_hour, double samples_per_s);

/*
 * USD for one epoch of EPOCH_SAMPLES at SAMPLES_PER_S: USD_PER_HOUR x
 * EPOCH_SAMPLES / SAMPLES_PER_S / 3600. -1 when unknown.
 */
double rpt_cost_per_epoch(double usd_per_hour, double samples_per_s,
			  double epoch_samples);

struct rpt_candidate;

/* One candidate's cost, as compare shows it. */
struct rpt_cost {
	bool priced;                    /* --price named it */
	double usd_per_hour;
	bool have_rate;                 /* the report measured CACHE */
	enum stg_cache_state cache;     /* the state priced */
	double measured_per_s;          /* its samples/s there */
	double feed_per_s;              /* what training gets: the measured
	                                   rate, at most the asked GPUs'
	                                   demand (count x demand_per_gpu) */
	bool gpu_bound;                 /* the GPUs' demand set feed_per_s */
	bool feeds;                     /* GPUs fed there >= GPUs asked */
	double epoch_samples;           /* <= 0 unknown */
	double epoch_s;                 /* < 0 unknown */
	double usd_per_msample;         /* < 0 unknown */
	double usd_per_epoch;           /* < 0 unknown */
	bool have_ckpt;
	struct rpt_ckpt_brief ckpt;
	char ckpt_file[512];            /* the ckpt report used (printable) */
};

/*
 * Candidate C's cost at USD_PER_HOUR (< 0: not priced) in cache state
 * CACHE (< 0: the slowest state the report measured: the conservative
 * one), with EPOCH_SAMPLES samples per epoch (<= 0 unknown). The ckpt
 * fields are left for the caller. Pure.
 */
void rpt_cost_fill(const struct rpt_candidate *c, double usd_per_hour,
		   int cache, double epoch_samples, struct rpt_cost *out);

/*
 * The cheapest priced candidate (lowest USD per million samples) among
 * those that feed the GPUs they asked for, or -1 when none does. Pure.
 */
int rpt_cost_cheapest(const struct rpt_cost *costs, size_t n);

/* The cost rows and the cheapest candidate in words, on F. */
void rpt_cost_print(FILE *f, const struct rpt_candidate *c,
		    const struct rpt_cost *costs, size_t n);

/*
 * compare's page: rpt_compare_html() with a "cost and checkpoints"
 * section added before its end (COSTS may be NULL: the page as it was).
 * Returns a malloc'd string or NULL.
 */
char *rpt_compare_page(const struct rpt_candidate *c,
		       const struct rpt_cost *costs, size_t n);

/* ==== a sweep's checkpoint and cost (sweep --ckpt, --price) ==== */

struct rpt_sweep;

/* Cache state K of a sweep, priced. */
struct rpt_sweep_cost {
	bool judged;                    /* the verdict has a rate for K */
	double measured_per_s;          /* at the state's top point */
	double feed_per_s;              /* what training gets: measured, at
	                                   most the asked GPUs' demand */
	bool gpu_bound;                 /* the GPUs' demand set feed_per_s */
	double epoch_samples;           /* the dataset's files; <= 0 none */
	double epoch_s;                 /* < 0 unknown */
	double usd_per_msample;         /* < 0 unknown or not priced */
	double usd_per_epoch;           /* < 0 unknown or not priced */
};

/*
 * Cache state K of sweep S (its verdict drawn) priced at S->usd_per_hour
 * (<= 0: the USD figures are -1): the feed is the samples/s of the
 * state's top point (rpt_sweep_verdict), at most S->demand_total (else
 * gpu_count x demand_per_gpu); an epoch is S's dataset files, one sample
 * each. Pure; any thread.
 */
void rpt_sweep_cost_fill(const struct rpt_sweep *s, enum stg_cache_state k,
			 struct rpt_sweep_cost *out);

/*
 * The sweep's text section "checkpoint and cost" on F: a "checkpoint"
 * line (S->ckpt's size, save and restore seconds and rates) and, with a
 * price, a "cost" line and one row per judged cache state (feed, USD per
 * million samples, USD per epoch). Nothing when S has neither. 80 columns.
 */
void rpt_sweep_cost_print(FILE *f, const struct rpt_sweep *s);

/*
 * The sweep JSON's "checkpoint" (S->ckpt's figures; null without one) and
 * "cost" ({usd_per_hour, epoch_samples, per_cache[]}; null without a
 * price) keys, set on ROOT (docs/report-schema.md). Returns 0 or -ENOMEM
 * (ROOT may then lack them).
 */
int rpt_sweep_cost_json(json_t *root, const struct rpt_sweep *s);

/*
 * The sweep page's checkpoint section (rpt_ckpt_html) and cost table,
 * appended to B; nothing when S has neither.
 */
void rpt_sweep_cost_html(struct rpt_buf *b, const struct rpt_sweep *s);

/*
 * A ckpt report beside candidate I's sweep report (FILES[I] of N) into
 * X's ckpt fields: the only one in that folder when no other candidate's
 * report shares the folder, else the only one whose instance type is the
 * candidate's LABEL. Nothing found is no error (X left as it was).
 * (report_ckpt_find.c)
 */
void rpt_cost_find_ckpt(const char *const *files, size_t n, size_t i,
			const char *label, struct rpt_cost *x);

/* What compare was asked (cli/cmd_compare.c): --html, --price NAME=USD
 * (NPRICES of them), --cost-cache, --epoch-samples. */
struct rpt_compare_opts {
	const char *html;               /* the page's path; NULL none */
	const char *const *price_name;  /* "NAME=USD" as given */
	const double *price_usd;
	unsigned nprices;
	int cache;                      /* -1: each report's slowest */
	double epoch_samples;           /* <= 0: each report's files */
};

/*
 * compare on the sweep reports FILES (N of them): each loaded and judged
 * again, priced, put side by side on stdout and, with O->html, on a page
 * written atomically. Returns the exit status (printed when not 0): 2 a
 * report of the wrong kind or version, or a --price naming no candidate;
 * 5 a report that cannot be read, no memory or an unwritable page.
 * (report_compare_run.c)
 */
int rpt_compare_run(const struct rpt_compare_opts *o,
		    const char *const *files, size_t n);

#endif /* FEEDRATE_REPORT_CKPT_H */
