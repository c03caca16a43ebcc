/*
 * aug_decode.c - the decoder: picks JPEG or PNG by the file's first bytes;
 * JPEG decoding through libjpeg-turbo's libjpeg API: full, ROI (crop
 * window) and DCT-scaled, into RGBX (PNG: aug_png.c).
 *
 * DESIGN: an aug_decoder is used by one thread at a time. It creates its
 * jpeg_decompress_struct once and reuses it: each image ends with
 * jpeg_abort_decompress() (frees libjpeg's per-image pool, keeps the
 * permanent one: error manager hooks, memory source). Scratch (pixel rows,
 * row pointers) only grows. libjpeg reports errors through error_exit and
 * warnings through emit_message(-1); both longjmp back to the public call
 * that is running, which aborts the image and returns a code. A progress
 * monitor stops files with too many progressive scans.
 * aug_decoder_read_coefs has libjpeg's coefficient arrays (its "virtual
 * arrays", requested through the memory manager's method table) laid
 * out in the caller's staging memory, so the entropy decoder writes the
 * payload where the GPU takes it: no per-image array allocation, no copy.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "aug_internal.h"

/* Pixels of slack after every row and after the buffer (kernels' reads). */
#define DEC_ROW_SLACK 8

struct aug_decoder {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	struct jpeg_progress_mgr progress;
	jmp_buf jump;
	int code;                 /* error to return after the longjmp */
	bool created;             /* cinfo exists */
	bool open;                /* an image's header has been read */
	enum aug_format fmt;      /* of the open image */
	uint32_t width, height;   /* of the open image */
	struct aug_decoder_opts opts;
	struct aug_png *png;      /* made at the first PNG */
	struct aug_rows rows;     /* decoded rows, both formats */
	char msg[JMSG_LENGTH_MAX];
	/* aug_decoder_read_coefs: libjpeg's own array methods, and the
	 * arrays laid out in the staging memory while a read runs */
	struct jpeg_memory_mgr mem;
	struct dec_coef_arr *arrs;      /* in JPOOL_IMAGE, component order */
	int narrs;
	bool direct;                    /* arrays go to the staging memory */
	aug_gd_alloc_fn alloc;
	void *alloc_arg;
	uint8_t *staged;                /* the payload, once realized */
	uint64_t staged_bytes;
};

/* One coefficient array in the staging memory (libjpeg's bookkeeping for
 * a virtual array, for arrays that always lie whole in memory). */
struct dec_coef_arr {
	JBLOCKARRAY rows;               /* row pointers into the payload */
	JDIMENSION blocks_per_row, nrows, maxaccess;
	JDIMENSION first_undef_row;     /* rows below were written/zeroed */
	boolean pre_zero;
	struct dec_coef_arr *next;
};

/* The files' first bytes: JPEG's SOI and the next marker's FF, as PIL. */
static const uint8_t dec_jpeg_sig[3] = { 0xff, 0xd8, 0xff };
static const uint8_t dec_png_sig[8] = {
	0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a,
};

void aug_decoder_opts_default(struct aug_decoder_opts *o)
{
	o->max_pixels = 100000000u;
	o->max_memory = 1ull << 30;
	o->max_scans = 100;
}

uint32_t aug_scaled_dim(uint32_t dim, unsigned denom)
{
	return denom ? (uint32_t)(((uint64_t)dim + denom - 1) / denom) : 0;
}

const char *aug_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -AUG_ECORRUPT:
		return "corrupt image data";
	case -AUG_ETRUNCATED:
		return "truncated image file";
	case -AUG_EUNSUPPORTED:
		return "unsupported JPEG variant";
	case -AUG_ETOOLARGE:
		return "image too large (pixel, memory or scan limit)";
	case -AUG_ENOTJPEG:
		return "not a JPEG or PNG file";
	case -AUG_EZSTD:
		return "zstd frame does not decode";
	default:
		return err < 0 && err > -4096 ? strerror(-err) :
			"unknown error";
	}
}

/* Maps a libjpeg error or warning code to a -AUG_E* code. */
static int dec_map_code(int msg_code)
{
	switch (msg_code) {
	case JERR_NO_SOI:
		return -AUG_ENOTJPEG;
	case JERR_INPUT_EMPTY:
	case JERR_INPUT_EOF:
	case JWRN_JPEG_EOF:
		return -AUG_ETRUNCATED;
	case JERR_IMAGE_TOO_BIG:
	case JERR_WIDTH_OVERFLOW:
	case JERR_OUT_OF_MEMORY:
	case JERR_NO_BACKING_STORE:
	case JERR_TFILE_CREATE:
		return -AUG_ETOOLARGE;
	case JERR_ARITH_NOTIMPL:
	case JERR_BAD_PRECISION:
	case JERR_CCIR601_NOTIMPL:
	case JERR_COMPONENT_COUNT:
	case JERR_CONVERSION_NOTIMPL:
	case JERR_FRACT_SAMPLE_NOTIMPL:
	case JERR_NOTIMPL:
	case JERR_NOT_COMPILED:
	case JERR_SOF_UNSUPPORTED:
	case JERR_EMPTY_IMAGE:
		return -AUG_EUNSUPPORTED;
	default:
		return -AUG_ECORRUPT;
	}
}

static struct aug_decoder *dec_of(j_common_ptr cinfo)
{
	/* cinfo is the first member */
	_Static_assert(offsetof(struct aug_decoder, cinfo) == 0, "layout");
	return (struct aug_decoder *)(void *)cinfo;
}

static void dec_error_exit(j_common_ptr cinfo)
{
	struct aug_decoder *d = dec_of(cinfo);

	if (d->code == 0)
		d->code = dec_map_code(cinfo->err->msg_code);
	cinfo->err->format_message(cinfo, d->msg);
	longjmp(d->jump, 1);
}

/*
 * Warnings (level -1) mean the pixels are not what the file meant: a
 * premature end filled with grey, a bad Huffman code, a marker inside the
 * data. The sample fails. Warnings that leave the pixels as the file
 * meant them are ignored, as PIL and training pipelines do: metadata ones
 * (unknown JFIF revision, bad ICC marker, unknown Adobe transform code),
 * stray bytes between segments before a marker (common in real ImageNet
 * files), and an odd but complete progression; so are trace messages
 * (level >= 0).
 */
static void dec_emit_message(j_common_ptr cinfo, int level)
{
	int code = cinfo->err->msg_code;

	if (level >= 0 || code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC ||
	    code == JWRN_ADOBE_XFORM || code == JWRN_EXTRANEOUS_DATA ||
	    code == JWRN_BOGUS_PROGRESSION)
		return;
	dec_error_exit(cinfo);
}

static void dec_output_message(j_common_ptr cinfo)
{
	(void)cinfo;
}

/* Called per iMCU row of each scan while a multi-scan file is read. */
static void dec_progress(j_common_ptr cinfo)
{
	struct aug_decoder *d = dec_of(cinfo);
	j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;

	if (dinfo->input_scan_number > (int)d->opts.max_scans) {
		d->code = -AUG_ETOOLARGE;
		snprintf(d->msg, sizeof(d->msg),
			 "more than %u progressive scans", d->opts.max_scans);
		longjmp(d->jump, 1);
	}
}

/*
 * The memory manager's virtual-array methods, replaced while
 * aug_decoder_read_coefs runs (d->direct): jdcoefct.c requests one block
 * array per component, in component order, realizes them, then reaches
 * them a band of rows at a time. Outside such a read libjpeg's own run.
 */
static jvirt_barray_ptr dec_request_barray(j_common_ptr cinfo, int pool_id,
					   boolean pre_zero,
					   JDIMENSION blocksperrow,
					   JDIMENSION numrows,
					   JDIMENSION maxaccess)
{
	struct aug_decoder *d = dec_of(cinfo);
	struct dec_coef_arr *a, **tail;

	if (!d->direct)
		return d->mem.request_virt_barray(cinfo, pool_id, pre_zero,
						  blocksperrow, numrows,
						  maxaccess);
	if (pool_id != JPOOL_IMAGE || d->narrs >= 4)
		ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
	a = d->mem.alloc_small(cinfo, JPOOL_IMAGE, sizeof(*a));
	memset(a, 0, sizeof(*a));
	a->blocks_per_row = blocksperrow;
	a->nrows = numrows;
	a->maxaccess = maxaccess;
	a->pre_zero = pre_zero;
	for (tail = &d->arrs; *tail; tail = &(*tail)->next)
		;
	*tail = a;
	d->narrs++;
	return (jvirt_barray_ptr)(void *)a;
}

/* Lays the arrays out in ALLOC's memory: per component its quantization
 * table's room (filled after the read), then its rows. */
static void dec_realize_arrays(j_common_ptr cinfo)
{
	struct aug_decoder *d = dec_of(cinfo);
	uint64_t total = 0;
	uint8_t *p;

	if (d->direct && d->arrs && !d->staged) {
		for (struct dec_coef_arr *a = d->arrs; a; a = a->next)
			total += DCTSIZE2 * sizeof(uint16_t) +
				 (uint64_t)a->blocks_per_row * a->nrows *
				 sizeof(JBLOCK);
		if (total > d->opts.max_memory)
			ERREXIT(cinfo, JERR_NO_BACKING_STORE);
		p = total <= SIZE_MAX ?
		    d->alloc(d->alloc_arg, (size_t)total) : NULL;
		if (!p) {
			d->code = -ENOBUFS;
			ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
		}
		d->staged = p;
		d->staged_bytes = total;
		for (struct dec_coef_arr *a = d->arrs; a; a = a->next) {
			const size_t row = (size_t)a->blocks_per_row *
					   sizeof(JBLOCK);

			p += DCTSIZE2 * sizeof(uint16_t);
			a->rows = d->mem.alloc_small(cinfo, JPOOL_IMAGE,
						     sizeof(JBLOCKROW) *
						     (a->nrows ? a->nrows : 1));
			for (JDIMENSION r = 0; r < a->nrows; r++) {
				a->rows[r] = (JBLOCKROW)(void *)p;
				p += row;
			}
		}
	}
	d->mem.realize_virt_arrays(cinfo);
}

static bool dec_is_ours(const struct aug_decoder *d, const void *ptr)
{
	for (const struct dec_coef_arr *a = d->arrs; a; a = a->next)
		if ((const void *)a == ptr)
			return true;
	return false;
}

/* libjpeg's access rules (jmemmgr.c): rows are zeroed, when asked, the
 * first time a band reaches them; reading rows never written fails. */
static JBLOCKARRAY dec_access_barray(j_common_ptr cinfo,
				     jvirt_barray_ptr ptr,
				     JDIMENSION start_row,
				     JDIMENSION num_rows, boolean writable)
{
	struct aug_decoder *d = dec_of(cinfo);
	struct dec_coef_arr *a = (struct dec_coef_arr *)(void *)ptr;
	const JDIMENSION end_row = start_row + num_rows;

	if (!d->direct || !dec_is_ours(d, ptr))
		return d->mem.access_virt_barray(cinfo, ptr, start_row,
						 num_rows, writable);
	if (!a->rows || end_row > a->nrows || end_row < start_row ||
	    num_rows > a->maxaccess)
		ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
	if (a->first_undef_row < end_row) {
		JDIMENSION undef = a->first_undef_row;

		if (undef < start_row) {
			if (writable)
				ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
			undef = start_row;
		}
		if (writable)
			a->first_undef_row = end_row;
		if (a->pre_zero)
			memset(a->rows[undef], 0, (size_t)(end_row - undef) *
			       a->blocks_per_row * sizeof(JBLOCK));
		else if (!writable)
			ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
	}
	return a->rows + start_row;
}

/* Forgets the arrays of the last read (their memory is libjpeg's image
 * pool, freed when the image ends). */
static void dec_direct_end(struct aug_decoder *d)
{
	d->direct = false;
	d->arrs = NULL;
	d->narrs = 0;
	d->staged = NULL;
	d->staged_bytes = 0;
}

int aug_decoder_create(const struct aug_decoder_opts *opts,
		       struct aug_decoder **out)
{
	struct aug_decoder *d;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (opts)
		d->opts = *opts;
	else
		aug_decoder_opts_default(&d->opts);
	if (d->opts.max_scans == 0 || d->opts.max_pixels == 0) {
		free(d);
		return -EINVAL;
	}
	d->cinfo.err = jpeg_std_error(&d->jerr);
	d->jerr.error_exit = dec_error_exit;
	d->jerr.emit_message = dec_emit_message;
	d->jerr.output_message = dec_output_message;
	if (setjmp(d->jump)) {
		/* only JERR_OUT_OF_MEMORY can happen while creating */
		if (d->created)
			jpeg_destroy_decompress(&d->cinfo);
		free(d);
		return -ENOMEM;
	}
	jpeg_create_decompress(&d->cinfo);
	d->created = true;
	d->cinfo.mem->max_memory_to_use =
		d->opts.max_memory > (uint64_t)LONG_MAX ?
			LONG_MAX : (long)d->opts.max_memory;
	d->mem = *d->cinfo.mem;
	d->cinfo.mem->request_virt_barray = dec_request_barray;
	d->cinfo.mem->realize_virt_arrays = dec_realize_arrays;
	d->cinfo.mem->access_virt_barray = dec_access_barray;
	d->progress.progress_monitor = dec_progress;
	d->cinfo.progress = &d->progress;
	*out = d;
	return 0;
}

void aug_decoder_destroy(struct aug_decoder *d)
{
	if (!d)
		return;
	if (d->created)
		jpeg_destroy_decompress(&d->cinfo);
	aug_png_destroy(d->png);
	free(d->rows.pix);
	free(d->rows.row);
	free(d);
}

const struct aug_png *aug_decoder_png(const struct aug_decoder *d)
{
	return d->png;
}

const char *aug_decoder_message(const struct aug_decoder *d)
{
	return d->msg;
}

void aug_decoder_close(struct aug_decoder *d)
{
	if (d->open) {
		if (d->fmt == AUG_FMT_PNG)
			aug_png_close(d->png);
		else
			jpeg_abort_decompress(&d->cinfo);
		d->open = false;
	}
}

static enum aug_colorspace dec_colorspace(J_COLOR_SPACE cs)
{
	switch (cs) {
	case JCS_GRAYSCALE:
		return AUG_CS_GRAY;
	case JCS_YCbCr:
		return AUG_CS_YCBCR;
	case JCS_RGB:
		return AUG_CS_RGB;
	case JCS_CMYK:
		return AUG_CS_CMYK;
	case JCS_YCCK:
		return AUG_CS_YCCK;
	default:
		return AUG_CS_OTHER;
	}
}

/*
 * 1 if buf[0..len) starts with sig, or is shorter and matches it as far
 * as it goes (a truncated file of that format).
 */
static bool dec_starts_with(const uint8_t *buf, size_t len,
			    const uint8_t *sig, size_t sig_len)
{
	return memcmp(buf, sig, len < sig_len ? len : sig_len) == 0;
}

static int dec_open_png(struct aug_decoder *d, const void *buf, size_t len,
			struct aug_image_info *info)
{
	int err = 0;

	if (!d->png)
		err = aug_png_create(d->msg, sizeof(d->msg), &d->png);
	if (!err)
		err = aug_png_open(d->png, buf, len, d->opts.max_pixels, info);
	if (err)
		return err;
	d->fmt = AUG_FMT_PNG;
	d->open = true;
	return 0;
}

static int dec_open_jpeg(struct aug_decoder *d, const void *buf, size_t len,
			 struct aug_image_info *info)
{
	j_decompress_ptr ci = &d->cinfo;

	if (len > (size_t)(unsigned long)-1)
		return -AUG_ETOOLARGE;
	if (setjmp(d->jump)) {
		jpeg_abort_decompress(ci);
		d->open = false;
		return d->code;
	}
	d->fmt = AUG_FMT_JPEG;
	d->open = true;
	jpeg_mem_src(ci, (const unsigned char *)buf, (unsigned long)len);
	jpeg_read_header(ci, TRUE);
	if ((uint64_t)ci->image_width * ci->image_height > d->opts.max_pixels) {
		snprintf(d->msg, sizeof(d->msg),
			 "%ux%u is over the %llu pixel cap", ci->image_width,
			 ci->image_height,
			 (unsigned long long)d->opts.max_pixels);
		jpeg_abort_decompress(ci);
		d->open = false;
		return -AUG_ETOOLARGE;
	}
	if (info) {
		info->width = ci->image_width;
		info->height = ci->image_height;
		info->components = ci->num_components;
		info->colorspace = dec_colorspace(ci->jpeg_color_space);
		info->progressive = ci->progressive_mode;
		info->adobe = ci->saw_Adobe_marker;
		info->format = AUG_FMT_JPEG;
		for (int c = 0; c < 4; c++) {
			const bool in = c < ci->num_components;

			info->h_samp[c] = in ? (uint8_t)
				ci->comp_info[c].h_samp_factor : 0;
			info->v_samp[c] = in ? (uint8_t)
				ci->comp_info[c].v_samp_factor : 0;
		}
	}
	return 0;
}

int aug_decoder_open(struct aug_decoder *d, const void *buf, size_t len,
		     struct aug_image_info *info)
{
	struct aug_image_info tmp;
	int err;

	aug_decoder_close(d);
	d->code = 0;
	d->msg[0] = '\0';
	if (len == 0) {
		snprintf(d->msg, sizeof(d->msg), "empty file");
		return -AUG_ETRUNCATED;
	}
	if (!info)
		info = &tmp;
	if (dec_starts_with(buf, len, dec_jpeg_sig, sizeof(dec_jpeg_sig)))
		err = dec_open_jpeg(d, buf, len, info);
	else if (dec_starts_with(buf, len, dec_png_sig, sizeof(dec_png_sig))) {
		memset(info->h_samp, 0, sizeof(info->h_samp));
		memset(info->v_samp, 0, sizeof(info->v_samp));
		err = dec_open_png(d, buf, len, info);
	}
	else {
		snprintf(d->msg, sizeof(d->msg), "starts with neither the JPEG "
			 "nor the PNG signature");
		return -AUG_ENOTJPEG;
	}
	if (!err) {
		d->width = info->width;
		d->height = info->height;
	}
	return err;
}

/*
 * CMYK to RGB on `n` pixels in place. Adobe (Photoshop) files store
 * inverted ink, 255 = no ink: R = C'K'/255 on the stored C', K'. PIL reads
 * every CMYK JPEG that way (its "assume adobe conventions"), marker or
 * not, so this does too: a file without the marker that meant plain ink
 * comes out as the negative, in both. The division rounds like PIL's
 * (x + 128 + ((x + 128) >> 8)) >> 8, which gives the same bytes as PIL's
 * K - C*K/255 on the un-inverted values.
 */
static void dec_cmyk_to_rgbx(uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, p += 4) {
		unsigned k = p[3];

		for (int c = 0; c < 3; c++) {
			unsigned t = p[c] * k + 128;

			p[c] = (uint8_t)((t + (t >> 8)) >> 8);
		}
		p[3] = 255;
	}
}

size_t aug_rows_stride(uint32_t width)
{
	return ((size_t)(width + DEC_ROW_SLACK) * 4 + 63) & ~(size_t)63;
}

int aug_rows_reserve(struct aug_rows *r, size_t stride, uint32_t n)
{
	int err = aug_scratch_reserve((void **)&r->pix, &r->pix_cap,
				      stride * n + DEC_ROW_SLACK * 4);

	if (err)
		return err;
	if (r->row_cap < n) {
		uint8_t **p = realloc(r->row, sizeof(*p) * n);

		if (!p)
			return -ENOMEM;
		r->row = p;
		r->row_cap = n;
	}
	for (uint32_t i = 0; i < n; i++)
		r->row[i] = r->pix + stride * i;
	return 0;
}

/* The JPEG part of aug_decoder_read: window [x0, x1) x [y0, y1). */
static int dec_read_jpeg(struct aug_decoder *d, uint32_t x0, uint32_t y0,
			 uint32_t x1, uint32_t y1, unsigned scale_denom,
			 struct aug_view *out)
{
	j_decompress_ptr ci = &d->cinfo;
	uint32_t sw, sh, cx;
	JDIMENSION xoff, cw;
	size_t stride;
	bool cmyk;
	int err;

	if (setjmp(d->jump)) {
		jpeg_abort_decompress(ci);
		d->open = false;
		return d->code;
	}
	sw = aug_scaled_dim(ci->image_width, scale_denom);
	sh = aug_scaled_dim(ci->image_height, scale_denom);
	cmyk = ci->jpeg_color_space == JCS_CMYK ||
	       ci->jpeg_color_space == JCS_YCCK;
	ci->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBX;
	ci->dct_method = JDCT_ISLOW;
	ci->do_fancy_upsampling = TRUE;
	ci->scale_num = 1;
	ci->scale_denom = scale_denom;
	jpeg_start_decompress(ci);
	if (ci->output_width != sw || ci->output_height != sh ||
	    ci->output_components != 4) {
		snprintf(d->msg, sizeof(d->msg), "unexpected output geometry");
		jpeg_abort_decompress(ci);
		d->open = false;
		return -AUG_EUNSUPPORTED;
	}

	/*
	 * One extra pixel each side: fancy upsampling of a cropped row
	 * replicates the edge chroma sample, where a full decode would use
	 * the neighbour, so the outermost decoded column may differ.
	 */
	xoff = x0 > 0 ? x0 - 1 : 0;
	cw = (x1 < sw ? x1 + 1 : sw) - xoff;
	if (xoff != 0 || cw != sw)
		jpeg_crop_scanline(ci, &xoff, &cw);
	cx = x0 - xoff;

	/* rows above y0 are skipped (entropy-decoded only) */
	if (y0 > 0) {
		JDIMENSION skipped = jpeg_skip_scanlines(ci, y0);

		if (skipped != y0) {
			snprintf(d->msg, sizeof(d->msg), "skip fell short");
			jpeg_abort_decompress(ci);
			d->open = false;
			return -AUG_ECORRUPT;
		}
	}

	stride = aug_rows_stride(cw);
	err = aug_rows_reserve(&d->rows, stride, y1 - y0);
	if (err) {
		jpeg_abort_decompress(ci);
		d->open = false;
		return err;
	}
	while (ci->output_scanline < y1) {
		uint32_t at = ci->output_scanline - y0;
		JDIMENSION got = jpeg_read_scanlines(ci, d->rows.row + at,
						     y1 - y0 - at);

		if (cmyk)
			for (JDIMENSION r = 0; r < got; r++)
				dec_cmyk_to_rgbx(d->rows.row[at + r] + cx * 4,
						 x1 - x0);
	}
	if (ci->output_scanline < ci->output_height)
		jpeg_abort_decompress(ci);
	else
		jpeg_finish_decompress(ci);
	d->open = false;

	out->data = d->rows.pix + (size_t)cx * 4;
	out->width = x1 - x0;
	out->height = y1 - y0;
	out->stride = stride;
	return 0;
}

int aug_decoder_read(struct aug_decoder *d, const struct aug_rect *roi,
		     unsigned scale_denom, struct aug_view *out)
{
	uint32_t sw, sh;
	struct aug_rect win;
	int err;

	if (!d->open)
		return -EINVAL;
	if ((scale_denom != 1 && scale_denom != 2 && scale_denom != 4 &&
	     scale_denom != 8) ||
	    (d->fmt == AUG_FMT_PNG && scale_denom != 1)) {
		aug_decoder_close(d);
		return -EINVAL;
	}
	sw = aug_scaled_dim(d->width, scale_denom);
	sh = aug_scaled_dim(d->height, scale_denom);
	if (roi) {
		if (roi->w == 0 || roi->h == 0 || roi->x > sw ||
		    roi->w > sw - roi->x || roi->y > sh ||
		    roi->h > sh - roi->y) {
			aug_decoder_close(d);
			return -EINVAL;
		}
		win = *roi;
	} else {
		win = (struct aug_rect){ 0, 0, sw, sh };
	}
	if (d->fmt == AUG_FMT_JPEG)
		return dec_read_jpeg(d, win.x, win.y, win.x + win.w,
				     win.y + win.h, scale_denom, out);
	err = aug_png_read(d->png, &win, &d->rows, out);
	d->open = false;
	return err;
}

int aug_decoder_decode(struct aug_decoder *d, const void *buf, size_t len,
		       const struct aug_rect *roi, unsigned scale_denom,
		       struct aug_view *out)
{
	int err = aug_decoder_open(d, buf, len, NULL);

	if (err)
		return err;
	return aug_decoder_read(d, roi, scale_denom, out);
}

/* Abandon the open JPEG after a failure of ours; returns ERR. */
static int dec_fail(struct aug_decoder *d, int err, const char *msg)
{
	snprintf(d->msg, sizeof(d->msg), "%s", msg);
	jpeg_abort_decompress(&d->cinfo);
	d->open = false;
	return err;
}

int aug_decoder_read_coefs(struct aug_decoder *d, aug_gd_alloc_fn alloc,
			   void *alloc_arg, struct aug_gd_desc *desc,
			   uint64_t *entropy_ns)
{
	j_decompress_ptr ci = &d->cinfo;
	jvirt_barray_ptr *coefs;
	struct dec_coef_arr *a;
	uint64_t t0;
	uint8_t *p;
	int c;

	if (!d->open || d->fmt != AUG_FMT_JPEG)
		return -EINVAL;
	if (setjmp(d->jump)) {
		dec_direct_end(d);
		jpeg_abort_decompress(ci);
		d->open = false;
		if (d->code == -ENOBUFS)
			snprintf(d->msg, sizeof(d->msg),
				 "no room in the staging area");
		return d->code;
	}
	dec_direct_end(d);
	d->direct = true;
	d->alloc = alloc;
	d->alloc_arg = alloc_arg;
	t0 = aug_now_ns();
	coefs = jpeg_read_coefficients(ci);
	if (entropy_ns)
		*entropy_ns = aug_now_ns() - t0;
	if (!coefs || ci->num_components < 1 || ci->num_components > 4 ||
	    d->narrs != ci->num_components || !d->staged) {
		dec_direct_end(d);
		return dec_fail(d, -AUG_EUNSUPPORTED, "not 1 to 4 components");
	}
	/* the tables' room before each component's rows: natural order */
	for (c = 0, a = d->arrs, p = d->staged; c < ci->num_components;
	     c++, a = a->next) {
		const jpeg_component_info *cp = &ci->comp_info[c];

		if (!cp->quant_table || (void *)coefs[c] != (void *)a) {
			dec_direct_end(d);
			return dec_fail(d, -AUG_ECORRUPT, "a component has "
					"no quantization table");
		}
		for (int k = 0; k < DCTSIZE2; k++) {
			const uint16_t q = cp->quant_table->quantval[k];

			memcpy(p, &q, sizeof(q));
			p += sizeof(q);
		}
		desc->w_blocks[c] = cp->width_in_blocks;
		desc->h_blocks[c] = cp->height_in_blocks;
		desc->row_blocks[c] = a->blocks_per_row;
		desc->rows[c] = a->nrows;
		p += (size_t)a->blocks_per_row * a->nrows * sizeof(JBLOCK);
	}
	desc->payload = d->staged;
	desc->payload_bytes = d->staged_bytes;
	dec_direct_end(d);
	jpeg_finish_decompress(ci);
	d->open = false;
	return 0;
}

int aug_scratch_reserve(void **buf, size_t *cap, size_t need)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap + *cap / 2;
	if (n < need)
		n = need;
	n = (n + 63) & ~(size_t)63;
	p = aligned_alloc(64, n);
	if (!p)
		return -ENOMEM;
	/* slack bytes past the image are read (times a zero weight) */
	memset(p, 0, n);
	free(*buf);
	*buf = p;
	*cap = n;
	return 0;
}
