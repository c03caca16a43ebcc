/*
 * test_sampler.c - the seeded, sharded per-epoch shuffle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "loader.h"

static void assert_permutation(const struct ldr_sampler *s, uint64_t n)
{
	unsigned char *seen = calloc(n ? n : 1, 1);

	cr_assert_not_null(seen);
	cr_assert_eq(ldr_sampler_len(s), n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id = ldr_sampler_get(s, i);

		cr_assert_lt(id, n, "id %lu out of range", (unsigned long)id);
		cr_assert_eq(seen[id], 0, "id %lu twice", (unsigned long)id);
		seen[id] = 1;
	}
	free(seen);
}

FR_TEST(sampler, every_epoch_is_a_permutation_of_all_ids)
{
	struct ldr_sampler *s;

	cr_assert_eq(ldr_sampler_create(1000, 42, 0, 1, false, &s), 0);
	for (uint64_t e = 0; e < 5; e++) {
		ldr_sampler_set_epoch(s, e);
		assert_permutation(s, 1000);
	}
	ldr_sampler_destroy(s);
}

FR_TEST(sampler, order_depends_only_on_seed_and_epoch)
{
	struct ldr_sampler *a, *b, *c;
	uint64_t n = 500, same_epoch_diff = 0, other_seed_diff = 0;

	cr_assert_eq(ldr_sampler_create(n, 7, 0, 1, false, &a), 0);
	cr_assert_eq(ldr_sampler_create(n, 7, 0, 1, false, &b), 0);
	cr_assert_eq(ldr_sampler_create(n, 8, 0, 1, false, &c), 0);
	/* b visits other epochs first: no state carries over */
	ldr_sampler_set_epoch(b, 9);
	ldr_sampler_set_epoch(b, 3);
	ldr_sampler_set_epoch(a, 3);
	ldr_sampler_set_epoch(c, 3);
	for (uint64_t i = 0; i < n; i++) {
		cr_assert_eq(ldr_sampler_get(a, i), ldr_sampler_get(b, i));
		other_seed_diff += ldr_sampler_get(a, i) != ldr_sampler_get(c, i);
	}
	ldr_sampler_set_epoch(b, 4);
	for (uint64_t i = 0; i < n; i++)
		same_epoch_diff += ldr_sampler_get(a, i) != ldr_sampler_get(b, i);
	cr_assert_gt(same_epoch_diff, n / 2, "epochs 3 and 4 barely differ");
	cr_assert_gt(other_seed_diff, n / 2, "seeds 7 and 8 barely differ");
	ldr_sampler_destroy(a);
	ldr_sampler_destroy(b);
	ldr_sampler_destroy(c);
}

FR_TEST(sampler, shuffle_is_not_the_identity)
{
	struct ldr_sampler *s;
	uint64_t fixed = 0;

	cr_assert_eq(ldr_sampler_create(1000, 1, 0, 1, false, &s), 0);
	for (uint64_t i = 0; i < 1000; i++)
		fixed += ldr_sampler_get(s, i) == i;
	/* a uniform shuffle keeps about one element in place */
	cr_assert_lt(fixed, 10);
	ldr_sampler_destroy(s);
}

/* Every one of the 24 orders of 4 ids comes up about equally often. */
FR_TEST(sampler, all_orders_of_a_small_set_are_equally_likely)
{
	struct ldr_sampler *s;
	unsigned count[256] = { 0 };
	const unsigned epochs = 24000;
	unsigned distinct = 0;

	cr_assert_eq(ldr_sampler_create(4, 2024, 0, 1, false, &s), 0);
	for (unsigned e = 0; e < epochs; e++) {
		unsigned key = 0;

		ldr_sampler_set_epoch(s, e);
		for (unsigned i = 0; i < 4; i++)
			key = key * 4 + (unsigned)ldr_sampler_get(s, i);
		count[key]++;
	}
	for (unsigned k = 0; k < 256; k++) {
		if (!count[k])
			continue;
		distinct++;
		/* expected 1000 each; 6 standard deviations is ~190 */
		cr_assert(count[k] > 800 && count[k] < 1200,
			  "order %u came up %u times of %u", k, count[k], epochs);
	}
	cr_assert_eq(distinct, 24);
	ldr_sampler_destroy(s);
}

/* Without drop_last: every rank gets ceil(n/world), the union is all ids,
 * and the padding repeats ids from the start of the permutation. */
FR_TEST(sampler, ranks_cover_the_dataset_with_wraparound_padding)
{
	const uint64_t n = 103;
	const unsigned world = 4;
	unsigned hits[103] = { 0 };
	uint64_t total = 0;

	for (unsigned r = 0; r < world; r++) {
		struct ldr_sampler *s;

		cr_assert_eq(ldr_sampler_create(n, 5, r, world, false, &s), 0);
		ldr_sampler_set_epoch(s, 2);
		cr_assert_eq(ldr_sampler_len(s), 26);
		for (uint64_t i = 0; i < ldr_sampler_len(s); i++)
			hits[ldr_sampler_get(s, i)]++;
		total += ldr_sampler_len(s);
		ldr_sampler_destroy(s);
	}
	cr_assert_eq(total, 104);
	for (uint64_t id = 0; id < n; id++)
		cr_assert(hits[id] == 1 || hits[id] == 2);
}

FR_TEST(sampler, drop_last_gives_disjoint_equal_shards)
{
	const uint64_t n = 103;
	const unsigned world = 4;
	unsigned hits[103] = { 0 };

	for (unsigned r = 0; r < world; r++) {
		struct ldr_sampler *s;

		cr_assert_eq(ldr_sampler_create(n, 5, r, world, true, &s), 0);
		ldr_sampler_set_epoch(s, 2);
		cr_assert_eq(ldr_sampler_len(s), 25);
		for (uint64_t i = 0; i < ldr_sampler_len(s); i++)
			hits[ldr_sampler_get(s, i)]++;
		ldr_sampler_destroy(s);
	}
	for (uint64_t id = 0; id < n; id++)
		cr_assert_leq(hits[id], 1, "id %lu in two shards",
			      (unsigned long)id);
}

FR_TEST(sampler, shard_matches_strided_positions_of_the_full_order)
{
	struct ldr_sampler *full, *r2;

	cr_assert_eq(ldr_sampler_create(50, 11, 0, 1, false, &full), 0);
	cr_assert_eq(ldr_sampler_create(50, 11, 2, 3, false, &r2), 0);
	ldr_sampler_set_epoch(full, 1);
	ldr_sampler_set_epoch(r2, 1);
	for (uint64_t i = 0; i < ldr_sampler_len(r2); i++)
		cr_assert_eq(ldr_sampler_get(r2, i),
			     ldr_sampler_get(full, (2 + 3 * i) % 50));
	ldr_sampler_destroy(full);
	ldr_sampler_destroy(r2);
}

FR_TEST(sampler, bad_rank_or_world_is_refused)
{
	struct ldr_sampler *s = NULL;

	cr_assert_eq(ldr_sampler_create(10, 0, 0, 0, false, &s), -EINVAL);
	cr_assert_eq(ldr_sampler_create(10, 0, 3, 3, false, &s), -EINVAL);
	cr_assert_null(s);
}

FR_TEST(sampler, more_ranks_than_samples_still_pads_or_drops)
{
	struct ldr_sampler *s;

	cr_assert_eq(ldr_sampler_create(3, 0, 4, 5, false, &s), 0);
	cr_assert_eq(ldr_sampler_len(s), 1);
	cr_assert_lt(ldr_sampler_get(s, 0), 3);
	ldr_sampler_destroy(s);
	cr_assert_eq(ldr_sampler_create(3, 0, 4, 5, true, &s), 0);
	cr_assert_eq(ldr_sampler_len(s), 0);
	ldr_sampler_destroy(s);
	cr_assert_eq(ldr_sampler_create(0, 0, 0, 1, false, &s), 0);
	cr_assert_eq(ldr_sampler_len(s), 0);
	ldr_sampler_set_epoch(s, 1);
	ldr_sampler_destroy(s);
}
