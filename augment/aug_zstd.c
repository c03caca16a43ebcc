/*
 * aug_zstd.c - streaming zstd decompression into a caller's bounded
 * buffer (libzstd's ZSTD_decompressStream): how a whole-shard-compressed
 * .tar.zst or MDS .mds.zstd shard is read without holding it whole. One
 * context per thread, reset per shard; the context allocates its frame
 * window on the first stream that needs one and keeps it.
 */
#include <errno.h>
#include <stdlib.h>

#define ZSTD_STATIC_LINKING_ONLY      /* ZSTD_d_stableOutBuffer */
#include <zstd.h>

#include "augment.h"

struct aug_zstd {
	ZSTD_DCtx *dctx;
	bool mid_frame;         /* input ended inside a frame */
};

int aug_zstd_create(struct aug_zstd **out)
{
	struct aug_zstd *z = calloc(1, sizeof(*z));

	*out = NULL;
	if (!z)
		return -ENOMEM;
	z->dctx = ZSTD_createDCtx();
	if (!z->dctx) {
		free(z);
		return -ENOMEM;
	}
	/* a window larger than 128 MiB would be a frame written with
	 * --long: refused rather than allocated (libzstd's default limit) */
	*out = z;
	return 0;
}

void aug_zstd_destroy(struct aug_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeDCtx(z->dctx);
	free(z);
}

void aug_zstd_reset(struct aug_zstd *z)
{
	ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_and_parameters);
	z->mid_frame = false;
}

int aug_zstd_begin(struct aug_zstd *z, const void *first, size_t len,
		   uint64_t total, uint64_t out_cap)
{
	unsigned long long size = ZSTD_getFrameContentSize(first, len);

	aug_zstd_reset(z);
	/* a frame that is not the whole stream (concatenated frames) could
	 * outgrow the buffer after the first: windowed then */
	if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ||
	    size != total || size > out_cap)
		return 0;
	/* the output buffer stays put for the whole stream: zstd writes
	 * into it directly instead of through a window of its own (one
	 * copy of every byte fewer) */
	ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_stableOutBuffer, 1);
	return 1;
}

int aug_zstd_run(struct aug_zstd *z, const void *in, size_t in_len,
		 size_t *in_pos, void *out, size_t out_cap, size_t *out_pos)
{
	ZSTD_inBuffer ib = { in, in_len, *in_pos };
	ZSTD_outBuffer ob = { out, out_cap, *out_pos };
	size_t r = ZSTD_decompressStream(z->dctx, &ob, &ib);

	*in_pos = ib.pos;
	*out_pos = ob.pos;
	if (ZSTD_isError(r))
		return -AUG_EZSTD;
	z->mid_frame = r != 0;
	return 0;
}

bool aug_zstd_mid_frame(const struct aug_zstd *z)
{
	return z->mid_frame;
}
