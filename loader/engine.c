/*
 * engine.c - ldr_run: sets up the pipeline, runs the measurement window,
 * stops, joins and turns the counters into a struct ldr_result.
 *
 * DESIGN
 *
 * Positions. Every sample the run delivers has a global position p,
 * epoch-major: epoch p / L, index p % L in this rank's shuffled order (L =
 * ldr_sampler_len). Batch b = p / B fills slot b % P of a ring of P
 * preallocated, pre-faulted slots of B x out_bytes; batches run across
 * epoch boundaries, and an epoch-limited run ends with one short batch
 * when epochs x L does not divide by B.
 *
 * Threads (all created by ldr_run, all alive until the stop flag is set,
 * so the main thread can read their CPU clocks; then joined):
 *  - R readers (read_stage.c): take positions from the shared atomic
 *    CURSOR, issue p only when slot (b % P) is FREE_FOR b, i.e. batch b - P
 *    was consumed; whole-file reads through their own stg_reader; push
 *    completions into the work queue.
 *  - W workers (worker_pool.c): pop, transform into the slot at
 *    (b % P, p % B), release the read buffer, bump the slot's FILL; the one
 *    that completes the batch publishes READY_FOR = b.
 *  - G emulated GPUs, or one drain thread when G = 0 (gpu_emu.c): take
 *    batch b (GPU b % G) once ready, hold it step_time, free the slot.
 *  - the main thread (here): start gate, warm-up, the 1-second series,
 *    occupancy sampling every 20 ms, stop conditions, the result.
 *
 * Queues and waiting: the work queue is a bounded ring under a mutex with
 * two condvars (no allocation per item); slot_cv (readers waiting for a
 * free slot), ready_cv (consumers waiting for a batch), bar_cv (the
 * synchronous step), ctl_cv (start gate, requests to the main thread).
 * Every wait loop re-checks the STOP flag; ldr_engine_stop sets it and
 * broadcasts every condvar under its mutex, so no waiter can miss it.
 * Memory is bounded: P slots + the reader's in-flight byte budget + the
 * work queue, whatever the dataset size (plus the listing and one
 * permutation array per reader).
 *
 * Ordering: a slot's FILL/BAD are reset by the consumer before it stores
 * FREE_FOR = b + P (release); the reader loads FREE_FOR (acquire) before it
 * issues p, and the item reaches a worker through the queue's mutex, so
 * the worker's FILL bump follows the reset. Workers bump FILL acq_rel, so
 * the last one sees every sample's bytes and publishes READY_FOR (release,
 * under ready_lock) for the consumer's acquire load.
 *
 * Ownership: each thread owns its own counters (ldr_ctr: one writer, any
 * reader) and its histograms/error table (read by main after the join).
 * ERRORS_TOTAL, MAX_ERRORS_HIT, SAMPLES_REACHED, FATAL are shared atomics.
 * WINDOW_GOOD0 is written by main before it sets WINDOW_ON (release).
 *
 * Measurement: at the end of warm-up the main thread snapshots every
 * counter and thread CPU clock; at the stop it snapshots again; the result
 * is the difference. With cfg->start_realtime the warm-up ends when
 * CLOCK_REALTIME reaches it (the main thread's tick is shortened to wake
 * then), so the ranks of a cluster measure the same wall-clock span.
 *
 * Digests: each reader adds the id of every position it read (or failed)
 * to its own digest of the position's epoch (the first LDR_DIGEST_EPOCHS
 * only): no lock, no allocation; they are merged after the join, and an
 * epoch counts as digested when its count is the rank's per_epoch.
 *
 * Histograms record only while WINDOW_ON. Errors cover the whole run.
 * samples/s counts good samples handed to the GPUs (a failed sample fills
 * its place with zeros and completes its batch, but is counted apart).
 *
 * Stop: duration, epochs (the readers run out of positions and the
 * consumers out of batches), samples, max_errors, *cfg->stop, or a reader
 * failing. Shutdown: stop flag and broadcasts; readers issue nothing more
 * and reap what is in flight; workers release what is queued; all threads
 * are joined; then the stg_readers are destroyed (no buffer is held by
 * then).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"

const char *ldr_bottleneck_name(enum ldr_bottleneck b)
{
	switch (b) {
	case LDR_BOTTLENECK_CPU: return "cpu";
	case LDR_BOTTLENECK_STORAGE: return "storage";
	case LDR_BOTTLENECK_GPU: return "gpu";
	default: return "unknown";
	}
}

/* ---- control shared with the stage threads ---- */

static void broadcast(pthread_mutex_t *m, pthread_cond_t *c)
{
	pthread_mutex_lock(m);
	pthread_cond_broadcast(c);
	pthread_mutex_unlock(m);
}

void ldr_engine_stop(struct ldr_engine *e)
{
	if (atomic_exchange(&e->stop, 1))
		return;
	pthread_mutex_lock(&e->q.lock);
	pthread_cond_broadcast(&e->q.not_empty);
	pthread_cond_broadcast(&e->q.not_full);
	pthread_mutex_unlock(&e->q.lock);
	broadcast(&e->slot_lock, &e->slot_cv);
	broadcast(&e->ready_lock, &e->ready_cv);
	broadcast(&e->bar_lock, &e->bar_cv);
	broadcast(&e->ctl_lock, &e->ctl_cv);
}

void ldr_engine_notify(struct ldr_engine *e)
{
	broadcast(&e->ctl_lock, &e->ctl_cv);
}

bool ldr_engine_started(struct ldr_engine *e, int err)
{
	bool go;

	pthread_mutex_lock(&e->ctl_lock);
	e->inited++;
	if (err && !e->init_err)
		e->init_err = err;
	pthread_cond_broadcast(&e->ctl_cv);
	while (!e->go && !ldr_stopping(e))
		pthread_cond_wait(&e->ctl_cv, &e->ctl_lock);
	go = e->go && !ldr_stopping(e);
	pthread_mutex_unlock(&e->ctl_lock);
	return go;
}

void ldr_engine_wait_stop(struct ldr_engine *e)
{
	pthread_mutex_lock(&e->ctl_lock);
	while (!ldr_stopping(e))
		pthread_cond_wait(&e->ctl_cv, &e->ctl_lock);
	pthread_mutex_unlock(&e->ctl_lock);
}

/* ---- snapshots of the counters ---- */

struct snap {
	uint64_t t;
	uint64_t samples, good, batches;
	uint64_t read_bytes, dec_bytes;
	uint64_t reader_cpu, worker_cpu, consumer_cpu, process_cpu;
	uint64_t busy, wait, decode, resize, other, decomp;
	uint64_t staged, path_n[LDR_PATHS_MAX];
	uint64_t probed_reads, probed_bytes, probed_hit, probe_errors;
	uint64_t moved;
	uint64_t compute, gwait;        /* summed over GPUs */
	uint64_t *gpu_compute, *gpu_wait;
};

static uint64_t thread_cpu_ns(pthread_t t)
{
	clockid_t cid;
	struct timespec ts;

	if (pthread_getcpuclockid(t, &cid) || clock_gettime(cid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_ns(clockid_t cid)
{
	struct timespec ts;

	clock_gettime(cid, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Counters only (cheap); with CPU, the thread clocks too. */
static void snap_take(struct ldr_engine *e, struct snap *s, bool cpu)
{
	uint64_t *gc = s->gpu_compute, *gw = s->gpu_wait;

	memset(s, 0, sizeof(*s));
	s->gpu_compute = gc;
	s->gpu_wait = gw;
	s->t = stg_now_ns();
	for (unsigned i = 0; i < e->consumers; i++) {
		struct ldr_gpu_ctx *g = &e->gp[i];

		s->samples += ldr_ctr_get(&g->samples);
		s->good += ldr_ctr_get(&g->good);
		s->batches += ldr_ctr_get(&g->batches);
		gc[i] = ldr_ctr_get(&g->compute_ns);
		gw[i] = ldr_ctr_get(&g->wait_ns);
		s->compute += gc[i];
		s->gwait += gw[i];
		if (cpu)
			s->consumer_cpu += thread_cpu_ns(g->tid);
	}
	for (unsigned i = 0; i < e->readers; i++) {
		struct ldr_reader_ctx *rc = &e->rd[i];

		s->read_bytes += ldr_ctr_get(&rc->bytes);
		s->dec_bytes += ldr_ctr_get(&rc->dec_bytes);
		s->moved += ldr_ctr_get(&rc->moved);
		s->probed_reads += ldr_ctr_get(&rc->probed_reads);
		s->probed_bytes += ldr_ctr_get(&rc->probed_bytes);
		s->probed_hit += ldr_ctr_get(&rc->probed_hit);
		s->probe_errors += ldr_ctr_get(&rc->probe_errors);
		if (cpu)
			s->reader_cpu += thread_cpu_ns(rc->tid);
	}
	for (unsigned i = 0; i < e->workers; i++) {
		struct ldr_worker_ctx *w = &e->wk[i];

		s->busy += ldr_ctr_get(&w->busy_ns);
		s->wait += ldr_ctr_get(&w->wait_ns);
		s->decode += ldr_ctr_get(&w->decode_ns);
		s->resize += ldr_ctr_get(&w->resize_ns);
		s->decomp += ldr_ctr_get(&w->decomp_bytes);
		s->staged += ldr_ctr_get(&w->staged_bytes);
		for (unsigned k = 0; k < LDR_PATHS_MAX; k++)
			s->path_n[k] += ldr_ctr_get(&w->path_n[k]);
		s->other += ldr_ctr_get(&w->other_ns);
		if (cpu)
			s->worker_cpu += thread_cpu_ns(w->tid);
	}
	if (cpu)
		s->process_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static double ns_s(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0.0;
}

/* ---- set-up and tear-down ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * This rank's shards into e->rank_shards: the list shuffled once with the
 * seed (every rank computes the same order) and the positions RANK,
 * RANK + WORLD, ... of it, kept in file order (the readers shuffle them
 * each epoch, as with one rank, which then reads every shard in the
 * order it always did). Returns the rank's records, 0 when it has none
 * (RES->bottleneck_why says why), or sets *ERR.
 */
static uint64_t rank_shards_pick(struct ldr_engine *e,
				 const struct ldr_config *cfg,
				 struct ldr_result *res, int *err)
{
	const uint64_t nfiles = stg_dataset_count(cfg->ds);
	const unsigned world = cfg->world ? cfg->world : 1;
	struct ldr_sampler *split = NULL;
	uint64_t m = 0, records = 0;

	*err = 0;
	if (cfg->rank < nfiles)
		m = (nfiles - cfg->rank + world - 1) / world;
	e->rank_shards = calloc(m ? m : 1, sizeof(*e->rank_shards));
	if (!e->rank_shards) {
		*err = -ENOMEM;
		return 0;
	}
	if (world > 1 && m) {
		/* its own stream: not epoch 0's order of the readers */
		*err = ldr_sampler_create(nfiles, cfg->seed ^
					  0x6A09E667F3BCC909ull, 0, 1, false,
					  &split);
		if (*err)
			return 0;
	}
	for (uint64_t i = 0; i < m; i++) {
		uint64_t k = cfg->rank + i * world;

		e->rank_shards[i] = split ? ldr_sampler_get(split, k) : k;
	}
	ldr_sampler_destroy(split);
	qsort(e->rank_shards, m, sizeof(*e->rank_shards), cmp_u64);
	e->rank_nshards = m;
	for (uint64_t i = 0; i < m; i++)
		records += cfg->shards->records[e->rank_shards[i]];
	if (!m)
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "rank %u of %u has no shard: the dataset has %llu "
			 "shard%s", cfg->rank, world,
			 (unsigned long long)nfiles, nfiles == 1 ? "" : "s");
	else if (!records)
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "rank %u of %u has no record: its %llu shard%s hold "
			 "none", cfg->rank, world, (unsigned long long)m,
			 m == 1 ? "" : "s");
	return records;
}

static int engine_config(struct ldr_engine *e, const struct ldr_config *cfg,
			 struct ldr_result *res)
{
	const struct ldr_transform *tf = &cfg->transform;
	uint64_t n;

	if (!cfg->ds || !tf->apply || !tf->out_bytes)
		return -EINVAL;
	if (cfg->gpus && !(cfg->gpu_rate > 0))
		return -EINVAL;
	if (cfg->world == 0 ? cfg->rank != 0 : cfg->rank >= cfg->world)
		return -EINVAL;
	if (cfg->probe_fraction < 0 || cfg->probe_fraction > 1)
		return -EINVAL;
	e->cfg = cfg;
	e->tf = *tf;
	e->ds = cfg->ds;
	e->out_bytes = tf->out_bytes;
	e->readers = cfg->readers ? cfg->readers : 1;
	e->workers = cfg->workers ? cfg->workers : stg_cpus_usable();
	e->batch = cfg->batch ? cfg->batch : LDR_DEFAULT_BATCH;
	e->gpus = cfg->gpus;
	e->consumers = e->gpus ? e->gpus : 1;
	e->prefetch = cfg->prefetch;
	if (!e->prefetch)
		e->prefetch = ldr_default_prefetch(e->gpus);
	if (e->prefetch < e->gpus)
		e->prefetch = e->gpus;
	if (e->readers > 1024 || e->workers > 4096 || e->gpus > 4096)
		return -EINVAL;
	if (e->out_bytes > SIZE_MAX / e->batch / e->prefetch)
		return -EINVAL;
	e->slot_bytes = e->out_bytes * e->batch;
	/* keep each slot's start 64-byte aligned */
	e->slot_bytes = (e->slot_bytes + 63) & ~(size_t)63;
	if (e->gpus)
		e->step_ns = (uint64_t)((double)e->batch / cfg->gpu_rate * 1e9);

	n = stg_dataset_count(cfg->ds);
	if (cfg->shards) {
		int err;

		/* a record per position, over this rank's shards: ranks may
		 * hold different numbers of records, so their epochs differ
		 * in length (every record is still read once per epoch
		 * across the ranks) */
		if (!cfg->shards->ops || !cfg->shards->records ||
		    !cfg->shards->ops->scan_next)
			return -EINVAL;
		e->per_epoch = rank_shards_pick(e, cfg, res, &err);
		if (err)
			return err;
	} else {
		uint64_t world = cfg->world ? cfg->world : 1;

		if (cfg->drop_last)
			e->per_epoch = n / world;
		else
			e->per_epoch = n ? (n + world - 1) / world : 0;
		if (!e->per_epoch)
			snprintf(res->bottleneck_why,
				 sizeof(res->bottleneck_why), "rank %u of %u "
				 "has no sample: the dataset has %llu file%s%s",
				 cfg->rank, (unsigned)world,
				 (unsigned long long)n, n == 1 ? "" : "s",
				 n && cfg->drop_last ? " (drop_last)" : "");
	}
	if (!e->per_epoch)
		return -ENODATA;
	e->pos_limit = UINT64_MAX;
	e->total_batches = UINT64_MAX;
	if (cfg->epochs) {
		if (cfg->epochs > UINT64_MAX / e->per_epoch)
			return -EINVAL;
		e->pos_limit = cfg->epochs * e->per_epoch;
		e->total_batches = (e->pos_limit + e->batch - 1) / e->batch;
	}
	e->pos_ring = (uint64_t)e->prefetch * e->batch;
	if (cfg->probe_fraction >= 1)
		e->probe_threshold = UINT64_MAX;
	else
		e->probe_threshold = (uint64_t)(cfg->probe_fraction *
						 18446744073709551616.0);
	return 0;
}

static unsigned queue_capacity(const struct ldr_engine *e)
{
	unsigned depth = e->cfg->reader.depth ? e->cfg->reader.depth :
						     LDR_DEFAULT_DEPTH;
	unsigned cap = e->cfg->queue_depth;

	if (!cap) {
		cap = 2 * depth * e->readers;
		if (cap < 4 * e->workers)
			cap = 4 * e->workers;
	}
	return cap < 2 ? 2 : cap;
}

/*
 * N zeroed elements of SIZE bytes starting on a cache line: the engine,
 * its slots and thread contexts are alignas(64) types, so that fields
 * written by one thread do not share a line with fields others read;
 * calloc only promises 16 bytes. Freed with free().
 */
static void *calloc_lines(size_t n, size_t size)
{
	size_t len;
	void *p;

	if (n && size > SIZE_MAX / n)
		return NULL;
	len = (n * size + 63) & ~(size_t)63;
	p = aligned_alloc(64, len ? len : 64);
	if (p)
		memset(p, 0, len);
	return p;
}

static int engine_alloc(struct ldr_engine *e)
{
	int err;

	e->root_fd = stg_dataset_root_open(e->ds);
	if (e->root_fd < 0)
		return e->root_fd;
	e->slot_mem_len = e->slot_bytes * e->prefetch;
	/* pre-faulted: page faults on the first epoch would be measured */
	e->slot_mem = mmap(NULL, e->slot_mem_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (e->slot_mem == MAP_FAILED) {
		e->slot_mem = NULL;
		return -ENOMEM;
	}
	e->slots = calloc_lines(e->prefetch, sizeof(*e->slots));
	e->pos_id = calloc(e->pos_ring, sizeof(*e->pos_id));
	e->pos_t = calloc(e->pos_ring, sizeof(*e->pos_t));
	e->rd = calloc_lines(e->readers, sizeof(*e->rd));
	e->wk = calloc_lines(e->workers, sizeof(*e->wk));
	e->gp = calloc_lines(e->consumers, sizeof(*e->gp));
	if (!e->slots || !e->pos_id || !e->pos_t || !e->rd || !e->wk || !e->gp)
		return -ENOMEM;
	for (unsigned i = 0; i < e->prefetch; i++) {
		struct ldr_slot *s = &e->slots[i];

		atomic_init(&s->free_for, i);
		atomic_init(&s->ready_for, UINT64_MAX);
		atomic_init(&s->fill, 0);
		atomic_init(&s->bad, 0);
		s->data = (uint8_t *)e->slot_mem + (size_t)i * e->slot_bytes;
	}
	if (e->tf.stage_bytes) {
		e->stages = calloc_lines(e->prefetch, sizeof(*e->stages));
		if (!e->stages)
			return -ENOMEM;
		for (unsigned i = 0; i < e->prefetch; i++) {
			err = ldr_stage_init(&e->stages[i], e->tf.stage_bytes);
			if (err)
				return err;
			e->slots[i].stage = &e->stages[i];
		}
	}
	for (unsigned i = 0; i < e->readers; i++) {
		e->rd[i].e = e;
		e->rd[i].idx = i;
		/* shards: each epoch's order of the rank's own shards */
		if (e->cfg->shards)
			err = ldr_sampler_create(e->rank_nshards, e->cfg->seed,
						 0, 1, e->cfg->drop_last,
						 &e->rd[i].sampler);
		else
			err = ldr_sampler_create(stg_dataset_count(e->ds),
						 e->cfg->seed, e->cfg->rank,
						 e->cfg->world ? e->cfg->world
						 : 1, e->cfg->drop_last,
						 &e->rd[i].sampler);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < e->workers; i++) {
		e->wk[i].e = e;
		e->wk[i].idx = i;
	}
	for (unsigned i = 0; i < e->consumers; i++) {
		e->gp[i].e = e;
		e->gp[i].idx = i;
	}
	err = ldr_queue_init(&e->q, queue_capacity(e));
	if (err)
		return err;
	pthread_mutex_init(&e->slot_lock, NULL);
	pthread_cond_init(&e->slot_cv, NULL);
	pthread_mutex_init(&e->ready_lock, NULL);
	pthread_cond_init(&e->ready_cv, NULL);
	pthread_mutex_init(&e->bar_lock, NULL);
	pthread_cond_init(&e->bar_cv, NULL);
	pthread_mutex_init(&e->ctl_lock, NULL);
	{
		pthread_condattr_t ca;

		/* the main thread's timed waits run on CLOCK_MONOTONIC */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&e->ctl_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	return 0;
}

static void engine_free(struct ldr_engine *e)
{
	if (e->q.ring) {
		ldr_queue_fini(&e->q);
		pthread_mutex_destroy(&e->slot_lock);
		pthread_cond_destroy(&e->slot_cv);
		pthread_mutex_destroy(&e->ready_lock);
		pthread_cond_destroy(&e->ready_cv);
		pthread_mutex_destroy(&e->bar_lock);
		pthread_cond_destroy(&e->bar_cv);
		pthread_mutex_destroy(&e->ctl_lock);
		pthread_cond_destroy(&e->ctl_cv);
	}
	if (e->rd)
		for (unsigned i = 0; i < e->readers; i++) {
			stg_reader_destroy(e->rd[i].r);
			stg_stream_destroy(e->rd[i].st);
			ldr_rec_pool_free(e->rd[i].pool);
			ldr_sampler_destroy(e->rd[i].sampler);
		}
	free(e->rd);
	free(e->wk);
	free(e->gp);
	for (unsigned i = 0; e->stages && i < e->prefetch; i++)
		ldr_stage_fini(&e->stages[i]);
	free(e->stages);
	free(e->slots);
	free(e->pos_id);
	free(e->pos_t);
	free(e->rank_shards);
	if (e->slot_mem)
		munmap(e->slot_mem, e->slot_mem_len);
	if (e->root_fd >= 0)
		close(e->root_fd);
}

/* Start every thread; each waits at the start gate. */
static int engine_spawn(struct ldr_engine *e)
{
	int err;

	for (unsigned i = 0; i < e->readers; i++) {
		err = -pthread_create(&e->rd[i].tid, NULL, e->cfg->shards ?
				      ldr_shard_reader_main : ldr_reader_main,
				      &e->rd[i]);
		if (err)
			return err;
		e->rd[i].started = true;
	}
	for (unsigned i = 0; i < e->workers; i++) {
		err = -pthread_create(&e->wk[i].tid, NULL, ldr_worker_main,
				      &e->wk[i]);
		if (err)
			return err;
		e->wk[i].started = true;
	}
	for (unsigned i = 0; i < e->consumers; i++) {
		err = -pthread_create(&e->gp[i].tid, NULL,
				      e->gpus ? ldr_gpu_main : ldr_drain_main,
				      &e->gp[i]);
		if (err)
			return err;
		e->gp[i].started = true;
	}
	return 0;
}

static void engine_join(struct ldr_engine *e)
{
	for (unsigned i = 0; i < e->readers; i++)
		if (e->rd[i].started)
			pthread_join(e->rd[i].tid, NULL);
	for (unsigned i = 0; i < e->workers; i++)
		if (e->wk[i].started)
			pthread_join(e->wk[i].tid, NULL);
	for (unsigned i = 0; i < e->consumers; i++)
		if (e->gp[i].started)
			pthread_join(e->gp[i].tid, NULL);
	ldr_queue_drain(&e->q);
}

/* Wait until every started thread passed its set-up; their error. */
static int engine_wait_inited(struct ldr_engine *e, unsigned threads)
{
	int err;

	pthread_mutex_lock(&e->ctl_lock);
	while (e->inited < threads)
		pthread_cond_wait(&e->ctl_cv, &e->ctl_lock);
	err = e->init_err;
	pthread_mutex_unlock(&e->ctl_lock);
	return err;
}

static void engine_go(struct ldr_engine *e)
{
	pthread_mutex_lock(&e->ctl_lock);
	e->go = true;
	pthread_cond_broadcast(&e->ctl_cv);
	pthread_mutex_unlock(&e->ctl_lock);
}

/* ---- the result ---- */

static void merge_errors(struct ldr_result *res,
			 const struct ldr_err_table *t)
{
	for (unsigned i = 0; i < t->n; i++) {
		unsigned k;

		for (k = 0; k < res->err_kinds; k++)
			if (!strcmp(res->err[k].kind, t->e[i].kind))
				break;
		if (k == res->err_kinds) {
			if (res->err_kinds < LDR_ERR_KINDS) {
				res->err[res->err_kinds++] = t->e[i];
				continue;
			}
			k = LDR_ERR_KINDS - 1;  /* the table is full */
		}
		res->err[k].count += t->e[i].count;
	}
}

/*
 * The bottleneck. Workers that wait for samples while reads are in flight
 * are not enough to blame the storage: a reader thread that lacks CPU
 * (workers and reader sharing too few vCPUs) starves them just the same,
 * with every read a page-cache hit. So "storage" also needs the reads
 * themselves to be slow: at depth D (per reader) reads taking L seconds
 * on average deliver at most R x D / L samples/s (Little's law), and that
 * must fall below what the workers transform, W / t (t = a worker's busy
 * wall time per sample). Otherwise the limit is CPU, and the words say
 * whether the reader thread or the workers lacked it.
 */
void ldr_diagnose(const struct ldr_diag_in *in, struct ldr_result *res)
{
	double thr = in->au_threshold > 0 ? in->au_threshold :
					   LDR_DEFAULT_AU_THRESHOLD;
	double worker_wall = res->worker_busy_s + res->worker_wait_s;
	double wait_share = worker_wall > 0 ? res->worker_wait_s / worker_wall
					    : 0;
	double reader_load = res->measured_s > 0 ?
		res->reader_cpu_s / res->measured_s / in->readers : 0;
	const unsigned depth = in->depth ? in->depth :
			       LDR_DEFAULT_DEPTH;
	const double lat_s = stg_histo_mean(&res->read_lat) / 1e9;
	const double p50_ms =
		(double)stg_histo_percentile(&res->read_lat, 50) / 1e6;
	const double t_sample = res->samples ?
		res->worker_busy_s / (double)res->samples : 0;
	/* samples/s the reads could deliver at full depth, and the workers
	 * could transform; "unbounded" as a negative number */
	/* a file read is a sample; a shard read (READ_SIZE bytes, STREAM
	 * DEPTH in flight) carries as many samples as its bytes hold */
	const double per_read = !in->shards ? 1 : res->read_bytes &&
		res->samples ? (double)(in->read_size ? in->read_size :
		STG_STREAM_BLOCK_DEFAULT) / ((double)res->read_bytes /
		(double)res->samples) : 1;
	const unsigned rdepth = !in->shards ? depth : in->stream_depth ?
		in->stream_depth : STG_STREAM_DEPTH_DEFAULT;
	const double supply = lat_s > 0 ?
		(double)in->readers * rdepth * per_read / lat_s : -1;
	const double demand = t_sample > 0 ? in->workers / t_sample : -1;
	const bool slow_reads = supply >= 0 && (demand < 0 || supply < demand);
	char hit[48] = "";

	if (res->probed_bytes)
		snprintf(hit, sizeof(hit), "; page-cache hit ratio %.0f %%",
			 100.0 * (double)res->probed_hit_bytes /
			 (double)res->probed_bytes);
	if (res->measured_s <= 0 || res->batches == 0) {
		res->bottleneck = LDR_BOTTLENECK_UNKNOWN;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "no batch was delivered in the measurement window");
	} else if (in->gpus && ldr_au_fed(res->au, thr)) {
		res->bottleneck = LDR_BOTTLENECK_GPU;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "AU %.1f %% >= %.0f %% with %u GPUs at %.0f "
			 "samples/s each: the GPUs are fed; workers waited "
			 "%.0f %% of their time", 100 * res->au, 100 * thr,
			 in->gpus, in->gpu_rate, 100 * wait_share);
	} else if (wait_share >= 0.25 && in->shards &&
		   reader_load >= 0.8) {
		/* a shard reader cuts records out of its stream (and
		 * decompresses it): one busy thread, not the storage, is
		 * what the workers wait for */
		res->bottleneck = LDR_BOTTLENECK_CPU;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "workers waited %.0f %% of their time while the shard "
			 "reader thread%s %s busy %.0f %% (cutting records%s "
			 "at %.1f MB/s read): %s",
			 100 * wait_share, in->readers > 1 ? "s" : "",
			 in->readers > 1 ? "were" : "was", 100 * reader_load,
			 res->decompressed_bytes > res->steps.decompressed_bytes
			 ? " and decompressing zstd" : "",
			 res->read_bytes_per_s / 1e6,
			 in->files > in->readers ?
			 "more --readers would raise it" : "a shard is read "
			 "by one thread: more, smaller shards (and --readers) "
			 "would raise it");
	} else if (wait_share >= 0.25 && res->mean_reads_in_flight >= 0.5 &&
		   slow_reads) {
		res->bottleneck = LDR_BOTTLENECK_STORAGE;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "workers waited %.0f %% of their time with %.1f reads "
			 "in flight%s; reads take %.2f ms (mean; p50 %.2f), so "
			 "depth %u delivers <= %.0f samples/s, below the %.0f/s "
			 "%u workers transform; %.1f MB/s%s",
			 100 * wait_share, res->mean_reads_in_flight,
			 res->mean_reads_in_flight * 2 < rdepth &&
			 res->samples && res->read_bytes / res->samples >
			 (8u << 20) ? " (below the depth: files this large "
			 "fill the reader's in-flight bytes first)" : "",
			 lat_s * 1e3, p50_ms, rdepth, supply,
			 demand > 0 ? demand : 0, in->workers,
			 res->read_bytes_per_s / 1e6, hit);
	} else if (wait_share >= 0.25) {
		/* starved, but not by slow reads: the reader lacked CPU */
		res->bottleneck = LDR_BOTTLENECK_CPU;
		if (supply < 0)
			snprintf(res->bottleneck_why,
				 sizeof(res->bottleneck_why),
				 "workers waited %.0f %% of their time, with no "
				 "read completed in the window: the reader "
				 "thread (load %.0f %%) lacked CPU",
				 100 * wait_share, 100 * reader_load);
		else
			snprintf(res->bottleneck_why,
				 sizeof(res->bottleneck_why),
				 "workers waited %.0f %% of their time, but "
				 "reads are fast (%.2f ms mean: depth %u could "
				 "deliver %.0f samples/s, workers transform "
				 "%.0f/s): the reader thread (load %.0f %%) "
				 "lacked CPU%s", 100 * wait_share, lat_s * 1e3,
				 rdepth, supply, demand, 100 * reader_load, hit);
	} else {
		res->bottleneck = LDR_BOTTLENECK_CPU;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "workers busy %.0f %% of their time (%u workers, %.2f "
			 "CPU s per 1000 samples), waited %.0f %% with %.1f "
			 "reads in flight; reader thread load %.0f %%",
			 100 * (1 - wait_share), in->workers,
			 res->samples ? 1000 * res->worker_cpu_s /
			 (double)res->samples : 0, 100 * wait_share,
			 res->mean_reads_in_flight, 100 * reader_load);
	}
}

static void fill_result(struct ldr_engine *e, const struct snap *a,
			const struct snap *b, struct ldr_result *res)
{
	struct stg_reader *r0 = e->rd[0].r;

	res->readers = e->readers;
	res->workers = e->workers;
	res->batch = e->batch;
	res->prefetch = e->prefetch;
	res->gpus = e->gpus;
	res->measured_s = ns_s(a->t, b->t);
	res->samples = b->good - a->good;
	res->samples_failed = (b->samples - a->samples) - res->samples;
	res->batches = b->batches - a->batches;
	res->epochs_done = b->samples / e->per_epoch;
	/* the readers' digests; an epoch counts when every position of it
	 * was read, and only from the first on (a later one cannot be whole
	 * when an earlier one is not) */
	for (unsigned k = 0; k < LDR_DIGEST_EPOCHS; k++) {
		for (unsigned i = 0; i < e->readers; i++)
			ldr_digest_merge(&res->epoch_digest[k], &e->rd[i].dig[k]);
		if (res->digest_epochs == k &&
		    res->epoch_digest[k].count == e->per_epoch)
			res->digest_epochs = k + 1;
	}
	res->samples_per_s = res->measured_s > 0 ?
		(double)res->samples / res->measured_s : 0;
	res->step_time_s = (double)e->step_ns / 1e9;
	res->gpu_compute_s = ns_s(a->compute, b->compute);
	res->gpu_wait_s = ns_s(a->gwait, b->gwait);
	if (e->gpus && res->gpu_compute_s + res->gpu_wait_s > 0)
		res->au = res->gpu_compute_s /
			  (res->gpu_compute_s + res->gpu_wait_s);
	for (unsigned i = 0; i < e->gpus && i < 64; i++) {
		double c = ns_s(a->gpu_compute[i], b->gpu_compute[i]);
		double w = ns_s(a->gpu_wait[i], b->gpu_wait[i]);

		res->au_per_gpu[i] = c + w > 0 ? c / (c + w) : 0;
	}
	res->reader_cpu_s = ns_s(a->reader_cpu, b->reader_cpu);
	res->worker_cpu_s = ns_s(a->worker_cpu, b->worker_cpu);
	res->consumer_cpu_s = ns_s(a->consumer_cpu, b->consumer_cpu);
	res->process_cpu_s = ns_s(a->process_cpu, b->process_cpu);
	res->worker_busy_s = ns_s(a->busy, b->busy);
	res->worker_wait_s = ns_s(a->wait, b->wait);
	res->steps.decode_s = ns_s(a->decode, b->decode);
	res->steps.resize_s = ns_s(a->resize, b->resize);
	res->steps.other_s = ns_s(a->other, b->other);
	res->steps.decompressed_bytes = b->decomp - a->decomp;
	res->steps.stage = NULL;
	res->staged_bytes = b->staged - a->staged;
	for (unsigned k = 0; k < LDR_PATHS_MAX && e->tf.paths[0]; k++) {
		if (!e->tf.paths[k])
			break;
		snprintf(res->path_names[k], sizeof(res->path_names[k]), "%s",
			 e->tf.paths[k]);
		res->path_samples[k] = b->path_n[k] - a->path_n[k];
	}
	res->stage_batch_max = atomic_load(&e->stage_batch_max);
	res->stage_pinned = e->stages != NULL;
	for (unsigned i = 0; e->stages && i < e->prefetch; i++) {
		res->stage_held_bytes += e->stages[i].held;
		res->stage_pinned &= !e->stages[i].unpinned;
	}
	res->read_bytes = b->read_bytes - a->read_bytes;
	res->read_bytes_per_s = res->measured_s > 0 ?
		(double)res->read_bytes / res->measured_s : 0;
	res->decompressed_bytes = (b->dec_bytes - a->dec_bytes) +
				  res->steps.decompressed_bytes;
	res->probed_reads = b->probed_reads - a->probed_reads;
	res->records_moved = b->moved - a->moved;
	res->probed_bytes = b->probed_bytes - a->probed_bytes;
	res->probed_hit_bytes = b->probed_hit - a->probed_hit;
	res->probe_errors = b->probe_errors - a->probe_errors;
	switch (atomic_load(&e->probe_method)) {
	case LDR_PROBE_CACHESTAT:
		snprintf(res->probe_method, sizeof(res->probe_method),
			 "cachestat");
		break;
	case LDR_PROBE_MINCORE:
		snprintf(res->probe_method, sizeof(res->probe_method),
			 "mincore");
		break;
	default:
		res->probe_method[0] = '\0';
	}

	stg_histo_init(&res->sample_lat);
	stg_histo_init(&res->read_lat);
	for (unsigned i = 0; i < e->workers; i++) {
		stg_histo_merge(&res->sample_lat, &e->wk[i].lat);
		merge_errors(res, &e->wk[i].errs);
	}
	for (unsigned i = 0; i < e->readers; i++)
		stg_histo_merge(&res->read_lat, &e->rd[i].read_lat);
	res->errors = atomic_load(&e->errors_total);
	if (e->rd[0].st) {
		struct stg_stream_stats ss;

		stg_stream_stats(e->rd[0].st, &ss);
		snprintf(res->backend, sizeof(res->backend), "%s",
			 stg_backend_name(ss.backend));
		snprintf(res->backend_reason, sizeof(res->backend_reason),
			 "shards streamed in %u KiB reads, %u in flight per "
			 "reader%s", (e->cfg->shards->read_size ?
			 e->cfg->shards->read_size : STG_STREAM_BLOCK_DEFAULT)
			 >> 10, ss.backend == STG_BACKEND_PSYNC ? 1 :
			 e->cfg->shards->read_depth ? e->cfg->shards->read_depth
			 : STG_STREAM_DEPTH_DEFAULT, ss.backend ==
			 STG_BACKEND_PSYNC ? " (pread, kernel read-ahead)" : "");
		if (ss.direct_refused)
			snprintf(res->reader_notes, sizeof(res->reader_notes),
				 "%llu shards read buffered: O_DIRECT refused",
				 (unsigned long long)ss.direct_refused);
	} else if (r0) {
		snprintf(res->backend, sizeof(res->backend), "%s",
			 stg_backend_name(stg_reader_backend(r0)));
		snprintf(res->backend_reason, sizeof(res->backend_reason),
			 "%s", stg_reader_backend_reason(r0));
		snprintf(res->reader_notes, sizeof(res->reader_notes), "%s",
			 stg_reader_notes(r0));
	}
	{
		const struct ldr_diag_in in = {
			.au_threshold = e->cfg->au_threshold,
			.depth = e->cfg->reader.depth,
			.readers = e->readers, .workers = e->workers,
			.gpus = e->gpus, .gpu_rate = e->cfg->gpu_rate,
			.shards = e->cfg->shards != NULL,
			.read_size = e->cfg->shards ?
				     e->cfg->shards->read_size : 0,
			.stream_depth = e->cfg->shards ?
					e->cfg->shards->read_depth : 0,
			.files = stg_dataset_count(e->cfg->ds),
		};

		ldr_diagnose(&in, res);
	}
}

/* ---- the main thread's loop ---- */

struct occupancy {
	double queue, ready, inflight;
	uint64_t n;
};

static void occupancy_sample(struct ldr_engine *e, struct occupancy *o)
{
	unsigned inflight = 0;

	for (unsigned i = 0; i < e->readers; i++)
		inflight += atomic_load_explicit(&e->rd[i].pending,
						 memory_order_relaxed);
	o->queue += atomic_load_explicit(&e->q.occupancy,
					 memory_order_relaxed);
	o->ready += atomic_load_explicit(&e->ready_count,
					 memory_order_relaxed);
	o->inflight += inflight;
	o->n++;
}

static double realtime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The next wake-up of the main loop: the 20 ms tick, or sooner when an
 * aligned window opens within it (so it opens on time, not up to a tick
 * late). */
static uint64_t next_tick(const struct ldr_engine *e, bool window)
{
	uint64_t now = stg_now_ns(), until = now + 20000000;
	double left;

	if (window || !(e->cfg->start_realtime > 0))
		return until;
	left = e->cfg->start_realtime - realtime_s();
	if (left < 0.020)
		until = now + (left > 0 ? (uint64_t)(left * 1e9) : 0);
	return until;
}

static bool warmup_over(struct ldr_engine *e, uint64_t t0, uint64_t now,
			const struct snap *cur)
{
	double w = e->cfg->warmup_s;
	unsigned want = 2 * (e->gpus ? e->gpus : 1);

	/* an aligned window opens at its wall-clock time, whatever ran */
	if (e->cfg->start_realtime > 0)
		return realtime_s() >= e->cfg->start_realtime;
	if (w < 0)
		return true;
	if (w > 0)
		return ns_s(t0, now) >= w;
	return ns_s(t0, now) >= LDR_DEFAULT_WARMUP_S &&
	       cur->batches >= want;
}

static void series_point(struct ldr_engine *e, struct ldr_result *res,
			 const struct snap *prev, const struct snap *cur,
			 const struct snap *w0, const struct occupancy *o)
{
	struct ldr_series_point *pt;
	double dt = ns_s(prev->t, cur->t);
	double c = ns_s(prev->compute, cur->compute);
	double wt = ns_s(prev->gwait, cur->gwait);

	if (res->series_len >= LDR_SERIES_MAX || dt <= 0)
		return;
	pt = &res->series[res->series_len++];
	pt->t_s = ns_s(w0->t, cur->t);
	pt->samples_per_s = (double)(cur->good - prev->good) / dt;
	pt->read_bytes_per_s = (double)(cur->read_bytes - prev->read_bytes) /
			       dt;
	pt->au = e->gpus && c + wt > 0 ? c / (c + wt) : 0;
	pt->work_queue = o->n ? o->queue / (double)o->n : 0;
	pt->ready_batches = o->n ? o->ready / (double)o->n : 0;
}

static bool consumers_finished(struct ldr_engine *e)
{
	bool done;

	pthread_mutex_lock(&e->ctl_lock);
	done = e->consumers_done == e->consumers;
	pthread_mutex_unlock(&e->ctl_lock);
	return done;
}

static void tick_wait(struct ldr_engine *e, uint64_t until)
{
	struct timespec ts = {
		.tv_sec = (time_t)(until / 1000000000u),
		.tv_nsec = (long)(until % 1000000000u),
	};

	pthread_mutex_lock(&e->ctl_lock);
	if (!atomic_load(&e->max_errors_hit) &&
	    !atomic_load(&e->samples_reached) && !atomic_load(&e->fatal) &&
	    e->consumers_done < e->consumers)
		pthread_cond_timedwait(&e->ctl_cv, &e->ctl_lock, &ts);
	pthread_mutex_unlock(&e->ctl_lock);
}

/* The running totals since W0 (the window's start, or the run's while
 * WINDOW is false), for a parent that may have to kill this process. */
static void live_publish(struct ldr_engine *e, const struct ldr_result *res,
			 const struct snap *w0, const struct snap *cur,
			 bool window)
{
	struct ldr_live v;

	memset(&v, 0, sizeof(v));
	v.window = window;
	v.readers = e->readers;
	v.workers = e->workers;
	v.batch = e->batch;
	v.prefetch = e->prefetch;
	v.gpus = e->gpus;
	v.measured_s = ns_s(w0->t, cur->t);
	v.warmup_s = res->warmup_s;
	v.window_start_realtime = res->window_start_realtime;
	v.published_realtime = realtime_s();
	v.step_time_s = (double)e->step_ns / 1e9;
	v.samples = cur->good - w0->good;
	v.samples_failed = (cur->samples - w0->samples) - v.samples;
	v.batches = cur->batches - w0->batches;
	v.epochs_done = cur->samples / e->per_epoch;
	v.read_bytes = cur->read_bytes - w0->read_bytes;
	v.errors = atomic_load(&e->errors_total);
	v.gpu_compute_s = ns_s(w0->compute, cur->compute);
	v.gpu_wait_s = ns_s(w0->gwait, cur->gwait);
	v.reader_cpu_s = ns_s(w0->reader_cpu, cur->reader_cpu);
	v.worker_cpu_s = ns_s(w0->worker_cpu, cur->worker_cpu);
	v.consumer_cpu_s = ns_s(w0->consumer_cpu, cur->consumer_cpu);
	v.process_cpu_s = ns_s(w0->process_cpu, cur->process_cpu);
	v.worker_busy_s = ns_s(w0->busy, cur->busy);
	v.worker_wait_s = ns_s(w0->wait, cur->wait);
	v.decode_s = ns_s(w0->decode, cur->decode);
	v.resize_s = ns_s(w0->resize, cur->resize);
	v.other_s = ns_s(w0->other, cur->other);
	ldr_live_publish(e->cfg->live, &v);
}

/*
 * Run until a stop condition; fills the snapshots of the window's start (W0)
 * and end (END). Snapshot arrays are allocated by the caller.
 */
static void engine_main_loop(struct ldr_engine *e, struct ldr_result *res,
			     struct snap *w0, struct snap *end,
			     struct snap *prev, struct snap *cur)
{
	const struct ldr_config *cfg = e->cfg;
	struct occupancy total = { 0 }, second = { 0 };
	const bool aligned = cfg->start_realtime > 0;
	uint64_t t0, next_series = 0, next_live = 0;
	double rt0;
	bool window = false;

	/* every thread waits at the gate: nothing has moved yet */
	stg_watch_phase(STG_PHASE_WARMUP);
	snap_take(e, w0, true);
	t0 = w0->t;
	rt0 = realtime_s();
	res->window_start_realtime = rt0;
	/* no warm-up, or an aligned start already past: the window opens
	 * with the pipeline */
	if (aligned ? rt0 >= cfg->start_realtime : cfg->warmup_s < 0) {
		window = true;
		atomic_store_explicit(&e->window_on, 1, memory_order_release);
		stg_watch_phase(STG_PHASE_WINDOW);
		*prev = *w0;
		prev->gpu_compute = cur->gpu_compute;
		prev->gpu_wait = cur->gpu_wait;
		next_series = t0 + 1000000000ull;
	}
	engine_go(e);
	for (;;) {
		uint64_t now;

		tick_wait(e, next_tick(e, window));
		now = stg_now_ns();
		if (cfg->stop && __atomic_load_n(cfg->stop, __ATOMIC_RELAXED)) {
			res->stopped_by_signal = true;
			break;
		}
		if (atomic_load(&e->max_errors_hit)) {
			res->stopped_by_max_errors = true;
			break;
		}
		if (atomic_load(&e->fatal) || consumers_finished(e))
			break;
		if (window && (atomic_load(&e->samples_reached) ||
			       (cfg->duration_s > 0 &&
				ns_s(w0->t, now) >= cfg->duration_s)))
			break;
		{
			/* at a bounded rate, with the CPU clocks */
			const bool live = cfg->live && now >= next_live;

			snap_take(e, cur, live);
			if (live) {
				live_publish(e, res, w0, cur, window);
				next_live = now + (uint64_t)(LDR_LIVE_PERIOD_S *
							     1e9);
			}
		}
		if (!window) {
			if (!warmup_over(e, t0, now, cur))
				continue;
			snap_take(e, w0, true);
			res->window_start_realtime = realtime_s();
			e->window_good0 = w0->good;
			atomic_store_explicit(&e->window_on, 1,
					      memory_order_release);
			res->warmup_s = ns_s(t0, w0->t);
			stg_watch_phase(STG_PHASE_WINDOW);
			window = true;
			*prev = *w0;
			prev->gpu_compute = cur->gpu_compute;
			prev->gpu_wait = cur->gpu_wait;
			memcpy(prev->gpu_compute, w0->gpu_compute,
			       e->consumers * sizeof(uint64_t));
			memcpy(prev->gpu_wait, w0->gpu_wait,
			       e->consumers * sizeof(uint64_t));
			next_series = w0->t + 1000000000ull;
			continue;
		}
		occupancy_sample(e, &total);
		occupancy_sample(e, &second);
		if (cur->t >= next_series) {
			series_point(e, res, prev, cur, w0, &second);
			memset(&second, 0, sizeof(second));
			{
				uint64_t *pc = prev->gpu_compute,
					 *pw = prev->gpu_wait;

				*prev = *cur;
				prev->gpu_compute = pc;
				prev->gpu_wait = pw;
			}
			next_series += 1000000000ull;
		}
	}
	snap_take(e, end, true);
	res->window_end_realtime = realtime_s();
	atomic_store_explicit(&e->window_on, 0, memory_order_release);
	if (aligned && res->window_start_realtime > cfg->start_realtime)
		res->start_late_s = res->window_start_realtime -
				    cfg->start_realtime;
	if (!window) {
		/* ended inside the warm-up (or before an aligned start):
		 * measure the whole run */
		res->window_start_realtime = rt0;
		res->warmup_incomplete = cfg->warmup_s >= 0 || aligned;
		res->warmup_s = 0;
		memset(w0, 0, offsetof(struct snap, gpu_compute));
		memset(w0->gpu_compute, 0, e->consumers * sizeof(uint64_t));
		memset(w0->gpu_wait, 0, e->consumers * sizeof(uint64_t));
		w0->t = t0;
	}
	if (total.n) {
		res->mean_work_queue = total.queue / (double)total.n;
		res->mean_ready_batches = total.ready / (double)total.n;
		res->mean_reads_in_flight = total.inflight / (double)total.n;
	}
}

/*
 * Resolve AUTO by measuring (cfg->probe_backend): fills *LOCAL with CFG
 * and the chosen backend, whose reason (in PR) the readers report.
 */
static const struct ldr_config *
probe_backend(const struct ldr_config *cfg, struct ldr_config *local,
	      struct stg_probe_result *pr)
{
	struct stg_probe_opts po;

	if (!cfg->probe_backend || cfg->reader.backend != STG_BACKEND_AUTO ||
	    cfg->shards ||
	    !cfg->ds)
		return cfg;
	po = cfg->backend_probe;
	if (!po.stop)
		po.stop = cfg->stop;
	/* a failed probe still says uring and why */
	stg_watch_phase(STG_PHASE_PROBE);
	stg_backend_probe(cfg->ds, &cfg->reader, &po, pr);
	*local = *cfg;
	local->reader.backend = pr->chosen;
	local->reader.reason = pr->reason;
	return local;
}

unsigned ldr_default_prefetch(unsigned gpus)
{
	return 2 * gpus > 4 ? 2 * gpus : 4;
}

int ldr_run(const struct ldr_config *cfg, struct ldr_result *res)
{
	struct ldr_engine *e;
	struct ldr_config local;
	struct stg_probe_result pr;
	struct snap s[4];
	uint64_t *arrays = NULL;
	unsigned threads;
	int err;

	if (!cfg || !res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	cfg = probe_backend(cfg, &local, &pr);
	e = calloc_lines(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->root_fd = -1;
	err = engine_config(e, cfg, res);
	if (err)
		goto out;
	err = engine_alloc(e);
	if (err)
		goto out;
	arrays = calloc(8 * (size_t)e->consumers, sizeof(uint64_t));
	if (!arrays) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < 4; i++) {
		s[i].gpu_compute = arrays + (2 * i) * e->consumers;
		s[i].gpu_wait = arrays + (2 * i + 1) * e->consumers;
	}
	threads = e->readers + e->workers + e->consumers;
	err = engine_spawn(e);
	if (err) {
		/* the threads already started wait at the gate: call it off */
		ldr_engine_stop(e);
		engine_join(e);
		goto out;
	}
	err = engine_wait_inited(e, threads);
	if (err) {
		ldr_engine_stop(e);
		engine_join(e);
		goto out;
	}
	engine_main_loop(e, res, &s[0], &s[1], &s[2], &s[3]);
	ldr_engine_stop(e);
	engine_join(e);
	fill_result(e, &s[0], &s[1], res);
	err = atomic_load(&e->fatal);
out:
	free(arrays);
	engine_free(e);
	free(e);
	return err;
}
