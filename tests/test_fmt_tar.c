/*
 * test_fmt_tar.c - WebDataset tar shards. Archives come from an independent
 * writer, Python's tarfile (ustar, PAX and GNU formats), and the expected
 * samples from webdataset's own grouping rule (tariterators.py's
 * base_plus_ext regex, consecutive keys) run by the same script; headers
 * tarfile never writes (base-256 sizes, PAX sizes, global headers) are
 * made here. Checked: records and the image and label in each, error codes
 * and offsets, the same records whatever the appends, and the header
 * walk's count and reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt_internal.h"
#include "harness.h"

#define PY "/usr/bin/python3"
#define MAXREC 1024
#define BIG_RECORD (64u << 20)

/* ---- archives written by Python's tarfile ---- */

static const char py_prelude[] =
	"import io, os, re, sys, tarfile, random\n"
	"out = sys.argv[1]\n"
	"rnd = random.Random(7)\n"
	"def add(t, name, data=b'', kind=tarfile.REGTYPE, mtime=1700000000,"
	" link=''):\n"
	"    ti = tarfile.TarInfo(name)\n"
	"    ti.type, ti.mtime, ti.linkname = kind, mtime, link\n"
	"    ti.size = len(data) if kind == tarfile.REGTYPE else 0\n"
	"    t.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE"
	" else None)\n"
	"KINDS = {'jpg': 1, 'jpeg': 1, 'png': 2, 'webp': 3}\n"
	/* webdataset's tar_file_iterator + group_by_keys, with offsets */
	"def expect(path):\n"
	"    recs, cur = [], None\n"
	"    with tarfile.open(path, 'r|') as t:\n"
	"        for ti in t:\n"
	"            if not ti.isreg():\n"
	"                continue\n"
	"            m = re.match(r'^((?:.*/|)[^.]+)[.]([^/]*)$', ti.name)\n"
	"            if not m:\n"
	"                continue\n"
	"            k, e = m.group(1), m.group(2).lower()\n"
	"            data = t.extractfile(ti).read()\n"
	"            if cur is None or cur['key'] != k:\n"
	"                if cur:\n"
	"                    recs.append(cur)\n"
	"                cur = dict(key=k, off=ti.offset, img=-1, ilen=0,"
	" kind=0, label=None)\n"
	"            cur['end'] = ti.offset_data + (ti.size + 511) // 512 * 512\n"
	"            if e in KINDS and cur['img'] < 0:\n"
	"                cur.update(img=ti.offset_data, ilen=ti.size,"
	" kind=KINDS[e])\n"
	"            if e == 'cls' and cur['label'] is None:\n"
	"                cur['label'] = int(data)\n"
	"        if cur:\n"
	"            recs.append(cur)\n"
	"    for r in recs:\n"
	"        print(r['off'], r['end'] - r['off'], r['img'], r['ilen'],"
	" r['kind'], int(r['label'] is not None), r['label'] or 0)\n";

struct exp_rec {
	uint64_t off, len;
	int64_t img;            /* -1: no image */
	uint64_t ilen;
	int kind, has_label;
	long long label;
};

struct shard {
	char *dir;
	char path[4200];
	uint8_t *buf;
	size_t len;
	struct exp_rec exp[MAXREC];
	size_t nexp;
};

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "open %s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	cr_assert_not_null(p);
	cr_assert_eq(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

/* Run the prelude, BODY (which writes the archive to `out`) and expect()
 * on it; read the archive and the expected records. */
static void shard_make(struct shard *sh, const char *body)
{
	char *script, outp[4200];
	FILE *f;
	int rc;

	if (access(PY, X_OK))
		cr_skip_test(PY " is missing: the tar archives come from "
			     "Python's tarfile");
	memset(sh, 0, sizeof(*sh));
	sh->dir = fr_test_tmpdir();
	snprintf(sh->path, sizeof(sh->path), "%s/shard.tar", sh->dir);
	cr_assert_gt(asprintf(&script, "%s%s\nexpect(out)\n", py_prelude,
			      body), 0);
	{
		char *argv[] = { PY, "-c", script, sh->path, NULL };

		rc = fr_test_run(sh->dir, argv, 120);
	}
	free(script);
	snprintf(outp, sizeof(outp), "%s/stderr", sh->dir);
	cr_assert_eq(rc, 0, "python failed (see %s)", outp);
	snprintf(outp, sizeof(outp), "%s/stdout", sh->dir);
	f = fopen(outp, "r");
	cr_assert_not_null(f);
	while (sh->nexp < MAXREC) {
		struct exp_rec *e = &sh->exp[sh->nexp];

		if (fscanf(f, "%lu %lu %ld %lu %d %d %lld", &e->off, &e->len,
			   &e->img, &e->ilen, &e->kind, &e->has_label,
			   &e->label) != 7)
			break;
		sh->nexp++;
	}
	fclose(f);
	sh->buf = slurp(sh->path, &sh->len);
}

static void shard_free(struct shard *sh)
{
	free(sh->buf);
	fr_test_rmtree(sh->dir);
}

/* ---- feeding the scanner ---- */

struct scan_out {
	struct wl_record rec[MAXREC];
	size_t n;
	int end;                /* 0: clean end, else the error */
	uint64_t err_off;
};

/* Scan DATA as a reader would: a window that drops what is before
 * keep_from and grows by STEP bytes (0: everything at once). */
static void scan(const uint8_t *data, size_t len, size_t step,
		 uint64_t max_record, struct scan_out *o)
{
	struct wl_scanner s = { .fmt = WL_FORMAT_WDS,
				.max_record = max_record };
	size_t cap = 1 << 16, wlen = 0, fed = 0;
	uint8_t *win = malloc(cap);
	uint64_t base = 0;

	cr_assert_not_null(win);
	wl_tar_scan_init(&s);
	memset(o, 0, sizeof(*o));
	if (!step)
		step = len;
	for (;;) {
		struct wl_record r;
		const bool eof = fed == len;
		const int rc = wl_tar_scan_next(&s, win, base, wlen, eof, &r);
		size_t n, drop;

		if (rc == 1) {
			cr_assert_lt(o->n, MAXREC);
			cr_assert(r.off >= base && r.off + r.len <= base + wlen,
				  "record [%lu, +%lu) outside the window "
				  "[%lu, %lu)", r.off, r.len, base,
				  base + wlen);
			cr_assert_eq(memcmp(win + (r.off - base), data + r.off,
					    r.len), 0);
			cr_assert_eq(s.records, o->n + 1);
			o->rec[o->n++] = r;
			continue;
		}
		if (rc < 0) {
			o->end = rc;
			o->err_off = s.err_off;
			break;
		}
		cr_assert_eq(rc, 0);
		if (eof)
			break;
		/* the bound the scanner promises a reader */
		cr_assert_lt(base + wlen - s.keep_from,
			     max_record + WL_TAR_CHAIN_MAX);
		cr_assert(s.keep_from >= base && s.keep_from <= base + wlen);
		drop = (size_t)(s.keep_from - base);
		if (drop) {
			memmove(win, win + drop, wlen - drop);
			wlen -= drop;
			base += drop;
		}
		n = len - fed < step ? len - fed : step;
		if (wlen + n > cap) {
			cap = (wlen + n) * 2;
			win = realloc(win, cap);
			cr_assert_not_null(win);
		}
		memcpy(win + wlen, data + fed, n);
		wlen += n;
		fed += n;
	}
	free(win);
}

static void check_expected(const struct shard *sh, const struct scan_out *o)
{
	cr_assert_eq(o->end, 0, "scan ended with %d at %lu", o->end,
		     o->err_off);
	cr_assert_eq(o->n, sh->nexp, "%zu records, tarfile+webdataset: %zu",
		     o->n, sh->nexp);
	for (size_t i = 0; i < o->n; i++) {
		const struct exp_rec *e = &sh->exp[i];
		struct wl_sample_view v;
		int rc;

		cr_assert_eq(o->rec[i].off, e->off, "record %zu", i);
		cr_assert_eq(o->rec[i].len, e->len, "record %zu", i);
		rc = wl_tar_unwrap(sh->buf + e->off, e->len, &v);
		if (e->img < 0) {
			cr_assert_eq(rc, -WL_ENOIMAGE, "record %zu: %d", i, rc);
			continue;
		}
		cr_assert_eq(rc, 0, "record %zu: %d", i, rc);
		cr_assert_eq(v.image, sh->buf + e->img, "record %zu", i);
		cr_assert_eq(v.image_len, e->ilen, "record %zu", i);
		cr_assert_eq((int)v.image_kind, e->kind, "record %zu", i);
		cr_assert_eq(v.has_label, e->has_label, "record %zu", i);
		if (e->has_label)
			cr_assert_eq(v.label, e->label, "record %zu", i);
	}
}

/* ---- the header walk over a file ---- */

struct file_src {
	int fd;
	unsigned reads;
};

static int64_t file_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	struct file_src *f = arg;
	const ssize_t r = pread(f->fd, buf, len, (off_t)off);

	f->reads++;
	return r < 0 ? -errno : r;
}

static int walk(const char *path, uint64_t max_record, uint64_t *count,
		uint64_t *err_off, unsigned *reads)
{
	struct file_src f = { .fd = open(path, O_RDONLY) };
	struct stat st;
	int rc;

	cr_assert_geq(f.fd, 0);
	cr_assert_eq(fstat(f.fd, &st), 0);
	rc = wl_tar_walk_count(file_pread, &f, (uint64_t)st.st_size,
			       max_record, count, err_off);
	close(f.fd);
	if (reads)
		*reads = f.reads;
	return rc;
}

static void write_file(const char *path, const void *p, size_t n)
{
	const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* ---- archives made here, for what tarfile does not write ---- */

struct tw {
	uint8_t *b;
	size_t len, cap;
};

static void tw_raw(struct tw *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2 + 4096;
		t->b = realloc(t->b, t->cap);
		cr_assert_not_null(t->b);
	}
	if (p)
		memcpy(t->b + t->len, p, n);
	else
		memset(t->b + t->len, 0, n);
	t->len += n;
}

static void tw_pad(struct tw *t)
{
	tw_raw(t, NULL, (512 - t->len % 512) % 512);
}

static void hdr_sum(uint8_t *h, bool sign)
{
	int sum = 0;

	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += sign ? (int)(int8_t)h[i] : (int)h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

static void hdr_fill(uint8_t *h, const char *name, char type, uint64_t size)
{
	memset(h, 0, 512);
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	snprintf((char *)h + 124, 12, "%011lo",
		 (unsigned long)(size & 077777777777ul));
	memcpy(h + 136, "14540000000", 11);
	h[156] = (uint8_t)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	hdr_sum(h, false);
}

static void tw_entry(struct tw *t, const char *name, char type,
		     const void *data, size_t n)
{
	uint8_t h[512];

	hdr_fill(h, name, type, n);
	tw_raw(t, h, 512);
	tw_raw(t, data, n);
	tw_pad(t);
}

static void tw_file(struct tw *t, const char *name, const char *data)
{
	tw_entry(t, name, '0', data, strlen(data));
}

static void tw_end(struct tw *t)
{
	tw_raw(t, NULL, 1024);
}

/* ---- tests ---- */

FR_TEST(fmt_tar, ustar_members_group_by_the_webdataset_key)
{
	struct shard sh;
	struct scan_out o;

	shard_make(&sh,
		"t = tarfile.open(out, 'w', format=tarfile.USTAR_FORMAT)\n"
		"add(t, 'train', kind=tarfile.DIRTYPE)\n"
		"add(t, 'README', b'no key: skipped')\n"
		"add(t, 'train/n0144_11.cls', b'7\\n')\n"
		"add(t, 'train/n0144_11.jpg', rnd.randbytes(1000))\n"
		"add(t, 'train/n0144_12.cls', b' 12 ')\n"
		"add(t, 'train/n0144_12.JPEG', rnd.randbytes(512))\n"
		"add(t, 'a.b/c.cls', b'3')\n"
		"add(t, 'a.b/c.jpg', rnd.randbytes(700))\n"
		"add(t, 'x/y.cls', b'-4')\n"
		"add(t, 'x/y.png', rnd.randbytes(333))\n"
		"add(t, 'w.webp', rnd.randbytes(100))\n"
		"add(t, 's1.cls', b'1')\n"
		"add(t, 'inside', kind=tarfile.DIRTYPE)\n"
		"add(t, 's1.jpg', rnd.randbytes(900))\n"
		"add(t, 'd/.x.jpg', rnd.randbytes(10))\n"
		"add(t, 'd/.x.cls', b'5')\n"
		"add(t, 'e.f/.g.jpg', b'no key: dotted folder, dot name')\n"
		"add(t, 'n\\nl.a/b.jpg', b'no key: regex . stops at newline')\n"
		"add(t, 'only.cls', b'9')\n"
		"add(t, 'only.txt', b'no image here')\n"
		"add(t, 'm.seg.png', b'suffix seg.png: not an image')\n"
		"add(t, 'm.jpg', rnd.randbytes(50))\n"
		"add(t, 'p' * 120 + '/' + 'q' * 60 + '.jpg', rnd.randbytes(5))\n"
		"t.close()\n");
	cr_assert_eq(sh.nexp, 10, "tarfile+webdataset found %zu samples",
		     sh.nexp);
	/* the prefix field holds the long folder of the last member */
	cr_assert_eq(sh.buf[sh.exp[9].off + 345], 'p');
	scan(sh.buf, sh.len, 0, BIG_RECORD, &o);
	check_expected(&sh, &o);
	/* "a.b/c.cls" and "a.b/c.jpg" are one sample: key "a.b/c" */
	cr_assert_eq(sh.exp[2].has_label, 1);
	cr_assert_eq(sh.exp[2].label, 3);
	cr_assert_eq(sh.exp[2].ilen, 700);
	shard_free(&sh);
}

FR_TEST(fmt_tar, pax_headers_give_long_and_non_ascii_paths)
{
	struct shard sh;
	struct scan_out o;

	/* a fractional mtime gives every member a PAX header, as
	 * webdataset's TarWriter does */
	shard_make(&sh,
		"t = tarfile.open(out, 'w', format=tarfile.PAX_FORMAT)\n"
		"mt = 1700000000.25\n"
		"deep = 'L' * 300 + '/' + 'M' * 40\n"
		"for i in range(4):\n"
		"    add(t, f'donn\\u00e9es/\\u00e9l\\u00e8ve_{i}.cls',"
		" str(i).encode(), mtime=mt)\n"
		"    add(t, f'donn\\u00e9es/\\u00e9l\\u00e8ve_{i}.jpg',"
		" rnd.randbytes(3000 + i), mtime=mt)\n"
		"add(t, deep + '.cls', b'42', mtime=mt)\n"
		"add(t, deep + '.jpg', rnd.randbytes(4000), mtime=mt)\n"
		"add(t, deep + 'x.jpg', rnd.randbytes(10), mtime=mt)\n"
		"t.close()\n");
	cr_assert_eq(sh.nexp, 6);
	for (size_t i = 0; i < sh.nexp; i++)
		cr_assert_eq(sh.buf[sh.exp[i].off + 156], 'x',
			     "record %zu starts at its PAX header", i);
	scan(sh.buf, sh.len, 0, BIG_RECORD, &o);
	check_expected(&sh, &o);
	cr_assert_eq(sh.exp[4].label, 42);
	shard_free(&sh);
}

FR_TEST(fmt_tar, gnu_long_names_come_from_L_headers)
{
	struct shard sh;
	struct scan_out o;

	shard_make(&sh,
		"t = tarfile.open(out, 'w', format=tarfile.GNU_FORMAT)\n"
		"long = 'k' * 150\n"
		"add(t, long + '.cls', b'8')\n"
		"add(t, 'lnk', kind=tarfile.SYMTYPE, link='z' * 200)\n"
		"add(t, long + '.jpg', rnd.randbytes(2000))\n"
		"add(t, long + 'y.jpg', rnd.randbytes(20))\n"
		"add(t, 'short.jpg', rnd.randbytes(20))\n"
		"t.close()\n");
	cr_assert_eq(sh.nexp, 3);
	cr_assert_eq(sh.buf[sh.exp[0].off + 156], 'L');
	cr_assert_eq(sh.buf[sh.exp[1].off + 156], 'L');
	scan(sh.buf, sh.len, 0, BIG_RECORD, &o);
	check_expected(&sh, &o);
	/* the symlink (with its 'K' header) sits inside the first sample */
	cr_assert_eq(sh.exp[0].label, 8);
	cr_assert_eq(sh.exp[0].ilen, 2000);
	shard_free(&sh);
}

FR_TEST(fmt_tar, size_fields_parse_as_octal_or_base256)
{
	static const uint64_t big = (8ull << 30) + 3;   /* 8 GiB + 3 */
	struct wl_tar_hdr h;
	uint8_t b[512];

	hdr_fill(b, "big.jpg", '0', 0);
	memset(b + 124, 0, 12);
	b[124] = 0x80;
	for (int i = 0; i < 8; i++)
		b[135 - i] = (uint8_t)(big >> (8 * i));
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_eq(h.size, big);
	cr_assert_eq(h.kind, WL_TAR_FILE);
	cr_assert_str_eq(h.name, "big.jpg");

	b[124] = 0xff;          /* negative base-256 */
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), -WL_EBADHDR);

	memcpy(b + 124, "  1234567 \0\0", 12);  /* spaces around */
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_eq(h.size, 01234567);

	memcpy(b + 124, "00000000008\0", 12);   /* not octal */
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), -WL_EBADHDR);

	memset(b + 124, 0, 12);                 /* empty is 0 */
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_eq(h.size, 0);
}

FR_TEST(fmt_tar, checksums_signed_or_unsigned_and_names_by_magic)
{
	struct wl_tar_hdr h;
	uint8_t b[512], zero[512] = { 0 };

	hdr_fill(b, "\xe9t\xe9.jpg", '0', 1);   /* bytes >= 0x80 */
	hdr_sum(b, true);                       /* old tars' signed sum */
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	b[5]++;
	cr_assert_eq(wl_tar_header_parse(b, &h), -WL_EBADHDR);
	cr_assert_eq(wl_tar_header_parse(zero, &h), 1, "end of archive");

	/* ustar: prefix "/" name; GNU magic: no prefix field */
	hdr_fill(b, "n.jpg", '0', 0);
	memcpy(b + 345, "pre/fix", 7);
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_str_eq(h.name, "pre/fix/n.jpg");
	cr_assert_eq(h.name_len, 13);
	cr_assert_eq(h.magic, WL_TAR_USTAR);
	memcpy(b + 257, "ustar  \0", 8);
	hdr_sum(b, false);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_str_eq(h.name, "n.jpg");
	cr_assert_eq(h.magic, WL_TAR_GNU);

	/* an old-style directory: type '\0', name ending in '/' */
	hdr_fill(b, "dir/", '\0', 0);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_eq(h.kind, WL_TAR_NODATA);
	hdr_fill(b, "file", '\0', 0);
	cr_assert_eq(wl_tar_header_parse(b, &h), 0);
	cr_assert_eq(h.kind, WL_TAR_FILE);
}

FR_TEST(fmt_tar, pax_size_and_path_apply_to_the_next_member_only)
{
	struct tw t = { 0 };
	struct scan_out o;
	struct wl_sample_view v;
	const char *glob = "19 path=global.jpg\n";
	const char *pax = "16 path=s/7.jpg\n" "10 size=5\n";

	/* 'g' is ignored; the 'x' path and size replace the ustar fields
	 * (name "ignored", size 0) of the member after it, and no other */
	tw_entry(&t, "././@PaxHeader", 'g', glob, strlen(glob));
	tw_file(&t, "s/7.cls", "77");
	tw_entry(&t, "././@PaxHeader", 'x', pax, strlen(pax));
	{
		uint8_t h[512];

		hdr_fill(h, "ignored", '0', 0);
		tw_raw(&t, h, 512);
		tw_raw(&t, "IMAGE", 5);
		tw_pad(&t);
	}
	tw_file(&t, "u.jpg", "JPG");
	tw_end(&t);
	scan(t.b, t.len, 0, BIG_RECORD, &o);
	cr_assert_eq(o.end, 0);
	cr_assert_eq(o.n, 2);
	cr_assert_eq(o.rec[0].off, 0, "the global header starts the run");
	cr_assert_eq(o.rec[0].len, 512 * 8);
	cr_assert_eq(wl_tar_unwrap(t.b, o.rec[0].len, &v), 0);
	cr_assert_eq(v.image_len, 5);
	cr_assert_eq(memcmp(v.image, "IMAGE", 5), 0);
	cr_assert_eq(v.label, 77);
	cr_assert_eq(o.rec[1].off, 512 * 8);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[1].off, o.rec[1].len, &v), 0);
	cr_assert_eq(v.image_len, 3);
	free(t.b);
}

FR_TEST(fmt_tar, a_sample_without_an_image_is_no_image)
{
	struct tw t = { 0 };
	struct scan_out o;
	struct wl_sample_view v;

	tw_file(&t, "a.cls", "1");
	tw_file(&t, "a.txt", "words");
	tw_file(&t, "b.cls", "5");
	tw_file(&t, "b.jpg", "J");
	tw_file(&t, "c.cls", "x1");     /* not a number */
	tw_file(&t, "c.jpg", "J");
	tw_end(&t);
	scan(t.b, t.len, 0, BIG_RECORD, &o);
	cr_assert_eq(o.n, 3);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[0].off, o.rec[0].len, &v),
		     -WL_ENOIMAGE);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[1].off, o.rec[1].len, &v), 0);
	cr_assert_eq(v.label, 5);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[2].off, o.rec[2].len, &v),
		     -WL_EBADREC);
	/* the cls member alone has no image; a record cut inside a member
	 * is not taken apart */
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[1].off, 1024, &v),
		     -WL_ENOIMAGE);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[1].off, o.rec[1].len - 1, &v),
		     -WL_ETRUNCREC);
	cr_assert_eq(wl_tar_unwrap(t.b + o.rec[1].off, 1024 + 300, &v),
		     -WL_ETRUNCREC);
	free(t.b);
}

static const char pax_many[] =
	"t = tarfile.open(out, 'w', format=tarfile.PAX_FORMAT)\n"
	"for i in range(%d):\n"
	"    add(t, f'shard/{i:06d}.cls', str(i %% 1000).encode(),"
	" mtime=1.5e9 + i / 8)\n"
	"    add(t, f'shard/{i:06d}.jpg', rnd.randbytes(rnd.randrange(%d)),"
	" mtime=1.5e9)\n"
	"t.close()\n";

FR_TEST(fmt_tar, records_do_not_depend_on_where_appends_fall)
{
	static const size_t steps[] = { 1, 511, 4096, 1 << 20 };
	struct scan_out *all = malloc(sizeof(*all)), *o = malloc(sizeof(*o));
	struct shard *sh = malloc(sizeof(*sh));
	char body[1024];

	cr_assert(all && o && sh);
	snprintf(body, sizeof(body), pax_many, 150, 20000);
	shard_make(sh, body);
	cr_assert_eq(sh->nexp, 150);
	cr_assert_gt(sh->len, 1 << 20, "some records straddle 1 MiB");
	scan(sh->buf, sh->len, 0, BIG_RECORD, all);
	check_expected(sh, all);
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		scan(sh->buf, sh->len, steps[k], BIG_RECORD, o);
		cr_assert_eq(o->end, 0, "step %zu", steps[k]);
		cr_assert_eq(o->n, all->n, "step %zu", steps[k]);
		cr_assert_eq(memcmp(o->rec, all->rec, o->n * sizeof(o->rec[0])),
			     0, "step %zu", steps[k]);
	}
	shard_free(sh);
	free(sh);
	free(all);
	free(o);
}

FR_TEST(fmt_tar, a_bad_checksum_is_a_bad_header_at_its_offset)
{
	struct shard sh;
	struct scan_out o, o2;
	char bad[4300];
	uint64_t count, err_off;
	const size_t k = 3;

	shard_make(&sh,
		"t = tarfile.open(out, 'w', format=tarfile.USTAR_FORMAT)\n"
		"for i in range(6):\n"
		"    add(t, f'{i}.cls', b'1')\n"
		"    add(t, f'{i}.jpg', rnd.randbytes(900))\n"
		"t.close()\n");
	cr_assert_eq(sh.nexp, 6);
	sh.buf[sh.exp[k].off + 3] ^= 0x20;      /* a byte of the name */
	scan(sh.buf, sh.len, 0, BIG_RECORD, &o);
	cr_assert_eq(o.end, -WL_EBADHDR);
	cr_assert_eq(o.err_off, sh.exp[k].off);
	cr_assert_eq(o.n, k, "the samples before it are whole");
	scan(sh.buf, sh.len, 700, BIG_RECORD, &o2);
	cr_assert_eq(o2.end, -WL_EBADHDR);
	cr_assert_eq(o2.err_off, o.err_off);
	cr_assert_eq(o2.n, k);
	/* the same from the header walk */
	snprintf(bad, sizeof(bad), "%s/bad.tar", sh.dir);
	write_file(bad, sh.buf, sh.len);
	cr_assert_eq(walk(bad, BIG_RECORD, &count, &err_off, NULL),
		     -WL_EBADHDR);
	cr_assert_eq(count, k);
	cr_assert_eq(err_off, sh.exp[k].off);
	shard_free(&sh);
}

FR_TEST(fmt_tar, a_stream_ending_inside_a_member_is_a_truncated_record)
{
	struct shard sh;
	struct scan_out o;
	char cut[4300];
	uint64_t count, err_off;
	size_t last;

	shard_make(&sh,
		"t = tarfile.open(out, 'w', format=tarfile.USTAR_FORMAT)\n"
		"for i in range(4):\n"
		"    add(t, f'{i}.cls', b'2')\n"
		"    add(t, f'{i}.jpg', rnd.randbytes(3000))\n"
		"t.close()\n");
	cr_assert_eq(sh.nexp, 4);
	last = sh.nexp - 1;
	/* inside the last jpg's data: the error is at its header */
	scan(sh.buf, (size_t)sh.exp[last].img + 1000, 0, BIG_RECORD, &o);
	cr_assert_eq(o.end, -WL_ETRUNCREC);
	cr_assert_eq(o.err_off, (uint64_t)sh.exp[last].img - 512);
	cr_assert_eq(o.n, last);
	snprintf(cut, sizeof(cut), "%s/cut.tar", sh.dir);
	write_file(cut, sh.buf, (size_t)sh.exp[last].img + 1000);
	cr_assert_eq(walk(cut, BIG_RECORD, &count, &err_off, NULL),
		     -WL_ETRUNCREC);
	cr_assert_eq(count, last);
	cr_assert_eq(err_off, o.err_off);
	/* inside a header: the samples before it are whole */
	scan(sh.buf, (size_t)sh.exp[2].off + 100, 333, BIG_RECORD, &o);
	cr_assert_eq(o.end, -WL_ETRUNCREC);
	cr_assert_eq(o.err_off, sh.exp[2].off);
	cr_assert_eq(o.n, 2);
	/* at a block boundary, without the zero blocks: a clean end */
	scan(sh.buf, (size_t)(sh.exp[last].off + sh.exp[last].len), 0,
	     BIG_RECORD, &o);
	cr_assert_eq(o.end, 0);
	cr_assert_eq(o.n, sh.nexp);
	shard_free(&sh);
}

FR_TEST(fmt_tar, the_archive_ends_at_a_zero_block)
{
	struct tw t = { 0 };
	struct scan_out o;

	tw_file(&t, "a.jpg", "A");
	tw_raw(&t, NULL, 512);          /* one zero block ends it */
	tw_raw(&t, "garbage after the end", 21);
	scan(t.b, t.len, 0, BIG_RECORD, &o);
	cr_assert_eq(o.end, 0);
	cr_assert_eq(o.n, 1);
	cr_assert_eq(o.rec[0].len, 1024);
	/* PAX headers with no member after them */
	t.len = 0;
	tw_file(&t, "a.jpg", "A");
	tw_entry(&t, "././@PaxHeader", 'x', "12 path=b.c\n", 12);
	tw_end(&t);
	scan(t.b, t.len, 0, BIG_RECORD, &o);
	cr_assert_eq(o.end, -WL_EBADHDR);
	cr_assert_eq(o.err_off, 1024);
	cr_assert_eq(o.n, 1);
	free(t.b);
}

FR_TEST(fmt_tar, a_record_longer_than_max_record_is_a_bad_header)
{
	struct tw t = { 0 };
	struct scan_out o;
	static char big[5000];

	memset(big, 'j', sizeof(big) - 1);
	tw_file(&t, "a.cls", "1");
	tw_file(&t, "a.jpg", "A");              /* record 0: 2048 bytes */
	tw_file(&t, "b.cls", "2");
	tw_file(&t, "b.jpg", big);              /* record 1: 6656 bytes */
	tw_end(&t);
	scan(t.b, t.len, 0, 4096, &o);
	cr_assert_eq(o.n, 1);
	cr_assert_eq(o.end, -WL_EBADHDR);
	cr_assert_eq(o.err_off, 3072, "at the header that makes it long");
	scan(t.b, t.len, 0, 6656, &o);
	cr_assert_eq(o.end, 0);
	cr_assert_eq(o.n, 2);
	free(t.b);
}

FR_TEST(fmt_tar, the_header_walk_counts_what_the_scanner_finds)
{
	struct shard *sh = malloc(sizeof(*sh));
	struct scan_out *o = malloc(sizeof(*o));
	uint64_t count = 0, err_off = 0;
	unsigned reads = 0;
	char body[1024];

	cr_assert(sh && o);
	snprintf(body, sizeof(body), pax_many, 300, 30000);
	shard_make(sh, body);
	scan(sh->buf, sh->len, 0, BIG_RECORD, o);
	check_expected(sh, o);
	cr_assert_eq(walk(sh->path, BIG_RECORD, &count, &err_off, &reads), 0);
	cr_assert_eq(count, o->n);
	/* one read per member header, its PAX header read with it */
	cr_assert_leq(reads, 2 * count + 2, "%u reads for %lu samples",
		      reads, count);
	/* and with a bound that cuts the shard short */
	scan(sh->buf, sh->len, 0, 20000, o);
	cr_assert_eq(o->end, -WL_EBADHDR);
	cr_assert_eq(walk(sh->path, 20000, &count, &err_off, NULL),
		     -WL_EBADHDR);
	cr_assert_eq(count, o->n);
	cr_assert_eq(err_off, o->err_off);
	shard_free(sh);
	free(sh);
	free(o);
}
