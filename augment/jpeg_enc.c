/*
 * jpeg_enc.c - JPEG encoding through libjpeg-turbo's libjpeg API into a
 * caller-growable memory buffer (see the encoding block of augment.h).
 *
 * libjpeg reports errors by calling error_exit(), which must not return:
 * ours longjmps back to aug_jpeg_encode(), which destroys the compressor
 * (freeing all of libjpeg's pools) and returns an error code. The output
 * buffer belongs to the caller throughout, so an error leaks nothing.
 * No shared state: each call has its own compressor.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "augment.h"

/* JPEG's own limit (libjpeg's JPEG_MAX_DIMENSION). */
#define ENC_MAX_DIM 65500u
/* First allocation when the caller's buffer is empty. */
#define ENC_MIN_CAP (64u * 1024u)

struct enc_err {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	int code;               /* -errno to return after the longjmp */
};

struct enc_dest {
	struct jpeg_destination_mgr pub;
	struct aug_membuf *buf;
};

static void enc_error_exit(j_common_ptr cinfo)
{
	struct enc_err *err = (struct enc_err *)cinfo->err;

	if (err->code == 0)
		err->code = err->pub.msg_code == JERR_OUT_OF_MEMORY ?
			-ENOMEM : -EINVAL;
	longjmp(err->jump, 1);
}

/* The encoder's warnings are about its own input; never print them. */
static void enc_output_message(j_common_ptr cinfo)
{
	(void)cinfo;
}

/* Grows the buffer to at least `need` bytes; 0 or -ENOMEM. */
static int membuf_reserve(struct aug_membuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : ENC_MIN_CAP;
	unsigned char *p;

	if (need <= b->cap)
		return 0;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

static void enc_dest_init(j_compress_ptr cinfo)
{
	struct enc_dest *d = (struct enc_dest *)cinfo->dest;

	d->buf->len = 0;
	if (membuf_reserve(d->buf, ENC_MIN_CAP))
		ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
	d->pub.next_output_byte = d->buf->data;
	d->pub.free_in_buffer = d->buf->cap;
}

/* Called when the buffer is full: libjpeg has filled all of it. */
static boolean enc_dest_empty(j_compress_ptr cinfo)
{
	struct enc_dest *d = (struct enc_dest *)cinfo->dest;
	const size_t used = d->buf->cap;

	if (membuf_reserve(d->buf, used + 1))
		ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
	d->pub.next_output_byte = d->buf->data + used;
	d->pub.free_in_buffer = d->buf->cap - used;
	return TRUE;
}

static void enc_dest_term(j_compress_ptr cinfo)
{
	struct enc_dest *d = (struct enc_dest *)cinfo->dest;

	d->buf->len = d->buf->cap - d->pub.free_in_buffer;
}

void aug_membuf_free(struct aug_membuf *buf)
{
	if (!buf)
		return;
	free(buf->data);
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
}

static void enc_set_sampling(struct jpeg_compress_struct *c,
			     enum aug_enc_subsamp s)
{
	/* Luma factors carry the subsampling; chroma stays at 1x1. */
	c->comp_info[0].h_samp_factor = s == AUG_ENC_444 ? 1 : 2;
	c->comp_info[0].v_samp_factor = s == AUG_ENC_420 ? 2 : 1;
	for (int i = 1; i < c->num_components; i++) {
		c->comp_info[i].h_samp_factor = 1;
		c->comp_info[i].v_samp_factor = 1;
	}
}

/* The libjpeg part, after the arguments were checked. */
static int enc_run(const uint8_t *pixels, uint32_t width, uint32_t height,
		   size_t stride, unsigned ncomp, J_COLOR_SPACE in_cs,
		   const struct aug_enc_params *params, struct aug_membuf *out)
{
	struct jpeg_compress_struct c;
	struct enc_err err;
	struct enc_dest dest;

	/* Zeroed first so that jpeg_destroy_compress() is safe even when
	 * jpeg_create_compress() itself fails (c.mem stays NULL). */
	memset(&c, 0, sizeof(c));
	memset(&err, 0, sizeof(err));
	c.err = jpeg_std_error(&err.pub);
	err.pub.error_exit = enc_error_exit;
	err.pub.output_message = enc_output_message;
	if (setjmp(err.jump)) {
		jpeg_destroy_compress(&c);
		out->len = 0;
		return err.code ? err.code : -EINVAL;
	}
	jpeg_create_compress(&c);

	memset(&dest, 0, sizeof(dest));
	dest.pub.init_destination = enc_dest_init;
	dest.pub.empty_output_buffer = enc_dest_empty;
	dest.pub.term_destination = enc_dest_term;
	dest.buf = out;
	c.dest = &dest.pub;

	c.image_width = width;
	c.image_height = height;
	c.input_components = (int)ncomp;
	c.in_color_space = in_cs;
	jpeg_set_defaults(&c);
	/* jpeg_set_defaults picks YCbCr for RGB, gray for gray and CMYK (with
	 * an Adobe marker) for CMYK: the layouts cameras and Photoshop write. */
	jpeg_set_quality(&c, params->quality, TRUE);
	if (in_cs == JCS_RGB)
		enc_set_sampling(&c, params->subsamp);
	c.dct_method = JDCT_ISLOW;
	c.optimize_coding = params->optimize ? TRUE : FALSE;
	if (params->progressive)
		jpeg_simple_progression(&c);

	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		JSAMPROW rows[16];
		unsigned n = 0;

		while (n < 16 && c.next_scanline + n < c.image_height) {
			rows[n] = (JSAMPROW)(pixels +
				(size_t)(c.next_scanline + n) * stride);
			n++;
		}
		jpeg_write_scanlines(&c, rows, n);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return 0;
}

int aug_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
		    size_t stride, enum aug_enc_pixfmt fmt,
		    const struct aug_enc_params *params,
		    struct aug_membuf *out)
{
	unsigned ncomp;
	J_COLOR_SPACE in_cs;

	if (!out)
		return -EINVAL;
	out->len = 0;
	if (!pixels || !params || width == 0 || height == 0)
		return -EINVAL;
	if (params->quality < 1 || params->quality > 100)
		return -EINVAL;
	switch (fmt) {
	case AUG_ENC_RGB:  ncomp = 3; in_cs = JCS_RGB; break;
	case AUG_ENC_GRAY: ncomp = 1; in_cs = JCS_GRAYSCALE; break;
	case AUG_ENC_CMYK: ncomp = 4; in_cs = JCS_CMYK; break;
	default: return -EINVAL;
	}
	if (params->subsamp != AUG_ENC_444 && params->subsamp != AUG_ENC_422 &&
	    params->subsamp != AUG_ENC_420)
		return -EINVAL;
	if (width > ENC_MAX_DIM || height > ENC_MAX_DIM)
		return -EOVERFLOW;
	if (stride < (size_t)width * ncomp)
		return -EINVAL;
	return enc_run(pixels, width, height, stride, ncomp, in_cs, params,
		       out);
}
