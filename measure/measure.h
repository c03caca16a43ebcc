/*
 * measure.h - what `feedrate run` and `feedrate sweep` share: the dataset
 * (the one given, or a temporary generated one on a disk-backed
 * filesystem), the page-cache state of a measurement (made, then
 * verified), the memory cgroup of a --ram point, one point measured in a
 * pinned child, the hit ratio (measured, or estimated by LRU simulation),
 * and the sweep's budget rule.
 *
 * All of it runs in the single-threaded parent: the measurement itself is
 * in a forked child (ldr_run_pinned). Functions that return "an exit code"
 * return 0 or an FR_EXIT_* value and have printed the message on stderr,
 * prefixed with "feedrate CMD:".
 */
#ifndef FEEDRATE_MEASURE_H
#define FEEDRATE_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loader.h"
#include "storage.h"
#include "workloads.h"

#define MS_DEFAULT_GEN (200ull << 20)   /* the default dataset: 200 MiB */
#define MS_RESIDENCY_FILES 4096         /* files sampled for residency */

/* Every usable CPU: the affinity mask, lowered to a cgroup CPU quota. */
unsigned ms_usable_cpus(void);

/* Write PATH's bytes to F as rpt_path_text() makes them printable. */
void ms_print_path(FILE *f, const char *path);

/* Remove the folder DIR and everything in it (no links followed).
 * Returns 0 or -errno. */
int ms_rm_tree(const char *dir);

/* Seconds on the monotonic clock. */
double ms_now(void);

/* ---- the options run and sweep share ---- */

/* What both commands parse the same way; the rest is each command's. */
struct ms_common_opts {
	const char *workload;
	const char *gpus;               /* --gpus as given, NULL default */
	double gpu_rate;                /* 0: from the table */
	enum wl_demand_kind demand;
	enum ldr_gpu_sync sync;
	unsigned batch;                 /* 0: the engine's default */
	unsigned readers, depth;
	enum stg_backend_id backend;
	const char *backend_text;       /* --backend as given */
	uint64_t seed, max_errors, max_sample_bytes, gen_size;
	const char *list, *json, *tmpdir;
	bool keep;                      /* --keep-dataset */
	const char *dataset;            /* NULL: generate one */
};

/* getopt_long values of the shared long options without a short one. */
enum {
	MS_OPT_GPU_RATE = 1024, MS_OPT_DEMAND, MS_OPT_SYNC, MS_OPT_READERS,
	MS_OPT_SEED, MS_OPT_MAXERR, MS_OPT_BACKEND, MS_OPT_DEPTH,
	MS_OPT_MAXBYTES, MS_OPT_LIST, MS_OPT_JSON, MS_OPT_KEEP, MS_OPT_TMPDIR,
	MS_OPT_GENSIZE,
};

/* The shared entries of a struct option table (needs <getopt.h>); the
 * short options are -w, -g and -b. */
#define MS_COMMON_LONGOPTS \
	{ "workload", required_argument, NULL, 'w' }, \
	{ "gpus", required_argument, NULL, 'g' }, \
	{ "gpu-rate", required_argument, NULL, MS_OPT_GPU_RATE }, \
	{ "demand", required_argument, NULL, MS_OPT_DEMAND }, \
	{ "gpu-sync", required_argument, NULL, MS_OPT_SYNC }, \
	{ "batch", required_argument, NULL, 'b' }, \
	{ "readers", required_argument, NULL, MS_OPT_READERS }, \
	{ "seed", required_argument, NULL, MS_OPT_SEED }, \
	{ "max-errors", required_argument, NULL, MS_OPT_MAXERR }, \
	{ "backend", required_argument, NULL, MS_OPT_BACKEND }, \
	{ "depth", required_argument, NULL, MS_OPT_DEPTH }, \
	{ "max-sample-bytes", required_argument, NULL, MS_OPT_MAXBYTES }, \
	{ "list", required_argument, NULL, MS_OPT_LIST }, \
	{ "json", required_argument, NULL, MS_OPT_JSON }, \
	{ "keep-dataset", no_argument, NULL, MS_OPT_KEEP }, \
	{ "tmpdir", required_argument, NULL, MS_OPT_TMPDIR }, \
	{ "gen-size", required_argument, NULL, MS_OPT_GENSIZE }

/* A decimal count with no sign into *OUT. Returns 0 or -EINVAL. */
int ms_parse_u64(const char *s, uint64_t *out);

/* *O zeroed, then the defaults (imagenet, tuned demand, GPUs in step,
 * 1 reader, depth 32, seed 1, 64M samples at most, a 200M dataset). */
void ms_common_defaults(struct ms_common_opts *o);

/*
 * Take getopt_long's answer C with its argument ARG into *O when C is a
 * shared option. Returns 1 when taken, 0 when C is not a shared option,
 * or FR_EXIT_USAGE after printing the message for CMD.
 */
int ms_parse_common(const char *cmd, int c, const char *arg,
		    struct ms_common_opts *o);

/*
 * getopt_long's ':' (a value missing) or '?' (an unknown option) for CMD,
 * the option being ARGV[optind - 1]: prints the message, returns
 * FR_EXIT_USAGE.
 */
int ms_parse_bad(const char *cmd, int c, char **argv);

/*
 * After the options: at most one DATASET (ARGV[optind]) into O->dataset;
 * --list needs it. Returns 0 or FR_EXIT_USAGE after printing the message
 * for CMD.
 */
int ms_parse_dataset(const char *cmd, int argc, char **argv,
		     struct ms_common_opts *o);

/* ---- the GPUs judged against (--gpus, --gpu-rate) ---- */

#define MS_GPU_NAME_MAX 31              /* a --gpu-rate GPU name's length */

/* --gpus and --gpu-rate resolved: what reports say and the engine eats. */
struct ms_gpus {
	unsigned count;                 /* 0 = no consumer (raw feed) */
	bool type_given;                /* the spec named the type */
	bool default_type;              /* no type and no rate given: the
	                                   workload's default row */
	const struct wl_demand *row;    /* the table's row; NULL when
	                                   --gpu-rate names a GPU it lacks */
	char type[MS_GPU_NAME_MAX + 1]; /* the name reports show */
	const char *detail;
	double demand;                  /* samples/s one GPU eats */
	const char *demand_kind;        /* "train", "mlperf", "gpu-rate" */
	const char *demand_source;
	bool demand_est;                /* the row is an estimate */
};

/*
 * Resolve --gpus SPEC (NULL: "1", one GPU of the default type) and
 * --gpu-rate RATE (<= 0: none) for workload W and demand KIND into *OUT.
 * Without RATE the GPU must have a row in W's table. With RATE a GPU the
 * table lacks is accepted ("4xMYGPU", "MYGPU", "4") when its name is 1 to
 * MS_GPU_NAME_MAX characters of [A-Za-z0-9._-], is not a bare "x" and is
 * not a table name with a stray 'x' appended ("2xA100x"). A spec with a
 * byte outside printable ASCII is refused either way (reports need valid
 * UTF-8). Returns 0, or FR_EXIT_USAGE after printing the message for CMD
 * (the spec escaped with rpt_path_text).
 */
int ms_gpus_resolve(const char *cmd, const struct wl_workload *w,
		    const char *spec, enum wl_demand_kind kind, double rate,
		    struct ms_gpus *out);

/* ---- the dataset ---- */

struct ms_dataset_opts {
	const char *cmd;                /* "run", "sweep": for messages */
	const struct wl_workload *w;
	const char *dataset;            /* NULL: generate one */
	const char *list;               /* --list FILE, or NULL */
	const char *tmpdir;             /* where to generate; NULL default */
	uint64_t gen_size;              /* 0: MS_DEFAULT_GEN */
	uint64_t seed;
	volatile sig_atomic_t *stop;    /* polled while generating */
};

struct ms_dataset {
	char gen_dir[4096];             /* the generated dataset, "" none */
	const char *root;               /* the folder read */
	struct stg_dataset *ds;
	double gen_s, list_s;           /* time spent generating, listing */
};

/*
 * Generate (when O->dataset is NULL) and list the dataset into *MD
 * (zeroed first). Generation goes to a fresh folder under a disk-backed
 * parent (O->tmpdir, else /var/tmp, $TMPDIR, /tmp, "."; never tmpfs) with
 * room for it, with a progress line when stderr is a TTY. Returns 0 or an
 * exit code; on failure MD->gen_dir may still name a folder to remove
 * (ms_dataset_close does it).
 */
int ms_dataset_open(const struct ms_dataset_opts *o, struct ms_dataset *md);

/*
 * Free the listing and, unless KEEP, remove the generated folder (a
 * failure is printed for CMD). Safe on a zeroed or half-opened MD.
 */
void ms_dataset_close(const char *cmd, struct ms_dataset *md, bool keep);

/*
 * The filesystem and device under ROOT into *FS; *FS_TYPE points into
 * FS ("" unknown), DEV (DEV_LEN bytes) gets "name: model" or "".
 */
void ms_fs_describe(const char *root, struct stg_fs_info *fs,
		    const char **fs_type, char *dev, size_t dev_len);

/* ---- the page-cache state of a point ---- */

enum ms_cache {
	MS_CACHE_COLD = 0,      /* evicted; read with O_DIRECT */
	MS_CACHE_RAM,           /* evicted; run inside a memory cgroup */
	MS_CACHE_WARM,          /* read once before the run */
};

struct ms_cache_prep {
	double fraction;        /* resident share verified after preparing;
	                           < 0 unknown */
	bool evict_ineffective; /* eviction does not work here */
	bool warm_refetch;      /* each open drops the cache (FUSE) */
	char how[512];          /* how the state was made, in words */
	char note[256];         /* a problem, "" none */
	double prep_s;          /* time it took */
};

/*
 * Put DS's page cache into state C (cold and ram: every file evicted;
 * warm: every file read once, skipped when ALREADY_WARM_OK and a sample of
 * MS_RESIDENCY_FILES files is >= 99 % resident) and verify it with a
 * residency sample. Fills *OUT. Never writes to the dataset.
 */
void ms_cache_prepare(const struct stg_dataset *ds, enum ms_cache c,
		      bool already_warm_ok, struct ms_cache_prep *out);

/*
 * The memory cgroup of a --ram point: LIMIT bytes. On success *CG is set
 * and HOW says what was done; on failure *CG is NULL, HOW says the hit
 * ratio will be estimated and why, and -errno is returned.
 */
int ms_ram_cgroup(uint64_t limit, struct ldr_memcg **cg, char *how,
		  size_t how_len);

/* ---- one point ---- */

struct ms_point {
	const struct stg_dataset *ds;
	enum ms_cache cache;
	const cpu_set_t *cpus;          /* the vCPUs; NULL = this mask */
	unsigned workers;               /* transform threads (> 0) */
	unsigned readers;
	enum stg_backend_id backend;
	unsigned depth;
	uint64_t max_sample_bytes;
	unsigned batch;                 /* 0 = the engine's default */
	struct ldr_transform transform;
	uint64_t seed;
	unsigned gpus;                  /* 0 = raw feed */
	double gpu_rate;
	enum ldr_gpu_sync sync;
	double au_threshold;
	double warmup_s, duration_s;    /* as in struct ldr_config */
	uint64_t epochs, samples, max_errors;
	volatile int *stop;
	const struct ldr_memcg *memcg;  /* ram points; NULL otherwise */
};

/* The engine configuration of point P. */
void ms_point_config(const struct ms_point *p, struct ldr_config *cfg);

struct ms_point_out {
	int err;                        /* 0, or ldr_run's / the child's */
	bool started;                   /* RES holds a measurement */
	struct ldr_child_report rep;
	char err_text[512];             /* words for err, "" none */
};

/*
 * Measure P in a pinned child (ldr_run_pinned) into *RES (large: the
 * caller allocates it). Returns 0 when something was measured (OUT->err
 * may still be set: a reader failed mid-run), or the -errno that kept
 * the run from starting (OUT->err_text says why).
 */
int ms_point_measure(const struct ms_point *p, struct ldr_result *res,
		     struct ms_point_out *out);

/* Fewer reads probed than this: the measured hit ratio is unknown. */
#define MS_MIN_PROBES 20

/*
 * The page-cache hit ratio of a finished point: measured from the
 * engine's residency probes, or (ESTIMATED: no cgroup limited the run)
 * estimated by an LRU of RAM bytes over the run's access order. SRC gets
 * where it comes from. Returns the ratio, or -1 when unknown (no probe,
 * or fewer than MS_MIN_PROBES reads probed: SRC then says so).
 */
double ms_hit_ratio(const struct stg_dataset *ds, uint64_t seed,
		    uint64_t ram, bool estimated, const struct ldr_result *res,
		    char *src, size_t src_len);

/*
 * The page cache a --ram point held may exceed what was asked by this
 * factor before the point counts as not limited (it then ran warm).
 */
#define MS_RAM_SLACK 1.25

/*
 * Did a --ram point's memory cgroup limit its page cache? ASKED: the page
 * cache it models; SEEN: the page cache charged to the cgroup after the
 * run (0 unknown). False when SEEN > MS_RAM_SLACK x ASKED: the cgroup had
 * room for more (its limit adds an estimate of the run's own memory), so
 * the point measured a warmer cache than asked and its hit ratio must not
 * be reported as measured. True when SEEN is unknown.
 */
bool ms_ram_limited(uint64_t asked, uint64_t seen);

/* ---- the sweep's budget rule ---- */

/* One planned point: N vCPUs, cache state index (0 = measured first). */
struct ms_plan_point {
	unsigned vcpus;
	unsigned cache;
	bool dropped;
};

/* Least time a point needs: warm-up 2 s, 4 s measured, 2 s to prepare. */
#define MS_MIN_POINT_S 8.0

/*
 * The budget rule. LEFT_S seconds remain for the N points of P that are
 * not yet dropped and for NCONFIRM confirmation runs of CONFIRM_S each.
 * Confirmation runs are reserved first; when the remaining points' equal
 * share would fall below MIN_POINT_S, the confirmation runs go first
 * (*CONFIRM_KEPT = 0), then points are dropped one at a time from the
 * largest vCPU count down (at the same count, the later cache state
 * first), until the share is at least MIN_POINT_S or one point is left.
 * Returns the share in seconds of each kept point (which may be below
 * MIN_POINT_S when only one is left), or 0 when no point is left.
 */
double ms_plan_budget(struct ms_plan_point *p, size_t n, unsigned nconfirm,
		      double confirm_s, double left_s, double min_point_s,
		      unsigned *confirm_kept);

/*
 * Files of a --ram point's dataset sample: as many as let EPOCHS epochs
 * at RATE samples/s fit in WINDOW_S (with 10 % to spare), at most
 * N_FILES, at least min(N_FILES, MIN_FILES). RATE <= 0: all of them.
 */
size_t ms_ram_sample_files(size_t n_files, double rate, double window_s,
			   unsigned epochs, size_t min_files);

/* ==== `feedrate io`: the storage-only read loop (measure_io.c) ==== */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage.h"

/* The page cache before an io run. */
enum ms_io_cache {
	MS_IO_CACHE_ASIS = 0,   /* left as it is found */
	MS_IO_CACHE_COLD,       /* every file evicted first (and again after
	                           each read when passes repeat) */
	MS_IO_CACHE_WARM,       /* every file read once first */
};

struct ms_io_result;

/* Points of an io run that ms_io_run reports through the callback. */
enum ms_io_event {
	MS_IO_EV_CACHE = 0,     /* the page cache is prepared: cache_note and
	                           evict_errors are set */
	MS_IO_EV_READING,       /* the reader threads are started and reading */
};

/*
 * Called by ms_io_run on the caller's thread at each event, with the
 * result as far as it is known. Must not keep SOFAR.
 */
typedef void ms_io_progress_fn(enum ms_io_event ev,
			       const struct ms_io_result *sofar, void *arg);

struct ms_io_config {
	const struct stg_dataset *ds;   /* the files to read, listed by the
	                                   caller; borrowed for the run and
	                                   for the result's example paths */
	struct stg_reader_config rc;    /* backend (AUTO: probed on a sample
	                                   first, its reads not counted),
	                                   depth, block size, O_DIRECT;
	                                   max_sample_bytes: larger files are
	                                   counted too large, not read */
	unsigned threads;               /* reader threads, each with its own
	                                   stg_reader (> 0) */
	enum ms_io_cache cache;
	double duration_s;              /* 0: every file once; else passes
	                                   until this many seconds are up */
	volatile sig_atomic_t *stop;    /* non-zero: claim no more files and
	                                   finish what is in flight; NULL
	                                   none */
	ms_io_progress_fn *progress;    /* NULL: none */
	void *progress_arg;
};

#define MS_IO_MAX_KINDS 24              /* error kinds kept, one example each */

/* Read errors of one kind. */
struct ms_io_error_kind {
	int code;                       /* -errno or -STG_E* */
	uint64_t count;
	const char *example;            /* a relative path of the dataset (raw
	                                   bytes, owned by it), NULL unknown */
};

/* Problems the listing met, by enum stg_ds_err. */
struct ms_io_listing_kind {
	uint64_t count;
	const char *example;            /* owned by the dataset, may be NULL */
};

struct ms_io_result {
	enum stg_backend_id backend;    /* the backend that ran */
	char reason[400];               /* why that backend */
	char notes[512];                /* what the reader noted, "" none */
	size_t files_listed;
	struct stg_reader_stats st;     /* summed over the threads; st.errors
	                                   also counts requests the reader
	                                   refused */
	struct ms_io_error_kind kinds[MS_IO_MAX_KINDS];
	unsigned nkinds;
	struct ms_io_listing_kind listing[STG_DS_ERR_COUNT];
	uint64_t evict_errors;          /* files that could not be evicted,
	                                   before and during the run */
	char cache_note[400];           /* a page-cache problem in words
	                                   ("" none) */
	double seconds;                 /* from the start signal to the last
	                                   thread's end */
	char err_text[512];             /* words for ms_io_run's error */
};

/*
 * Read every file of CFG->ds whole through CFG->rc's backend on
 * CFG->threads reader threads (or in passes for CFG->duration_s), after
 * preparing the page cache as CFG->cache asks, and count bytes, reads,
 * files, completion latencies and errors by kind into *OUT (zeroed
 * first). Failed reads are counted, not fatal. Prints nothing; reports
 * MS_IO_EV_CACHE and MS_IO_EV_READING through CFG->progress, on the
 * calling thread. Any thread may call it; it keeps no state between
 * calls and joins the threads it starts before it returns. The example
 * paths in *OUT point into CFG->ds. Returns 0, or -errno when the run
 * could not start (the dataset folder cannot be opened, a reader or a
 * thread cannot be created); OUT->err_text then says why, without the
 * "feedrate io: " prefix.
 */
int ms_io_run(const struct ms_io_config *cfg, struct ms_io_result *out);

/*
 * `feedrate info --probe-cache`: find a non-empty regular file at or
 * under PATH (breadth first, looking at no more than 10000 entries) and
 * run stg_cache_probe on it (reads the file once, leaves it evicted).
 * *FILE gets the file's path (malloc'd, the caller frees; NULL when none
 * was found). Returns 0 or -errno (-ENOENT: no file found, -ENODATA: PATH
 * is an empty file).
 */
int ms_io_cache_probe(const char *path, char **file,
		      struct stg_cache_probe *out);

/* ==== end io ==== */

#endif /* FEEDRATE_MEASURE_H */
