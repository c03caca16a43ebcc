/*
 * fuzz_mds.c - libFuzzer target for MDS: the index.json parser, the shard
 * scanner and the sample parser.
 *
 * Input: index.json's text, a NUL byte, then a shard's bytes (no NUL: the
 * whole input is the index). The shard is scanned against the index's
 * first shard when the index parses, and always against a stand-in whose
 * sample count and size are the shard's own (so the fuzzer gets past the
 * count check without fixing the index); the stand-in's columns and the
 * append size and record bound come from the shard's last byte.
 *
 * Checks: a parsed index holds terminated names, 1..32 columns, sizes
 * that are -1 or positive and image/label columns in range; a failed
 * parse leaves it empty with a reason. Scans: the same in one shot and in
 * appends, records adjacent after the first, a clean end has every
 * sample; each sample parses to an image inside it or a format error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"
#include "fuzz_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_scan one, part;

static void check_shard(const struct wl_mds_shard *sh)
{
	if (!memchr(sh->raw_name, 0, sizeof(sh->raw_name)) ||
	    !memchr(sh->zip_name, 0, sizeof(sh->zip_name)) ||
	    !memchr(sh->compression, 0, sizeof(sh->compression)) ||
	    !sh->raw_name[0] || !sh->ncols || sh->ncols > WL_MDS_MAX_COLUMNS ||
	    sh->image_col < -1 || sh->image_col >= (int)sh->ncols ||
	    sh->label_col < -1 || sh->label_col >= (int)sh->ncols ||
	    !sh->compression[0] != !sh->zip_name[0] ||
	    sh->samples > UINT32_MAX)
		abort();
	for (unsigned c = 0; c < sh->ncols; c++)
		if (!memchr(sh->name[c], 0, sizeof(sh->name[c])) ||
		    sh->size[c] == 0 || sh->size[c] < -1 ||
		    sh->enc[c] > WL_MDS_OTHER)
			abort();
}

static void scan(const struct wl_mds_shard *sh, const uint8_t *p, size_t n,
		 size_t chunk, uint64_t max_record)
{
	fz_scan(WL_FORMAT_MDS, sh, p, n, n, max_record, &one);
	fz_scan(WL_FORMAT_MDS, sh, p, n, chunk, max_record, &part);
	fz_scan_same(&one, &part);
	if (!one.err && one.nrec != sh->samples)
		abort();
	for (size_t i = 0; i < one.nrec; i++) {
		const struct wl_record *r = &one.recs[i];
		struct wl_sample_view v;
		uint8_t *rec;
		int u;

		if (i && r->off != one.recs[i - 1].off + one.recs[i - 1].len)
			abort();
		rec = fz_copy(p + r->off, r->len);
		u = wl_unwrap(WL_FORMAT_MDS, sh, rec, r->len, &v);
		if (u && u != -WL_EBADREC && u != -WL_ENOIMAGE)
			abort();
		fz_view_check(u, rec, r->len, &v);
		free(rec);
	}
}

/* the stand-in shard: columns by K */
static void stand_in(struct wl_mds_shard *sh, unsigned k, uint64_t samples,
		     uint64_t bytes)
{
	static const struct { unsigned n; enum wl_mds_enc enc[3];
			      int64_t size[3]; } sets[] = {
		{ 2, { WL_MDS_JPEG, WL_MDS_INT }, { -1, 8 } },
		{ 2, { WL_MDS_STR, WL_MDS_BYTES }, { -1, -1 } },
		{ 2, { WL_MDS_BYTES, WL_MDS_NDARRAY }, { -1, -1 } },
		{ 3, { WL_MDS_INT, WL_MDS_PNG, WL_MDS_OTHER }, { 8, 4, 2 } },
	};
	const unsigned s = k % (sizeof(sets) / sizeof(sets[0]));

	memset(sh, 0, sizeof(*sh));
	snprintf(sh->raw_name, sizeof(sh->raw_name), "stand-in.mds");
	sh->samples = samples;
	sh->raw_bytes = bytes;
	sh->ncols = sets[s].n;
	for (unsigned c = 0; c < sets[s].n; c++) {
		sh->enc[c] = sets[s].enc[c];
		sh->size[c] = sets[s].size[c];
	}
	sh->image_col = s == 3 ? 1 : s == 1 ? 1 : 0;
	sh->label_col = s == 3 ? 0 : s == 1 ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t bounds[] = { 1u << 20, 1, 12, 64, 1000 };
	const uint8_t *sep = memchr(data, 0, size);
	const size_t tlen = sep ? (size_t)(sep - data) : size;
	const uint8_t *shard = sep ? sep + 1 : data + size;
	const size_t slen = size - tlen - (sep ? 1 : 0);
	const uint8_t last = slen ? shard[slen - 1] : 0;
	const uint64_t max_record = bounds[(last >> 4) % 5];
	const size_t chunk = (size_t)(last & 15) * 3 + 1;
	struct wl_mds_index idx;
	struct wl_mds_shard sh;
	char *text = (char *)fz_copy(data, tlen);
	char why[128];
	int err;

	memset(why, 'x', sizeof(why));
	err = wl_mds_index_parse(text, tlen, &idx, why, sizeof(why));
	free(text);
	if (err) {
		if ((err != -WL_EBADINDEX && err != -ENOMEM) || idx.shards ||
		    idx.nshards || (err == -WL_EBADINDEX &&
				    (!memchr(why, 0, sizeof(why)) || !why[0])))
			abort();
	} else {
		if (!idx.nshards != !idx.shards)
			abort();
		for (unsigned i = 0; i < idx.nshards; i++)
			check_shard(&idx.shards[i]);
		if (idx.nshards)
			scan(&idx.shards[0], shard, slen, chunk, max_record);
		wl_mds_index_free(&idx);
	}
	stand_in(&sh, last, slen >= 4 ? (uint64_t)shard[0] |
		 (uint64_t)shard[1] << 8 | (uint64_t)shard[2] << 16 |
		 (uint64_t)shard[3] << 24 : 0, slen);
	scan(&sh, shard, slen, chunk, max_record);
	return 0;
}
