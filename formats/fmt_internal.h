/*
 * fmt_internal.h - each format's functions, called through the dispatch in
 * formats.c (and by the fuzz targets and tests). A format's scan_init is
 * called on a zeroed scanner whose fmt, max_record and mds the dispatch
 * has already set; it sets only the format's private state. The other
 * functions have the contracts of their wl_* counterparts in formats.h.
 */
#ifndef FEEDRATE_FMT_INTERNAL_H
#define FEEDRATE_FMT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats.h"

/* ---- tar (fmt_tar.c) ---- */

/*
 * How many bytes the tar scanner may need past a record of MAX_RECORD
 * bytes: it learns that a sample ended only from the next member's header,
 * which PAX / GNU long-name headers may precede. Those headers, their data
 * and the member's header together (a "chain") are at most this long, or
 * the chain is -WL_EBADHDR. A window that can hold max_record +
 * WL_TAR_CHAIN_MAX bytes from s->keep_from on always suffices.
 */
#define WL_TAR_CHAIN_MAX WL_SCAN_LOOKAHEAD

/* What a header is, by its type flag (as Python's tarfile, which
 * WebDataset reads with, takes them). */
enum wl_tar_kind {
	WL_TAR_FILE,        /* '0', '\0', '7': a regular file; a sample
	                       member when its name has a key */
	WL_TAR_NODATA,      /* '1'..'6', and '\0' whose name ends in '/' (an
	                       old-style directory): no data blocks follow,
	                       whatever the size field says */
	WL_TAR_PAX,         /* 'x', 'X': PAX records for the next member */
	WL_TAR_PAX_GLOBAL,  /* 'g': PAX records for the archive; ignored */
	WL_TAR_LONGNAME,    /* 'L': GNU; the data is the next member's name */
	WL_TAR_LONGLINK,    /* 'K': GNU; the next member's link target */
	WL_TAR_OTHER,       /* any other flag (GNU sparse 'S', volume label
	                       'V', ...): SIZE bytes of data, skipped */
};

enum wl_tar_magic {
	WL_TAR_V7 = 0,      /* no magic: pre-POSIX tar */
	WL_TAR_USTAR,       /* "ustar\0": POSIX, the prefix field is used */
	WL_TAR_GNU,         /* "ustar  \0": GNU; no prefix field */
};

/* One parsed 512-byte header, before PAX / GNU overrides. */
struct wl_tar_hdr {
	uint64_t size;          /* the size field (octal, or base-256) */
	enum wl_tar_kind kind;
	enum wl_tar_magic magic;
	uint8_t typeflag;       /* as stored */
	size_t name_len;
	char name[155 + 1 + 100 + 1]; /* ustar: prefix "/" name; else name;
	                                 NUL-terminated (names are bytes) */
};

/*
 * Parse the header block H. Returns 0 and fills OUT; 1 when H is all
 * zeros (the end of the archive; OUT untouched); -WL_EBADHDR when the
 * checksum (unsigned, or the signed sum old tars wrote) does not match or
 * the size or checksum field is not a number (a negative base-256 size
 * included). Pure: any thread.
 */
int wl_tar_header_parse(const uint8_t h[512], struct wl_tar_hdr *out);

/* Reset S's format state (pos, key, u[], keep_from, err_off, records);
 * fmt, max_record and mds are the caller's. */
void wl_tar_scan_init(struct wl_scanner *s);

/*
 * wl_scan_next() for WebDataset tar: a record is a run of consecutive
 * regular members sharing a key (webdataset's base_plus_ext), from the
 * first header of the run (PAX / GNU headers before it included) to the
 * end of the last member's padded data; non-members inside a run belong
 * to it. Keeps its place in S: no byte is parsed twice except a PAX / GNU
 * header whose data was not yet in the window. Returns as wl_scan_next();
 * -EINVAL when the window starts past s->keep_from. Errors stay: later
 * calls return the same error.
 */
int wl_tar_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec);

/* wl_walk_count() for WebDataset tar: the scanner's rules through PREAD,
 * one read (of up to 4 KiB) per member header, which usually takes in the
 * PAX header before it. Returns 0, -WL_E* (with *ERR_OFF), -ENOMEM, or
 * PREAD's -errno (-EIO when it returns short before SIZE). */
int wl_tar_walk_count(wl_pread_fn pread, void *arg, uint64_t size,
		      uint64_t max_record, uint64_t *count, uint64_t *err_off);

/* wl_unwrap() for WebDataset tar: the first member whose extension (all
 * of it, after the first dot of the name) is jpg, jpeg, png or webp in any
 * case is the image; a cls member holds the label as a decimal integer
 * (whitespace around it allowed; anything else is -WL_EBADREC). Returns
 * 0, -WL_ENOIMAGE, or -WL_EBADHDR / -WL_ETRUNCREC for a record that is not
 * a run of whole tar members. */
int wl_tar_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out);

/* wl_tar_unwrap with the payload the first member whose extension is KEY
 * (any case; NULL: the image extensions). */
int wl_tar_unwrap_key(const uint8_t *rec, size_t len, const char *key,
		      struct wl_sample_view *out);

/* ---- tfrecord (fmt_tfrecord.c) ---- */

/*
 * Framing: uint64 length (LE), uint32 masked CRC-32C of those 8 bytes,
 * the data, uint32 masked CRC-32C of the data. The scanner checks the
 * length's CRC (a mismatch is -WL_ECRC and loses the rest of the file:
 * nothing else says where the next record starts); the data's CRC is the
 * unwrap's (-WL_ECRC loses that record only).
 */
void wl_tfr_scan_init(struct wl_scanner *s);
int wl_tfr_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec);
int wl_tfr_walk_count(wl_pread_fn pread, void *arg, uint64_t size,
		      uint64_t max_record, uint64_t *count, uint64_t *err_off);
int wl_tfr_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out);
/* The records of a shard of SHARD_SIZE bytes by its DALI index TEXT. */
int wl_tfr_idx_count(const char *text, size_t len, uint64_t shard_size,
		     uint64_t *count);
/* ... with the payload the feature KEY (NULL or "": image/encoded). */
int wl_tfr_unwrap_key(const uint8_t *rec, size_t len, const char *key,
		      struct wl_sample_view *out);

/*
 * Find image/encoded (its first value) and image/class/label (its first
 * int64, packed or not) in the serialized tf.train.Example P (N bytes);
 * image/format, when present, sets image_kind. Reads nothing outside P.
 * Returns 0, -WL_EBADREC (malformed protobuf on the path to those
 * features) or -WL_ENOIMAGE (no non-empty image/encoded).
 */
int wl_pb_example_find(const uint8_t *p, size_t n, struct wl_sample_view *out);

/* wl_pb_example_find with the payload the feature KEY (NULL or "":
 * image/encoded): its first bytes value; -WL_ENOIMAGE without one. */
int wl_pb_example_find_key(const uint8_t *p, size_t n, const char *key,
			   struct wl_sample_view *out);

/* ---- mds (fmt_mds.c) ---- */

/*
 * The scanner reads the shard header (uint32 n, uint32 offsets[n + 1])
 * as it streams past, then cuts each sample at the length its own column
 * sizes give, since a bounded window cannot keep the header beside the
 * samples; a checksum of the offsets on both sides proves at the end that
 * the cuts were the header's.
 */
void wl_mds_scan_init(struct wl_scanner *s);
int wl_mds_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec);

/*
 * Decode the column sizes of sample P (N bytes) of shard SH and find its
 * image (column SH->image_col) and label (SH->label_col: int, str or a
 * dynamic ndarray of integers). Bytes past the last column are ignored, as
 * the Python reader does. Returns 0, -WL_EBADREC (the sizes reach past N,
 * a label that does not parse) or -WL_ENOIMAGE (no image column, or an
 * empty one).
 */
int wl_mds_sample_parse(const struct wl_mds_shard *sh, const uint8_t *p,
			size_t n, struct wl_sample_view *out);

/*
 * wl_mds_sample_parse with the payload the column named KEY (NULL or "":
 * the image column; no such column: -WL_ENOIMAGE). An ndarray column
 * ("ndarray", "ndarray:DTYPE", "ndarray:DTYPE:SHAPE") gives its values
 * only, their type in elem_type; bytes that are not such an array are
 * -WL_EBADREC.
 */
int wl_mds_sample_parse_key(const struct wl_mds_shard *sh, const char *key,
			    const uint8_t *p, size_t n,
			    struct wl_sample_view *out);

/* ---- tokens (fmt_tokens.c; tokens.h has the rest) ---- */

/* A tokens scanner before wl_tok_scan_setup: uint16 tokens from byte 0,
 * windows of WL_TOK_DEFAULT_SEQ_LEN + 1 while bytes come. */
void wl_tok_scan_init(struct wl_scanner *s);
int wl_tok_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec);
/* A window is its tokens whole: the payload is the record. */
int wl_tok_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out);

/* The N-byte little-endian unsigned integer at P (N <= 8). */
static inline uint64_t wl_le_n(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

#endif /* FEEDRATE_FMT_INTERNAL_H */
