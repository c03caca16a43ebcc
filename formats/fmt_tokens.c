/*
 * fmt_tokens.c - token files: the element types, Megatron-LM's .idx,
 * llm.c's .bin header, the frame and block headers of zstd files (walked
 * to learn the decompressed size without decompressing), and the scanner
 * that cuts a token stream into windows of seq_len + 1 tokens (tokens.h
 * says how they are cut).
 *
 * Which .bin is which:
 *   - with an .idx of the same stem beside it: Megatron's; the .idx gives
 *     the dtype, where the tokens start (pointers[0]) and how many there
 *     are;
 *   - else a file whose first 12 bytes are llm.c's magic and version
 *     (20240520 and 1: uint16; 20240801 and 7: uint32): llm.c's, the
 *     tokens after its 1024-byte header, header[2] of them;
 *   - else nanoGPT's flat uint16 (prepare.py: np.memmap of uint16).
 * A false llm.c match would need a flat file's first four uint16 tokens
 * to be 55432, 308, 1, 0 (or 55713, 308, 7, 0): no GPT-2 token is above
 * 50256, so no GPT-2 file can match, and for a vocabulary over 55432
 * tokens it is four given tokens in a row (about 2^-64 for uniform ids).
 * A .bin.zst is such a .bin compressed (the same rules apply to what it
 * decompresses to).
 */
#include <errno.h>
#include <string.h>

#include "fmt_internal.h"
#include "tokens.h"

/* ---- element types ---- */

static const struct {
	const char *name;
	unsigned size;
	bool integer;
} tok_types[WL_TOK_DTYPE_END] = {
	[WL_TOK_NONE] = { "none", 0, false },
	[WL_TOK_U8] = { "u8", 1, true }, [WL_TOK_I8] = { "i8", 1, true },
	[WL_TOK_I16] = { "i16", 2, true }, [WL_TOK_I32] = { "i32", 4, true },
	[WL_TOK_I64] = { "i64", 8, true }, [WL_TOK_F64] = { "f64", 8, false },
	[WL_TOK_F32] = { "f32", 4, false }, [WL_TOK_U16] = { "u16", 2, true },
	[WL_TOK_U32] = { "u32", 4, true }, [WL_TOK_U64] = { "u64", 8, true },
	[WL_TOK_F16] = { "f16", 2, false },
};

unsigned wl_tok_dtype_size(enum wl_tok_dtype t)
{
	return (unsigned)t < WL_TOK_DTYPE_END ? tok_types[t].size : 0;
}

const char *wl_tok_dtype_name(enum wl_tok_dtype t)
{
	return (unsigned)t < WL_TOK_DTYPE_END ? tok_types[t].name : "?";
}

bool wl_tok_dtype_is_int(enum wl_tok_dtype t)
{
	return (unsigned)t < WL_TOK_DTYPE_END && tok_types[t].integer;
}

enum wl_tok_dtype wl_tok_dtype_of_mds(unsigned code)
{
	switch (code) {
	case 8: return WL_TOK_U8;
	case 9: return WL_TOK_I8;
	case 16: return WL_TOK_U16;
	case 17: return WL_TOK_I16;
	case 18: return WL_TOK_F16;
	case 32: return WL_TOK_U32;
	case 33: return WL_TOK_I32;
	case 34: return WL_TOK_F32;
	case 64: return WL_TOK_U64;
	case 65: return WL_TOK_I64;
	case 66: return WL_TOK_F64;
	default: return WL_TOK_NONE;
	}
}

/* ---- Megatron .idx ---- */

static int idx_bad(uint64_t at, uint64_t *err_off)
{
	*err_off = at;
	return -WL_EBADINDEX;
}

int wl_idx_parse(const uint8_t *p, size_t n, uint64_t bin_size,
		 struct wl_idx_info *out, uint64_t *err_off)
{
	static const uint8_t magic[9] = { 'M', 'M', 'I', 'D', 'I', 'D', 'X',
					  0, 0 };
	uint64_t s, d, size, lens, ptrs, docs, end, prev_doc = 0;

	memset(out, 0, sizeof(*out));
	*err_off = 0;
	if (n < WL_IDX_HEADER || memcmp(p, magic, sizeof(magic)))
		return idx_bad(0, err_off);
	if (wl_le_n(p + 9, 8) != 1)
		return idx_bad(9, err_off);
	out->dtype = (enum wl_tok_dtype)p[17];
	if (p[17] < 1 || p[17] > 8 || !wl_tok_dtype_is_int(out->dtype))
		return idx_bad(17, err_off);     /* unknown, or floats */
	size = wl_tok_dtype_size(out->dtype);
	s = wl_le_n(p + 18, 8);
	d = wl_le_n(p + 26, 8);
	/* 12 bytes per sequence and 8 per document entry must fit */
	if (s > (n - WL_IDX_HEADER) / 12)
		return idx_bad(18, err_off);
	if (d < 1 || d > (n - WL_IDX_HEADER - 12 * s) / 8)
		return idx_bad(26, err_off);
	out->sequences = s;
	out->documents = d - 1;
	lens = WL_IDX_HEADER;
	ptrs = lens + 4 * s;
	docs = ptrs + 8 * s;
	end = s ? wl_le_n(p + ptrs, 8) : 0;
	if (end > bin_size || end >> 62)
		return idx_bad(ptrs, err_off);
	out->data_off = end;
	for (uint64_t i = 0; i < s; i++) {
		const int32_t len = (int32_t)wl_le_n(p + lens + 4 * i, 4);
		const uint64_t ptr = wl_le_n(p + ptrs + 8 * i, 8);

		if (len < 0)
			return idx_bad(lens + 4 * i, err_off);
		/* each sequence where the one before ended (so pointers
		 * increase), and inside the .bin */
		if (ptr != end || (uint64_t)len * size > bin_size - ptr)
			return idx_bad(ptrs + 8 * i, err_off);
		end = ptr + (uint64_t)len * size;
		out->tokens += (uint64_t)len;
	}
	for (uint64_t k = 0; k < d; k++) {
		const uint64_t v = wl_le_n(p + docs + 8 * k, 8);

		if ((k == 0 && v != 0) || v < prev_doc || v > s ||
		    (k == d - 1 && v != s))
			return idx_bad(docs + 8 * k, err_off);
		prev_doc = v;
	}
	return 0;
}

/* ---- llm.c header ---- */

int wl_llmc_header_parse(const uint8_t *h, size_t n, enum wl_tok_dtype *dtype,
			 uint64_t *count)
{
	uint32_t magic, version;
	int32_t c;

	if (n < 12)
		return 0;
	magic = (uint32_t)wl_le_n(h, 4);
	version = (uint32_t)wl_le_n(h + 4, 4);
	if (magic == WL_LLMC_MAGIC_GPT2 && version == 1)
		*dtype = WL_TOK_U16;
	else if (magic == WL_LLMC_MAGIC_LLAMA3 && version == 7)
		*dtype = WL_TOK_U32;
	else
		return 0;
	c = (int32_t)wl_le_n(h + 8, 4);
	if (c < 0)
		return -WL_EBADHDR;
	*count = (uint64_t)c;
	return 1;
}

/* ---- zstd frames (RFC 8878, section 3.1) ---- */

#define ZSTD_MAGIC 0xFD2FB528u
#define ZSTD_SKIP_MAGIC 0x184D2A50u     /* ..5F: skippable frames */

/* Read exactly LEN bytes at OFF: 0, 1 when the file ends first, -errno. */
static int read_at(wl_pread_fn pread, void *arg, void *buf, size_t len,
		   uint64_t off)
{
	int64_t got = pread(arg, buf, len, off);

	if (got < 0)
		return (int)got;
	return (size_t)got == len ? 0 : 1;
}

int wl_zstd_content_size(wl_pread_fn pread, void *arg, uint64_t size,
			 uint64_t *content, uint64_t *err_off)
{
	static const unsigned did_bytes[4] = { 0, 1, 2, 4 };
	uint64_t off = 0, total = 0;
	uint8_t h[18];
	int r;

	*content = 0;
	*err_off = 0;
	while (off < size) {
		size_t want = size - off < sizeof(h) ? (size_t)(size - off) :
			      sizeof(h);
		unsigned fhd, fcs_bytes, hsize;
		uint32_t magic;
		uint64_t fcs;

		r = read_at(pread, arg, h, want, off);
		if (r < 0)
			return r;
		if (r || want < 5)
			goto bad;
		magic = (uint32_t)wl_le_n(h, 4);
		if ((magic & 0xFFFFFFF0u) == ZSTD_SKIP_MAGIC) {
			if (want < 8 || wl_le_n(h + 4, 4) > size - off - 8)
				goto bad;
			off += 8 + wl_le_n(h + 4, 4);
			continue;
		}
		fhd = h[4];
		if (magic != ZSTD_MAGIC || (fhd & 0x08))  /* reserved bit */
			goto bad;
		fcs_bytes = (fhd >> 6) == 0 ? (fhd & 0x20 ? 1 : 0) :
			    1u << (fhd >> 6);
		hsize = 5 + !(fhd & 0x20) + did_bytes[fhd & 3] + fcs_bytes;
		if (want < hsize)
			goto bad;
		if (!fcs_bytes)
			return 0;       /* no size: decompress to know */
		fcs = wl_le_n(h + hsize - fcs_bytes, fcs_bytes) +
		      ((fhd >> 6) == 1 ? 256 : 0);
		if (fcs > UINT64_MAX - total)
			goto bad;
		total += fcs;
		off += hsize;
		for (;;) {              /* the blocks */
			uint64_t b, csize;

			r = read_at(pread, arg, h, 3, off);
			if (r < 0)
				return r;
			if (r)
				goto bad;
			b = wl_le_n(h, 3);
			if (((b >> 1) & 3) == 3)
				goto bad;       /* reserved block type */
			/* an RLE block stores one byte */
			csize = ((b >> 1) & 3) == 1 ? 1 : b >> 3;
			if (csize > size - off - 3)
				goto bad;
			off += 3 + csize;
			if (b & 1)
				break;
		}
		if (fhd & 0x04) {       /* content checksum */
			if (size - off < 4)
				goto bad;
			off += 4;
		}
	}
	*content = total;
	return 1;
bad:
	*err_off = off;
	return -WL_EZSTD;
}

/* ---- the window scanner ---- */

/* Private state in the scanner's u[]: */
enum {
	TOK_SIZE,       /* bytes per token */
	TOK_SEQ,        /* seq_len */
	TOK_OFF,        /* the first token's byte */
	TOK_LIMIT,      /* windows to cut; UINT64_MAX: while bytes come */
	TOK_ERR,        /* the error after them (negative), 0 none */
	TOK_ERR_OFF,
	TOK_FAILED,     /* the error returned: it stays */
};

void wl_tok_scan_init(struct wl_scanner *s)
{
	s->u[TOK_SIZE] = 2;
	s->u[TOK_SEQ] = WL_TOK_DEFAULT_SEQ_LEN;
	s->u[TOK_LIMIT] = UINT64_MAX;
}

void wl_tok_scan_setup(struct wl_scanner *s, const struct wl_tok_file *f,
		       uint32_t seq_len)
{
	const unsigned size = wl_tok_dtype_size(f->dtype);

	s->u[TOK_SIZE] = size ? size : 2;
	s->u[TOK_SEQ] = seq_len ? seq_len : WL_TOK_DEFAULT_SEQ_LEN;
	s->u[TOK_OFF] = f->data_off;
	s->u[TOK_LIMIT] = f->tokens == UINT64_MAX ? UINT64_MAX :
			  wl_tok_windows(f->tokens, (uint32_t)s->u[TOK_SEQ]);
	s->u[TOK_ERR] = (uint64_t)(int64_t)f->err;
	s->u[TOK_ERR_OFF] = f->err_off;
}

static int tok_fail(struct wl_scanner *s, int err, uint64_t at)
{
	s->u[TOK_FAILED] = (uint64_t)(int64_t)err;
	s->err_off = at;
	return err;
}

int wl_tok_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec)
{
	const uint64_t end = win_base + win_len;
	const uint64_t *u = s->u;
	const uint64_t step = u[TOK_SEQ] * u[TOK_SIZE];
	const uint64_t len = step + u[TOK_SIZE];
	uint64_t off;

	(void)win;
	if (u[TOK_FAILED])
		return (int)(int64_t)u[TOK_FAILED];
	if (s->records >= u[TOK_LIMIT]) {
		if (u[TOK_ERR])
			return tok_fail(s, (int)(int64_t)u[TOK_ERR],
					u[TOK_ERR_OFF]);
		s->keep_from = end;     /* past the windows: not needed */
		return 0;
	}
	if (len > s->max_record || s->records > (UINT64_MAX - len -
						 u[TOK_OFF]) / step)
		return tok_fail(s, -WL_EBADHDR, u[TOK_OFF]);
	off = u[TOK_OFF] + s->records * step;
	if (off + len <= end) {
		rec->off = off;
		rec->len = len;
		s->records++;
		/* the next window starts on this one's last token */
		s->keep_from = off + step;
		return 1;
	}
	s->keep_from = off < end ? off : end;
	if (eof && u[TOK_LIMIT] != UINT64_MAX)
		return tok_fail(s, -WL_ETRUNCREC, end);   /* fewer than said */
	return 0;
}

int wl_tok_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out)
{
	memset(out, 0, sizeof(*out));
	out->image = rec;
	out->image_len = len;
	return 0;
}
