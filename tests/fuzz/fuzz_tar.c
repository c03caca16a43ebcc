/*
 * fuzz_tar.c - libFuzzer target for the WebDataset tar reader
 * (formats/fmt_tar.c). The input is a shard. Checks:
 *  - every 512-byte block parses as a header, the end, or a bad header,
 *    and a parsed name is as long as it says;
 *  - the scanner's records lie inside the input, in order, without
 *    overlap, on block boundaries, no longer than max_record;
 *  - the same records, end and error offset whether the input comes at
 *    once or in appends of random sizes through a window that drops what
 *    is before keep_from, which never has to grow past max_record +
 *    WL_TAR_CHAIN_MAX;
 *  - the header walk (through a pread over the input) counts as many
 *    records and ends the same way;
 *  - unwrap of a record the scanner cut finds no header or size fault in
 *    it, and its image lies inside the record; unwrap of the raw input
 *    stays inside it.
 * Each input runs with no effective record bound and with a small one,
 * and again with the checksums of its headers made right (most mutations
 * of a header would otherwise stop at its checksum).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXREC 64       /* records in a few KiB: at most one per block */

struct scan_out {
	struct wl_record rec[MAXREC];
	size_t n;
	int end;
	uint64_t err_off;
};

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* STEP 0: the whole input at once; else appends of 1..STEP bytes drawn
 * from SEED. */
static void scan(const uint8_t *data, size_t size, uint64_t max_record,
		 size_t step, uint64_t seed, struct scan_out *o)
{
	struct wl_scanner s = { .fmt = WL_FORMAT_WDS,
				.max_record = max_record };
	uint8_t *win = malloc(size ? size : 1);
	size_t wlen = 0, fed = 0;
	uint64_t base = 0;

	if (!win)
		abort();
	wl_tar_scan_init(&s);
	memset(o, 0, sizeof(*o));
	for (;;) {
		struct wl_record r;
		const bool eof = fed == size;
		const int rc = wl_tar_scan_next(&s, win, base, wlen, eof, &r);
		size_t n, drop;

		if (rc == 1) {
			if (o->n == MAXREC || r.off < base ||
			    r.off + r.len > base + wlen ||
			    memcmp(win + (r.off - base), data + r.off, r.len))
				abort();
			o->rec[o->n++] = r;
			continue;
		}
		if (rc < 0) {
			if (rc > -WL_FMT_E_BASE || rc <= -WL_FMT_E_END)
				abort();        /* no -errno from a window */
			o->end = rc;
			o->err_off = s.err_off;
			break;
		}
		if (rc != 0)
			abort();
		if (eof)
			break;
		if (s.keep_from < base || s.keep_from > base + wlen ||
		    base + wlen - s.keep_from >= max_record + WL_TAR_CHAIN_MAX)
			abort();
		drop = (size_t)(s.keep_from - base);
		memmove(win, win + drop, wlen - drop);
		wlen -= drop;
		base += drop;
		n = step ? 1 + (size_t)(rng_next(&seed) % step) : size;
		if (n > size - fed)
			n = size - fed;
		memcpy(win + wlen, data + fed, n);
		wlen += n;
		fed += n;
	}
	free(win);
}

struct mem {
	const uint8_t *p;
	size_t n;
};

static int64_t mem_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = arg;

	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - (size_t)off;
	memcpy(buf, m->p + off, len);
	return (int64_t)len;
}

static void check_records(const uint8_t *data, size_t size,
			  uint64_t max_record, const struct scan_out *o)
{
	uint64_t prev_end = 0;

	for (size_t i = 0; i < o->n; i++) {
		const struct wl_record *r = &o->rec[i];
		struct wl_sample_view v;
		int rc;

		if (r->off < prev_end || !r->len || r->len > max_record ||
		    r->off + r->len > size || r->off % 512 || r->len % 512)
			abort();
		prev_end = r->off + r->len;
		rc = wl_tar_unwrap(data + r->off, (size_t)r->len, &v);
		if (rc && rc != -WL_ENOIMAGE && rc != -WL_EBADREC)
			abort();
		if (!rc && (v.image < data + r->off ||
			    v.image + v.image_len > data + r->off + r->len))
			abort();
	}
	if (o->end && (o->err_off > size || o->err_off % 512))
		abort();
}

static void run(const uint8_t *data, size_t size, uint64_t max_record,
		uint64_t seed)
{
	struct scan_out all, part;
	struct mem m = { data, size };
	uint64_t count = 0, err_off = 0;
	int rc;

	scan(data, size, max_record, 0, 0, &all);
	check_records(data, size, max_record, &all);
	for (int k = 0; k < 3; k++) {
		static const size_t steps[] = { 8, 600, 1500 };

		scan(data, size, max_record, steps[k], seed + (uint64_t)k,
		     &part);
		if (part.n != all.n || part.end != all.end ||
		    (all.end && part.err_off != all.err_off) ||
		    memcmp(part.rec, all.rec, all.n * sizeof(all.rec[0])))
			abort();
	}
	rc = wl_tar_walk_count(mem_pread, &m, size, max_record, &count,
			       &err_off);
	if (rc != all.end || count != all.n || (rc && err_off != all.err_off))
		abort();
}

/* Give the headers met by walking sizes from the start their right
 * checksum. Returns whether a byte changed. */
static bool fix_sums(uint8_t *d, size_t size)
{
	bool changed = false;
	size_t off = 0;

	while (size - off >= 512) {
		uint8_t *h = d + off, old[8];
		struct wl_tar_hdr th;
		unsigned sum = 0;
		uint64_t n;

		memcpy(old, h + 148, 8);
		memset(h + 148, ' ', 8);
		for (int i = 0; i < 512; i++)
			sum += h[i];
		if (sum == 8 * ' ') {           /* a zero block */
			memcpy(h + 148, old, 8);
			break;
		}
		snprintf((char *)h + 148, 7, "%06o", sum & 0777777);
		h[154] = 0;
		changed |= memcmp(old, h + 148, 8) != 0;
		if (wl_tar_header_parse(h, &th))
			break;
		n = th.kind == WL_TAR_NODATA ? 0 : (th.size + 511) / 512 * 512;
		if (n > size - off - 512)
			break;
		off += 512 + (size_t)n;
	}
	return changed;
}

static void check(const uint8_t *data, size_t size)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct wl_sample_view v;

	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	seed |= 1;
	for (size_t off = 0; off < size; off += 512) {
		uint8_t blk[512] = { 0 };
		struct wl_tar_hdr h;
		int rc;

		memcpy(blk, data + off, size - off < 512 ? size - off : 512);
		rc = wl_tar_header_parse(blk, &h);
		if (rc != 0 && rc != 1 && rc != -WL_EBADHDR)
			abort();
		if (rc == 0 && (strlen(h.name) != h.name_len ||
				h.typeflag != blk[156]))
			abort();
	}
	run(data, size, (uint64_t)1 << 40, seed);
	run(data, size, 1024 + 512 * (size % 5), seed);
	if (!wl_tar_unwrap(data, size, &v) &&
	    (v.image < data || v.image + v.image_len > data + size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = malloc(size ? size : 1);

	if (!fixed)
		abort();
	check(data, size);
	memcpy(fixed, data, size);
	if (fix_sums(fixed, size))
		check(fixed, size);
	free(fixed);
	return 0;
}
