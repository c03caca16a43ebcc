/*
 * aug_png.c - PNG decoding through libpng into the RGBX rows the JPEG path
 * produces: every colour type and bit depth, Adam7 interlacing, a window
 * of rows (decoding stops after the last row the window needs).
 *
 * DESIGN: an aug_png belongs to the aug_decoder that created it and so to
 * one thread at a time. libpng cannot reset a png_struct for a new image,
 * so each image creates one and destroys it; every allocation libpng (and
 * zlib, through libpng) makes goes to a bump arena kept here, and its free
 * is a no-op, so after the first images a PNG allocates nothing. That
 * stays bounded because only IHDR, PLTE, IDAT and IEND are processed (all
 * ancillary chunks are skipped unread, after their CRC): what libpng asks
 * for is then a fixed set of structs, zlib's state and window, and a few
 * row buffers of the image's width. An image that outgrows the arena
 * spills to malloc, and the arena grows to fit when the image ends.
 * libpng reports errors through a callback that longjmps back to the
 * setjmp in png_guard(), which holds no local state of its own; all state
 * lives in struct aug_png, so nothing is clobbered by the jump.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "aug_internal.h"

/*
 * Largest side accepted: libpng's own default user limit. It bounds the
 * row buffers (8 bytes per pixel for 16-bit RGBA) that the pixel cap
 * alone would let reach gigabytes for a one-row image.
 */
#define PNG_MAX_SIDE 1000000u

/* Arena blocks are aligned for any type, as malloc's are. */
#define PNG_ALIGN alignof(max_align_t)

/* One allocation that did not fit in the arena. */
struct png_spill {
	struct png_spill *next;
	alignas(max_align_t) unsigned char data[];
};

struct aug_png {
	png_structp png;          /* NULL when no image is open */
	png_infop info;
	const uint8_t *src;       /* the file being read */
	size_t len, pos;
	int code;                 /* error to return after the longjmp */
	char *msg;                /* the decoder's message buffer */
	size_t msg_len;
	uint32_t width, height;
	/* arena for libpng's allocations; see DESIGN */
	unsigned char *arena;
	size_t arena_cap, arena_used;
	size_t asked;             /* bytes this image asked for */
	struct png_spill *spills;
	uint64_t nspills;         /* spills since creation */
	/* one full-width row for rows outside the window */
	uint8_t *junk;
	size_t junk_cap;
};

static png_voidp png_arena_malloc(png_structp png, png_alloc_size_t size)
{
	struct aug_png *p = png_get_mem_ptr(png);
	size_t n = (size + PNG_ALIGN - 1) & ~(size_t)(PNG_ALIGN - 1);
	struct png_spill *s;

	if (n < size)
		return NULL;
	p->asked += n;
	if (n <= p->arena_cap - p->arena_used) {
		void *b = p->arena + p->arena_used;

		p->arena_used += n;
		return b;
	}
	s = malloc(sizeof(*s) + n);
	if (!s) {
		if (!p->code)
			p->code = -ENOMEM;
		return NULL;
	}
	s->next = p->spills;
	p->spills = s;
	p->nspills++;
	return s->data;
}

/* Everything is released at once when the image ends (png_arena_reset). */
static void png_arena_free(png_structp png, png_voidp ptr)
{
	(void)png;
	(void)ptr;
}

/*
 * After an image: frees the spills and, if there were any, regrows the
 * arena to what the image asked for so that the next one fits. A failed
 * regrowth keeps the old arena (the next image spills again).
 */
static void png_arena_reset(struct aug_png *p)
{
	const bool spilled = p->spills != NULL;

	while (p->spills) {
		struct png_spill *s = p->spills;

		p->spills = s->next;
		free(s);
	}
	if (spilled && p->asked > p->arena_cap) {
		size_t cap = p->asked + p->asked / 4;
		void *a = aligned_alloc(PNG_ALIGN,
					(cap + PNG_ALIGN - 1) &
						~(size_t)(PNG_ALIGN - 1));

		if (a) {
			free(p->arena);
			p->arena = a;
			p->arena_cap = cap;
		}
	}
	p->arena_used = 0;
	p->asked = 0;
}

static void png_on_error(png_structp png, png_const_charp text)
{
	struct aug_png *p = png_get_error_ptr(png);

	if (!p->code)
		p->code = -AUG_ECORRUPT;
	snprintf(p->msg, p->msg_len, "%s", text);
	png_longjmp(png, 1);
}

/*
 * Warnings (a bad CRC on an ancillary chunk, benign errors such as extra
 * compressed data after the image) leave the pixels as the file meant
 * them; like PIL, the sample does not fail.
 */
static void png_on_warning(png_structp png, png_const_charp text)
{
	(void)png;
	(void)text;
}

static void png_read_mem(png_structp png, png_bytep out, size_t n)
{
	struct aug_png *p = png_get_io_ptr(png);

	if (n > p->len - p->pos) {
		p->code = -AUG_ETRUNCATED;
		png_error(png, "unexpected end of file");
	}
	memcpy(out, p->src + p->pos, n);
	p->pos += n;
}

int aug_png_create(char *msg, size_t msg_len, struct aug_png **out)
{
	struct aug_png *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return -ENOMEM;
	p->msg = msg;
	p->msg_len = msg_len;
	return 0;
}

void aug_png_close(struct aug_png *p)
{
	if (!p || !p->png)
		return;
	png_destroy_read_struct(&p->png, p->info ? &p->info : NULL, NULL);
	p->png = NULL;
	p->info = NULL;
	png_arena_reset(p);
}

void aug_png_destroy(struct aug_png *p)
{
	if (!p)
		return;
	aug_png_close(p);
	free(p->arena);
	free(p->junk);
	free(p);
}

void aug_png_heap(const struct aug_png *p, size_t *arena, uint64_t *spills)
{
	*arena = p ? p->arena_cap : 0;
	*spills = p ? p->nspills : 0;
}

/*
 * Runs fn(p, arg) with libpng's errors caught: a longjmp lands here and
 * returns the recorded code. Nothing here changes between setjmp and the
 * jump, and fn's frame is simply abandoned (its state lives in *p).
 */
static int png_guard(struct aug_png *p, int (*fn)(struct aug_png *, void *),
		     void *arg)
{
	if (setjmp(png_jmpbuf(p->png)))
		return p->code ? p->code : -AUG_ECORRUPT;
	return fn(p, arg);
}

static int png_header(struct aug_png *p, void *arg)
{
	static const png_byte trns[] = "tRNS";
	struct aug_image_info *info = arg;
	int ct;

	png_set_read_fn(p->png, p, png_read_mem);
	/* the side and pixel limits are checked below, with their own code */
	png_set_user_limits(p->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
	/* skip every ancillary chunk (see DESIGN); tRNS too: alpha is
	 * dropped anyway, as PIL's convert('RGB') drops it */
	png_set_keep_unknown_chunks(p->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
	png_set_keep_unknown_chunks(p->png, PNG_HANDLE_CHUNK_NEVER, trns, 1);
	png_read_info(p->png, p->info);
	p->width = png_get_image_width(p->png, p->info);
	p->height = png_get_image_height(p->png, p->info);
	if (p->width > PNG_MAX_SIDE || p->height > PNG_MAX_SIDE) {
		snprintf(p->msg, p->msg_len, "%ux%u is over the %u pixel side "
			 "limit", p->width, p->height, PNG_MAX_SIDE);
		return -AUG_ETOOLARGE;
	}
	ct = png_get_color_type(p->png, p->info);
	info->width = p->width;
	info->height = p->height;
	info->components = png_get_channels(p->png, p->info);
	info->colorspace = ct & PNG_COLOR_MASK_COLOR ? AUG_CS_RGB :
						      AUG_CS_GRAY;
	info->progressive = png_get_interlace_type(p->png, p->info) !=
			    PNG_INTERLACE_NONE;
	info->adobe = false;
	info->format = AUG_FMT_PNG;
	return 0;
}

int aug_png_open(struct aug_png *p, const void *buf, size_t len,
		 uint64_t max_pixels, struct aug_image_info *info)
{
	struct aug_image_info tmp;
	int err;

	aug_png_close(p);
	p->code = 0;
	p->src = buf;
	p->len = len;
	p->pos = 0;
	p->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, p,
					  png_on_error, png_on_warning, p,
					  png_arena_malloc, png_arena_free);
	if (p->png)
		p->info = png_create_info_struct(p->png);
	if (!p->png || !p->info) {
		snprintf(p->msg, p->msg_len, "out of memory");
		if (p->png)
			aug_png_close(p);
		else
			png_arena_reset(p);
		return -ENOMEM;
	}
	err = png_guard(p, png_header, info ? info : &tmp);
	if (!err && (uint64_t)p->width * p->height > max_pixels) {
		snprintf(p->msg, p->msg_len, "%ux%u is over the %llu pixel cap",
			 p->width, p->height, (unsigned long long)max_pixels);
		err = -AUG_ETOOLARGE;
	}
	if (err)
		aug_png_close(p);
	return err;
}

struct png_window {
	uint32_t x0, y0, x1, y1;
	struct aug_rows *rows;
	struct aug_view *out;
};

/*
 * Transforms to 8-bit RGBX, PIL's convert('RGB') with X = 255: 16-bit
 * samples keep their high byte, sub-byte grey is scaled to 0..255,
 * palettes are looked up, grey is replicated, alpha is dropped.
 */
static void png_set_rgbx(png_structp png, png_infop info)
{
	const int ct = png_get_color_type(png, info);
	const int depth = png_get_bit_depth(png, info);

	if (depth == 16)
		png_set_strip_16(png);
	if (ct == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	else if (depth < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	if (ct & PNG_COLOR_MASK_ALPHA)
		png_set_strip_alpha(png);
	if (!(ct & PNG_COLOR_MASK_COLOR))
		png_set_gray_to_rgb(png);
	png_set_filler(png, 0xff, PNG_FILLER_AFTER);
}

static int png_rows(struct aug_png *p, void *arg)
{
	const struct png_window *w = arg;
	const uint32_t n = w->y1 - w->y0;
	const size_t stride = aug_rows_stride(p->width);
	int passes, err;

	png_set_rgbx(p->png, p->info);
	passes = png_set_interlace_handling(p->png);
	png_read_update_info(p->png, p->info);
	if (png_get_rowbytes(p->png, p->info) != (size_t)p->width * 4) {
		snprintf(p->msg, p->msg_len, "unexpected output geometry");
		return -AUG_EUNSUPPORTED;
	}
	err = aug_rows_reserve(w->rows, stride, n);
	if (!err && n < p->height)
		err = aug_scratch_reserve((void **)&p->junk, &p->junk_cap,
					  stride);
	if (err) {
		snprintf(p->msg, p->msg_len, "out of memory");
		return err;
	}
	/*
	 * Rows above the window are decoded into the junk row. Every pass
	 * of an interlaced file spans all rows, but the last one (odd rows)
	 * can stop, like a plain file, after the window's last row.
	 */
	for (int pass = 0; pass < passes; pass++) {
		const uint32_t end = pass == passes - 1 ? w->y1 : p->height;

		for (uint32_t y = 0; y < end; y++)
			png_read_row(p->png, y >= w->y0 && y < w->y1 ?
				     w->rows->row[y - w->y0] : p->junk, NULL);
	}
	w->out->data = w->rows->row[0] + (size_t)w->x0 * 4;
	w->out->width = w->x1 - w->x0;
	w->out->height = n;
	w->out->stride = stride;
	return 0;
}

int aug_png_read(struct aug_png *p, const struct aug_rect *win,
		 struct aug_rows *rows, struct aug_view *out)
{
	struct png_window w = {
		.x0 = win->x, .y0 = win->y,
		.x1 = win->x + win->w, .y1 = win->y + win->h,
		.rows = rows, .out = out,
	};
	int err;

	if (!p->png)
		return -EINVAL;
	err = png_guard(p, png_rows, &w);
	aug_png_close(p);
	return err;
}
