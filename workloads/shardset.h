/*
 * shardset.h - a dataset as its files are laid out: which format a folder
 * holds (detection, or --format), its shard files and how many records
 * each holds, counted at open (the headers walked with small reads; MDS
 * from index.json; a compressed shard decompressed once), and what the
 * engine needs to read it (struct ldr_shards) and to turn a record into
 * the workload's sample (a transform that unwraps the record first).
 */
#ifndef FEEDRATE_SHARDSET_H
#define FEEDRATE_SHARDSET_H

#include "formats.h"
#include "loader.h"
#include "storage.h"
#include "tokens.h"

#define WL_OPEN_ERRORS_MAX 8

/* A problem met while opening (counting), with where it was. */
struct wl_open_error {
	char kind[24];          /* wl_fmt_err_name, or an errno name */
	uint64_t count;
	char example[320];      /* "shard-000003.tar@1536" */
};

struct wl_shardset_opts {
	uint32_t read_size;             /* 0: STG_STREAM_BLOCK_DEFAULT */
	unsigned shuffle_buffer;        /* 0: LDR_DEFAULT_SHUFFLE_BUFFER */
	uint64_t max_record;            /* 0: 64 MiB */
	volatile sig_atomic_t *stop;    /* polled while counting */
	/* token datasets: a sample is a window of seq_len + 1 tokens of a
	 * token file (WL_FORMAT_TOKENS; 0: WL_TOK_DEFAULT_SEQ_LEN), or one
	 * MDS sample's token column (MDS with seq_len > 0: the transform
	 * is handed struct wl_token_span, tokens.h) */
	uint32_t seq_len;
	/* what a token file without .idx or llm.c header holds: 0 = uint16
	 * (nanoGPT's, enum wl_tok_dtype otherwise) */
	uint8_t flat_dtype;
	/* the payload in a record: TFRecord feature, MDS column, WebDataset
	 * member extension; NULL or "": the format's default (MDS token
	 * datasets: "tokens", llm-foundry's column) */
	const char *key;
	/* no exact epoch count is needed (info): when more than
	 * WL_COUNT_SAMPLE shards have neither index nor cached count, walk
	 * that many, spread over the set, and estimate the others by their
	 * bytes (formats whose row states WL_CAP_ESTIMATE) */
	bool estimate;
	/* the count cache's folder; NULL: wl_count_cache_open's default */
	const char *count_cache_dir;
};

#define WL_COUNT_SAMPLE 8

struct wl_shardset {
	enum wl_format format;
	struct stg_dataset *ds;         /* the shard files, in id order */
	uint64_t *records;              /* per shard */
	uint8_t *compressed;            /* per shard: 1 = zstd */
	uint64_t *raw_bytes;            /* per shard: decompressed size (MDS:
	                                   the index's; .tar.zst: counted) */
	uint64_t *base;                 /* first record id of each shard */
	uint64_t total;                 /* records per epoch */
	uint64_t compressed_shards;
	uint64_t bytes;                 /* the shard files' bytes */
	double count_s;                 /* time spent counting */
	uint64_t by_source[WL_COUNT_SOURCES]; /* shards counted each way */
	enum wl_count_source source;    /* the weakest of them: the total's */
	unsigned count_warnings;        /* a side index stale or corrupt, the
	                                   count cache unreadable, corrupt or
	                                   not written: counts stay right */
	char count_warning[320];        /* the first */
	bool side_indexes;              /* the listing holds side index files
	                                   (WL_CAP_SIDE_INDEX's suffix) */
	uint64_t max_record;            /* the scanners' bound */
	struct wl_mds_index mds;        /* MDS: index.json */
	uint32_t *mds_of;               /* MDS: ds id -> index shard */
	bool tokens;                    /* token samples: spans to the
	                                   transform (opts.seq_len) */
	uint32_t seq_len;
	uint8_t flat_dtype;             /* enum wl_tok_dtype */
	struct wl_tok_file *tok;        /* WL_FORMAT_TOKENS: per shard, its
	                                   dtype, first token, tokens */
	char key[64];                   /* the payload's name, "" default */
	char root[4096];                /* a single file opened: its folder */
	unsigned nerr;
	struct wl_open_error err[WL_OPEN_ERRORS_MAX];
	struct ldr_shard_ops ops;
	struct ldr_shards ldr;          /* for ldr_config.shards */
	struct ldr_transform inner;     /* wl_shardset_transform's */
};

/*
 * Which format the folder ROOT holds: index.json -> mds; shard files
 * (.tar, .tar.zst) and no image files -> wds; files whose first record
 * is TFRecord framing (length and its CRC) -> tfrecord; token files
 * (.bin, .bin.zst, .idx) and none of those -> tokens; only files a
 * row claims by name (wl_format_claims: .npy, .npz) -> that row (npy);
 * else folder. ROOT
 * may be one token file (.bin, .bin.zst, .idx): tokens. WHY (CAP bytes)
 * says what decided it. Returns 0 or -errno (ROOT not readable).
 */
int wl_format_detect(const char *root, enum wl_format *out, char *why,
		     size_t cap);

/*
 * Open ROOT as a dataset of format F (not FOLDER or AUTO): list its
 * shards and count their records. A shard's count comes, first that
 * answers, from the format's index (MDS index.json; a TFRecord's DALI
 * side index, x.tfrecord.idx or x.idx; a token file's .idx, header or
 * size), from the count cache (wl_count_cache, keyed by path, size and
 * mtime), from a walk (stored in the cache when clean), or with
 * O->estimate from a sample of walked shards; by_source and source say
 * which. A stale or corrupt side index or cache is a counted warning
 * (count_warnings) and the next source is taken. Problems are counted in (*OUT)->err
 * and the open goes on; a shard whose walk stops at an error holds the
 * records before it plus one for the error (read as a failed sample each
 * epoch). Returns 0, -ENODATA (no shard), -EINTR (stopped), or -errno /
 * -WL_EBADINDEX with WHY (CAP bytes) set.
 *
 * Tokens: ROOT is a folder of token files (each .bin and .bin.zst is a
 * shard; x.idx beside x.bin or x.bin.zst gives its dtype and extent) or
 * one of them (naming x.idx opens x.bin, else x.bin.zst). A shard's
 * records are its windows (tokens.h), counted from the file's size (flat
 * .bin), llm.c's header or the .idx; a .bin.zst's decompressed size is
 * taken from its frames' content sizes (wl_zstd_content_size) and, where
 * a frame lacks one, from one decompression pass. An .idx that does not
 * fit its .bin (bad_index, at the .idx's offset), an llm.c file shorter
 * than its header says (truncated_record, at the file's end) and a bad
 * zstd frame (bad_zstd) are counted errors: the windows before them are
 * read, then one failed sample.
 */
int wl_shardset_open(const char *root, enum wl_format f,
		     const struct wl_shardset_opts *o,
		     struct wl_shardset **out, char *why, size_t cap);

void wl_shardset_free(struct wl_shardset *s);

/*
 * A transform that finds the payload in a record of S (wl_unwrap_key with
 * S's key: CRCs, protobuf, tar members, MDS columns; its time counted in
 * the sample's "other" step) and hands it to INNER (copied). A token
 * dataset's INNER is handed a struct wl_token_span (tokens.h) instead of
 * the bytes: the payload and its element type (the MDS column's; a token
 * file's from its .idx or header; an MDS bytes column holds int64, as
 * llm-foundry's older writer stored tokens). S must outlive every run of
 * *OUT. Returns 0 or -ENOMEM.
 */
int wl_shardset_transform(struct wl_shardset *s,
			  const struct ldr_transform *inner,
			  struct ldr_transform *out);

#endif
