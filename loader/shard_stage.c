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
 * A record is not copied out of the window: the window lies in a
 * retained block (a segment of the reader's pool, see "Retained blocks"
 * below) and the record put in the reader's shuffle buffer, then handed
 * to a worker, points into it. When that is full (or the reader has no shard
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
 * A truncated or corrupt record, or a shard that vanished (its open
 * fails), ends the shard's walk: the records it still owes go out as
 * failed samples with the scanner's (or the open's) code, counted and
 * reported by the engine; no record points at bytes past the error.
 *
 * Retained blocks: the pool holds NSEG segments of SEG_HARD bytes
 * (max_record + a block, reserved) of which SEG_SOFT are used in the
 * common case. The reader's window is a range of its current segment,
 * and its start only moves forward (no memmove). An uncompressed shard's
 * blocks are read straight into the segment (the stream takes the
 * reader's memory: stg_stream_feed), each where the one before it ends,
 * up to DEPTH reads ahead of the window: the reader writes the bytes of
 * a block once, through the kernel. The feed point (WSEG, WPOS) is in the
 * current segment, or in the next one once the current is used up to
 * SEG_SOFT; there a block lands after a gap (at most GAP_MAX, and no more
 * than the window and the reads ahead of it could keep), and when the
 * window reaches it, its kept tail (a partial record) is copied into the
 * gap, just before it. A tail longer than the gap (a rare long record)
 * moves the landed blocks up, after the reads into them are taken.
 * Compressed shards are read into blocks of the reader's own (ZBUF) and
 * decompressed to the window's end.
 *
 * A record is [data, data + len) inside the segment, which counts it in
 * its REFS (atomic); the reader holds one more reference to its current
 * segment. When the next block does not fit under SEG_SOFT, the reader
 * takes a free segment, copies the window's kept tail (a partial record)
 * to its start (read straight in: into its gap, see above) and drops its
 * reference to the old one. Whoever drops the last reference (a worker
 * after its transform, the queue's drain at the end, the reader) puts
 * the segment back on the free list under the pool's lock; only the
 * reader takes segments off it, so a segment is written only while no
 * record points into it. The reader holds a reference to WSEG too while
 * it is not the current one: a segment with reads in flight into it is
 * never free, and the reader waits for every read (the stream's close)
 * before it lets go of a segment. The reader and its reads write only
 * past the window's end, never below a record it gave out. With no
 * segment free, the reader moves the records of its shuffle buffer that
 * point into the oldest segment (not WSEG) to buffers of their own
 * (counted: records_moved) and waits, in 10 ms steps that look at the
 * stop flag, for the workers to release the rest of it (they do within
 * a sample's time: the queue and the workers hold no more than they can
 * process). A compressed shard whose frame says its size and fits a
 * segment is decompressed into one segment from its start, unmoved (one
 * write of its bytes).
 *
 * Memory: the segments (NSEG x SEG_SOFT touched, more for a record or a
 * decompressed shard over SEG_SOFT, of which LDR_SHARD_KEEP stays
 * touched), DEPTH + 1 blocks for compressed shards' bytes, and moved
 * records' buffers (rare: mapped when first needed, each sized to its
 * record).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine_internal.h"
#include "stg_mix.h"

/* Segment bytes used before the reader moves to the next segment: at
 * least 8 MiB and 4 blocks, so that the tail copied at a switch (one
 * partial record) is a small share of the bytes. */
#define LDR_SEG_SOFT_MIN ((size_t)8 << 20)
/* Segment bytes over SEG_SOFT a reader keeps touched, all segments
 * together (large records, compressed shards decompressed whole). */
#define LDR_SHARD_KEEP ((size_t)256 << 20)
#define LDR_SEG_MAX 4096u
/* Where a block is read into: page-aligned, as O_DIRECT wants */
#define LDR_ALIGN ((size_t)4096)
/* A gap before the first block of a segment, for the window's tail:
 * this many times the mean record, at least LDR_GAP_MIN. */
#define LDR_GAP_RECORDS 2u
#define LDR_GAP_MIN ((size_t)64 << 10)

struct ldr_rec_pool {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct ldr_rec *free;           /* records' own buffers */
	struct ldr_rec *free_seg;       /* segments */
	struct ldr_rec *all;            /* N buffers, then NSEG segments */
	unsigned n, nseg;
};

/* A record in the shuffle buffer (REC NULL: a failed one). */
struct held {
	struct ldr_rec *rec;
	const uint8_t *data;
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

	struct ldr_rec *cur;            /* the segment the window lies in */
	uint8_t *win;                   /* the window: stream bytes */
	size_t win_cap, win_len;        /* [win_base, win_base + win_len);
	                                   WIN_CAP: up to CUR's end */
	uint64_t win_base;
	size_t seg_soft;                /* see the DESIGN comment */
	size_t block;                   /* the stream's block size */
	uint64_t seg_stamp;             /* segments taken */
	size_t over;                    /* segment bytes touched past
	                                   SEG_SOFT, all segments */
	struct ldr_rec *wseg;           /* where the next block is read: CUR,
	                                   or the next segment (referenced) */
	size_t wpos;                    /* its offset there, 4096-aligned */
	size_t wend;                    /* WSEG not CUR: reads go up to it */
	size_t gap_max;                 /* see the DESIGN comment */
	bool broken;                    /* reads may still land: no segment
	                                   is let go */
	uint8_t *zbuf;                  /* compressed: DEPTH + 1 blocks */
	uint64_t zfed;                  /* blocks fed into ZBUF */

	unsigned depth;                 /* the stream's reads in flight */
	struct held *buf;               /* the shuffle buffer */
	unsigned nbuf, cap;
	uint64_t rng;
};

/* ---- the record pool ---- */

/*
 * A buffer of pages of its own (mmap), resized with mremap, so the
 * memory held is exactly the buffers' sizes (a malloc arena kept the
 * pages of records long given back: its heap only grew, epoch after
 * epoch). POPULATE: touched now. NULL when refused.
 */
static uint8_t *rec_map(size_t cap, bool populate)
{
	void *d = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS |
		       (populate ? MAP_POPULATE : MAP_NORESERVE), -1, 0);

	return d == MAP_FAILED ? NULL : d;
}

/*
 * N record buffers (mapped when first needed) and NSEG segments of
 * SEG_CAP bytes each, reserved, their first SOFT bytes touched now: a
 * reader's segments are faulted in before the run starts, not one page
 * at a time on its hot path.
 */
static int pool_create(unsigned n, unsigned nseg, size_t seg_cap,
		       size_t soft, struct ldr_rec_pool **out)
{
	struct ldr_rec_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->all = calloc(n + nseg, sizeof(*p->all));
	if (!p->all) {
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->n = n + nseg;
	p->nseg = nseg;
	*out = p;
	for (unsigned i = 0; i < n + nseg; i++) {
		struct ldr_rec *r = &p->all[i];

		r->pool = p;
		atomic_init(&r->refs, 0);
		if (i < n) {
			r->next = p->free;
			p->free = r;
			continue;
		}
		r->data = rec_map(seg_cap, false);
		if (!r->data)
			return -ENOMEM;
		r->cap = seg_cap;
		r->seg = true;
		r->next = p->free_seg;
		p->free_seg = r;
		/* touched now (best effort: the kernel may not know it) */
		(void)madvise(r->data, soft, 23 /* MADV_POPULATE_WRITE */);
	}
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
	/* acq_rel: every holder's reads of the bytes come before the one
	 * that puts the block back, hence before the reader rewrites it */
	if (atomic_fetch_sub_explicit(&rec->refs, 1,
				      memory_order_acq_rel) != 1)
		return;
	p = rec->pool;
	pthread_mutex_lock(&p->lock);
	if (rec->seg) {
		rec->next = p->free_seg;
		p->free_seg = rec;
	} else {
		rec->next = p->free;
		p->free = rec;
	}
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
}

static size_t round16k(size_t n)
{
	return (n + 16383) & ~(size_t)16383;
}

/* Wait up to 10 ms on the pool's condition; the caller holds its lock. */
static void pool_wait(struct ldr_rec_pool *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 10000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&p->cv, &p->lock, &ts);
}

/* A free record buffer of at least LEN bytes, or NULL when the run
 * stops or the memory is refused. */
static struct ldr_rec *pool_get(struct shard_rd *r, size_t len)
{
	struct ldr_rec_pool *p = r->rc->pool;
	struct ldr_rec *rec = NULL;

	pthread_mutex_lock(&p->lock);
	/* the pool is sized so that this wait is short: a worker gives a
	 * buffer back within a sample's time */
	while (!p->free && !ldr_stopping(r->e))
		pool_wait(p);
	if (p->free) {
		rec = p->free;
		p->free = rec->next;
	}
	pthread_mutex_unlock(&p->lock);
	if (!rec)
		return NULL;
	atomic_store_explicit(&rec->refs, 1, memory_order_relaxed);
	/* a buffer is sized to its record (16 KiB steps, 25 % + 64 KiB of
	 * slack): the memory held is the records held */
	if (rec->cap < len ||
	    rec->cap > round16k(len) + round16k(len) / 4 + 65536) {
		size_t cap = round16k(len);
		uint8_t *d = rec->data ? mremap(rec->data, rec->cap, cap,
						MREMAP_MAYMOVE) :
			     rec_map(cap, true);

		if (d == MAP_FAILED)
			d = NULL;
		if (!d) {
			if (rec->data)
				munmap(rec->data, rec->cap);
			rec->data = NULL;
			rec->cap = 0;
			ldr_rec_release(rec);
			return NULL;
		}
		rec->data = d;
		rec->cap = cap;
	}
	return rec;
}

/*
 * Move the records of the shuffle buffer that point into segment SEG to
 * buffers of their own, so that SEG comes free once the workers release
 * theirs. A record for which no buffer can be had becomes a failed one
 * (-ENOMEM). false when the run stops.
 */
static bool seg_evacuate(struct shard_rd *r, struct ldr_rec *seg)
{
	for (unsigned i = 0; i < r->nbuf; i++) {
		struct held *h = &r->buf[i];
		struct ldr_rec *nb;

		if (h->rec != seg)
			continue;
		nb = pool_get(r, h->len);
		if (!nb && ldr_stopping(r->e))
			return false;
		if (nb) {
			memcpy(nb->data, h->data, h->len);
			ldr_ctr_add(&r->rc->moved, 1);
		} else {
			h->result = -ENOMEM;
			h->len = 0;
		}
		h->rec = nb;
		h->data = nb ? nb->data : NULL;
		ldr_rec_release(seg);
	}
	return true;
}

/* The oldest segment some record points into, other than the current. */
static struct ldr_rec *seg_oldest(struct shard_rd *r)
{
	struct ldr_rec_pool *p = r->rc->pool;
	struct ldr_rec *best = NULL;

	for (unsigned i = p->n - p->nseg; i < p->n; i++) {
		struct ldr_rec *s = &p->all[i];

		if (s == r->cur || s == r->wseg ||
		    !atomic_load_explicit(&s->refs,
							 memory_order_relaxed))
			continue;
		if (!best || s->stamp < best->stamp)
			best = s;
	}
	return best;
}

/*
 * A free segment, with the reader's reference: off the free list, else
 * the oldest one in use once its records in the shuffle buffer are moved
 * out and the workers have released the others. NULL when the run stops.
 */
static struct ldr_rec *seg_take(struct shard_rd *r)
{
	struct ldr_rec_pool *p = r->rc->pool;
	struct ldr_rec *s = NULL;
	bool moved = false;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		if (moved && !p->free_seg && !ldr_stopping(r->e))
			pool_wait(p);
		s = p->free_seg;
		if (s)
			p->free_seg = s->next;
		pthread_mutex_unlock(&p->lock);
		if (s)
			break;
		if (ldr_stopping(r->e))
			return NULL;
		if (!moved) {
			struct ldr_rec *old = seg_oldest(r);

			if (old && !seg_evacuate(r, old))
				return NULL;
			moved = true;
		}
	}
	/* pages past SEG_SOFT (a large record, a shard decompressed whole)
	 * go back once the reader keeps more than LDR_SHARD_KEEP of them */
	if (s->used > r->seg_soft && r->over > LDR_SHARD_KEEP) {
		madvise(s->data + r->seg_soft, s->used - r->seg_soft,
			MADV_DONTNEED);
		r->over -= s->used - r->seg_soft;
		s->used = r->seg_soft;
	}
	atomic_store_explicit(&s->refs, 1, memory_order_relaxed);
	s->stamp = ++r->seg_stamp;
	return s;
}

/* Segment S is written up to END: note the bytes touched. */
static void seg_mark(struct shard_rd *r, struct ldr_rec *s, size_t end)
{
	if (end <= s->used)
		return;
	if (end > r->seg_soft)
		r->over += end - (s->used > r->seg_soft ? s->used :
				  r->seg_soft);
	s->used = end;
}

/* The window's end moved: note the segment bytes touched. */
static void seg_note(struct shard_rd *r)
{
	seg_mark(r, r->cur, (size_t)(r->win - r->cur->data) + r->win_len);
}

/* Move the window (its kept bytes) to the start of a free segment.
 * 0, or -ECANCELED when the run stops. */
static int seg_switch(struct shard_rd *r)
{
	struct ldr_rec *n = seg_take(r);

	if (!n)
		return -ECANCELED;
	if (r->win_len)
		memcpy(n->data, r->win, r->win_len);
	assert(r->wseg == r->cur);      /* no read ahead in flight */
	ldr_rec_release(r->cur);
	r->cur = n;
	r->wseg = n;
	r->win = n->data;
	r->win_cap = n->cap;
	seg_note(r);
	return 0;
}

/*
 * Room for NEED more bytes at the window's end: in place under SEG_SOFT,
 * or past it while the kept bytes are large (a long record: moving it
 * would cost more than it saves), else in a fresh segment. 0, the
 * format's truncated code when the window cannot hold them at all (a
 * record over max_record), or -ECANCELED when the run stops.
 */
static int seg_room(struct shard_rd *r, size_t need)
{
	size_t off = (size_t)(r->win - r->cur->data);

	if (off + r->win_len + need <= r->seg_soft)
		return 0;
	if (r->win_len + need > r->cur->cap)
		return r->ops->truncated_err;   /* over max_record */
	if (r->win_len <= r->seg_soft / 2 || need > r->win_cap - r->win_len)
		return seg_switch(r);
	return 0;
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
	it.data = h.data;
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

/* Hold one record (REC NULL with RESULT: a failed one) of the shard:
 * [DATA, DATA + LEN) inside REC, whose reference it takes over. */
static void hold(struct shard_rd *r, struct ldr_rec *rec,
		 const uint8_t *data, uint64_t len, uint64_t off, int result)
{
	struct held *h = &r->buf[r->nbuf++];

	h->rec = rec;
	h->data = data;
	h->len = len;
	h->off = off;
	h->result = result;
	h->shard = (uint32_t)r->shard;
	h->epoch = r->epoch;
	h->id = r->base[r->shard] + r->given;
	r->given++;
}

/* ---- reading a shard ---- */

static size_t round4k(size_t n)
{
	return (n + LDR_ALIGN - 1) & ~(LDR_ALIGN - 1);
}

/* A new shard's window: empty, where its first block will be read (past
 * the last shard's bytes: records may point into them), 4096-aligned. */
static void win_restart(struct shard_rd *r)
{
	if (r->wseg != r->cur) {
		/* a segment taken ahead, its reads drained: start there */
		ldr_rec_release(r->cur);
		r->cur = r->wseg;
		r->wpos = 0;
	} else {
		r->wpos = round4k((size_t)(r->win - r->cur->data) +
				  r->win_len);
		if (r->wpos > r->cur->cap)
			r->wpos = r->cur->cap;
	}
	r->win = r->cur->data + r->wpos;
	r->win_cap = r->cur->cap - r->wpos;
	r->win_len = 0;
}

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
	win_restart(r);
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
	/* a compressed shard starts a segment: decompressed whole into it
	 * from its start when its frame says it fits */
	if (r->compressed && r->win != r->cur->data) {
		err = seg_switch(r);
		if (err) {
			r->fail = err;
			r->eof = true;
		}
	}
	return true;
}

static void shard_close(struct shard_rd *r)
{
	if (stg_stream_close(r->rc->st))
		r->broken = true;       /* its reads may still land */
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

/*
 * Queue reads of the shard's next blocks straight into the segments, up
 * to DEPTH of them ahead of the window: each where the last one ends,
 * under SEG_SOFT (past it for a long record, as seg_room), else in the
 * next segment after a gap for the window's tail. 0, or -ECANCELED when
 * the run stops, or -errno of the stream.
 */
static int feed(struct shard_rd *r)
{
	struct stg_stream *st = r->rc->st;

	while (stg_stream_queued(st) < r->depth) {
		int ret;

		if (r->wseg != r->cur) {
			if (r->wpos + r->block > r->wend)
				break;          /* one segment ahead at most */
		} else if (r->wpos + r->block > r->seg_soft &&
			   !(r->win_len > r->seg_soft / 2 &&
			     r->wpos + r->block <= r->cur->cap)) {
			/* the tail cannot be longer than the window and the
			 * reads ahead of it */
			size_t bound = r->wpos -
				       (size_t)(r->win - r->cur->data);
			struct ldr_rec *n = seg_take(r);

			if (!n)
				return -ECANCELED;
			r->wseg = n;
			r->wpos = round4k(bound < r->gap_max ? bound :
					  r->gap_max);
			if (r->wpos + r->block > n->cap)
				r->wpos = 0;
			/* a tail that may outgrow the gap (a long record):
			 * one block only, which then moves up past it */
			r->wend = bound > r->wpos ? r->wpos + r->block :
				  r->seg_soft;
			if (r->wend < r->wpos + r->block)
				r->wend = r->wpos + r->block;
		}
		ret = stg_stream_feed(st, r->wseg->data + r->wpos);
		if (ret <= 0)
			return ret;
		r->wpos += r->block;
		seg_mark(r, r->wseg, r->wpos);
	}
	return 0;
}

/*
 * The window reaches the next segment: DATA, LEN is the first block read
 * into it. The window's kept tail is copied into the gap before it; a
 * tail longer than the gap (a long record) has the blocks landed there
 * moved up past it, once every read into them is taken. 0 or a code that
 * ends the shard.
 */
static int seg_land(struct shard_rd *r, uint8_t *data, size_t len)
{
	struct ldr_rec *n = r->wseg;
	size_t t = r->win_len, at = (size_t)(data - n->data);

	assert(n != r->cur && data >= n->data && data < n->data + n->cap);
	if (t > at) {
		size_t up = round4k(t);

		while (stg_stream_queued(r->rc->st)) {
			const uint8_t *d;
			size_t l;
			int ret = next_block(r, &d, &l);

			if (ret < 0)
				return ret;
			if (ret == 0)
				break;
			assert(d == data + len);
			len += l;
		}
		if (up + len > n->cap)
			return r->ops->truncated_err;   /* over max_record */
		memmove(n->data + up, data, len);
		data = n->data + up;
		at = up;
		r->wpos = up + len;
		seg_mark(r, n, r->wpos);
	}
	if (t)
		memcpy(data - t, r->win, t);
	ldr_rec_release(r->cur);
	r->cur = n;
	r->win = data - t;
	r->win_cap = n->cap - (at - t);
	r->win_len = t + len;
	seg_note(r);
	return 0;
}

/* Uncompressed: the next block, read into the window's end. 0, or a
 * code that ends the shard (the end of the stream sets r->eof). */
static int fill_direct(struct shard_rd *r)
{
	const uint8_t *data;
	size_t len;
	int ret = feed(r);

	if (ret)
		return ret;
	ret = next_block(r, &data, &len);
	if (ret <= 0) {
		r->eof = ret == 0;
		return ret;
	}
	/* (segments may lie end to end in memory: compare with WSEG's) */
	if (r->wseg != r->cur && data >= r->wseg->data &&
	    data < r->wseg->data + r->wseg->cap)
		return seg_land(r, (uint8_t *)data, len);
	assert(data == r->win + r->win_len);
	r->win_len += len;
	seg_note(r);
	return 0;
}

/* Compressed: keep DEPTH reads of the shard in flight into ZBUF's
 * blocks (DEPTH + 1: the one being decompressed is not overwritten).
 * 0 or -errno of the stream. */
static int zfeed(struct shard_rd *r)
{
	while (stg_stream_queued(r->rc->st) < r->depth) {
		int ret = stg_stream_feed(r->rc->st, r->zbuf +
			(size_t)(r->zfed % (r->depth + 1)) * r->block);

		if (ret <= 0)
			return ret;
		r->zfed++;
	}
	return 0;
}

/* Bring more stream bytes into the window. 0, or a code that ends the
 * shard (the end of the stream sets r->eof instead). */
static int fill(struct shard_rd *r, uint64_t keep_from)
{
	size_t drop = keep_from > r->win_base ?
		(size_t)(keep_from - r->win_base) : 0;
	int ret;

	if (drop > r->win_len)
		drop = r->win_len;
	if (drop && !r->stable) {       /* records before it stay put */
		r->win += drop;
		r->win_cap -= drop;
		r->win_len -= drop;
		r->win_base += drop;
	}
	if (!r->compressed)
		return fill_direct(r);
	/* compressed: decompress into the window's free tail; a stream
	 * that says its size and fits is decompressed into the segment from
	 * its start, never moved (one copy fewer) */
	if (r->win_len == r->win_cap)
		return r->ops->truncated_err;   /* over max_record */
	for (;;) {
		size_t out, lim = r->win_cap;
		bool first = !r->blk;

		if (r->blk_pos == r->blk_len) {
			ret = zfeed(r);
			if (ret < 0)
				return ret;
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
		if (!r->stable) {
			size_t off;

			ret = seg_room(r, r->block);
			if (ret)
				return ret;
			off = (size_t)(r->win - r->cur->data);
			lim = off + r->win_len + r->block <= r->seg_soft ?
			      r->seg_soft - off : r->win_len + r->block;
		}
		out = r->win_len;
		ret = r->ops->dec_run(r->dec, r->blk, r->blk_len, &r->blk_pos,
				      r->win, lim, &out);
		if (out > r->win_len)
			ldr_ctr_add(&r->rc->dec_bytes, out - r->win_len);
		if (ret)
			return ret;
		if (out > r->win_len) {
			r->win_len = out;
			seg_note(r);
			return 0;
		}
		if (r->win_len == lim && r->stable)
			return r->ops->truncated_err;
	}
}

/* Cut the shard's next record into the shuffle buffer, or settle what it
 * still owes. false when the reader cannot go on (stop, no memory). */
static bool shard_step(struct shard_rd *r)
{
	uint64_t off = 0, len = 0, keep = 0, err_off = 0;
	int ret;

	if (r->given >= r->want && (r->fail || r->eof)) {
		shard_close(r);
		return true;
	}
	if (r->fail) {
		hold(r, NULL, NULL, 0, r->fail_off, r->fail);
		return true;
	}
	ret = r->ops->scan_next(r->scan, r->win, r->win_base, r->win_len,
				r->eof, &off, &len, &keep, &err_off);
	if (ret == 1) {
		if (r->given >= r->want)
			return true;    /* past the count: dropped */
		/* the record stays where it lies: it holds the segment */
		atomic_fetch_add_explicit(&r->cur->refs, 1,
					  memory_order_relaxed);
		hold(r, r->cur, r->win + (off - r->win_base), len, off, 0);
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

/* 1.25 x the mean record (the shards' bytes over their records;
 * decompressed bytes where known), 0 when unknown. */
static uint64_t rec_mean(const struct stg_dataset *ds,
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
	return mean + mean / 4;
}

struct seg_plan {
	size_t soft, hard, big;
	unsigned n;
};

/*
 * A reader's segments: HARD bytes each (max_record + a block, the
 * window's bound; the largest compressed shard of the files IDS (NIDS;
 * NULL: all), up to 4 GiB, decompressed whole), SOFT of them used in the
 * common case, N of them: twice the bytes of the HELD records a reader
 * can have out at once (its shuffle buffer, the work queue, the workers),
 * so that the oldest segment is seldom still held when the reader needs
 * it (sh->blocks, when set, instead).
 */
static void seg_plan(const struct ldr_shards *sh, const struct stg_dataset *ds,
		     const uint64_t *ids, uint64_t nids, uint64_t held,
		     struct seg_plan *pl)
{
	const size_t block = sh->read_size ? sh->read_size :
			     STG_STREAM_BLOCK_DEFAULT;
	uint64_t mean = rec_mean(ds, sh), n;

	pl->hard = (size_t)(sh->max_record ? sh->max_record :
			    STG_DEFAULT_BLOCK_SIZE) + block;
	pl->soft = 4 * block > LDR_SEG_SOFT_MIN ? 4 * block :
		   LDR_SEG_SOFT_MIN;
	if (pl->soft > pl->hard)
		pl->soft = pl->hard;
	pl->big = 0;
	for (uint64_t i = 0; sh->compressed && sh->raw_bytes && i < nids;
	     i++) {
		uint64_t id = ids ? ids[i] : i;

		if (sh->compressed[id] && sh->raw_bytes[id] > pl->big)
			pl->big = sh->raw_bytes[id];
	}
	if (pl->big > ((uint64_t)4 << 30))
		pl->big = (uint64_t)4 << 30;
	if (pl->big > pl->hard)
		pl->hard = pl->big;
	pl->hard = (pl->hard + 4095) & ~(size_t)4095;
	if (!mean)
		mean = 256u << 10;
	n = (2 * held * mean + pl->soft - 1) / pl->soft + 3;
	if (sh->blocks)
		n = sh->blocks < 3 ? 3 : sh->blocks;
	pl->n = n > LDR_SEG_MAX ? LDR_SEG_MAX : (unsigned)n;
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
		.caller_blocks = true,
	};
	uint64_t *base, nfiles, mean;
	unsigned qcap = e->q.cap;
	struct seg_plan pl;
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
	if (r->ops->dec_create) {
		err = r->ops->dec_create(r->ops->arg, &r->dec);
		if (err)
			return err;
	}
	err = stg_stream_create(&sc, &rc->st);
	if (err)
		return err;
	r->depth = stg_stream_depth(rc->st);
	r->block = sh->read_size ? sh->read_size : STG_STREAM_BLOCK_DEFAULT;
	if (r->dec && posix_memalign((void **)&r->zbuf, LDR_ALIGN,
				     (size_t)(r->depth + 1) * r->block))
		return -ENOMEM;
	seg_plan(sh, e->ds, e->rank_shards, r->nshards,
		 (uint64_t)r->cap + qcap + e->workers + 2, &pl);
	r->seg_soft = pl.soft;
	mean = rec_mean(e->ds, sh);
	r->gap_max = round4k(LDR_GAP_RECORDS * (size_t)(mean ? mean :
							256u << 10));
	if (r->gap_max < LDR_GAP_MIN)
		r->gap_max = LDR_GAP_MIN;
	if (r->gap_max > r->seg_soft / 2)
		r->gap_max = round4k(r->seg_soft / 2);
	err = pool_create(r->cap + qcap + e->workers + 2, pl.n, pl.hard,
			  pl.soft, &rc->pool);
	if (err == -ENOMEM && pl.big > pl.soft) {
		/* strict overcommit: no room reserved for whole shards (they
		 * are read through the moving window, one copy more) */
		ldr_rec_pool_free(rc->pool);
		rc->pool = NULL;
		pl.hard = (size_t)(sh->max_record ? sh->max_record :
				   STG_DEFAULT_BLOCK_SIZE) + r->block;
		err = pool_create(r->cap + qcap + e->workers + 2, pl.n,
				  pl.hard, pl.soft, &rc->pool);
	}
	if (err)
		return err;
	r->cur = seg_take(r);
	if (!r->cur)
		return -ECANCELED;
	r->wseg = r->cur;
	r->wpos = 0;
	r->win = r->cur->data;
	r->win_cap = r->cur->cap;
	return 0;
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
	if (!r->broken) {
		/* every read into them has landed */
		if (r->wseg != r->cur)
			ldr_rec_release(r->wseg);
		ldr_rec_release(r->cur);
		free(r->zbuf);
	}
	r->cur = r->wseg = NULL;
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
	uint64_t queue, segs, moved, mean = rec_mean(ds, sh);
	struct seg_plan pl;

	if (!readers)
		readers = 1;
	if (!depth)
		depth = LDR_DEFAULT_DEPTH;
	/* the engine's work queue (queue_capacity), all of it one
	 * reader's records at worst */
	queue = 2ull * depth * readers;
	if (queue < 4ull * workers)
		queue = 4ull * workers;
	seg_plan(sh, ds, NULL, stg_dataset_count(ds),
		 buffer + queue + workers + 2, &pl);
	/* the segments' usual bytes; past them, a shard decompressed whole
	 * (the one read and the one whose records drain) or large records,
	 * up to LDR_SHARD_KEEP kept */
	segs = (uint64_t)pl.n * pl.soft;
	if (pl.big > pl.soft)
		segs += 2 * pl.big;
	segs += LDR_SHARD_KEEP < pl.hard - pl.soft ? LDR_SHARD_KEEP :
		pl.hard - pl.soft;
	/* records moved out of the oldest segment: a segment's worth */
	moved = pl.soft + (mean ? mean : 256u << 10);
	/* compressed shards' blocks (uncompressed ones are read into the
	 * segments) */
	return segs + moved +
	       (uint64_t)((sh->read_depth ? sh->read_depth :
			   STG_STREAM_DEPTH_DEFAULT) + 1) * block;
}
