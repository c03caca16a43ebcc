/*
 * fmt_testlib.h - helpers for the format tests: feed a shard's bytes to a
 * scanner in appends of a given size, the way the reader does (keep from
 * keep_from on, append, call again), and a pread over bytes in memory.
 */
#ifndef FEEDRATE_FMT_TESTLIB_H
#define FEEDRATE_FMT_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "harness.h"

struct ft_scan {
	struct wl_record *recs;
	size_t nrec;
	int err;                /* the scanner's last answer: 0 or < 0 */
	uint64_t err_off;
	size_t max_window;      /* the longest window it was given */
};

/*
 * Scan DATA (SIZE bytes) of format F in appends of CHUNK bytes. Every
 * record must lie inside the window given and inside DATA, and keep_from
 * inside the window; the window never holds more than MAX_RECORD + CHUNK
 * bytes. The caller frees out->recs.
 */
static inline void ft_scan_chunked(enum wl_format f,
				   const struct wl_mds_shard *mds,
				   const uint8_t *data, size_t size,
				   size_t chunk, uint64_t max_record,
				   struct ft_scan *out)
{
	struct wl_scanner s;
	size_t cap = 1 << 16, start = 0, wlen = 0, fed = 0, rcap = 64;
	uint8_t *buf = malloc(cap);
	uint64_t base = 0;

	memset(out, 0, sizeof(*out));
	out->recs = malloc(rcap * sizeof(*out->recs));
	cr_assert(buf && out->recs);
	wl_scan_init(&s, f, mds, max_record);
	for (;;) {
		struct wl_record rec;
		const bool eof = fed == size;
		int r = wl_scan_next(&s, buf + start, base, wlen, eof, &rec);

		if (wlen > out->max_window)
			out->max_window = wlen;
		if (r == 1) {
			cr_assert_geq(rec.off, base);
			cr_assert_leq(rec.off + rec.len, base + wlen,
				      "record %llu+%llu past the window end %llu",
				      (unsigned long long)rec.off,
				      (unsigned long long)rec.len,
				      (unsigned long long)(base + wlen));
			cr_assert_eq(memcmp(buf + start + (rec.off - base),
					    data + rec.off, rec.len), 0);
			if (out->nrec == rcap) {
				rcap *= 2;
				out->recs = realloc(out->recs,
						    rcap * sizeof(*out->recs));
				cr_assert_not_null(out->recs);
			}
			out->recs[out->nrec++] = rec;
			continue;
		}
		if (r < 0) {
			out->err = r;
			out->err_off = s.err_off;
			break;
		}
		cr_assert_eq(r, 0);
		if (eof)
			break;
		cr_assert(s.keep_from >= base && s.keep_from <= base + wlen,
			  "keep_from %llu outside [%llu, %llu]",
			  (unsigned long long)s.keep_from,
			  (unsigned long long)base,
			  (unsigned long long)(base + wlen));
		start += s.keep_from - base;
		wlen -= s.keep_from - base;
		base = s.keep_from;
		if (start > wlen) {     /* amortised: each byte moves O(1) */
			memmove(buf, buf + start, wlen);
			start = 0;
		}
		{
			size_t add = size - fed < chunk ? size - fed : chunk;

			while (start + wlen + add > cap) {
				cap *= 2;
				buf = realloc(buf, cap);
				cr_assert_not_null(buf);
			}
			memcpy(buf + start + wlen, data + fed, add);
			wlen += add;
			fed += add;
		}
		cr_assert_leq(wlen, max_record + chunk,
			      "window of %zu bytes for records of at most "
			      "%llu", wlen, (unsigned long long)max_record);
	}
	free(buf);
}

/* Both scans found the same records and ended the same way. */
static inline void ft_scan_expect_same(const struct ft_scan *a,
				       const struct ft_scan *b, size_t chunk)
{
	cr_expect_eq(a->nrec, b->nrec, "chunk %zu: %zu records, not %zu",
		     chunk, b->nrec, a->nrec);
	cr_expect_eq(a->err, b->err, "chunk %zu: ended %d, not %d", chunk,
		     b->err, a->err);
	if (a->err)
		cr_expect_eq(a->err_off, b->err_off);
	for (size_t i = 0; i < a->nrec && i < b->nrec; i++)
		cr_assert(a->recs[i].off == b->recs[i].off &&
			  a->recs[i].len == b->recs[i].len,
			  "chunk %zu: record %zu differs", chunk, i);
}

struct ft_mem {
	const uint8_t *p;
	size_t n;
	unsigned reads;
};

static inline int64_t ft_mem_pread(void *arg, void *buf, size_t len,
				   uint64_t off)
{
	struct ft_mem *m = arg;

	m->reads++;
	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - off;
	memcpy(buf, m->p + off, len);
	return (int64_t)len;
}

/* DIR/NAME's bytes, malloc'd with a NUL after them; fails the test when
 * unreadable. */
static inline uint8_t *ft_read_file(const char *dir, const char *name,
				    size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s unreadable", path);
	cr_assert(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
		  fseek(f, 0, SEEK_SET) == 0);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

#endif /* FEEDRATE_FMT_TESTLIB_H */
