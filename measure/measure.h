/*
 * measure.h - the measurement protocol: one point (pipeline, workload,
 * dataset, vCPUs, cache state, GPUs, duration) measured in its pinned
 * child and, for a --ram point, its memory cgroup; the dataset (given, or
 * a generated default); cache states made and verified; the hit ratio;
 * the sweep's planner, budget rule and check runs.
 *
 * measure/ sits between loader/ + workloads/ and cli/. It returns 0 or
 * -errno and result structs, says why in a WHY buffer where a message is
 * due, reports progress through callbacks, and never prints.
 *
 * Threads: everything here runs in the caller's single thread; a point's
 * threads live in the forked child ldr_run_pinned makes, which pins itself
 * (and its io_uring workers) before it creates any; `io`'s reader threads
 * live and end inside ms_io_run (measure_io.c says how). The caller's stop
 * flag is set by its signal handler and read here between steps.
 */
#ifndef FEEDRATE_MEASURE_H
#define FEEDRATE_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader.h"
#include "shardset.h"
#include "storage.h"
#include "workloads.h"

#define MS_DEFAULT_GEN (200ull << 20)   /* the default dataset: 200 MiB */
#define MS_RESIDENCY_FILES 4096         /* files sampled for residency */

/* Remove the folder DIR and everything in it (no links followed).
 * Returns 0 or -errno. */
int ms_rm_tree(const char *dir);

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
	double demand;                  /* samples/s one GPU eats AT THE
	                                   ASKED COUNT: demand_total / count
	                                   (the source's multi-GPU figure
	                                   where it has one for this count),
	                                   demand_single when count is 0.
	                                   Emulated GPUs and every computed
	                                   AU and GPU count use this. */
	double demand_single;           /* one GPU alone: the row's 1-GPU
	                                   figure, or the --gpu-rate rate */
	double demand_total;            /* COUNT GPUs together: wl_demand_total
	                                   (--gpu-rate: count x rate); 0 when
	                                   count is 0 */
	bool demand_multi_measured;     /* demand_total is the source's own
	                                   measured multi-GPU figure */
	const char *demand_basis;       /* "measured", "derived", "estimate",
	                                   or "gpu-rate" */
	double demand_range_lo;         /* the row's range of 1-GPU figures */
	double demand_range_hi;         /* (per GPU); 0 none */
	const char *demand_kind;        /* "train", "mlperf", "ceiling",
	                                   "gpu-rate" */
	const char *demand_source;
	bool demand_est;                /* the row is an estimate (basis) */
	unsigned tokens_per_sample;     /* token workloads: the tokens a
	                                   sample adds (seq_len), so demand in
	                                   tokens/s = samples/s x this; 0 for
	                                   other workloads */
};

/*
 * Resolve --gpus SPEC (NULL: "1", one GPU of the default type) and
 * --gpu-rate RATE (<= 0: none) for workload W and demand KIND into *OUT.
 * OUT->demand is per GPU at the asked count (see struct ms_gpus): 8 x A100
 * is the source's measured 16,621 samples/s, 2,077.6 per GPU, not 8 x
 * 2,470.
 * Without RATE the GPU must have a row in W's table. With RATE a GPU the
 * table lacks is accepted ("4xMYGPU", "MYGPU", "4") when its name is 1 to
 * MS_GPU_NAME_MAX characters of [A-Za-z0-9._-], is not a bare "x" and is
 * not a table name with a stray 'x' appended ("2xA100x"). A spec with a
 * byte outside printable ASCII is refused either way (reports need valid
 * UTF-8). Returns 0, -EINVAL with the user's message in WHY (which holds
 * the spec's bytes as given: the caller escapes WHY where it prints it),
 * or -ENOMEM.
 */
int ms_gpus_resolve(const struct wl_workload *w, const char *spec,
		    enum wl_demand_kind kind, double rate,
		    struct ms_gpus *out, char *why, size_t why_len);

/* ---- the dataset ---- */

/* Progress of generating the default dataset (bytes done of target). */
typedef void (*ms_gen_progress_fn)(void *arg, uint64_t bytes,
				   uint64_t target, bool done);

struct ms_dataset_opts {
	const struct wl_workload *w;
	const char *tag;                /* the generated folder's name part:
	                                   "run", "sweep" */
	const char *dataset;            /* NULL: generate one */
	const char *list;               /* --list FILE, or NULL */
	const char *tmpdir;             /* where to generate; NULL default */
	uint64_t gen_size;              /* 0: MS_DEFAULT_GEN */
	uint64_t seed;
	volatile sig_atomic_t *stop;    /* polled while generating */
	ms_gen_progress_fn progress;    /* NULL: none */
	void *progress_arg;
	enum wl_format format;          /* AUTO: wl_format_detect */
	struct wl_shardset_opts shard;  /* read size, shuffle buffer */
};

struct ms_dataset {
	char gen_dir[4096];             /* the generated dataset, "" none */
	const char *root;               /* the folder read */
	struct stg_dataset *ds;         /* the files (shards: SHARDS's) */
	double gen_s, list_s;           /* time spent generating, listing
	                                   (shards: and counting) */
	enum wl_format format;          /* FOLDER, or a shard format */
	char format_why[256];           /* how it was decided */
	struct wl_shardset *shards;     /* NULL: a sample per file */
};

/*
 * Generate (when O->dataset is NULL) and list the dataset into *MD
 * (zeroed first). Generation goes to a fresh folder under a disk-backed
 * parent (O->tmpdir, else /var/tmp, $TMPDIR, /tmp, "."; never tmpfs) with
 * room for it. Returns 0, or with WHY set: -ENOTSUP (the workload has no
 * generator: a DATASET is needed), -ENOSPC (no folder fits), -EINTR (the
 * stop flag was raised while generating), -ENODATA (nothing to read:
 * no file listed), or the -errno of generating or listing. On failure
 * MD->gen_dir may still name a folder to remove (ms_dataset_close does).
 */
int ms_dataset_open(const struct ms_dataset_opts *o, struct ms_dataset *md,
		    char *why, size_t why_len);

/*
 * Free the listing and, unless KEEP, remove the generated folder. Safe
 * on a zeroed or half-opened MD. Returns 0 or the -errno of removing it.
 */
int ms_dataset_close(struct ms_dataset *md, bool keep);

/* ---- what the command opened, for the watchdog's report
 *      (measure/opened.c) ---- */

struct ms_opened {
	bool set;                       /* a folder was recorded */
	char path[4096];                /* the dataset's folder (ckpt: DIR) */
	bool listed;                    /* the listing ended: files, bytes
	                                   and format are known */
	bool generated;
	uint64_t files, bytes;
	char format[32];
	char fs_type[64];               /* "" not described yet */
	char device[256];
	bool machine;                   /* CPU facts read */
	struct stg_cpu_info cpu;
	struct stg_mem_info mem;        /* total_bytes 0: unread */
};

/*
 * Record the dataset ROOT (NULL: keep the one recorded) and, when MD
 * (may be NULL) holds its listing, its files, bytes and format. A new
 * ROOT forgets what was known of the previous one. ms_dataset_open calls
 * it. Any thread; no I/O.
 */
void ms_opened_dataset(const char *root, const struct ms_dataset *md);

/* Record the filesystem type and device under ROOT (ms_fs_describe calls
 * it): kept when ROOT is the folder recorded, or none is. No I/O. */
void ms_opened_fs(const char *root, const char *fs_type, const char *dev);

/*
 * A copy of the record into *OUT, with the machine's CPU and memory
 * facts read now (from /proc and /sys only: safe while the dataset's
 * storage is stalled). Any thread; for the watchdog's report.
 */
void ms_opened_get(struct ms_opened *out);

/* Forget everything recorded (tests). */
void ms_opened_reset(void);

/*
 * The filesystem and device under ROOT into *FS; *FS_TYPE points into
 * FS ("" unknown), DEV (DEV_LEN bytes) gets "name: model" or "".
 */
void ms_fs_describe(const char *root, struct stg_fs_info *fs,
		    const char **fs_type, char *dev, size_t dev_len);

/* What a report says of the machine and of the storage under a dataset. */
struct ms_machine {
	struct stg_cpu_info cpu;
	struct stg_mem_info mem;
	struct stg_dmi_info dmi;
	struct stg_gpu_info gpus;
	struct stg_fs_info fs;
	const char *fs_type;            /* into fs; "" unknown */
	char fs_device[STG_TEXT_MAX + 80];   /* "name: model", "" unknown */
	unsigned vcpus_usable;          /* stg_cpus_usable() */
};

/* Detect the machine and the filesystem under ROOT into *M. */
void ms_machine_detect(const char *root, struct ms_machine *m);

/* ---- the page-cache state of a point ---- */

/* The verification sample: the mean resident share of the files checked
 * is within MS_VERIFY_BOUND of the dataset's with probability
 * MS_VERIFY_CONFIDENCE (stg_sample_size: 26,492 files); a dataset of no
 * more files than that is checked whole, with no sampling error. */
#define MS_VERIFY_BOUND 0.01
#define MS_VERIFY_CONFIDENCE 0.99
/* A state found already made by such a sample is kept (no eviction, no
 * re-reading): cold and ram at most this resident, warm at least 1 -
 * this. */
#define MS_STATE_HOLDS 0.01

/* Preparation's phases, timed (a point's, or a command's added up). */
struct ms_prep_phases {
	double list_s;          /* the listing (once per command) */
	double evict_s;
	double warm_s;
	double verify_s;        /* residency checks, the probe of one file
	                           and the O_DIRECT open included */
	uint64_t files;         /* files evicted or warmed */
	uint64_t verify_sample; /* files whose residency was checked */
	double verify_bound;    /* the largest sampling error of the shares
	                           verified, at MS_VERIFY_CONFIDENCE; 0 every
	                           file checked; < 0 nothing verified */
	unsigned listings;      /* listings made by the command */
	unsigned reused;        /* states found already made by a sample */
};

/* Add B's times and counts to A (listings and the list time as A's). */
void ms_prep_phases_add(struct ms_prep_phases *a,
			const struct ms_prep_phases *b);

struct ms_cache_prep {
	double fraction;        /* resident share verified after preparing
	                           (the mean over the files checked of each
	                           one's resident share); < 0 unknown */
	bool evict_ineffective; /* eviction does not work here */
	bool warm_refetch;      /* each open drops the cache (FUSE) */
	bool reused;            /* already in the state: a sample said so,
	                           nothing was evicted or read */
	char how[512];          /* how the state was made, in words */
	char note[256];         /* a problem, "" none */
	char method[240];       /* how the files were evicted or warmed:
	                           the ring, or calls and why */
	double prep_s;          /* time it took */
	struct ms_prep_phases ph;
	/* cold: does the filesystem take O_DIRECT? (one file opened with
	 * it; the reader falls back to buffered reads where it does not) */
	bool odirect_refused;
	char odirect_why[200];  /* refused: the filesystem and the error */
};

/* How ms_cache_prepare goes about it; zeroed is the default. */
struct ms_prep_ctl {
	bool already_ok;        /* first check a sample: when the state
	                           already holds (MS_STATE_HOLDS), keep it */
	const cpu_set_t *cpus;  /* the point's vCPUs: one worker each
	                           (NULL: every usable CPU) */
	uint64_t seed;          /* the verification sample's */
	stg_prep_progress_fn progress;  /* each phase's files done (NULL:
	                                   none); nonzero asks to stop */
	void *progress_arg;
};

/*
 * Put DS's page cache into state C (cold and ram: every file evicted;
 * warm: every file read once; with CTL->already_ok, neither when a
 * sample finds the state already holds, as after a cold point that read
 * with O_DIRECT) and verify it on a random sample sized for
 * MS_VERIFY_BOUND (every file when the dataset is no larger); cold: also
 * open one file with O_DIRECT to learn whether the filesystem takes it
 * (OUT->odirect_refused). Each phase is timed into OUT->ph. CTL may be
 * NULL. Fills *OUT. Never writes to the dataset.
 */
void ms_cache_prepare(const struct stg_dataset *ds, enum stg_cache_state c,
		      const struct ms_prep_ctl *ctl, struct ms_cache_prep *out);

/* ---- which pipeline a point measures (measure_python.c) ---- */

/* The pipeline a point runs: feedrate's own engine, or a Python one. */
enum ms_pipeline {
	MS_PIPELINE_NATIVE = 0,         /* loader/'s engine */
	MS_PIPELINE_TORCH,              /* the built-in torchvision
	                                   ImageFolder DataLoader */
	MS_PIPELINE_FILE,               /* python:FILE, the user's
	                                   make_loader() */
	MS_PIPELINE_GPU_DECODE,         /* loader/'s engine with the host's
	                                   share of a GPU JPEG decode
	                                   (workloads' wl_transform_gpu_
	                                   decode): the GPU side modelled */
};

/* gpu-decode's path (--pipeline gpu-decode[:hw|:hybrid]). */
enum ms_gpudec {
	MS_GPUDEC_AUTO = 0,             /* hw where the GPU has NVJPG, else
	                                   hybrid (resolved by the caller) */
	MS_GPUDEC_HW,
	MS_GPUDEC_HYBRID,
};

#define MS_PYTHON_TIMEOUT_S 60.0        /* a runner silent this long is
                                           killed (its import, its first
                                           batch and every step included) */
#define MS_PYTHON_STOP_GRACE_S 5.0      /* after SIGINT, time to send its
                                           last line before it is killed */
#define MS_PYTHON_PROCS_MAX 16          /* processes of a runner described */
#define MS_PYTHON_OWN_BASE (640ull << 20)   /* a ram point's first own-
                                           memory figure for a Python
                                           loader: the main process ... */
#define MS_PYTHON_OWN_WORKER (384ull << 20) /* ... and each worker (the
                                           fill epoch then measures it) */

/* A pipeline as asked (--pipeline, --python, --workers). */
struct ms_pipeline_spec {
	enum ms_pipeline kind;
	const char *file;               /* python:FILE (raw bytes) */
	const char *python;             /* the interpreter asked (--python),
	                                   NULL: python3 on PATH */
	unsigned workers;               /* DataLoader workers; 0: the point's
	                                   vCPUs - 1, at least 1 */
	double timeout_s;               /* silence before the runner is
	                                   killed; <= 0: MS_PYTHON_TIMEOUT_S */
	const char *list;               /* --list FILE (torch reads only its
	                                   files), NULL none */
	enum ms_gpudec gpudec;          /* gpu-decode's path */
};

/* True for the pipelines a Python runner measures (torch, python:FILE);
 * native and gpu-decode run on loader/'s engine. */
bool ms_pipeline_is_python(const struct ms_pipeline_spec *sp);

/*
 * The DataLoader workers a Python pipeline runs at a point of VCPUS
 * vCPUs: ASKED (--workers) when not 0, else VCPUS - 1, at least 1 (the
 * main process, which receives batches and runs the emulated GPUs, has
 * the last vCPU).
 */
unsigned ms_pipeline_workers(unsigned asked, unsigned vcpus);

/*
 * Parse "native", "torch", "python:FILE" (FILE not empty; it points
 * into S) or "gpu-decode[:hw|:hybrid]" into OUT's kind, file and gpudec
 * (the other fields untouched).
 * Returns 0 or -EINVAL.
 */
int ms_pipeline_parse(const char *s, struct ms_pipeline_spec *out);

/*
 * "native", "torch", "python:FILE" or a comma-separated list of them
 * (MAX at most, no repeats) into OUT (kinds and files pointing into BUF,
 * BUF_LEN bytes, which gets a copy of S); *N gets how many. Returns 0 or
 * -EINVAL. (measure/measure_values.c)
 */
int ms_pipelines_parse(const char *s, char *buf, size_t buf_len,
		       struct ms_pipeline_spec *out, unsigned max, unsigned *n);

/* The pipeline's name in reports: "native", "torch", "python:FILE"
 * (FILE as given), "gpu-decode:hw", "gpu-decode:hybrid" ("gpu-decode"
 * before its path is resolved), into BUF (LEN bytes). Returns BUF. */
const char *ms_pipeline_name(const struct ms_pipeline_spec *sp, char *buf,
			     size_t len);

/* How a Python pipeline's runner failed. */
enum ms_python_fail {
	MS_PYTHON_OK = 0,
	MS_PYTHON_NO_INTERPRETER,       /* not found / not executable */
	MS_PYTHON_MISSING_MODULE,       /* torch, torchvision or PIL */
	MS_PYTHON_USER_ERROR,           /* FILE (or the loader) raised */
	MS_PYTHON_TIMEOUT,              /* silent past the timeout: killed */
	MS_PYTHON_CRASH,                /* it ended without a result */
};

/* One process of a runner as it saw itself after the warm-up. */
struct ms_python_proc {
	int pid;
	bool worker;                    /* a child of the main process (the
	                                   DataLoader's workers) */
	char cpus[64];                  /* Cpus_allowed_list */
	char cgroup[192];               /* its memory cgroup's path */
};

/* What the runner of a Python pipeline said of itself. */
struct ms_python_info {
	char interpreter[512];          /* the interpreter run (its path) */
	char python[24], torch[24], torchvision[24], pillow[24];
	char libjpeg[40];               /* "" where unknown */
	unsigned workers;               /* the DataLoader's num_workers */
	unsigned batch;                 /* its batch size */
	unsigned nprocs;                /* processes described, main first */
	struct ms_python_proc procs[MS_PYTHON_PROCS_MAX];
	double main_cpu_s;              /* in the window: the main process
	                                   (batches received, emulated GPUs) */
	double workers_cpu_s;           /* its child processes */
	bool done;                      /* its last line came */
	enum ms_python_fail fail;
	char module[32];                /* MISSING_MODULE: which */
	char tail[1536];                /* a failure: the traceback's last
	                                   lines, else its output's tail */
};

/*
 * Can SP's interpreter run SP's pipeline? Finds it (SP->python, a path or
 * a name looked up in PATH, else python3 on PATH), runs the runner in
 * probe mode (imports and versions only, outside any point) and fills
 * *INFO. Returns 0; -ENOENT (no interpreter: INFO->fail NO_INTERPRETER),
 * -ENOPKG (a module torch needs is missing: MISSING_MODULE, INFO->module),
 * or another -errno; WHY says it for a user, naming the interpreter tried,
 * the module, the Debian and pip packages and --python.
 */
int ms_python_probe(const struct ms_pipeline_spec *sp,
		    struct ms_python_info *info, char *why, size_t why_len);

/*
 * The user's words for INFO's failure into BUF (LEN bytes): the
 * interpreter, the missing module and its packages (Debian's python3-X,
 * pip's X) and --python, or the traceback's last lines. Returns BUF.
 */
const char *ms_python_fail_text(const struct ms_python_info *info,
				char *buf, size_t len);

/*
 * One JSON line LINE of a runner into RES and INFO (a tick adds a point
 * to RES's series and keeps the counts so far; done fills the window's
 * totals; error sets INFO->fail). Lines that are not the runner's are
 * ignored. Returns 0, or -EPROTO when LINE is not JSON.
 */
int ms_python_line(const char *line, struct ldr_result *res,
		   struct ms_python_info *info);

/*
 * The figures of a Python point once its runner has ended: samples/s,
 * AU, the bottleneck (GPU when GPUS emulated GPUs were fed at
 * AU_THRESHOLD, CPU when its processes kept VCPUS busy, else unknown:
 * feedrate cannot see inside a Python loader) and the CPU times.
 */
void ms_python_finish(struct ldr_result *res, const struct ms_python_info *info,
		      unsigned vcpus, double au_threshold);

/* ---- one point ---- */

/*
 * One measurement point. The engine's knobs are as in struct ldr_config
 * (0 = the engine's default). Duration: with WINDOW_S > 0 the point is
 * budgeted (preparing the cache, a ram point's fill epoch and the child's
 * start count against it); otherwise WARMUP_S, DURATION_S, EPOCHS and
 * SAMPLES are the engine's own.
 */
struct ms_point {
	const struct stg_dataset *ds;
	const struct ldr_shards *shards; /* NULL: a sample per file */
	enum stg_cache_state cache;
	unsigned vcpus;                 /* 0 = every usable CPU */
	unsigned workers;               /* transform threads; 0 = vcpus */
	unsigned readers;
	enum stg_backend_id backend;
	unsigned depth;
	uint64_t max_sample_bytes;
	unsigned batch;                 /* 0 = LDR_DEFAULT_BATCH */
	struct ldr_transform transform;
	uint64_t seed;
	unsigned gpus;                  /* 0 = raw feed */
	double gpu_rate;
	enum ldr_gpu_sync sync;
	double au_threshold;
	double warmup_s, duration_s;    /* as in struct ldr_config */
	uint64_t epochs, samples, max_errors;
	double window_s;                /* > 0: the point's whole share */
	uint64_t ram_bytes;             /* ram: the page cache it models */
	double rate_hint;               /* ram, budgeted: expected samples/s,
	                                   to sample the dataset so that its
	                                   epochs fit (0: never sample) */
	bool already_ok;                /* keep a cache state a sample finds
	                                   already made (ms_prep_ctl) */
	stg_prep_progress_fn prep_progress;  /* preparation's progress */
	void *prep_progress_arg;
	struct ms_pipeline_spec pipe;   /* native (zeroed) or a Python one */
	volatile int *stop;
	/* one rank of a cluster (measure/cluster.h); zeroed on one node */
	unsigned rank, world;           /* its DistributedSampler share (world
	                                   0: 1) */
	const cpu_set_t *cpus_from;     /* its vCPUs are chosen among these
	                                   (its node's share); NULL: every
	                                   usable CPU */
	bool cache_by_other;            /* another rank of the node prepares
	                                   the page cache */
	/* called once, after the cache is prepared (OK false: the point will
	 * not run): 0 and the window's start (CLOCK_REALTIME seconds), or an
	 * error that ends the point unmeasured; NULL: no gate */
	int (*gate)(void *arg, bool ok, double *start_realtime);
	void *gate_arg;
	double start_realtime;          /* set by the gate, not the caller */
};

/* What a point measured, besides the engine's struct ldr_result. */
struct ms_point_out {
	bool measured;                  /* RES holds a measurement */
	int err;                        /* 0, or the run's / the child's */
	char err_text[512];             /* words for err, "" none */
	char note[256];                 /* a remark on a measured point
	                                   (e.g. its sample could not be
	                                   made), "" none */
	struct ldr_child_report rep;    /* the pinned child's report */
	struct ldr_cpu_choice cpus;     /* the vCPUs it ran on */
	struct ms_cache_prep prep;
	/* ram points: one protocol for run and sweep */
	uint64_t page_cache_bytes;      /* the page cache modelled (scaled
	                                   with a sample of the dataset) */
	uint64_t cgroup_limit_bytes;    /* page cache + the run's own memory
	                                   (measured on the fill epoch); 0
	                                   when no cgroup could be made */
	uint64_t own_bytes;             /* the run's own memory in the limit */
	uint64_t cache_seen_bytes;      /* page cache charged to the cgroup
	                                   after the run; 0 unknown */
	bool ram_not_limited;           /* it held more than LDR_RAM_SLACK x
	                                   page_cache_bytes: the point ran
	                                   warm */
	bool limit_recalibrated;        /* the fill epoch corrected the
	                                   own-memory estimate */
	bool limit_raised;              /* the first fill epoch was killed at
	                                   the limit: raised, filled again */
	char cg_how[384];               /* the cgroup, in words */
	uint64_t sample_files, sample_bytes;  /* the part of the dataset read */
	/* every point */
	double hit_ratio;               /* < 0 unknown */
	bool hit_estimated;
	char hit_src[256];
	/* cold: O_DIRECT was refused (by the probe of ms_cache_prepare or
	 * by the run's reader, whose notes say so), so the reads went
	 * through the page cache: the hit ratio says whether it stayed
	 * cold */
	bool odirect_refused;
	char odirect_why[200];          /* the filesystem and the error */
	/* the reader as run (measured points) */
	unsigned reads_in_flight_max;   /* reads it keeps in flight: readers
	                                   x depth; 0 unknown */
	double read_latency_s;          /* mean latency of one read (the
	                                   reader's completions); < 0
	                                   unknown */
	/* a Python pipeline: what its runner said (zeroed for native) */
	struct ms_python_info py;
};

/*
 * Measure P into *RES (large: the caller allocates it) and *OUT: choose
 * and pin the vCPUs, prepare and verify the cache state, and for a ram
 * point run the one --ram protocol (run and sweep alike): evict; a memory
 * cgroup whose limit is the page cache asked plus the run's own memory
 * (an estimate, then measured on an unmeasured fill epoch: when the page
 * cache held after it is more than 25 % off, the limit is set from the
 * cgroup's peak and the cache filled again, once); then the measured run
 * (a ram point without a duration: two epochs); then whether the cgroup
 * really limited the cache, and the hit ratio (measured from the engine's
 * residency probes, or estimated by LRU where no cgroup limited it).
 * The stop flag is checked after preparing the cache and before each
 * child; a child already running stops and still reports.
 * Returns 0 when something was measured or the point failed on its own
 * (OUT->measured, OUT->err_text), -EINTR when the stop flag was raised
 * before the measured run gave numbers, or -ETIMEDOUT when the storage
 * stalled (the watchdog saw no read complete for the stall timeout:
 * OUT->rep.stalled and OUT->rep.stall say where; the child was killed).
 */
int ms_point_run(const struct ms_point *p, struct ldr_result *res,
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
 * The steady hit ratio an LRU page cache of RAM bytes gets over DS's
 * shuffled epochs (seed SEED; a simulation, labelled so where shown), or
 * -1 when it cannot be simulated.
 */
double ms_lru_steady(const struct stg_dataset *ds, uint64_t seed,
		     uint64_t ram);

/*
 * Did a --ram point's memory cgroup limit its page cache? ASKED: the page
 * cache it models; SEEN: the page cache charged to the cgroup after the
 * run (0 unknown). False when SEEN > LDR_RAM_SLACK x ASKED: the cgroup
 * had room for more, so the point measured a warmer cache than asked and
 * its hit ratio must not be reported as measured. True when SEEN is
 * unknown.
 */
bool ms_ram_limited(uint64_t asked, uint64_t seen);

/*
 * Can a --ram point's cgroup hold a page cache of ASKED bytes within
 * LDR_RAM_SLACK beside OWN bytes of the run's own memory? The cgroup's
 * limit is their sum, so whatever the run's own memory moves by between
 * the fill epoch and the measured run goes to the page cache: by the
 * recalibration's own margin, 5 % of OWN and 8 MiB. False when that is
 * more than the slack, (LDR_RAM_SLACK - 1) x ASKED: the point cannot be
 * judged, whatever is measured (a small sample of a large dataset: its
 * page cache is scaled down with it, the run's own memory is not).
 * Pure arithmetic; any thread.
 */
bool ms_ram_holdable(uint64_t asked, uint64_t own);

/* The least page cache ms_ram_holdable accepts beside OWN bytes. */
uint64_t ms_ram_holdable_min(uint64_t own);

/*
 * Files of an evenly spread sample of N_FILES whose page cache, RAM_BYTES
 * scaled by the sample's share, is holdable beside OWN bytes: 0 when even
 * all of them is not (RAM_BYTES < ms_ram_holdable_min(OWN): no sample
 * helps), at most N_FILES. Pure arithmetic; any thread.
 */
size_t ms_ram_hold_files(size_t n_files, uint64_t ram_bytes, uint64_t own);

/*
 * P's own memory for a ram point's cgroup on DS, before it is measured:
 * ms_own_memory from P's options and the largest child seen so far, plus
 * the shard readers', gpu-decode's staging and a Python loader's memory.
 */
uint64_t ms_point_own_memory(const struct ms_point *p,
			     const struct stg_dataset *ds);

/*
 * Seconds a budgeted ram point of RAM_BYTES on P's dataset needs at RATE
 * samples/s to read its holdable sample (ms_ram_hold_files) through its
 * fill and measured epochs; 0 when RATE is unknown (<= 0) or no sample is
 * holdable. The sweep reserves it beside the point's share.
 */
double ms_ram_hold_s(const struct ms_point *p, uint64_t ram_bytes,
		     double rate);

/*
 * The run's own memory for a ram point's cgroup, before it is measured:
 * batch slots of PREFETCH x BATCH x OUT_BYTES, ~48 MiB per worker, the
 * read buffers (READERS x DEPTH x MAX_READ) and 96 MiB for the process;
 * at least SEEN_PEAK (a previous child's peak RSS, 0 unknown).
 */
uint64_t ms_own_memory(unsigned workers, unsigned gpus, unsigned batch,
		       size_t out_bytes, unsigned readers, unsigned depth,
		       uint64_t max_read, uint64_t seen_peak);

/*
 * A --ram point's own memory after its fill epoch (no GPU) was seen to
 * take FILL_OWN bytes beside its page cache: FILL_OWN, a margin against
 * the run's own memory growing a little (5 % and 8 MiB, no more than an
 * eighth of PAGE_CACHE, never under 8 MiB), and the batch slots of
 * SLOT_BYTES each that the measured run's GPUS prefetch beyond the fill's
 * (ldr_default_prefetch: a check run with 6 GPUs holds 8 more batches
 * than its fill epoch). Pure arithmetic; any thread.
 */
uint64_t ms_own_recalibrated(uint64_t fill_own, uint64_t page_cache,
			     unsigned gpus, uint64_t slot_bytes);

/*
 * A --ram point's fill child failed with its cgroup's peak (PEAK) at the
 * cgroup's LIMIT (within 64 KiB): the kernel killed it for want of room,
 * its own memory being more than OWN (the estimate is a previous child's
 * peak, and a busy machine's run can take more). The own memory to fill
 * once more with: a quarter more and 64 MiB. 0 when the cgroup was short
 * of its limit (the child failed for another reason). Pure arithmetic.
 */
uint64_t ms_own_after_limit(uint64_t own, uint64_t peak, uint64_t limit);

/* What follows a --ram point's fill epoch (ram_fill). */
enum ms_fill_next {
	MS_FILL_DONE,           /* the measured run follows */
	MS_FILL_RAISE,          /* evict, fill again with more room */
	MS_FILL_RECAL,          /* evict, fill again with the limit set
	                           from the fill's own use */
	MS_FILL_FAIL,           /* the point failed */
};

/*
 * After a fill: FAILED it failed (AT_LIMIT: killed at its cgroup's limit,
 * ms_own_after_limit gave more room); OFF the page cache it left is more
 * than MS_RAM_RECAL off the asked size; RAISED, RECALIBRATED what earlier
 * fills of the point did. The room is raised once, on the first fill;
 * the limit is recalibrated once, after the first fill that ends, so a
 * raised limit's spare room does not stay page cache. Pure.
 */
enum ms_fill_next ms_ram_fill_next(bool failed, bool at_limit, bool off,
				   bool raised, bool recalibrated);

/* ---- the sweep: planner, budget rule, points and check runs ---- */

/* One check run done, as ms_check_next reads it. */
struct ms_check_done {
	unsigned gpus;
	bool run;                       /* it ran and measured an AU */
	double au;
};

/* One planned point: N vCPUs, cache state. */
struct ms_plan_point {
	unsigned vcpus;
	unsigned cache;
	bool ram_axis;          /* another page-cache size of the RAM axis
	                           (all vCPUs): after the top points and
	                           their check runs, before fewer vCPUs */
	double prep_s;          /* preparing its page cache (eviction,
	                           warming), estimated: reserved outside the
	                           shares */
	bool dropped;
	/* out (ms_plan_budget) */
	bool kept;              /* admitted this time */
	bool too_short;         /* dropped although it has all of the VM's
	                           vCPUs: the budget cannot hold it */
};

/* Least time a point needs: warm-up 2 s, 4 s measured, 2 s to spare. */
#define MS_MIN_POINT_S 8.0
#define MS_CONFIRM_S 12.0               /* one check run */
#define MS_CONFIRM_MIN_S 5.0            /* ... shortened to no less than
                                           this when the budget is short:
                                           the all-vCPU points' checks
                                           come before fewer vCPUs */
#define MS_CHECKS_PER_STATE 3           /* G, G + 1 and one for the walk
                                           (G - 1 when G fails, G + 2 when
                                           G + 1 is fed), reserved */
#define MS_CHECKS_NEEDED 2              /* G and G + 1: the walk's run goes
                                           first when the budget is short */
#define MS_CHECKS_MAX 6                 /* check runs of one cache state at
                                           most (= reports' RPT_CHECKS_MAX) */

/* The budget rule's inputs (set) and what it made of them (out). */
struct ms_budget {
	double left_s;                  /* time left */
	unsigned top_vcpus;             /* all of this VM's vCPUs: the plan's
	                                   largest count (0: taken from the
	                                   points) */
	bool keep_two;                  /* SMT siblings here: the 2-vCPU
	                                   points come after the smallest
	                                   count's */
	unsigned nconfirm;              /* check runs to reserve */
	unsigned nconfirm_min;          /* ... or at least these when not
	                                   all fit (0: all or none) */
	double confirm_s;               /* each */
	double confirm_min_s;           /* each at least, shortened to fit
	                                   beside the top points (0: not
	                                   shortened) */
	double min_point_s;
	/* out */
	unsigned confirm_kept;          /* nconfirm, nconfirm_min or 0 */
	double confirm_len_s;           /* each kept check run's length:
	                                   confirm_s, or shorter down to
	                                   confirm_min_s; 0 none kept */
	double prep_s;                  /* reserved for the kept points'
	                                   preparation */
	double top_need_s;              /* what the top points need: min_point_s
	                                   and their preparation each */
	double share;                   /* each kept point's share, >=
	                                   min_point_s; 0 when none is kept */
};

/*
 * The budget rule: which of the N points of P not yet dropped are kept
 * within B->left_s, and their equal share. Each kept point needs
 * B->min_point_s plus its prep_s (the preparation is reserved outside
 * the shares). Points are admitted in this order while they fit: the
 * points with B->top_vcpus vCPUs (cold, ram, warm), then the check runs
 * (all B->nconfirm, shortened down to B->confirm_min_s each to fit; else
 * B->nconfirm_min of them; else none), then the RAM axis's other sizes
 * (ram_axis), then the points with the plan's smallest count, then
 * (B->keep_two) with 2
 * vCPUs, then the other counts from the smallest up, each count cold,
 * ram, warm; the first point that does not fit ends the admission.
 * Points not admitted are marked dropped (top points also too_short).
 * The share is what is left after the preparation and the check runs,
 * split equally. Returns B->share. Pure: no clock, no I/O.
 */
double ms_plan_budget(struct ms_plan_point *p, size_t n, struct ms_budget *b);

/*
 * Which check run comes next. DONE holds the N runs so far of one cache
 * state (done[0] with COMPUTED GPUs, done[1] with COMPUTED + 1, then as
 * this function chose); a run is fed when it ran and its AU is at least
 * AU_THRESHOLD (<= 0: the engine's default). First G = COMPUTED, then
 * G + 1; then when G ran and was not fed, one GPU fewer than the fewest
 * tried while that one was not fed (down to 1); when G + 1 was fed (and
 * G was not refuted), one more than the most tried while that one was
 * fed. At most MAX_RUNS runs. Returns true and *NEXT, or false when no
 * run is due.
 */
bool ms_check_next(const struct ms_check_done *done, size_t n,
		   unsigned computed, double au_threshold, size_t max_runs,
		   unsigned *next);

/*
 * Files of a --ram point's dataset sample: as many as let EPOCHS epochs
 * at RATE samples/s fit in WINDOW_S (with 10 % to spare), at most
 * N_FILES, at least min(N_FILES, MIN_FILES). RATE <= 0: all of them.
 */
size_t ms_ram_sample_files(size_t n_files, double rate, double window_s,
			   unsigned epochs, size_t min_files);

#define MS_SWEEP_MAX_VCPUS 64           /* vCPU counts in one sweep */

/* ---- the RAM axis: page-cache sizes of a sweep's ram points ---- */

#define MS_RAM_SIZES_MAX 8              /* --ram sizes in one sweep */
#define MS_RAM_MIN_BYTES (1ull << 20)   /* the smallest page cache */

/* One --ram size: BYTES, or (FRACTION > 0) that share of the dataset. */
struct ms_ram_size {
	uint64_t bytes;
	double fraction;
};

/* --ram's list: sizes (at least MS_RAM_MIN_BYTES) or shares of the
 * dataset ("25%"), at most MS_RAM_SIZES_MAX, into V; *N how many. 0 or
 * -EINVAL. (measure/measure_values.c) */
int ms_ram_sizes_parse(const char *arg, struct ms_ram_size *v, unsigned *n);

/* The default RAM axis without --ram: half the dataset (the ram state's
 * size at every vCPU count), then a quarter and three quarters (at all
 * vCPUs, as the budget allows). */
#define MS_RAM_DEFAULT_FRACTIONS { 0.5, 0.25, 0.75 }

/*
 * Resolve the N sizes IN (N = 0: MS_RAM_DEFAULT_FRACTIONS) against a
 * dataset of DATASET_BYTES into OUT (MS_RAM_SIZES_MAX entries): a
 * fraction becomes that share of the dataset, every size at least
 * MS_RAM_MIN_BYTES; a size equal to one before it is left out, the
 * order kept (the first is the ram state's size at every vCPU count).
 * Returns how many. Pure.
 */
unsigned ms_ram_sizes_resolve(const struct ms_ram_size *in, unsigned n,
			      uint64_t dataset_bytes, uint64_t *out);

enum ms_sweep_status {
	MS_SWEEP_PLANNED = 0,
	MS_SWEEP_MEASURED,
	MS_SWEEP_DROPPED,               /* the budget rule left no time */
	MS_SWEEP_FAILED,                /* it ran and failed (why says how) */
};

/* One point of a sweep, as run. */
struct ms_sweep_point {
	unsigned vcpus;
	enum stg_cache_state cache;
	enum ms_sweep_status status;
	uint64_t ram_bytes;             /* ram: the page cache asked */
	bool ram_axis;                  /* another size of the RAM axis, at
	                                   all vCPUs (not the ram state's
	                                   size at every count) */
	char why[256];                  /* dropped / failed: words */
	struct ldr_result *res;         /* owned by the sweep */
	struct ms_point_out out;
};

/* Progress, in words ("point 3: 2 vCPUs, ram, 40 s"). */
typedef void (*ms_progress_fn)(void *arg, const char *what);

/*
 * A sweep: BASE is the point every measurement starts from (dataset,
 * transform, engine knobs, GPU rate, seed, stop flag); the sweep sets
 * vCPUs, cache, window, GPUs and the ram size per point.
 */
struct ms_sweep_config {
	struct ms_point base;
	unsigned vcpus[MS_SWEEP_MAX_VCPUS];
	unsigned nvcpus;
	bool cache[STG_CACHE_STATES];
	uint64_t ram_bytes;             /* the ram state's page cache at
	                                   every vCPU count: ms_sweep_plan
	                                   sets it to the first of the
	                                   resolved sizes */
	struct ms_ram_size ram_sizes[MS_RAM_SIZES_MAX];
	unsigned nram_sizes;            /* --ram LIST; 0: RAM_BYTES alone
	                                   when set, else the default axis
	                                   (ms_ram_sizes_resolve) */
	double budget_s;
	double t0;                      /* when the budget started */
	bool keep_two;                  /* the vCPUs are SMT siblings: keep
	                                   the 2-vCPU points (the SMT yield)
	                                   after the 1-vCPU ones */
	bool no_check;
	ms_progress_fn progress;
	void *progress_arg;
};

struct ms_sweep {
	struct ms_sweep_config cfg;
	struct ms_sweep_point *pts;     /* for each vCPU count ascending,
	                                   each cache state asked */
	size_t npts;
	unsigned top_vcpus;             /* the plan's largest count */
	double confirm_len_s;           /* a check run's length, as planned */
	unsigned confirm_left[STG_CACHE_STATES]; /* check runs still
	                                            reserved, each state */
	struct ms_plan_point *plan;
	uint64_t ram_axis[MS_RAM_SIZES_MAX]; /* the resolved page-cache
	                                        sizes, the first the ram
	                                        state's */
	unsigned nram_axis;
	double setup_s;                 /* listing and the first eviction */
	double evict_s;                 /* of which the eviction */
	double warm_est_s;              /* warming the dataset, from a timed
	                                   sample warmed before the eviction;
	                                   0 none made (ms_warm_estimate) */
	double prep_seen[STG_CACHE_STATES]; /* the last preparation measured
	                                       in each state; < 0 none yet */
	double prep_total_s;            /* preparing page caches, in all:
	                                   the first eviction, the points'
	                                   and the check runs' */
	struct ms_prep_phases ph;       /* ... by phase (no listing: the
	                                   caller's) */
	char prep_method[240];          /* how the first eviction went */
	bool cold_held;                 /* the last eviction may still hold
	                                   (only O_DIRECT cold points since):
	                                   a cold or ram point checks a
	                                   sample before evicting again */
	char notes[4096];               /* "" none */
	bool stalled;                   /* a point found the storage
	                                   stalled: the sweep stopped there */
	struct stg_stall stall;
};

/*
 * What warming all of DS will take, from an evenly spread sample of its
 * files (MAX_FILES, fewer where they would hold more than MAX_BYTES)
 * evicted, then warmed and timed, scaled by the files: small files cost
 * their opens and reads, not their bytes, and a sample has the dataset's
 * mean size. 0 where the sample would be under 64 files or over a quarter
 * of the dataset (warming it is quick: the caller's own estimate stands).
 * The probe's time, eviction included, is added to PH's warming; the
 * sample is left warm (a sweep evicts the dataset next).
 */
double ms_warm_estimate(const struct stg_dataset *ds, size_t max_files,
			double max_bytes, struct ms_prep_phases *ph);

/*
 * The budget rule in words, from the constants above, into BUF; with SW
 * (NULL: the help's text) also the preparation time it spent.
 */
void ms_budget_rule_text(const struct ms_sweep *sw, char *buf, size_t len);

/*
 * The ram points of SW measured on a sample of the dataset (their epochs
 * did not fit their share of the budget: ms_ram_sample_files), in words
 * for the sweep's notes, into BUF: each by vCPUs and the share of the
 * dataset asked, with the files it read; "" when none was. Reads SW only.
 */
void ms_sweep_sample_text(const struct ms_sweep *sw, char *buf, size_t len);

/*
 * The default vCPU counts of a sweep on TOTAL usable CPUs: 1, 2, 4, ...
 * below TOTAL, then TOTAL, into OUT (MS_SWEEP_MAX_VCPUS entries). Returns
 * how many.
 */
unsigned ms_sweep_default_vcpus(unsigned total, unsigned *out);

/*
 * Plan SW's points from CFG (zeroes *SW first): every vCPU count by every
 * cache state asked (ram: the first resolved size), then with ram asked
 * one point at the largest count for each other size of the RAM axis;
 * evict the dataset (inside the budget, from CFG->t0;
 * its time is the first estimate of each point's preparation) and plan
 * the budget (ms_plan_budget). Returns 0, -ENOMEM, or -ETIME when the
 * budget leaves no time for a single point (SW is then still to be
 * freed; the dropped top points' why says what they need).
 */
int ms_sweep_plan(struct ms_sweep *sw, const struct ms_sweep_config *cfg);

/*
 * Run every planned point, re-planning the budget before each (points
 * the rule drops are marked so, with why). Returns 0 (points that failed
 * are marked so), -EINTR when the stop flag ended it early (the points
 * not run are then marked dropped, "interrupted"), or -ENOMEM.
 */
int ms_sweep_run_points(struct ms_sweep *sw);

/* A check run: GPUS emulated GPUs at VCPUS in cache state C. */
struct ms_check {
	bool run;                       /* it ran and measured something */
	double au;                      /* measured */
	char why[160];                  /* not run: why */
};

/*
 * Run one check with GPUS emulated GPUs at VCPUS vCPUs in cache state C,
 * when its time is left (else OUT->why says why not): a run reserved for
 * C while one is (it uses it up), else an extra run in the time left
 * beyond the runs still reserved for the other states that have a
 * measured point. A warm check does not re-read a dataset that is still
 * resident. Returns 0 or -ENOMEM.
 */
int ms_sweep_check(struct ms_sweep *sw, unsigned vcpus,
		   enum stg_cache_state c, unsigned gpus, struct ms_check *out);

/*
 * The check runs of cache state C at VCPUS (sweep_walk.c): COMPUTED and
 * COMPUTED + 1 GPUs, then further down while the fewest tried was not
 * fed or further up while the most tried was (ms_check_next, fed at
 * AU_THRESHOLD), as long as time is left (ms_sweep_check). CHECKS[k] and
 * GPUS[k] get the k-th of *N runs (at most MAX, at most MS_CHECKS_MAX).
 * Returns 0 or -ENOMEM.
 */
int ms_sweep_checks(struct ms_sweep *sw, unsigned vcpus,
		    enum stg_cache_state c, unsigned computed,
		    double au_threshold, struct ms_check *checks,
		    unsigned *gpus, size_t max, size_t *n);

/* Which of N pipelines a sweep measures first: native where it is in the
 * list, else the first. */
unsigned ms_pipeline_first(const struct ms_pipeline_spec *pipes, unsigned n);

/*
 * --pipeline LIST's N pipelines one after the other, sharing TOTAL_S
 * equally: MEASURE(ARG, I, TOTAL_S / N) for FIRST, then for the others in
 * list order while each returned 0 and *STOP is clear. *DONE gets how
 * many returned 0. Returns the first non-zero return, else 0.
 */
int ms_sweep_pipelines(unsigned n, unsigned first, double total_s,
		       volatile sig_atomic_t *stop,
		       int (*measure)(void *arg, unsigned i, double budget_s),
		       void *arg, unsigned *done);

/*
 * Was cache C's point at the sweep's largest vCPU count (not a RAM-axis
 * size) dropped for the budget? The verdict then gives C no verdict, so
 * no check runs are due for it.
 */
bool ms_sweep_top_dropped(const struct ms_sweep *sw, enum stg_cache_state c);

/* Free what SW holds (the points' results). */
void ms_sweep_free(struct ms_sweep *sw);

/* ==== `feedrate io`: the storage-only read loop (measure_io.c) ==== */

/*
 * The page cache before an io run: the one cache-state enum's cold
 * (every file evicted first, and again after each read when passes
 * repeat) or warm (every file read once first), or, with this value, left
 * as it is found.
 */
#define MS_IO_CACHE_ASIS STG_CACHE_STATES

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
	enum stg_cache_state cache;     /* STG_CACHE_COLD, STG_CACHE_WARM or
	                                   MS_IO_CACHE_ASIS */
	double duration_s;              /* 0: every file once; else passes
	                                   until this many seconds are up */
	volatile sig_atomic_t *stop;    /* non-zero: claim no more files and
	                                   finish what is in flight; NULL
	                                   none */
	ms_io_progress_fn *progress;    /* NULL: none */
	void *progress_arg;
	bool alone;                     /* a rank's read alone under mpirun:
	                                   the stall watch names every step
	                                   of the run STG_PHASE_ALONE */
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

/* ==== `feedrate ckpt`: a sharded checkpoint saved and restored
 * (measure_ckpt.c) ==== */

#define MS_CKPT_MAX_SHARDS 256          /* writers at once on one VM */
#define MS_CKPT_MEM_MAX (512ull << 20)  /* buffers of every shard together */
/* Free space a checkpoint needs besides its bytes: 1 %, at least this
 * much, for the filesystem's own blocks (extent trees, journal). */
#define MS_CKPT_SLACK_MIN (16ull << 20)

/* A shard's file name: RANK with this format. */
#define MS_CKPT_SHARD_FMT "feedrate-ckpt-rank%05u.bin"

/* Events ms_ckpt_run reports through its callback, on the caller's thread. */
enum ms_ckpt_event {
	MS_CKPT_EV_WRITING = 0,         /* the shards are being written */
	MS_CKPT_EV_SAVED,               /* every shard and the folder are
	                                   synced: the checkpoint is durable */
	MS_CKPT_EV_RESTORING,           /* evicted; reading back */
};

struct ms_ckpt_result;
typedef void ms_ckpt_progress_fn(enum ms_ckpt_event ev,
				 const struct ms_ckpt_result *sofar,
				 void *arg);

struct ms_ckpt_config {
	const char *dir;                /* where the shards go (exists, or
	                                   is made and removed again) */
	uint64_t bytes;                 /* the whole checkpoint */
	unsigned shards;                /* 1..MS_CKPT_MAX_SHARDS, one
	                                   writer thread each */
	struct stg_seq_config io;       /* backend, block, depth, O_DIRECT
	                                   (its stop is set from STOP) */
	uint64_t seed;
	bool keep;                      /* leave the shards after a whole
	                                   save and restore */
	volatile sig_atomic_t *stop;
	ms_ckpt_progress_fn *progress;  /* NULL: none */
	void *progress_arg;
};

/* One direction (save or restore) over every shard. */
struct ms_ckpt_phase {
	bool done;                      /* every shard finished */
	uint64_t bytes;
	double seconds;                 /* from the start of the first shard
	                                   to the end of the last (save: and
	                                   the folder's fsync) */
	double bytes_per_s;             /* bytes / seconds */
	double shard_min_s, shard_median_s, shard_max_s;  /* each shard's own
	                                   time (save: with its fsync) */
	double sync_max_s;              /* save: the longest shard fsync */
};

struct ms_ckpt_result {
	unsigned shards;
	uint64_t shard_bytes;           /* each (the last may be shorter) */
	uint64_t bytes;                 /* the checkpoint, as asked */
	uint64_t free_before;           /* free bytes in DIR before */
	enum stg_backend_id backend;    /* what the first shard ran */
	char backend_reason[200];
	uint32_t block_size;
	unsigned depth;
	struct ms_ckpt_phase save, restore;
	double dir_sync_s;              /* the folder's fsync */
	double resident_before_restore; /* page-cache share of the shards
	                                   after eviction; < 0 unknown */
	uint64_t bad_pages;             /* restore: pages not as written */
	bool made_dir;                  /* DIR was made by the run */
	bool kept;                      /* the shards are still there */
	bool removed_all;               /* every file the run made is gone */
	char err_text[512];             /* words for an error, "" none */
};

/*
 * May a checkpoint of BYTES go into DIR? DIR must be an empty folder, or
 * not exist yet with an existing parent; its filesystem must have BYTES
 * plus 1 % (at least MS_CKPT_SLACK_MIN) free for an unprivileged writer.
 * *FREE_BYTES gets the free space (0 unknown). Looks only, writes
 * nothing. Returns 0, or with WHY (numbers included): -ENOTEMPTY,
 * -ENOSPC (too little space), -ENOTDIR, or the -errno of looking.
 */
int ms_ckpt_check_dir(const char *dir, uint64_t bytes, uint64_t *free_bytes,
		      char *why, size_t why_len);

/*
 * The machine and the storage DIR is on into *M (ms_machine_detect): DIR's
 * own, or its parent's while DIR does not exist yet.
 */
void ms_ckpt_machine(const char *dir, struct ms_machine *m);

/*
 * Save and restore a sharded checkpoint: check DIR (ms_ckpt_check_dir),
 * make it when missing; write CFG->shards files of CFG->bytes together,
 * one thread each, all at once, each fsync'ed, then fsync the folder
 * (MS_CKPT_EV_SAVED); evict the shards from the page cache and read them
 * back, one thread each, checking every page; remove the shards (and a
 * folder it made) unless CFG->keep, and always after a failure or a stop.
 * Only the files it created are ever removed. Fills *OUT (zeroed first).
 * Returns 0; -ENOTEMPTY / -ENOSPC / -ENOTDIR when DIR is refused before
 * anything is written; -EINTR when the stop flag ended it; or the -errno
 * of a write or read (-ENOSPC: the disk filled up after all). OUT->
 * err_text says why. Runs on the calling thread, with its shard threads
 * joined before it returns.
 */
int ms_ckpt_run(const struct ms_ckpt_config *cfg, struct ms_ckpt_result *out);

/* ==== end ckpt ==== */

/* ==== a command's point set up (measure/point_setup.c) ==== */

/*
 * Can the dataset MD take each of the N pipelines PIPES? A Python
 * pipeline reads an image folder, not shards. 0, or -EINVAL with the
 * user's words in WHY.
 */
int ms_pipelines_fit(const struct ms_dataset *md,
		     const struct ms_pipeline_spec *pipes, unsigned n,
		     char *why, size_t why_len);

/*
 * For each gpu-decode pipeline of the N PIPES: -EINVAL (WHY says it)
 * for workload W that is not an image one; an unresolved path becomes hw
 * where GS's GPU has a hardware JPEG decoder (wl_gpu_decoder_find), else
 * hybrid. 0 otherwise.
 */
int ms_gpu_decode_resolve(const struct wl_workload *w,
			  struct ms_pipeline_spec *pipes, unsigned n,
			  const struct ms_gpus *gs, char *why, size_t why_len);

/*
 * P's transform: workload W's (wl_transform_make: its state in TS, which
 * must outlive P; its words in PIPELINE, LEN bytes), records unwrapped
 * first when MD holds shards. 0, -ENOTSUP (W has no pipeline) or the
 * transform's error.
 */
int ms_point_transform(const struct wl_workload *w,
		       const struct ms_dataset *md, struct ms_point *p,
		       struct wl_transform_state *ts, char *pipeline,
		       size_t len);

/*
 * When P->pipe is gpu-decode: P's transform becomes W's gpu-decode one
 * on MD, its staging area sized for BATCH (0: LDR_DEFAULT_BATCH) mean
 * samples of MD; state and words as ms_point_transform. Nothing for
 * other pipelines. 0 or the transform's -errno.
 */
int ms_point_gpu_decode(const struct wl_workload *w,
			const struct ms_dataset *md, unsigned batch,
			struct ms_point *p, struct wl_transform_state *ts,
			char *pipeline, size_t len);

/* ==== end point set up ==== */

#endif /* FEEDRATE_MEASURE_H */
