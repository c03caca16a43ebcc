/*
 * lru_sim.c - a file-granular LRU cache, to estimate the page-cache hit
 * ratio of --ram SIZE where no memory cgroup can be made.
 *
 * Shuffled epochs are LRU's bad case: the files read at the end of one
 * epoch are the ones kept, and the next epoch's order is independent of
 * it, so most of them are evicted before they come round again. With a
 * cache holding a fraction f of the dataset, an epoch after the first hits
 * about f + (1 - f) ln(1 - f) of it (0.16 for f = 0.51), not f. Replaying
 * the run's own order makes the estimate exact for an LRU of this size.
 * A file takes whole pages of the cache (its size rounded up to 4 KiB):
 * with files of a few KB, the cache holds far fewer of them than its
 * bytes divided by theirs.
 *
 * Layout: one node per file id in an array made at create (the id is the
 * index: no hashing), linked in a doubly linked list by index, most
 * recent at the head. An access is O(1) and allocates nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define NIL UINT32_MAX
#define LRU_PAGE 4096u         /* the page cache's unit */

struct lru_node {
	uint32_t prev, next;    /* list links by index; NIL at the ends */
	uint64_t bytes;         /* size when cached */
	bool cached;
};

struct ldr_lru_sim {
	struct lru_node *node;
	size_t n;
	uint64_t cap;           /* cache bytes */
	uint64_t used;
	uint32_t head, tail;    /* most / least recently used */
	struct ldr_lru_stats st;
};

int ldr_lru_sim_create(size_t n, uint64_t cache_bytes,
		       struct ldr_lru_sim **out)
{
	struct ldr_lru_sim *s;

	*out = NULL;
	if (n == 0 || n >= NIL)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->node = calloc(n, sizeof(*s->node));
	if (!s->node) {
		free(s);
		return -ENOMEM;
	}
	s->n = n;
	s->cap = cache_bytes;
	s->head = s->tail = NIL;
	*out = s;
	return 0;
}

void ldr_lru_sim_destroy(struct ldr_lru_sim *s)
{
	if (!s)
		return;
	free(s->node);
	free(s);
}

static void unlink_node(struct ldr_lru_sim *s, uint32_t i)
{
	struct lru_node *x = &s->node[i];

	if (x->prev != NIL)
		s->node[x->prev].next = x->next;
	else
		s->head = x->next;
	if (x->next != NIL)
		s->node[x->next].prev = x->prev;
	else
		s->tail = x->prev;
	x->prev = x->next = NIL;
}

static void push_head(struct ldr_lru_sim *s, uint32_t i)
{
	struct lru_node *x = &s->node[i];

	x->prev = NIL;
	x->next = s->head;
	if (s->head != NIL)
		s->node[s->head].prev = i;
	s->head = i;
	if (s->tail == NIL)
		s->tail = i;
}

static void evict_tail(struct ldr_lru_sim *s)
{
	uint32_t i = s->tail;

	unlink_node(s, i);
	s->node[i].cached = false;
	s->used -= s->node[i].bytes;
}

bool ldr_lru_sim_access(struct ldr_lru_sim *s, size_t id, uint64_t bytes)
{
	struct lru_node *x;
	uint32_t i = (uint32_t)id;
	bool hit;

	if (id >= s->n)
		return false;
	x = &s->node[i];
	s->st.accesses++;
	s->st.bytes += bytes;
	hit = x->cached && x->bytes == bytes;
	if (x->cached) {
		/* a file that changed size is read again in full */
		unlink_node(s, i);
		x->cached = false;
		s->used -= x->bytes;
	}
	if (hit) {
		s->st.hits++;
		s->st.hit_bytes += bytes;
	}
	if (bytes > s->cap) {
		/* reading it through pushes everything else out */
		while (s->tail != NIL)
			evict_tail(s);
		s->st.cached_bytes = s->used;
		return hit;
	}
	while (s->used + bytes > s->cap && s->tail != NIL)
		evict_tail(s);
	x->bytes = bytes;
	x->cached = true;
	s->used += bytes;
	push_head(s, i);
	s->st.cached_bytes = s->used;
	return hit;
}

void ldr_lru_sim_stats(const struct ldr_lru_sim *s, struct ldr_lru_stats *out)
{
	*out = s->st;
	out->cached_bytes = s->used;
}

void ldr_lru_sim_reset_stats(struct ldr_lru_sim *s)
{
	memset(&s->st, 0, sizeof(s->st));
	s->st.cached_bytes = s->used;
}

double ldr_lru_stats_ratio(const struct ldr_lru_stats *st)
{
	return st->bytes ? (double)st->hit_bytes / (double)st->bytes : 0.0;
}

int ldr_lru_estimate_run(const struct stg_dataset *ds, uint64_t seed,
			 unsigned rank, unsigned world, bool drop_last,
			 uint64_t epochs, uint64_t cache_bytes,
			 struct ldr_lru_estimate *out)
{
	struct ldr_lru_sim *sim = NULL;
	struct ldr_sampler *smp = NULL;
	size_t n = ds ? stg_dataset_count(ds) : 0;
	uint64_t steady_bytes = 0, steady_hits = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!n || epochs < 2)
		return -EINVAL;
	err = ldr_lru_sim_create(n, cache_bytes, &sim);
	if (err < 0)
		return err;
	err = ldr_sampler_create(n, seed, rank, world, drop_last, &smp);
	if (err < 0)
		goto out;
	for (uint64_t e = 0; e < epochs; e++) {
		struct ldr_lru_stats st;
		uint64_t len;

		ldr_sampler_set_epoch(smp, e);
		len = ldr_sampler_len(smp);
		ldr_lru_sim_reset_stats(sim);
		for (uint64_t i = 0; i < len; i++) {
			uint64_t id = ldr_sampler_get(smp, i);
			int64_t size = stg_dataset_size(ds, (size_t)id);

			/* the page cache holds whole pages: a 1.4 KB file
			 * takes 4 KB of it */
			ldr_lru_sim_access(sim, (size_t)id, size > 0 ?
					   ((uint64_t)size + LRU_PAGE - 1) /
					   LRU_PAGE * LRU_PAGE : 0);
		}
		ldr_lru_sim_stats(sim, &st);
		if (e == 0) {
			out->first_epoch = ldr_lru_stats_ratio(&st);
		} else {
			steady_bytes += st.bytes;
			steady_hits += st.hit_bytes;
		}
		out->last_epoch = ldr_lru_stats_ratio(&st);
	}
	out->steady = steady_bytes ? (double)steady_hits /
				     (double)steady_bytes : 0.0;
	out->epochs = epochs;
out:
	ldr_sampler_destroy(smp);
	ldr_lru_sim_destroy(sim);
	return err;
}
