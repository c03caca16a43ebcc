/*
 * sampler.c - seeded per-epoch shuffle, sharded by (rank, world).
 *
 * The order of epoch E is a Fisher-Yates shuffle of 0..N-1 driven by a
 * splitmix64 stream whose start depends only on (seed, E), with unbiased
 * bounded draws (Lemire's multiply-and-reject). One permutation array is
 * allocated at creation (uint32 ids while N fits, else uint64), built for
 * epoch 0 there, and rebuilt in place by each set_epoch to another epoch
 * (O(N); asking again for the epoch it holds costs nothing): nothing is
 * allocated per epoch.
 *
 * Sharding follows PyTorch's DistributedSampler: rank R of W takes the
 * positions R, R+W, R+2W, ... of the epoch's permutation. Without
 * drop_last the permutation is padded by wrapping around to a multiple of
 * W (so every rank sees the same count, some ids twice); with drop_last
 * the tail that does not divide by W is left out.
 *
 * Digests (ldr_digest_*) live here too: the expected digest of an epoch
 * is the sampler's order over every rank.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "stg_mix.h"

struct ldr_sampler {
	uint64_t n;
	uint64_t seed;
	unsigned rank, world;
	uint64_t len;           /* per rank and epoch */
	uint64_t epoch;         /* the epoch PERM holds */
	bool wide;              /* ids stored as uint64 */
	union {
		uint32_t *p32;
		uint64_t *p64;
	} perm;
};

/* Uniform in [0, bound), bound >= 1, without modulo bias. */
static uint64_t draw_below(uint64_t *state, uint64_t bound)
{
	unsigned __int128 m = (unsigned __int128)stg_splitmix64(state) * bound;
	uint64_t low = (uint64_t)m;

	if (low < bound) {
		uint64_t threshold = (0 - bound) % bound;

		while (low < threshold) {
			m = (unsigned __int128)stg_splitmix64(state) * bound;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

int ldr_sampler_create(uint64_t n, uint64_t seed, unsigned rank,
		       unsigned world, bool drop_last,
		       struct ldr_sampler **out)
{
	struct ldr_sampler *s;
	size_t elem;

	if (!out || world == 0 || rank >= world)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->n = n;
	s->seed = seed;
	s->rank = rank;
	s->world = world;
	s->wide = n > UINT32_MAX;
	if (drop_last)
		s->len = n / world;
	else
		s->len = n ? (n + world - 1) / world : 0;
	elem = s->wide ? sizeof(uint64_t) : sizeof(uint32_t);
	if (n > SIZE_MAX / elem) {
		free(s);
		return -ENOMEM;
	}
	if (n) {
		void *p = malloc((size_t)n * elem);

		if (!p) {
			free(s);
			return -ENOMEM;
		}
		if (s->wide)
			s->perm.p64 = p;
		else
			s->perm.p32 = p;
	}
	s->epoch = UINT64_MAX;          /* nothing built yet */
	ldr_sampler_set_epoch(s, 0);
	*out = s;
	return 0;
}

void ldr_sampler_destroy(struct ldr_sampler *s)
{
	if (!s)
		return;
	if (s->wide)
		free(s->perm.p64);
	else
		free(s->perm.p32);
	free(s);
}

void ldr_sampler_set_epoch(struct ldr_sampler *s, uint64_t epoch)
{
	uint64_t state = s->seed, key;

	/* the order of an epoch depends on (seed, epoch) only: the one in
	 * PERM is still right (a reader's first position is in epoch 0,
	 * which create already built) */
	if (epoch == s->epoch)
		return;
	s->epoch = epoch;
	key = stg_splitmix64(&state) ^ (epoch * 0xD1B54A32D192ED03ull);

	/* the stream of this epoch starts from a hash of (seed, epoch) */
	state = stg_splitmix64(&key);
	if (s->wide) {
		uint64_t *p = s->perm.p64;

		for (uint64_t i = 0; i < s->n; i++)
			p[i] = i;
		for (uint64_t i = s->n; i > 1; i--) {
			uint64_t j = draw_below(&state, i), t = p[i - 1];

			p[i - 1] = p[j];
			p[j] = t;
		}
	} else {
		uint32_t *p = s->perm.p32;

		for (uint64_t i = 0; i < s->n; i++)
			p[i] = (uint32_t)i;
		for (uint64_t i = s->n; i > 1; i--) {
			uint64_t j = draw_below(&state, i);
			uint32_t t = p[i - 1];

			p[i - 1] = p[j];
			p[j] = t;
		}
	}
}

uint64_t ldr_sampler_len(const struct ldr_sampler *s)
{
	return s->len;
}

uint64_t ldr_sampler_get(const struct ldr_sampler *s, uint64_t i)
{
	uint64_t k = s->rank + i * s->world;

	/* padding wraps around the permutation (only without drop_last) */
	if (k >= s->n)
		k %= s->n;
	return s->wide ? s->perm.p64[k] : s->perm.p32[k];
}

/* ---- per-epoch digests of the ids read ---- */

/* splitmix64's output for state ID: a bijection, so distinct ids mix to
 * distinct values, and id 0 still moves the sum and the xor */
static uint64_t digest_mix(uint64_t id)
{
	return stg_mix64(id);
}

void ldr_digest_add(struct ldr_digest *d, uint64_t id)
{
	uint64_t m = digest_mix(id);

	d->count++;
	d->sum += m;
	d->xor_ ^= m;
}

void ldr_digest_merge(struct ldr_digest *into, const struct ldr_digest *d)
{
	into->count += d->count;
	into->sum += d->sum;
	into->xor_ ^= d->xor_;
}

bool ldr_digest_equal(const struct ldr_digest *a, const struct ldr_digest *b)
{
	return a->count == b->count && a->sum == b->sum && a->xor_ == b->xor_;
}

int ldr_digest_expected(uint64_t n, uint64_t seed, uint64_t epoch,
			unsigned world, bool drop_last, bool shards,
			struct ldr_digest *out)
{
	struct ldr_sampler *s;
	uint64_t total;
	int err;

	if (!out || world == 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (shards) {
		for (uint64_t id = 0; id < n; id++)
			ldr_digest_add(out, id);
		return 0;
	}
	if (!n)
		return 0;
	/* the ranks together read positions 0 .. total-1 of the epoch's
	 * permutation (rank r the ones = r mod world); the positions past
	 * N wrap around as the sampler's padding does */
	total = drop_last ? n / world * world : (n + world - 1) / world * world;
	err = ldr_sampler_create(n, seed, 0, 1, false, &s);
	if (err)
		return err;
	ldr_sampler_set_epoch(s, epoch);
	for (uint64_t i = 0; i < total; i++)
		ldr_digest_add(out, ldr_sampler_get(s, i));
	ldr_sampler_destroy(s);
	return 0;
}
