/*
 * augment.h - public interface of feedrate's augment module: turning the
 * bytes of a sample into a training tensor (JPEG or PNG decode, crop,
 * resize, flip, normalize), and the JPEG encoder the synthetic dataset
 * generator uses. Depends on libjpeg-turbo, libpng (with zlib) and zstd.
 */
#ifndef FEEDRATE_AUGMENT_H
#define FEEDRATE_AUGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ==== encoding ==== */
/*
 * JPEG encoding through libjpeg-turbo's libjpeg API, for the synthetic
 * dataset generator (workloads/) and for tests that need JPEG fixtures.
 */

/* Pixel layout of the encoder's input: interleaved 8-bit samples. */
enum aug_enc_pixfmt {
	AUG_ENC_RGB = 0,   /* 3 bytes per pixel, R G B */
	AUG_ENC_GRAY,      /* 1 byte per pixel; written as a 1-component JPEG */
	AUG_ENC_CMYK,      /* 4 bytes per pixel, stored as given with an Adobe
	                      marker. Producers of CMYK JPEGs (Photoshop) store
	                      inverted ink, so the convention is R = C*K/255,
	                      G = M*K/255, B = Y*K/255 on the stored bytes. */
};

/* Chroma subsampling of a colour JPEG (ignored for gray and CMYK). */
enum aug_enc_subsamp {
	AUG_ENC_444 = 0,   /* full-resolution chroma */
	AUG_ENC_422,       /* chroma halved horizontally */
	AUG_ENC_420,       /* chroma halved both ways (the common camera mode) */
};

struct aug_enc_params {
	int quality;                  /* 1..100, libjpeg's quality scaling */
	enum aug_enc_subsamp subsamp;
	bool progressive;             /* jpeg_simple_progression() scan script */
	bool optimize;                /* optimized Huffman tables (implied by
	                                 progressive); default tables otherwise */
};

/*
 * A caller-owned output buffer that the encoder grows with realloc().
 * Start it zeroed ({0}) or reuse one between calls: `len` is reset to 0 by
 * each encode, `data`/`cap` are kept, so a reused buffer stops allocating
 * once it has reached the largest size seen. Free it with aug_membuf_free().
 */
struct aug_membuf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* Frees the buffer's memory and zeroes it; accepts a zeroed buffer. */
void aug_membuf_free(struct aug_membuf *buf);

/*
 * Encode one image. `pixels` holds `height` rows of `width` pixels in
 * `fmt`, rows `stride` bytes apart (stride >= width * bytes per pixel).
 * On success returns 0 and out->data[0 .. out->len) is the complete JPEG
 * file. On failure returns -EINVAL (bad arguments or a libjpeg error),
 * -ENOMEM (the buffer could not grow) or -EOVERFLOW (dimensions beyond
 * JPEG's 65500 limit); out->len is 0, out stays owned by the caller and
 * nothing else is left allocated. Thread-safe: no shared state, so any
 * thread may call it with its own buffer.
 */
int aug_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
		    size_t stride, enum aug_enc_pixfmt fmt,
		    const struct aug_enc_params *params,
		    struct aug_membuf *out);
/* ==== end encoding ==== */

/* ==== decoding and augmentation ==== */
/*
 * The decoder picks the format by the file's first bytes, whatever its
 * name, as PIL does: FF D8 FF is JPEG, 89 'PNG' 0D 0A 1A 0A is PNG (real
 * ImageNet has a PNG named .JPEG). A file shorter than a signature that
 * matches its start is a truncated file of that format.
 *
 * JPEG settings, fixed on every path (full, ROI, DCT-scaled) so that
 * every comparison decodes the same way: accurate integer IDCT
 * (JDCT_ISLOW) and fancy (triangle) chroma upsampling — libjpeg's and
 * PIL's defaults. PNG decodes at full scale only; its pixels are PIL's
 * convert('RGB'): palettes looked up, grey replicated, alpha dropped,
 * 16-bit samples cut to their high byte (PIL keeps the high byte of 16-bit
 * colour too, but clips 16-bit grey to 255), ancillary chunks (gamma,
 * colour profiles, transparency) ignored. Output pixels are RGBX: 4 bytes
 * per pixel, X = 255.
 *
 * Threads: an aug_decoder or aug_ctx belongs to one thread at a time (one
 * per worker, reused for every sample). Nothing is shared between them.
 */

/*
 * Error codes of the augment module, returned negated like -errno
 * (-AUG_ECORRUPT); other failures are -errno.
 */
enum aug_error {
	AUG_ECORRUPT = 4001,      /* bad data inside the stream, or a libjpeg
	                             warning (bad Huffman code, hit marker);
	                             PNG: a bad critical chunk or CRC, bad
	                             zlib data */
	AUG_ETRUNCATED,           /* the stream ends early (or is empty) */
	AUG_EUNSUPPORTED,         /* valid JPEG we do not decode: 12-bit,
	                             lossless, unknown colour space */
	AUG_ETOOLARGE,            /* over the pixel cap, libjpeg's 65500 px
	                             limit, max_memory or the scan cap; PNG:
	                             a side over 1000000 px */
	AUG_ENOTJPEG,             /* starts with neither the JPEG nor the PNG
	                             signature (the name is historical) */
	AUG_EZSTD = 4101,         /* a zstd frame that does not decode */
};

/* Static text for a negative code: -AUG_E* or -errno; never NULL. */
const char *aug_strerror(int err);

/* Limits applied to every decoded file. */
struct aug_decoder_opts {
	uint64_t max_pixels;   /* width*height cap, checked on the header
	                          before any large allocation; default 100e6 */
	uint64_t max_memory;   /* libjpeg max_memory_to_use: caps the whole-
	                          image coefficient buffer of progressive
	                          files; default 1 GiB */
	unsigned max_scans;    /* progressive scans allowed; default 100 */
};

/* Fills *o with the defaults above. */
void aug_decoder_opts_default(struct aug_decoder_opts *o);

/* The colour model of a file, from its header (PNG: GRAY or RGB). */
enum aug_colorspace {
	AUG_CS_GRAY = 0, AUG_CS_YCBCR, AUG_CS_RGB, AUG_CS_CMYK, AUG_CS_YCCK,
	AUG_CS_OTHER,
};

/* The file format, from the file's first bytes. */
enum aug_format {
	AUG_FMT_JPEG = 0,   /* every scale_denom */
	AUG_FMT_PNG,        /* scale_denom 1 only */
};

struct aug_image_info {
	uint32_t width, height;         /* full-resolution size */
	int components;                 /* PNG: channels stored (palette 1) */
	enum aug_colorspace colorspace;
	bool progressive;               /* PNG: Adam7 interlaced */
	bool adobe;                     /* has an Adobe APP14 marker */
	enum aug_format format;
	/* JPEG: each component's sampling factors (up to 4; PNG: 0) */
	uint8_t h_samp[4], v_samp[4];
};

/* A window of an image, in the pixel coordinates of the decode scale. */
struct aug_rect {
	uint32_t x, y, w, h;
};

/*
 * 8-bit RGBX pixels: `height` rows of `width` pixels, rows `stride` bytes
 * apart. A view returned by the decoder points into the decoder's scratch
 * memory and stays valid until the next call on that decoder.
 */
struct aug_view {
	uint8_t *data;
	uint32_t width, height;
	size_t stride;
};

struct aug_decoder;

/*
 * Creates a decoder (opts NULL = defaults). The libjpeg decompressor is
 * created here once and reused for every image; scratch memory grows to
 * the largest window seen and is then reused. The PNG state is made at
 * the first PNG; libpng's own allocations come from an arena it keeps,
 * so PNGs too stop allocating once it has grown. 0 or -ENOMEM/-EINVAL.
 */
int aug_decoder_create(const struct aug_decoder_opts *opts,
		       struct aug_decoder **out);

/* Frees everything the decoder holds; accepts NULL. */
void aug_decoder_destroy(struct aug_decoder *d);

/*
 * Reads the header of the JPEG or PNG in buf[0..len) (which must stay
 * valid until aug_decoder_read or aug_decoder_close) and fills *info
 * (may be NULL). Checks the pixel cap. 0 or a -AUG_E* code / -ENOMEM (the
 * decoder is then closed again).
 */
int aug_decoder_open(struct aug_decoder *d, const void *buf, size_t len,
		     struct aug_image_info *info);

/*
 * Decodes window `roi` (NULL = whole image) of the opened image at scale
 * 1/scale_denom (1, 2, 4 or 8; the scaled image is aug_scaled_dim() of
 * the full size, and roi is in its coordinates), and closes the image.
 * A PNG takes scale 1 only; its ROI decode inflates the rows above the
 * window (into one spare row) and stops after the window's last row (an
 * interlaced file: after it in the last pass). JPEG ROI decode: columns
 * are cropped with jpeg_crop_scanline (libjpeg widens them to iMCU
 * boundaries; we widen one more pixel so that fancy upsampling sees the
 * same neighbours as in a full decode), rows above are skipped with
 * jpeg_skip_scanlines (still entropy-decoded, not IDCT'd), and decoding
 * stops after the last needed row. The view holds exactly `roi`, the
 * same pixels a full decode has there (either format). A stream damaged
 * only below the window is not seen (either format). Grayscale is
 * expanded to RGB; CMYK and YCCK are decoded to CMYK (libjpeg converts
 * neither to RGB) and converted here as PIL does: the stored bytes are
 * taken as inverted ink (Photoshop's, 255 = no ink), R = C*K/255 (same
 * for G/M, B/Y), with or without an Adobe APP14 marker. A libjpeg
 * warning makes it fail (-AUG_ETRUNCATED for a premature end, else
 * -AUG_ECORRUPT). 0 or a -AUG_E* code / -ENOMEM / -EINVAL (bad roi or
 * scale, or a scale other than 1 for a PNG).
 */
int aug_decoder_read(struct aug_decoder *d, const struct aug_rect *roi,
		     unsigned scale_denom, struct aug_view *out);

/* Abandons an opened image without decoding it; no-op when none is open. */
void aug_decoder_close(struct aug_decoder *d);

/* aug_decoder_open + aug_decoder_read in one call. */
int aug_decoder_decode(struct aug_decoder *d, const void *buf, size_t len,
		       const struct aug_rect *roi, unsigned scale_denom,
		       struct aug_view *out);

/* libjpeg's or libpng's text for the last error ("" if none). */
const char *aug_decoder_message(const struct aug_decoder *d);

/* Size of a dimension decoded at 1/denom: ceil(dim / denom), as libjpeg. */
uint32_t aug_scaled_dim(uint32_t dim, unsigned denom);

/* ---- crop parameters (torchvision RandomResizedCrop) ---- */

/* Per-sample random stream; same (seed, epoch, id) => same numbers. */
struct aug_rng {
	uint64_t s[4];
};

/* Seeds *r from (run seed, epoch, sample id) with splitmix64 mixing. */
void aug_rng_seed(struct aug_rng *r, uint64_t seed, uint64_t epoch,
		  uint64_t id);
/* Next 64 random bits (xoshiro256**). */
uint64_t aug_rng_next(struct aug_rng *r);
/* Uniform double in [0, 1), 53 bits. */
double aug_rng_uniform(struct aug_rng *r);

struct aug_rrc_opts {
	double scale_min, scale_max;   /* area fraction, default 0.08 .. 1 */
	double ratio_min, ratio_max;   /* w/h, default 3/4 .. 4/3 */
	unsigned tries;                /* default 10 */
};

void aug_rrc_opts_default(struct aug_rrc_opts *o);

/*
 * torchvision's RandomResizedCrop.get_params on a width x height image:
 * up to `tries` draws of area (uniform) and ratio (log-uniform), each
 * accepted when the rounded crop fits; else the centre crop clamped to the
 * ratio range. Rounding is half-to-even like Python's round(). Writes the
 * crop to *crop and returns 1 when it came from the fallback, else 0.
 */
int aug_rrc_params(const struct aug_rrc_opts *o, uint32_t width,
		   uint32_t height, struct aug_rng *rng,
		   struct aug_rect *crop);

/* ---- resize ---- */

/* Which vector kernels a context uses. */
enum aug_isa {
	AUG_ISA_AUTO = 0,   /* best the CPU supports, chosen at run time */
	AUG_ISA_PORTABLE,   /* plain C */
	AUG_ISA_SSE41,
	AUG_ISA_AVX2,       /* AVX2 + F16C */
};

/* Name of an ISA ("portable", "sse4.1", "avx2"); AUTO gives "auto". */
const char *aug_isa_name(enum aug_isa isa);
/* 1 if this CPU can run kernels for `isa`, else 0. */
int aug_isa_supported(enum aug_isa isa);

/* ---- output tensors ---- */

enum aug_dtype {
	AUG_DT_F32 = 0,  /* normalized: (x/255 - mean) / std */
	AUG_DT_F16,      /* the same, IEEE half, round to nearest even */
	AUG_DT_BF16,     /* the same, bfloat16, round to nearest even */
	AUG_DT_U8,       /* raw pixel values, no normalization */
};

enum aug_layout {
	AUG_LAYOUT_CHW = 0,   /* 3 planes of h*w */
	AUG_LAYOUT_HWC,       /* h*w pixels of 3 channels */
};

/* Bytes of one output element of `dt`. */
size_t aug_dtype_size(enum aug_dtype dt);

struct aug_params {
	uint32_t out_w, out_h;       /* train output size, default 224x224 */
	struct aug_rrc_opts rrc;
	double flip_p;               /* default 0.5 */
	float mean[3], std[3];       /* on 0..1 pixels; default ImageNet's
	                                (0.485 0.456 0.406) (0.229 0.224 0.225) */
	enum aug_dtype dtype;        /* default AUG_DT_F32 */
	enum aug_layout layout;      /* default AUG_LAYOUT_CHW */
	uint32_t eval_resize;        /* eval: short side, default 256 */
	uint32_t eval_crop;          /* eval: centre crop, default 224 */
	bool roi_decode;             /* decode only the crop; default true.
	                                Bit-exact with a full decode */
	bool dct_scale;              /* DCT-scaled decode (1/2, 1/4, 1/8)
	                                when the crop is >= 2x, 4x, 8x the
	                                output; default true. Not bit-exact
	                                with the full-resolution path: on
	                                photos ~1 level mean abs difference
	                                (p99 8) from PIL's crop + resize.
	                                JPEG only: a PNG is decoded at 1/1 */
	enum aug_isa isa;            /* default AUG_ISA_AUTO */
	struct aug_decoder_opts dec;
};

/* Fills *p with the defaults above (torchvision's ImageNet recipe). */
void aug_params_default(struct aug_params *p);

/*
 * Where the time of one sample went: CLOCK_MONOTONIC (a vDSO read, tens of
 * ns) in nanoseconds, so it includes time the thread was descheduled.
 */
struct aug_stats {
	uint64_t decode_ns;    /* header + decode of the window */
	uint64_t resize_ns;    /* coefficients + both resize passes (+flip) */
	uint64_t post_ns;      /* normalize, dtype and layout */
	uint64_t total_ns;
	uint32_t src_w, src_h;         /* full image size */
	struct aug_rect crop;          /* crop, full-resolution pixels */
	struct aug_rect decoded;       /* window decoded, decode-scale pixels */
	uint32_t scale_denom;          /* 1, 2, 4 or 8 */
	bool flipped;
	bool fallback;                 /* crop came from the centre fallback */
};

struct aug_ctx;

/*
 * Creates a per-worker context for `p` (NULL = defaults; the values are
 * copied). It owns a decoder, resize scratch and a cache of resize
 * coefficient tables; after warm-up a sample allocates nothing of its own
 * (libjpeg still uses its per-image pools). 0, -EINVAL (bad params),
 * -ENOTSUP (p->isa not supported by this CPU) or -ENOMEM.
 */
int aug_ctx_create(const struct aug_params *p, struct aug_ctx **out);

/* Frees the context; accepts NULL. */
void aug_ctx_destroy(struct aug_ctx *c);

/* The ISA the context's kernels use (never AUTO). */
enum aug_isa aug_ctx_isa(const struct aug_ctx *c);

/* The decoder inside the context (for its message text). */
struct aug_decoder *aug_ctx_decoder(struct aug_ctx *c);

/* Bytes one output sample occupies: 3 * out_w * out_h * dtype size. */
size_t aug_ctx_sample_bytes(const struct aug_ctx *c, bool eval);

/*
 * The training transform on one JPEG or PNG file in bytes[0..len):
 * RandomResizedCrop(out_w x out_h, bilinear with antialias) with a
 * per-sample RNG seeded from (seed, epoch, id) (the crop draws first, then
 * one uniform for the flip, p = flip_p), the flip folded into the resize,
 * then normalize/dtype/layout in one pass into
 * `out` (aug_ctx_sample_bytes(c, false) bytes, caller-owned). Results do
 * not depend on the thread or the order of calls. stats may be NULL.
 * 0 or a -AUG_E* code / -errno; on error `out` is unspecified.
 */
int aug_train_sample(struct aug_ctx *c, const void *bytes, size_t len,
		     uint64_t seed, uint64_t epoch, uint64_t id, void *out,
		     struct aug_stats *stats);

/*
 * The evaluation transform: resize the short side to eval_resize
 * (bilinear, antialias; the long side truncated like torchvision), centre
 * crop eval_crop x eval_crop, normalize/dtype/layout into `out`
 * (aug_ctx_sample_bytes(c, true) bytes). Only the window the crop needs
 * is decoded. stats may be NULL. 0 or an error as aug_train_sample.
 */
int aug_eval_sample(struct aug_ctx *c, const void *bytes, size_t len,
		    void *out, struct aug_stats *stats);

/*
 * Resizes a box of `src` (in src pixels, box x/y/w/h may be fractional)
 * to the whole of `dst`, as if `src` were cropped to the box first (no
 * pixel outside it contributes): bilinear, antialiased when shrinking
 * (the filter support grows with the scale, as PIL does), in 14-bit fixed
 * point. flip mirrors the result horizontally. dst must not overlap src.
 * Uses the context's kernels and coefficient cache. 0 or -EINVAL/-ENOMEM.
 */
int aug_resize(struct aug_ctx *c, const struct aug_view *src, double box_x,
	       double box_y, double box_w, double box_h,
	       const struct aug_view *dst, bool flip);

/*
 * Converts an RGBX image to the context's dtype and layout (normalizing
 * float types with the context's mean/std) into `out`, 3 * w * h
 * elements. Uses the context's kernels.
 */
void aug_convert(struct aug_ctx *c, const struct aug_view *src, void *out);

/* Mirrors an RGBX image left-right in place. */
void aug_flip_inplace(const struct aug_view *img);

/* IEEE half and bfloat16 conversions (round to nearest even). */
uint16_t aug_f32_to_f16(float f);
float aug_f16_to_f32(uint16_t h);
uint16_t aug_f32_to_bf16(float f);
float aug_bf16_to_f32(uint16_t h);
/* ==== end decoding and augmentation ==== */

/* ==== what a GPU decoder is handed (aug_gpudec.c) ==== */
/*
 * The CPU's share of DALI's "mixed" JPEG decoder (fn.decoders.image,
 * device="mixed"): what the host does before the GPU decodes, and the
 * bytes it hands the GPU. Two paths:
 *  - hw: the GPU has a hardware JPEG decoder (NVJPG). The host parses
 *    the headers (size, sampling, progressive or not) and stages the
 *    compressed bytes as they are. NVJPG takes baseline JPEG only (the
 *    nvJPEG documentation, docs.nvidia.com/cuda/nvjpeg, "Hardware
 *    acceleration for baseline JPEG decode"), so progressive files, and
 *    CMYK/YCCK ones, go down the hybrid path even then.
 *  - hybrid: nvJPEG's hybrid backend, where the host does the Huffman
 *    (entropy) decode of every scan and stages the quantized DCT
 *    coefficients and quantization tables for the GPU's dequantize and
 *    IDCT. The entropy decode here is libjpeg-turbo's
 *    jpeg_read_coefficients.
 * The random crop window and the flip are drawn on the host per sample,
 * exactly as aug_train_sample draws them (the GPU applies them).
 */

enum aug_gd_mode {
	AUG_GD_MODE_HW = 0,     /* baseline YCbCr/gray JPEGs take hw */
	AUG_GD_MODE_HYBRID,     /* every JPEG takes hybrid */
};

/* The path one sample took. */
enum aug_gd_path {
	AUG_GD_HW = 0,          /* compressed bytes staged */
	AUG_GD_HYBRID,          /* coefficients staged (asked) */
	AUG_GD_HYBRID_PROGRESSIVE, /* hw asked, progressive: hybrid */
	AUG_GD_HYBRID_CMYK,     /* hw asked, CMYK or YCCK: hybrid */
	AUG_GD_PATHS
};

/* "hw", "hybrid", "hybrid_progressive", "hybrid_cmyk"; "?" otherwise. */
const char *aug_gd_path_name(enum aug_gd_path p);

/* Chroma subsampling read from the sampling factors. */
enum aug_gd_subsamp {
	AUG_GD_SS_444 = 0, AUG_GD_SS_422, AUG_GD_SS_420, AUG_GD_SS_440,
	AUG_GD_SS_411, AUG_GD_SS_410, AUG_GD_SS_GRAY, AUG_GD_SS_OTHER,
};

/* "4:4:4" ... "gray", "other". */
const char *aug_gd_subsamp_name(enum aug_gd_subsamp s);

#define AUG_GD_MAGIC 0x4744u            /* "GD" */
#define AUG_GD_PROGRESSIVE 0x01u        /* desc flags */
#define AUG_GD_CMYK 0x02u
#define AUG_GD_FLIP 0x04u

/*
 * One sample's descriptor: the fixed part of its place in a batch. The
 * variable part (PAYLOAD_BYTES at PAYLOAD) lies in the batch's staging
 * area. hw: the file's bytes, unchanged. hybrid: for each component c in
 * order, its quantization table (64 uint16, natural order), then its
 * coefficient blocks, rows[c] rows of row_blocks[c] blocks of 64 int16
 * (natural order), as libjpeg holds them: the image's h_blocks[c] x
 * w_blocks[c] blocks at the top left, then, where the component's block
 * count is not a multiple of its sampling factor, the MCUs' padding
 * blocks (decoded where the stream carries them, else zero).
 */
struct aug_gd_desc {
	uint16_t magic;                 /* AUG_GD_MAGIC */
	uint8_t path;                   /* enum aug_gd_path */
	uint8_t subsamp;                /* enum aug_gd_subsamp */
	uint8_t components;
	uint8_t flags;                  /* AUG_GD_* */
	uint8_t h_samp[4], v_samp[4];
	uint32_t width, height;
	struct aug_rect crop;           /* full-resolution pixels */
	uint32_t w_blocks[4], h_blocks[4]; /* hybrid: blocks per component */
	uint32_t row_blocks[4], rows[4];   /* hybrid: as staged (>= those) */
	uint64_t payload_bytes;
	const uint8_t *payload;
};

/*
 * Where a sample's payload goes: N bytes of the batch's staging area,
 * or NULL when none can be had.
 */
typedef void *(*aug_gd_alloc_fn)(void *arg, size_t n);

/* Where the time of one sample went (CLOCK_MONOTONIC ns). */
struct aug_gd_stats {
	uint64_t parse_ns;              /* header parse, crop draw */
	uint64_t entropy_ns;            /* hybrid: jpeg_read_coefficients */
	uint64_t stage_ns;              /* copies into the staging area */
};

/*
 * The host's share for the JPEG in BUF[0..LEN) with decoder D (its
 * limits apply): parse, draw the crop and flip of sample ID (SEED,
 * EPOCH) with RRC and FLIP_P as aug_train_sample does, then stage the
 * payload of MODE's path (see enum aug_gd_path) through ALLOC into
 * *DESC. IN_PLACE: BUF already lies where the GPU takes it (read into
 * the batch's staging area): the hw path's payload is BUF itself, not
 * copied (the hybrid paths still stage through ALLOC). A PNG is -AUG_EUNSUPPORTED (GPU decoders take JPEG; *PNG set
 * true), other bytes -AUG_ENOTJPEG; a damaged stream as the decoder
 * says; -ENOBUFS when ALLOC gave nothing. ST may be NULL. One thread at
 * a time per D.
 */
int aug_gd_stage(struct aug_decoder *d, const void *buf, size_t len,
		 bool in_place, enum aug_gd_mode mode, const struct aug_rrc_opts *rrc,
		 double flip_p, uint64_t seed, uint64_t epoch, uint64_t id,
		 aug_gd_alloc_fn alloc, void *alloc_arg,
		 struct aug_gd_desc *desc, bool *png,
		 struct aug_gd_stats *st);

/*
 * The hybrid payload's size for the JPEG D has open (after
 * aug_decoder_open), and the entropy decode into it: reads every scan
 * with jpeg_read_coefficients straight into ALLOC's bytes (libjpeg's
 * coefficient arrays are laid out there; nothing is copied after), adds
 * the tables, fills DESC's block counts and payload, and closes the
 * image. ALLOC is called once, before the first scan is decoded (a
 * stream that fails later leaves its bytes unused). 0 or as
 * aug_decoder_read; -ENOBUFS when ALLOC gave nothing. *ENTROPY_NS (may
 * be NULL) gets the read's time.
 */
int aug_decoder_read_coefs(struct aug_decoder *d, aug_gd_alloc_fn alloc,
			   void *alloc_arg, struct aug_gd_desc *desc,
			   uint64_t *entropy_ns);
/* ==== end GPU decode ==== */


/* ---- zstd streams (aug_zstd.c) ---- */

/*
 * Streaming zstd decompression into a bounded buffer, for shards
 * compressed whole (.tar.zst, MDS .mds.zstd). One context per thread;
 * aug_zstd_reset() or aug_zstd_begin() before each stream. The context
 * allocates its frame window (up to libzstd's 128 MiB limit) on the first
 * stream that needs one, and keeps it.
 */
struct aug_zstd;

int aug_zstd_create(struct aug_zstd **out);
void aug_zstd_destroy(struct aug_zstd *z);
void aug_zstd_reset(struct aug_zstd *z);

/*
 * Reset Z for a new stream whose first input bytes are FIRST (LEN bytes),
 * that decompresses to TOTAL bytes (0: not known), into one buffer of
 * OUT_CAP bytes. Returns 1 when the first frame says its size, that size
 * is TOTAL (so the frame is the whole stream) and it fits: then every
 * aug_zstd_run of this stream must be given the same OUT and OUT_CAP, with
 * *OUT_POS where the last call left it (the buffer is written directly,
 * as one-shot decompression does); 0 otherwise (any buffer each call).
 */
int aug_zstd_begin(struct aug_zstd *z, const void *first, size_t len,
		   uint64_t total, uint64_t out_cap);

/*
 * Decompress from IN[*IN_POS .. IN_LEN) into OUT[*OUT_POS .. OUT_CAP),
 * advancing both positions as far as it can (stops when either side is
 * used up). Returns 0, or -AUG_EZSTD for a frame that does not decode.
 * Concatenated frames are one stream.
 */
int aug_zstd_run(struct aug_zstd *z, const void *in, size_t in_len,
		 size_t *in_pos, void *out, size_t out_cap, size_t *out_pos);

/* True when the input so far ended inside a frame (a stream cut short). */
bool aug_zstd_mid_frame(const struct aug_zstd *z);

/* ==== 3-D volumes: crops, log1p (aug_volume.c) ==== */
/*
 * A 3-D array in memory turned into a training crop. The arrays come
 * from formats/ (the .npy / .npz row, fmt_npy.h: wl_vol_open locates the
 * array in a file's bytes, inflating an .npz member); augment/ sees only
 * the array: element type, the last three dims, the first element.
 */

/* Element types cropped: numpy's '|u1' '|i1' '<i2' '<u2' '<f4'. */
enum aug_vol_dtype {
	AUG_VOL_U8 = 0, AUG_VOL_I8, AUG_VOL_I16, AUG_VOL_U16, AUG_VOL_F32,
};

/* An array ready to crop, C order, little-endian elements. */
struct aug_vol_array {
	enum aug_vol_dtype dtype;
	unsigned itemsize;      /* bytes per element (1, 2 or 4) */
	const uint8_t *data;    /* its first element (the caller's) */
	uint64_t dims[3];       /* D, H, W: the last three of the shape (the
	                           leading ones are taken at index 0); all 0
	                           for an array without elements */
};

/*
 * A per-worker crop context: the crop's scratch, grown to the largest
 * crop and then reused. One thread at a time.
 */
struct aug_vol;

/* 0 or -ENOMEM. */
int aug_vol_create(struct aug_vol **out);
void aug_vol_destroy(struct aug_vol *v);

/*
 * Where a crop lies on each axis (0 D, 1 H, 2 W): output index i reads
 * volume index start + i, or start + size - 1 - i when flipped; indices
 * outside [0, dim) read 0. start is in [0, dim - size] where the volume is
 * at least the crop, in [dim - size, 0] where it is smaller (the volume
 * then lies inside the crop, zeros around it).
 */
struct aug_vol_crop {
	uint32_t size[3];
	int64_t start[3];
	bool flip[3];
};

/*
 * Draws the crop of sample ID (epoch EPOCH, run seed SEED) on a volume of
 * DIMS: aug_rng_seed(seed, epoch, id), then start on axes 0, 1, 2, each
 * uniform over its range, then (when FLIP) one uniform per axis, flipped
 * when < 0.5. Pure: the same inputs give the same crop.
 */
void aug_vol_crop_draw(const uint64_t dims[3], const uint32_t size[3],
		       bool flip, uint64_t seed, uint64_t epoch, uint64_t id,
		       struct aug_vol_crop *out);

/* Where the time of one volume sample went (CLOCK_MONOTONIC ns). */
struct aug_vol_stats {
	uint64_t crop_ns;       /* rows copied (flipped) into the scratch */
	uint64_t convert_ns;    /* the scratch to f32 (0 for f32 arrays:
	                           copied straight into OUT) */
};

/*
 * Copies crop C of array A into OUT, size[0] x size[1] x size[2] floats
 * (C order), converting u8/i8/i16/u16 to float (values kept, no
 * normalisation); zeros where the crop lies outside the volume. Allocates
 * only when the scratch must grow. 0, -EINVAL (a zero size) or -ENOMEM.
 * ST may be NULL.
 */
int aug_vol_crop_f32(struct aug_vol *v, const struct aug_vol_array *a,
		     const struct aug_vol_crop *c, float *out,
		     struct aug_vol_stats *st);

/*
 * log(1 + x) of N little-endian int16 at SRC into OUT as float, the value
 * rounded from double precision; x < 0 (no count can be negative) is
 * taken as 0. Through a 65536-entry table (256 KiB) built once; any
 * thread.
 */
void aug_log1p_i16(const void *src, size_t n, float *out);

/* ==== end 3-D volumes ==== */

#endif /* FEEDRATE_AUGMENT_H */
