/*
 * stg_mix.h - the project's one splitmix64 (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014; the
 * constants of Vigna's public-domain splitmix64.c), for every seeded
 * draw: the sampler's shuffle, the shard stage's shuffle buffer, the
 * augment RNG's seeding, the generators' draws and the seqio pattern.
 * Datasets and sample orders depend on its outputs bit for bit: changing
 * it changes every generated dataset and every shuffle
 * (tests/test_mix.c pins its values). Header-only, pure, any thread.
 */
#ifndef FEEDRATE_STG_MIX_H
#define FEEDRATE_STG_MIX_H

#include <stdint.h>

#define STG_GOLDEN_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's output finaliser of Z (a bijection on 64 bits). */
static inline uint64_t stg_mix64_final(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The next output of the splitmix64 stream whose state is *STATE (which
 * it advances by the golden gamma). */
static inline uint64_t stg_splitmix64(uint64_t *state)
{
	return stg_mix64_final(*state += STG_GOLDEN_GAMMA);
}

/* The seeded hash: the first output of the stream whose state is X, a
 * pure function of X (stg_mix64(x) == stg_splitmix64(&copy_of_x)). */
static inline uint64_t stg_mix64(uint64_t x)
{
	return stg_mix64_final(x + STG_GOLDEN_GAMMA);
}

#endif /* FEEDRATE_STG_MIX_H */
