/*
 * stage.c - a batch's staging area: the variable part of a batch (what
 * a GPU decoder is handed), in page-locked chunks that grow to the
 * largest batch seen and are then reused.
 *
 * DESIGN: one area per prefetched batch slot. The readers issuing the
 * slot's batch (a file read straight into the area, where the transform
 * asks it: ldr_transform.stage_reads) and the workers filling it take
 * bytes under the area's mutex (a bump pointer; a new chunk when the
 * current one is full). The consumer that frees the slot rewinds the
 * area (ldr_stage_rewind) after every worker's sample of the batch was
 * placed (the slot's FILL acq_rel and READY_FOR release order their
 * writes, and the reads they waited for, before it) and before FREE_FOR
 * (stored with release, loaded with acquire by a reader before it
 * allocates) lets the next batch's readers in, so no thread allocates
 * while it rewinds; it takes the mutex all the same. Chunks are freed
 * only by ldr_stage_fini, after the join and after the readers' reads
 * are reaped.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "engine_internal.h"

/* A new chunk of at least N bytes into slot K. 0 or -ENOMEM. */
static int stage_chunk(struct ldr_stage *s, unsigned k, size_t n)
{
	size_t len = n > s->grow ? n : s->grow;

	if (k == 0)
		len = n > s->first ? n : s->first;
	void *p;

	bool locked;

	len = (len + 4095) & ~(size_t)4095;
	p = ldr_pinned_map(len, &locked);
	if (!p)
		return -ENOMEM;
	if (!locked)
		s->unpinned = true;     /* RLIMIT_MEMLOCK: said in the result */
	s->chunk[k] = p;
	s->cap[k] = len;
	s->held += len;
	if (k >= s->n)
		s->n = k + 1;
	return 0;
}

void *ldr_pinned_map(size_t len, bool *locked)
{
	void *p;

	len = (len + 4095) & ~(size_t)4095;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);  /* where THP is madvise */
	/* faulted in now: page faults would be counted as the worker's */
	memset(p, 0, len);
	*locked = mlock(p, len) == 0;
	return p;
}

void ldr_pinned_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, (len + 4095) & ~(size_t)4095);
}

int ldr_stage_init(struct ldr_stage *s, size_t first)
{
	memset(s, 0, sizeof(*s));
	s->first = first ? first : 1;
	/* past the first chunk (the caller's estimate of a batch), the
	 * area grows by a quarter of it, or by what one sample needs */
	s->grow = s->first / 4 > (1u << 20) ? s->first / 4 : (1u << 20);
	pthread_mutex_init(&s->lock, NULL);
	return stage_chunk(s, 0, s->first);
}

void ldr_stage_fini(struct ldr_stage *s)
{
	for (unsigned i = 0; i < s->n; i++)
		ldr_pinned_unmap(s->chunk[i], s->cap[i]);
	if (s->first)
		pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
}

void *ldr_stage_alloc(struct ldr_stage *s, size_t n)
{
	void *p = NULL;

	if (!s)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	pthread_mutex_lock(&s->lock);
	while (s->cur < LDR_STAGE_CHUNKS) {
		if (s->cur >= s->n && stage_chunk(s, s->cur, n))
			break;
		if (s->cap[s->cur] - s->used >= n) {
			p = s->chunk[s->cur] + s->used;
			s->used += n;
			s->batch_bytes += n;
			break;
		}
		/* the next chunk, kept from an earlier batch or new; one
		 * too small for N is replaced */
		s->cur++;
		s->used = 0;
		if (s->cur < s->n && s->cap[s->cur] < n) {
			s->held -= s->cap[s->cur];
			ldr_pinned_unmap(s->chunk[s->cur], s->cap[s->cur]);
			if (stage_chunk(s, s->cur, n)) {
				/* keep the table dense: the last one
				 * moves into the hole */
				s->n--;
				s->chunk[s->cur] = s->chunk[s->n];
				s->cap[s->cur] = s->cap[s->n];
				s->chunk[s->n] = NULL;
				break;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	return p;
}

uint64_t ldr_stage_rewind(struct ldr_stage *s)
{
	uint64_t b;

	pthread_mutex_lock(&s->lock);
	b = s->batch_bytes;
	s->batch_bytes = 0;
	s->cur = 0;
	s->used = 0;
	pthread_mutex_unlock(&s->lock);
	return b;
}
