/*
 * worker_pool.c - the work queue and the transform workers.
 *
 * DESIGN: readers push read samples into one bounded ring (mutex, two
 * condvars, no allocation per item; a push of N items signals
 * min(N, waiting workers) times, never broadcasts); W workers pop one
 * item each, apply
 * the transform straight into the item's place in its batch slot
 * (slot p/B % P, index p % B), give the read buffer back, and bump the
 * slot's fill count with acq_rel; the worker whose bump completes the
 * batch publishes it under ready_lock and wakes the consumers. A worker
 * never waits for a slot: the reader issued the position only once its
 * slot was free for that batch. A failed sample (read or transform error)
 * leaves zeros in its place, is counted by kind with one example path,
 * and still fills its place so the batch completes.
 *
 * Each worker owns its counters (busy/wait wall time, step times), its
 * latency histogram and its error table; the main thread reads the
 * counters at any time and the rest after the join.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* ---- the queue ---- */

int ldr_queue_init(struct ldr_queue *q, unsigned cap)
{
	memset(q, 0, sizeof(*q));
	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = cap;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	return 0;
}

void ldr_queue_fini(struct ldr_queue *q)
{
	if (!q->ring)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	free(q->ring);
	q->ring = NULL;
}

void ldr_queue_drain(struct ldr_queue *q)
{
	while (q->count) {
		ldr_item_release(&q->ring[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
	atomic_store_explicit(&q->occupancy, 0, memory_order_relaxed);
}

void ldr_queue_push(struct ldr_engine *e, const struct ldr_item *it,
		    unsigned n)
{
	struct ldr_queue *q = &e->q;
	unsigned i = 0;

	pthread_mutex_lock(&q->lock);
	while (i < n) {
		unsigned pushed = 0;

		while (q->count == q->cap && !ldr_stopping(e)) {
			q->push_waiters++;
			pthread_cond_wait(&q->not_full, &q->lock);
			q->push_waiters--;
		}
		if (ldr_stopping(e))
			break;
		while (i < n && q->count < q->cap) {
			q->ring[(q->head + q->count) % q->cap] = it[i++];
			q->count++;
			pushed++;
		}
		atomic_store_explicit(&q->occupancy, q->count,
				      memory_order_relaxed);
		/* one wake-up per item, at most one per waiter: a broadcast
		 * for two items would wake every idle worker to find the
		 * queue empty again */
		for (unsigned k = 0; k < pushed && k < q->pop_waiters; k++)
			pthread_cond_signal(&q->not_empty);
	}
	pthread_mutex_unlock(&q->lock);
	/* stopped: what did not get in goes back to its reader */
	for (; i < n; i++)
		ldr_item_release(&it[i]);
}

/* Take one item; false once the run stops and the queue is empty. */
static bool queue_pop(struct ldr_engine *e, struct ldr_item *out)
{
	struct ldr_queue *q = &e->q;

	pthread_mutex_lock(&q->lock);
	while (!q->count && !ldr_stopping(e)) {
		q->pop_waiters++;
		pthread_cond_wait(&q->not_empty, &q->lock);
		q->pop_waiters--;
	}
	if (!q->count) {
		pthread_mutex_unlock(&q->lock);
		return false;
	}
	*out = q->ring[q->head];
	q->head = (q->head + 1) % q->cap;
	q->count--;
	atomic_store_explicit(&q->occupancy, q->count, memory_order_relaxed);
	if (q->push_waiters)
		pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return true;
}

/* ---- errors ---- */

const char *ldr_sample_err_name(int err)
{
	switch (-err) {
	case LDR_ECORRUPT: return "corrupt";
	case LDR_ETRUNCATED: return "truncated";
	case LDR_EUNSUPPORTED: return "unsupported";
	case LDR_ETOOBIG: return "pixels_over_cap";
	case LDR_ENOTFORMAT: return "not_format";
	default: return stg_errname(err);
	}
}

static void err_count(struct ldr_engine *e, struct ldr_err_table *t,
		      int err, uint64_t id, const struct ldr_item *it,
		      const struct ldr_step_times *st)
{
	const struct ldr_shards *sh = e->cfg->shards;
	const char *kind = st && st->err_kind ? st->err_kind :
			   sh && sh->ops->err_name ? sh->ops->err_name(err) :
			   NULL;
	struct ldr_err_count *c = NULL;
	uint64_t total;

	if (!kind)
		kind = ldr_sample_err_name(err);
	if (sh)     /* the example is the shard and the record's offset */
		id = it->shard;
	for (unsigned i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].kind, kind)) {
			c = &t->e[i];
			break;
		}
	if (!c && t->n < LDR_ERR_KINDS) {
		const char *rel = stg_dataset_relpath(e->ds, id, NULL);
		const char *root = stg_dataset_root(e->ds);

		c = &t->e[t->n++];
		snprintf(c->kind, sizeof(c->kind), "%s", kind);
		if (rel && rel[0] == '/')
			snprintf(c->example, sizeof(c->example), "%s", rel);
		else
			snprintf(c->example, sizeof(c->example), "%s/%s",
				 root, rel ? rel : "?");
		if (sh || (st && st->err_at)) {
			size_t l = strlen(c->example);

			/* a shard: the record's offset in its stream, then
			 * where in the record's payload; a file: where */
			if (sh && st && st->err_at)
				snprintf(c->example + l, sizeof(c->example) -
					 l, "@%llu+%llu", (unsigned long long)
					 it->off, (unsigned long long)
					 st->err_off);
			else
				snprintf(c->example + l, sizeof(c->example) -
					 l, "@%llu", (unsigned long long)(sh ?
					 it->off : st->err_off));
		}
	}
	if (!c)   /* more kinds than the table holds: the last one takes it */
		c = &t->e[LDR_ERR_KINDS - 1];
	c->count++;
	total = atomic_fetch_add_explicit(&e->errors_total, 1,
					  memory_order_relaxed) + 1;
	if (e->cfg->max_errors && total >= e->cfg->max_errors &&
	    !atomic_exchange(&e->max_errors_hit, true))
		ldr_engine_notify(e);
}

/* ---- the worker ---- */

static void slot_place(struct ldr_engine *e, uint64_t pos, bool bad)
{
	uint64_t b = pos / e->batch;
	struct ldr_slot *s = &e->slots[b % e->prefetch];
	unsigned n;

	if (bad)
		atomic_fetch_add_explicit(&s->bad, 1, memory_order_relaxed);
	n = atomic_fetch_add_explicit(&s->fill, 1, memory_order_acq_rel) + 1;
	if (n != ldr_batch_count(e, b))
		return;
	atomic_fetch_add_explicit(&e->ready_count, 1, memory_order_relaxed);
	pthread_mutex_lock(&e->ready_lock);
	atomic_store_explicit(&s->ready_for, b, memory_order_release);
	pthread_cond_broadcast(&e->ready_cv);
	pthread_mutex_unlock(&e->ready_lock);
}

static uint64_t sec_to_ns(double s)
{
	return s > 0 ? (uint64_t)(s * 1e9) : 0;
}

void *ldr_worker_main(void *arg)
{
	struct ldr_worker_ctx *w = arg;
	struct ldr_engine *e = w->e;
	const struct ldr_transform *tf = &e->tf;
	uint64_t t_prev;
	int err = 0;

	stg_histo_init(&w->lat);
	if (tf->ctx_create)
		err = tf->ctx_create(tf->arg, &w->tctx);
	w->init_err = err;
	if (!ldr_engine_started(e, err))
		goto out;

	t_prev = stg_now_ns();
	for (;;) {
		struct ldr_item it;
		struct ldr_step_times st = { 0 };
		uint64_t b, t1, t2, ring, id;
		uint8_t *out;
		int res;

		if (!queue_pop(e, &it))
			break;
		t1 = stg_now_ns();
		ldr_ctr_add(&w->wait_ns, t1 - t_prev);
		if (ldr_stopping(e)) {
			ldr_item_release(&it);
			t_prev = t1;
			continue;
		}
		b = it.pos / e->batch;
		ring = it.pos % e->pos_ring;
		id = e->pos_id[ring];
		out = e->slots[b % e->prefetch].data +
		      (size_t)(it.pos % e->batch) * e->out_bytes;
		res = it.result;
		st.stage = e->slots[b % e->prefetch].stage;
		st.in_stage = it.staged;
		if (!res)
			res = tf->apply(w->tctx, it.data, it.len, e->cfg->seed,
					e->cfg->shards ? it.epoch :
					it.pos / e->per_epoch, id, out, &st);
		ldr_item_release(&it);
		t2 = stg_now_ns();
		if (!it.result) {
			ldr_ctr_add(&w->busy_ns, t2 - t1);
			ldr_ctr_add(&w->decode_ns, sec_to_ns(st.decode_s));
			ldr_ctr_add(&w->resize_ns, sec_to_ns(st.resize_s));
			ldr_ctr_add(&w->other_ns, sec_to_ns(st.other_s));
			ldr_ctr_add(&w->decomp_bytes, st.decompressed_bytes);
			ldr_ctr_add(&w->staged_bytes, st.staged_bytes);
			if (!res && st.path < LDR_PATHS_MAX)
				ldr_ctr_add(&w->path_n[st.path], 1);
		}
		if (res) {
			memset(out, 0, e->out_bytes);
			err_count(e, &w->errs, res, id, &it, it.result ? NULL : &st);
		}
		if (atomic_load_explicit(&e->window_on, memory_order_relaxed))
			stg_histo_record(&w->lat, t2 > e->pos_t[ring] ?
					 t2 - e->pos_t[ring] : 0);
		slot_place(e, it.pos, res != 0);
		t_prev = t2;
	}
	ldr_engine_wait_stop(e);
out:
	if (tf->ctx_destroy && w->tctx)
		tf->ctx_destroy(w->tctx);
	w->tctx = NULL;
	return NULL;
}
