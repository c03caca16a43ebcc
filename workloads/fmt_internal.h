/*
 * fmt_internal.h - each format's functions, called through the dispatch in
 * formats.c (and by the fuzz targets and tests). A format's scan_init is
 * called on a zeroed scanner whose fmt, max_record and mds the dispatch
 * has already set; it sets only the format's private state. The other
 * functions have the contracts of their wl_* counterparts in formats.h.
 */
#ifndef FEEDRATE_FMT_INTERNAL_H
#define FEEDRATE_FMT_INTERNAL_H

#include "formats.h"

/* ---- tar (fmt_tar.c) ---- */
void wl_tar_scan_init(struct wl_scanner *s);
int wl_tar_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec);
int wl_tar_walk_count(wl_pread_fn pread, void *arg, uint64_t size,
		      uint64_t max_record, uint64_t *count, uint64_t *err_off);
int wl_tar_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out);

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

/*
 * Find image/encoded (its first value) and image/class/label (its first
 * int64, packed or not) in the serialized tf.train.Example P (N bytes);
 * image/format, when present, sets image_kind. Reads nothing outside P.
 * Returns 0, -WL_EBADREC (malformed protobuf on the path to those
 * features) or -WL_ENOIMAGE (no non-empty image/encoded).
 */
int wl_pb_example_find(const uint8_t *p, size_t n, struct wl_sample_view *out);

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

#endif /* FEEDRATE_FMT_INTERNAL_H */
