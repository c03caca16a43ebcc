/*
 * transform_noop.c - the transform that does (almost) nothing: it copies
 * the sample's first bytes into its place in the batch and zeroes the
 * rest. The engine's own cost is measured with it.
 */
#include <stdint.h>
#include <string.h>

#include "loader.h"

#define NOOP_DEFAULT_BYTES 4096

/* The context is the output size itself, carried in the pointer. */
static int noop_ctx_create(void *arg, void **ctx)
{
	*ctx = arg;
	return 0;
}

static int noop_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		      uint64_t epoch, uint64_t id, void *out,
		      struct ldr_step_times *st)
{
	size_t cap = ctx ? (size_t)(uintptr_t)ctx : NOOP_DEFAULT_BYTES;

	(void)seed;
	(void)epoch;
	(void)id;
	(void)st;
	if (len > cap)
		len = cap;
	memcpy(out, data, len);
	memset((char *)out + len, 0, cap - len);
	return 0;
}

const struct ldr_transform ldr_transform_noop = {
	.name = "noop",
	.out_bytes = NOOP_DEFAULT_BYTES,
	.apply = noop_apply,
};

struct ldr_transform ldr_transform_noop_sized(size_t out_bytes)
{
	struct ldr_transform t = ldr_transform_noop;

	t.out_bytes = out_bytes;
	t.arg = (void *)(uintptr_t)out_bytes;
	t.ctx_create = noop_ctx_create;
	return t;
}
