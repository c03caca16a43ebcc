/*
 * verdict.h - the verdict put together: which measured point a cache
 * state is judged by, and, from judge/'s rules (judge.h: GPUs fed, the
 * check-run walk, the projection, the storage ceiling, the RAM check, the
 * catalogue fit), the verdict's figures and its words (the headline, why a
 * state is not judged, which check runs were ignored). The rpt_verdict_*,
 * rpt_lru_* and rpt_reserve_* functions that only forward to judge/ keep
 * the names their callers and tests use.
 *
 * No FILE *, no JSON, no I/O, no global state; every function may be
 * called from any thread. `feedrate run`
 * (report_run.c), `feedrate sweep` (report_sweep.c, report_csv.c,
 * report_html.c), `feedrate compare` (report_compare.c) and the sweep's
 * check runs (measure/, cli/) all take their numbers from here, so that
 * the check runs and the verdict can never choose different points or
 * different GPU counts.
 */
#ifndef FEEDRATE_VERDICT_H
#define FEEDRATE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge.h"      /* the rules; this header words them */
#include "storage.h"    /* enum stg_cache_state */

struct ldr_series_point;

/* ==== GPUs fed ==== */

/* The most GPUs rpt_verdict_gpus_fed() ever reports. */
#define RPT_VERDICT_GPUS_MAX JDG_GPUS_MAX

/*
 * How many GPUs that each eat DEMAND_PER_GPU samples/s at full speed a
 * feed of SAMPLES_PER_S keeps at AU >= AU_THRESHOLD: a GPU at AU a eats
 * a x demand samples/s, so G GPUs stay at >= T while G x T x demand <=
 * samples/s, i.e. G = floor(samples/s / (T x demand)), with a hair of
 * slack (1e-9 GPU) so that exactly T x demand counts as fed. 0 when
 * DEMAND_PER_GPU or AU_THRESHOLD is <= 0 (or not a number); at most
 * RPT_VERDICT_GPUS_MAX.
 */
unsigned rpt_verdict_gpus_fed(double samples_per_s, double demand_per_gpu,
			      double au_threshold);

/*
 * The AU threshold a verdict uses: AU_THRESHOLD when it is > 0, else
 * LDR_DEFAULT_AU_THRESHOLD.
 */
double rpt_verdict_threshold(double au_threshold);

/*
 * Did GPUs measured at AU AU meet AU_THRESHOLD (a hair of slack, 1e-12,
 * so that a measured AU equal to the threshold counts)?
 */
bool rpt_verdict_au_fed(double au, double au_threshold);

/* ==== one run (`feedrate run`) ==== */

/* Fewest batches a run's verdict rests on: this many per GPU, and never
 * fewer than RPT_RUN_MIN_BATCHES. */
#define RPT_RUN_MIN_BATCHES_PER_GPU JDG_RUN_MIN_BATCHES_PER_GPU
#define RPT_RUN_MIN_BATCHES JDG_RUN_MIN_BATCHES

/* The numbers of one run the verdict reads (judge.h). */
#define rpt_run_numbers jdg_run_in

/* What the verdict says of one run. */
struct rpt_run_judgement {
	double au_threshold;            /* the one used */
	bool too_short;                 /* measured, but too little to judge */
	char why[256];                  /* too_short: why, in words; else "" */
	unsigned gpus_fed;              /* rpt_verdict_gpus_fed(); 0 when not
	                                   measured or too short */
	bool asked_fed;                 /* gpu_count > 0, a batch measured,
	                                   and their measured AU met the
	                                   threshold (also when too short:
	                                   the report says which it trusts) */
};

/*
 * Judge the run IN into OUT: too short when the window ended inside the
 * warm-up, or fewer than RPT_RUN_MIN_BATCHES_PER_GPU batches per emulated
 * GPU (at least RPT_RUN_MIN_BATCHES) were measured; else the GPUs fed.
 * A run with no batch at all is not "too short" (there is nothing to
 * judge): OUT then says 0 GPUs, not too short.
 */
void rpt_verdict_run(const struct rpt_run_numbers *in,
		     struct rpt_run_judgement *out);

/* ==== the points of a sweep ==== */

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
	unsigned feed_vcpus;            /* the vCPUs the feed is counted on:
	                                   a Python pipeline's DataLoader
	                                   workers where fewer than vcpus (its
	                                   main process, which receives the
	                                   batches, stands for the training
	                                   job, whose vCPUs are the reserve);
	                                   0: vcpus */
	enum stg_cache_state cache;
	enum rpt_point_status status;
	const char *why;                /* dropped / failed: words; else "" */
	uint64_t ram_bytes;             /* ram: the page cache it models */
	bool ram_axis;                  /* ram: another size of the RAM axis
	                                   at all vCPUs, not the ram state's
	                                   size at every count */
	uint64_t cgroup_bytes;          /* ram: the cgroup limit (page cache
	                                   + the run's own memory), 0 none */
	uint64_t cache_seen_bytes;      /* ram: page cache charged to the
	                                   cgroup after the run; 0 unknown */
	bool ram_not_limited;           /* ram: it held more than
	                                   LDR_RAM_SLACK x ram_bytes, so the
	                                   point ran warm: its hit ratio is an
	                                   estimate and the verdict does not
	                                   use it */
	double samples_per_s;           /* raw feed, no GPU consuming */
	double au;                      /* computed for the asked GPU count:
	                                   min(1, feed / (G x demand)); < 0
	                                   unknown */
	double hit_ratio;               /* < 0 unknown */
	bool hit_ratio_estimated;
	bool odirect_refused;           /* cold: O_DIRECT was refused here, so
	                                   reads went through the page cache
	                                   (its hit ratio says whether the
	                                   point stayed cold) */
	double fraction_resident;       /* verified before; < 0 unknown */
	const char *bottleneck;         /* "cpu", "storage", "unknown" */
	const char *bottleneck_why;
	double measured_s, warmup_s;
	uint64_t samples, errors, epochs_done;
	uint64_t batches;               /* batches in the window */
	uint64_t sample_files, sample_bytes;  /* the part of the dataset
	                                         read (ram: may be a sample) */
	double read_bytes_per_s, files_per_s;
	double decompressed_bytes_per_s; /* zstd / DEFLATE output; 0 none */
	unsigned reads_in_flight_max;   /* the reader's depth (reads it
	                                   keeps in flight); 0 unknown */
	double read_latency_s;          /* mean latency of one read; < 0
	                                   unknown */
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
#define RPT_POINT_MIN_WINDOW_S JDG_POINT_MIN_WINDOW_S
#define RPT_POINT_MIN_BATCHES JDG_POINT_MIN_BATCHES

/*
 * Was measured point P too short to judge: a window under
 * RPT_POINT_MIN_WINDOW_S or fewer than RPT_POINT_MIN_BATCHES batches?
 * Its start-up then dominates its figures (CPU per sample above all).
 */
bool rpt_point_too_short(const struct rpt_point *p);

/*
 * Did P, a ram point of a dataset of FILES files, read only an evenly
 * spread sample of them with its page cache scaled by the same factor
 * (its epochs did not fit its share of the budget)? False when either
 * count is unknown (0).
 */
bool rpt_point_sampled(const struct rpt_point *p, uint64_t files);

/* The vCPUs P's feed is counted on: its feed_vcpus where set and fewer
 * than its vcpus, else its vcpus. */
unsigned rpt_point_feed_vcpus(const struct rpt_point *p);

/* A cold point whose measured hit ratio is above this was not cold. */
#define RPT_COLD_HIT_MAX JDG_COLD_HIT_MAX

/*
 * May the verdict use P: measured, not too short, (ram) its page cache
 * was limited, and (cold) its measured hit ratio is at most
 * RPT_COLD_HIT_MAX?
 */
bool rpt_point_usable(const struct rpt_point *p);

/*
 * Index in PTS[0..N) of the point the verdict takes for cache state C:
 * measured and usable (rpt_point_usable), with the largest vCPU count
 * (the first such point when several have it). -1 when there is none.
 * The sweep's check runs call this to choose where they run, and the
 * verdict uses exactly this choice.
 */
int rpt_verdict_top(const struct rpt_point *pts, size_t n,
		    enum stg_cache_state c);

/* ==== check runs with emulated GPUs ==== */

/* Most check runs of one cache state: G, G + 1, then the counts below
 * G (when G was not fed) or above G + 1 (when G + 1 was fed). */
#define RPT_CHECKS_MAX JDG_CHECKS_MAX

/* A run with some emulated GPUs that checks the computed gpus_fed. */
struct rpt_confirm {
	bool run;                       /* it ran and measured something */
	unsigned gpus;
	double au;                      /* measured */
	const char *why;                /* not run: why */
	unsigned vcpus;                 /* where it ran; 0 unknown */
};

enum {
	RPT_CONF_NONE = JDG_CONF_NONE,
	RPT_CONF_CONFIRMED = JDG_CONF_CONFIRMED,
	RPT_CONF_LOWERED = JDG_CONF_LOWERED,
	RPT_CONF_RAISED = JDG_CONF_RAISED,
};

/* What the check runs of one cache state made of the computed count. */
struct rpt_check {
	unsigned gpus_fed;              /* after the checks */
	int confirmation;               /* RPT_CONF_* */
	int used_g, used_g1;            /* index of the run with G / G+1
	                                   GPUs that was used; -1 none */
	uint32_t used_mask;             /* bit i: run i (of the first 32)
	                                   was used by the rule */
	bool lowered_untested;          /* lowered to a count no run
	                                   tested (gpus_fed is then one
	                                   below the lowest count that failed) */
	unsigned ignored;               /* runs that ran but were not used:
	                                   another GPU count than G and G+1,
	                                   another vCPU count than the top
	                                   point's, or a second run of one */
	char note[200];                 /* ignored > 0: which and why, in
	                                   words; else "" */
};

/*
 * Apply the check rule to the COMPUTED count G (rpt_verdict_gpus_fed at
 * the top point of VCPUS_TOP vCPUs) with the N check runs RUNS (any
 * order; those with run == false are skipped; the first RPT_CHECKS_MAX x
 * 2 are read): the run with G GPUs (none when G = 0) below AU_THRESHOLD
 * lowers the count, walking down G - 1, G - 2, ... while those runs were
 * not fed, to the first count fed or untested (lowered_untested) or 0;
 * else the run with G + 1 at or above it raises it, walking up while
 * G + 2, G + 3, ... were fed too; else, with the G + 1 run (and the G run
 * when G >= 1) present, G is confirmed; else G stands (none). A run the
 * rule did not consult (another GPU count, a second run of one count, or
 * a run whose vCPU count is known and differs from VCPUS_TOP when that
 * is known, > 0) does not judge this G: it is ignored, counted in
 * OUT->ignored, and named in OUT->note; OUT->used_mask marks the others.
 */
void rpt_verdict_confirm(unsigned computed, const struct rpt_confirm *runs,
			 size_t n, unsigned vcpus_top, double au_threshold,
			 struct rpt_check *out);

/* ==== the RAM axis: page-cache size against hit ratio and feed ==== */

/*
 * The model: the steady byte hit ratio of an LRU page cache that holds
 * FRACTION of a dataset of equal files read in a fresh shuffled order
 * every epoch, f + (1 - f) ln(1 - f) (derived in tests/test_lru_sim.c;
 * loader/lru_sim.c simulates the same cache over a run's own order): 0
 * at or below 0, 1 at or above 1 (all of it cached), 0.1605 at 0.51.
 */
double rpt_lru_hit_model(double fraction);

/*
 * The model's inverse: the least cached fraction whose model hit ratio
 * reaches HIT (bisection, to 1e-9): 0 for HIT <= 0, 1 for HIT >= 1.
 */
double rpt_lru_fraction_for_hit(double hit);

/* A measured hit ratio further than this (absolute) from the model at
 * the point's cached fraction disagrees with it: below it, the kernel's
 * reclaim is not LRU-like here or the filesystem drops its page cache at
 * open (FUSE without kernel_cache); above it, the kernel kept pages read
 * twice (its active list) better than an LRU does. On the first re-read
 * epoch the kernel and the LRU simulation agreed within 0.002
 * (tests/test_ram_slow.c); over a sweep's two measured epochs after the
 * fill, this project's 2-vCPU test VM (6.x kernel, ext4) hit 3, 7 and
 * 12 points above the model at 31, 57 and 85 % cached. */
#define RPT_RAM_MODEL_TOL JDG_RAM_MODEL_TOL

/* A needed cached fraction above this counts as "the whole dataset":
 * the model runs steep there (its slope, -ln(1 - f), is 3 at 0.95, so
 * 1 % less page cache than planned loses 3 points of hit ratio), and a
 * page cache that must hold nearly all of the dataset is a warm one. */
#define RPT_RAM_FRACTION_MAX JDG_RAM_FRACTION_MAX

/* The page cache the asked GPUs need, from plain numbers (judge.h). */
#define rpt_ram_need_in jdg_ram_need_in

#define rpt_ram_need jdg_ram_need

/*
 * The page cache that keeps the misses, (1 - hit) x demand, within the
 * storage's cold ceiling in files/s and in bytes/s: the hit ratio needed
 * is 1 - storage samples/s / demand, and the model's inverse turns it
 * into a cached fraction of the dataset; then the RAM that page cache
 * takes with the training job's reserve and the pipeline's own memory,
 * and (RAM_LIMIT > 0) what this VM's page cache gives. Pure arithmetic.
 */
void rpt_verdict_ram_need(const struct rpt_ram_need_in *in,
			  struct rpt_ram_need *out);

/* Most rows of the RAM curve: measured points and the model's. */
#define RPT_RAM_CURVE_MAX 32

/* One row of the RAM curve (page cache against hit ratio and feed). */
struct rpt_ram_row {
	uint64_t page_cache_bytes;      /* the page cache, as a share of the
	                                   whole dataset (a point that read a
	                                   sample: scaled alike) */
	double fraction;                /* of the dataset */
	double hit_ratio;               /* measured, or the model's */
	const char *source;             /* "measured", "estimated" (an LRU
	                                   estimate: no cgroup) or "model" */
	const char *cache;              /* the point's cache state name;
	                                   NULL for a model row */
	double model_hit;               /* the model at `fraction` */
	double samples_per_s;           /* measured, or the model's: the
	                                   lower of the CPU's rate (warm) and
	                                   the storage's through the misses;
	                                   < 0 unknown */
	int point;                      /* index into the points; -1 model */
	bool disagrees;                 /* a measured ram row further than
	                                   RPT_RAM_MODEL_TOL from the model */
};

/* ==== the sweep's verdict ==== */

/* Per-vCPU rate x CPU per sample above this: the figures contradict
 * each other (more CPU than the vCPUs had) and nothing is projected. */
#define RPT_CPU_PER_VCPU_MAX JDG_CPU_PER_VCPU_MAX

/* The one RAM rule, for this VM and for catalogued shapes alike: the
 * dataset plus the training job's reserve must fit in this share of the
 * RAM (this VM: of its RAM or memory cgroup limit, whichever is lower). */
#define RPT_RAM_SHARE JDG_RAM_SHARE

/* The SMT yield assumed, its clamp, and the hidden-SMT rule (judge.h). */
#define RPT_SMT_YIELD_LO JDG_SMT_YIELD_LO
#define RPT_SMT_YIELD_HI JDG_SMT_YIELD_HI
#define RPT_SMT_YIELD_MAX JDG_SMT_YIELD_MAX
#define RPT_HIDDEN_SMT_SCALING JDG_HIDDEN_SMT_SCALING
#define RPT_HIDDEN_SMT_CPU JDG_HIDDEN_SMT_CPU

/*
 * The default --reserve-ram-per-gpu: the pinned host copies of PREFETCH
 * batches of BATCH samples of SAMPLE_BYTES each, plus
 * RPT_RESERVE_PROCESS_BYTES for the training process itself.
 */
uint64_t rpt_reserve_ram_default(unsigned batch, unsigned prefetch,
				 uint64_t sample_bytes);

/*
 * The gpu-decode pipeline's modelled side: the GPU's JPEG decoder as
 * workloads/' decoder rows state it (report_pipeline.c).
 */
struct rpt_gpu_decode {
	const char *path;               /* "hw", "hybrid"; NULL: the
	                                   pipeline is not gpu-decode */
	const char *gpu;                /* the GPU type judged against */
	bool known;                     /* the GPU has a decoder row */
	bool hw;                        /* ... with a hardware decoder */
	double img_per_s;               /* its decode capacity per GPU; 0
	                                   not stated */
	double range_lo, range_hi;
	const char *kind, *source;      /* NULL when not known */
};

/* Default vCPUs reserved for each GPU's training process. */
#define RPT_RESERVE_VCPUS_PER_GPU 1.0

/* Host memory each GPU's training process is allowed besides its pinned
 * batches (the default of --reserve-ram-per-gpu adds the two). */
#define RPT_RESERVE_PROCESS_BYTES JDG_RESERVE_PROCESS_BYTES

/* One catalogued cloud shape (the command fills these from workloads/). */
struct rpt_shape {
	const char *name;               /* "p4d.24xlarge" */
	const char *cloud;              /* "AWS" */
	unsigned gpus;
	const char *gpu;                /* family: "A100" */
	const char *gpu_detail;         /* "A100 40GB" */
	unsigned vcpus;
	enum stg_vcpu_kind vcpu_kind;   /* what one of its vCPUs is */
	const char *vcpu_kind_source;
	double ram_gib;
	bool recalled;                  /* some figure marked "mem" */
	const char *demand_row;         /* its own GPU model's demand row
	                                   ("A100-40GB"); NULL none */
	double demand_total;            /* samples/s its GPUs eat together
	                                   (that row, its GPU count); <= 0
	                                   unknown: the asked row's per-GPU
	                                   demand x gpus is used */
	const char *demand_basis;       /* "measured", "derived", "estimate" */
	const char *demand_source;      /* where that row's figure comes
	                                   from; NULL unknown */
	bool demand_multi_measured;     /* demand_total is the source's own
	                                   multi-GPU figure */
};

/* The verdict for one cache state. */
struct rpt_cache_verdict {
	bool measured;                  /* some point of it was measured and
	                                   usable (rpt_point_usable) */
	const char *not_judged;         /* points were measured but none is
	                                   usable: why, in words; else NULL */
	int top;                        /* rpt_verdict_top(); -1 none */
	unsigned vcpus_top;             /* the largest usable vCPU count */
	unsigned feed_vcpus;            /* of them, the vCPUs the feed is
	                                   counted on (rpt_point's) */
	bool top_is_all;                /* vcpus_top == the machine's */
	double samples_per_s;           /* at vcpus_top */
	double hit_ratio;               /* at vcpus_top; < 0 unknown */
	bool hit_ratio_estimated;
	unsigned gpus_fed_computed;     /* floor(feed / (T x demand)) */
	unsigned gpus_fed;              /* after the confirmation runs */
	unsigned gpus_fed_reserved;     /* of those, how many stay fed when
	                                   the training job takes its reserve
	                                   of vCPUs from the pipeline (at the
	                                   per-vCPU rate of the top point;
	                                   CPU-bound points only: a storage-
	                                   bound feed does not lose it) */
	int confirmation;               /* RPT_CONF_* */
	struct rpt_check check;         /* how the check runs were used */
	const char *limiting;           /* "gpu" (fed), "cpu", "storage",
	                                   "unknown" */
	double per_vcpu_rate;           /* samples/s per vCPU at vcpus_top
	                                   (per feed vCPU: rpt_point's
	                                   feed_vcpus) */
	double scaling;                 /* feed(top) / (feed_vcpus x
	                                   feed(1 vCPU));
	                                   < 0 when 1 vCPU was not measured */
	double cpu_s_per_sample;        /* at vcpus_top */
	double cpu_per_vcpu;            /* per_vcpu_rate x cpu_s_per_sample:
	                                   CPU-s per vCPU-s, <= 1 when sane */
	bool inconsistent;              /* cpu_per_vcpu > RPT_CPU_PER_VCPU_MAX:
	                                   no projection */
	bool storage_bound;             /* limited by storage: more vCPUs do
	                                   not help, vcpus_per_gpu is -1 */
	double vcpus_per_gpu;           /* T x demand / per_vcpu_rate, in this
	                                   VM's vCPUs; < 0 unknown or
	                                   storage-bound */
	/* the same in each kind of vCPU, as ranges where the SMT yield is
	 * assumed (lo == hi where it is not); < 0 unknown */
	double thread_per_gpu_lo, thread_per_gpu_hi;
	double core_per_gpu_lo, core_per_gpu_hi;
	unsigned vcpus_needed;          /* for the asked GPU count, this VM's
	                                   vCPUs, reserve not included */
	unsigned vcpus_reserved;        /* the training job's: reserve x
	                                   asked GPUs */
	int vcpus_spare;                /* this VM's vCPUs - needed -
	                                   reserved (< 0: lacks); 0 when
	                                   vcpus_per_gpu is unknown */
	bool projected;                 /* vcpus_needed > machine vCPUs, the
	                                   state is CPU-bound and its figures
	                                   are consistent */
	double projected_samples_per_s; /* at vcpus_needed, same CPU model,
	                                   linear at the top point's per-vCPU
	                                   rate (the optimistic end) */
	double projected_lo;            /* the pessimistic end: the vCPUs
	                                   past the top point scale as the
	                                   measured 1-to-top scaling (= the
	                                   linear figure when unknown) */
	bool top_dropped;               /* the point at all of this VM's
	                                   vCPUs was planned but could not be
	                                   measured within the budget: no
	                                   verdict from fewer vCPUs */
};

enum rpt_fit {
	RPT_FIT_UNKNOWN = JDG_FIT_UNKNOWN, /* no vCPUs-per-GPU figure */
	RPT_FIT_YES = JDG_FIT_YES,      /* spare_lo >= 0 */
	RPT_FIT_MAYBE = JDG_FIT_MAYBE,  /* spare_hi >= 0 > spare_lo: depends
	                                   on the assumed SMT yield */
	RPT_FIT_NO = JDG_FIT_NO,        /* spare_hi < 0 */
};

/* Does a shape's RAM reach the page cache its GPUs need here? */
enum rpt_ram_fit {
	RPT_RAM_FIT_UNKNOWN = JDG_RAM_FIT_UNKNOWN,
	RPT_RAM_FIT_ENOUGH = JDG_RAM_FIT_ENOUGH,
	RPT_RAM_FIT_SHORT = JDG_RAM_FIT_SHORT,
	RPT_RAM_FIT_NONE = JDG_RAM_FIT_NONE,    /* judge.h says when */
};

/* One catalogued shape judged against the measured pipeline. */
struct rpt_shape_fit {
	const struct rpt_shape *shape;
	double demand_total;            /* what its GPUs eat together */
	double vcpus_needed;            /* its vCPUs the pipeline needs: the
	                                   high end of the range */
	double vcpus_needed_lo;         /* the low end (== vcpus_needed when
	                                   no assumption is involved) */
	double vcpus_reserved;          /* reserve x its GPUs */
	double vcpus_spare;             /* vcpus - needed - reserved: the
	                                   worst case (< 0: lacks) */
	double vcpus_spare_hi;          /* the best case */
	enum rpt_fit fits;
	uint64_t ram_reserved;          /* reserve RAM x its GPUs */
	bool ram_holds_dataset;         /* dataset + ram_reserved <=
	                                   RPT_RAM_SHARE of its RAM */
	/* the RAM axis: its GPUs (demand_total) on the storage measured
	 * here (rpt_verdict_ram_need) */
	enum rpt_ram_fit ram_fit;
	uint64_t ram_needed_bytes;      /* page cache + its reserve + the
	                                   pipeline's own; 0 unknown or when
	                                   no size below the whole dataset
	                                   suffices */
	uint64_t page_cache_bytes;      /* what its RAM leaves for the page
	                                   cache: RPT_RAM_SHARE x RAM less
	                                   the reserve and the pipeline */
};

#define RPT_SHAPES_MAX 32

struct rpt_sweep_verdict {
	double au_threshold;            /* T, the one used */
	double need_per_gpu;            /* T x demand: samples/s one GPU
	                                   needs to stay at T */
	struct rpt_cache_verdict cache[STG_CACHE_STATES];
	/* storage, seen cold */
	bool storage_known;
	double storage_bytes_per_s, storage_files_per_s;
	bool storage_is_ceiling;        /* cold was storage-bound: this IS
	                                   the ceiling; else a lower bound */
	double storage_gpus;            /* samples/s the cold storage serves /
	                                   (T x demand): files/s, times the
	                                   records per file of shards
	                                   (jdg_storage_gpus) */
	bool storage_feeds_asked;       /* storage_gpus reach the asked
	                                   count (jdg_storage_feeds) */
	char storage_advice[640];       /* storage-bound: what helps on this
	                                   storage, as measured; else "" */
	/* RAM: the one rule (RPT_RAM_SHARE) */
	uint64_t ram_limit;             /* this VM's RAM, or its cgroup limit
	                                   when lower */
	uint64_t ram_reserved;          /* reserve RAM x asked GPUs */
	bool ram_holds_dataset;         /* dataset + ram_reserved <=
	                                   RPT_RAM_SHARE x ram_limit */
	/* the RAM axis: the page cache the asked GPUs need on the storage
	 * measured here, the curve, and the model held against the
	 * measured ram points */
	uint64_t own_bytes;             /* the pipeline's own memory, the
	                                   most any ram point measured; 0
	                                   unknown */
	struct rpt_ram_need ram_need;
	struct rpt_ram_row ram_curve[RPT_RAM_CURVE_MAX];
	size_t nram_curve;              /* sorted by page cache */
	unsigned ram_model_checked;     /* measured ram rows held against
	                                   the model */
	unsigned ram_model_disagree;    /* of those, off by more than
	                                   RPT_RAM_MODEL_TOL */
	double ram_cpu_samples_per_s;   /* the CPU's rate the model rows use
	                                   (warm, all vCPUs); < 0 unknown */
	char ram_text[560];             /* the RAM verdict in words */
	char ram_model_text[400];       /* model against measurement */
	/* vCPU units */
	enum stg_vcpu_kind vcpu_kind;   /* what one vCPU is here, as used */
	const char *vcpu_kind_basis;    /* "topology" or "measured scaling" */
	double smt_yield;               /* measured here (two sibling threads
	                                   / one); < 0 not measured */
	double smt_yield_lo, smt_yield_hi;  /* the yield the conversions use:
	                                       measured (lo == hi) or the
	                                       assumed RPT_SMT_YIELD_* */
	double reserve_vcpus_per_gpu;
	uint64_t reserve_ram_per_gpu;
	/* the catalog check, with the vCPUs per GPU of `catalog_cache` */
	int catalog_cache;              /* -1: no vCPUs-per-GPU figure */
	size_t nfits;
	struct rpt_shape_fit fits[RPT_SHAPES_MAX];
	char headline[400];
};

/* Everything the sweep's verdict reads; owned by the caller. */
struct rpt_verdict_in {
	const struct rpt_point *points;
	size_t npoints;
	/* check runs at each state's top point: [cache][0] = G, [1] = G+1
	 * as the sweep ran them (rpt_verdict_confirm accepts any order) */
	const struct rpt_confirm (*confirm)[RPT_CHECKS_MAX];
	                                /* [STG_CACHE_STATES]; NULL: none */
	unsigned vcpus_total;           /* the machine's usable vCPUs */
	enum stg_vcpu_kind vcpu_kind;   /* what the topology says one is */
	const char *gpu_type;           /* "A100" (the catalog takes the
	                                   part before '-') */
	unsigned gpu_count;             /* asked */
	double demand_per_gpu;          /* per GPU at the asked count: the
	                                   source's multi-GPU total / count
	                                   where it has one */
	const char *demand_basis;       /* "measured", "derived", "estimate",
	                                   "gpu-rate"; NULL unknown */
	const char *demand_kind;        /* the rows judged: "train",
	                                   "mlperf", "ceiling", "gpu-rate";
	                                   NULL unknown */
	bool demand_multi_measured;     /* demand_per_gpu is the source's
	                                   measured multi-GPU figure / count */
	double au_threshold;            /* <= 0: the default */
	uint64_t dataset_bytes;
	uint64_t ram_total;             /* MemTotal */
	uint64_t ram_available;
	int64_t cgroup_limit;           /* -1 none */
	double reserve_vcpus_per_gpu;   /* < 0: RPT_RESERVE_VCPUS_PER_GPU */
	uint64_t reserve_ram_per_gpu;
	const struct rpt_shape *shapes;
	size_t nshapes;
};

/*
 * Draw the sweep's verdict from IN into V: only usable points count (a
 * state with measured points but no usable one is "not judged", with
 * why); for each cache state, the feed at its top point (rpt_verdict_top),
 * gpus_fed = rpt_verdict_gpus_fed() there, then the check rule
 * (rpt_verdict_confirm), the limiting resource (gpu when the asked GPUs
 * are fed, else the point's bottleneck), vCPUs per GPU from the measured
 * per-vCPU rate, and a projection when the asked GPUs need more vCPUs
 * than the top point had, the state is CPU-bound and the figures are
 * consistent (per-vCPU rate x CPU per sample <= RPT_CPU_PER_VCPU_MAX);
 * the storage ceiling seen cold; the RAM check; the catalog check; the
 * headline. V->fits[].shape point into IN->shapes.
 */
void rpt_verdict_draw(const struct rpt_verdict_in *in,
		      struct rpt_sweep_verdict *v);

#endif /* FEEDRATE_VERDICT_H */
