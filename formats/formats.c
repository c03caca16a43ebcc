/*
 * formats.c - the format table: names, error keys, and the dispatch of
 * scanner, header walk and unwrap to each format's file (fmt_tar.c,
 * fmt_tfrecord.c, fmt_mds.c, fmt_tokens.c; fmt_npy.c and fmt_zip.c
 * for .npy / .npz, whose file is one sample). A format's row holds what it
 * can do: its public part (struct wl_format_row) states the capabilities
 * every caller asks instead of the name. An empty slot answers -EINVAL
 * (FOLDER, AUTO) or -ENOTSUP (the walks of MDS and tokens: their counts
 * come from index.json, the token files' sizes and headers). Adding a
 * format is adding a row here and its file.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "fmt_internal.h"

struct fmt_ops {
	struct wl_format_row row;
	void (*scan_init)(struct wl_scanner *s);
	int (*scan_next)(struct wl_scanner *s, const uint8_t *win,
			 uint64_t win_base, size_t win_len, bool eof,
			 struct wl_record *rec);
	int (*walk_count)(wl_pread_fn pread, void *arg, uint64_t size,
			  uint64_t max_record, uint64_t *count,
			  uint64_t *err_off);
	int walk_absent;        /* what walk_count == NULL answers */
	/* WL_CAP_SIDE_INDEX: a shard's count from its side index's text */
	int (*side_count)(const char *text, size_t len, uint64_t shard_size,
			  uint64_t *count);
	/* KEY: the payload's name, NULL for the format's default */
	int (*unwrap)(const struct wl_mds_shard *mds, const char *key,
		      const uint8_t *rec, size_t len,
		      struct wl_sample_view *out);
};

/* ImageFolder: the record is the image file itself; its label is the
 * folder's, which the listing knows. */
static int folder_unwrap(const struct wl_mds_shard *mds, const char *key,
			 const uint8_t *rec, size_t len,
			 struct wl_sample_view *out)
{
	(void)mds;
	(void)key;
	memset(out, 0, sizeof(*out));
	out->image = rec;
	out->image_len = len;
	return 0;
}

static int tar_unwrap(const struct wl_mds_shard *mds, const char *key,
		      const uint8_t *rec, size_t len,
		      struct wl_sample_view *out)
{
	(void)mds;
	return wl_tar_unwrap_key(rec, len, key, out);
}

static int tfr_unwrap(const struct wl_mds_shard *mds, const char *key,
		      const uint8_t *rec, size_t len,
		      struct wl_sample_view *out)
{
	(void)mds;
	return wl_tfr_unwrap_key(rec, len, key, out);
}

static int mds_unwrap(const struct wl_mds_shard *mds, const char *key,
		      const uint8_t *rec, size_t len,
		      struct wl_sample_view *out)
{
	if (!mds)
		return -EINVAL;
	return wl_mds_sample_parse_key(mds, key, rec, len, out);
}

static int tok_unwrap(const struct wl_mds_shard *mds, const char *key,
		      const uint8_t *rec, size_t len,
		      struct wl_sample_view *out)
{
	(void)mds;
	(void)key;
	return wl_tok_unwrap(rec, len, out);
}

static const char *const npy_exts[] = { ".npy", ".npz", NULL };

#define SHARDS (WL_CAP_DETECT | WL_CAP_COUNT | WL_CAP_SCAN | WL_CAP_UNWRAP | \
		WL_CAP_SPLIT)

static const struct fmt_ops fmt_table[WL_FORMAT_COUNT] = {
	[WL_FORMAT_AUTO] = { .row = { .name = "auto" },
			     .walk_absent = -EINVAL },
	[WL_FORMAT_FOLDER] = {
		.row = { .name = "folder",
			 .caps = WL_CAP_DETECT | WL_CAP_UNWRAP | WL_CAP_FILES,
			 .layout = "DIR/train/<class>/<class>_<n>.JPEG" },
		.walk_absent = -EINVAL, .unwrap = folder_unwrap },
	[WL_FORMAT_WDS] = {
		.row = { .name = "wds",
			 .caps = SHARDS | WL_CAP_WALK | WL_CAP_WRITE |
				 WL_CAP_COMPRESS | WL_CAP_COUNT_CACHE |
				 WL_CAP_ESTIMATE,
			 .layout = "WebDataset: DIR/shard-000000.tar, ...; per "
				 "sample\n            the members KEY.jpg (the "
				 "image) and KEY.cls (the\n            label in "
				 "decimal), KEY = <class>/<file name\n"
				 "            without its extension>" },
		.scan_init = wl_tar_scan_init, .scan_next = wl_tar_scan_next,
		.walk_count = wl_tar_walk_count, .unwrap = tar_unwrap },
	[WL_FORMAT_MDS] = {
		.row = { .name = "mds",
			 .caps = SHARDS | WL_CAP_INDEX | WL_CAP_WRITE |
				 WL_CAP_COMPRESS,
			 .index_name = "index.json",
			 /* MDS's sample offsets are uint32 */
			 .max_shard_bytes = 1ull << 32,
			 .layout = "MosaicML streaming MDS v2: DIR/index.json "
				 "and\n            DIR/shard.00000.mds, ...; "
				 "columns image (jpeg) and\n            label "
				 "(int), as streaming's MDSWriter writes them" },
		.scan_init = wl_mds_scan_init, .scan_next = wl_mds_scan_next,
		.walk_absent = -ENOTSUP, .unwrap = mds_unwrap },
	[WL_FORMAT_TFRECORD] = {
		.row = { .name = "tfrecord",
			 .caps = SHARDS | WL_CAP_WALK | WL_CAP_WRITE |
				 WL_CAP_BY_FRAMING | WL_CAP_SIDE_INDEX |
				 WL_CAP_COUNT_CACHE | WL_CAP_ESTIMATE,
			 .side_index = ".idx",
			 .layout = "DIR/train-00000-of-000NN.tfrecord: "
				 "tf.train.Example\n            records with "
				 "image/encoded, image/format,\n            "
				 "image/class/label, image/height, image/width" },
		.scan_init = wl_tfr_scan_init, .scan_next = wl_tfr_scan_next,
		.walk_count = wl_tfr_walk_count,
		.side_count = wl_tfr_idx_count, .unwrap = tfr_unwrap },
	/* token files are counted from their sizes, .idx or headers
	 * (shardset.c), not walked */
	[WL_FORMAT_TOKENS] = {
		.row = { .name = "tokens",
			 .caps = SHARDS | WL_CAP_COMPRESS | WL_CAP_TOKENS },
		.scan_init = wl_tok_scan_init, .scan_next = wl_tok_scan_next,
		.walk_absent = -ENOTSUP, .unwrap = tok_unwrap },
	/* a file is one array: listed like a folder's images, known by its
	 * name; its unwrap (wl_vol_open) needs a worker's inflate buffer,
	 * so the volume transform calls it, not wl_unwrap; gen's volume
	 * generators write it (fmt_npy.h's header and zip records) */
	[WL_FORMAT_NPY] = {
		.row = { .name = "npy",
			 .caps = WL_CAP_DETECT | WL_CAP_FILES |
				 WL_CAP_WRITE_FILES,
			 .exts = npy_exts },
		.walk_absent = -EINVAL },
};


static const struct fmt_ops *fmt_ops_of(enum wl_format f)
{
	if ((unsigned)f >= WL_FORMAT_COUNT)
		return NULL;
	return &fmt_table[f];
}

const struct wl_format_row *wl_format_row(enum wl_format f)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	return ops ? &ops->row : NULL;
}

bool wl_format_can(enum wl_format f, unsigned caps)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	return ops && (ops->row.caps & caps) == caps;
}

/* Does NAME end in SUFFIX, any case? */
static bool ends_with(const char *name, const char *suffix)
{
	const size_t a = strlen(name), b = strlen(suffix);

	return a >= b && !strcasecmp(name + a - b, suffix);
}

enum wl_format wl_format_claims(const char *name)
{
	for (int f = 0; f < WL_FORMAT_COUNT && name; f++)
		for (const char *const *e = fmt_table[f].row.exts; e && *e;
		     e++)
			if (ends_with(name, *e))
				return (enum wl_format)f;
	return WL_FORMAT_AUTO;
}

const char *wl_format_name(enum wl_format f)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	return ops ? ops->row.name : "?";
}

int wl_format_parse(const char *s, enum wl_format *out)
{
	for (int f = 0; f < WL_FORMAT_COUNT && s; f++) {
		if (!strcmp(s, fmt_table[f].row.name)) {
			*out = (enum wl_format)f;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const fmt_err_names[WL_FMT_E_END - WL_FMT_E_BASE] = {
	[WL_EBADHDR - WL_FMT_E_BASE] = "bad_header",
	[WL_ETRUNCREC - WL_FMT_E_BASE] = "truncated_record",
	[WL_EZSTD - WL_FMT_E_BASE] = "bad_zstd",
	[WL_EMISSING - WL_FMT_E_BASE] = "missing_shard",
	[WL_ECRC - WL_FMT_E_BASE] = "crc_mismatch",
	[WL_ENOIMAGE - WL_FMT_E_BASE] = "no_image",
	[WL_EBADINDEX - WL_FMT_E_BASE] = "bad_index",
	[WL_EBADREC - WL_FMT_E_BASE] = "bad_record",
};

const char *wl_fmt_err_name(int err)
{
	/* negate in 64 bits: -INT_MIN does not fit an int */
	int64_t e = err < 0 ? -(int64_t)err : err;

	if (e < WL_FMT_E_BASE || e >= WL_FMT_E_END)
		return NULL;
	return fmt_err_names[e - WL_FMT_E_BASE];
}

void wl_scan_init(struct wl_scanner *s, enum wl_format f,
		  const struct wl_mds_shard *mds, uint64_t max_record)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	memset(s, 0, sizeof(*s));
	s->fmt = f;
	s->mds = mds;
	s->max_record = max_record;
	if (ops && ops->scan_init)
		ops->scan_init(s);
}

int wl_scan_next(struct wl_scanner *s, const uint8_t *win, uint64_t win_base,
		 size_t win_len, bool eof, struct wl_record *rec)
{
	const struct fmt_ops *ops = fmt_ops_of(s->fmt);

	if (!ops || !ops->scan_next)
		return -EINVAL;
	/* a window that lost bytes still needed, or wraps the offsets, is the
	 * caller's bug: no format could cut records from it */
	if (win_base > s->keep_from || win_base + win_len < win_base ||
	    (win_len && !win))
		return -EINVAL;
	if (s->fmt == WL_FORMAT_MDS && !s->mds)
		return -EINVAL;
	return ops->scan_next(s, win, win_base, win_len, eof, rec);
}

int wl_walk_count(enum wl_format f, wl_pread_fn pread, void *arg,
		  uint64_t size, uint64_t max_record, uint64_t *count,
		  uint64_t *err_off)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	*count = 0;
	if (!ops)
		return -EINVAL;
	if (!ops->walk_count)
		return ops->walk_absent;
	return ops->walk_count(pread, arg, size, max_record, count, err_off);
}

int wl_side_index_count(enum wl_format f, const char *text, size_t len,
			uint64_t shard_size, uint64_t *count)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	*count = 0;
	if (!ops || !ops->side_count)
		return -ENOTSUP;
	return ops->side_count(text, len, shard_size, count);
}

const char *wl_count_source_name(enum wl_count_source src)
{
	static const char *const names[WL_COUNT_SOURCES] = {
		[WL_COUNT_INDEX] = "index",
		[WL_COUNT_CACHE] = "cache",
		[WL_COUNT_SCANNED] = "scanned",
		[WL_COUNT_ESTIMATED] = "estimated",
	};

	return (unsigned)src < WL_COUNT_SOURCES ? names[src] : "?";
}

int wl_unwrap(enum wl_format f, const struct wl_mds_shard *mds,
	      const uint8_t *rec, size_t len, struct wl_sample_view *out)
{
	return wl_unwrap_key(f, mds, NULL, rec, len, out);
}

int wl_unwrap_key(enum wl_format f, const struct wl_mds_shard *mds,
		  const char *key, const uint8_t *rec, size_t len,
		  struct wl_sample_view *out)
{
	const struct fmt_ops *ops = fmt_ops_of(f);

	if (!ops || !ops->unwrap)
		return -EINVAL;
	return ops->unwrap(mds, key && *key ? key : NULL, rec, len, out);
}
