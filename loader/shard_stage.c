/*
 * shard_stage.c - the reader threads of a sharded dataset (WebDataset tar,
 * TFRecord, MDS: files that each hold many records).
 *
 * DESIGN: the dataset's files are shards, each holding a number of records
 * counted when the dataset was opened. A rank reads its own S shards
 * (engine.c picks them: all of them with one rank). A reader thread
 * claims whole shards from the engine's shard cursor: claim k is the
 * rank's shard perm_E[k % S] of epoch E = k / S, perm_E being the
 * reader's sampler over the S shards (the same seeded shuffle in every
 * reader), so each shard is read once per epoch, by one reader. The reader streams the shard front to back in
 * --read-size blocks (storage's stg_stream: several in flight through
 * io_uring), runs them through the decompressor when the shard is
 * compressed, into a window from which the format's scanner cuts records.
 * Each record is copied into a buffer of the reader's pool and put in the
 * reader's shuffle buffer. When that is full (or the reader has no shard
 * left) it gives out a record drawn at random: it takes the next position
 * from the engine's cursor, waits until the position's batch slot is free
 * (as the file reader does) and pushes the record to the workers. A
 * position is taken only with a record in hand, so a reader never holds
 * a position that waits on its own reading.
 *
 * Exactly once: a shard gives out exactly its counted records per epoch.
 * Records its stream lacks (an error, a shorter file, a missing file) go
 * out as failed samples carrying the error; records past the count are
 * dropped. The run's positions 0 .. epochs x T - 1 (T: the records of the
 * rank's shards) are then each taken by one record, and every record of
 * the rank's shards is read once per epoch (once across the ranks). A
 * record is digested for its epoch when it takes its position.
 *
 * Memory: the window (up to max_record + a block, touched as used), the
 * stream's blocks and the pool's record buffers: shuffle_buffer + work
 * queue + workers + 2 of them, each grown to the largest record it held
 * and then reused. Workers give buffers back from their threads, under
 * the pool's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine_internal.h"
#include "stg_mix.h"

/* The window reserved when some shards are compressed: the largest
 * decompressed shard read in one piece (larger ones are read through a
 * moving window, one copy more). */
#define LDR_SHARD_ZWINDOW ((size_t)4 << 30)
/* Window bytes a reader keeps touched between shards. */
#define LDR_SHARD_KEEP ((size_t)256 << 20)

struct ldr_rec_pool {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct ldr_rec *free;
	struct ldr_rec *all;
	unsigned n;
};

/* A record in the shuffle buffer (REC NULL: a failed one). */
struct held {
	struct ldr_rec *rec;
	uint64_t len, id, off, epoch;
	uint32_t shard;
	int result;
};

struct shard_rd {
	struct ldr_reader_ctx *rc;
	struct ldr_engine *e;
	const struct ldr_shards *sh;
	const struct ldr_shard_ops *ops;
	uint64_t nshards, claim_limit;
	const uint64_t *base;           /* first record id of each shard */

	/* the shard being read */
	bool open;
	uint64_t shard, epoch, want, given;
	bool compressed, eof;
	bool stable;                    /* compressed: decompressed into the
	                                   window from its start, unmoved */
	int fail;                       /* code for the records still owed */
	uint64_t fail_off;
	void *scan, *dec;
	const uint8_t *blk;             /* compressed: the block being fed */
	size_t blk_len, blk_pos;

	uint8_t *win;                   /* the window: stream bytes */
	size_t win_cap, win_len;        /* [win_base, win_base + win_len) */
	uint64_t win_base;

	unsigned depth;                 /* the stream's reads in flight */
	size_t touched;                 /* window bytes used, largest */
	struct held *buf;               /* the shuffle buffer */
	unsigned nbuf, cap;
	uint64_t rng;
};

/* ---- the record pool ---- */

/*
 * A record buffer: pages of its own (mmap), resized with mremap, so the
 * memory held is exactly the buffers' sizes (a malloc arena kept the
 * pages of records long given back: its heap only grew, epoch after
 * epoch). Touched now (MAP_POPULATE). NULL when refused.
 */
static uint8_t *rec_map(size_t cap)
{
	void *d = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return d == MAP_FAILED ? NULL : d;
}

/*
 * N record buffers of CAP bytes each, written once now: a reader's
 * buffers are touched before the run starts, not one page fault at a time
 * on its hot path (a buffer grows later only for a record over CAP).
 */
static int pool_create(unsigned n, size_t cap, struct ldr_rec_pool **out)
{
	struct ldr_rec_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->all = calloc(n, sizeof(*p->all));
	if (!p->all) {
		free(p);
		return -ENOMEM;
	}
	p->n = n;
	for (unsigned i = 0; i < n; i++) {
		p->all[i].pool = p;
		p->all[i].next = p->free;
		p->free = &p->all[i];
		p->all[i].data = cap ? rec_map(cap) : NULL;
		if (p->all[i].data)
			p->all[i].cap = cap;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	*out = p;
	return 0;
}

void ldr_rec_pool_free(struct ldr_rec_pool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		if (p->all[i].data)
			munmap(p->all[i].data, p->all[i].cap);
	free(p->all);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
}

void ldr_rec_release(struct ldr_rec *rec)
{
	struct ldr_rec_pool *p;

	if (!rec)
		return;
	p = rec->pool;
	pthread_mutex_lock(&p->lock);
	rec->next = p->free;
	p->free = rec;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
}

static size_t round16k(size_t n)
{
	return (n + 16383) & ~(size_t)16383;
}

/* A free buffer of at least LEN bytes, or NULL when the run stops. */
static struct ldr_rec *pool_get(struct shard_rd *r, size_t len)
{
	struct ldr_rec_pool *p = r->rc->pool;
	struct ldr_rec *rec = NULL;

	pthread_mutex_lock(&p->lock);
	while (!p->free && !ldr_stopping(r->e)) {
		struct timespec ts;

		/* the pool is sized so that this wait is short: a worker
		 * gives a buffer back within a sample's time */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->cv, &p->lock, &ts);
	}
	if (p->free) {
		rec = p->free;
		p->free = rec->next;
	}
	pthread_mutex_unlock(&p->lock);
	/* a buffer is sized to its record (16 KiB steps, 25 % + 64 KiB of
	 * slack): the memory held is the records held, the same in every
	 * epoch, so a memory cgroup sized on the fill epoch holds the run
	 * (buffers kept at their largest record would creep towards the
	 * pool times the largest record) */
	if (rec && (rec->cap < len ||
		    rec->cap > round16k(len) + round16k(len) / 4 + 65536)) {
		size_t cap = round16k(len);
		uint8_t *d = rec->data ? mremap(rec->data, rec->cap, cap,
						MREMAP_MAYMOVE) : rec_map(cap);

		if (d == MAP_FAILED)
			d = NULL;
		if (!d) {
			ldr_rec_release(rec);
			return NULL;
		}
		rec->data = d;
		rec->cap = cap;
	}
	return rec;
}

/* ---- giving records out ---- */

/* Give out one held record at random. Returns false when every position
 * of the run is taken (the record is dropped) or the run stops. */
static bool give_one(struct shard_rd *r)
{
	struct ldr_engine *e = r->e;
	unsigned j = (unsigned)(stg_splitmix64(&r->rng) % r->nbuf);
	struct held h = r->buf[j];
	struct ldr_item it;
	struct ldr_slot *s;
	uint64_t p, b, ring;

	r->buf[j] = r->buf[--r->nbuf];
	p = atomic_fetch_add_explicit(&e->cursor, 1, memory_order_relaxed);
	if (p >= e->pos_limit) {
		ldr_rec_release(h.rec);
		return false;
	}
	/* the record has its place in the run: read for its epoch */
	ldr_reader_digest(r->rc, h.epoch, h.id);
	b = p / e->batch;
	s = &e->slots[b % e->prefetch];
	while (atomic_load_explicit(&s->free_for, memory_order_acquire) != b) {
		if (ldr_stopping(e)) {
			ldr_rec_release(h.rec);
			return false;
		}
		pthread_mutex_lock(&e->slot_lock);
		if (atomic_load_explicit(&s->free_for, memory_order_acquire)
		    != b && !ldr_stopping(e))
			pthread_cond_wait(&e->slot_cv, &e->slot_lock);
		pthread_mutex_unlock(&e->slot_lock);
	}
	ring = p % e->pos_ring;
	e->pos_id[ring] = h.id;
	e->pos_t[ring] = stg_now_ns();
	memset(&it, 0, sizeof(it));
	it.pos = p;
	it.rec = h.rec;
	it.data = h.rec ? h.rec->data : NULL;
	it.len = h.len;
	it.result = h.result;
	it.shard = h.shard;
	it.off = h.off;
	it.epoch = h.epoch;
	if (!h.result)
		ldr_ctr_add(&r->rc->files, 1);
	ldr_queue_push(e, &it, 1);
	return true;
}

/* Hold one record (REC NULL with RESULT: a failed one) of the shard. */
static void hold(struct shard_rd *r, struct ldr_rec *rec, uint64_t len,
		 uint64_t off, int result)
{
	struct held *h = &r->buf[r->nbuf++];

	h->rec = rec;
	h->len = len;
	h->off = off;
	h->result = result;
	h->shard = (uint32_t)r->shard;
	h->epoch = r->epoch;
	h->id = r->base[r->shard] + r->given;
	r->given++;
}

/* ---- reading a shard ---- */


/* Claim the next shard and open it. false: none is left this run. */
static bool shard_claim(struct shard_rd *r)
{
	struct ldr_engine *e = r->e;
	struct ldr_reader_ctx *rc = r->rc;
	uint64_t k = atomic_fetch_add_explicit(&e->shard_cursor, 1,
					       memory_order_relaxed);
	const char *name;
	int err;

	if (k >= r->claim_limit)
		return false;
	r->epoch = k / r->nshards;
	ldr_sampler_set_epoch(rc->sampler, r->epoch);
	r->shard = e->rank_shards[ldr_sampler_get(rc->sampler,
						  k % r->nshards)];
	r->want = r->sh->records[r->shard];
	r->given = 0;
	r->fail = 0;
	r->fail_off = 0;
	r->eof = false;
	r->win_len = 0;
	r->win_base = 0;
	r->blk = NULL;
	r->blk_len = r->blk_pos = 0;
	r->compressed = r->sh->compressed && r->sh->compressed[r->shard] &&
			r->dec;
	r->stable = false;
	r->open = true;
	name = stg_dataset_relpath(e->ds, r->shard, NULL);
	if (e->probe_threshold && ldr_mix64(k ^ e->cfg->seed) <
				  e->probe_threshold) {
		int64_t size = stg_dataset_size(e->ds, r->shard);

		ldr_probe_residency(rc, name, size < 0 ? 0 : (uint64_t)size);
	}
	err = stg_stream_open(rc->st, e->root_fd, name);
	if (err) {
		/* every record of it fails */
		r->fail = err == -ENOENT && r->ops->missing_err ?
			  r->ops->missing_err : err;
		return true;
	}
	atomic_store_explicit(&rc->pending, r->depth, memory_order_relaxed);
	r->ops->scan_init(r->ops->arg, r->scan, r->shard);
	return true;
}

static void shard_close(struct shard_rd *r)
{
	/* a shard decompressed whole past LDR_SHARD_KEEP gives those pages
	 * back: smaller ones keep them for the next shard (no new faults) */
	if (r->win_len > r->touched)
		r->touched = r->win_len;
	if (r->touched > LDR_SHARD_KEEP) {
		madvise(r->win + LDR_SHARD_KEEP, r->touched - LDR_SHARD_KEEP,
			MADV_DONTNEED);
		r->touched = LDR_SHARD_KEEP;
	}
	stg_stream_close(r->rc->st);
	atomic_store_explicit(&r->rc->pending, 0, memory_order_relaxed);
	r->open = false;
}

/* The next stream block; 1, 0 at the end, or a code. Waits in 100 ms
 * steps, looking at the stop flag between them. */
static int next_block(struct shard_rd *r, const uint8_t **data, size_t *len)
{
	for (;;) {
		bool window = atomic_load_explicit(&r->e->window_on,
						   memory_order_relaxed);
		uint64_t t0 = stg_now_ns();
		int ret = stg_stream_next(r->rc->st, data, len, 100000000);

		if (ret == -ETIME && !ldr_stopping(r->e))
			continue;
		if (ret == 1) {
			ldr_ctr_add(&r->rc->bytes, *len);
			if (window)
				stg_histo_record(&r->rc->read_lat,
						 stg_now_ns() - t0);
		}
		return ret;
	}
}

/* Bring more stream bytes into the window. 0, or a code that ends the
 * shard (the end of the stream sets r->eof instead). */
static int fill(struct shard_rd *r, uint64_t keep_from)
{
	size_t drop = keep_from > r->win_base ?
		(size_t)(keep_from - r->win_base) : 0;
	const uint8_t *data;
	size_t len;
	int ret;

	if (drop > r->win_len)
		drop = r->win_len;
	if (drop && !r->stable) {
		memmove(r->win, r->win + drop, r->win_len - drop);
		r->win_len -= drop;
		r->win_base += drop;
	}
	if (!r->compressed) {
		ret = next_block(r, &data, &len);
		if (ret <= 0) {
			r->eof = ret == 0;
			return ret;
		}
		if (len > r->win_cap - r->win_len)
			return r->ops->truncated_err;   /* over max_record */
		memcpy(r->win + r->win_len, data, len);
		r->win_len += len;
		return 0;
	}
	/* compressed: decompress into the window's free tail; a stream
	 * that says its size and fits is decompressed into the window from
	 * its start, never moved (one copy fewer) */
	if (r->win_len == r->win_cap)
		return r->ops->truncated_err;   /* over max_record */
	while (r->win_len < r->win_cap) {
		size_t out = r->win_len;
		bool first = !r->blk;

		if (r->blk_pos == r->blk_len) {
			ret = next_block(r, &r->blk, &r->blk_len);
			r->blk_pos = 0;
			if (ret < 0)
				return ret;
			if (ret == 0) {
				r->blk_len = 0;
				r->eof = true;
				return first ? 0 : r->ops->dec_end(r->dec);
			}
			if (first)
				r->stable = r->ops->dec_begin(r->dec, r->blk,
					r->blk_len, r->sh->raw_bytes ?
					r->sh->raw_bytes[r->shard] : 0,
					r->win_cap) == 1;
		}
		ret = r->ops->dec_run(r->dec, r->blk, r->blk_len, &r->blk_pos,
				      r->win, r->win_cap, &out);
		if (out > r->win_len)
			ldr_ctr_add(&r->rc->dec_bytes, out - r->win_len);
		if (ret)
			return ret;
		if (out > r->win_len) {
			r->win_len = out;
			return 0;
		}
	}
	return 0;
}

/* Cut the shard's next record into the shuffle buffer, or settle what it
 * still owes. false when the reader cannot go on (stop, no memory). */
static bool shard_step(struct shard_rd *r)
{
	uint64_t off = 0, len = 0, keep = 0, err_off = 0;
	struct ldr_rec *rec;
	int ret;

	if (r->given >= r->want && (r->fail || r->eof)) {
		shard_close(r);
		return true;
	}
	if (r->fail) {
		hold(r, NULL, 0, r->fail_off, r->fail);
		return true;
	}
	ret = r->ops->scan_next(r->scan, r->win, r->win_base, r->win_len,
				r->eof, &off, &len, &keep, &err_off);
	if (ret == 1) {
		if (r->given >= r->want)
			return true;    /* past the count: dropped */
		rec = pool_get(r, len);
		if (!rec && ldr_stopping(r->e))
			return false;
		if (!rec) {     /* no memory for it: a failed record, so
		                   that the epoch still fills */
			hold(r, NULL, 0, off, -ENOMEM);
			return true;
		}
		memcpy(rec->data, r->win + (off - r->win_base), len);
		hold(r, rec, len, off, 0);
		return true;
	}
	if (ret < 0) {
		r->fail = ret;
		r->fail_off = err_off;
		r->eof = true;
		if (r->given >= r->want)
			shard_close(r);
		return true;
	}
	if (r->eof) {                   /* the shard ended cleanly */
		if (r->given < r->want) {
			r->fail = r->ops->truncated_err;
			r->fail_off = r->win_base + r->win_len;
		}
		return true;
	}
	ret = fill(r, keep);
	if (ret) {
		r->fail = ret;
		r->fail_off = r->win_base + r->win_len;
		r->eof = true;
	}
	return !ldr_stopping(r->e) || ret;
}

static int shard_loop(struct shard_rd *r)
{
	bool more = true;

	while (!ldr_stopping(r->e)) {
		if (r->nbuf && (r->nbuf == r->cap || (!more && !r->open))) {
			if (!give_one(r))
				return 0;
			continue;
		}
		if (!r->open) {
			if (!more)
				return 0;
			more = shard_claim(r);
			continue;
		}
		if (!shard_step(r))
			return 0;
	}
	return 0;
}

/* Records a reader holds to shuffle: the buffer asked, but no more than
 * its share of an epoch (as a WebDataset worker's buffer never holds more
 * than its epoch: the memory is then the same in every epoch). */
static unsigned shuffle_cap(const struct ldr_shards *sh, uint64_t total,
			    unsigned readers)
{
	uint64_t cap = sh->shuffle_buffer ? sh->shuffle_buffer :
		       LDR_DEFAULT_SHUFFLE_BUFFER;
	uint64_t share = total / (readers ? readers : 1);

	if (cap > share)
		cap = share ? share : 1;
	return (unsigned)cap;
}

/* A record buffer's first size: 1.25 x the mean record (the shards'
 * bytes over their records; decompressed bytes where known), in 16 KiB
 * steps, at most 4 MiB (a larger record grows its buffer). */
static size_t rec_cap0(const struct stg_dataset *ds,
		       const struct ldr_shards *sh)
{
	uint64_t bytes = 0, n = stg_dataset_count(ds), mean;

	for (uint64_t i = 0; i < n; i++) {
		int64_t sz = stg_dataset_size(ds, i);

		if (sh->raw_bytes && sh->raw_bytes[i])
			bytes += sh->raw_bytes[i];
		else if (sz > 0)
			bytes += (uint64_t)sz;
	}
	if (!sh->total || !bytes)
		return 0;
	mean = bytes / sh->total;
	mean += mean / 4;
	mean = (mean + 16383) & ~(uint64_t)16383;
	return mean > (4u << 20) ? 4u << 20 : (size_t)mean;
}

static int shard_setup(struct shard_rd *r, struct ldr_reader_ctx *rc)
{
	struct ldr_engine *e = rc->e;
	const struct ldr_shards *sh = e->cfg->shards;
	struct stg_stream_config sc = {
		.backend = e->cfg->reader.backend,
		.block_size = sh->read_size,
		.depth = sh->read_depth,
		.direct = e->cfg->reader.direct,
	};
	uint64_t *base, nfiles;
	unsigned qcap = e->q.cap;
	int err;

	memset(r, 0, sizeof(*r));
	r->rc = rc;
	r->e = e;
	r->sh = sh;
	r->ops = sh->ops;
	r->nshards = e->rank_nshards;
	r->claim_limit = e->cfg->epochs ? e->cfg->epochs * r->nshards :
					  UINT64_MAX;
	r->cap = shuffle_cap(sh, e->per_epoch, e->readers);
	r->rng = e->cfg->seed ^ (0x5851F42D4C957F2Dull * (rc->idx + 1));
	nfiles = stg_dataset_count(e->ds);
	base = calloc(nfiles ? nfiles : 1, sizeof(*base));
	r->buf = calloc(r->cap, sizeof(*r->buf));
	r->scan = calloc(1, r->ops->scan_size ? r->ops->scan_size : 1);
	if (!base || !r->buf || !r->scan) {
		free(base);
		return -ENOMEM;
	}
	/* record ids are global: every shard of the listing counts */
	for (uint64_t i = 1; i < nfiles; i++)
		base[i] = base[i - 1] + sh->records[i - 1];
	r->base = base;
	r->win_cap = (size_t)(sh->max_record ? sh->max_record :
			      STG_DEFAULT_BLOCK_SIZE) +
		     (sh->read_size ? sh->read_size : STG_STREAM_BLOCK_DEFAULT);
	/* compressed shards are decompressed whole into the window (as the
	 * MDS library decompresses a shard whole): room for large ones,
	 * reserved only; pages are touched as far as the largest shard */
	for (uint64_t i = 0; sh->compressed && i < r->nshards; i++)
		if (sh->compressed[e->rank_shards[i]]) {
			if (r->win_cap < LDR_SHARD_ZWINDOW)
				r->win_cap = LDR_SHARD_ZWINDOW;
			break;
		}
	/* reserved, touched only as far as the longest record goes */
	r->win = mmap(NULL, r->win_cap, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->win == MAP_FAILED && r->win_cap == LDR_SHARD_ZWINDOW) {
		/* strict overcommit: the moving window alone */
		r->win_cap = (size_t)(sh->max_record ? sh->max_record :
				      STG_DEFAULT_BLOCK_SIZE) +
			     (sh->read_size ? sh->read_size :
			      STG_STREAM_BLOCK_DEFAULT);
		r->win = mmap(NULL, r->win_cap, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			      0);
	}
	if (r->win == MAP_FAILED) {
		r->win = NULL;
		return -ENOMEM;
	}
	if (r->ops->dec_create) {
		err = r->ops->dec_create(r->ops->arg, &r->dec);
		if (err)
			return err;
	}
	err = stg_stream_create(&sc, &rc->st);
	if (err)
		return err;
	{
		struct stg_stream_stats ss;

		stg_stream_stats(rc->st, &ss);
		r->depth = ss.backend == STG_BACKEND_PSYNC ? 1 : sh->read_depth ?
			   sh->read_depth : STG_STREAM_DEPTH_DEFAULT;
	}
	return pool_create(r->cap + qcap + e->workers + 2,
			   rec_cap0(e->ds, sh), &rc->pool);
}

static void shard_teardown(struct shard_rd *r)
{
	for (unsigned i = 0; i < r->nbuf; i++)
		ldr_rec_release(r->buf[i].rec);
	r->nbuf = 0;
	if (r->open)
		shard_close(r);
	if (r->dec)
		r->ops->dec_destroy(r->dec);
	if (r->win)
		munmap(r->win, r->win_cap);
	free(r->buf);
	free(r->scan);
	free((void *)r->base);
}

void *ldr_shard_reader_main(void *arg)
{
	struct ldr_reader_ctx *rc = arg;
	struct ldr_engine *e = rc->e;
	struct shard_rd r;
	int err;

	stg_histo_init(&rc->read_lat);
	err = shard_setup(&r, rc);
	if (!ldr_engine_started(e, err)) {
		shard_teardown(&r);
		return NULL;
	}
	shard_loop(&r);
	shard_teardown(&r);
	ldr_engine_wait_stop(e);
	return NULL;
}

uint64_t ldr_shard_reader_bytes(const struct ldr_shards *sh,
				const struct stg_dataset *ds, unsigned readers,
				unsigned depth, unsigned workers)
{
	const uint64_t block = sh->read_size ? sh->read_size :
			       STG_STREAM_BLOCK_DEFAULT;
	const unsigned buffer = shuffle_cap(sh, sh->total, readers);
	uint64_t cap = rec_cap0(ds, sh), queue, window, big = 0;

	if (!readers)
		readers = 1;
	if (!depth)
		depth = LDR_DEFAULT_DEPTH;
	/* the engine's work queue (queue_capacity), all of it one
	 * reader's records at worst */
	queue = 2ull * depth * readers;
	if (queue < 4ull * workers)
		queue = 4ull * workers;
	if (!cap)
		cap = 256u << 10;
	/* the moving window holds a record's tail and a block or two; a
	 * compressed shard read whole fills it up to its size, of which
	 * LDR_SHARD_KEEP stays touched */
	window = 2 * block + 4 * cap;
	for (uint64_t i = 0; sh->raw_bytes && i < stg_dataset_count(ds); i++)
		if (sh->compressed && sh->compressed[i] &&
		    sh->raw_bytes[i] > big)
			big = sh->raw_bytes[i];
	if (big > window)
		window = big;
	return (buffer + queue + workers + 2) * cap + window +
	       (uint64_t)(sh->read_depth ? sh->read_depth :
			  STG_STREAM_DEPTH_DEFAULT) * block;
}
