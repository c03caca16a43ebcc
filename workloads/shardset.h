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
};

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
	uint64_t max_record;            /* the scanners' bound */
	struct wl_mds_index mds;        /* MDS: index.json */
	uint32_t *mds_of;               /* MDS: ds id -> index shard */
	unsigned nerr;
	struct wl_open_error err[WL_OPEN_ERRORS_MAX];
	struct ldr_shard_ops ops;
	struct ldr_shards ldr;          /* for ldr_config.shards */
	struct ldr_transform inner;     /* wl_shardset_transform's */
};

/*
 * Which format the folder ROOT holds: index.json -> mds; shard files
 * (.tar, .tar.zst) and no image files -> wds; files whose first record
 * is TFRecord framing (length and its CRC) -> tfrecord; else folder.
 * WHY (CAP bytes) says what decided it. Returns 0 or -errno (ROOT not
 * readable).
 */
int wl_format_detect(const char *root, enum wl_format *out, char *why,
		     size_t cap);

/*
 * Open ROOT as a dataset of format F (not FOLDER or AUTO): list its
 * shards and count their records. Problems are counted in (*OUT)->err
 * and the open goes on; a shard whose walk stops at an error holds the
 * records before it plus one for the error (read as a failed sample each
 * epoch). Returns 0, -ENODATA (no shard), -EINTR (stopped), or -errno /
 * -WL_EBADINDEX with WHY (CAP bytes) set.
 */
int wl_shardset_open(const char *root, enum wl_format f,
		     const struct wl_shardset_opts *o,
		     struct wl_shardset **out, char *why, size_t cap);

void wl_shardset_free(struct wl_shardset *s);

/*
 * A transform that finds the image in a record of S (wl_unwrap: CRCs,
 * protobuf, tar members, MDS columns; its time counted in the sample's
 * "other" step) and hands it to INNER (copied). S must outlive every run
 * of *OUT. Returns 0 or -ENOMEM.
 */
int wl_shardset_transform(struct wl_shardset *s,
			  const struct ldr_transform *inner,
			  struct ldr_transform *out);

#endif
