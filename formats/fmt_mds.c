/*
 * fmt_mds.c - MosaicML streaming MDS shards, format version 2, as
 * mosaicml/streaming writes them (streaming/base/format/mds/writer.py,
 * encodings.py; base/writer.py):
 *
 *   index.json  {"version": 2, "shards": [{"column_encodings": [...],
 *               "column_names": [...], "column_sizes": [int|null, ...],
 *               "compression": null|"zstd:7", "format": "mds",
 *               "hashes": [...], "raw_data": {"basename", "bytes",
 *               "hashes"}, "samples": N, "size_limit": ..., "version": 2,
 *               "zip_data": null|{"basename", "bytes", "hashes"}}, ...]}
 *   shard       uint32 n | uint32 offsets[n + 1] (absolute in the shard) |
 *               the shard's config as JSON text | the samples
 *   sample      uint32 size of each variable-size column (null
 *               column_sizes), then each column's bytes, in column order
 *               (the writer sorts the column names)
 *
 * All integers little-endian. A compressed shard is the whole raw shard
 * in one compressed file (zip_data.basename, e.g. shard.00000.mds.zstd);
 * the reader engine decompresses it, this file sees raw bytes only.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt_internal.h"
#include "tokens.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* ---- index.json ---- */

/*
 * Encodings by name, with the fixed size each has in bytes (0: variable).
 * "int64" and "int" are the same 8 little-endian bytes; "str_int" is the
 * decimal digits as UTF-8, like a str label. An "ndarray:DTYPE[:SHAPE]"
 * column has no dtype byte in its data, so only a bare "ndarray" can be
 * read as a label; the others are OTHER, sized by column_sizes.
 */
static const struct {
	const char *name;
	enum wl_mds_enc enc;
	unsigned size;
} mds_encs[] = {
	{ "bytes", WL_MDS_BYTES, 0 }, { "jpeg", WL_MDS_JPEG, 0 },
	{ "png", WL_MDS_PNG, 0 }, { "int", WL_MDS_INT, 8 },
	{ "int64", WL_MDS_INT, 8 }, { "str", WL_MDS_STR, 0 },
	{ "str_int", WL_MDS_STR, 0 }, { "ndarray", WL_MDS_NDARRAY, 0 },
	{ "uint8", WL_MDS_OTHER, 1 }, { "int8", WL_MDS_OTHER, 1 },
	{ "uint16", WL_MDS_OTHER, 2 }, { "int16", WL_MDS_OTHER, 2 },
	{ "float16", WL_MDS_OTHER, 2 }, { "uint32", WL_MDS_OTHER, 4 },
	{ "int32", WL_MDS_OTHER, 4 }, { "float32", WL_MDS_OTHER, 4 },
	{ "uint64", WL_MDS_OTHER, 8 }, { "float64", WL_MDS_OTHER, 8 },
};

static enum wl_mds_enc mds_enc_of(const char *s, unsigned *fixed)
{
	for (size_t i = 0; i < sizeof(mds_encs) / sizeof(mds_encs[0]); i++) {
		if (!strcmp(s, mds_encs[i].name)) {
			*fixed = mds_encs[i].size;
			return mds_encs[i].enc;
		}
	}
	*fixed = 0;
	return WL_MDS_OTHER;    /* pil, json, pkl, list[...], ndarray:... */
}

/* "ndarray:DTYPE[:SHAPE]": DTYPE's code (encodings/tensor.py
 * _value_dtype2int) and whether SHAPE is there; 0 for anything else. */
static uint8_t mds_nd_code(const char *enc, bool *shape)
{
	static const struct { const char *name; uint8_t code; } dt[] = {
		{ "uint8", 8 }, { "int8", 9 }, { "uint16", 16 },
		{ "int16", 17 }, { "float16", 18 }, { "uint32", 32 },
		{ "int32", 33 }, { "float32", 34 }, { "uint64", 64 },
		{ "int64", 65 }, { "float64", 66 },
	};
	const char *d = enc + strlen("ndarray:"), *colon;
	size_t n;

	*shape = false;
	if (strncmp(enc, "ndarray:", strlen("ndarray:")))
		return 0;
	colon = strchr(d, ':');
	n = colon ? (size_t)(colon - d) : strlen(d);
	for (size_t i = 0; i < sizeof(dt) / sizeof(dt[0]); i++)
		if (n == strlen(dt[i].name) && !strncmp(d, dt[i].name, n)) {
			*shape = colon != NULL;
			return dt[i].code;
		}
	return 0;
}

static bool name_in(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcasecmp(name, *set))
			return true;
	return false;
}

/*
 * The image: the first jpeg or png column, else a bytes column named like
 * an image. The label: a column named like one whose encoding can be read
 * as an integer, else the first int column. streaming's own converters
 * name them x and y (vision/convert/imagenet.py: {'i': 'int', 'x': 'jpeg',
 * 'y': 'int'}), so the named label goes before any int column.
 */
static void mds_pick_columns(struct wl_mds_shard *sh)
{
	static const char *const image_names[] = {
		"image", "img", "jpg", "jpeg", "png", "webp", "x", NULL };
	static const char *const label_names[] = {
		"label", "labels", "cls", "class", "target", "y", NULL };

	sh->image_col = -1;
	sh->label_col = -1;
	for (unsigned c = 0; c < sh->ncols && sh->image_col < 0; c++)
		if (sh->enc[c] == WL_MDS_JPEG || sh->enc[c] == WL_MDS_PNG)
			sh->image_col = (int)c;
	for (unsigned c = 0; c < sh->ncols && sh->image_col < 0; c++)
		if (sh->enc[c] == WL_MDS_BYTES &&
		    name_in(sh->name[c], image_names))
			sh->image_col = (int)c;
	for (unsigned c = 0; c < sh->ncols && sh->label_col < 0; c++)
		if ((sh->enc[c] == WL_MDS_INT || sh->enc[c] == WL_MDS_STR ||
		     sh->enc[c] == WL_MDS_NDARRAY) &&
		    name_in(sh->name[c], label_names))
			sh->label_col = (int)c;
	for (unsigned c = 0; c < sh->ncols && sh->label_col < 0; c++)
		if (sh->enc[c] == WL_MDS_INT)
			sh->label_col = (int)c;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (why && cap) {
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return -WL_EBADINDEX;
}

/* A string member KEY of O into DST (CAP bytes, no NUL inside); *S is set
 * NULL when the member is missing or not a string. */
static int get_str(const json_t *o, const char *key, char *dst, size_t cap,
		   const char **s)
{
	const json_t *v = json_object_get(o, key);
	size_t len;

	*s = NULL;
	if (!json_is_string(v))
		return -1;
	*s = json_string_value(v);
	len = json_string_length(v);
	if (len >= cap || strlen(*s) != len)
		return -1;
	memcpy(dst, *s, len + 1);
	return 0;
}

/* A file name relative to the index's folder that stays inside it. */
static bool basename_ok(const char *b)
{
	const char *c = b;

	if (!*b || *b == '/')
		return false;
	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return false;
		c += n;
		c += *c == '/';
	}
	return true;
}

static int get_u64(const json_t *o, const char *key, uint64_t max,
		   uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int mds_file_info(const json_t *o, const char *what, unsigned i,
			 char *name, uint64_t *bytes, char *why, size_t cap)
{
	const char *s;

	if (!json_is_object(o))
		return bad(why, cap, "shard %u: %s is not an object", i, what);
	if (get_str(o, "basename", name, 256, &s) || !basename_ok(name))
		return bad(why, cap, "shard %u: %s.basename missing, too long "
			   "or leaving the index's folder", i, what);
	if (get_u64(o, "bytes", INT64_MAX, bytes))
		return bad(why, cap, "shard %u: %s.bytes missing or negative",
			   i, what);
	return 0;
}

static int mds_columns(const json_t *o, unsigned i, struct wl_mds_shard *sh,
		       char *why, size_t cap)
{
	const json_t *names = json_object_get(o, "column_names");
	const json_t *encs = json_object_get(o, "column_encodings");
	const json_t *sizes = json_object_get(o, "column_sizes");
	size_t n = json_array_size(names);

	if (!json_is_array(names) || !json_is_array(encs) ||
	    !json_is_array(sizes))
		return bad(why, cap, "shard %u: column_names, column_encodings "
			   "and column_sizes must be arrays", i);
	if (!n || n > WL_MDS_MAX_COLUMNS || json_array_size(encs) != n ||
	    json_array_size(sizes) != n)
		return bad(why, cap, "shard %u: %zu column names, %zu encodings, "
			   "%zu sizes (1 to %d, all alike)", i, n,
			   json_array_size(encs), json_array_size(sizes),
			   WL_MDS_MAX_COLUMNS);
	sh->ncols = (unsigned)n;
	for (unsigned c = 0; c < n; c++) {
		const json_t *nm = json_array_get(names, c);
		const json_t *en = json_array_get(encs, c);
		const json_t *sz = json_array_get(sizes, c);
		unsigned fixed;

		if (!json_is_string(nm) || !json_is_string(en) ||
		    json_string_length(nm) >= sizeof(sh->name[c]) ||
		    strlen(json_string_value(nm)) != json_string_length(nm))
			return bad(why, cap, "shard %u: column %u: name or "
				   "encoding not a string (or a name over %zu "
				   "bytes)", i, c, sizeof(sh->name[c]) - 1);
		memcpy(sh->name[c], json_string_value(nm),
		       json_string_length(nm) + 1);
		sh->enc[c] = mds_enc_of(json_string_value(en), &fixed);
		sh->nd_code[c] = mds_nd_code(json_string_value(en),
					     &sh->nd_shape[c]);
		/* the reader takes a size of 0 for "variable" (`if size:`) */
		if (json_is_null(sz) || (json_is_integer(sz) &&
					 json_integer_value(sz) == 0))
			sh->size[c] = -1;
		else if (json_is_integer(sz) && json_integer_value(sz) > 0 &&
			 json_integer_value(sz) <= UINT32_MAX)
			sh->size[c] = json_integer_value(sz);
		else
			return bad(why, cap, "shard %u: column %s: size not "
				   "null or a count of bytes", i, sh->name[c]);
		if (fixed && sh->size[c] != (int64_t)fixed)
			return bad(why, cap, "shard %u: column %s: %s takes %u "
				   "bytes, column_sizes says %lld", i,
				   sh->name[c], json_string_value(en), fixed,
				   (long long)sh->size[c]);
	}
	return 0;
}

static int mds_shard_parse(const json_t *o, unsigned i,
			   struct wl_mds_shard *sh, char *why, size_t cap)
{
	const json_t *comp = json_object_get(o, "compression");
	const json_t *zip = json_object_get(o, "zip_data");
	const json_t *ver = json_object_get(o, "version");
	const char *s = json_string_value(json_object_get(o, "format"));
	int err;

	if (!json_is_object(o))
		return bad(why, cap, "shard %u is not an object", i);
	if (!s || strcmp(s, "mds"))
		return bad(why, cap, "shard %u: format %s%s%s, not mds", i,
			   s ? "\"" : "", s ? s : "missing", s ? "\"" : "");
	if (!json_is_integer(ver) || json_integer_value(ver) != 2)
		return bad(why, cap, "shard %u: version missing or not 2", i);
	if (get_u64(o, "samples", UINT32_MAX, &sh->samples))
		return bad(why, cap, "shard %u: samples missing or not a count "
			   "that fits the shard header's uint32", i);
	err = mds_columns(o, i, sh, why, cap);
	if (err)
		return err;
	err = mds_file_info(json_object_get(o, "raw_data"), "raw_data", i,
			    sh->raw_name, &sh->raw_bytes, why, cap);
	if (err)
		return err;
	if (sh->raw_bytes < 4 * (sh->samples + 2))
		return bad(why, cap, "shard %u: raw_data.bytes %llu cannot hold "
			   "the header of %llu samples", i,
			   (unsigned long long)sh->raw_bytes,
			   (unsigned long long)sh->samples);
	if (json_is_null(comp) || !comp) {
		if (!json_is_null(zip) && zip)
			return bad(why, cap, "shard %u: zip_data without "
				   "compression", i);
		return 0;
	}
	if (get_str(o, "compression", sh->compression,
		    sizeof(sh->compression), &s) || !*s)
		return bad(why, cap, "shard %u: compression not null or a "
			   "short string", i);
	if (!zip || json_is_null(zip))
		return bad(why, cap, "shard %u: compression %s without "
			   "zip_data", i, sh->compression);
	return mds_file_info(zip, "zip_data", i, sh->zip_name, &sh->zip_bytes,
			     why, cap);
}

int wl_mds_index_parse(const char *text, size_t len, struct wl_mds_index *out,
		       char *why, size_t cap)
{
	const json_t *ver, *shards;
	json_error_t e;
	json_t *root;
	size_t n;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (why && cap)
		why[0] = '\0';
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
	if (!root) {
		if (json_error_code(&e) == json_error_out_of_memory)
			return -ENOMEM;
		return bad(why, cap, "not JSON: line %d column %d: %s",
			   e.line, e.column, e.text);
	}
	ver = json_object_get(root, "version");
	shards = json_object_get(root, "shards");
	n = json_array_size(shards);
	if (!json_is_object(root))
		err = bad(why, cap, "not a JSON object");
	else if (!json_is_integer(ver) || json_integer_value(ver) != 2)
		err = bad(why, cap, "version missing or not 2");
	else if (!json_is_array(shards))
		err = bad(why, cap, "shards missing or not an array");
	else if (n > UINT32_MAX)
		err = bad(why, cap, "%zu shards", n);
	if (!err && n) {
		out->shards = calloc(n, sizeof(*out->shards));
		err = out->shards ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		err = mds_shard_parse(json_array_get(shards, i), (unsigned)i,
				      &out->shards[i], why, cap);
		if (!err)
			mds_pick_columns(&out->shards[i]);
	}
	json_decref(root);
	if (err) {
		wl_mds_index_free(out);
		return err;
	}
	out->nshards = (unsigned)n;
	return 0;
}

void wl_mds_index_free(struct wl_mds_index *idx)
{
	if (!idx)
		return;
	free(idx->shards);
	idx->shards = NULL;
	idx->nshards = 0;
}

/* ---- samples ---- */

/* Bytes a sample of SH takes at least (its uint32 sizes, its fixed
 * columns), and in *NVAR how many columns are variable. */
static uint64_t mds_sample_min(const struct wl_mds_shard *sh, unsigned *nvar)
{
	uint64_t min = 0;

	*nvar = 0;
	for (unsigned c = 0; c < sh->ncols && c < WL_MDS_MAX_COLUMNS; c++) {
		if (sh->size[c] < 0) {
			(*nvar)++;
			min += 4;
		} else {
			min += (uint64_t)sh->size[c];
		}
	}
	return min;
}

/* The length P's own sizes give it: -1 when its sizes are not all in N. */
static int mds_sample_len(const struct wl_mds_shard *sh, const uint8_t *p,
			  size_t n, uint64_t *len)
{
	unsigned nvar;
	uint64_t total = mds_sample_min(sh, &nvar);

	if (n < 4 * (uint64_t)nvar)
		return -1;
	for (unsigned k = 0; k < nvar; k++)
		total += le32(p + 4 * k);
	*len = total;
	return 0;
}

/* A label written as decimal text; false when it is not one (a class
 * name, say): no label then, not a bad record. */
static bool mds_label_text(const uint8_t *p, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	uint64_t v = 0;

	while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
		i++;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	if (i == n || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		if (v > ((uint64_t)INT64_MAX + 1 - (uint64_t)(p[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
		i++;
	if (i != n || (!neg && v > INT64_MAX))
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/*
 * A bare "ndarray" value (encodings.py NDArray, dynamic dtype and shape):
 * uint8 dtype code | uint8 ndim << 2 | shape dtype (0-3: uint8..uint64) |
 * shape[ndim] | values. The label is the first value of an integer array.
 * Returns 0 (*HAS set when there is one), -1 when the bytes are not such
 * an array.
 */
static int mds_label_ndarray(const uint8_t *p, size_t n, bool *has,
			     int64_t *out)
{
	static const struct { uint8_t code, bytes; bool sign, integer; } dt[] = {
		{ 8, 1, false, true }, { 9, 1, true, true },
		{ 16, 2, false, true }, { 17, 2, true, true },
		{ 18, 2, true, false }, { 32, 4, false, true },
		{ 33, 4, true, true }, { 34, 4, true, false },
		{ 64, 8, false, true }, { 65, 8, true, true },
		{ 66, 8, true, false },
	};
	size_t k, pos, sbytes;
	unsigned ndim;
	uint64_t count = 1, v;

	*has = false;
	if (n < 2)
		return -1;
	for (k = 0; k < sizeof(dt) / sizeof(dt[0]) && dt[k].code != p[0]; k++)
		;
	if (k == sizeof(dt) / sizeof(dt[0]))
		return -1;
	ndim = p[1] >> 2;
	sbytes = (size_t)1 << (p[1] & 3);
	pos = 2;
	if (!ndim || n - pos < ndim * sbytes)
		return -1;
	for (unsigned d = 0; d < ndim; d++, pos += sbytes) {
		uint64_t dim = wl_le_n(p + pos, (unsigned)sbytes);

		if (dim && count > UINT64_MAX / dim)
			return -1;
		count *= dim;
	}
	if (count > (n - pos) / dt[k].bytes ||
	    count * dt[k].bytes != n - pos)
		return -1;      /* reshape would fail */
	if (!count || !dt[k].integer)
		return 0;
	v = wl_le_n(p + pos, dt[k].bytes);
	if (dt[k].sign && dt[k].bytes < 8 && v >> (8 * dt[k].bytes - 1))
		v |= UINT64_MAX << (8 * dt[k].bytes);   /* sign-extend */
	*out = (int64_t)v;
	*has = true;
	return 0;
}

static enum wl_image_kind mds_image_kind(const struct wl_mds_shard *sh,
					 int c)
{
	if (sh->enc[c] == WL_MDS_JPEG)
		return WL_IMAGE_JPEG;
	if (sh->enc[c] == WL_MDS_PNG)
		return WL_IMAGE_PNG;
	if (!strcasecmp(sh->name[c], "jpg") || !strcasecmp(sh->name[c], "jpeg"))
		return WL_IMAGE_JPEG;
	if (!strcasecmp(sh->name[c], "png"))
		return WL_IMAGE_PNG;
	if (!strcasecmp(sh->name[c], "webp"))
		return WL_IMAGE_WEBP;
	return WL_IMAGE_UNKNOWN;
}

/*
 * The values of an ndarray column's bytes P (N bytes) of encoding CODE
 * (0: a bare "ndarray", its dtype in its first byte) with SHAPE given in
 * the encoding or not (tensor.py's four layouts: [dtype] [ndim << 2 |
 * shape dtype] [shape] values). Returns 0 with *VALS, *VLEN, *ELEM set,
 * or -WL_EBADREC when the bytes are not such an array.
 */
static int mds_ndarray_values(uint8_t code, bool shape, const uint8_t *p,
			      size_t n, const uint8_t **vals, size_t *vlen,
			      uint8_t *elem)
{
	size_t pos = 0, sbytes;
	unsigned ndim;
	uint64_t count = 1;
	unsigned esize;

	if (!code) {
		if (n < 1)
			return -WL_EBADREC;
		code = p[pos++];
	}
	*elem = (uint8_t)wl_tok_dtype_of_mds(code);
	esize = wl_tok_dtype_size((enum wl_tok_dtype)*elem);
	if (!esize)
		return -WL_EBADREC;
	if (!shape) {
		if (n - pos < 1)
			return -WL_EBADREC;
		ndim = p[pos] >> 2;
		sbytes = (size_t)1 << (p[pos] & 3);
		pos++;
		if (ndim * sbytes > n - pos)
			return -WL_EBADREC;
		for (unsigned d = 0; d < ndim; d++, pos += sbytes) {
			uint64_t dim = wl_le_n(p + pos, (unsigned)sbytes);

			if (dim && count > UINT64_MAX / dim)
				return -WL_EBADREC;
			count *= dim;
		}
		/* reshape would fail on any other length */
		if (count > (n - pos) / esize || count * esize != n - pos)
			return -WL_EBADREC;
	} else if ((n - pos) % esize) {
		return -WL_EBADREC;
	}
	*vals = p + pos;
	*vlen = n - pos;
	return 0;
}

int wl_mds_sample_parse(const struct wl_mds_shard *sh, const uint8_t *p,
			size_t n, struct wl_sample_view *out)
{
	return wl_mds_sample_parse_key(sh, NULL, p, n, out);
}

int wl_mds_sample_parse_key(const struct wl_mds_shard *sh, const char *key,
			    const uint8_t *p, size_t n,
			    struct wl_sample_view *out)
{
	uint64_t start[WL_MDS_MAX_COLUMNS], len[WL_MDS_MAX_COLUMNS];
	uint64_t pos = 0, total;
	unsigned nvar, k = 0;
	int c;

	memset(out, 0, sizeof(*out));
	if (sh->ncols > WL_MDS_MAX_COLUMNS)
		return -EINVAL;
	if (mds_sample_len(sh, p, n, &total) || total > n)
		return -WL_EBADREC;
	mds_sample_min(sh, &nvar);
	pos = 4 * (uint64_t)nvar;
	for (unsigned i = 0; i < sh->ncols; i++) {
		len[i] = sh->size[i] < 0 ? le32(p + 4 * k++) :
					   (uint64_t)sh->size[i];
		start[i] = pos;
		pos += len[i];
	}
	c = sh->image_col;
	if (key && *key) {
		c = -1;
		for (unsigned i = 0; i < sh->ncols && c < 0; i++)
			if (!strcmp(sh->name[i], key))
				c = (int)i;
	}
	if (c < 0 || c >= (int)sh->ncols || !len[c])
		return -WL_ENOIMAGE;
	out->image = p + start[c];
	out->image_len = len[c];
	out->image_kind = mds_image_kind(sh, c);
	if (key && *key && (sh->enc[c] == WL_MDS_NDARRAY || sh->nd_code[c])) {
		int err = mds_ndarray_values(sh->nd_code[c], sh->nd_shape[c],
					     out->image, out->image_len,
					     &out->image, &out->image_len,
					     &out->elem_type);

		if (err)
			return err;
	}
	c = sh->label_col;
	if (c < 0 || c >= (int)sh->ncols)
		return 0;
	switch (sh->enc[c]) {
	case WL_MDS_INT:
		if (len[c] != 8)
			return -WL_EBADREC;
		out->label = (int64_t)wl_le_n(p + start[c], 8);
		out->has_label = true;
		break;
	case WL_MDS_STR:
		out->has_label = mds_label_text(p + start[c], len[c],
						&out->label);
		break;
	case WL_MDS_NDARRAY:
		if (mds_label_ndarray(p + start[c], len[c], &out->has_label,
				      &out->label))
			return -WL_EBADREC;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- scanner ---- */

/* Private state in the scanner's u[]: */
enum {
	MDS_PHASE,      /* one of the phases below */
	MDS_N,          /* samples, from the header */
	MDS_I,          /* offsets read, then samples cut */
	MDS_AT,         /* the previous offset, then where the next sample
	                   starts */
	MDS_END,        /* offsets[n]: where the last sample ends */
	MDS_CRC_HDR,    /* CRC-32C of the header's offsets */
	MDS_CRC_CUT,    /* CRC-32C of the offsets of the cuts made */
	MDS_ERR,        /* the error met (negative), sticky */
};
enum { PH_COUNT, PH_OFFSETS, PH_GAP, PH_SAMPLES, PH_DONE };

void wl_mds_scan_init(struct wl_scanner *s)
{
	s->u[MDS_PHASE] = PH_COUNT;
	s->pos = 0;
	s->keep_from = 0;
}

static int mds_fail(struct wl_scanner *s, int err, uint64_t at)
{
	s->u[MDS_ERR] = (uint64_t)(int64_t)err;
	s->err_off = at;
	return err;
}

static uint32_t crc_le32(uint32_t crc, uint64_t v)
{
	const uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8),
			       (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return wl_crc32c(crc, b, sizeof(b));
}

/* The offsets table, as far as the window holds it: each offset within
 * the shard, offsets[0] past the table, each sample at least MIN bytes and
 * at most MAX_RECORD. */
static int mds_offsets(struct wl_scanner *s, const uint8_t *w, uint64_t avail)
{
	const struct wl_mds_shard *sh = s->mds;
	uint64_t *u = s->u;
	unsigned nvar;
	const uint64_t min = mds_sample_min(sh, &nvar);
	uint64_t k = 0;
	bool ok = true;

	for (; u[MDS_I] <= u[MDS_N] && avail - k >= 4; k += 4, u[MDS_I]++) {
		uint64_t o = le32(w + k), prev = u[MDS_AT];

		if (u[MDS_I] == 0)
			ok = o >= 4 * (u[MDS_N] + 2);
		else
			ok = o >= prev + min && o - prev <= s->max_record;
		if (!ok || o > sh->raw_bytes)
			break;
		if (u[MDS_I] == 0)
			s->rec_start = o;
		u[MDS_AT] = o;
	}
	u[MDS_CRC_HDR] = wl_crc32c((uint32_t)u[MDS_CRC_HDR], w, k);
	s->pos += k;
	if (u[MDS_I] <= u[MDS_N] && avail - k >= 4)
		return mds_fail(s, -WL_EBADHDR, s->pos);
	return 0;
}

int wl_mds_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec)
{
	const struct wl_mds_shard *sh = s->mds;
	const uint64_t end = win_base + win_len;
	uint64_t *u = s->u;
	const uint8_t *w;
	uint64_t avail, len;
	int err;

	if (u[MDS_ERR])
		return (int)(int64_t)u[MDS_ERR];
	if (sh->ncols > WL_MDS_MAX_COLUMNS)
		return -EINVAL;
	for (;;) {
		avail = end > s->pos ? end - s->pos : 0;
		w = avail ? win + (s->pos - win_base) : NULL;
		s->keep_from = s->pos < end ? s->pos : end;
		switch (u[MDS_PHASE]) {
		case PH_COUNT:
			if (avail < 4)
				goto more;
			u[MDS_N] = le32(w);
			if (u[MDS_N] != sh->samples)
				return mds_fail(s, -WL_EBADHDR, s->pos);
			s->pos += 4;
			u[MDS_PHASE] = PH_OFFSETS;
			continue;
		case PH_OFFSETS:
			err = mds_offsets(s, w, avail);
			if (err)
				return err;
			if (u[MDS_I] <= u[MDS_N])
				goto more;
			u[MDS_END] = u[MDS_AT];
			u[MDS_PHASE] = PH_GAP;
			continue;
		case PH_GAP:
			/* the shard's config JSON lies up to offsets[0]: not
			 * needed, not kept */
			if (end < s->rec_start) {
				s->pos = end > s->pos ? end : s->pos;
				s->keep_from = end;
				goto more;
			}
			s->pos = s->rec_start;
			u[MDS_AT] = s->rec_start;
			u[MDS_I] = 0;
			u[MDS_CRC_CUT] = crc_le32(0, s->rec_start);
			u[MDS_PHASE] = PH_SAMPLES;
			continue;
		case PH_SAMPLES:
			if (u[MDS_I] == u[MDS_N]) {
				/* the cuts were the header's offsets */
				if (u[MDS_AT] != u[MDS_END] ||
				    u[MDS_CRC_CUT] != u[MDS_CRC_HDR])
					return mds_fail(s, -WL_EBADHDR,
							s->pos);
				u[MDS_PHASE] = PH_DONE;
				continue;
			}
			if (mds_sample_len(sh, w, avail, &len))
				goto more;
			if (len > s->max_record || len > u[MDS_END] - s->pos)
				return mds_fail(s, -WL_EBADHDR, s->pos);
			if (avail < len)
				goto more;
			rec->off = s->pos;
			rec->len = len;
			s->pos += len;
			s->keep_from = s->pos;
			u[MDS_AT] = s->pos;
			u[MDS_I]++;
			u[MDS_CRC_CUT] = crc_le32((uint32_t)u[MDS_CRC_CUT],
						  s->pos);
			s->records++;
			return 1;
		default:        /* PH_DONE: bytes past offsets[n] are not
			           samples; skipped, not kept */
			if (end > s->pos)
				s->pos = end;
			s->keep_from = s->pos;
			return 0;
		}
	}
more:
	if (eof)
		return mds_fail(s, -WL_ETRUNCREC, s->pos);
	return 0;
}
