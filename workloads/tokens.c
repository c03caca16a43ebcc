/*
 * tokens.c - the tokens transform: a window's tokens (as stored: u8 to
 * i64) into seq_len + 1 int64 or int32, the batch a GPT training step
 * takes (Megatron's GPTDataset returns int64 "text" of seq_len + 1;
 * inputs and labels are cut from it on the GPU side).
 *
 * DESIGN: no per-worker state: every worker's context is the shared,
 * read-only configuration (in the workload's wl_transform_state, which
 * outlives the run). apply only reads the span and writes its own output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "loader.h"
#include "tokens.h"
#include "workloads.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "token files and batches are little-endian: convert on this host"
#endif

struct tok_cfg {
	uint32_t seq_len;
	uint32_t token_bytes;   /* 4 or 8 */
	int (*convert)(enum wl_tok_dtype dtype, const uint8_t *in,
		       uint8_t *out, size_t n, unsigned tb);
};

static int tok_ctx_create(void *arg, void **ctx)
{
	*ctx = arg;             /* shared, read-only */
	return 0;
}

/* N elements of type T at IN into OUT as type O (either unaligned: an
 * MDS column starts anywhere in its record). */
#define TOK_CONVERT(T, O)                                               \
	do {                                                            \
		for (size_t i = 0; i < n; i++) {                        \
			T v;                                            \
			O w;                                            \
			memcpy(&v, in + i * sizeof(T), sizeof(T));      \
			w = (O)v;                                       \
			memcpy(out + i * sizeof(O), &w, sizeof(O));     \
		}                                                       \
	} while (0)

#define TOK_CONVERT_TO(O)                                               \
	do {                                                            \
		switch (dtype) {                                        \
		case WL_TOK_U8: TOK_CONVERT(uint8_t, O); break;         \
		case WL_TOK_I8: TOK_CONVERT(int8_t, O); break;          \
		case WL_TOK_U16: TOK_CONVERT(uint16_t, O); break;       \
		case WL_TOK_I16: TOK_CONVERT(int16_t, O); break;        \
		case WL_TOK_U32: TOK_CONVERT(uint32_t, O); break;       \
		case WL_TOK_I32: TOK_CONVERT(int32_t, O); break;        \
		case WL_TOK_U64: TOK_CONVERT(uint64_t, O); break;       \
		case WL_TOK_I64: TOK_CONVERT(int64_t, O); break;        \
		default: return -LDR_EUNSUPPORTED;                      \
		}                                                       \
	} while (0)

/* N tokens of DTYPE at IN into OUT as int64 (TB 8) or int32. */
static int tok_convert_base(enum wl_tok_dtype dtype, const uint8_t *in,
			    uint8_t *out, size_t n, unsigned tb)
{
	if (tb == 8)
		TOK_CONVERT_TO(int64_t);
	else
		TOK_CONVERT_TO(int32_t);
	return 0;
}

#if defined(__x86_64__)
/* The same with AVX2's widening moves for the common cases (GPT-2's
 * uint16 and llm-foundry's int32 tokens), 4 or 8 tokens a step; the
 * tail and the other types go the baseline way. Chosen once per
 * transform where the CPU has AVX2. */
__attribute__((target("avx2")))
static int tok_convert_avx2(enum wl_tok_dtype dtype, const uint8_t *in,
			    uint8_t *out, size_t n, unsigned tb)
{
	size_t i = 0;

	if (dtype == WL_TOK_U16 && tb == 8) {
		for (; i + 4 <= n; i += 4)
			_mm256_storeu_si256((__m256i_u *)(out + 8 * i),
				_mm256_cvtepu16_epi64(_mm_loadl_epi64(
					(const __m128i_u *)(in + 2 * i))));
	} else if (dtype == WL_TOK_U16 && tb == 4) {
		for (; i + 8 <= n; i += 8)
			_mm256_storeu_si256((__m256i_u *)(out + 4 * i),
				_mm256_cvtepu16_epi32(_mm_loadu_si128(
					(const __m128i_u *)(in + 2 * i))));
	} else if (dtype == WL_TOK_I32 && tb == 8) {
		for (; i + 4 <= n; i += 4)
			_mm256_storeu_si256((__m256i_u *)(out + 8 * i),
				_mm256_cvtepi32_epi64(_mm_loadu_si128(
					(const __m128i_u *)(in + 4 * i))));
	}
	return tok_convert_base(dtype, in + i * wl_tok_dtype_size(dtype),
				out + i * tb, n - i, tb);
}
#endif

static int tok_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		     uint64_t epoch, uint64_t id, void *outp,
		     struct ldr_step_times *st)
{
	const struct tok_cfg *c = ctx;
	const struct wl_token_span *sp = data;
	const size_t want = (size_t)c->seq_len + 1;
	uint8_t *out = outp;
	const uint64_t t0 = stg_now_ns();
	unsigned esize;
	size_t n;
	int err;

	(void)seed;
	(void)epoch;
	(void)id;
	if (len != sizeof(*sp) || sp->magic != WL_TOKEN_SPAN_MAGIC)
		return -LDR_ENOTFORMAT;
	esize = wl_tok_dtype_size(sp->dtype);
	if (!esize || !wl_tok_dtype_is_int(sp->dtype))
		return -LDR_EUNSUPPORTED;
	n = sp->len / esize;
	if (n > want)
		n = want;       /* a longer MDS sample: its first tokens */
	err = c->convert(sp->dtype, sp->data, out, n, c->token_bytes);
	if (err)
		return err;
	/* a shorter one is padded with zeros */
	memset(out + n * c->token_bytes, 0, (want - n) * c->token_bytes);
	if (st) {
		st->decode_s = 0;
		st->resize_s = 0;
		st->other_s = (double)(stg_now_ns() - t0) * 1e-9;
	}
	return 0;
}

int wl_tokens_transform(struct wl_transform_state *st,
			struct ldr_transform *out, char *desc, size_t desc_len)
{
	struct tok_cfg *c;
	const uint32_t tb = st->xp.token_bytes ? st->xp.token_bytes : 8;

	if (!st->xp.seq_len || (tb != 4 && tb != 8))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->seq_len = st->xp.seq_len;
	c->token_bytes = tb;
	c->convert = tok_convert_base;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx2"))
		c->convert = tok_convert_avx2;
#endif
	free(st->priv);
	st->priv = c;
	*out = (struct ldr_transform){
		.name = "tokens",
		.out_bytes = ((size_t)c->seq_len + 1) * tb,
		.arg = c,
		.ctx_create = tok_ctx_create,
		.apply = tok_apply,
	};
	if (desc_len)
		snprintf(desc, desc_len, "feedrate native: windows of %u + 1 "
			 "tokens (Megatron GPTDataset's cut) -> int%u",
			 c->seq_len, tb * 8);
	return 0;
}
