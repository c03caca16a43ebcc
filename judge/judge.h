/*
 * judge.h - every decision, once: numbers in, numbers out.
 *
 * No text, no I/O, no clock, no global state: every function may be
 * called from any thread, and the same figures always give the same
 * answer. reports/ words what these functions decide; measure/ asks them
 * where a protocol needs a decision (which check run next); loader/
 * cannot include this header (it sits below judge/), so the fed rule
 * itself is written once, header-only, in loader.h (ldr_au_fed) and
 * exported here as jdg_fed().
 *
 * Files, by topic: fed.c (fed, GPUs fed, one run, a point fit to judge
 * by), check.c (the check-run walk), ram.c (the LRU model and its
 * tolerance, the RAM needed and a RAM's fit, the reserve), project.c
 * (per-vCPU projection and its range, the SMT yield and the vCPU kinds,
 * the storage ceiling, the catalogue fit with the reserve), cluster.c
 * (nodes fed, storage-bound from K nodes, scaling, the slowest node, every
 * sample once), ckpt.c (checkpoint interval, spot loss), cost.c (compare's
 * cost and the cheapest that feeds), sweep.c (a sweep's points: which
 * judges each cache state, the SMT yield, a state's verdict and what limits
 * it, the catalogue's state and a shape's vCPUs, the storage seen cold and
 * its advice, the pipeline's own memory, the RAM curve's rows).
 */
#ifndef FEEDRATE_JUDGE_H
#define FEEDRATE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader.h"     /* LDR_DEFAULT_AU_THRESHOLD, ldr_au_fed */

/* ==== fed ==== */

/* The most GPUs jdg_gpus_fed() ever reports. */
#define JDG_GPUS_MAX 1000000u

/* The AU threshold a decision uses: AU_THRESHOLD when it is > 0, else
 * LDR_DEFAULT_AU_THRESHOLD. */
double jdg_threshold(double au_threshold);

/*
 * Did GPUs measured at AU AU meet AU_THRESHOLD? The one rule and its one
 * tolerance (LDR_AU_SLACK, 1e-12): an AU equal to the threshold counts.
 * False for a NaN AU.
 */
bool jdg_fed(double au, double au_threshold);

/*
 * How many GPUs that each eat DEMAND_PER_GPU samples/s at full speed a
 * feed of SAMPLES_PER_S keeps at AU >= AU_THRESHOLD: floor(samples/s /
 * (T x demand)), with 1e-9 GPU of slack so that exactly T x demand counts.
 * 0 when any figure is <= 0 or not a number; at most JDG_GPUS_MAX.
 */
unsigned jdg_gpus_fed(double samples_per_s, double demand_per_gpu,
		      double au_threshold);

/* Are the ASKED GPUs (> 0) fed by a verdict of GPUS_FED (< 0 unknown)? */
bool jdg_asked_fed(long gpus_fed, unsigned asked);

/* What GPUS GPUs eat together: TOTAL (a source's own multi-GPU figure)
 * when > 0, else GPUS x PER_GPU. */
double jdg_demand_total(double total, double per_gpu, unsigned gpus);

/* The share of its vCPUs a pipeline's processes kept busy at or above
 * which its limit is the CPU (where nothing finer can be seen, as in a
 * Python loader). */
#define JDG_CPU_BUSY 0.8

/* Did a pipeline keep BUSY (CPU-s / (wall s x vCPUs)) of its vCPUs busy
 * enough to be CPU-bound? */
bool jdg_cpu_busy(double busy);

/* ==== one run (`feedrate run`) ==== */

#define JDG_RUN_MIN_BATCHES_PER_GPU 2
#define JDG_RUN_MIN_BATCHES 2

struct jdg_run_in {
	bool measured;                  /* a result with a window or samples */
	double samples_per_s;           /* at the GPU side */
	double au;                      /* with gpu_count emulated GPUs */
	uint64_t batches;               /* in the window */
	unsigned batch;                 /* samples per batch */
	double measured_s;
	bool warmup_incomplete;         /* the window ended in the warm-up */
	unsigned gpu_count;             /* emulated; 0 = raw feed */
	double demand_per_gpu;
	double au_threshold;            /* <= 0: the default */
};

enum jdg_short {
	JDG_SHORT_NO = 0,
	JDG_SHORT_WARMUP,               /* the window ended in the warm-up */
	JDG_SHORT_BATCHES,              /* fewer batches than need_batches */
};

struct jdg_run {
	double au_threshold;            /* the one used */
	enum jdg_short too_short;
	uint64_t need_batches;          /* the fewest batches judged */
	unsigned gpus_fed;              /* 0 when not measured or too short */
	bool asked_fed;                 /* gpu_count > 0 and its AU fed */
};

/*
 * Judge one run: too short when the window ended in the warm-up, or
 * fewer than JDG_RUN_MIN_BATCHES_PER_GPU batches per emulated GPU (at
 * least JDG_RUN_MIN_BATCHES) were measured; else the GPUs fed. A run with
 * no batch at all is not too short: 0 GPUs.
 */
void jdg_run_judge(const struct jdg_run_in *in, struct jdg_run *out);

/* ==== a sweep's points ==== */

/* A measured window shorter than this, or with fewer batches, is too
 * short to judge: its start-up dominates its figures. */
#define JDG_POINT_MIN_WINDOW_S 1.0
#define JDG_POINT_MIN_BATCHES 4

/* Too short: a window under JDG_POINT_MIN_WINDOW_S or fewer than
 * JDG_POINT_MIN_BATCHES batches. */
bool jdg_window_too_short(double measured_s, uint64_t batches);

/* A cold point whose measured hit ratio is above this was not cold. */
#define JDG_COLD_HIT_MAX 0.05

/* Was a "cold" point with HIT_RATIO (measured; < 0 unknown) not cold? */
bool jdg_not_cold(double hit_ratio);

/* ==== the check-run walk ==== */

/* Most check runs of one cache state. */
#define JDG_CHECKS_MAX 6
/* Most runs one walk reads (a second run of a count is ignored). */
#define JDG_CHECK_RUNS_MAX 32

/* One check run with some emulated GPUs. */
struct jdg_check_run {
	bool run;                       /* it ran and measured an AU */
	unsigned gpus;
	double au;                      /* measured */
	unsigned vcpus;                 /* where it ran; 0 unknown */
};

enum jdg_conf {
	JDG_CONF_NONE = 0,      /* no usable check run */
	JDG_CONF_CONFIRMED,     /* G fed, G+1 not */
	JDG_CONF_LOWERED,       /* G not fed: the largest lower count fed */
	JDG_CONF_RAISED,        /* G+1 fed too: the largest count above fed
	                           in an unbroken run of counts */
};

/* Why the walk left a run that ran unused. */
enum jdg_ignored {
	JDG_IGN_USED = 0,       /* used, or did not run */
	JDG_IGN_VCPUS,          /* another vCPU count than the top point's */
	JDG_IGN_ZERO,           /* 0 GPUs check nothing */
	JDG_IGN_SECOND,         /* a second run of that count */
	JDG_IGN_OTHER,          /* not G, G + 1 or a count walked to */
};

struct jdg_check {
	unsigned gpus_fed;              /* after the checks */
	enum jdg_conf confirmation;
	int used_g, used_g1;            /* index of the G / G+1 run; -1 none */
	uint32_t used_mask;             /* bit i: run i (of the first 32) used */
	bool lowered_untested;          /* lowered to a count no run tested */
	unsigned ignored;               /* runs that ran but were not used */
	uint8_t why[JDG_CHECK_RUNS_MAX];  /* enum jdg_ignored, per run */
};

/*
 * The check rule on the COMPUTED count G with the runs RUNS[0..N) (any
 * order; at most JDG_CHECK_RUNS_MAX are read; those that did not run are
 * skipped): the G run (none when G = 0) not fed lowers the count, walking
 * down while G - 1, G - 2, ... were not fed either, to the first count fed
 * or untested (lowered_untested) or 0; else a fed G + 1 run raises it,
 * walking up while G + 2, ... were fed too; else, with the G + 1 run
 * (and the G run when G >= 1) present, G is confirmed. A run at another
 * known vCPU count than VCPUS_TOP (when > 0), of 0 GPUs, a second run of
 * one count, or one the walk did not consult is ignored, with why.
 */
void jdg_check_walk(unsigned computed, const struct jdg_check_run *runs,
		    size_t n, unsigned vcpus_top, double au_threshold,
		    struct jdg_check *out);

/*
 * The walk's next step for the sweep: after the N runs DONE (DONE[0] has
 * G = COMPUTED GPUs, DONE[1] G + 1, then those the walk chose), the GPU
 * count to run next into *NEXT, or false when the walk is over (or N
 * reached MAX_RUNS): G, then G + 1; down while the fewest tried is not
 * fed (G refuted, G + 1 not fed), up while the most tried is fed (G + 1
 * fed, G not refuted). Uses each run's run, gpus and au.
 */
bool jdg_check_next(const struct jdg_check_run *done, size_t n,
		    unsigned computed, double au_threshold, size_t max_runs,
		    unsigned *next);

/* ==== the RAM axis ==== */

/*
 * The steady byte hit ratio of an LRU page cache that holds FRACTION of a
 * dataset of equal files read in a fresh shuffled order every epoch,
 * f + (1 - f) ln(1 - f): 0 at or below 0, 1 at or above 1.
 */
double jdg_lru_hit(double fraction);

/* Its inverse: the least fraction whose hit ratio reaches HIT (bisection
 * to 1e-9); 0 for HIT <= 0, 1 for HIT >= 1. */
double jdg_lru_fraction_for_hit(double hit);

/* A measured hit ratio further than this (absolute) from the model at
 * its cached fraction disagrees with it (the basis: verdict.h's
 * RPT_RAM_MODEL_TOL, measured on this project's test VM). */
#define JDG_RAM_MODEL_TOL 0.10

/* Does a measured hit ratio disagree with the model's (more than
 * JDG_RAM_MODEL_TOL apart)? */
bool jdg_lru_disagrees(double measured, double model);

/* The one RAM rule: the dataset (or page cache) plus the reserve must fit
 * in this share of the RAM. */
#define JDG_RAM_SHARE 0.80
/* A needed cached fraction above this counts as "the whole dataset". */
#define JDG_RAM_FRACTION_MAX 0.95

struct jdg_ram_need_in {
	double need_samples_per_s;      /* the GPUs together at the AU
	                                   threshold: T x demand x count */
	double need_per_gpu;            /* one of them: T x demand */
	double files_per_sample;        /* storage reads per sample (files/s
	                                   / samples/s cold); <= 0 unknown */
	double bytes_per_sample;        /* bytes read per sample; <= 0
	                                   unknown */
	double storage_files_per_s;     /* the cold ceiling; <= 0 unknown */
	double storage_bytes_per_s;
	bool storage_is_ceiling;        /* false: a lower bound (the cold
	                                   point was CPU-bound) */
	uint64_t dataset_bytes;
	uint64_t reserved_bytes;        /* the training job's, all GPUs */
	uint64_t own_bytes;             /* the pipeline's own memory */
	uint64_t ram_limit;             /* this VM's RAM (or cgroup limit);
	                                   0: no VM to judge */
};

struct jdg_ram_need {
	bool known;                     /* a demand and a storage ceiling */
	bool at_most;                   /* the ceiling is a lower bound: the
	                                   page cache and RAM needed are at
	                                   most these figures */
	double storage_samples_per_s;   /* samples/s the storage serves cold:
	                                   the lower of its files/s and
	                                   bytes/s ceilings per sample */
	double hit_needed;              /* 1 - storage / demand; <= 0: none */
	bool no_cache_needed;           /* the storage alone keeps up */
	double fraction_needed;         /* of the dataset, from the model's
	                                   inverse; 0 when none is needed */
	bool none_suffices;             /* fraction_needed >
	                                   JDG_RAM_FRACTION_MAX: no page cache
	                                   below the whole dataset does */
	uint64_t page_cache_bytes;      /* fraction_needed x dataset; 0 when
	                                   none is needed or none suffices */
	uint64_t ram_bytes;             /* page cache + reserve + own; 0 when
	                                   none suffices */
	uint64_t vm_ram_bytes;          /* the RAM of a VM whose
	                                   JDG_RAM_SHARE holds ram_bytes; 0
	                                   when none suffices */
	/* this VM (ram_limit > 0) */
	uint64_t page_cache_here;       /* JDG_RAM_SHARE x RAM less the
	                                   reserve and the pipeline, >= 0 */
	double fraction_here;           /* of the dataset (> 1: it all fits) */
	double hit_here;                /* the model's; < 0 unknown */
	double gpus_here;               /* GPUs the storage keeps at the AU
	                                   threshold through that page cache
	                                   (at most JDG_GPUS_MAX);
	                                   < 0 unknown */
	bool enough_here;               /* page_cache_here reaches the need,
	                                   or holds the whole dataset */
};

/*
 * The page cache that keeps the misses, (1 - hit) x demand, within the
 * storage's cold ceiling (files/s and bytes/s per sample: records per file
 * count, as a shard read serves many samples), the RAM it takes with the
 * reserve and the pipeline's own memory, and (RAM_LIMIT > 0) what this
 * VM's page cache gives.
 */
void jdg_ram_need(const struct jdg_ram_need_in *in, struct jdg_ram_need *out);

/* GPUs (NEED_PER_GPU samples/s each) a storage of STORAGE samples/s keeps
 * fed through a page cache of hit ratio HIT; -1 unknown; at most
 * JDG_GPUS_MAX. */
double jdg_gpus_through(double storage, double hit, double need_per_gpu);

/* Does a RAM reach the page cache its GPUs need here? */
enum jdg_ram_fit {
	JDG_RAM_FIT_UNKNOWN = 0,        /* no storage ceiling measured, or
	                                   only a lower bound (cold was
	                                   CPU-bound) */
	JDG_RAM_FIT_ENOUGH,             /* its page cache reaches the need
	                                   (or holds the whole dataset) */
	JDG_RAM_FIT_SHORT,              /* it does not */
	JDG_RAM_FIT_NONE,               /* no page cache below the whole
	                                   dataset suffices, and it cannot
	                                   hold the whole dataset */
};

/* A RAM's fit from its jdg_ram_need() N and whether it holds the whole
 * dataset with the reserve (HOLDS_DATASET, jdg_ram_holds). */
enum jdg_ram_fit jdg_ram_fit(const struct jdg_ram_need *n,
			     bool holds_dataset);

/* Bytes each GPU's training process may hold besides its pinned batches. */
#define JDG_RESERVE_PROCESS_BYTES (2ull << 30)

/* The default reserve of RAM per GPU: PREFETCH pinned batches of BATCH
 * samples of SAMPLE_BYTES, plus JDG_RESERVE_PROCESS_BYTES. */
uint64_t jdg_reserve_ram(unsigned batch, unsigned prefetch,
			 uint64_t sample_bytes);

/* Does DATASET + RESERVED fit in JDG_RAM_SHARE of RAM (0: unknown, no)? */
bool jdg_ram_holds(uint64_t dataset, uint64_t reserved, uint64_t ram);

/* ==== projection, storage ceiling, catalogue fit ==== */

/* Per-vCPU rate x CPU per sample above this: the figures contradict each
 * other (more CPU than the vCPUs had) and nothing is projected. */
#define JDG_CPU_PER_VCPU_MAX 1.05

/*
 * The feed at NEED vCPUs projected from the top point (TOP_RATE samples/s
 * on FEED vCPUs, PER_VCPU samples/s each; SCALING = per-vCPU rate at the
 * top / rate at 1 vCPU, < 0 unknown): *HI linear, NEED x PER_VCPU (the
 * optimistic end); *LO with the vCPUs past FEED scaling as the measured
 * 1-to-top scaling did (as *HI's when SCALING is unknown or >= 1).
 */
void jdg_project(unsigned need, unsigned feed, double top_rate,
		 double per_vcpu, double scaling, double *lo, double *hi);

/* Whole vCPUs for COUNT GPUs at PER_GPU each: ceil(COUNT x PER_GPU -
 * 1e-9) (0 for a PER_GPU <= 0). */
unsigned jdg_vcpus_for(unsigned count, double per_gpu);

/*
 * GPUs a CPU-bound feed keeps once the training job takes RESERVE vCPUs
 * per GPU from the pipeline: the largest G with G x NEED <= PER_VCPU x
 * (VCPUS - RESERVE x G), at most FED.
 */
unsigned jdg_gpus_fed_reserved(unsigned fed, double per_vcpu,
			       unsigned vcpus, double need, double reserve);

/*
 * GPUs the storage ceiling seen cold feeds at NEED samples/s per GPU:
 * FILES_PER_S files/s, each carrying 1 / FILES_PER_SAMPLE samples where a
 * file holds several records (shards: FILES_PER_SAMPLE < 1), else one
 * (FILES_PER_SAMPLE unknown, <= 0, or >= 1). 0 when NEED is not > 0.
 */
double jdg_storage_gpus(double files_per_s, double files_per_sample,
			double need_per_gpu);

/*
 * The SMT yield (rate of one core's two hyperthreads / one thread alone)
 * assumed where it cannot be measured here: a stated range, never a
 * single figure: a second thread on a busy core adds between nothing and
 * about 30 % (an assumption of this tool; the upper end is Intel's own
 * claim for Hyper-Threading, "up to 30 %", as reported e.g. by Tom's
 * Hardware's Pentium 4 HT review; measured where siblings exist).
 */
#define JDG_SMT_YIELD_LO 1.0
#define JDG_SMT_YIELD_HI 1.3
/* A measured yield is held within [1, JDG_SMT_YIELD_MAX]: a second thread
 * can neither take work away nor more than double it. */
#define JDG_SMT_YIELD_MAX 2.0

/* A guest that reports no SMT but whose 2-vCPU point scales at or below
 * this (feed(2) / (2 x feed(1))) while each of its vCPUs needs at least
 * JDG_HIDDEN_SMT_CPU x the CPU time per sample of the 1-vCPU point shares
 * cores with a sibling it cannot see: measured scaling outranks the
 * reported topology. Poor scaling at the same CPU per sample is CPU time
 * the point did not get (load, steal), not SMT. */
#define JDG_HIDDEN_SMT_SCALING 0.70
#define JDG_HIDDEN_SMT_CPU 1.25

/* Hidden SMT, from TWO_OVER_ONE = feed(2) / feed(1) and CPU_RATIO = CPU
 * per sample at 2 vCPUs / at 1 (< 0 unknown: no). */
bool jdg_hidden_smt(double two_over_one, double cpu_ratio);

/* A measured yield held within [1, JDG_SMT_YIELD_MAX]. */
double jdg_smt_clamp(double yield);

/*
 * vCPUs per GPU HERE (in this VM's vCPUs, THREADS: hyperthreads, else
 * cores) in each kind, as ranges over the yield [YIELD_LO, YIELD_HI]: a
 * thread-vCPU on a loaded core runs at yield / 2 of one core alone, so
 * threads -> cores per GPU = here x yield / 2 and cores -> threads per
 * GPU = 2 here / yield. All -1 when HERE is not > 0.
 */
void jdg_kinds_per_gpu(double here, bool threads, double yield_lo,
		       double yield_hi, double *thread_lo, double *thread_hi,
		       double *core_lo, double *core_hi);

/* Is a GPU's hardware decoder, of stated CAPACITY images/s (<= 0: not
 * stated, never the limit), below the DEMAND of samples/s per GPU? */
bool jdg_decoder_limits(double capacity, double demand);

enum jdg_fit {
	JDG_FIT_UNKNOWN = 0,            /* no vCPUs-per-GPU figure */
	JDG_FIT_YES,                    /* spare_lo >= 0 */
	JDG_FIT_MAYBE,                  /* spare_hi >= 0 > spare_lo */
	JDG_FIT_NO,                     /* spare_hi < 0 */
};

/* A shape's vCPUs against its needs, reserve taken: SPARE the worst case
 * (vCPUs - needed at the high end - reserved), SPARE_HI the best. */
enum jdg_fit jdg_fit(double spare, double spare_hi);

/* ==== a sweep's points: which judges each cache state ==== */

/* What limited a point, as its bottleneck classification said. */
enum jdg_bound {
	JDG_BOUND_OTHER = 0,            /* unknown, or none given */
	JDG_BOUND_CPU,
	JDG_BOUND_STORAGE,
};

/* One sweep point, as plain figures (reports/ fills it from its own). */
struct jdg_point {
	enum stg_cache_state cache;
	bool measured;                  /* it ran and measured */
	bool dropped;                   /* planned, dropped for the budget */
	bool ram_axis;                  /* ram: another size of the RAM axis */
	bool ram_not_limited;           /* ram: its page cache held more than
	                                   asked: it ran warm */
	unsigned vcpus;
	unsigned feed_vcpus;            /* 0: vcpus */
	double measured_s;
	uint64_t batches;
	double samples_per_s;
	double cpu_s_per_sample;        /* 0 unknown */
	double hit_ratio;               /* < 0 unknown */
	bool hit_ratio_estimated;
	enum jdg_bound bound;
	double files_per_s, read_bytes_per_s;
	double read_latency_s;          /* < 0 unknown */
	unsigned reads_in_flight_max;   /* the reader's depth; 0 unknown */
	uint64_t ram_bytes;             /* ram: the page cache asked */
	uint64_t cgroup_bytes;          /* ram: the cgroup limit; 0 none */
	uint64_t cache_seen_bytes;      /* ram: page cache held; 0 unknown */
	uint64_t sample_bytes;          /* the part of the dataset read; 0
	                                   unknown */
};

/* Why a point does not judge (the first that applies, in this order). */
enum jdg_unusable {
	JDG_USABLE = 0,
	JDG_UNUSABLE_NOT_MEASURED,      /* dropped or failed */
	JDG_UNUSABLE_RAM_NOT_LIMITED,   /* a ram point that ran warm */
	JDG_UNUSABLE_NOT_COLD,          /* a cold point that hit the cache */
	JDG_UNUSABLE_TOO_SHORT,         /* jdg_window_too_short */
};

enum jdg_unusable jdg_point_unusable(const struct jdg_point *p);
bool jdg_point_usable(const struct jdg_point *p);
/* The vCPUs P's feed is counted on: feed_vcpus where set and fewer than
 * vcpus, else vcpus. */
unsigned jdg_point_feed_vcpus(const struct jdg_point *p);

/* The point that judges cache C: the usable one with the most vCPUs; at
 * equal counts the state's own size before a RAM-axis size; the first on
 * a full tie. -1 none. */
int jdg_top(const struct jdg_point *pts, size_t n, enum stg_cache_state c);

/* The first usable K-vCPU point of cache C; -1 none. */
int jdg_point_at(const struct jdg_point *pts, size_t n,
		 enum stg_cache_state c, unsigned k);

/* Was the point of cache C at VCPUS_TOTAL vCPUs planned and dropped for
 * the budget (not a RAM-axis size), with no usable point at that count? */
bool jdg_top_dropped(const struct jdg_point *pts, size_t n,
		     enum stg_cache_state c, unsigned vcpus_total);

/* The measured, unusable point of cache C with the most vCPUs (the first
 * on a tie), whose reason says why C is not judged; -1 none. */
int jdg_not_judged(const struct jdg_point *pts, size_t n,
		   enum stg_cache_state c);

/* What one vCPU is here and the SMT yield the conversions use. */
struct jdg_smt {
	enum stg_vcpu_kind kind;        /* as used */
	bool kind_measured;             /* hidden SMT: from scaling, not the
	                                   reported topology */
	double yield;                   /* measured; < 0 not measured */
	double yield_lo, yield_hi;      /* measured (clamped, lo == hi) or
	                                   JDG_SMT_YIELD_LO..HI */
};

/*
 * From the first state (warm, ram, cold) with usable 1- and 2-vCPU points,
 * the 2-vCPU one not storage-bound and its feed on at least 2 vCPUs:
 * feed(2) / feed(1) is the yield when KIND is threads, or when a guest of
 * cores shows hidden SMT (jdg_hidden_smt); else the stated range.
 */
void jdg_smt(const struct jdg_point *pts, size_t n, enum stg_vcpu_kind kind,
	     struct jdg_smt *out);

/* What one cache state's verdict is drawn from. */
struct jdg_cache_in {
	enum stg_cache_state cache;
	double demand_per_gpu;
	double au_threshold;            /* the one used (jdg_threshold) */
	unsigned gpu_count;             /* asked */
	unsigned vcpus_total;           /* this VM's */
	double reserve_vcpus_per_gpu;
	const struct jdg_smt *smt;
	const struct jdg_check_run *checks;  /* its check runs; may be NULL */
	size_t nchecks;
};

struct jdg_cache {
	bool measured;                  /* a usable point judges it */
	bool top_dropped;               /* its point at all vCPUs dropped: no
	                                   verdict from fewer */
	int top;                        /* jdg_top; -1 none */
	int not_judged;                 /* jdg_not_judged when not measured
	                                   and not dropped; else -1 */
	unsigned vcpus_top, feed_vcpus;
	bool top_is_all;                /* vcpus_top == vcpus_total */
	unsigned gpus_fed_computed;     /* from the top point's rate */
	struct jdg_check check;         /* the check-run walk on it */
	unsigned gpus_fed;              /* after the checks */
	unsigned gpus_fed_reserved;     /* CPU-bound: once the training job
	                                   takes its reserve */
	bool gpu_limits;                /* the asked GPUs are fed */
	bool cpu_limits;                /* not gpu_limits, the top CPU-bound */
	bool storage_bound;             /* the top storage-bound */
	double per_vcpu_rate;           /* per feed vCPU */
	double scaling;                 /* per-vCPU rate / 1-vCPU rate; < 0 */
	double cpu_s_per_sample, cpu_per_vcpu;
	bool inconsistent;              /* cpu_per_vcpu > JDG_CPU_PER_VCPU_MAX */
	double vcpus_per_gpu;           /* < 0 unknown or storage-bound */
	double thread_per_gpu_lo, thread_per_gpu_hi;
	double core_per_gpu_lo, core_per_gpu_hi;
	unsigned vcpus_needed, vcpus_reserved;
	int vcpus_spare;
	bool projected;                 /* CPU-bound, consistent, needing more
	                                   vCPUs than its feed had */
	double projected_lo, projected_hi;
	bool more_vcpus_may_help;       /* measured below all this VM's vCPUs
	                                   and not storage-bound */
};

/* The verdict of one cache state from the sweep's points. */
void jdg_cache_judge(const struct jdg_point *pts, size_t n,
		     const struct jdg_cache_in *in, struct jdg_cache *out);

/* The state the headline leads with: the measured one feeding the most
 * GPUs (the coldest on a tie); -1 none. */
int jdg_best_state(const struct jdg_cache c[STG_CACHE_STATES]);
/* The warmest measured state, whose limit the headline names; -1 none. */
int jdg_warmest_state(const struct jdg_cache c[STG_CACHE_STATES]);

/* The state whose vCPUs per GPU the catalogue uses: the first of warm,
 * ram, cold that is measured, consistent, not storage-bound and has a
 * figure; -1 none. */
int jdg_catalog_state(const struct jdg_cache c[STG_CACHE_STATES]);

/* A catalogued shape's vCPUs against the pipeline of CV (NULL: none). */
struct jdg_shape_in {
	double vcpus;
	unsigned gpus;
	bool threads;                   /* its vCPUs are hyperthreads */
	double demand_total;            /* <= 0: demand_per_gpu x gpus */
	double demand_per_gpu;
	double au_threshold, need_per_gpu;
	double reserve_vcpus_per_gpu;
};

struct jdg_shape {
	double demand_total;            /* the one used */
	double vcpus_reserved;
	double vcpus_needed_lo, vcpus_needed;  /* -1 unknown */
	double vcpus_spare, vcpus_spare_hi;    /* 0 when unknown */
	enum jdg_fit fits;
};

void jdg_shape_fit(const struct jdg_shape_in *in, const struct jdg_cache *cv,
		   struct jdg_shape *out);

/* The storage as seen cold: the usable cold points' best rates. */
struct jdg_storage {
	bool known;                     /* a usable cold point */
	double bytes_per_s, files_per_s;
	bool is_ceiling;                /* one of them storage-bound; else a
	                                   lower bound */
	int point;                      /* the one with the best files/s
	                                   (the first on a tie); -1 none */
	double files_per_sample;        /* at that point; 0 unknown */
	double bytes_per_sample;        /* 0 unknown */
	double gpus;                    /* jdg_storage_gpus at NEED_PER_GPU;
	                                   0 unknown */
};

void jdg_storage(const struct jdg_point *pts, size_t n, double need_per_gpu,
		 struct jdg_storage *out);

/* Does a storage that feeds STORAGE_GPUS (jdg_storage_gpus) keep the
 * ASKED GPUs fed: storage is then not their limit. */
bool jdg_storage_feeds(double storage_gpus, unsigned asked);

/* A reader that kept this share of its depth in flight kept it full. */
#define JDG_DEPTH_BUSY 0.8

/* What helps a storage-bound cold state (Little's law: in flight =
 * files/s x latency). */
enum jdg_advice {
	JDG_ADVICE_NONE = 0,            /* not storage-bound */
	JDG_ADVICE_DEPTH_FULL,          /* in flight >= JDG_DEPTH_BUSY x depth:
	                                   latency or a throughput cap; a
	                                   second depth tells */
	JDG_ADVICE_THROUGHPUT,          /* its depth was not kept busy */
	JDG_ADVICE_UNKNOWN,             /* no latency measured */
};

/* The advice for a cold state judged by P (NULL: none) that is
 * STORAGE_BOUND; *INFLIGHT: the reads in flight, < 0 unknown. */
enum jdg_advice jdg_storage_advice(const struct jdg_point *p,
				   bool storage_bound, double *inflight);

/* The pipeline's own memory: the most a measured ram point's cgroup held
 * beside its page cache; 0 none measured. */
uint64_t jdg_own_memory(const struct jdg_point *pts, size_t n);

/* The RAM a VM is judged by: its total (else available) RAM, or its
 * cgroup limit (>= 0) when lower. */
uint64_t jdg_ram_limit(uint64_t total, uint64_t available,
		       int64_t cgroup_limit);

/* Most rows of the RAM curve. */
#define JDG_RAM_ROWS_MAX 32

enum jdg_row_kind {
	JDG_ROW_MODEL = 0,
	JDG_ROW_MEASURED,
	JDG_ROW_ESTIMATED,              /* a ram point's LRU estimate */
};

struct jdg_ram_row {
	double fraction;                /* of the dataset */
	uint64_t page_cache_bytes;
	double hit_ratio;               /* measured, or the model's */
	double model_hit;
	double samples_per_s;           /* < 0 unknown */
	int point;                      /* -1: a model row */
	enum stg_cache_state cache;     /* the point's */
	enum jdg_row_kind kind;
	bool disagrees;                 /* a measured ram row off the model
	                                   by more than JDG_RAM_MODEL_TOL */
};

struct jdg_ram_rows_in {
	uint64_t dataset_bytes;
	double cpu_samples_per_s;       /* warm's rate; < 0 unknown */
	const struct jdg_ram_need *need;
};

/*
 * The RAM curve into ROWS (at most JDG_RAM_ROWS_MAX), sorted by cached
 * fraction, a measured row before a model row: the usable points at the
 * most vCPUs any usable point has (cold 0, warm 1, ram the page cache it
 * held over the part it read), the model's rows at every tenth, at the
 * fraction needed (when not a tenth) and at this VM's (when within (0, 1));
 * a model row's feed is the lower of the CPU's and the storage's through
 * the misses. Returns the rows; *CHECKED / *DISAGREE: measured ram rows
 * held against the model, and those off it.
 */
size_t jdg_ram_rows(const struct jdg_point *pts, size_t n,
		    const struct jdg_ram_rows_in *in, struct jdg_ram_row *rows,
		    unsigned *checked, unsigned *disagree);

/* The feed the model predicts at hit ratio HIT: the lower of the CPU's
 * rate (CPU_SAMPLES_PER_S, warm) and the storage's (STORAGE samples/s
 * cold) through the misses, STORAGE / (1 - HIT); < 0 unknown. */
double jdg_ram_model_feed(double storage, double cpu_samples_per_s,
			  double hit);

/* The measured ram row furthest from the model (the first on a tie); -1
 * none. */
int jdg_ram_worst_row(const struct jdg_ram_row *rows, size_t n);

/* ==== cluster ==== */

/* A rank's AU fed (an AU < 0 is unknown: not fed). */
bool jdg_rank_fed(double au, double au_threshold);

/* The storage the cluster read is its ceiling: cold, and at least half
 * of the REPORTED ranks storage-bound. */
bool jdg_cluster_storage_ceiling(bool cold, unsigned reported,
				 unsigned storage_bound_ranks);

/* Bytes/s one node's GPUs need: GPUS_PER_RANK x RANKS_PER_NODE x demand x
 * bytes per sample; 0 when a figure is unknown. */
double jdg_node_needs_bytes(unsigned gpus_per_rank, unsigned ranks_per_node,
			    double demand_per_gpu, double bytes_per_sample);

/* Nodes a storage ceiling of CEILING bytes/s feeds at NEEDS bytes/s per
 * node: floor(CEILING / NEEDS + 1e-9), at most 1e9; -1 when unknown. The
 * cluster is storage-bound from that count plus one. */
int jdg_nodes_before_storage_bound(double ceiling, double needs);

/*
 * The slowest of the N RATES (the first on a tie) and, into *BELOW, how
 * far below their median it is: (median - slowest) / median, 0 when the
 * median is not > 0. -1 (and *BELOW left alone) when N < 2: one node is
 * no one's slowest. RATES is sorted in place.
 */
int jdg_slowest(double *rates, size_t n, double *below);

/* Is a node fed: some of its ranks COUNTED, none MISSING (lost or
 * failed), none of them UNFED, and GPUs emulated (EMULATED)? */
bool jdg_node_fed(bool emulated, unsigned counted, unsigned missing,
		  unsigned unfed);

/* The nodes a cluster is judged on: those launched (NODES) or, when
 * more reported, those seen (SEEN). */
unsigned jdg_cluster_nodes(unsigned nodes, unsigned seen);

/* Does the cluster feed its GPUs: emulated, NODES > 0 judged, and every
 * one of them fed (NODES_FED, jdg_node_fed)? */
bool jdg_cluster_fed(bool emulated, unsigned nodes_fed, unsigned nodes);

/* The node whose shortfall the verdict names: of the N nodes not FED
 * whose every rank was COUNTED (none MISSING: a node short of ranks is
 * named as partial), the one with the fewest samples/s (RATES; the first
 * on a tie); -1 none. */
int jdg_slowest_unfed(const bool *fed, const unsigned *counted,
		      const unsigned *missing, const double *rates, size_t n);

/* Efficiency at or above this still "scales". */
#define JDG_CLUSTER_SCALING 0.90

/* Scaling efficiency: RATE at RANKS over RANKS x BASE (1 rank); -1
 * unknown. */
double jdg_efficiency(double rate, unsigned ranks, double base);

/* Does an efficiency scale (>= JDG_CLUSTER_SCALING, 1e-9 of slack)? */
bool jdg_scales(double efficiency);

/*
 * A series' scaling: RATES[0..N) at RANKS[0..N) (< 0 not measured); the
 * base is the 1-rank rate (the last above 0); EFF[j] = jdg_efficiency of
 * each (-1 unknown). Returns the most ranks whose efficiency scales (0
 * none, or no 1-rank figure).
 */
unsigned jdg_cluster_scaling(const double *rates, const unsigned *ranks,
			     size_t n, double *eff);

/* The ranks from which a series is storage-bound: the least of the last
 * unbroken run of BOUND[i] among RANKS[0..N) (sorted by ranks); -1 none. */
int jdg_storage_bound_from(const bool *bound, const unsigned *ranks,
			   size_t n);

/* A point is storage-bound when at least half its REPORTED ranks are. */
bool jdg_storage_bound(unsigned reported, unsigned storage_bound_ranks);

/*
 * Every sample once across the ranks: for each of EPOCHS epochs, SUMS[e]
 * (the ranks' digests added) against WANT[e], the sampler's (WANT_OK[e]
 * false: it could not be computed, which counts against). Returns the
 * epochs that differ: the cluster read every sample exactly once per
 * epoch when it is 0 and EPOCHS > 0.
 */
unsigned jdg_once_bad_epochs(const struct ldr_digest *sums,
			     const struct ldr_digest *want,
			     const bool *want_ok, unsigned epochs);

/* ==== checkpoints ==== */

#define JDG_CKPT_DEFAULT_BUDGET 0.05    /* --ckpt-budget: 5 % */

/* Share of wall time saving: SAVE_S / (INTERVAL_S + SAVE_S); -1 unknown. */
double jdg_ckpt_share(double save_s, double interval_s);
/* Shortest interval keeping that share <= BUDGET; -1 unknown. */
double jdg_ckpt_min_interval(double save_s, double budget);
/* Training time a spot interruption loses on average:
 * (I^2 / 2 + S x I) / (I + S); -1 unknown. */
double jdg_ckpt_lost(double save_s, double interval_s);

struct jdg_ckpt_in {
	double save_s, restore_s;       /* measured */
	double budget;                  /* <= 0: JDG_CKPT_DEFAULT_BUDGET */
	double interval_s;              /* <= 0 none */
	double step_s;                  /* <= 0 none */
	double demand_total;            /* <= 0 unknown */
	double epoch_samples;           /* <= 0 none */
};

struct jdg_ckpt {
	double budget;
	double min_interval_s;
	double min_interval_steps;      /* < 0 without step_s */
	double lost_s;
	double share_at_interval;       /* < 0 none */
	double lost_at_interval_s;      /* < 0 none */
	double epoch_s;                 /* < 0 unknown */
	double share_per_epoch;         /* < 0 unknown */
};

void jdg_ckpt_judge(const struct jdg_ckpt_in *in, struct jdg_ckpt *out);

/* ==== cost ==== */

/* USD per million samples; -1 unknown (a price of 0 gives 0). */
double jdg_cost_per_msample(double usd_per_hour, double samples_per_s);
/* USD per epoch; -1 unknown. */
double jdg_cost_per_epoch(double usd_per_hour, double samples_per_s,
			  double epoch_samples);

/*
 * The cache state a candidate is priced in: CACHE when >= 0, else the
 * slowest state it measured (HAVE, SAMPLES_PER_S over N states; the
 * first on a tie); -1 when none.
 */
int jdg_cost_state(int cache, const bool *have, const double *samples_per_s,
		   size_t n);

/* What training gets from a measured RATE: at most the GPUs' DEMAND
 * (count x per GPU; <= 0 unknown); *GPU_BOUND says whether it capped. */
double jdg_cost_feed(double rate, double demand, bool *gpu_bound);

/*
 * Is a candidate PRICED, that FEEDS its GPUs, at USD (per million
 * samples; < 0 unknown) cheaper than the best so far (BEST < 0: none)?
 * Strictly: on a tie the first stays the cheapest.
 */
bool jdg_cost_cheaper(bool priced, bool feeds, double usd, double best);

#endif /* FEEDRATE_JUDGE_H */
