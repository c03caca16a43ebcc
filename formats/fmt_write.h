/*
 * fmt_write.h - writers of the shard formats that formats.h reads:
 * WebDataset tar shards (.tar, or .tar.zst: the whole tar one zstd
 * frame), MosaicML streaming MDS v2 (index.json and shard.NNNNN.mds, or
 * .mds.zstd) and TFRecord files of tf.train.Example; and the two ways
 * `feedrate gen` fills them: the synthetic generator's images, and the
 * files of a user's ImageFolder, whose bytes go in unchanged.
 *
 * Every shard is written under a hidden temporary name in the output
 * folder and gets its final name only once complete and closed, so a
 * failure (ENOSPC, EIO) or a stop never leaves a partial shard under a
 * final name. Layouts, as the formats' own writers make them:
 *   wds       shard-000000.tar: per sample the members KEY.jpg (or .png,
 *             .webp: the image's bytes) and KEY.cls (the label in ASCII
 *             decimal); ustar headers, mode 0644, mtime 0, a PAX header
 *             for names over 100 bytes; two zero blocks at the end.
 *   mds       shard.00000.mds as streaming's MDSWriter writes it (uint32
 *             count, uint32 offsets[count + 1], its JSON config, the
 *             samples), columns image (jpeg; png when every image is a
 *             PNG) and label (int); index.json with every field MDSWriter
 *             writes; zstd: shard.00000.mds.zstd, compression "zstd:L".
 *             A shard is gathered in memory (its header, which comes
 *             first, needs every sample's offset), as MDSWriter does.
 *   tfrecord  train-00000-of-00012.tfrecord: records framed with their
 *             masked CRC-32Cs; features image/encoded, image/format,
 *             image/class/label, image/height, image/width (the last two
 *             when the image's header gives them). A shard's final name
 *             holds the shard count, so shards are renamed when the
 *             writer closes.
 * --shard-size limits a shard's uncompressed bytes (MDS: its raw file, as
 * MDSWriter's size_limit); a shard is closed before a sample would take it
 * past the limit, and holds at least one sample.
 */
#ifndef FEEDRATE_FMT_WRITE_H
#define FEEDRATE_FMT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats.h"

/* Default shard size of wds and tfrecord. */
#define WL_SHARD_DEFAULT_BYTES (100ull << 20)
/* MDSWriter's default size_limit (streaming/base/format/base/writer.py). */
#define WL_MDS_DEFAULT_SIZE_LIMIT (1ull << 26)
/* zstd's default level, as the zstd CLI and streaming's Zstandard use. */
#define WL_ZSTD_DEFAULT_LEVEL 3
#define WL_ZSTD_MAX_LEVEL 22

struct wl_shard_opts {
	enum wl_format format;  /* WL_FORMAT_WDS, _MDS or _TFRECORD */
	bool zstd;              /* compressed shards (wds and mds only) */
	int zstd_level;         /* 1..22; 0: WL_ZSTD_DEFAULT_LEVEL */
	uint64_t shard_size;    /* 0: the format's default; MDS: < 2^32 */
	/* What every image is (MDS's column encoding): WL_IMAGE_PNG gives
	 * "png", anything else "jpeg" (whose decoder in streaming opens any
	 * image by content). */
	enum wl_image_kind image_kind;
};

/* What a writer (or a command built on it) has written. */
struct wl_shard_stats {
	uint64_t shards;        /* complete shards */
	uint64_t samples;       /* samples in them */
	uint64_t bytes;         /* their size on disk (compressed with zstd) */
	uint64_t raw_bytes;     /* their uncompressed size */
	uint64_t image_bytes;   /* the images' own bytes in them */
	/* conversion from a folder only */
	uint32_t classes;       /* class folders */
	uint32_t empty_classes; /* class folders without an image */
	uint64_t skipped;       /* files not taken: outside a class folder,
	                           or not .jpg/.jpeg/.png/.webp */
	uint64_t list_errors;   /* entries the listing could not follow */
};

/* One sample handed to a writer. */
struct wl_shard_sample {
	const char *key;        /* wds member name without its extension,
	                           e.g. "n01440764/n01440764_10026": a dot in
	                           its last part becomes '_' (WebDataset's key
	                           ends at the first dot), and a key equal to
	                           the previous one gets a suffix */
	enum wl_image_kind kind; /* JPEG, PNG or WEBP: member extension and
	                           image/format; UNKNOWN is taken as JPEG */
	int64_t label;
	const uint8_t *data;    /* the image file's bytes */
	size_t len;
	uint32_t width, height; /* 0: unknown */
};

struct wl_shard_writer;

/*
 * A writer of O's format into the folder DFD (borrowed: it must stay open
 * until wl_shard_writer_destroy), which the caller made empty. Nothing is
 * created until the first sample. Returns 0, -EINVAL (a format other than
 * wds, mds, tfrecord; zstd with tfrecord; a level outside 1..22; an MDS
 * shard size of 2^32 or more) or -ENOMEM. One thread at a time uses it.
 */
int wl_shard_writer_create(int dfd, const struct wl_shard_opts *o,
			   struct wl_shard_writer **out);

/*
 * Appends sample S, first closing the open shard (renamed to its final
 * name) when S would take it past the shard size. Returns 0 or -errno
 * (-EFBIG: a sample a format cannot hold, e.g. an MDS shard past 4 GiB);
 * after an error only wl_shard_writer_close(w, false) is useful.
 */
int wl_shard_writer_add(struct wl_shard_writer *w,
			const struct wl_shard_sample *s);

/*
 * Ends the set: with KEEP_OPEN the open shard is completed (a normal end,
 * or a stop request whose samples are whole), else it is removed (after
 * an error). Then the complete shards are made a usable set: TFRecord
 * shards get their final names with the count of complete shards, MDS
 * gets index.json (written through a temporary name) listing them; then
 * one syncfs(). Returns 0 or -errno (the first failure; what was complete
 * before it stays).
 */
int wl_shard_writer_close(struct wl_shard_writer *w, bool keep_open);

/* Counts so far (complete shards only). */
void wl_shard_writer_stats(const struct wl_shard_writer *w,
			   struct wl_shard_stats *st);

/* The final name (inside the folder) of the file the last failure was
 * met on, "" when none. Owned by W. */
const char *wl_shard_writer_failed_name(const struct wl_shard_writer *w);

/* Frees W (NULL allowed); removes an open shard's temporary file when
 * wl_shard_writer_close was not called. */
void wl_shard_writer_destroy(struct wl_shard_writer *w);

/* write(2) all N bytes of BUF to FD (EINTR retried). 0 or -errno (-EIO
 * for a write that wrote nothing). */
int wl_write_all(int fd, const void *buf, size_t n);

/* V as an N-byte little-endian unsigned integer at P (N <= 8). */
static inline void wl_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Protocol buffers' varint: its length in bytes, and V written at P (the
 * byte after it returned). */
static inline size_t wl_pb_vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *wl_pb_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

#endif /* FEEDRATE_FMT_WRITE_H */
