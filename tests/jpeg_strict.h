/*
 * jpeg_strict.h - a strict libjpeg decoder for tests that check JPEG files
 * written by feedrate (the encoder, `feedrate gen`): the whole file must
 * decode without an error or a warning. Header-only (static inline) so
 * each test file stays self-contained.
 */
#ifndef FEEDRATE_JPEG_STRICT_H
#define FEEDRATE_JPEG_STRICT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "harness.h"

struct strict_err {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	int warnings;
};

static inline void strict_exit(j_common_ptr c)
{
	longjmp(((struct strict_err *)c->err)->jump, 1);
}

static inline void strict_emit(j_common_ptr c, int level)
{
	if (level < 0)
		((struct strict_err *)c->err)->warnings++;
}

struct decoded {
	uint32_t w, h;
	int comps;            /* in the file */
	bool progressive;
	int h0, v0;           /* luma sampling factors */
	unsigned char *px;    /* output_components per pixel, or NULL */
	int out_comps;
};

/*
 * Decode P[0..N) into *D (header facts; with KEEP the pixels too, in
 * D->px, malloc'd, output_components per pixel). 0 when the whole file
 * decodes without error or warning, else -1 (and D->px is NULL).
 */
static inline int strict_decode(const unsigned char *p, size_t n,
				struct decoded *d, bool keep)
{
	struct jpeg_decompress_struct c;
	struct strict_err e;
	unsigned char *volatile buf = NULL;

	memset(d, 0, sizeof(*d));
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = strict_exit;
	e.pub.emit_message = strict_emit;
	e.warnings = 0;
	if (setjmp(e.jump)) {
		jpeg_destroy_decompress(&c);
		free(buf);
		return -1;
	}
	jpeg_create_decompress(&c);
	jpeg_mem_src(&c, p, (unsigned long)n);
	jpeg_read_header(&c, TRUE);
	c.dct_method = JDCT_ISLOW;
	jpeg_start_decompress(&c);
	d->w = c.output_width;
	d->h = c.output_height;
	d->comps = c.num_components;
	d->out_comps = c.output_components;
	d->progressive = jpeg_has_multiple_scans(&c);
	d->h0 = c.comp_info[0].h_samp_factor;
	d->v0 = c.comp_info[0].v_samp_factor;
	buf = malloc((size_t)d->w * d->h * d->out_comps);
	cr_assert_not_null(buf);
	while (c.output_scanline < c.output_height) {
		JSAMPROW r = buf + (size_t)c.output_scanline * d->w *
			d->out_comps;

		jpeg_read_scanlines(&c, &r, 1);
	}
	jpeg_finish_decompress(&c);
	jpeg_destroy_decompress(&c);
	if (keep)
		d->px = buf;
	else
		free(buf);
	if (e.warnings) {
		if (keep)
			free(d->px);
		d->px = NULL;
		return -1;
	}
	return 0;
}

#endif /* FEEDRATE_JPEG_STRICT_H */
