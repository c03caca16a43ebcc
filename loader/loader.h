/*
 * loader.h - public interface of feedrate's pipeline engine.
 *
 * The engine has the shape of a training input pipeline:
 *
 *   sampler ─► reader threads ─► worker pool ─► batch ring ─► emulated GPUs
 *   (shuffle,   (stg_reader,      (transform     (P slots of    (G consumers,
 *    shard)      bounded bytes)    into slots)    B samples)     step_time)
 *
 * It knows nothing about workloads: what a worker does to a sample is a
 * transform given by the caller (workloads/ provides imagenet's), and the
 * GPU demand is a number of samples/s. Memory is bounded by the reader's
 * in-flight bytes, the P batch slots and the listing; nothing is allocated
 * per sample once the run has started.
 *
 * Conventions: 0 or -errno; create/destroy pairs, destroy accepts NULL.
 */
#ifndef FEEDRATE_LOADER_H
#define FEEDRATE_LOADER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage.h"

/* ---- sampler --------------------------------------------------------- */

/*
 * A seeded shuffle of N sample ids per epoch, sharded by (rank, world) the
 * way PyTorch's DistributedSampler does: the permutation of epoch E depends
 * only on (seed, E); rank R takes positions R, R+W, R+2W, ... With
 * DROP_LAST the tail that does not divide by WORLD is dropped, otherwise
 * the permutation is padded by wrapping around so every rank gets the same
 * count. One sampler belongs to one thread at a time.
 */
struct ldr_sampler;

int ldr_sampler_create(uint64_t n, uint64_t seed, unsigned rank,
		       unsigned world, bool drop_last,
		       struct ldr_sampler **out);
void ldr_sampler_destroy(struct ldr_sampler *s);

/* Compute the order of epoch EPOCH (0-based): O(N), nothing allocated;
 * no work when EPOCH is the one the sampler holds (epoch 0 after
 * create). */
void ldr_sampler_set_epoch(struct ldr_sampler *s, uint64_t epoch);

/* Samples this rank sees per epoch. */
uint64_t ldr_sampler_len(const struct ldr_sampler *s);

/* The I-th sample id of this rank in the current epoch (I < len). */
uint64_t ldr_sampler_get(const struct ldr_sampler *s, uint64_t i);

/* ---- transform: what a worker does to one sample --------------------- */

/* Per-step CPU seconds of one sample, filled by the transform. */
struct ldr_step_times {
	double decode_s;
	double resize_s;
	double other_s;
	uint64_t decompressed_bytes; /* bytes the transform inflated or
	                                decompressed (DEFLATE .npz members);
	                                0 for none */
	/* A failing transform may say more than its code: */
	const char *err_kind;   /* a finer key for the count (a static
	                           string, e.g. "zip_central_dir"); NULL:
	                           ldr_sample_err_name of the code */
	bool err_at;            /* err_off is set: */
	uint64_t err_off;       /* the byte of the sample's data where the
	                           fault was found (the example then reads
	                           "path@offset") */
	/* Transforms with a staging area (ldr_transform.stage_bytes): */
	struct ldr_stage *stage; /* set by the worker before apply: the
	                            sample's batch's staging area */
	bool in_stage;          /* DATA already lies in STAGE (read there:
	                           ldr_transform.stage_reads) */
	uint64_t staged_bytes;  /* bytes the sample put there */
	unsigned path;          /* which of the transform's paths the
	                           sample took (index into its paths[]) */
};

/* ---- a batch's staging area ----------------------------------------- */

/*
 * A transform whose output has a variable part (the compressed bytes or
 * coefficients a GPU decoder is handed) puts it in its batch's staging
 * area, beside the fixed out_bytes of each sample: page-locked memory
 * (mlock, best effort) as a pinned host buffer that a copy to the GPU
 * takes, allocated by the engine per prefetched batch, grown in chunks
 * to the largest batch seen and then reused. Everything a batch staged
 * stays valid until its consumer frees the batch.
 */
#define LDR_STAGE_CHUNKS 64u
#define LDR_PATHS_MAX 4u

struct ldr_stage;

/*
 * LEN bytes (rounded up to 4 KiB) of host memory as a pinned buffer is:
 * faulted in now, on transparent huge pages where the kernel gives them
 * (a buffer that cycles through tens of MiB misses the TLB on every 4 KiB
 * page otherwise: 3-4x slower to fill on this project's VMs), and locked
 * (mlock; *LOCKED false where the memlock limit refused). NULL when no
 * memory. Free with ldr_pinned_unmap(P, the same LEN). Any thread.
 */
void *ldr_pinned_map(size_t len, bool *locked);
void ldr_pinned_unmap(void *p, size_t len);

/*
 * N bytes (16-byte aligned) of STAGE for the calling worker's sample, or
 * NULL when the area cannot grow (out of memory, or LDR_STAGE_CHUNKS
 * chunks). Any reader or worker thread; serialized by the area's own
 * lock.
 */
void *ldr_stage_alloc(struct ldr_stage *stage, size_t n);

/*
 * Error kinds a transform returns (negated), besides -errno. They are
 * counted by kind in the result.
 */
enum ldr_sample_err {
	LDR_ECORRUPT = 3001,    /* the bytes do not decode */
	LDR_ETRUNCATED,         /* the file ends early */
	LDR_EUNSUPPORTED,       /* a format or variant not handled */
	LDR_ETOOBIG,            /* over the pixel/size cap */
	LDR_ENOTFORMAT,         /* not the expected format at all */
};

struct ldr_transform {
	const char *name;       /* for reports: "imagenet-train", "noop" */
	size_t out_bytes;       /* bytes one sample takes in a batch slot */
	void *arg;              /* passed to ctx_create */
	/* One context per worker thread, created on that thread. */
	int (*ctx_create)(void *arg, void **ctx);
	void (*ctx_destroy)(void *ctx);
	/*
	 * Turn LEN bytes of sample ID (epoch EPOCH, run seed SEED) into
	 * out_bytes at OUT. Must be deterministic in (bytes, seed, epoch, id)
	 * and allocate nothing once warm. Returns 0 or a negative code.
	 */
	int (*apply)(void *ctx, const void *data, size_t len, uint64_t seed,
		     uint64_t epoch, uint64_t id, void *out,
		     struct ldr_step_times *st);
	/* A staging area per batch (see ldr_stage_alloc): its first chunk's
	 * size; 0 for none (st->stage is then NULL). */
	size_t stage_bytes;
	/* The readers read each file straight into its batch's staging area
	 * where they can (buffered reads of a listed size; else into their
	 * own buffers as for any transform): for a transform whose payload
	 * is the file's bytes as they are (st->in_stage says which). */
	bool stage_reads;
	/* Names of the paths a sample may take (st->path), e.g. "hw",
	 * "hybrid"; NULL entries end the list. The result counts samples
	 * per path when paths[0] is set. */
	const char *paths[LDR_PATHS_MAX];
};

/*
 * A transform that copies min(len, out_bytes) bytes and zeroes the rest of
 * its output: for engine tests and the engine-cost benchmark. out_bytes is
 * 4096 (ctx_create and ctx_destroy may be NULL in any transform, as here);
 * ldr_transform_noop_sized() gives one with another out_bytes (> 0).
 */
extern const struct ldr_transform ldr_transform_noop;
struct ldr_transform ldr_transform_noop_sized(size_t out_bytes);

/* Short stable key of a sample error code: "corrupt", "truncated",
 * "unsupported", "pixels_over_cap" (over the decoder's pixel or scan cap;
 * "too_big" in older reports), "not_format", or stg_errname()'s for -errno
 * and the reader's own codes ("ENOENT", "file_over_cap", ...). */
const char *ldr_sample_err_name(int err);

/* ---- a run ------------------------------------------------------------ */

/* ---- defaults, named once ------------------------------------------- */

/* Every folder and every piece of prose takes these from here. */
#define LDR_DEFAULT_BATCH 256u          /* samples per batch (DLE ResNet-50
                                           trains at batch 256 per GPU) */
#define LDR_DEFAULT_DEPTH STG_DEFAULT_DEPTH /* reads in flight per
                                           reader: the storage layer's */
#define LDR_DEFAULT_AU_THRESHOLD 0.90   /* "fed": AU >= 90 % (MLPerf
                                           Storage; 70 % where a workload
                                           says so) */
/*
 * The fed rule, written once: GPUs measured at AU AU met AU_THRESHOLD,
 * with LDR_AU_SLACK of tolerance so that an AU equal to the threshold
 * counts (a NaN AU is not fed). Header-only here because loader/ sits
 * below judge/ and its bottleneck classification needs the same rule;
 * judge/ exports it as jdg_fed(), and every other folder asks judge/.
 */
#define LDR_AU_SLACK 1e-12
static inline bool ldr_au_fed(double au, double au_threshold)
{
	return au + LDR_AU_SLACK >= au_threshold;
}
#define LDR_DEFAULT_WARMUP_S 2.0        /* warm-up excluded from a window */
#define LDR_DEFAULT_DURATION_S 20.0     /* a run's measured window */
#define LDR_DEFAULT_STALL_TIMEOUT_S 30.0 /* --stall-timeout: no read
                                           completed this long while
                                           reads are in flight */
#define LDR_RAM_SLACK 1.25              /* a --ram point whose page cache
                                           grew past this x the asked size
                                           was not limited (it ran warm) */

enum ldr_gpu_sync {
	LDR_GPU_SYNC_ALL = 0,   /* a step starts when every GPU has its batch */
	LDR_GPU_SYNC_NONE,      /* independent consumers */
};

enum ldr_bottleneck {
	LDR_BOTTLENECK_UNKNOWN = 0,
	LDR_BOTTLENECK_CPU,     /* workers busy, waiting on nothing */
	LDR_BOTTLENECK_STORAGE, /* workers starved while reads are in flight */
	LDR_BOTTLENECK_GPU,     /* AU >= threshold: the VM feeds these GPUs */
};

/* ---- sharded datasets ---------------------------------------------- */

#define LDR_DEFAULT_SHUFFLE_BUFFER 1000u /* records held per reader to
                                           shuffle within (WebDataset's
                                           shuffle() default bufsize) */

/*
 * What the engine needs of a shard format, as callbacks (the loader knows
 * no format: workloads/ fills these). Codes are 0 or negative; ERR_NAME
 * names the codes the callbacks return (NULL for others).
 */
struct ldr_shard_ops {
	size_t scan_size;       /* bytes of one scanner's state */
	/* Start scanning shard SHARD (a dataset file id) into SCAN. */
	void (*scan_init)(void *arg, void *scan, uint64_t shard);
	/* formats.h's wl_scan_next contract: 1 a record [*OFF, *OFF+*LEN)
	 * inside the window; 0 more bytes needed (keep from *KEEP_FROM);
	 * <0 an error at *ERR_OFF that ends the shard. */
	int (*scan_next)(void *scan, const uint8_t *win, uint64_t win_base,
			 size_t win_len, bool eof, uint64_t *off,
			 uint64_t *len, uint64_t *keep_from,
			 uint64_t *err_off);
	/* Decompressor of compressed shards (NULL: none are). */
	int (*dec_create)(void *arg, void **dec);
	void (*dec_destroy)(void *dec);
	/* Start a stream whose first bytes are FIRST and that decompresses
	 * to TOTAL bytes (0: unknown); 1 when it may be decompressed
	 * straight into one buffer of OUT_CAP bytes that stays put
	 * (aug_zstd_begin's contract), 0 for any buffer each call. */
	int (*dec_begin)(void *dec, const uint8_t *first, size_t len,
			 uint64_t total, uint64_t out_cap);
	int (*dec_run)(void *dec, const uint8_t *in, size_t in_len,
		       size_t *in_pos, uint8_t *out, size_t out_cap,
		       size_t *out_pos);
	int (*dec_end)(void *dec);      /* 0, or the code of a stream that
	                                   ended inside a frame */
	int truncated_err;      /* the code of a shard with fewer records than
	                           counted */
	int missing_err;        /* the code of a shard that is not there
	                           (0: its -ENOENT) */
	const char *(*err_name)(int err);
	void *arg;
};

struct ldr_shards {
	const uint64_t *records;        /* per dataset file: its records, as
	                                   counted at open (an error that ends
	                                   a shard's walk counts as one) */
	const uint8_t *compressed;      /* per file: 1 when dec_* apply; NULL
	                                   none */
	const uint64_t *raw_bytes;      /* per file: decompressed size when
	                                   known (0: unknown); NULL none */
	uint64_t total;                 /* the sum: records per epoch */
	const struct ldr_shard_ops *ops;
	uint32_t read_size;             /* bytes per read; 0 = 1 MiB */
	unsigned read_depth;            /* reads in flight per reader; 0 =
	                                   STG_STREAM_DEPTH_DEFAULT */
	unsigned shuffle_buffer;        /* per reader; 0 = default; 1 = none */
	uint64_t max_record;            /* the scanner's bound: the window */
	unsigned blocks;                /* retained blocks (window segments)
	                                   per reader; 0 = planned from the
	                                   records held (tests: a few) */
};

/*
 * The memory one shard reader of a run over DS holds at most: its record
 * buffers (shuffle buffer, work queue and workers' worth, each at the
 * size it starts with), its window (a compressed shard read whole: the
 * largest), the stream's blocks. READERS, DEPTH (reads in flight of the
 * file reader: they size the work queue), WORKERS as in ldr_config (0:
 * defaults). For a memory cgroup's budget; any thread.
 */
uint64_t ldr_shard_reader_bytes(const struct ldr_shards *sh,
				const struct stg_dataset *ds, unsigned readers,
				unsigned depth, unsigned workers);

struct ldr_config {
	const struct stg_dataset *ds;   /* the listing; not owned */
	const struct ldr_shards *shards; /* NULL: a sample per file; else the
	                                   files are shards (not owned); with
	                                   world > 1 split by rank, see
	                                   ldr_run */
	struct stg_reader_config reader;
	unsigned readers;       /* reader threads, each with a stg_reader;
	                           0 = 1 */
	unsigned workers;       /* transform threads; 0 = stg_cpus_usable() */
	unsigned batch;         /* samples per batch; 0 = LDR_DEFAULT_BATCH */
	unsigned prefetch;      /* batch slots in the ring; 0 =
	                           ldr_default_prefetch(gpus); raised to the
	                           GPU count when below it (a synchronous
	                           step needs one slot per GPU) */
	unsigned queue_depth;   /* samples read and waiting for a worker;
	                           0 = max(2 x depth x readers, 4 x workers) */
	struct ldr_transform transform;
	uint64_t seed;
	unsigned rank, world;   /* 0, 1 on a single node */
	bool drop_last;

	unsigned gpus;          /* emulated GPUs; 0 = no consumer (raw feed) */
	double gpu_rate;        /* samples/s one GPU eats (> 0 when gpus) */
	enum ldr_gpu_sync gpu_sync;
	double au_threshold;    /* 0 = LDR_DEFAULT_AU_THRESHOLD */

	double warmup_s;        /* excluded from the measurement; <0 = none,
	                           0 = default (the first LDR_DEFAULT_WARMUP_S
	                           or 2 batches per GPU, whichever is later) */
	double duration_s;      /* stop after this much measured time; 0 =
	                           no limit */
	uint64_t epochs;        /* stop after this many epochs; 0 = no limit */
	uint64_t samples;       /* stop after this many measured samples */
	uint64_t max_errors;    /* stop when this many samples failed; 0 = no
	                           limit */
	volatile int *stop;     /* set non-zero (e.g. by a signal) to stop */

	/*
	 * Window alignment (ranks of a cluster measure the same wall-clock
	 * span): > 0, the measured window starts when CLOCK_REALTIME reaches
	 * this many seconds since the epoch; the pipeline runs before it as
	 * its warm-up (warmup_s is then ignored). A start already past when
	 * the pipeline is ready opens the window at once (the result's
	 * start_late_s says by how much). 0 = off.
	 */
	double start_realtime;

	/* Hit-ratio measurement: probe this share of reads (0..1) for page
	 * cache residency before they are issued. 0 = no probing. Not done
	 * with the null backend (there are no files). */
	double probe_fraction;

	/*
	 * With reader.backend AUTO and PROBE_BACKEND set, ldr_run first
	 * resolves AUTO by stg_backend_probe() with BACKEND_PROBE's options
	 * (its stop flag defaults to STOP): in this process, on this CPU
	 * mask, before any thread starts and outside the measurement. The
	 * result's backend_reason then carries the probe's numbers. Without
	 * it AUTO means io_uring wherever the kernel allows it.
	 */
	bool probe_backend;
	struct stg_probe_opts backend_probe;

	/*
	 * Called on the consuming thread (an emulated GPU, or the drain
	 * thread when gpus = 0) with each batch before its slot is reused:
	 * DATA holds SAMPLES samples of transform.out_bytes, the run's
	 * positions BATCH x batch .. + SAMPLES - 1 (failed samples are
	 * zeros). For tests and checks; NULL = none. It runs inside the
	 * GPU's step, so keep it short.
	 */
	void (*on_batch)(void *arg, uint64_t batch, const void *data,
			 unsigned samples);
	void *on_batch_arg;

	/* Where the running totals are published while the pipeline runs
	 * (ldr_live_publish, every LDR_LIVE_PERIOD_S), for a parent that
	 * must report a child it had to kill; NULL = not published. */
	struct ldr_live_rec *live;
};

#define LDR_SERIES_MAX 3600     /* 1-second points kept, at most */
#define LDR_ERR_KINDS 16

struct ldr_err_count {
	char kind[24];          /* "ENOENT", "corrupt", "file_over_cap", ... */
	uint64_t count;
	char example[256];      /* one path, as rpt_path_text would print it
	                           is the report's job: raw bytes here */
};

struct ldr_series_point {
	double t_s;             /* seconds since the measurement started */
	double samples_per_s;
	double read_bytes_per_s;
	double au;
	double work_queue;      /* samples read and waiting for a worker */
	double ready_batches;   /* full batches waiting for a GPU */
};

/*
 * A commutative digest of the sample ids read in one epoch: count, and
 * the sum and xor of a 64-bit mix of each id (splitmix64's output for the
 * id). The digests of the ranks of a cluster merge (count and sum add,
 * xor xors) into the cluster's, to be checked against
 * ldr_digest_expected: every sample exactly once per epoch. Ids: the file
 * index of a one-file sample, the global record id of a shard record (the
 * records of the shards before it in the listing, plus its index).
 */
struct ldr_digest {
	uint64_t count, sum, xor_;
};

#define LDR_DIGEST_EPOCHS 4     /* epochs digested, the first ones */

/* Add sample ID to *D. Any thread (one digest, one thread). */
void ldr_digest_add(struct ldr_digest *d, uint64_t id);

/* Merge *D into *INTO (the two may come from different ranks). */
void ldr_digest_merge(struct ldr_digest *into, const struct ldr_digest *d);

/* The same three fields. */
bool ldr_digest_equal(const struct ldr_digest *a,
		      const struct ldr_digest *b);

/*
 * The digest the whole cluster's epoch EPOCH must add up to, into *OUT:
 * for one-file samples (SHARDS false) over N files read with
 * (SEED, WORLD, DROP_LAST), the ids DistributedSampler gives out across
 * the ranks: 0..N-1 plus the ones repeated as padding (without
 * DROP_LAST), or the ones kept (with it); for shards, records 0..N-1
 * (every record once: shards are split by rank, never padded; SEED,
 * EPOCH and DROP_LAST do not matter). Returns 0, -EINVAL (WORLD 0), or
 * -ENOMEM. O(N), allocates a permutation; any thread.
 */
int ldr_digest_expected(uint64_t n, uint64_t seed, uint64_t epoch,
			unsigned world, bool drop_last, bool shards,
			struct ldr_digest *out);

struct ldr_result {
	bool window_partial;     /* the child was killed before it sent its
	                            result: only its last published running
	                            totals are here (ldr_live_to_result),
	                            up to window_end_realtime */
	bool stopped_by_signal;  /* *cfg->stop was set */
	bool stopped_by_max_errors;
	bool warmup_incomplete;  /* the run ended before the warm-up did:
	                            the window is then the whole run */
	/* the configuration as run, defaults resolved */
	unsigned readers, workers, batch, prefetch, gpus;
	double measured_s;      /* wall time of the measurement window */
	double warmup_s;        /* wall time excluded before it */
	uint64_t samples;       /* good samples delivered to GPUs (or the
	                           drain) in the window; samples_per_s
	                           counts these */
	uint64_t samples_failed; /* failed samples (zeros) delivered in the
	                            window, not in samples */
	uint64_t batches;
	uint64_t epochs_done;   /* complete epochs since the start */
	/* CLOCK_REALTIME seconds of the window measured (every run) */
	double window_start_realtime, window_end_realtime;
	double start_late_s;    /* window start - cfg start_realtime (>= 0;
	                           0 when not asked) */
	/* The digests of the first epochs this rank read whole (every
	 * position read, good or failed; an epoch cut short by the stop is
	 * not counted), warm-up included. */
	unsigned digest_epochs;
	struct ldr_digest epoch_digest[LDR_DIGEST_EPOCHS];
	double samples_per_s;
	double au;              /* overall: compute / (compute + wait),
	                           as MLPerf Storage defines it (README.md,
	                           "What a run's words mean") */
	double au_per_gpu[64];  /* the first 64 GPUs */
	double step_time_s;     /* batch / gpu_rate */
	enum ldr_bottleneck bottleneck;
	char bottleneck_why[384]; /* the numbers behind the diagnosis */

	/* stages, in the window: CPU seconds (thread CPU clocks) and wall */
	double reader_cpu_s;
	double worker_cpu_s;
	double consumer_cpu_s;  /* emulated GPU / drain threads */
	double process_cpu_s;   /* the whole process (psync pool, io-wq
	                           workers and the main thread included) */
	double worker_busy_s;   /* wall time workers spent transforming */
	double worker_wait_s;   /* wall time workers waited for a sample */
	struct ldr_step_times steps; /* summed over the window's samples */
	double gpu_compute_s;
	double gpu_wait_s;

	uint64_t read_bytes;    /* bytes read in the window */
	double read_bytes_per_s;
	uint64_t decompressed_bytes; /* bytes decompressed in the window:
	                                the shard readers' zstd output and
	                                the transforms' (steps); 0 none */
	/* the transform's paths (names empty past the last) and its good
	 * samples on each, in the window */
	char path_names[LDR_PATHS_MAX][24];
	uint64_t path_samples[LDR_PATHS_MAX];
	/* a transform with a staging area: bytes staged in the window, the
	 * most one batch staged, the area's memory at the end, and whether
	 * all of it was locked in memory (pinned) */
	uint64_t staged_bytes;
	uint64_t stage_batch_max;
	uint64_t stage_held_bytes;
	bool stage_pinned;
	double mean_work_queue; /* sampled occupancy */
	double mean_ready_batches;
	double mean_reads_in_flight;
	struct stg_histo sample_lat;  /* read submit -> transform done, ns */
	struct stg_histo read_lat;    /* the reader's completion latency, ns */

	uint64_t records_moved; /* shards: records copied out of a retained
	                           block the reader needed back (the rest
	                           reach the workers where they were read) */
	uint64_t probed_reads;  /* reads probed for residency */
	uint64_t probed_bytes;
	uint64_t probed_hit_bytes; /* bytes resident before the read */
	uint64_t probe_errors;  /* probes that could not be made */
	char probe_method[16];  /* "cachestat", "mincore", "" */

	/* errors cover the whole run, warm-up included */
	uint64_t errors;        /* failed samples, all kinds */
	unsigned err_kinds;
	struct ldr_err_count err[LDR_ERR_KINDS];

	char backend[16];
	char backend_reason[256];
	char reader_notes[256];

	unsigned series_len;
	struct ldr_series_point series[LDR_SERIES_MAX];
};

/* The batch slots a run with GPUS emulated GPUs makes when its config's
 * prefetch is 0: 2 per GPU, at least 4 (what a ram point's memory cgroup
 * must hold beside its page cache). Any thread. */
unsigned ldr_default_prefetch(unsigned gpus);

/*
 * Run the pipeline with CFG until a stop condition, in the calling process
 * (pinning is the caller's: see ldr_run_pinned). Fills *RES (which may be
 * large: allocate it). Returns 0 when the run completed (sample errors are
 * in RES), or -errno when it could not start (-EINVAL for a bad config,
 * -ENODATA when this rank has no sample, with RES->bottleneck_why saying
 * why, e.g. "rank 3 of 4 has no shard: the dataset has 3 shards"; a
 * reader's or a transform context's error, no memory). A reader that
 * fails mid-run stops the run: RES is filled and its error returned.
 * Thread: any; creates and joins all its threads before returning. Stops
 * within ~50 ms of *cfg->stop.
 *
 * Ranks (cfg->world > 1): one-file samples follow the sampler
 * (DistributedSampler). Shards are split statically: the shard list is
 * shuffled once with cfg->seed (the same on every rank) and rank R takes
 * the shards at positions R, R+W, R+2W, ... (WebDataset's split_by_node);
 * each epoch the rank shuffles its own shards. Every record is read once
 * per epoch across the ranks, but ranks hold different numbers of
 * records, so their epochs differ in length (drop_last does not apply).
 */
int ldr_run(const struct ldr_config *cfg, struct ldr_result *res);

/* "cpu", "storage", "gpu", "unknown". */
const char *ldr_bottleneck_name(enum ldr_bottleneck b);

/* ==== placement ==== */

/*
 * Where a measurement runs: which CPUs (SMT sibling pairs within one NUMA
 * node: a cloud vCPU is a hyperthread), in a pinned child process, inside an
 * optional memory cgroup (--ram SIZE), with the CPU time spent outside the
 * mask measured from /proc/stat; and the LRU estimate of the page-cache
 * hit ratio where no cgroup can be made. /proc and /sys are read under the
 * storage layer's sysroot (FEEDRATE_SYSROOT) so tests can use fixtures.
 */

#include <sched.h>
#include <sys/types.h>

/* ---- the choice of K CPUs (loader/cpuset.c) ---- */

/* CPU lists, SMT siblings and usable CPUs are the storage layer's
 * (stg_cpulist_parse, stg_cpu_siblings, stg_cpus_usable). */

/* How the CPUs of a choice were found. */
enum ldr_cpu_pick {
	LDR_CPU_PICK_SMT_PAIRS = 0, /* sibling pairs (whole cores) */
	LDR_CPU_PICK_NO_SMT,        /* one thread per core on this machine */
	LDR_CPU_PICK_FIRST,         /* topology unreadable: first K of mask */
};

struct ldr_cpu_choice {
	cpu_set_t set;          /* the K CPUs */
	unsigned count;         /* K */
	enum ldr_cpu_pick pick;
	int node;               /* NUMA node holding them all; -1 when
	                           unknown or when they span nodes */
	unsigned split_cores;   /* cores of which only one thread is taken */
	char how[320];          /* one line for the report, e.g. "4 CPUs as
	                           2 SMT sibling pairs on NUMA node 0: 0-1,8-9" */
};

/*
 * Choose K CPUs out of USABLE (NULL: this process's affinity mask) the
 * way a cloud VM with K vCPUs gets them: whole cores (SMT sibling pairs,
 * from /sys/devices/system/cpu/cpuN/topology/thread_siblings_list) within
 * one NUMA node (/sys/devices/system/node/nodeM/cpulist), lowest numbers
 * first; an odd K takes one thread of a core, preferring a core whose
 * other threads are not usable anyway. The node that pairs best is taken,
 * the lowest-numbered on ties; when no single node has K usable CPUs the
 * choice spans nodes (node -1, said in HOW). Where the topology cannot be
 * read, the first K CPUs of the mask are taken and HOW says why.
 * Returns 0; -EINVAL for K = 0; -ERANGE when K exceeds the usable CPUs;
 * -errno from sched_getaffinity. On error OUT->how holds the message
 * ("--vcpus 5: only 2 CPUs are usable (0-1)"). Any thread.
 */
int ldr_cpus_choose(unsigned k, const cpu_set_t *usable,
		    struct ldr_cpu_choice *out);

/*
 * The CPUs of local rank LOCAL_RANK among LOCAL_SIZE ranks sharing one
 * node: USABLE (NULL: this process's affinity mask) cut into LOCAL_SIZE
 * contiguous slices in CPU order, slice LOCAL_RANK into *OUT. Cores (SMT
 * sibling groups, read as ldr_cpus_choose reads them) are kept whole
 * when there are at least as many cores as ranks; else the CPUs are cut
 * one by one. Slices differ by at most one core (or CPU); the later ones
 * are the larger. With fewer CPUs than ranks, rank L gets CPU number
 * L mod ncpus of USABLE and *SHARED is set (ranks then share CPUs); else
 * *SHARED is false. SHARED may be NULL. Returns 0, -EINVAL (LOCAL_SIZE
 * 0, LOCAL_RANK >= LOCAL_SIZE, no usable CPU) or -errno from
 * sched_getaffinity. Any thread.
 */
int ldr_cpus_node_share(const cpu_set_t *usable, unsigned local_rank,
			unsigned local_size, cpu_set_t *out, bool *shared);

/* ---- busy CPU time per CPU from /proc/stat (loader/procstat.c) ---- */

/*
 * One snapshot of the per-CPU lines of /proc/stat. busy = user + nice +
 * system + irq + softirq, in clock ticks (guest time is already inside
 * user and nice; idle, iowait and steal are not work done on the CPU).
 */
struct ldr_cpu_times {
	cpu_set_t present;      /* CPUs that had a line */
	uint64_t busy[CPU_SETSIZE];
};

/*
 * Read the sysroot's /proc/stat into *OUT. Returns 0, -errno when it
 * cannot be read, or -EINVAL when it holds no per-CPU line. Any thread.
 */
int ldr_cpu_times_read(struct ldr_cpu_times *out);

/*
 * Busy seconds between BEFORE and AFTER of the CPUs NOT in MASK (CPUs
 * present in both snapshots; counters that went backwards count 0).
 * Ticks are converted with sysconf(_SC_CLK_TCK).
 */
double ldr_cpu_times_busy_outside(const struct ldr_cpu_times *before,
				  const struct ldr_cpu_times *after,
				  const cpu_set_t *mask);

/* ---- memory cgroup for --ram SIZE (loader/memcg.c) ---- */

/*
 * A memory cgroup made for one measurement: a child of this process's own
 * cgroup named feedrate-<pid>-<n>, with memory.limit_in_bytes (cgroup v1)
 * or memory.max (v2) set to the limit. The hierarchy is found by
 * stg_cgroup_find (the sysroot's mountinfo and /proc/self/cgroup); v1's
 * memory controller is preferred when both are mounted (the v2 tree then
 * has no memory controller). Owned by the creating process. Groups left by a
 * process that was killed before its cleanup (its pid gone, no task
 * inside) are removed by the next ldr_memcg_create under the same parent.
 * cgroup v2 enables a controller for child groups only in a group without
 * processes: when this process is alone in its group, the first create
 * moves it into a leaf group feedrate-<pid>-self beside the measurement
 * groups and enables memory on the emptied group; the last destroy
 * disables it again (only if it was enabled here) and moves the process
 * back. A group shared with other processes is refused (-EBUSY, with a
 * reason that says to run feedrate in a delegated scope of its own).
 */
struct ldr_memcg;

/*
 * Create the cgroup with LIMIT_BYTES (> 0). Returns 0 and *OUT, or -errno
 * with one line for a user in WHY (WHY_LEN bytes; may be NULL): no memory
 * controller mounted, no permission to create the group (e.g. not root,
 * or a v2 tree delegated without the memory controller), the limit
 * refused. The caller then estimates the hit ratio (ldr_lru_*) and labels
 * it estimated, with this reason. Any thread; not async-signal-safe.
 */
int ldr_memcg_create(uint64_t limit_bytes, struct ldr_memcg **out,
		     char *why, size_t why_len);

/*
 * Move process PID (0: the caller) into CG. Writes cgroup.procs, so every
 * thread moves; meant to be called by a fresh child before it allocates.
 * Only open/write/close: safe right after fork(). Returns 0 or -errno.
 */
int ldr_memcg_enter(const struct ldr_memcg *cg, pid_t pid);

/* The cgroup's folder (real path, not under the sysroot); owned by CG. */
const char *ldr_memcg_path(const struct ldr_memcg *cg);

/* 1 or 2: the cgroup version in use. */
int ldr_memcg_version(const struct ldr_memcg *cg);

/*
 * Bytes charged to CG now (memory.usage_in_bytes / memory.current) and the
 * page cache part of it (memory.stat "cache" / "file"); either pointer may
 * be NULL. Returns 0 or -errno.
 */
int ldr_memcg_usage(const struct ldr_memcg *cg, uint64_t *usage,
		    uint64_t *cache);

/*
 * The most bytes ever charged to CG since it was made, page cache
 * included (memory.max_usage_in_bytes / memory.peak, which kernels before
 * 5.19 lack under v2) into *PEAK. Returns 0 or -errno.
 */
int ldr_memcg_peak(const struct ldr_memcg *cg, uint64_t *peak);

/*
 * Remove CG's folder and free CG (NULL ok). Processes still inside are
 * moved to this process's own group first; the removal is retried for up
 * to a second while exiting tasks leave. The last group of the process
 * undoes what create changed under cgroup v2 (see above). Returns 0, or
 * -errno when the folder could not be removed or the v2 change not undone
 * (CG is freed all the same).
 */
int ldr_memcg_destroy(struct ldr_memcg *cg);

/* ---- the measurement child (loader/pinned.c) ---- */

/*
 * Work run in the child: fill OUT (OUT_LEN bytes) and return 0 or -errno.
 * STOP is set non-zero by the child's SIGINT/SIGTERM handler; the work
 * should end soon after and still fill OUT.
 */
typedef int (*ldr_child_fn)(void *arg, volatile int *stop, void *out,
			    size_t out_len);

struct ldr_child_opts {
	const cpu_set_t *cpus;          /* NULL: keep the parent's mask */
	const struct ldr_memcg *memcg;  /* NULL: stay in this cgroup */
};

struct ldr_child_report {
	int fn_result;          /* what the work returned in the child */
	int signal;             /* SIGINT/SIGTERM forwarded to it, or 0 */
	double wall_s;          /* fork to reap */
	double cpu_outside_mask_s; /* busy CPU seconds, system-wide, on CPUs
	                              outside opts.cpus during the child's
	                              run; -1 when /proc/stat is unreadable
	                              or no mask was given */
	char why[256];          /* words for a failure, "" otherwise */
	bool stalled;           /* the watchdog saw the storage stall and
	                           the child was killed (STALL says how) */
	struct stg_stall stall;
	int held_pid;           /* a child that did not end within
	                           LDR_CHILD_END_S of its SIGKILL (a thread
	                           in uninterruptible sleep): left to the
	                           kernel, not reaped; 0 none */
	bool got_out;           /* OUT came back whole from the child */
};

/*
 * Run FN(ARG, stop, OUT, OUT_LEN) in a fresh forked child that, before
 * anything else, moves itself into OPTS->memcg and pins itself to
 * OPTS->cpus, so every thread and io_uring ring it creates inherits the
 * mask (the storage reader also pins each ring's io-wq workers). The child
 * sends OUT back through a pipe and exits; the parent reads it into its
 * own OUT, reaps the child and fills *REP. While the child runs, SIGINT
 * and SIGTERM in the parent are forwarded to it (the child sets stop and
 * still sends its partial OUT); the parent's previous handlers are
 * restored afterwards. Call it from a single-threaded parent (fork).
 * Returns 0 when the child sent OUT (REP->fn_result may still be
 * negative); -ECHILD when it died or exited without sending (REP->why says
 * how, e.g. "killed by signal 9 (Killed)"); -errno for fork/pipe/affinity
 * failures. Never waits on a dead child.
 */
int ldr_child_run(const struct ldr_child_opts *opts, ldr_child_fn fn,
		  void *arg, void *out, size_t out_len,
		  struct ldr_child_report *rep);

/*
 * ldr_child_run's result (ERR so far) for a child left to the kernel
 * (REP->held_pid): a result sent whole stands, only the child's exit
 * hangs (a loaded machine's or a sanitizer's slow teardown, after the
 * exit deadline's SIGKILL); else -ETIMEDOUT for a stall, -EINTR when no
 * result came. Pure.
 */
int ldr_child_held_err(int err, const struct ldr_child_report *rep);

/*
 * ldr_run(CFG, RES) in a pinned child (ldr_child_run with CPUS and MEMCG,
 * either may be NULL); cfg->stop is replaced in the child by the flag its
 * signal handler sets. When a signal was forwarded and cfg->stop is not
 * NULL, *cfg->stop is set to the signal number in the parent. *REP gets
 * the CPU time outside the mask and the reasons. Returns ldr_run's result,
 * or the error of ldr_child_run.
 */
int ldr_run_pinned(const struct ldr_config *cfg, const cpu_set_t *cpus,
		   const struct ldr_memcg *memcg, struct ldr_result *res,
		   struct ldr_child_report *rep);

/* ---- running totals that outlive a killed child (loader/live.c) ---- */

#define LDR_LIVE_PERIOD_S 0.1   /* the engine publishes this often */

/* What a killed measurement child leaves behind: its window so far (or
 * the whole run, WINDOW false, while still in the warm-up), as the
 * engine's result would count it. */
struct ldr_live {
	bool window;                    /* the measurement window had opened */
	unsigned readers, workers, batch, prefetch, gpus;
	double measured_s;              /* window start to publication */
	double warmup_s;
	double window_start_realtime;
	double published_realtime;      /* CLOCK_REALTIME of publication */
	double step_time_s;
	uint64_t samples, samples_failed, batches, epochs_done;
	uint64_t read_bytes, errors;
	double gpu_compute_s, gpu_wait_s;
	double reader_cpu_s, worker_cpu_s, consumer_cpu_s, process_cpu_s;
	double worker_busy_s, worker_wait_s;
	double decode_s, resize_s, other_s;
};

struct ldr_live_rec;    /* shared between a parent and its children */

/*
 * A record in shared anonymous memory, to be made before fork: the
 * children write it, the parent reads it, also after a child was
 * killed. Starts empty. NULL when it cannot be mapped. Destroy with
 * ldr_live_destroy (NULL is fine). Any thread.
 */
struct ldr_live_rec *ldr_live_create(void);
void ldr_live_destroy(struct ldr_live_rec *rec);

/*
 * Publish V (one writer at a time per record: the engine's main
 * thread). A writer killed in the middle leaves the previous
 * publication readable. REC NULL: nothing.
 */
void ldr_live_publish(struct ldr_live_rec *rec, const struct ldr_live *v);

/*
 * The last whole publication into *OUT; false when none was made.
 * Any thread or process sharing REC, whether or not the writer lives.
 */
bool ldr_live_read(const struct ldr_live_rec *rec, struct ldr_live *out);

/*
 * *RES (cleared first) from V, with window_partial set: the counts,
 * rates, AU and stage times; histograms, series, error kinds and the
 * bottleneck's diagnosis are not carried (empty, bottleneck unknown).
 */
void ldr_live_to_result(const struct ldr_live *v, struct ldr_result *res);

/* ---- the watchdog: stalls and signals end a command in bounded time
 *      (loader/watchdog.c) ---- */

#define LDR_CHILD_STOP_S 0.5    /* a signalled child has this long to send
                                   its partial result before SIGKILL */
#define LDR_CHILD_END_S 1.0     /* after SIGKILL, this long to end; then
                                   it is left to the kernel */
#define LDR_SIGNAL_END_S 1.5    /* after SIGINT/SIGTERM, the watchdog
                                   writes the report itself when the
                                   command has not begun to */
#define LDR_STALL_END_S 2.5     /* after a stall is seen, likewise */

/*
 * After a signal at SIG_NS, does the watchdog write the report itself at
 * NOW_NS? Once LDR_SIGNAL_END_S has passed, unless S (the stall record
 * then; NULL: no record) shows the storage still answering: a read or
 * write completed within the last LDR_SIGNAL_END_S, whether or not more
 * are in flight. The command is then draining (a checkpoint's last
 * writes) or has just drained and cleans up (removes its shards), not
 * stuck: it ends on its own, the take-over comes a grace after the last
 * completion, or the stall rule fires once nothing completes for
 * --stall-timeout. Pure; any thread.
 */
bool ldr_signal_takeover(uint64_t now_ns, uint64_t sig_ns,
			 const struct stg_watch_snap *s);

struct ldr_watchdog_opts {
	double stall_timeout_s;         /* 0: LDR_DEFAULT_STALL_TIMEOUT_S */
	volatile sig_atomic_t *stop;    /* the command's signal flag, NULL
	                                   none */
	/*
	 * Write the command's report when its own thread cannot (stuck in
	 * the kernel): called on the watchdog thread with the stall (NULL
	 * for a signal) and the signal (0 for a stall); returns the exit
	 * status, with which the process then _exits. What it reads must
	 * be set before ldr_watchdog_start or be guarded by the caller.
	 */
	int (*report)(void *arg, const struct stg_stall *stall, int sig);
	void *arg;
	/* No take-over after a signal, only after a stall: a rank under
	 * mpirun, whose orderly end (its child stopped, the results
	 * gathered, rank 0's cluster report) takes longer than
	 * LDR_SIGNAL_END_S, and whose launcher SIGKILLs it after its own
	 * kill delay all the same. */
	bool no_signal_takeover;
};

/*
 * Start the watchdog thread (stg_watch_init must have run). Every 100 ms
 * it asks stg_watch_assess about the shared record; on a stall it kills
 * the measurement child (ldr_child_run's), and when the command's thread
 * has not claimed the report (ldr_watchdog_claim) LDR_STALL_END_S later
 * (LDR_SIGNAL_END_S after a signal), it calls O->report and _exits. Main
 * thread; one watchdog at a time. Returns 0 or -errno.
 */
int ldr_watchdog_start(const struct ldr_watchdog_opts *o);

/* Stop and join it (bounded: it only sleeps and reads). NULL-safe. */
void ldr_watchdog_stop(void);

/* Whether the watchdog saw a stall; *OUT (optional) gets it. Any
 * thread. */
bool ldr_watchdog_stall(struct stg_stall *out);

/*
 * The command's thread takes the writing of the report. False when the
 * watchdog already writes it: the caller must then write nothing and
 * wait (ldr_watchdog_park) for the process to end.
 */
bool ldr_watchdog_claim(void);

/* Sleep until the process is ended by the watchdog. */
void ldr_watchdog_park(void) __attribute__((noreturn));

/* The stall timeout in force (seconds); 0 when no watchdog runs. */
double ldr_watchdog_timeout(void);

/* ldr_child_run's current child, for the watchdog to kill (0 none). */
void ldr_watchdog_child(int pid);

/*
 * Run the rest of the program in a child of this process (loader/
 * supervise.c): returns 0 in the child; the calling process waits for
 * the child's ldr_supervised_done and exits with that status, even when
 * the child cannot finish exiting (a thread in uninterruptible sleep),
 * or with the child's own end. SIGINT/SIGTERM/SIGHUP sent to this
 * process alone are forwarded. The supervisor's own end sends the
 * command PARENT_DEATH_SIG (SIGTERM: a stop with its partial report;
 * SIGKILL for a rank of mpirun, whose launcher's kill of the pid it
 * started must end the rank). Call first thing in main, before any
 * thread; FEEDRATE_NO_SUPERVISOR in the environment turns it off (then
 * it returns 0 at once).
 */
int ldr_supervise(int parent_death_sig);

/*
 * Have a signal sent to the process, but handed to a thread stuck in the
 * kernel that cannot run its handler, handed to the calling thread
 * instead (its handler then runs on this thread). Any thread.
 */
void ldr_signals_take_pending(void);

/* The command's exit STATUS to the supervisor: its report is written.
 * Any thread, once; a no-op when unsupervised. */
void ldr_supervised_done(int status);

/* ---- LRU estimate of the page-cache hit ratio (loader/lru_sim.c) ---- */

/*
 * A file-granular LRU cache of CACHE_BYTES over files 0..N-1: the page
 * cache of a VM with that much RAM for caching, replaying a run's access
 * order. O(1) per access, nothing allocated after create. A file larger
 * than the whole cache is a miss and leaves the cache empty (reading it
 * through flushed everything). One simulator belongs to one thread.
 */
struct ldr_lru_sim;

struct ldr_lru_stats {
	uint64_t accesses, hits;
	uint64_t bytes, hit_bytes;
	uint64_t cached_bytes;  /* resident now */
};

/* Returns 0 and *OUT, or -EINVAL (N = 0), -ENOMEM. */
int ldr_lru_sim_create(size_t n, uint64_t cache_bytes,
		       struct ldr_lru_sim **out);
void ldr_lru_sim_destroy(struct ldr_lru_sim *s);

/* Read file ID of BYTES bytes: true on a hit. ID must be < N. */
bool ldr_lru_sim_access(struct ldr_lru_sim *s, size_t id, uint64_t bytes);

/* Counters since create or the last reset (the cache keeps its state). */
void ldr_lru_sim_stats(const struct ldr_lru_sim *s,
		       struct ldr_lru_stats *out);
void ldr_lru_sim_reset_stats(struct ldr_lru_sim *s);

/* hit_bytes / bytes, 0 when nothing was read. */
double ldr_lru_stats_ratio(const struct ldr_lru_stats *st);

struct ldr_lru_estimate {
	double first_epoch;     /* byte hit ratio of epoch 0 (cold start) */
	double steady;          /* over epochs 1..EPOCHS-1: the steady state */
	double last_epoch;
	uint64_t epochs;
};

/*
 * Replay EPOCHS epochs (>= 2) of the sampler order a run with (SEED, RANK,
 * WORLD, DROP_LAST) reads DS in, through an LRU cache of CACHE_BYTES,
 * starting empty (the dataset evicted). Sizes come from the listing.
 * Returns 0 or -EINVAL / -ENOMEM. Cost: O(files x epochs).
 */
int ldr_lru_estimate_run(const struct stg_dataset *ds, uint64_t seed,
			 unsigned rank, unsigned world, bool drop_last,
			 uint64_t epochs, uint64_t cache_bytes,
			 struct ldr_lru_estimate *out);

/* ==== end placement ==== */

#endif /* FEEDRATE_LOADER_H */
