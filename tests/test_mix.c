/*
 * test_mix.c - the one splitmix64 (storage/stg_mix.h): its published
 * outputs, the seeded hash as the stream's first output, and the draws
 * built on it (the sampler's order, the augment RNG) pinned to the values
 * they had before the copies became one: datasets and sample orders must
 * not change.
 */
#include <inttypes.h>
#include <stdint.h>

#include "augment.h"
#include "harness.h"
#include "loader.h"
#include "stg_mix.h"

FR_TEST(mix, splitmix64_gives_the_reference_streams)
{
	/* Vigna's splitmix64.c from seed 1234567, and from seed 0 */
	static const uint64_t from_1234567[] = {
		6457827717110365317ull, 3203168211198807973ull,
		9817491932198370423ull,
	};
	static const uint64_t from_0[] = {
		0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull,
	};
	uint64_t s = 1234567;

	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(stg_splitmix64(&s), from_1234567[i], "output %zu", i);
	s = 0;
	for (size_t i = 0; i < 2; i++)
		cr_assert_eq(stg_splitmix64(&s), from_0[i], "output %zu", i);
	cr_assert_eq(s, 2 * STG_GOLDEN_GAMMA);
}

FR_TEST(mix, seeded_hash_is_the_streams_first_output)
{
	for (uint64_t x = 0; x < 1000; x += 37) {
		uint64_t s = x * 0x100000001b3ull;
		const uint64_t h = stg_mix64(x * 0x100000001b3ull);

		cr_assert_eq(h, stg_splitmix64(&s));
	}
}

FR_TEST(mix, sampler_order_and_augment_draws_are_what_they_were)
{
	/* printed by the sampler and aug_crop objects before the copies of
	 * splitmix64 were made one (seed 42, epoch 3; seed 7, epoch 2, id
	 * 12345) */
	static const uint64_t order[] = { 783, 957, 788, 942, 511, 695, 379,
					  246 };
	static const uint64_t draws[] = {
		0xa928c85c3ad6ee88ull, 0x4c0f221275e700f7ull,
		0xd8423a13a2fb9973ull, 0x6fe024656aa088deull,
	};
	struct ldr_sampler *s;
	struct aug_rng r;

	cr_assert_eq(ldr_sampler_create(1000, 42, 0, 1, false, &s), 0);
	ldr_sampler_set_epoch(s, 3);
	for (size_t i = 0; i < 8; i++)
		cr_assert_eq(ldr_sampler_get(s, i), order[i], "position %zu", i);
	ldr_sampler_destroy(s);
	aug_rng_seed(&r, 7, 2, 12345);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(aug_rng_next(&r), draws[i], "draw %zu", i);
}
