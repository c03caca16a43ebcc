/*
 * engine_internal.h - what the pipeline engine's files share (engine.c,
 * read_stage.c, worker_pool.c, gpu_emu.c). Not part of loader's public
 * interface. The DESIGN comment at the top of engine.c explains the
 * threads, the queues and who owns each field below.
 */
#ifndef FEEDRATE_ENGINE_INTERNAL_H
#define FEEDRATE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>

#include "loader.h"

/*
 * A counter with one writer thread and any number of readers: the owner
 * adds with a plain load + store (no locked instruction), others read a
 * torn-free value at any time.
 */
typedef _Atomic uint64_t ldr_ctr;

static inline void ldr_ctr_add(ldr_ctr *c, uint64_t d)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed)
			      + d, memory_order_relaxed);
}

static inline uint64_t ldr_ctr_get(ldr_ctr *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

struct ldr_rec;

/* A 64-bit finalizer (murmur3's): which positions or shards are probed
 * for residency is decided by mix(position ^ seed) against a threshold. */
static inline uint64_t ldr_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xFF51AFD7ED558CCDull;
	x ^= x >> 33;
	x *= 0xC4CEB9FE1A85EC53ull;
	return x ^ (x >> 33);
}

/* One sample read (or failed) on its way from a reader to a worker. */
struct ldr_item {
	uint64_t pos;           /* the run's global position */
	const void *data;
	uint64_t len;
	struct stg_buf *buf;    /* file reads; NULL when RESULT != 0 */
	struct ldr_rec *rec;    /* shard records; NULL when RESULT != 0 */
	int result;             /* 0, or the read's -errno / -STG_E* */
	uint32_t shard;         /* shards: the file, and the record's */
	uint64_t off;           /* offset in its (decompressed) stream */
	uint64_t epoch;         /* shards: the epoch it was read for */
	bool staged;            /* DATA lies in its batch's staging area */
};

/*
 * A retained block of a shard reader's pool (shard_stage.c): a segment of
 * the reader's window that records point into (SEG), or a record's own
 * buffer (a record moved out of a segment the reader needs back). REFS:
 * the reader's own reference to its current segment plus one per record
 * that points into it; the last release puts it back on its pool's free
 * list. Only the reader thread writes DATA's bytes and the other fields,
 * and only while it is off the free list and REFS counts no record.
 */
struct ldr_rec {
	struct ldr_rec_pool *pool;
	struct ldr_rec *next;
	uint8_t *data;
	size_t cap;
	_Atomic unsigned refs;
	bool seg;
	uint64_t stamp;         /* seg: when the reader took it (its order) */
	size_t used;            /* seg: bytes written, largest since taken */
};

/* Drop one reference to REC (NULL ok); the last puts it back on its
 * reader's free list and wakes the reader. Any thread. */
void ldr_rec_release(struct ldr_rec *rec);

static inline void ldr_item_release(const struct ldr_item *it)
{
	stg_buf_release(it->buf);
	ldr_rec_release(it->rec);
}

/* Bounded MPMC queue of items: a ring under one mutex, two condvars. */
struct ldr_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct ldr_item *ring;
	unsigned cap, head, count;
	unsigned pop_waiters, push_waiters;
	_Atomic unsigned occupancy;   /* mirror of count, for sampling */
};

/*
 * One batch slot of the ring. FREE_FOR: the batch allowed to fill it next
 * (b, b+P, b+2P ...): stored with release by the consumer that frees it,
 * loaded with acquire by readers before they issue a position of it.
 * READY_FOR: the batch complete in it, stored under ready_lock by the
 * worker that completes it. FILL, BAD: samples placed (failed ones too),
 * reset by the freeing consumer before FREE_FOR moves on.
 * FREE_FOR, read by every reader per sample, has a cache line of its own:
 * on the line of FILL/BAD (a locked add by a worker per sample) each add
 * would take the line away from the readers. DATA, READY_FOR go with what
 * the workers write.
 */
/* A batch's staging area (stage.c): fields under LOCK. */
struct ldr_stage {
	pthread_mutex_t lock;
	size_t first;                   /* the first chunk's size */
	size_t grow;                    /* a later chunk's least size */
	unsigned n;                     /* chunks held */
	unsigned cur;                   /* the chunk being filled */
	size_t used;                    /* bytes of it taken */
	uint64_t batch_bytes;           /* staged by the current batch */
	uint64_t held;                  /* bytes of every chunk */
	bool unpinned;                  /* some chunk could not be locked */
	uint8_t *chunk[LDR_STAGE_CHUNKS];
	size_t cap[LDR_STAGE_CHUNKS];
};

/* Its first chunk of FIRST bytes. 0 or -ENOMEM. */
int ldr_stage_init(struct ldr_stage *s, size_t first);
/* Frees every chunk; accepts a zeroed area. */
void ldr_stage_fini(struct ldr_stage *s);
/* Starts the next batch: the bytes the last one staged. */
uint64_t ldr_stage_rewind(struct ldr_stage *s);

struct ldr_slot {
	alignas(64) _Atomic uint64_t free_for;
	alignas(64) _Atomic unsigned fill;
	_Atomic unsigned bad;
	_Atomic uint64_t ready_for;
	uint8_t *data;
	struct ldr_stage *stage;        /* NULL: the transform has none */
};

struct ldr_err_table {
	unsigned n;
	struct ldr_err_count e[LDR_ERR_KINDS];
};

struct ldr_engine;

struct ldr_reader_ctx {
	struct ldr_engine *e;
	unsigned idx;
	pthread_t tid;
	bool started;
	struct stg_reader *r;           /* destroyed by ldr_run after join */
	struct stg_stream *st;          /* shards: the reader's stream */
	struct ldr_rec_pool *pool;      /* shards: its record buffers, freed
	                                   after join */
	struct ldr_sampler *sampler;
	int fatal;                      /* mid-run error, read after join */
	ldr_ctr bytes, files;
	ldr_ctr dec_bytes;              /* shards: bytes decompressed */
	ldr_ctr moved;                  /* shards: records moved out of a
	                                   segment the reader needed back */
	ldr_ctr probed_reads, probed_bytes, probed_hit, probe_errors;
	_Atomic unsigned pending;       /* reads in flight, for sampling */
	struct stg_histo read_lat;      /* window only; read after join */
	/* the ids this reader read (completed or failed) in each of the
	 * first epochs; read after join */
	struct ldr_digest dig[LDR_DIGEST_EPOCHS];
	struct stg_completion comp[64];
	struct ldr_item items[64];
} __attribute__((aligned(64)));

struct ldr_worker_ctx {
	struct ldr_engine *e;
	unsigned idx;
	pthread_t tid;
	bool started;
	void *tctx;
	int init_err;
	ldr_ctr busy_ns, wait_ns;
	ldr_ctr decode_ns, resize_ns, other_ns;
	ldr_ctr decomp_bytes;           /* steps' decompressed_bytes */
	ldr_ctr staged_bytes;           /* steps' staged_bytes */
	ldr_ctr path_n[LDR_PATHS_MAX];  /* good samples per path */
	struct stg_histo lat;           /* window only; read after join */
	struct ldr_err_table errs;      /* read after join */
} __attribute__((aligned(64)));

struct ldr_gpu_ctx {
	struct ldr_engine *e;
	unsigned idx;
	pthread_t tid;
	bool started;
	ldr_ctr compute_ns, wait_ns;
	ldr_ctr samples, good, batches;
} __attribute__((aligned(64)));

struct ldr_engine {
	const struct ldr_config *cfg;   /* read-only during the run */
	struct ldr_transform tf;
	const struct stg_dataset *ds;
	int root_fd;
	unsigned readers, workers, gpus, consumers, batch, prefetch;
	uint64_t per_epoch;             /* positions per epoch (this rank) */
	/* shards: this rank's shards (dataset file ids, ascending); all of
	 * them with one rank */
	uint64_t *rank_shards;
	uint64_t rank_nshards;
	uint64_t pos_limit;             /* UINT64_MAX: no epoch limit */
	uint64_t total_batches;         /* UINT64_MAX: no epoch limit */
	uint64_t step_ns;
	size_t out_bytes, slot_bytes;
	struct ldr_stage *stages;       /* one per slot; NULL: none */
	_Atomic uint64_t stage_batch_max; /* the most one batch staged */

	void *slot_mem;
	size_t slot_mem_len;
	struct ldr_slot *slots;         /* prefetch of them */
	/* Per position p in flight, at p % (prefetch x batch): the id and the
	 * submit time. Written by the reader that issues p, read by the worker
	 * that takes p (ordered by the queue's mutex); p + P x B reuses the
	 * entry only after p's batch was consumed. */
	uint64_t *pos_id, *pos_t;
	uint64_t pos_ring;

	/* Hot shared fields sit on cache lines of their own (alignas): the
	 * cursor takes an atomic add per sample from every reader, the queue
	 * lock is taken per group by readers and per sample by workers, and
	 * stop/window_on are read per sample by every thread. A store to any
	 * of them must not take a line the others keep reading. The engine
	 * is allocated with its alignment (aligned_alloc). */
	alignas(64) _Atomic uint64_t cursor;    /* next position to issue */
	_Atomic uint64_t shard_cursor;  /* shards: next (epoch, shard) claim,
	                                   taken once per shard */
	alignas(64) struct ldr_queue q;

	alignas(64) pthread_mutex_t slot_lock;  /* readers wait here for a
						   free slot */
	pthread_cond_t slot_cv;
	pthread_mutex_t ready_lock;     /* consumers wait here for a batch */
	pthread_cond_t ready_cv;
	_Atomic unsigned ready_count;   /* complete batches not yet taken */

	/* synchronous-step barrier of the emulated GPUs */
	pthread_mutex_t bar_lock;
	pthread_cond_t bar_cv;
	unsigned bar_arrived;
	uint64_t bar_gen, bar_start_ns;

	/* start gate, end of the run, requests to the main thread */
	pthread_mutex_t ctl_lock;
	pthread_cond_t ctl_cv;
	unsigned inited;                /* threads past their set-up */
	int init_err;
	bool go;
	unsigned consumers_done;

	/* read per sample by every thread, written once or twice a run */
	alignas(64) _Atomic int stop;
	_Atomic int window_on;          /* 1 while the measurement runs */
	uint64_t window_good0;          /* good samples at the window start,
	                                   written before window_on is set */
	uint64_t probe_threshold;       /* probe p when hash(p) < this */

	/* written by workers per failed sample, by readers when the probe
	 * method changes */
	alignas(64) _Atomic bool max_errors_hit, samples_reached;
	_Atomic uint64_t errors_total;
	_Atomic int fatal;              /* first reader error mid-run */
	_Atomic int probe_method;       /* LDR_PROBE_*: stored only when it
	                                   changes */

	alignas(64) struct ldr_reader_ctx *rd;
	struct ldr_worker_ctx *wk;
	struct ldr_gpu_ctx *gp;
};

/* probe_method's values: storage's enum stg_residency_method */
enum {
	LDR_PROBE_NONE = STG_RESIDENCY_NONE,
	LDR_PROBE_CACHESTAT = STG_RESIDENCY_CACHESTAT,
	LDR_PROBE_MINCORE = STG_RESIDENCY_MINCORE,
};

/* Samples in batch B (the last batch of an epoch-limited run is short). */
static inline unsigned ldr_batch_count(const struct ldr_engine *e,
				       uint64_t b)
{
	uint64_t first = b * e->batch;

	if (e->pos_limit - first >= e->batch)
		return e->batch;
	return (unsigned)(e->pos_limit - first);
}

static inline bool ldr_stopping(struct ldr_engine *e)
{
	return atomic_load_explicit(&e->stop, memory_order_acquire) != 0;
}

/* Count sample ID, read for epoch EPOCH, in reader RC's digests (the
 * first LDR_DIGEST_EPOCHS epochs only). Reader thread. */
static inline void ldr_reader_digest(struct ldr_reader_ctx *rc,
				     uint64_t epoch, uint64_t id)
{
	if (epoch < LDR_DIGEST_EPOCHS)
		ldr_digest_add(&rc->dig[epoch], id);
}

/* Set the stop flag and wake every waiter (first call only). */
void ldr_engine_stop(struct ldr_engine *e);

/* Wake the main thread to look at the flags again. */
void ldr_engine_notify(struct ldr_engine *e);

/*
 * A thread's set-up is done (ERR: 0 or -errno): report it and wait for the
 * start. Returns true when the run goes ahead, false when it was called
 * off (then the thread cleans up and returns).
 */
bool ldr_engine_started(struct ldr_engine *e, int err);

/* Block until the stop flag is set: threads stay alive until then, so the
 * main thread can read their CPU clocks. */
void ldr_engine_wait_stop(struct ldr_engine *e);

/* work queue (worker_pool.c) */
int ldr_queue_init(struct ldr_queue *q, unsigned cap);
void ldr_queue_fini(struct ldr_queue *q);
/* Push N items; blocks while full. Once the run stops, the items not
 * pushed have their buffers released. */
void ldr_queue_push(struct ldr_engine *e, const struct ldr_item *it,
		    unsigned n);
/* Release every buffer still queued (after the threads are joined). */
void ldr_queue_drain(struct ldr_queue *q);

void *ldr_reader_main(void *arg);
void *ldr_shard_reader_main(void *arg);
void ldr_rec_pool_free(struct ldr_rec_pool *p);

/* How much of file NAME (SIZE bytes) is cached, before it is read: counted
 * in RC's probe counters (read_stage.c). */
void ldr_probe_residency(struct ldr_reader_ctx *rc, const char *name,
			 uint64_t size);
void *ldr_worker_main(void *arg);

/* What the diagnosis of a run needs besides its result. */
struct ldr_diag_in {
	double au_threshold;    /* 0: LDR_DEFAULT_AU_THRESHOLD */
	unsigned depth;         /* the file reader's; 0: LDR_DEFAULT_DEPTH */
	unsigned readers, workers, gpus;
	double gpu_rate;
	bool shards;            /* the files are shards, streamed in */
	uint32_t read_size;     /* reads of this size (0: the default) */
	unsigned stream_depth;  /* this many in flight (0: the default) */
	uint64_t files;         /* dataset files (shards) */
};

/*
 * Sets RES->bottleneck and bottleneck_why from RES's window figures (AU,
 * worker busy and wait, reader CPU, read latency, reads in flight, bytes
 * read and decompressed) and IN. Pure: tests feed it made-up results.
 */
void ldr_diagnose(const struct ldr_diag_in *in, struct ldr_result *res);
void *ldr_gpu_main(void *arg);
void *ldr_drain_main(void *arg);

#endif /* FEEDRATE_ENGINE_INTERNAL_H */
