/*
 * test_volumes.c - the 3-D volume path against an independent writer and
 * reader: numpy (Debian's /usr/bin/python3) writes .npy files in format
 * versions 1, 2 and 3 and .npz files with savez / savez_compressed (and
 * with zipfile's zip64 limit lowered, so the zip64 extra fields and end
 * records appear in small files); augment's readers must give numpy's
 * arrays, its crops numpy's own slicing of the same arrays, damaged files
 * distinct errors at the right offsets; the transforms map those errors
 * to the loader's kinds; and what `gen` writes loads in numpy (the .npy
 * and .npz files byte for byte what numpy.save / numpy.savez write for
 * the same arrays). Tests skip where numpy is missing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt_npy.h"
#include "formats.h"
#include "harness.h"
#include <jansson.h>
#include "loader.h"
#include "volumes.h"
#include "gen_internal.h"

#define PY "/usr/bin/python3"

/* The fixture writer and the reference cropper, run by numpy. */
static const char fixture_py[] =
"import sys, io, zipfile, numpy as np\n"
"cmd, out = sys.argv[1], sys.argv[2]\n"
"def arr(dt, shape, seed):\n"
"    n = int(np.prod(shape))\n"
"    a = (np.arange(n, dtype=np.int64) * 7919 + seed * 31) % 251\n"
"    if dt in ('|i1', '<i2'):\n"
"        a = a - 120\n"
"    if dt == '<i2':\n"
"        a = a * 97\n"
"    if dt == '<f4':\n"
"        return (a.astype(np.float32) * 0.5 - 30.25).reshape(shape)\n"
"    return a.astype(dt).reshape(shape)\n"
"def shape_of(s):\n"
"    return tuple(int(x) for x in s.split(',') if x)\n"
"if cmd == 'npy':\n"
"    dt, ver, shape = sys.argv[3], sys.argv[4], shape_of(sys.argv[5])\n"
"    a = arr(dt, shape, 1)\n"
"    with open(out, 'wb') as f:\n"
"        if ver == 'save':\n"
"            np.save(f, a)\n"
"        else:\n"
"            np.lib.format.write_array(f, a, version=(int(ver), 0))\n"
"    a.tofile(out + '.raw')\n"
"elif cmd == 'npz':\n"
"    mode, dt, shape = sys.argv[3], sys.argv[4], shape_of(sys.argv[5])\n"
"    x, y = arr(dt, shape, 1), arr('|u1', shape, 2)\n"
"    names = sys.argv[6].split(',') if len(sys.argv) > 6 else ['x', 'y']\n"
"    kw = {names[0]: x, names[1]: y}\n"
"    if mode == 'zip64':\n"
"        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 64, 1\n"
"    if mode == 'compressed':\n"
"        np.savez_compressed(out, **kw)\n"
"    else:\n"
"        np.savez(out, **kw)\n"
"    z = np.load(out)\n"
"    assert (z[names[0]] == x).all() and (z[names[1]] == y).all()\n"
"    x.tofile(out + '.x.raw')\n"
"    y.tofile(out + '.y.raw')\n"
"elif cmd == 'complex':\n"
"    np.save(out, np.zeros((2, 3, 4), np.complex64))\n"
"elif cmd == 'fortran':\n"
"    np.save(out, np.asfortranarray(arr('<f4', (3, 4, 5), 1)))\n"
"elif cmd == 'crop':\n"
"    # lines: FILE s0 s1 s2 f0 f1 f2 n0 n1 n2 OUT\n"
"    for line in open(out):\n"
"        w = line.split()\n"
"        a = np.load(w[0])\n"
"        if w[0].endswith('.npz'):\n"
"            a = a['x']\n"
"        v = a[(0,) * (a.ndim - 3)].astype(np.float32)\n"
"        st, fl, n = [int(t) for t in w[1:4]], w[4:7], \\\n"
"            [int(t) for t in w[7:10]]\n"
"        pad = [(max(0, -s), max(0, s + k - d))\n"
"               for s, k, d in zip(st, n, v.shape)]\n"
"        p = np.pad(v, pad)\n"
"        c = p[tuple(slice(s + b[0], s + b[0] + k)\n"
"                    for s, k, b in zip(st, n, pad))]\n"
"        for k in range(3):\n"
"            if fl[k] == '1':\n"
"                c = np.flip(c, axis=k)\n"
"        np.ascontiguousarray(c, dtype='<f4').tofile(w[10])\n"
"elif cmd == 'log1p':\n"
"    x = np.fromfile(out, '<i2')\n"
"    e = np.log1p(np.maximum(x, 0).astype(np.float64)).astype('<f4')\n"
"    e.tofile(out + '.expect')\n"
"elif cmd == 'same_as_numpy':\n"
"    # every .npy / .npz under OUT: loads, and numpy writes it the same\n"
"    import glob, os\n"
"    files = sorted(glob.glob(out + '/*.np[yz]'))\n"
"    assert files, 'no files'\n"
"    for f in files:\n"
"        b = io.BytesIO()\n"
"        if f.endswith('.npy'):\n"
"            a = np.load(f)\n"
"            assert a.dtype == np.float32 and a.ndim == 3, a.dtype\n"
"            assert a.shape[1:] == (256, 256) and a.shape[0] >= 128\n"
"            np.save(b, a)\n"
"        else:\n"
"            z = np.load(f)\n"
"            assert z.files == ['x', 'y'], z.files\n"
"            x, y = z['x'], z['y']\n"
"            assert x.dtype == np.uint8 and y.dtype == np.uint8\n"
"            assert x.shape == y.shape and x.shape[:2] == (256, 256)\n"
"            assert x.shape[2] >= 128 and y.max() == 2\n"
"            np.savez(b, x=x, y=y)\n"
"        assert b.getvalue() == open(f, 'rb').read(), f\n"
"        print(f, os.path.getsize(f))\n"
"elif cmd == 'cosmo':\n"
"    # every .tfrecord under OUT: one Example, x int16 of SHAPE, y 4\n"
"    import glob, struct\n"
"    shape = shape_of(sys.argv[3])\n"
"    def varint(b, p):\n"
"        v = s = 0\n"
"        while True:\n"
"            c = b[p]; p += 1; v |= (c & 0x7f) << s; s += 7\n"
"            if c < 0x80:\n"
"                return v, p\n"
"    def fields(b):\n"
"        p = 0\n"
"        while p < len(b):\n"
"            k, p = varint(b, p)\n"
"            assert k & 7 == 2, k\n"
"            n, p = varint(b, p)\n"
"            yield k >> 3, b[p:p + n]\n"
"            p += n\n"
"    files = sorted(glob.glob(out + '/*.tfrecord'))\n"
"    assert files\n"
"    for f in files:\n"
"        d = open(f, 'rb').read()\n"
"        n, = struct.unpack('<Q', d[:8])\n"
"        assert 16 + n == len(d)\n"
"        (fid, feats), = list(fields(d[12:12 + n]))\n"
"        got = {}\n"
"        for fid, ent in fields(feats):\n"
"            e = dict(fields(ent))\n"
"            got[e[1].decode()] = dict(fields(e[2]))\n"
"        assert sorted(got) == ['x', 'y']\n"
"        x = np.frombuffer(dict(fields(got['x'][1]))[1], '<i2')\n"
"        x = x.reshape(shape)\n"
"        y = np.frombuffer(dict(fields(got['y'][2]))[1], '<f4')\n"
"        assert x.min() >= 0 and x.max() > 100 and len(y) == 4\n"
"        assert np.abs(np.diff(x[:, :, :, 0], axis=2)).mean() < \\\n"
"            x[:, :, :, 0].std(), 'not smooth'\n"
"        print(f, len(d))\n";

static char *dir_;          /* the test's folder (freed in the .fini) */
static char *script_;

static void need_numpy(void)
{
	if (access(PY, X_OK))
		cr_skip_test(PY " is missing (Debian's python3)");
	if (system(PY " -c 'import numpy' >/dev/null 2>&1"))
		cr_skip_test("numpy is missing (Debian's python3-numpy)");
}

static void setup(void)
{
	FILE *f;

	dir_ = fr_test_tmpdir();
	cr_assert_not_null(dir_);
	cr_assert_geq(asprintf(&script_, "%s/fixture.py", dir_), 0);
	f = fopen(script_, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(fixture_py, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

static void teardown(void)
{
	free(script_);
	script_ = NULL;
	fr_test_rmtree(dir_);
	dir_ = NULL;
}

TestSuite(volumes, .init = setup, .fini = teardown);

static char *path(const char *name)
{
	char *p;

	cr_assert_geq(asprintf(&p, "%s/%s", dir_, name), 0);
	return p;
}

/* Runs the fixture script with ARGS (a shell-word string). */
static void py(const char *args)
{
	char *cmd;

	cr_assert_geq(asprintf(&cmd, PY " %s %s >/dev/null", script_, args),
		      0);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	free(cmd);
}

static uint8_t *slurp(const char *p, size_t *len)
{
	struct stat sb;
	uint8_t *b;
	FILE *f = fopen(p, "rb");

	cr_assert_not_null(f, "open %s", p);
	cr_assert_eq(fstat(fileno(f), &sb), 0);
	b = malloc((size_t)sb.st_size + 1);
	cr_assert_not_null(b);
	cr_assert_eq(fread(b, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
	fclose(f);
	*len = (size_t)sb.st_size;
	return b;
}

static void spit(const char *p, const void *b, size_t n)
{
	FILE *f = fopen(p, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

static uint8_t *npy_fixture(const char *name, const char *dt,
			    const char *ver, const char *shape, size_t *len,
			    uint8_t **raw, size_t *raw_len)
{
	char *p = path(name), *a, *r;
	uint8_t *b;

	cr_assert_geq(asprintf(&a, "npy %s '%s' %s %s", p, dt, ver, shape),
		      0);
	py(a);
	b = slurp(p, len);
	cr_assert_geq(asprintf(&r, "%s.raw", p), 0);
	*raw = slurp(r, raw_len);
	free(a);
	free(r);
	free(p);
	return b;
}

static uint8_t *npz_fixture(const char *name, const char *mode,
			    const char *dt, const char *shape,
			    const char *names, size_t *len, uint8_t **xraw,
			    size_t *xlen)
{
	char *p = path(name), *a, *r;
	uint8_t *b;

	cr_assert_geq(asprintf(&a, "npz %s %s '%s' %s %s", p, mode, dt, shape,
			       names ? names : ""), 0);
	py(a);
	b = slurp(p, len);
	if (xraw) {
		cr_assert_geq(asprintf(&r, "%s.x.raw", p), 0);
		*xraw = slurp(r, xlen);
		free(r);
	}
	free(a);
	free(p);
	return b;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* ---- .npy ---- */

FR_TEST(volumes, npy_reads_numpy_versions_1_2_3_in_every_dtype)
{
	static const struct {
		const char *descr;
		enum aug_vol_dtype dt;
		unsigned size;
	} dts[] = {
		{ "|u1", AUG_VOL_U8, 1 }, { "|i1", AUG_VOL_I8, 1 },
		{ "<i2", AUG_VOL_I16, 2 }, { "<u2", AUG_VOL_U16, 2 },
		{ "<f4", AUG_VOL_F32, 4 },
	};
	static const char *const vers[] = { "save", "1", "2", "3" };

	need_numpy();
	for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++)
		for (size_t v = 0; v < 4; v++) {
			size_t len, rlen;
			uint8_t *raw, *b = npy_fixture("a.npy", dts[i].descr,
						       vers[v], "5,7,9", &len,
						       &raw, &rlen);
			struct wl_npy h;
			struct wl_vol_err e;
			const int rc = wl_npy_parse(b, len, &h, &e);

			cr_assert_eq(rc, 0, "%s v%s: %d %s at %llu",
				     dts[i].descr, vers[v], rc,
				     wl_vol_fault_name(e.fault),
				     (unsigned long long)e.off);
			cr_expect_eq(h.version, v == 0 ? 1u :
				     (unsigned)atoi(vers[v]));
			cr_expect_eq(h.dtype, dts[i].dt);
			cr_expect_eq(h.itemsize, dts[i].size);
			cr_expect_eq(h.ndim, 3u);
			cr_expect(h.shape[0] == 5 && h.shape[1] == 7 &&
				  h.shape[2] == 9);
			cr_expect_eq(h.data_bytes, rlen);
			cr_expect_eq(h.data_off + h.data_bytes, len);
			cr_expect_eq(memcmp(b + h.data_off, raw, rlen), 0);
			free(b);
			free(raw);
		}
}

FR_TEST(volumes, npy_header_forms_numpy_accepts_parse)
{
	/* hand-written headers: key order, quotes, a 1-tuple, Python 2 */
	static const struct {
		const char *dict;
		unsigned ndim;
		uint64_t d0;
	} cases[] = {
		{ "{'shape': (2, 3, 4), 'fortran_order': False, 'descr': "
		  "'|u1'}", 3, 2 },
		{ "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": "
		  "(24,), }", 1, 24 },
		{ "{'descr':'|u1','fortran_order':False,'shape':(2L, 12L)}",
		  2, 2 },
		{ "{'descr': '|u1', 'fortran_order': False, 'shape': (), }",
		  0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b[256] = "\x93NUMPY\x01\x00";
		const size_t n = strlen(cases[i].dict);
		struct wl_npy h;

		memcpy(b + 10, cases[i].dict, n);
		b[10 + n] = '\n';
		b[8] = (uint8_t)(n + 1);
		memset(b + 11 + n, 7, 24);   /* the data: 24 bytes at most */
		cr_assert_eq(wl_npy_parse(b, 11 + n + 24, &h, NULL), 0,
			     "%s", cases[i].dict);
		cr_expect_eq(h.ndim, cases[i].ndim);
		cr_expect_eq(h.data_off, 11 + n);
		if (h.ndim)
			cr_expect_eq(h.shape[0], cases[i].d0);
	}
}

/* ---- .npz ---- */

static void expect_member(struct wl_vol_reader *r, const uint8_t *b,
			  size_t len, const char *key, const uint8_t *raw,
			  size_t rlen, bool inflated)
{
	struct wl_vol_array a;
	struct wl_vol_err e;
	const int rc = wl_vol_open(r, b, len, key, &a, &e);

	cr_assert_eq(rc, 0, "key %s: %d %s at %llu", key ? key : "(none)",
		     rc, wl_vol_fault_name(e.fault),
		     (unsigned long long)e.off);
	cr_expect_eq(a.npy.data_bytes, rlen);
	cr_expect_eq(memcmp(a.arr.data, raw, rlen), 0, "key %s", key);
	cr_expect_eq(a.inflated != 0, inflated);
	if (inflated)
		cr_expect_eq(a.inflated, a.npy.data_off + a.npy.data_bytes);
}

FR_TEST(volumes, npz_members_stored_deflated_and_zip64)
{
	static const char *const modes[] = { "savez", "compressed", "zip64" };
	struct wl_vol_reader *r;

	need_numpy();
	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	for (size_t m = 0; m < 3; m++) {
		size_t len, xlen, ylen;
		uint8_t *x, *y, *b = npz_fixture("a.npz", modes[m], "<i2",
						 "6,10,12", NULL, &len, &x,
						 &xlen);
		char *yp = path("a.npz.y.raw");
		struct wl_zip_member zm;
		struct wl_vol_err e;

		y = slurp(yp, &ylen);
		expect_member(r, b, len, NULL, x, xlen, m == 1);
		expect_member(r, b, len, "x", x, xlen, m == 1);
		expect_member(r, b, len, "x.npy", x, xlen, m == 1);
		expect_member(r, b, len, "y", y, ylen, m == 1);
		cr_expect_eq(wl_zip_find(b, len, "z", &zm, &e),
			     -AUG_ENOTJPEG);
		cr_expect_eq(e.fault, WL_VF_ZIP_NO_MEMBER);
		cr_assert_eq(wl_zip_find(b, len, "y", &zm, &e), 0);
		cr_expect_eq(zm.method, m == 1 ? 8 : 0);
		if (m == 2) {
			/* the zip64 fields were really there: the central
			 * record's sizes and offset are 0xFFFFFFFF */
			const uint8_t *eocd = b + len - 22;
			const uint64_t cd = rd32(eocd + 16);

			cr_expect_eq(memcmp(b + len - 42, "PK\x06\x07", 4),
				     0, "no zip64 locator");
			cr_expect_eq(rd32(b + cd + 20), 0xffffffffu);
			cr_expect_eq(rd32(b + cd + 24), 0xffffffffu);
		}
		free(b);
		free(x);
		free(y);
		free(yp);
	}
	wl_vol_reader_destroy(r);
}

FR_TEST(volumes, npz_without_x_takes_its_first_npy_member)
{
	size_t len, xlen;
	uint8_t *x, *b;
	struct wl_vol_reader *r;

	need_numpy();
	b = npz_fixture("ab.npz", "savez", "|u1", "4,5,6", "image,label",
			&len, &x, &xlen);
	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	expect_member(r, b, len, NULL, x, xlen, false);
	expect_member(r, b, len, "image", x, xlen, false);
	wl_vol_reader_destroy(r);
	free(b);
	free(x);
}

/* ---- crops ---- */

struct crop_case {
	const char *file;       /* under the test's folder */
	struct aug_vol_crop c;
};

/* Crops every case in C and in numpy; the floats must be equal. */
static void check_crops(const struct crop_case *cc, size_t n)
{
	char *list = path("crops.txt"), *cmd;
	FILE *f = fopen(list, "w");
	struct aug_vol *v;
	struct wl_vol_reader *r;

	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++) {
		const struct aug_vol_crop *c = &cc[i].c;

		fprintf(f, "%s/%s %lld %lld %lld %d %d %d %u %u %u %s/crop%zu\n",
			dir_, cc[i].file, (long long)c->start[0],
			(long long)c->start[1], (long long)c->start[2],
			c->flip[0], c->flip[1], c->flip[2], c->size[0],
			c->size[1], c->size[2], dir_, i);
	}
	cr_assert_eq(fclose(f), 0);
	cr_assert_geq(asprintf(&cmd, "crop %s", list), 0);
	py(cmd);
	cr_assert_eq(aug_vol_create(&v), 0);
	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	for (size_t i = 0; i < n; i++) {
		const struct aug_vol_crop *c = &cc[i].c;
		const size_t vox = (size_t)c->size[0] * c->size[1] *
				   c->size[2];
		char *fp = path(cc[i].file), *ep;
		size_t len, elen;
		uint8_t *b = slurp(fp, &len), *want;
		float *got = malloc(vox * sizeof(float));
		struct wl_vol_array a;

		cr_assert_geq(asprintf(&ep, "%s/crop%zu", dir_, i), 0);
		want = slurp(ep, &elen);
		cr_assert_eq(elen, vox * sizeof(float));
		cr_assert_eq(wl_vol_open(r, b, len, NULL, &a, NULL), 0);
		memset(got, 0xee, vox * sizeof(float));
		cr_assert_eq(aug_vol_crop_f32(v, &a.arr, c, got, NULL), 0);
		cr_expect_eq(memcmp(got, want, elen), 0,
			     "%s start %lld %lld %lld flip %d %d %d differs "
			     "from numpy", cc[i].file, (long long)c->start[0],
			     (long long)c->start[1], (long long)c->start[2],
			     c->flip[0], c->flip[1], c->flip[2]);
		free(b);
		free(want);
		free(got);
		free(fp);
		free(ep);
	}
	aug_vol_destroy(v);
	wl_vol_reader_destroy(r);
	free(cmd);
	free(list);
}

static void add(struct crop_case *cc, size_t *n, const char *file,
		uint32_t n0, uint32_t n1, uint32_t n2, int64_t s0, int64_t s1,
		int64_t s2, unsigned flips)
{
	cc[*n] = (struct crop_case){
		.file = file,
		.c = { .size = { n0, n1, n2 }, .start = { s0, s1, s2 },
		       .flip = { flips & 1, flips & 2, flips & 4 } },
	};
	(*n)++;
}

FR_TEST(volumes, crops_equal_numpy_slicing_with_padding_and_flips)
{
	struct crop_case cc[64];
	size_t n = 0, len, rl;
	uint8_t *b, *raw;

	need_numpy();
	/* u8 larger than the crop on two axes, smaller on one; i16 4-D
	 * (index 0 of the first axis); f32 smaller on every axis; an .npz
	 * of each kind */
	free(npy_fixture("u8.npy", "|u1", "save", "40,50,9", &len, &raw, &rl));
	free(raw);
	free(npy_fixture("i16.npy", "<i2", "2", "3,20,37,41", &len, &raw,
			 &rl));
	free(raw);
	free(npy_fixture("f32.npy", "<f4", "3", "10,11,12", &len, &raw, &rl));
	free(raw);
	b = npz_fixture("s.npz", "savez", "|u1", "30,33,35", NULL, &len,
			NULL, NULL);
	free(b);
	b = npz_fixture("c.npz", "compressed", "<i2", "30,33,35", NULL, &len,
			NULL, NULL);
	free(b);
	/* every flip combination on one crop that pads W */
	for (unsigned f = 0; f < 8; f++)
		add(cc, &n, "u8.npy", 16, 16, 16, 10, 5, -3, f);
	add(cc, &n, "u8.npy", 16, 16, 16, 0, 0, -7, 0);
	add(cc, &n, "u8.npy", 16, 16, 16, 24, 34, 0, 5);
	add(cc, &n, "u8.npy", 40, 50, 9, 0, 0, 0, 7);
	add(cc, &n, "i16.npy", 16, 32, 8, 4, 5, 33, 0);
	add(cc, &n, "i16.npy", 16, 32, 8, 0, 0, 0, 6);
	add(cc, &n, "i16.npy", 21, 40, 44, -1, -3, -2, 3);
	add(cc, &n, "f32.npy", 16, 16, 16, -6, -5, -4, 0);
	add(cc, &n, "f32.npy", 16, 16, 16, 0, 0, 0, 7);
	add(cc, &n, "f32.npy", 16, 16, 16, -3, -2, -1, 2);
	add(cc, &n, "f32.npy", 4, 5, 6, 6, 6, 6, 4);
	add(cc, &n, "s.npz", 8, 8, 8, 22, 25, 27, 1);
	add(cc, &n, "s.npz", 8, 8, 8, 3, 4, 5, 6);
	add(cc, &n, "c.npz", 32, 40, 30, -2, -7, 5, 5);
	/* and crops as the transform draws them */
	for (uint64_t id = 0; id < 6; id++) {
		static const uint32_t sz[3] = { 16, 16, 16 };
		static const uint64_t u8d[3] = { 40, 50, 9 };
		static const uint64_t f32d[3] = { 10, 11, 12 };

		cc[n].file = id & 1 ? "f32.npy" : "u8.npy";
		aug_vol_crop_draw(id & 1 ? f32d : u8d, sz, true, 42, 3, id,
				  &cc[n].c);
		n++;
	}
	check_crops(cc, n);
}

FR_TEST(volumes, an_array_without_elements_crops_to_zeros)
{
	/* a 4-D array whose leading axis is 0: the last three are not */
	static const char dict[] = "{'descr': '<f4', 'fortran_order': False, "
				   "'shape': (0, 2, 3, 2), }";
	static const uint32_t size[3] = { 2, 3, 2 };
	uint8_t b[128] = "\x93NUMPY\x01\x00";
	const size_t n = sizeof(dict) - 1;
	float out[12];
	struct aug_vol *v;
	struct wl_vol_reader *r;
	struct wl_vol_array a;
	struct aug_vol_crop c;

	memcpy(b + 10, dict, n);
	b[10 + n] = '\n';
	b[8] = (uint8_t)(n + 1);
	cr_assert_eq(aug_vol_create(&v), 0);
	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	cr_assert_eq(wl_vol_open(r, b, 11 + n, NULL, &a, NULL), 0);
	cr_expect(a.arr.dims[0] == 0 && a.arr.dims[1] == 0 && a.arr.dims[2] == 0);
	aug_vol_crop_draw(a.arr.dims, size, true, 1, 0, 0, &c);
	memset(out, 0xff, sizeof(out));
	cr_assert_eq(aug_vol_crop_f32(v, &a.arr, &c, out, NULL), 0);
	for (unsigned i = 0; i < 12; i++)
		cr_expect_eq(out[i], 0.0f);
	aug_vol_destroy(v);
	wl_vol_reader_destroy(r);
}

FR_TEST(volumes, crop_draws_are_deterministic_uniform_and_in_range)
{
	static const uint64_t dims[3] = { 300, 128, 90 };
	static const uint32_t size[3] = { 128, 128, 128 };
	unsigned flips[3] = { 0 }, lo0 = 0, hi0 = 0;

	for (uint64_t id = 0; id < 2000; id++) {
		struct aug_vol_crop a, b, nf;

		aug_vol_crop_draw(dims, size, true, 7, 1, id, &a);
		aug_vol_crop_draw(dims, size, true, 7, 1, id, &b);
		aug_vol_crop_draw(dims, size, false, 7, 1, id, &nf);
		for (unsigned k = 0; k < 3; k++)
			cr_assert(a.start[k] == b.start[k] &&
				  a.flip[k] == b.flip[k] &&
				  a.size[k] == size[k]);
		cr_assert(a.start[0] >= 0 && a.start[0] <= 172);
		cr_assert_eq(a.start[1], 0);
		cr_assert(a.start[2] >= -38 && a.start[2] <= 0);
		cr_assert_eq(nf.start[0], a.start[0]);
		cr_assert(!nf.flip[0] && !nf.flip[1] && !nf.flip[2]);
		for (unsigned k = 0; k < 3; k++)
			flips[k] += a.flip[k];
		lo0 += a.start[0] < 86;
		hi0 += a.start[0] == 172;
	}
	for (unsigned k = 0; k < 3; k++)
		cr_expect(flips[k] > 900 && flips[k] < 1100, "axis %u: %u", k,
			  flips[k]);
	cr_expect(lo0 > 900 && lo0 < 1100, "%u of 2000 in the lower half",
		  lo0);
	cr_expect_gt(hi0, 0u, "the last start is never drawn");
}

/* ---- damaged files: distinct faults at their offsets ---- */

static int open_err(const uint8_t *b, size_t len, struct wl_vol_err *e)
{
	struct wl_vol_reader *r;
	struct wl_vol_array a;
	int rc;

	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	rc = wl_vol_open(r, b, len, NULL, &a, e);
	wl_vol_reader_destroy(r);
	return rc;
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* What the error tests found, for the distinctness check. */
struct seen {
	int rc;
	enum wl_vol_fault fault;
};

static void expect_err(const uint8_t *b, size_t len, int rc,
		       enum wl_vol_fault fault, uint64_t off,
		       const char *what, struct seen *s)
{
	struct wl_vol_err e;
	const int got = open_err(b, len, &e);

	cr_expect_eq(got, rc, "%s: %d, not %d", what, got, rc);
	cr_expect_eq(e.fault, fault, "%s: %s, not %s", what,
		     wl_vol_fault_name(e.fault), wl_vol_fault_name(fault));
	cr_expect_eq(e.off, off, "%s: at %llu, not %llu", what,
		     (unsigned long long)e.off, (unsigned long long)off);
	if (s)
		*s = (struct seen){ got, e.fault };
}

FR_TEST(volumes, damaged_files_fail_with_distinct_faults_at_their_offsets)
{
	struct seen s[8] = { { 0 } };
	size_t len, rl, clen;
	uint8_t *raw, *b, *c, *x;
	struct wl_zip_member zm;
	uint64_t cd_off;
	char *hit;

	need_numpy();
	/* a corrupt central directory: its first record's signature */
	b = npz_fixture("d.npz", "savez", "|u1", "8,9,10", NULL, &len, NULL,
			NULL);
	cd_off = rd32(b + len - 22 + 16);
	c = malloc(len);
	memcpy(c, b, len);
	c[cd_off] ^= 0xff;
	expect_err(c, len, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, cd_off,
		   "corrupt central directory", &s[0]);
	/* ... and a record's name length running past the directory */
	memcpy(c, b, len);
	c[cd_off + 28] = 0xff;
	c[cd_off + 29] = 0xff;
	expect_err(c, len, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, cd_off,
		   "name past the central directory", NULL);

	/* ... and a record pointing past the members */
	memcpy(c, b, len);
	wr32(c + cd_off + 42, 0x7fffffff);
	expect_err(c, len, -AUG_ECORRUPT, WL_VF_ZIP_CDIR, cd_off,
		   "local header offset outside", NULL);

	/* a file cut inside x.npy's data: no end record */
	expect_err(b, 200, -AUG_ETRUNCATED, WL_VF_ZIP_EOCD, 200,
		   "file cut short", &s[1]);
	/* a member whose central sizes run past its data */
	cr_assert_eq(wl_zip_find(b, len, "x", &zm, NULL), 0);
	memcpy(c, b, len);
	wr32(c + cd_off + 20, (uint32_t)zm.csize + 4000);
	wr32(c + cd_off + 24, (uint32_t)zm.usize + 4000);
	expect_err(c, len, -AUG_ETRUNCATED, WL_VF_ZIP_TRUNCATED, zm.data_off,
		   "truncated member", &s[2]);
	/* a STORED byte flipped: the CRC */
	memcpy(c, b, len);
	c[zm.data_off + zm.usize - 1] ^= 1;
	expect_err(c, len, -AUG_ECORRUPT, WL_VF_CRC, zm.data_off,
		   "CRC mismatch", &s[3]);
	/* an unknown method */
	memcpy(c, b, len);
	c[cd_off + 10] = 14;    /* LZMA */
	expect_err(c, len, -AUG_EUNSUPPORTED, WL_VF_ZIP_METHOD, cd_off,
		   "LZMA member", &s[4]);
	free(b);
	free(c);

	/* a DEFLATE stream with a reserved block type */
	b = npz_fixture("dc.npz", "compressed", "|u1", "8,9,10", NULL, &len,
			NULL, NULL);
	cr_assert_eq(wl_zip_find(b, len, "x", &zm, NULL), 0);
	cr_assert_eq(zm.method, 8);
	b[zm.data_off] = 0x07;  /* BFINAL 1, BTYPE 11 */
	expect_err(b, len, -AUG_ECORRUPT, WL_VF_DEFLATE, zm.data_off,
		   "bad DEFLATE stream", &s[5]);
	free(b);

	/* complex64: an unsupported dtype, at its descr value */
	hit = path("cx.npy");
	{
		char *a;

		cr_assert_geq(asprintf(&a, "complex %s", hit), 0);
		py(a);
		free(a);
	}
	b = slurp(hit, &len);
	x = memmem(b, len, "'<c8'", 5);
	cr_assert_not_null(x);
	expect_err(b, len, -AUG_EUNSUPPORTED, WL_VF_NPY_DTYPE,
		   (uint64_t)(x - b), "complex dtype", &s[6]);
	free(b);
	free(hit);

	/* fortran order, at its True */
	hit = path("fo.npy");
	{
		char *a;

		cr_assert_geq(asprintf(&a, "fortran %s", hit), 0);
		py(a);
		free(a);
	}
	b = slurp(hit, &len);
	x = memmem(b, len, "True", 4);
	cr_assert_not_null(x);
	expect_err(b, len, -AUG_EUNSUPPORTED, WL_VF_NPY_FORTRAN,
		   (uint64_t)(x - b), "fortran order", &s[7]);
	free(b);
	free(hit);

	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = i + 1; j < 8; j++)
			cr_expect(s[i].fault != s[j].fault,
				  "cases %u and %u give the same fault %s", i,
				  j, wl_vol_fault_name(s[i].fault));

	/* an .npy cut inside its data; a 2-D array; not numpy at all */
	b = npy_fixture("f.npy", "<f4", "save", "4,5,6", &len, &raw, &rl);
	expect_err(b, len - 1, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, len - 1,
		   "short data", NULL);
	expect_err(b, 9, -AUG_ETRUNCATED, WL_VF_NPY_SHORT, 9,
		   "cut in the magic", NULL);
	b[6] = 4;
	expect_err(b, len, -AUG_EUNSUPPORTED, WL_VF_NPY_VERSION, 6,
		   "version 4", NULL);
	free(b);
	free(raw);
	b = npy_fixture("g.npy", "<f4", "save", "4,5", &len, &raw, &rl);
	expect_err(b, len, -AUG_EUNSUPPORTED, WL_VF_DIMS, 8, "2-D", NULL);
	expect_err((const uint8_t *)"GIF89a..", 8, -AUG_ENOTJPEG,
		   WL_VF_NOT_NUMPY, 0, "a GIF", NULL);
	free(b);
	free(raw);
	/* in an inflated member: the member's offset, and the one inside */
	b = npz_fixture("dd.npz", "compressed", "<f4", "3,3", NULL, &clen,
			NULL, NULL);
	cr_assert_eq(wl_zip_find(b, clen, "x", &zm, NULL), 0);
	{
		struct wl_vol_err e;

		cr_expect_eq(open_err(b, clen, &e), -AUG_EUNSUPPORTED);
		cr_expect_eq(e.fault, WL_VF_DIMS);
		cr_expect_eq(e.off, zm.data_off);
		cr_expect_eq(e.inner_off, 8u);
	}
	free(b);
}

FR_TEST(volumes, inflate_cap_is_too_large_not_a_huge_allocation)
{
	size_t len;
	uint8_t *b;
	struct wl_vol_reader *r;
	struct wl_vol_array a;
	struct wl_vol_err e;

	need_numpy();
	b = npz_fixture("big.npz", "compressed", "<f4", "64,64,64", NULL,
			&len, NULL, NULL);
	cr_assert_eq(wl_vol_reader_create(4096, &r), 0);
	cr_expect_eq(wl_vol_open(r, b, len, NULL, &a, &e), -AUG_ETOOLARGE);
	cr_expect_eq(e.fault, WL_VF_TOO_LARGE);
	wl_vol_reader_destroy(r);
	free(b);
}

/* ---- the transforms ---- */

static struct wl_transform_state tstate;

static struct ldr_transform make(enum wl_xform x, const uint32_t crop[3])
{
	struct wl_workload w = { .name = "t", .xform = x };
	struct ldr_transform t;
	char desc[256];

	if (crop)
		memcpy(w.xp.vol_crop, crop, sizeof(w.xp.vol_crop));
	w.xp.vol_flip = true;
	cr_assert_eq(wl_transform_make(&w, &tstate, &t, desc, sizeof(desc)),
		     0);
	cr_expect_neq(desc[0], '\0');
	return t;
}

static int apply(const struct ldr_transform *t, const void *b, size_t len,
		 uint64_t id, void *out, struct ldr_step_times *st)
{
	void *ctx = NULL;
	int rc;

	if (t->ctx_create)
		cr_assert_eq(t->ctx_create(t->arg, &ctx), 0);
	rc = t->apply(ctx, b, len, 5, 2, id, out, st);
	if (t->ctx_destroy)
		t->ctx_destroy(ctx);
	return rc;
}

FR_TEST(volumes, volume_transform_is_the_drawn_crop_and_counts_inflated_bytes)
{
	static const uint32_t crop[3] = { 8, 12, 16 };
	struct ldr_transform t = make(WL_XFORM_VOLUME, crop);
	const size_t vox = 8 * 12 * 16;
	float *o1 = malloc(vox * 4), *o2 = malloc(vox * 4), *o3 =
		malloc(vox * 4);
	struct ldr_step_times st = { 0 };
	struct aug_vol *v;
	struct wl_vol_reader *r;
	struct wl_vol_array a;
	struct aug_vol_crop c;
	size_t len;
	uint8_t *b;
	bool differs = false;

	need_numpy();
	cr_expect_eq(t.out_bytes, vox * sizeof(float));
	cr_expect_str_eq(t.name, "volume-crop");
	b = npz_fixture("t.npz", "compressed", "<i2", "20,30,40", NULL, &len,
			NULL, NULL);
	cr_assert_eq(apply(&t, b, len, 9, o1, &st), 0);
	cr_assert_eq(apply(&t, b, len, 9, o2, NULL), 0);
	cr_expect_eq(memcmp(o1, o2, vox * 4), 0, "not deterministic");
	/* the same as the crop drawn for (seed 5, epoch 2, id 9) */
	cr_assert_eq(aug_vol_create(&v), 0);
	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	cr_assert_eq(wl_vol_open(r, b, len, NULL, &a, NULL), 0);
	aug_vol_crop_draw(a.arr.dims, crop, true, 5, 2, 9, &c);
	cr_assert_eq(aug_vol_crop_f32(v, &a.arr, &c, o3, NULL), 0);
	cr_expect_eq(memcmp(o1, o3, vox * 4), 0);
	cr_expect_eq(st.decompressed_bytes, a.inflated);
	cr_expect_gt(st.decompressed_bytes, 20u * 30 * 40 * 2);
	cr_expect(st.decode_s > 0 && st.resize_s > 0 && st.other_s > 0);
	for (uint64_t id = 10; id < 14 && !differs; id++) {
		cr_assert_eq(apply(&t, b, len, id, o2, NULL), 0);
		differs = memcmp(o1, o2, vox * 4) != 0;
	}
	cr_expect(differs, "every id gives the same crop");
	aug_vol_destroy(v);
	wl_vol_reader_destroy(r);
	wl_transform_state_release(&tstate);
	free(b);
	free(o1);
	free(o2);
	free(o3);
}

FR_TEST(volumes, volume_transform_errors_are_the_loaders_kinds)
{
	struct ldr_transform t = make(WL_XFORM_VOLUME, NULL);
	float *o = malloc(t.out_bytes);
	size_t len;
	uint8_t *b;
	uint64_t cd;

	need_numpy();
	cr_expect_eq(t.out_bytes, 128u * 128 * 128 * 4);
	b = npz_fixture("e.npz", "savez", "|u1", "4,4,4", NULL, &len, NULL,
			NULL);
	cr_expect_eq(apply(&t, b, len - 30, 0, o, NULL), -LDR_ETRUNCATED);
	cd = rd32(b + len - 22 + 16);
	b[cd] ^= 1;
	cr_expect_eq(apply(&t, b, len, 0, o, NULL), -LDR_ECORRUPT);
	cr_expect_eq(apply(&t, "not a volume", 12, 0, o, NULL),
		     -LDR_ENOTFORMAT);
	free(b);
	b = npz_fixture("e2.npz", "savez", "|u1", "4,4", NULL, &len, NULL,
			NULL);
	cr_expect_eq(apply(&t, b, len, 0, o, NULL), -LDR_EUNSUPPORTED);
	free(b);
	free(o);
}

FR_TEST(volumes, cosmoflow_output_is_numpys_log1p_with_negatives_as_zero)
{
	struct ldr_transform t = make(WL_XFORM_COSMOFLOW, NULL);
	const size_t n = 70u * 70 * 72 * 4;
	int16_t *x = malloc(n * 2 + 64);
	float *o = malloc(n * 4);
	struct ldr_step_times st = { 0 };
	char *xp = path("cosmo.raw"), *ep, *a;
	size_t elen;
	uint8_t *want;

	need_numpy();
	cr_expect_eq(t.out_bytes, n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		x[i] = (int16_t)(i % 7 == 0 ? -(int)(i % 3000) :
				 (int)((i * 2654435761u) >> 17));
	x[0] = 32767;
	x[1] = -32768;
	spit(xp, x, n * 2);
	cr_assert_geq(asprintf(&a, "log1p %s", xp), 0);
	py(a);
	cr_assert_geq(asprintf(&ep, "%s.expect", xp), 0);
	want = slurp(ep, &elen);
	cr_assert_eq(elen, n * 4);
	/* bytes past the shape are not read */
	cr_assert_eq(apply(&t, x, n * 2 + 64, 0, o, &st), 0);
	cr_expect_eq(memcmp(o, want, elen), 0);
	cr_expect_eq(o[1], 0.0f);
	cr_expect_gt(st.other_s, 0.0);
	cr_expect_eq(apply(&t, x, n * 2 - 1, 0, o, NULL), -LDR_ETRUNCATED);
	wl_transform_state_release(&tstate);
	free(x);
	free(o);
	free(xp);
	free(ep);
	free(a);
	free(want);
}

/* ---- gen ---- */

/* A workload entry with small files, for the generators. */
static struct wl_workload small(double mean, double sd)
{
	return (struct wl_workload){ .name = "t", .mean_file_bytes = mean,
				     .sd_file_bytes = sd };
}

static int gen(const struct wl_gen_ops *ops, const struct wl_workload *w,
	       const char *sub, uint64_t files, uint64_t size, uint64_t seed,
	       unsigned jobs, struct wl_gen_stats *st)
{
	char *d = path(sub);
	const struct wl_gen_opts o = { .files = files, .size_bytes = size,
				       .seed = seed, .jobs = jobs };
	int rc = ops->generate(w, d, &o, st);

	free(d);
	return rc;
}

FR_TEST(volumes, gen_npy_and_npz_are_what_numpy_writes)
{
	const struct wl_workload w = small(30e6, 8e6);
	struct wl_gen_stats st;
	char *a;

	need_numpy();
	cr_assert_eq(gen(&wl_gen_npy_volumes, &w, "npy", 2, 0, 1, 2, &st), 0);
	cr_expect_eq(st.files, 2u);
	cr_assert_geq(asprintf(&a, "same_as_numpy %s/npy", dir_), 0);
	py(a);
	free(a);
	cr_assert_eq(gen(&wl_gen_npz_volumes, &w, "npz", 2, 0, 1, 2, &st), 0);
	cr_expect_eq(st.files, 2u);
	cr_assert_geq(asprintf(&a, "same_as_numpy %s/npz", dir_), 0);
	py(a);
	free(a);
}

FR_TEST(volumes, gen_cosmoflow_records_hold_x_and_y)
{
	struct wl_workload w = small(2.83e6, 0);
	struct wl_gen_stats st;
	char *a, *f;
	uint8_t *b;
	size_t len;

	need_numpy();
	w.xp.cosmo_shape[0] = 10;
	w.xp.cosmo_shape[1] = 12;
	w.xp.cosmo_shape[2] = 14;
	w.xp.cosmo_shape[3] = 4;
	cr_assert_eq(gen(&wl_gen_cosmoflow, &w, "cf", 0, 100000, 1, 2, &st),
		     0);
	/* 10x12x14x4 int16 is 13,440 bytes: 8 files reach 100,000 */
	cr_expect_eq(st.files, 8u);
	cr_expect_geq(st.bytes, 100000u);
	cr_assert_geq(asprintf(&a, "cosmo %s/cf 10,12,14,4", dir_), 0);
	py(a);
	free(a);
	/* TFRecord framing and CRCs, by the project's reader */
	cr_assert_geq(asprintf(&f, "%s/cf/img_00003_of_8.tfrecord", dir_), 0);
	b = slurp(f, &len);
	{
		struct wl_scanner s;
		struct wl_record r;

		wl_scan_init(&s, WL_FORMAT_TFRECORD, NULL, 1u << 20);
		cr_expect_eq(wl_scan_next(&s, b, 0, len, true, &r), 1);
		cr_expect_eq(r.len, len);
		cr_expect_eq(wl_scan_next(&s, b, 0, len, true, &r), 0);
	}
	free(b);
	free(f);
}

static bool same_file(const char *a, const char *b)
{
	size_t la, lb;
	uint8_t *pa = slurp(a, &la), *pb = slurp(b, &lb);
	const bool same = la == lb && !memcmp(pa, pb, la);

	free(pa);
	free(pb);
	return same;
}

FR_TEST(volumes, gen_is_the_same_for_a_seed_whatever_the_jobs)
{
	struct wl_workload w = small(2.83e6, 0);
	struct wl_gen_stats st;
	char *p1, *p3, *p2;

	w.xp.cosmo_shape[0] = 16;
	w.xp.cosmo_shape[1] = 16;
	w.xp.cosmo_shape[2] = 16;
	w.xp.cosmo_shape[3] = 4;
	cr_assert_eq(gen(&wl_gen_cosmoflow, &w, "j1", 3, 0, 9, 1, &st), 0);
	cr_assert_eq(gen(&wl_gen_cosmoflow, &w, "j3", 3, 0, 9, 3, &st), 0);
	cr_assert_eq(gen(&wl_gen_cosmoflow, &w, "s2", 3, 0, 10, 3, &st), 0);
	for (unsigned i = 0; i < 3; i++) {
		cr_assert_geq(asprintf(&p1, "%s/j1/img_%05u_of_3.tfrecord",
				       dir_, i), 0);
		cr_assert_geq(asprintf(&p3, "%s/j3/img_%05u_of_3.tfrecord",
				       dir_, i), 0);
		cr_assert_geq(asprintf(&p2, "%s/s2/img_%05u_of_3.tfrecord",
				       dir_, i), 0);
		cr_expect(same_file(p1, p3), "file %u differs with 3 jobs", i);
		cr_expect(!same_file(p1, p2), "file %u: seed changes nothing",
			  i);
		free(p1);
		free(p3);
		free(p2);
	}
	/* and the sizes of a volume set: the same plan for a seed */
	{
		const struct wl_workload v = small(40e6, 20e6);
		struct wl_gen_stats s1, s3;

		cr_assert_eq(gen(&wl_gen_npz_volumes, &v, "v1", 0, 120000000,
				 4, 1, &s1), 0);
		cr_assert_eq(gen(&wl_gen_npz_volumes, &v, "v3", 0, 120000000,
				 4, 3, &s3), 0);
		cr_expect_eq(s1.files, s3.files);
		cr_expect_eq(s1.bytes, s3.bytes);
		cr_expect_geq(s1.bytes, 120000000u);
	}
}

FR_TEST(volumes, gen_refuses_a_folder_that_is_not_empty)
{
	const struct wl_workload w = small(2.83e6, 0);
	struct wl_gen_stats st;
	char *d = path("full"), *f = path("full/keep");

	cr_assert_eq(mkdir(d, 0755), 0);
	spit(f, "x", 1);
	cr_expect_eq(gen(&wl_gen_cosmoflow, &w, "full", 1, 0, 1, 1, &st),
		     -ENOTEMPTY);
	free(d);
	free(f);
}

static volatile sig_atomic_t stop_now;

/* Asks the generator to stop once the first file is complete. */
static void stop_after_first(void *arg, const struct wl_gen_stats *st,
			     bool done)
{
	(void)arg;
	if (!done && st->files >= 1)
		stop_now = 1;
}

FR_TEST(volumes, gen_stopped_keeps_complete_files_and_no_partial_one)
{
	const struct wl_workload w = small(30e6, 0);
	const struct wl_gen_opts o = {
		.files = 4, .seed = 1, .jobs = 2, .stop = &stop_now,
		.progress = stop_after_first,
	};
	struct wl_gen_stats st;
	char *d = path("stopped");
	char cmd[512];
	FILE *f;
	unsigned tmp = 0, fin = 0;

	stop_now = 0;
	cr_expect_eq(wl_gen_npy_volumes.generate(&w, d, &o, &st), -EINTR);
	cr_expect_geq(st.files, 1u);
	cr_expect_lt(st.files, 4u);
	/* every name left is a final one, of the planned size */
	snprintf(cmd, sizeof(cmd), "ls -A %s", d);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(cmd, sizeof(cmd), f)) {
		struct stat sb;
		char *p;

		cmd[strcspn(cmd, "\n")] = '\0';
		if (strstr(cmd, ".tmp")) {
			tmp++;
			continue;
		}
		fin++;
		cr_assert_geq(asprintf(&p, "%s/%s", d, cmd), 0);
		cr_expect_eq(stat(p, &sb), 0);
		/* 128 slices of 256 x 256 f32 and a 128-byte header */
		cr_expect_eq(sb.st_size, 128 + 128ll * 256 * 256 * 4, "%s",
			     cmd);
		free(p);
	}
	pclose(f);
	cr_expect_eq(tmp, 0u, "a temporary file was left");
	cr_expect_eq(fin, st.files);
	free(d);
}

/* A damaged .npz in a run is counted under its fault's own key, with the
 * file and the byte where the fault was found, and the run goes on with
 * the good file. */
FR_TEST(volumes, a_run_counts_a_damaged_npz_with_its_file_and_offset,
	.timeout = 120)
{
	char *ds = path("ds"), *good = path("ds/a.npz"), *bad, *json;
	char *argv[16], off[32];
	size_t len;
	uint8_t *b;
	uint64_t cd;
	json_t *j, *k;
	json_error_t je;
	int i = 0;

	need_numpy();
	fr_test_bin();
	cr_assert_eq(mkdir(ds, 0755), 0);
	free(npz_fixture("ds/a.npz", "savez", "|u1", "8,8,8", NULL, &len,
			 NULL, NULL));
	b = npz_fixture("ds/b.npz", "savez", "|u1", "8,8,8", NULL, &len,
			NULL, NULL);
	cd = rd32(b + len - 22 + 16);   /* the central directory's offset */
	b[cd] ^= 1;                     /* its first signature byte */
	bad = path("ds/b.npz");
	spit(bad, b, len);
	json = path("run.json");
	argv[i++] = (char *)fr_test_bin();
	argv[i++] = "run";
	argv[i++] = "-w";
	argv[i++] = "unet3d";
	argv[i++] = "--cache";
	argv[i++] = "warm";
	argv[i++] = "--gpus";
	argv[i++] = "0";
	argv[i++] = "--duration";
	argv[i++] = "1";
	argv[i++] = "--json";
	argv[i++] = json;
	argv[i++] = ds;
	argv[i] = NULL;
	/* 3: done, with failed samples */
	cr_assert_eq(fr_test_run(dir_, argv, 100), 3);
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j, "%s", je.text);
	k = json_object_get(json_object_get(json_object_get(j, "errors"),
					    "kinds"), "zip_central_dir");
	cr_assert_not_null(k, "no zip_central_dir among the errors");
	cr_expect_gt(json_integer_value(json_object_get(k, "count")), 0);
	snprintf(off, sizeof(off), "b.npz@%llu", (unsigned long long)cd);
	cr_expect(strstr(json_string_value(json_object_get(k, "example")),
			 off), "%s", json_string_value(json_object_get(k,
			 "example")));
	/* good samples were cropped (a damaged file's open fails before
	 * the crop, whose time is resize_s), not whole batches in the window:
	 * a loaded machine may finish none of 7 crops of 128^3 in 1 s */
	cr_expect_gt(json_real_value(json_object_get(json_object_get(j,
		     "stages"), "resize_s")), 0,
		     "the good file kept the run going");
	json_decref(j);
	free(b);
	free(bad);
	free(good);
	free(json);
	free(ds);
}
