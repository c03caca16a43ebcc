/*
 * formats.h - how samples are laid out in a dataset's files: a folder of
 * image files (one sample per file), WebDataset tar shards, MosaicML MDS
 * shards, TFRecord files, token streams, numpy .npy / .npz volumes (one
 * array per file, fmt_npy.h). Each format is a row of one table; a shard
 * format has
 *
 *   - a scanner that finds record boundaries in a shard's byte stream fed
 *     in order (the reader cuts records out of large sequential reads);
 *   - a header walk that counts a shard's records with small reads at
 *     open, before any measurement (MDS takes the counts from index.json,
 *     a TFRecord shard from DALI's .idx beside it where one fits; walked
 *     counts are kept in the count cache, count_cache.c);
 *   - an unwrap that turns one record into the image's bytes and the label
 *     (run by a worker: its CPU is the sample's).
 *
 * Parsers take bytes and lengths and never read past them; they allocate
 * nothing per record. Conventions: 0 or a negative code; codes at or past
 * WL_FMT_E_BASE are the format errors below (wl_fmt_err_name), others are
 * -errno.
 */
#ifndef FEEDRATE_FORMATS_H
#define FEEDRATE_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wl_format {
	WL_FORMAT_AUTO = 0,     /* detect (wl_format_detect) */
	WL_FORMAT_FOLDER,       /* ImageFolder: one image file per sample */
	WL_FORMAT_WDS,          /* WebDataset: .tar / .tar.zst shards */
	WL_FORMAT_MDS,          /* MosaicML streaming MDS v2: index.json */
	WL_FORMAT_TFRECORD,     /* TFRecord files of tf.train.Example */
	WL_FORMAT_TOKENS,       /* token streams: Megatron .idx/.bin, nanoGPT
	                           .bin (flat or llm.c header), .bin.zst */
	WL_FORMAT_NPY,          /* numpy .npy / .npz: one array per file
	                           (fmt_npy.h) */
	WL_FORMAT_COUNT
};

/* ---- what a format can do: its row ---- */

/* The capabilities a row states; callers ask these, never the name. */
enum wl_fmt_cap {
	WL_CAP_DETECT = 1u << 0,    /* wl_format_detect recognises it */
	WL_CAP_COUNT = 1u << 1,     /* its records are counted at open */
	WL_CAP_WALK = 1u << 2,      /* ... by a header walk (wl_walk_count) */
	WL_CAP_INDEX = 1u << 3,     /* ... from an index file (index_name),
	                               which also lists the shards */
	WL_CAP_SCAN = 1u << 4,      /* records cut from a shard's stream */
	WL_CAP_UNWRAP = 1u << 5,    /* a record's payload found (wl_unwrap) */
	WL_CAP_WRITE = 1u << 6,     /* the shard writer writes it (fmt_write.h) */
	WL_CAP_COMPRESS = 1u << 7,  /* zstd shards, read and written */
	WL_CAP_SPLIT = 1u << 8,     /* split by rank: whole shards per rank */
	WL_CAP_TOKENS = 1u << 9,    /* its records are token windows */
	WL_CAP_BY_FRAMING = 1u << 10, /* a shard is known by its bytes, not
	                                 its name (a file beside the shards,
	                                 e.g. DALI's .idx, is not one) */
	WL_CAP_FILES = 1u << 11,    /* a sample is one whole file: the
	                               dataset is its listing, no shard is
	                               opened or counted */
	WL_CAP_WRITE_FILES = 1u << 12, /* its files are written by its own
	                                  writer functions (gen's generators
	                                  call them), not the shard writer */
	WL_CAP_SIDE_INDEX = 1u << 13, /* a shard's count may come from an
	                                 index file beside it (side_index:
	                                 DALI's tfrecord2idx text) */
	WL_CAP_COUNT_CACHE = 1u << 14, /* a walked count is worth keeping in
	                                  the count cache (wl_count_cache) */
	WL_CAP_ESTIMATE = 1u << 15,  /* where no exact count is needed, the
	                                unwalked shards' counts may be
	                                estimated from a sample of walked ones
	                                by their bytes */
};

/* One format. */
struct wl_format_row {
	const char *name;       /* --format's word */
	unsigned caps;          /* enum wl_fmt_cap bits */
	const char *index_name; /* WL_CAP_INDEX: the index file at the top */
	const char *side_index; /* WL_CAP_SIDE_INDEX: the index file's
	                           suffix, after the shard's name or its
	                           stem (x.tfrecord.idx or x.idx) */
	uint64_t max_shard_bytes; /* the writer's largest shard (MDS: 32-bit
	                             offsets); 0: no limit */
	const char *layout;     /* what gen writes, in words, for --help */
	const char *const *exts; /* WL_CAP_DETECT by name: the file name
	                            endings it claims (any case), NULL-ended;
	                            NULL: known otherwise */
};

/* Row F (AUTO's row states nothing), or NULL past the table. */
const struct wl_format_row *wl_format_row(enum wl_format f);

/* Whether format F states every capability in CAPS. */
bool wl_format_can(enum wl_format f, unsigned caps);

/* The row whose exts claim file name NAME, or WL_FORMAT_AUTO. */
enum wl_format wl_format_claims(const char *name);

/* "auto", "folder", "wds", "mds", "tfrecord", "tokens", "npy". */
const char *wl_format_name(enum wl_format f);

/* Parse one of the names above; -EINVAL otherwise. */
int wl_format_parse(const char *s, enum wl_format *out);

/* ---- sample errors of the formats (negated, like -errno) ---- */

#define WL_FMT_E_BASE 5001
enum wl_fmt_err {
	WL_EBADHDR = WL_FMT_E_BASE, /* "bad_header": a tar header whose
	                               checksum or fields are wrong; an MDS
	                               shard header or TFRecord length that
	                               cannot be right */
	WL_ETRUNCREC,           /* "truncated_record": the shard ends inside a
	                           member / record */
	WL_EZSTD,               /* "bad_zstd": a zstd frame that does not
	                           decode */
	WL_EMISSING,            /* "missing_shard": a shard named by the index
	                           is not there */
	WL_ECRC,                /* "crc_mismatch": a TFRecord CRC-32C */
	WL_ENOIMAGE,            /* "no_image": a sample without an image
	                           member / field */
	WL_EBADINDEX,           /* "bad_index": index.json unusable */
	WL_EBADREC,             /* "bad_record": a protobuf / MDS sample that
	                           does not parse */
	WL_FMT_E_END
};

/* Stable short key of a format error (ERR negative or positive), or NULL
 * when ERR is not one of them. */
const char *wl_fmt_err_name(int err);

/* ---- CRC-32C (Castagnoli), as TFRecord uses it (formats/crc32c.c) ---- */

/* CRC-32C of LEN bytes, continuing from CRC (0 to start). SSE4.2's crc32
 * instruction where the CPU has it, else a table. Check value:
 * wl_crc32c(0, "123456789", 9) == 0xE3069283. */
uint32_t wl_crc32c(uint32_t crc, const void *buf, size_t len);

/* TFRecord's masked CRC: ((c >> 15) | (c << 17)) + 0xa282ead8. */
static inline uint32_t wl_crc32c_mask(uint32_t c)
{
	return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

/* ---- records in a shard's byte stream ---- */

/* One record: bytes [off, off + len) of the shard's (decompressed) stream.
 * WebDataset: the run of tar members sharing a key, headers included.
 * TFRecord: the whole framed record (length, its CRC, data, data CRC).
 * MDS: one sample as the shard header's offsets delimit it. */
struct wl_record {
	uint64_t off;
	uint64_t len;
};

/*
 * A scanner walks one shard's stream. The caller keeps a window of the
 * stream, bytes [WIN_BASE, WIN_BASE + WIN_LEN) at WIN, and calls
 * wl_scan_next() after each append. Returns
 *    1  REC lies wholly inside the window; the next call goes on after it;
 *    0  more bytes are needed: keep bytes from s->keep_from on (never
 *       beyond the end of the window) and append; with EOF set (the window
 *       reaches the end of the stream) 0 means the shard ended cleanly;
 *   <0  a format error (-WL_E*) at s->err_off: the stream cannot be
 *       followed past it; the rest of the shard is lost (one error).
 * The window must start at or before s->keep_from. A record longer than
 * MAX_RECORD (set by init) is -WL_EBADHDR: a window of MAX_RECORD +
 * WL_SCAN_LOOKAHEAD bytes from s->keep_from on always suffices (a tar
 * record ends only where the next member's headers, PAX and GNU long
 * names included, show another key).
 */
#define WL_SCAN_LOOKAHEAD (64u * 1024)
struct wl_mds_shard;

struct wl_scanner {
	enum wl_format fmt;
	uint64_t keep_from;     /* first stream byte still needed */
	uint64_t err_off;       /* where the error was met */
	uint64_t max_record;
	uint64_t records;       /* records returned so far */
	/* format state, private to the format's file */
	uint64_t pos;           /* next byte to parse */
	uint64_t rec_start;     /* start of the record being gathered */
	uint64_t u[8];
	char key[256];          /* WebDataset: the key being gathered */
	size_t key_len;
	const struct wl_mds_shard *mds;
};

/* Start scanning a shard of format F (MDS: of shard MDS). */
void wl_scan_init(struct wl_scanner *s, enum wl_format f,
		  const struct wl_mds_shard *mds, uint64_t max_record);

int wl_scan_next(struct wl_scanner *s, const uint8_t *win, uint64_t win_base,
		 size_t win_len, bool eof, struct wl_record *rec);

/*
 * Count the records of an uncompressed shard of SIZE bytes by walking its
 * headers with small reads through PREAD (returns bytes read or -errno;
 * short only at the end). WebDataset: one read per member header (and its
 * PAX / GNU long-name data); TFRecord: 12 bytes per record. *COUNT gets
 * the records before any error; on a format error returns it with
 * *ERR_OFF set (the records after it cannot be found).
 */
typedef int64_t (*wl_pread_fn)(void *arg, void *buf, size_t len,
			       uint64_t off);
int wl_walk_count(enum wl_format f, wl_pread_fn pread, void *arg,
		  uint64_t size, uint64_t max_record, uint64_t *count,
		  uint64_t *err_off);

/*
 * Count the records of a shard of SHARD_SIZE bytes from its side index
 * (WL_CAP_SIDE_INDEX), TEXT (LEN bytes, read whole by the caller).
 * TFRecord: DALI's tfrecord2idx layout, one "OFFSET SIZE" line per
 * record, each record starting where the one before ended, the last
 * ending at SHARD_SIZE. Returns 0 with *COUNT set; -WL_EBADINDEX when
 * the text does not parse or does not fit the shard (stale: the shard
 * was rewritten; the caller walks the shard instead); -ENOTSUP for a
 * format without side index.
 */
int wl_side_index_count(enum wl_format f, const char *text, size_t len,
			uint64_t shard_size, uint64_t *count);

/* ---- where a shard's count came from, and the count cache ---- */

enum wl_count_source {
	WL_COUNT_INDEX = 0,     /* the format's index: index.json, a side
	                           index, a token file's .idx / size */
	WL_COUNT_CACHE,         /* the count cache */
	WL_COUNT_SCANNED,       /* walked or decompressed now */
	WL_COUNT_ESTIMATED,     /* from a sample of walked shards' records
	                           per byte */
	WL_COUNT_SOURCES
};

/* "index", "cache", "scanned", "estimated". */
const char *wl_count_source_name(enum wl_count_source src);

/*
 * The count cache (formats/count_cache.c): shard record counts walked
 * before, kept OUTSIDE the dataset (the tool never writes into it), one
 * file per dataset folder under $XDG_CACHE_HOME/feedrate/counts, else
 * ~/.cache/feedrate/counts. An entry is keyed by the shard's path, size
 * and mtime (ns) and the format, so a rewritten shard misses. The file is
 * replaced atomically (a temporary file renamed over it); a corrupt or
 * half-written file is ignored line by line, and a concurrent writer's
 * entries are merged in at save. A shard modified within the last 2 s is
 * not stored: its mtime may not yet tell the next write from this one
 * (filesystem timestamps are coarse). One cache belongs to one thread.
 */
struct wl_count_cache;

/* The cache of dataset folder ROOT (an absolute path) for format FMT
 * ("wds", ...). DIR: the cache folder, NULL for the default above. Never
 * fails for a missing, unreadable or corrupt file (an empty cache, with
 * a warning); returns 0 or -ENOMEM. */
int wl_count_cache_open(const char *root, const char *fmt, const char *dir,
			struct wl_count_cache **out);

/* The cached count of shard REL (relative to the root) of SIZE bytes
 * modified at MTIME_NS: true with *COUNT and *RAW (the decompressed
 * bytes, 0 when not compressed) set, false on a miss. */
bool wl_count_cache_get(const struct wl_count_cache *c, const char *rel,
			uint64_t size, int64_t mtime_ns, uint64_t *count,
			uint64_t *raw);

/* Remember a count walked now (in memory until save). A shard modified
 * within the last 2 s, or REL holding a newline, is skipped. 0 or
 * -ENOMEM. */
int wl_count_cache_put(struct wl_count_cache *c, const char *rel,
		       uint64_t size, int64_t mtime_ns, uint64_t count,
		       uint64_t raw);

/* Write the cache when put added an entry: 0 (or nothing to write), or
 * -errno (read-only or full place, ...) with WHY (CAP bytes) set: the
 * caller counts it as a warning; the counts stay good. */
int wl_count_cache_save(struct wl_count_cache *c, char *why, size_t cap);

/* Lines of the cache file that did not parse (ignored), and whether the
 * file was unreadable. WHY (CAP) says what, "" when nothing. */
unsigned wl_count_cache_problems(const struct wl_count_cache *c, char *why,
				 size_t cap);

void wl_count_cache_free(struct wl_count_cache *c);

/* ---- a record's contents ---- */

enum wl_image_kind {
	WL_IMAGE_UNKNOWN = 0,   /* decide by content */
	WL_IMAGE_JPEG,
	WL_IMAGE_PNG,
	WL_IMAGE_WEBP,
};

struct wl_sample_view {
	const uint8_t *image;   /* inside the record */
	size_t image_len;
	enum wl_image_kind image_kind; /* what the name / encoding says; the
	                                  decoder still looks at the bytes */
	bool has_label;
	int64_t label;
	uint8_t elem_type;      /* the payload's element type when it is an
	                           array of numbers with a known dtype (an MDS
	                           ndarray column): enum wl_tok_dtype of
	                           tokens.h; 0 for bytes */
};

/*
 * Find the image and the label in record REC (LEN bytes, as the scanner
 * cut it; MDS: of shard MDS, else NULL). TFRecord: verifies both CRCs
 * (-WL_ECRC) and parses tf.train.Example (image/encoded, image/class/
 * label). WebDataset: image member by extension (jpg, jpeg, png, webp),
 * label from the cls member. Returns 0, or -WL_E*.
 */
int wl_unwrap(enum wl_format f, const struct wl_mds_shard *mds,
	      const uint8_t *rec, size_t len, struct wl_sample_view *out);

/*
 * wl_unwrap with the payload named by KEY (NULL or "": the format's
 * default, as wl_unwrap): TFRecord, the feature KEY's first bytes value
 * in place of image/encoded; MDS, the column named KEY in place of the
 * image column (an ndarray column gives its values, without the dtype and
 * shape bytes, and their type in elem_type); WebDataset, the first member
 * whose extension is KEY (any case) in place of the image extensions.
 * Folder and tokens records are the payload whole. A record without KEY
 * is -WL_ENOIMAGE. The label is found as wl_unwrap finds it.
 */
int wl_unwrap_key(enum wl_format f, const struct wl_mds_shard *mds,
		  const char *key, const uint8_t *rec, size_t len,
		  struct wl_sample_view *out);

/* ---- MDS index (formats/fmt_mds.c) ---- */

#define WL_MDS_MAX_COLUMNS 32

enum wl_mds_enc {
	WL_MDS_BYTES = 0, WL_MDS_JPEG, WL_MDS_PNG, WL_MDS_INT, WL_MDS_STR,
	WL_MDS_NDARRAY, WL_MDS_OTHER
};

struct wl_mds_shard {
	char raw_name[256];     /* raw_data.basename */
	char zip_name[256];     /* zip_data.basename, "" when uncompressed */
	uint64_t raw_bytes, zip_bytes;
	uint64_t samples;
	char compression[32];   /* "" or e.g. "zstd:7" */
	unsigned ncols;
	enum wl_mds_enc enc[WL_MDS_MAX_COLUMNS];
	int64_t size[WL_MDS_MAX_COLUMNS];   /* -1: variable */
	char name[WL_MDS_MAX_COLUMNS][64];
	uint8_t nd_code[WL_MDS_MAX_COLUMNS]; /* "ndarray:DTYPE[:SHAPE]": the
	                                        dtype's code (tensor.py's
	                                        _value_dtype2int), else 0 */
	bool nd_shape[WL_MDS_MAX_COLUMNS];   /* ... and SHAPE was given */
	int image_col, label_col;           /* -1: none */
};

struct wl_mds_index {
	unsigned nshards;
	struct wl_mds_shard *shards;
};

/* Parse index.json's text (LEN bytes). Returns 0 or -WL_EBADINDEX (with a
 * reason in WHY, CAP bytes) or -ENOMEM. */
int wl_mds_index_parse(const char *text, size_t len, struct wl_mds_index *out,
		       char *why, size_t cap);
void wl_mds_index_free(struct wl_mds_index *idx);

#endif
