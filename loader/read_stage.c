/*
 * read_stage.c - the reader threads.
 *
 * DESIGN: each reader thread owns one stg_reader (created on the thread,
 * so its ring and buffer pool belong to it) and one sampler. Positions come
 * from the engine's shared atomic cursor, so each reader sees its own
 * positions in increasing order and its sampler only moves forward through
 * the epochs. Position p (batch b = p / B) is issued only when slot b % P
 * is free for batch b; together with the stg_reader's in-flight byte
 * budget (submit answers -EAGAIN) and the bounded work queue this bounds
 * the memory whatever the dataset size. Completions are reaped in groups
 * and pushed to the workers in one lock; a read that fails goes to the
 * workers too (they count it and fill its place with zeros). Where the
 * transform asks it (stage_reads: the gpu-decode hw path, whose payload
 * is the file as it is), a read of a listed size goes straight into its
 * batch's staging area (O_DIRECT: 4 KiB-aligned, whole blocks), taken
 * once the slot is free for the batch; the bytes stay there until the batch is consumed, and no worker
 * copies them.
 *
 * Waiting: with reads in flight the thread waits in stg_reader_reap (1 ms
 * when it is also waiting for a slot, since a slot freed meanwhile cannot
 * wake a reap); with nothing in flight it sleeps on slot_cv. On stop it
 * issues nothing more, reaps what is in flight, gives those buffers back
 * and waits for the stop to be complete; ldr_run destroys the stg_reader
 * after every thread is joined, once the workers have released the
 * buffers they held.
 *
 * Each reader digests the ids of the positions it read (completed or
 * failed) per epoch in its own context: no lock, nothing shared; ldr_run
 * merges the readers' digests after the join.
 *
 * One position in ten is probed for residency before it is read: an
 * open on the reader thread, outside its stg_reader, watched as a read
 * in flight on the thread's own lane (stg_watch_begin), so that storage
 * that stops answering in that open is a stall the watchdog sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"


/*
 * How much of file NAME is in the page cache, before it is read (storage's
 * residency helper: cachestat where the kernel allows it, else mincore).
 * The method is stored only when it changes: every reader probes, and a
 * store per probe would keep the engine's line bouncing between cores.
 */
void ldr_probe_residency(struct ldr_reader_ctx *rc, const char *name,
			 uint64_t size)
{
	struct ldr_engine *e = rc->e;
	enum stg_residency_method how = STG_RESIDENCY_NONE;
	uint64_t hit = 0;
	int fd, err;

	/* an open as the read's own: on storage that stopped answering it
	 * waits as long, so it is a read in flight for the stall watch */
	stg_watch_begin(name);
	fd = openat(e->root_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		stg_watch_end();
		ldr_ctr_add(&rc->probe_errors, 1);
		return;
	}
	err = stg_cache_fd_resident(fd, &hit, NULL, &how);
	close(fd);
	stg_watch_end();
	if (err) {
		ldr_ctr_add(&rc->probe_errors, 1);
		return;
	}
	if (atomic_load_explicit(&e->probe_method, memory_order_relaxed) !=
	    (int)how)
		atomic_store_explicit(&e->probe_method, (int)how,
				      memory_order_relaxed);
	if (hit > size)
		hit = size;
	ldr_ctr_add(&rc->probed_reads, 1);
	ldr_ctr_add(&rc->probed_bytes, size);
	ldr_ctr_add(&rc->probed_hit, hit);
}

/* Room in STAGE for a file of SIZE bytes read at ALIGN (1, or 4096 for
 * O_DIRECT: whole blocks), or NULL. */
static void *stage_read_mem(struct ldr_stage *stage, size_t size,
			    size_t align)
{
	uint8_t *p;

	if (align == 1)
		return ldr_stage_alloc(stage, size);
	p = ldr_stage_alloc(stage, ((size + align - 1) & ~(align - 1)) +
			    align - 16);
	if (!p)
		return NULL;
	return p + ((align - (uintptr_t)p % align) % align);
}

/* Reap up to the array's size, waiting up to TIMEOUT_NS; push to workers.
 * Returns the number reaped, or -errno. */
static int reap_push(struct ldr_reader_ctx *rc, int64_t timeout_ns)
{
	struct ldr_engine *e = rc->e;
	bool window = atomic_load_explicit(&e->window_on, memory_order_relaxed);
	uint64_t bytes = 0, files = 0;
	int n = stg_reader_reap(rc->r, rc->comp, 64, timeout_ns);

	if (n <= 0)
		return n;
	for (int i = 0; i < n; i++) {
		const struct stg_completion *c = &rc->comp[i];
		struct ldr_item *it = &rc->items[i];

		it->pos = c->user_data;
		it->data = c->data;
		it->len = c->len;
		it->buf = c->buf;
		it->result = c->result;
		/* read into the caller's memory: the batch's staging area */
		it->staged = !c->result && !c->buf;
		/* the id this reader put at the position when it issued it
		 * (the entry stays until the position's batch is consumed) */
		ldr_reader_digest(rc, it->pos / e->per_epoch,
				  e->pos_id[it->pos % e->pos_ring]);
		if (!c->result) {
			bytes += c->len;
			files++;
		}
		if (window)
			stg_histo_record(&rc->read_lat, c->clat_ns);
	}
	ldr_ctr_add(&rc->bytes, bytes);
	ldr_ctr_add(&rc->files, files);
	atomic_store_explicit(&rc->pending, stg_reader_pending(rc->r),
			      memory_order_relaxed);
	ldr_queue_push(e, rc->items, (unsigned)n);
	return n;
}

/* Sleep until slot S is free for batch B, or the run stops. */
static void wait_slot(struct ldr_engine *e, struct ldr_slot *s, uint64_t b)
{
	pthread_mutex_lock(&e->slot_lock);
	while (atomic_load_explicit(&s->free_for, memory_order_acquire) != b &&
	       !ldr_stopping(e))
		pthread_cond_wait(&e->slot_cv, &e->slot_lock);
	pthread_mutex_unlock(&e->slot_lock);
}

static void drain_inflight(struct ldr_reader_ctx *rc)
{
	while (stg_reader_pending(rc->r)) {
		int n = stg_reader_reap(rc->r, rc->comp, 64, 100000000);

		if (n < 0)
			break;
		for (int i = 0; i < n; i++)
			stg_buf_release(rc->comp[i].buf);
	}
	atomic_store_explicit(&rc->pending, 0, memory_order_relaxed);
}

static int reader_loop(struct ldr_reader_ctx *rc)
{
	struct ldr_engine *e = rc->e;
	const bool null_backend = stg_reader_backend(rc->r) == STG_BACKEND_NULL;
	const bool stage_reads = e->tf.stage_reads && e->stages;
	/* O_DIRECT: whole 4 KiB blocks at a 4 KiB boundary */
	const size_t dalign = e->cfg->reader.direct ? 4096 : 1;
	uint64_t cur_epoch = UINT64_MAX, p = 0, id = 0;
	bool have = false, probed = false, exhausted = false;
	void *dst = NULL;       /* position P's bytes in its staging area */
	const uint64_t max_stage = e->cfg->reader.max_sample_bytes ?
		e->cfg->reader.max_sample_bytes : STG_DEFAULT_MAX_SAMPLE_BYTES;

	while (!ldr_stopping(e)) {
		bool slot_blocked = false, full = false;
		unsigned issued = 0;
		struct ldr_slot *s = NULL;
		int err;

		while (!exhausted && issued < 64) {
			struct stg_read_req req;
			uint64_t b, ring;
			int64_t size;

			if (!have) {
				p = atomic_fetch_add_explicit(&e->cursor, 1,
						memory_order_relaxed);
				if (p >= e->pos_limit) {
					exhausted = true;
					break;
				}
				have = true;
				probed = false;
				dst = NULL;
				if (p / e->per_epoch != cur_epoch) {
					cur_epoch = p / e->per_epoch;
					ldr_sampler_set_epoch(rc->sampler,
							      cur_epoch);
				}
				id = ldr_sampler_get(rc->sampler,
						     p % e->per_epoch);
			}
			b = p / e->batch;
			s = &e->slots[b % e->prefetch];
			if (atomic_load_explicit(&s->free_for,
						 memory_order_acquire) != b) {
				slot_blocked = true;
				break;
			}
			size = stg_dataset_size(e->ds, id);
			req.dirfd = e->root_fd;
			req.name = stg_dataset_relpath(e->ds, id, NULL);
			req.size = size < 0 ? STG_SIZE_UNKNOWN : (uint64_t)size;
			req.user_data = p;
			/* kept while P waits for the reader (-EAGAIN); the
			 * area is not rewound before P's batch is consumed */
			if (stage_reads && size >= 0 && !dst &&
			    (uint64_t)size <= max_stage)
				dst = stage_read_mem(s->stage, (size_t)size,
						     dalign);
			req.dst = dst;
			if (!probed && e->probe_threshold && !null_backend &&
			    ldr_mix64(p ^ e->cfg->seed) < e->probe_threshold) {
				ldr_probe_residency(rc, req.name,
						size < 0 ? 0 : (uint64_t)size);
				probed = true;
			}
			ring = p % e->pos_ring;
			e->pos_id[ring] = id;
			e->pos_t[ring] = stg_now_ns();
			err = stg_reader_submit(rc->r, &req);
			if (err == -EAGAIN) {
				full = true;
				break;
			}
			if (err) {
				/* refused outright: a failed sample */
				struct ldr_item it = { .pos = p, .result = err };

				ldr_reader_digest(rc, p / e->per_epoch, id);
				ldr_queue_push(e, &it, 1);
			}
			have = false;
			issued++;
		}
		if (issued) {
			err = stg_reader_flush(rc->r);
			if (err)
				return err;
		}
		atomic_store_explicit(&rc->pending, stg_reader_pending(rc->r),
				      memory_order_relaxed);
		if (stg_reader_pending(rc->r)) {
			int64_t timeout = 0;

			if (!issued)
				timeout = slot_blocked || full ? 1000000
							       : 100000000;
			if (exhausted && !issued)
				timeout = 100000000;
			err = reap_push(rc, timeout);
			if (err < 0 && err != -EINTR && err != -ETIME &&
			    err != -EAGAIN)
				return err;
		} else if (exhausted) {
			return 0;
		} else if (slot_blocked) {
			wait_slot(e, s, p / e->batch);
		} else if (full) {
			/* every buffer is held by the workers: they give them
			 * back within a sample's time */
			struct timespec ts = { 0, 100000 };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

void *ldr_reader_main(void *arg)
{
	struct ldr_reader_ctx *rc = arg;
	struct ldr_engine *e = rc->e;
	int err;

	stg_histo_init(&rc->read_lat);
	err = stg_reader_create(&e->cfg->reader, &rc->r);
	if (!ldr_engine_started(e, err))
		return NULL;
	err = reader_loop(rc);
	if (err) {
		int none = 0;

		rc->fatal = err;
		atomic_compare_exchange_strong(&e->fatal, &none, err);
		ldr_engine_notify(e);
	}
	drain_inflight(rc);
	ldr_engine_wait_stop(e);
	return NULL;
}
