/*
 * live.c - the running totals of a measurement, in memory its parent
 * still reads after the child was killed.
 *
 * DESIGN
 * Processes: the parent maps one record (MAP_SHARED | MAP_ANONYMOUS)
 * before it forks the measurement child, so both see the same pages.
 * The child's engine (one writer: its main thread) publishes its totals
 * at most every LDR_LIVE_PERIOD_S; the parent reads them only when the
 * child's own result did not come back (SIGKILLed on a stall, or dead).
 * Ordering: a seqlock over two slots. Publication N goes to slot N % 2:
 * its sequence is made odd, the words are stored, the sequence is made
 * even again (release). A child killed in the middle of a store leaves
 * that slot odd and the other one whole, so the reader, which takes the
 * even slot with the larger publication number, always gets a whole
 * set of totals (one period older at worst). Every word is a relaxed
 * atomic: the reader may run while a writer still lives (a child given
 * up to the kernel) without a data race.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "loader.h"

#define LIVE_WORDS ((sizeof(struct ldr_live) + 7) / 8)

struct live_slot {
	_Atomic uint64_t seq;           /* odd while being written */
	_Atomic uint64_t n;             /* publication number, from 1 */
	_Atomic uint64_t w[LIVE_WORDS];
};

struct ldr_live_rec {
	struct live_slot slot[2];
	uint64_t published;             /* the writer's own count */
};

struct ldr_live_rec *ldr_live_create(void)
{
	void *p = mmap(NULL, sizeof(struct ldr_live_rec),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;   /* zero-filled: nothing yet */
}

void ldr_live_destroy(struct ldr_live_rec *rec)
{
	if (rec)
		munmap(rec, sizeof(*rec));
}

void ldr_live_publish(struct ldr_live_rec *rec, const struct ldr_live *v)
{
	uint64_t w[LIVE_WORDS] = { 0 };
	struct live_slot *s;
	uint64_t seq;

	if (!rec)
		return;
	memcpy(w, v, sizeof(*v));
	rec->published++;
	s = &rec->slot[rec->published % 2];
	seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i < LIVE_WORDS; i++)
		atomic_store_explicit(&s->w[i], w[i], memory_order_relaxed);
	atomic_store_explicit(&s->n, rec->published, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* Slot S whole into W; its publication number, 0 when torn or empty. */
static uint64_t slot_read(const struct live_slot *s, uint64_t *w)
{
	struct live_slot *m = (struct live_slot *)s;   /* atomics: not const */

	for (int tries = 0; tries < 4; tries++) {
		uint64_t a = atomic_load_explicit(&m->seq, memory_order_acquire);
		uint64_t n;

		if (a & 1)
			continue;
		n = atomic_load_explicit(&m->n, memory_order_relaxed);
		for (size_t i = 0; i < LIVE_WORDS; i++)
			w[i] = atomic_load_explicit(&m->w[i],
						    memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&m->seq, memory_order_relaxed) == a)
			return n;
	}
	return 0;
}

bool ldr_live_read(const struct ldr_live_rec *rec, struct ldr_live *out)
{
	uint64_t w0[LIVE_WORDS], w1[LIVE_WORDS];
	uint64_t n0, n1;

	if (!rec)
		return false;
	n0 = slot_read(&rec->slot[0], w0);
	n1 = slot_read(&rec->slot[1], w1);
	if (!n0 && !n1)
		return false;
	memcpy(out, n1 > n0 ? w1 : w0, sizeof(*out));
	return true;
}

void ldr_live_to_result(const struct ldr_live *v, struct ldr_result *res)
{
	memset(res, 0, sizeof(*res));
	res->window_partial = true;
	res->warmup_incomplete = !v->window;
	res->readers = v->readers;
	res->workers = v->workers;
	res->batch = v->batch;
	res->prefetch = v->prefetch;
	res->gpus = v->gpus;
	res->measured_s = v->measured_s;
	res->warmup_s = v->window ? v->warmup_s : 0;
	res->samples = v->samples;
	res->samples_failed = v->samples_failed;
	res->batches = v->batches;
	res->epochs_done = v->epochs_done;
	res->window_start_realtime = v->window_start_realtime;
	res->window_end_realtime = v->published_realtime;
	res->samples_per_s = v->measured_s > 0 ?
			     (double)v->samples / v->measured_s : 0;
	res->step_time_s = v->step_time_s;
	res->gpu_compute_s = v->gpu_compute_s;
	res->gpu_wait_s = v->gpu_wait_s;
	if (v->gpus && v->gpu_compute_s + v->gpu_wait_s > 0)
		res->au = v->gpu_compute_s / (v->gpu_compute_s +
					      v->gpu_wait_s);
	res->reader_cpu_s = v->reader_cpu_s;
	res->worker_cpu_s = v->worker_cpu_s;
	res->consumer_cpu_s = v->consumer_cpu_s;
	res->process_cpu_s = v->process_cpu_s;
	res->worker_busy_s = v->worker_busy_s;
	res->worker_wait_s = v->worker_wait_s;
	res->steps.decode_s = v->decode_s;
	res->steps.resize_s = v->resize_s;
	res->steps.other_s = v->other_s;
	res->read_bytes = v->read_bytes;
	res->read_bytes_per_s = v->measured_s > 0 ?
				(double)v->read_bytes / v->measured_s : 0;
	res->errors = v->errors;
	res->bottleneck = LDR_BOTTLENECK_UNKNOWN;
	/* the histograms, series and error kinds stay empty: not carried */
	stg_histo_init(&res->sample_lat);
	stg_histo_init(&res->read_lat);
}
