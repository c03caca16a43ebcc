/*
 * gpu_emu.c - the emulated GPUs and the drain.
 *
 * DESIGN: G consumer threads; batch b belongs to GPU b % G, and each GPU
 * takes its batches in order. A GPU waits on ready_cv until its batch's
 * slot says READY_FOR == b, hands the batch over (the on_batch hook, the
 * sample counters), holds it for step_time = batch / gpu_rate on an
 * absolute CLOCK_MONOTONIC deadline (sleeping in pieces of at most 50 ms
 * so a stop is seen), then frees the slot: fill and bad are reset, then
 * FREE_FOR moves to b + P with release and slot_cv wakes the readers.
 *
 * LDR_GPU_SYNC_ALL: step k is batches kG .. kG+G-1; every GPU waits for its
 * batch and then at a barrier; the last to arrive stamps the step's start,
 * and all hold until start + step_time, as synchronous data-parallel
 * training does. In the last step of an epoch-limited run, GPUs without a
 * batch still meet the barrier, then leave. LDR_GPU_SYNC_NONE: each GPU
 * steps on its own. Wait = time from the end of the previous step to the
 * start of this one; compute = step_time; AU = compute / (compute + wait).
 *
 * gpus = 0: one drain thread frees each batch as soon as it is ready, in
 * order (the raw feed rate).
 *
 * Each consumer owns its counters; the main thread reads them at any time.
 */
#include <sys/prctl.h>
#include <time.h>

#include "engine_internal.h"

/* Wait until batch B is complete in its slot; false when the run stops. */
static bool wait_ready(struct ldr_engine *e, uint64_t b)
{
	struct ldr_slot *s = &e->slots[b % e->prefetch];
	bool ok;

	if (atomic_load_explicit(&s->ready_for, memory_order_acquire) == b)
		return true;
	pthread_mutex_lock(&e->ready_lock);
	while (atomic_load_explicit(&s->ready_for, memory_order_acquire) != b &&
	       !ldr_stopping(e))
		pthread_cond_wait(&e->ready_cv, &e->ready_lock);
	ok = atomic_load_explicit(&s->ready_for, memory_order_acquire) == b;
	pthread_mutex_unlock(&e->ready_lock);
	return ok && !ldr_stopping(e);
}

/* Hand batch B to its consumer: the hook and the counters. */
static void deliver(struct ldr_engine *e, struct ldr_gpu_ctx *g, uint64_t b)
{
	struct ldr_slot *s = &e->slots[b % e->prefetch];
	unsigned n = ldr_batch_count(e, b);
	unsigned bad = atomic_load_explicit(&s->bad, memory_order_relaxed);

	if (e->cfg->on_batch)
		e->cfg->on_batch(e->cfg->on_batch_arg, b, s->data, n);
	ldr_ctr_add(&g->samples, n);
	ldr_ctr_add(&g->good, n - bad);
	ldr_ctr_add(&g->batches, 1);
	if (e->cfg->samples &&
	    atomic_load_explicit(&e->window_on, memory_order_acquire)) {
		uint64_t good = 0;

		for (unsigned i = 0; i < e->consumers; i++)
			good += ldr_ctr_get(&e->gp[i].good);
		if (good - e->window_good0 >= e->cfg->samples &&
		    !atomic_exchange(&e->samples_reached, true))
			ldr_engine_notify(e);
	}
}

static void slot_free(struct ldr_engine *e, uint64_t b)
{
	struct ldr_slot *s = &e->slots[b % e->prefetch];

	if (s->stage) {
		/* the batch is consumed: its staging area starts over */
		uint64_t n = ldr_stage_rewind(s->stage);
		uint64_t max = atomic_load_explicit(&e->stage_batch_max,
						    memory_order_relaxed);

		while (n > max && !atomic_compare_exchange_weak_explicit(
				&e->stage_batch_max, &max, n,
				memory_order_relaxed, memory_order_relaxed))
			;
	}
	atomic_store_explicit(&s->fill, 0, memory_order_relaxed);
	atomic_store_explicit(&s->bad, 0, memory_order_relaxed);
	atomic_fetch_sub_explicit(&e->ready_count, 1, memory_order_relaxed);
	atomic_store_explicit(&s->free_for, b + e->prefetch,
			      memory_order_release);
	pthread_mutex_lock(&e->slot_lock);
	pthread_cond_broadcast(&e->slot_cv);
	pthread_mutex_unlock(&e->slot_lock);
}

/* Sleep until DEADLINE (CLOCK_MONOTONIC ns); false when the run stops. */
static bool hold_until(struct ldr_engine *e, uint64_t deadline)
{
	for (;;) {
		uint64_t now = stg_now_ns(), t;
		struct timespec ts;

		if (now >= deadline)
			return true;
		if (ldr_stopping(e))
			return false;
		t = deadline - now > 50000000 ? now + 50000000 : deadline;
		ts.tv_sec = (time_t)(t / 1000000000u);
		ts.tv_nsec = (long)(t % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* Barrier of the synchronous step; the step's start, or 0 on stop. */
static uint64_t step_barrier(struct ldr_engine *e)
{
	uint64_t gen, start = 0;

	pthread_mutex_lock(&e->bar_lock);
	gen = e->bar_gen;
	if (++e->bar_arrived == e->gpus) {
		e->bar_arrived = 0;
		e->bar_start_ns = stg_now_ns();
		e->bar_gen++;
		pthread_cond_broadcast(&e->bar_cv);
	} else {
		while (e->bar_gen == gen && !ldr_stopping(e))
			pthread_cond_wait(&e->bar_cv, &e->bar_lock);
	}
	if (e->bar_gen != gen)
		start = e->bar_start_ns;
	pthread_mutex_unlock(&e->bar_lock);
	return start;
}

static void consumer_done(struct ldr_engine *e)
{
	pthread_mutex_lock(&e->ctl_lock);
	e->consumers_done++;
	pthread_cond_broadcast(&e->ctl_cv);
	pthread_mutex_unlock(&e->ctl_lock);
}

static void gpu_run_sync(struct ldr_engine *e, struct ldr_gpu_ctx *g)
{
	uint64_t prev_end = stg_now_ns();

	for (uint64_t k = 0; k * e->gpus < e->total_batches; k++) {
		uint64_t b = k * e->gpus + g->idx, start;
		bool have = b < e->total_batches;

		if (have && !wait_ready(e, b))
			return;
		start = step_barrier(e);
		if (!start || !have)
			return;
		ldr_ctr_add(&g->wait_ns, start > prev_end ? start - prev_end : 0);
		deliver(e, g, b);
		if (!hold_until(e, start + e->step_ns))
			return;
		ldr_ctr_add(&g->compute_ns, e->step_ns);
		slot_free(e, b);
		prev_end = start + e->step_ns;
	}
}

static void gpu_run_independent(struct ldr_engine *e, struct ldr_gpu_ctx *g)
{
	uint64_t prev_end = stg_now_ns();

	for (uint64_t b = g->idx; b < e->total_batches; b += e->gpus) {
		uint64_t start;

		if (!wait_ready(e, b))
			return;
		start = stg_now_ns();
		ldr_ctr_add(&g->wait_ns, start > prev_end ? start - prev_end : 0);
		deliver(e, g, b);
		if (!hold_until(e, start + e->step_ns))
			return;
		ldr_ctr_add(&g->compute_ns, e->step_ns);
		slot_free(e, b);
		prev_end = start + e->step_ns;
	}
}

void *ldr_gpu_main(void *arg)
{
	struct ldr_gpu_ctx *g = arg;
	struct ldr_engine *e = g->e;

	/* steps end on their deadline, not up to the default 50 us slack
	 * later */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (!ldr_engine_started(e, 0))
		return NULL;
	if (e->cfg->gpu_sync == LDR_GPU_SYNC_NONE)
		gpu_run_independent(e, g);
	else
		gpu_run_sync(e, g);
	consumer_done(e);
	ldr_engine_wait_stop(e);
	return NULL;
}

void *ldr_drain_main(void *arg)
{
	struct ldr_gpu_ctx *g = arg;
	struct ldr_engine *e = g->e;

	if (!ldr_engine_started(e, 0))
		return NULL;
	for (uint64_t b = 0; b < e->total_batches; b++) {
		if (!wait_ready(e, b))
			break;
		deliver(e, g, b);
		slot_free(e, b);
	}
	consumer_done(e);
	ldr_engine_wait_stop(e);
	return NULL;
}
