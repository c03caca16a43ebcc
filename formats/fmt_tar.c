/*
 * fmt_tar.c - WebDataset shards: tar archives in which consecutive
 * regular files sharing a key make one sample.
 *
 * Headers are read as WebDataset reads them (webdataset/tariterators.py
 * over Python's tarfile), so that a shard splits into the same samples:
 *  - a header is valid when its checksum matches, unsigned or signed; no
 *    magic is required (V7 headers pass), and only POSIX "ustar\0"
 *    headers have a prefix field;
 *  - numbers are octal (NUL- or space-terminated, spaces around, empty is
 *    0) or base-256 (first byte 0x80);
 *  - PAX 'x' headers give the next member its path (trailing slashes
 *    dropped, as tarfile does) and size; a PAX path outranks a GNU 'L'
 *    long name, which outranks the header's own name; 'g' is ignored;
 *  - types '1'..'6' carry no data whatever their size says; unknown types
 *    carry their size (tarfile's _proc_builtin);
 *  - the key is base_plus_ext's: the path up to the first dot of its last
 *    component ("a.b/c.jpg" -> "a.b/c"); a regular file whose path has no
 *    key (no dot there) is skipped, as are non-regular entries;
 *  - the archive ends at a zero block or at EOF on a block boundary.
 * GNU sparse members are skipped by their size; a sparse header with
 * extension blocks then reads as a bad header.
 *
 * The scanner's state lives in struct wl_scanner: s->pos is the next
 * header, s->rec_start the open run, s->key its key, u[] the rest (the
 * U_* slots below). Everything it decides depends on the bytes only, not
 * on where the window's appends fell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt_internal.h"

#define BLK 512u
/* no offset or size past this: sums of a few of them cannot overflow */
#define TAR_OFF_MAX ((uint64_t)1 << 62)
/* the walk reads this much at a header: the PAX header before a member
 * and the member's own header usually come in one read */
#define WALK_READ 4096u

/* s->u[] slots */
enum {
	U_FLAGS,        /* F_* below; a sticky error's code from bit 32 up */
	U_CHAIN,        /* first PAX / GNU header before the next member */
	U_LAST_END,     /* end of the open run's last member, padded */
	U_SIZE,         /* PAX size of the next member */
	U_PATH_OFF,     /* PAX path or GNU long name of the next member: */
	U_PATH_LEN,     /*   where in the stream, how long */
	U_KEY_HASH,     /* hash of the run's key when longer than s->key */
	U_ENT_HDR,      /* header of the entry whose data ends at s->pos */
};

#define F_RUN       0x01u   /* a run is open, from s->rec_start */
#define F_CHAIN     0x02u   /* PAX / GNU headers wait for their member */
#define F_SIZE      0x04u   /* U_SIZE is set */
#define F_PATH_PAX  0x08u   /* U_PATH_* is a PAX path */
#define F_PATH_GNU  0x10u   /* U_PATH_* is a GNU long name */
#define F_ENDED     0x20u   /* the end of the archive was met */
#define F_ERR_SHIFT 32

/* tar_chain(): its data is not in the window yet */
#define NEED_MORE 2

static uint64_t pad512(uint64_t n)
{
	return (n + BLK - 1) & ~(uint64_t)(BLK - 1);
}

/* ---- one header ---- */

static bool blk_is_zero(const uint8_t *h)
{
	uint64_t acc = 0, w;

	for (size_t i = 0; i < BLK; i += 8) {
		memcpy(&w, h + i, 8);
		acc |= w;
	}
	return acc == 0;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* A numeric field as tarfile's nti() reads it; -1 when it is not one. */
static int tar_number(const uint8_t *f, size_t n, uint64_t *out)
{
	const uint8_t *nul;
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] == 0x80) {     /* base-256, positive */
		for (i = 1; i < n; i++) {
			if (v >> 56)
				return -1;
			v = v << 8 | f[i];
		}
		*out = v;
		return 0;
	}
	nul = memchr(f, 0, n);
	if (nul)
		n = (size_t)(nul - f);
	while (i < n && is_space(f[i]))
		i++;
	while (n > i && is_space(f[n - 1]))
		n--;
	for (; i < n; i++) {    /* at most 12 digits: no overflow */
		if (f[i] < '0' || f[i] > '7')
			return -1;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	*out = v;
	return 0;
}

static bool checksum_ok(const uint8_t *h)
{
	uint64_t stored;
	uint32_t u = 0;
	int32_t sg = 0;

	if (tar_number(h + 148, 8, &stored))
		return false;
	for (size_t i = 0; i < BLK; i++) {
		u += h[i];
		sg += (int8_t)h[i];
	}
	for (size_t i = 148; i < 156; i++) {    /* the field counts as spaces */
		u -= h[i];
		sg -= (int8_t)h[i];
	}
	u += 8 * ' ';
	sg += 8 * ' ';
	return stored == u || (sg >= 0 && stored == (uint64_t)sg);
}

static enum wl_tar_kind kind_of(uint8_t flag, const uint8_t *name,
				size_t name_len)
{
	switch (flag) {
	case '\0':
		if (name_len && name[name_len - 1] == '/')
			return WL_TAR_NODATA;
		return WL_TAR_FILE;
	case '0': case '7':
		return WL_TAR_FILE;
	case '1': case '2': case '3': case '4': case '5': case '6':
		return WL_TAR_NODATA;
	case 'x': case 'X':
		return WL_TAR_PAX;
	case 'g':
		return WL_TAR_PAX_GLOBAL;
	case 'L':
		return WL_TAR_LONGNAME;
	case 'K':
		return WL_TAR_LONGLINK;
	default:
		return WL_TAR_OTHER;
	}
}

int wl_tar_header_parse(const uint8_t h[512], struct wl_tar_hdr *out)
{
	const uint8_t *nul;
	size_t nlen, plen = 0;

	if (blk_is_zero(h))
		return 1;
	if (!checksum_ok(h) || tar_number(h + 124, 12, &out->size) ||
	    out->size > TAR_OFF_MAX)
		return -WL_EBADHDR;
	nul = memchr(h, 0, 100);
	nlen = nul ? (size_t)(nul - h) : 100;
	out->typeflag = h[156];
	out->kind = kind_of(h[156], h, nlen);
	if (!memcmp(h + 257, "ustar\0", 6))
		out->magic = WL_TAR_USTAR;
	else if (!memcmp(h + 257, "ustar  \0", 8))
		out->magic = WL_TAR_GNU;
	else
		out->magic = WL_TAR_V7;
	/* tarfile joins the prefix for every type but GNU's own */
	if (out->magic == WL_TAR_USTAR && h[156] != 'L' && h[156] != 'K' &&
	    h[156] != 'S') {
		nul = memchr(h + 345, 0, 155);
		plen = nul ? (size_t)(nul - (h + 345)) : 155;
	}
	if (plen) {
		memcpy(out->name, h + 345, plen);
		out->name[plen++] = '/';
	}
	memcpy(out->name + plen, h, nlen);
	out->name_len = plen + nlen;
	out->name[out->name_len] = '\0';
	return 0;
}

/* ---- PAX records: "LEN keyword=value\n" ---- */

struct pax_info {
	bool has_path, has_size;
	size_t path_at, path_len;       /* inside the records */
	uint64_t size;
};

/* Parse N bytes of PAX records at D into PI (which keeps earlier values
 * the records do not set). NUL bytes after the last record are padding.
 * Returns 0 or -1. */
static int pax_parse(const uint8_t *d, size_t n, struct pax_info *pi)
{
	size_t i = 0;

	while (i < n && d[i]) {
		size_t j = i, end, kw, vat;
		const uint8_t *eq;
		uint64_t len = 0;

		while (j < n && d[j] >= '0' && d[j] <= '9') {
			len = len * 10 + (uint64_t)(d[j++] - '0');
			if (len > n)
				return -1;
		}
		if (j == i || j >= n || d[j] != ' ' || len > n - i ||
		    len < j - i + 4)
			return -1;
		end = i + (size_t)len;          /* past the '\n' */
		kw = j + 1;
		if (d[end - 1] != '\n')
			return -1;
		eq = memchr(d + kw, '=', end - 1 - kw);
		if (!eq || eq == d + kw)
			return -1;
		vat = (size_t)(eq - d) + 1;
		if (eq - (d + kw) == 4 && !memcmp(d + kw, "path", 4)) {
			pi->has_path = true;
			pi->path_at = vat;
			pi->path_len = end - 1 - vat;
			while (pi->path_len && d[vat + pi->path_len - 1] == '/')
				pi->path_len--;
		} else if (eq - (d + kw) == 4 && !memcmp(d + kw, "size", 4)) {
			uint64_t v = 0;

			if (vat == end - 1)
				return -1;
			for (size_t k = vat; k < end - 1; k++) {
				if (d[k] < '0' || d[k] > '9' || v > TAR_OFF_MAX / 10)
					return -1;
				v = v * 10 + (uint64_t)(d[k] - '0');
			}
			if (v > TAR_OFF_MAX)
				return -1;
			pi->has_size = true;
			pi->size = v;
		}
		i = end;
	}
	return 0;
}

/* ---- keys ---- */

/*
 * WebDataset's key of member path P (N bytes): base_plus_ext's match of
 * ^((?:.*\/|)[^.]+)[.]([^/]*)$, the path up to the first dot of its last
 * component. Returns false when the path has no key (no dot there, or
 * only a leading one after a dotted folder); else *KLEN and *EXT_AT (the
 * suffix, after that dot). Exact, down to Python's '.' not crossing a
 * newline.
 */
static bool tar_key(const uint8_t *p, size_t n, size_t *klen, size_t *ext_at)
{
	const uint8_t *slash = memrchr(p, '/', n), *dot, *z, *s;
	const size_t last = slash ? (size_t)(slash - p) + 1 : 0;
	size_t d;

	dot = memchr(p + last, '.', n - last);
	if (!dot)
		return false;
	d = (size_t)(dot - p);
	/* [^.]+ before the dot starts at 0 or just after a slash that
	 * `.*` reaches without crossing a newline, and holds no dot */
	z = memrchr(p, '.', d);
	if (!z) {
		if (d == 0)
			return false;
	} else {
		s = memchr(z + 1, '/', d - (size_t)(z - p) - 1);
		if (!s || (size_t)(s - p) + 2 > d || memchr(p, '\n', (size_t)(s - p)))
			return false;
	}
	*klen = d;
	*ext_at = d + 1;
	return true;
}

static uint64_t key_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;     /* FNV-1a */

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* Keys longer than s->key compare by their first bytes, length and a
 * 64-bit hash of the whole. */
static bool key_same(const struct wl_scanner *s, const uint8_t *p, size_t n)
{
	const size_t cap = sizeof(s->key);

	return n == s->key_len && !memcmp(p, s->key, n < cap ? n : cap) &&
	       (n <= cap || key_hash(p, n) == s->u[U_KEY_HASH]);
}

static void key_set(struct wl_scanner *s, const uint8_t *p, size_t n)
{
	const size_t cap = sizeof(s->key);

	memcpy(s->key, p, n < cap ? n : cap);
	s->key_len = n;
	s->u[U_KEY_HASH] = n > cap ? key_hash(p, n) : 0;
}

/* ---- byte sources: the scanner's window, the walk's reads ---- */

struct tar_src {
	uint64_t end;           /* stream length, when known */
	uint64_t keep;          /* bytes from here on must stay valid */
	/* the window (pread == NULL) */
	const uint8_t *win;
	uint64_t base;
	size_t len;
	bool eof;
	/* the walk */
	wl_pread_fn pread;
	void *arg;
	uint8_t *buf;
	size_t cap, buf_len;
	uint64_t buf_off;
};

static const uint8_t *walk_get(struct tar_src *src, uint64_t off, uint64_t n,
			       int *err)
{
	const uint64_t keep = src->keep;
	uint64_t from, to;
	size_t have = 0;

	if (src->buf && keep >= src->buf_off &&
	    off + n <= src->buf_off + src->buf_len)
		return src->buf + (off - src->buf_off);
	/* keep what is still needed (a chain being gathered), read on */
	if (src->buf && keep >= src->buf_off &&
	    keep <= src->buf_off + src->buf_len) {
		have = src->buf_len - (size_t)(keep - src->buf_off);
		memmove(src->buf, src->buf + (keep - src->buf_off), have);
	}
	src->buf_off = keep;
	src->buf_len = have;
	from = keep + have;
	to = off + n > off + WALK_READ ? off + n : off + WALK_READ;
	if (to > src->end)
		to = src->end;
	if (to - keep > src->cap) {
		const size_t cap = (size_t)(to - keep);
		uint8_t *nb = realloc(src->buf, cap);

		if (!nb) {
			*err = -ENOMEM;
			return NULL;
		}
		src->buf = nb;
		src->cap = cap;
	}
	while (from < to) {
		const int64_t r = src->pread(src->arg, src->buf + (from - keep),
					     (size_t)(to - from), from);

		if (r < 0) {
			*err = (int)r;
			return NULL;
		}
		if (r == 0) {
			*err = -EIO;    /* shorter than its size said */
			return NULL;
		}
		from += (uint64_t)r;
		src->buf_len = (size_t)(from - keep);
	}
	return src->buf + (off - keep);
}

/* Bytes [OFF, OFF + N) of the stream, valid until a later call asks for
 * bytes past src->keep's. NULL with *ERR = 0 when the window does not hold
 * them yet, -WL_ETRUNCREC when the stream ends first, or -errno. */
static const uint8_t *src_get(struct tar_src *src, uint64_t off, uint64_t n,
			      int *err)
{
	if (off + n > src->end) {
		*err = -WL_ETRUNCREC;
		return NULL;
	}
	if (src->pread)
		return walk_get(src, off, n, err);
	if (off + n <= src->base + src->len)
		return src->win + (off - src->base);
	*err = 0;
	return NULL;
}

/* ---- the walk over headers, shared by the scanner and the count ---- */

static int tar_fail(struct wl_scanner *s, uint64_t off, int err)
{
	s->err_off = off;
	s->u[U_FLAGS] |= (uint64_t)-err << F_ERR_SHIFT;
	return err;
}

/* The end of the archive: hand out the open run. */
static int tar_end(struct wl_scanner *s, struct wl_record *rec)
{
	const uint64_t fl = s->u[U_FLAGS];

	s->u[U_FLAGS] = (fl & ~(uint64_t)F_RUN) | F_ENDED;
	if (!(fl & F_RUN))
		return 0;
	rec->off = s->rec_start;
	rec->len = s->u[U_LAST_END] - s->rec_start;
	return 1;
}

/* A PAX or GNU header H at s->pos: take in its data. Returns 0, NEED_MORE
 * or <0. */
static int tar_chain(struct wl_scanner *s, struct tar_src *src,
		     const struct wl_tar_hdr *h)
{
	const uint64_t pos = s->pos;
	uint64_t fl = s->u[U_FLAGS];
	const uint8_t *d;
	int err = 0;

	if (!(fl & F_CHAIN)) {
		s->u[U_CHAIN] = pos;
		s->u[U_FLAGS] = fl |= F_CHAIN;
	}
	/* its data and the member header after it stay in the chain bound */
	if (h->size > WL_TAR_CHAIN_MAX ||
	    pos + 2 * BLK + pad512(h->size) - s->u[U_CHAIN] > WL_TAR_CHAIN_MAX)
		return tar_fail(s, pos, -WL_EBADHDR);
	src->keep = s->u[U_CHAIN];
	d = src_get(src, pos + BLK, h->size, &err);
	if (!d) {
		if (err == -WL_ETRUNCREC)
			return tar_fail(s, pos, err);
		return err ? err : NEED_MORE;
	}
	if (h->kind == WL_TAR_PAX) {
		struct pax_info pi = { 0 };

		if (pax_parse(d, (size_t)h->size, &pi))
			return tar_fail(s, pos, -WL_EBADHDR);
		if (pi.has_path) {
			s->u[U_PATH_OFF] = pos + BLK + pi.path_at;
			s->u[U_PATH_LEN] = pi.path_len;
			fl = (fl & ~(uint64_t)F_PATH_GNU) | F_PATH_PAX;
		}
		if (pi.has_size) {
			s->u[U_SIZE] = pi.size;
			fl |= F_SIZE;
		}
	} else if (h->kind == WL_TAR_LONGNAME && !(fl & F_PATH_PAX)) {
		const uint8_t *nul = memchr(d, 0, (size_t)h->size);

		s->u[U_PATH_OFF] = pos + BLK;
		s->u[U_PATH_LEN] = nul ? (uint64_t)(nul - d) : h->size;
		fl |= F_PATH_GNU;
	}
	s->u[U_FLAGS] = fl;
	s->u[U_ENT_HDR] = pos;
	s->pos = pos + BLK + pad512(h->size);
	return 0;
}

/* A member header H at s->pos (PAX / GNU headers before it applied):
 * returns 1 with REC when it ends the open run, 0 to go on, or <0. */
static int tar_member(struct wl_scanner *s, struct tar_src *src,
		      const struct wl_tar_hdr *h, struct wl_record *rec)
{
	const uint64_t pos = s->pos;
	uint64_t fl = s->u[U_FLAGS], size, data_end;
	const uint64_t start = fl & F_CHAIN ? s->u[U_CHAIN] : pos;
	const uint8_t *path = (const uint8_t *)h->name;
	size_t path_len = h->name_len, klen = 0, ext_at = 0;
	bool member = false, same;
	int ret = 0, err = 0;

	size = fl & F_SIZE ? s->u[U_SIZE] : h->size;
	if (h->kind == WL_TAR_NODATA)
		size = 0;
	data_end = pos + BLK + pad512(size);
	if (data_end > TAR_OFF_MAX)
		return tar_fail(s, pos, -WL_EBADHDR);
	if (h->kind == WL_TAR_FILE) {
		if (fl & (F_PATH_PAX | F_PATH_GNU)) {
			src->keep = start;
			path = src_get(src, s->u[U_PATH_OFF], s->u[U_PATH_LEN],
				       &err);
			if (!path)      /* before pos: read with the chain */
				return err ? err : -EIO;
			path_len = (size_t)s->u[U_PATH_LEN];
		}
		member = tar_key(path, path_len, &klen, &ext_at);
	}
	fl &= ~(uint64_t)(F_CHAIN | F_SIZE | F_PATH_PAX | F_PATH_GNU);
	s->u[U_ENT_HDR] = pos;
	s->pos = data_end;
	if (!member) {
		/* a non-member inside a run belongs to it, unless a record
		 * holding it would be too long anyway */
		if ((fl & F_RUN) && data_end - s->rec_start > s->max_record) {
			rec->off = s->rec_start;
			rec->len = s->u[U_LAST_END] - s->rec_start;
			fl &= ~(uint64_t)F_RUN;
			ret = 1;
		}
		s->u[U_FLAGS] = fl;
		return ret;
	}
	same = (fl & F_RUN) && key_same(s, path, klen);
	if ((fl & F_RUN) && !same) {
		rec->off = s->rec_start;
		rec->len = s->u[U_LAST_END] - s->rec_start;
		fl &= ~(uint64_t)F_RUN;
		ret = 1;
	}
	s->u[U_FLAGS] = fl;
	if (data_end - (same ? s->rec_start : start) > s->max_record) {
		/* a run just ended still goes out, the error comes next; a
		 * run this member would make too long is lost */
		s->u[U_FLAGS] = fl & ~(uint64_t)F_RUN;
		tar_fail(s, pos, -WL_EBADHDR);
		return ret ? ret : -WL_EBADHDR;
	}
	if (!same) {
		s->rec_start = start;
		key_set(s, path, klen);
		s->u[U_FLAGS] = fl | F_RUN;
	}
	s->u[U_LAST_END] = data_end;
	return ret;
}

/* Walk headers from s->pos until a record is complete (1), more bytes are
 * needed or the archive ended (0), or an error (<0). */
static int tar_headers(struct wl_scanner *s, struct tar_src *src,
		       struct wl_record *rec)
{
	for (;;) {
		const uint64_t fl = s->u[U_FLAGS];
		struct wl_tar_hdr h;
		const uint8_t *b;
		int err = 0, r;

		if (fl >> F_ERR_SHIFT)
			return -(int)(fl >> F_ERR_SHIFT);
		if (fl & F_ENDED)
			return 0;
		src->keep = fl & F_CHAIN ? s->u[U_CHAIN] : s->pos;
		b = src_get(src, s->pos, BLK, &err);
		if (!b) {
			if (err != -WL_ETRUNCREC)
				return err;
			if (src->end < s->pos)  /* inside the last data */
				return tar_fail(s, s->u[U_ENT_HDR], err);
			if (src->end > s->pos)  /* inside a header */
				return tar_fail(s, s->pos, err);
			if (fl & F_CHAIN)
				return tar_fail(s, s->u[U_CHAIN], err);
			return tar_end(s, rec);
		}
		r = wl_tar_header_parse(b, &h);
		if (r < 0)
			return tar_fail(s, s->pos, r);
		if (r == 1) {
			if (fl & F_CHAIN)       /* extended headers, no member */
				return tar_fail(s, s->u[U_CHAIN], -WL_EBADHDR);
			return tar_end(s, rec);
		}
		switch (h.kind) {
		case WL_TAR_PAX:
		case WL_TAR_PAX_GLOBAL:
		case WL_TAR_LONGNAME:
		case WL_TAR_LONGLINK:
			r = tar_chain(s, src, &h);
			break;
		default:
			r = tar_member(s, src, &h, rec);
			break;
		}
		if (r)
			return r == NEED_MORE ? 0 : r;
	}
}

/* tar_headers(), and when it fails after the open run's last member, that
 * run goes out first: its members are whole (WebDataset, whose tarfile
 * stops quietly at a bad header, yields it too). The error stays for the
 * next call. */
static int tar_advance(struct wl_scanner *s, struct tar_src *src,
		       struct wl_record *rec)
{
	const int r = tar_headers(s, src, rec);
	const uint64_t fl = s->u[U_FLAGS];

	if (r >= 0 || !(fl >> F_ERR_SHIFT) || !(fl & F_RUN) ||
	    s->u[U_LAST_END] > s->err_off)
		return r;
	s->u[U_FLAGS] = fl & ~(uint64_t)F_RUN;
	rec->off = s->rec_start;
	rec->len = s->u[U_LAST_END] - s->rec_start;
	return 1;
}

void wl_tar_scan_init(struct wl_scanner *s)
{
	s->keep_from = 0;
	s->err_off = 0;
	s->records = 0;
	s->pos = 0;
	s->rec_start = 0;
	memset(s->u, 0, sizeof(s->u));
	memset(s->key, 0, sizeof(s->key));
	s->key_len = 0;
}

int wl_tar_scan_next(struct wl_scanner *s, const uint8_t *win,
		     uint64_t win_base, size_t win_len, bool eof,
		     struct wl_record *rec)
{
	struct tar_src src = {
		.end = eof ? win_base + win_len : UINT64_MAX,
		.win = win, .base = win_base, .len = win_len, .eof = eof,
	};
	const uint64_t win_end = win_base + win_len;
	uint64_t fl, keep;
	int r;

	if (win_base > s->keep_from)
		return -EINVAL;
	r = tar_advance(s, &src, rec);
	if (r == 1)
		s->records++;
	fl = s->u[U_FLAGS];
	if (fl & F_RUN)
		keep = s->rec_start;
	else if (fl & F_CHAIN)
		keep = s->u[U_CHAIN];
	else
		keep = s->pos;
	if ((fl >> F_ERR_SHIFT) || (fl & F_ENDED) || keep > win_end)
		keep = win_end;
	s->keep_from = keep;
	return r;
}

int wl_tar_walk_count(wl_pread_fn pread, void *arg, uint64_t size,
		      uint64_t max_record, uint64_t *count, uint64_t *err_off)
{
	struct tar_src src = { .end = size, .pread = pread, .arg = arg };
	struct wl_scanner s = { .fmt = WL_FORMAT_WDS, .max_record = max_record };
	struct wl_record rec;
	int r;

	wl_tar_scan_init(&s);
	*count = 0;
	while ((r = tar_advance(&s, &src, &rec)) == 1)
		(*count)++;
	free(src.buf);
	if (r <= -WL_FMT_E_BASE && err_off)
		*err_off = s.err_off;
	return r;
}

/* ---- one record's contents ---- */

static bool ext_is(const uint8_t *e, size_t n, const char *want)
{
	return n == strlen(want) && !strncasecmp((const char *)e, want, n);
}

/* The cls member: a decimal integer, whitespace around it. */
static int parse_label(const uint8_t *p, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	uint64_t v = 0;

	while (n && is_space(p[n - 1]))
		n--;
	while (i < n && is_space(p[i]))
		i++;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		neg = p[i++] == '-';
	if (i == n)
		return -WL_EBADREC;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -WL_EBADREC;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(p[i] - '0'), &v) ||
		    v > (uint64_t)INT64_MAX + neg)
			return -WL_EBADREC;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int wl_tar_unwrap(const uint8_t *rec, size_t len, struct wl_sample_view *out)
{
	return wl_tar_unwrap_key(rec, len, NULL, out);
}

int wl_tar_unwrap_key(const uint8_t *rec, size_t len, const char *key,
		      struct wl_sample_view *out)
{
	struct pax_info pi = { 0 };
	const uint8_t *gnu_path = NULL;
	size_t gnu_len = 0, off = 0;
	bool chain = false;

	memset(out, 0, sizeof(*out));
	while (off < len) {
		const size_t data = off + BLK;
		struct wl_tar_hdr h;
		const uint8_t *path, *e;
		size_t path_len, klen, ext_at, elen;
		uint64_t size;

		if (len - off < BLK)
			return -WL_ETRUNCREC;
		if (wl_tar_header_parse(rec + off, &h))
			return -WL_EBADHDR;     /* a zero block included */
		size = h.size;
		if (h.kind == WL_TAR_PAX || h.kind == WL_TAR_PAX_GLOBAL ||
		    h.kind == WL_TAR_LONGNAME || h.kind == WL_TAR_LONGLINK) {
			if (size > len - data)
				return -WL_ETRUNCREC;
			if (h.kind == WL_TAR_PAX) {
				struct pax_info one = { 0 };

				if (pax_parse(rec + data, (size_t)size, &one))
					return -WL_EBADHDR;
				if (one.has_path) {
					pi.has_path = true;
					pi.path_at = data + one.path_at;
					pi.path_len = one.path_len;
				}
				if (one.has_size) {
					pi.has_size = true;
					pi.size = one.size;
				}
			} else if (h.kind == WL_TAR_LONGNAME) {
				const uint8_t *nul = memchr(rec + data, 0, size);

				gnu_path = rec + data;
				gnu_len = nul ? (size_t)(nul - gnu_path) : size;
			}
			chain = true;
			off = data + (size_t)pad512(size);
			continue;
		}
		if (pi.has_size)
			size = pi.size;
		if (h.kind == WL_TAR_NODATA)
			size = 0;
		if (size > len - data)
			return -WL_ETRUNCREC;
		if (pi.has_path) {
			path = rec + pi.path_at;
			path_len = pi.path_len;
		} else if (gnu_path) {
			path = gnu_path;
			path_len = gnu_len;
		} else {
			path = (const uint8_t *)h.name;
			path_len = h.name_len;
		}
		if (h.kind == WL_TAR_FILE &&
		    tar_key(path, path_len, &klen, &ext_at)) {
			e = path + ext_at;
			elen = path_len - ext_at;
			if (!out->image) {
				enum wl_image_kind k = WL_IMAGE_UNKNOWN;
				bool take;

				if (ext_is(e, elen, "jpg") ||
				    ext_is(e, elen, "jpeg"))
					k = WL_IMAGE_JPEG;
				else if (ext_is(e, elen, "png"))
					k = WL_IMAGE_PNG;
				else if (ext_is(e, elen, "webp"))
					k = WL_IMAGE_WEBP;
				/* the member named, else the first image */
				take = key ? ext_is(e, elen, key) :
					     k != WL_IMAGE_UNKNOWN;
				if (take) {
					out->image = rec + data;
					out->image_len = (size_t)size;
					out->image_kind = k;
				}
			}
			if (!out->has_label && ext_is(e, elen, "cls")) {
				const int err = parse_label(rec + data, (size_t)size,
							    &out->label);

				if (err)
					return err;
				out->has_label = true;
			}
		}
		memset(&pi, 0, sizeof(pi));
		gnu_path = NULL;
		chain = false;
		off = data + (size_t)pad512(size);
	}
	if (chain || off != len)
		return -WL_ETRUNCREC;
	return out->image ? 0 : -WL_ENOIMAGE;
}
