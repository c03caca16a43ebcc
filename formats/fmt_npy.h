/*
 * fmt_npy.h - the .npy / .npz row of the format table (formats.c:
 * WL_FORMAT_NPY), reader and writer side by side: numpy's files read as a
 * training loader meets them (fmt_npy.c: a whole .npy, format versions
 * 1.0, 2.0 and 3.0, C order; fmt_zip.c: an .npz, a zip of .npy members
 * as numpy.savez / savez_compressed write it: STORED or DEFLATE, zip64
 * fields) and written as numpy writes them (the .npy header of
 * numpy.lib.format, the zip records of Python's zipfile).
 *
 * A file is one sample (the row states WL_CAP_FILES): there is no record
 * to cut, the payload is the array. wl_vol_open() unwraps it: the member
 * found, inflated (libdeflate, whole-buffer: the member's size is in the
 * central directory), CRC-checked, the header parsed; it hands the array
 * to augment/'s crop as a struct aug_vol_array. augment/ sits below this
 * folder and never sees a header or a zip: workloads/ (the volume
 * transform) calls wl_vol_open, then aug_vol_crop_f32.
 *
 * Every parser takes the bytes and their length and reads nothing past
 * them. On failure it returns one of augment's sample codes (-AUG_E*:
 * a damaged volume is counted as a damaged image is) and fills a struct
 * wl_vol_err: which fault (distinct for each kind of damage) and the byte
 * offset in the file where it was found.
 */
#ifndef FEEDRATE_FMT_NPY_H
#define FEEDRATE_FMT_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "augment.h"

/* What was wrong, with the -AUG_E* code each fault is returned with. */
enum wl_vol_fault {
	WL_VF_NONE = 0,
	WL_VF_NOT_NUMPY,        /* neither \x93NUMPY nor PK\3\4 (NOTJPEG) */
	WL_VF_NPY_VERSION,      /* format version not 1, 2, 3 (UNSUPPORTED) */
	WL_VF_NPY_HEADER,       /* the header dict does not parse, a key is
	                           missing or repeated (CORRUPT) */
	WL_VF_NPY_DTYPE,        /* a dtype other than |u1 |i1 <i2 <u2 <f4
	                           (UNSUPPORTED) */
	WL_VF_NPY_FORTRAN,      /* fortran_order True (UNSUPPORTED) */
	WL_VF_NPY_SHAPE,        /* a shape whose size overflows (CORRUPT) */
	WL_VF_NPY_SHORT,        /* fewer data bytes than the shape needs, or
	                           a header cut short (TRUNCATED) */
	WL_VF_ZIP_EOCD,         /* no end-of-central-directory record: the
	                           file is cut short (TRUNCATED) */
	WL_VF_ZIP_CDIR,         /* a central directory record, or the zip64
	                           end records, are wrong (CORRUPT) */
	WL_VF_ZIP_LOCAL,        /* a member's local header is wrong (CORRUPT) */
	WL_VF_ZIP_NO_MEMBER,    /* no member of that name / no .npy member
	                           (NOTJPEG) */
	WL_VF_ZIP_METHOD,       /* a method other than STORED and DEFLATE, or
	                           an encrypted member (UNSUPPORTED) */
	WL_VF_ZIP_TRUNCATED,    /* a member's data runs past the bytes or into
	                           the central directory (TRUNCATED) */
	WL_VF_DEFLATE,          /* the DEFLATE stream does not decode to the
	                           member's size (CORRUPT) */
	WL_VF_CRC,              /* the member's CRC-32 does not match (CORRUPT) */
	WL_VF_TOO_LARGE,        /* inflated size over the reader's cap
	                           (TOOLARGE) */
	WL_VF_DIMS,             /* fewer than 3 dimensions (UNSUPPORTED) */
	WL_VF_COUNT
};

/* "npy_dtype", "zip_cdir", ...: a short stable key; "?" when unknown. */
const char *wl_vol_fault_name(enum wl_vol_fault f);

struct wl_vol_err {
	enum wl_vol_fault fault;
	uint64_t off;           /* in the file's bytes; for a fault inside an
	                           inflated member: that member's data */
	uint64_t inner_off;     /* inside the inflated member (0 otherwise) */
};

/* ---- .npy (fmt_npy.c) ---- */

/* numpy 2's NPY_MAXDIMS (1.x: 32) */
#define WL_NPY_MAX_DIMS 64u

struct wl_npy {
	unsigned version;       /* 1, 2 or 3 */
	enum aug_vol_dtype dtype; /* numpy's descr '|u1' '|i1' '<i2' '<u2'
	                             '<f4' */
	unsigned itemsize;
	unsigned ndim;          /* 0 for a scalar */
	uint64_t shape[WL_NPY_MAX_DIMS];
	uint64_t data_off;      /* the first element, from the file's start */
	uint64_t data_bytes;    /* product(shape) x itemsize */
};

/*
 * Parses the .npy in BUF[0..LEN): magic, version, header length, the
 * header dict ('descr', 'fortran_order', 'shape' in any order, either
 * quote, trailing commas), and checks that data_off + data_bytes <= LEN.
 * 0, or -AUG_ENOTJPEG / -AUG_EUNSUPPORTED / -AUG_ECORRUPT /
 * -AUG_ETRUNCATED with *ERR (may be NULL) saying which and where. Pure:
 * any thread.
 */
int wl_npy_parse(const void *buf, size_t len, struct wl_npy *out,
		 struct wl_vol_err *err);

/* Room wl_npy_header needs. */
#define WL_NPY_HEADER_MAX 256u

/*
 * numpy.lib.format's version 1.0 header of a C-order array of ND (1 to 8)
 * dims SHAPE and element type DESCR (e.g. "<f4"), byte for byte as
 * numpy.save writes it: the dict with sorted keys, the spaces that leave
 * room for the first axis to grow to 21 digits, padding to 64 bytes,
 * '\n'. BUF holds WL_NPY_HEADER_MAX bytes; returns the header's length
 * (a multiple of 64). Pure: any thread.
 */
size_t wl_npy_header(uint8_t *buf, const char *descr, const uint64_t *shape,
		     unsigned nd);

/* ---- .npz: zip members (fmt_zip.c) ---- */

/* One member of a zip, from its central directory record. */
struct wl_zip_member {
	const uint8_t *name;    /* into the caller's bytes, not terminated */
	size_t name_len;
	uint16_t method;        /* 0 STORED, 8 DEFLATE */
	uint32_t crc;           /* CRC-32 of the uncompressed bytes */
	uint64_t csize, usize;  /* zip64 extra fields applied */
	uint64_t header_off;    /* its local header */
	uint64_t data_off;      /* its data: past the local header's own name
	                           and extra lengths */
};

/*
 * Finds member KEY + ".npy" (or KEY itself when it ends in .npy) in the
 * zip in BUF[0..LEN); KEY NULL or "": "x.npy" when present, else the first
 * member ending in .npy. Reads the end of central directory record (and
 * the zip64 locator and record), walks the central directory, takes sizes
 * and offsets from it (zip64 extra fields where a field is 0xFFFFFFFF),
 * checks the member's local header and that its data lies inside the
 * bytes before the central directory. Does not decompress. 0 or a -AUG_E*
 * code with *ERR (may be NULL). Pure: any thread.
 */
int wl_zip_find(const void *buf, size_t len, const char *key,
		struct wl_zip_member *out, struct wl_vol_err *err);

/* zip's CRC-32 (libdeflate's), continued from CRC (0 to start). */
uint32_t wl_zip_crc32(uint32_t crc, const void *buf, size_t len);

/*
 * The writer: the records of a STORED zip as Python's zipfile writes them
 * for numpy.savez (force_zip64: a zip64 extra field in every local
 * header; zip64 in the central record and end records only past
 * WL_ZIP64_LIMIT). Times are 1980-01-01 00:00, permissions rw-------.
 * The caller writes each member's local header, its bytes, then the
 * central records and the end records; the CRC is known only after the
 * bytes, so it is patched at WL_ZIP_LOCAL_CRC_AT in the local header.
 * Pure: any thread.
 */
#define WL_ZIP64_LIMIT ((1ull << 31) - 1)   /* Python's zipfile */
#define WL_ZIP_LOCAL_CRC_AT 14u
#define WL_ZIP_END_MAX (56u + 20u + 22u)

/* Local header of member NAME (NL bytes, at most 64) of SIZE bytes,
 * CRC 0, into L (30 + NL + 20 bytes); returns its length. */
size_t wl_zip_local(uint8_t *l, const char *name, size_t nl, uint64_t size);

/* Length of the central record of a member NL bytes long, of SIZE bytes,
 * whose local header is at OFF. */
size_t wl_zip_central_len(size_t nl, uint64_t size, uint64_t off);

/* That central record (and its zip64 extra) into C; returns its length. */
size_t wl_zip_central(uint8_t *c, const char *name, size_t nl, uint32_t crc,
		      uint64_t size, uint64_t off);

/* The end records of a zip of N members whose central directory (CD_LEN
 * bytes) starts at CD_OFF: the zip64 end record and locator when CD_OFF is
 * past WL_ZIP64_LIMIT, then the end of central directory, into END
 * (WL_ZIP_END_MAX bytes); returns their length. */
size_t wl_zip_end(uint8_t *end, uint64_t n, uint64_t cd_off, uint64_t cd_len);

/* ---- a volume file opened (fmt_npy.c) ---- */

/*
 * A per-worker volume reader: a libdeflate decompressor and one inflate
 * buffer, grown to the largest member inflated (at most MAX_INFLATE
 * bytes) and then reused. One thread at a time.
 */
struct wl_vol_reader;

/* MAX_INFLATE 0: WL_VOL_DEFAULT_MAX_INFLATE. 0 or -ENOMEM. */
#define WL_VOL_DEFAULT_MAX_INFLATE (2ull << 30)
int wl_vol_reader_create(uint64_t max_inflate, struct wl_vol_reader **out);
void wl_vol_reader_destroy(struct wl_vol_reader *r);

/* A file opened: its header, and the array as augment/ crops it. */
struct wl_vol_array {
	struct wl_npy npy;
	struct aug_vol_array arr; /* data in the caller's bytes (.npy, STORED
	                             member) or the reader's inflate buffer
	                             (valid until the next open) */
	uint64_t inflated;      /* bytes inflated to get it (0: in place) */
};

/*
 * Opens the .npy or .npz in BUF[0..LEN) (chosen by its magic: \x93NUMPY
 * or PK\3\4); for an .npz, member KEY as wl_zip_find picks it, inflated
 * into R's buffer when DEFLATEd and its CRC-32 checked either way (as
 * Python's zipfile does for numpy.load). The array needs at least 3 dims.
 * 0 or a -AUG_E* code (-ENOMEM) with *ERR (may be NULL).
 */
int wl_vol_open(struct wl_vol_reader *r, const void *buf, size_t len,
		const char *key, struct wl_vol_array *a,
		struct wl_vol_err *err);

#endif /* FEEDRATE_FMT_NPY_H */
