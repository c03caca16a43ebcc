/*
 * test_fmt_tokens.c - token files against independent writers: a
 * Megatron .idx/.bin written by Python from the published layout
 * (megatron/core/datasets/indexed_dataset.py), nanoGPT's flat uint16
 * (numpy tofile), llm.c's header (dev/data/data_common.py), .bin.zst made
 * by the zstd CLI (with and without the content size), MDS token columns
 * ('ndarray:int32' as llm-foundry writes them; older 'bytes' of int64;
 * zstd shards); windows checked value by value (sample i = tokens
 * [i x seq_len, (i + 1) x seq_len] of the file's stream, across
 * documents); the errors (a short .bin, an .idx whose pointers run past
 * the .bin, a bad zstd frame), each counted with its file and offset; the
 * int64 / int32 output; every window once per epoch through the engine;
 * payload keys of TFRecord, MDS and WebDataset; gen's files and their
 * compression.
 *
 * Tokens written by Python are f(k) = (k * A + B) % M for stream position
 * k, so a window's values say where it was cut from.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "fmt_internal.h"
#include "harness.h"
#include "loader.h"
#include "shardset.h"
#include "gen_write.h"
#include "tokens.h"
#include "workloads.h"

#define PY "/usr/bin/python3"

/* argv: MODE OUT NAME then key=value. Writes token files (see MODE). */
static const char writer_py[] =
"import json, os, struct, sys\n"
"import numpy as np\n"
"mode, out, name = sys.argv[1:4]\n"
"kw = dict(a.split('=', 1) for a in sys.argv[4:])\n"
"n = int(kw.get('n', '0'))\n"
"A, B, M = int(kw.get('a', '7')), int(kw.get('b', '3')), "
"int(kw.get('m', '50000'))\n"
"dt = np.dtype(kw.get('dtype', 'uint16'))\n"
"def f(k):\n"
"    return (np.arange(k, dtype=np.int64) * A + B) % M\n"
"path = os.path.join(out, name)\n"
"if mode == 'flat':\n"
"    f(n).astype(dt).tofile(path)\n"
"elif mode == 'llmc':\n"
"    h = np.zeros(256, dtype=np.int32)\n"
"    h[0], h[1], h[2] = int(kw['magic']), int(kw['version']), "
"int(kw['count'])\n"
"    with open(path, 'wb') as fo:\n"
"        fo.write(h.tobytes())\n"
"        fo.write(f(n).astype(dt).tobytes())\n"
"elif mode == 'megatron':\n"
"    codes = {'uint8': 1, 'int8': 2, 'int16': 3, 'int32': 4, 'int64': 5,\n"
"             'float64': 6, 'float32': 7, 'uint16': 8}\n"
"    rng = np.random.default_rng(int(kw.get('seed', '1')))\n"
"    lens, left = [], n\n"
"    while left:\n"
"        l = min(left, int(rng.integers(1, 3 * int(kw.get('doc', '40')))))\n"
"        lens.append(l)\n"
"        left -= l\n"
"    f(n).astype(dt).tofile(path + '.bin')\n"
"    ptrs = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)\n"
"    ptrs *= dt.itemsize\n"
"    docs = np.arange(len(lens) + 1, dtype=np.int64)\n"
"    with open(path + '.idx', 'wb') as fo:\n"
"        fo.write(b'MMIDIDX\\x00\\x00')\n"
"        fo.write(struct.pack('<Q', 1))\n"
"        fo.write(struct.pack('<B', codes[dt.name]))\n"
"        fo.write(struct.pack('<Q', len(lens)))\n"
"        fo.write(struct.pack('<Q', len(docs)))\n"
"        fo.write(np.array(lens, dtype=np.int32).tobytes(order='C'))\n"
"        fo.write(ptrs.tobytes(order='C'))\n"
"        fo.write(docs.tobytes(order='C'))\n"
"    cut = int(kw.get('cut_bin', '0'))\n"
"    if cut:\n"
"        os.truncate(path + '.bin', os.path.getsize(path + '.bin') - cut)\n"
"elif mode == 'mds':\n"
"    enc, seq, count = kw['enc'], int(kw['seq']), int(kw['samples'])\n"
"    cols = {'tokens': enc, 'id': 'int'}\n"
"    names = sorted(cols)\n"
"    encs = [cols[c] for c in names]\n"
"    sizes = [8 if e == 'int' else None for e in encs]\n"
"    cfg = {'version': 2, 'format': 'mds', 'compression': None,\n"
"           'hashes': [], 'size_limit': 1 << 26, 'column_names': names,\n"
"           'column_encodings': encs, 'column_sizes': sizes}\n"
"    cfg_data = json.dumps(cfg, sort_keys=True).encode('utf-8')\n"
"    vals = f(count * seq)\n"
"    samples = []\n"
"    for i in range(count):\n"
"        v = vals[i * seq:(i + 1) * seq]\n"
"        if enc == 'bytes':\n"
"            tok = v.astype(np.int64).tobytes()\n"
"        else:\n"
"            a = v.astype(np.int32)\n"
"            tok = bytes([(a.ndim << 2) | 1]) + "
"np.array(a.shape, np.uint16).tobytes() + a.tobytes()\n"
"        d = {'id': struct.pack('<q', i), 'tokens': tok}\n"
"        head = b''.join(struct.pack('<I', len(d[c])) for c, s in "
"zip(names, sizes) if s is None)\n"
"        samples.append(head + b''.join(d[c] for c in names))\n"
"    start = 4 + 4 * (count + 1) + len(cfg_data)\n"
"    offs = [start]\n"
"    for s in samples:\n"
"        offs.append(offs[-1] + len(s))\n"
"    data = struct.pack('<I', count) + struct.pack('<%dI' % (count + 1), "
"*offs) + cfg_data + b''.join(samples)\n"
"    raw = 'shard.00000.mds'\n"
"    with open(os.path.join(out, raw), 'wb') as fo:\n"
"        fo.write(data)\n"
"    sh = {'samples': count, 'zip_data': None,\n"
"          'raw_data': {'basename': raw, 'bytes': len(data), 'hashes': {}}}\n"
"    sh.update(cfg)\n"
"    if kw.get('zstd'):\n"
"        os.system('zstd -q -7 --rm %s -o %s.zstd' % (os.path.join(out, "
"raw), os.path.join(out, raw)))\n"
"        sh['compression'] = 'zstd:7'\n"
"        sh['zip_data'] = {'basename': raw + '.zstd', 'bytes': "
"os.path.getsize(os.path.join(out, raw + '.zstd')), 'hashes': {}}\n"
"    with open(os.path.join(out, 'index.json'), 'w') as fo:\n"
"        json.dump({'version': 2, 'shards': [sh]}, fo, sort_keys=True)\n";

static bool have_numpy(void)
{
	return !access(PY, X_OK) &&
	       system(PY " -c 'import numpy' >/dev/null 2>&1") == 0;
}

static bool have_zstd_cli(void)
{
	return system("zstd --version >/dev/null 2>&1") == 0;
}

/* A fresh folder with the writer in it; skips without numpy. */
static char *py_dir(void)
{
	char path[4096], *dir;
	FILE *f;

	if (!have_numpy())
		cr_skip_test("no numpy for %s: the token files' writer "
			     "needs it", PY);
	dir = fr_test_tmpdir();
	snprintf(path, sizeof(path), "%s/.writer.py", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(writer_py, f);
	cr_assert_eq(fclose(f), 0);
	return dir;
}

/* Run the writer: MODE NAME ARGS (key=value ...) into DIR. */
static void py_write(const char *dir, const char *mode, const char *name,
		     const char *args)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), PY " %s/.writer.py %s %s %s %s", dir,
		 mode, dir, name, args);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
}

__attribute__((format(printf, 1, 2)))
static void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
}

static struct wl_shardset *open_set(const char *root, uint32_t seq_len)
{
	struct wl_shardset_opts o = { .seq_len = seq_len };
	struct wl_shardset *s = NULL;
	char why[512] = "";
	int err = wl_shardset_open(root, WL_FORMAT_TOKENS, &o, &s, why,
				   sizeof(why));

	cr_assert_eq(err, 0, "open %s: %d %s", root, err, why);
	return s;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	cr_assert(fd >= 0, "%s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	cr_assert_eq(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/* The stream shard ID of S decompresses to (any zstd frames). */
static uint8_t *shard_stream(const struct wl_shardset *s, uint64_t id,
			     size_t *len)
{
	char path[4096];
	size_t zlen, cap = 1 << 20;
	uint8_t *z, *out;
	ZSTD_DStream *d;
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;

	cr_assert_geq(stg_dataset_path(s->ds, id, path, sizeof(path)), 0);
	z = read_file(path, &zlen);
	if (!s->compressed[id]) {
		*len = zlen;
		return z;
	}
	out = malloc(cap);
	d = ZSTD_createDStream();
	ib = (ZSTD_inBuffer){ z, zlen, 0 };
	ob = (ZSTD_outBuffer){ out, cap, 0 };
	while (ib.pos < ib.size) {
		size_t r = ZSTD_decompressStream(d, &ob, &ib);

		cr_assert(!ZSTD_isError(r));
		if (ob.pos == ob.size) {
			cap *= 2;
			out = realloc(out, cap);
			ob.dst = out;
			ob.size = cap;
		}
	}
	ZSTD_freeDStream(d);
	free(z);
	*len = ob.pos;
	return out;
}

struct cut {
	struct wl_record *rec;
	size_t n;
	int err;
	uint64_t err_off;
};

/* Cut shard ID of S with its own scanner (the engine's callbacks), the
 * stream handed over in appends of CHUNK bytes as the reader does. */
static void cut_shard(const struct wl_shardset *s, uint64_t id,
		      const uint8_t *data, size_t size, size_t chunk,
		      struct cut *c)
{
	struct wl_scanner sc;
	size_t fed = 0, cap = 64;
	uint64_t base = 0;

	memset(c, 0, sizeof(*c));
	c->rec = malloc(cap * sizeof(*c->rec));
	s->ops.scan_init(s->ops.arg, &sc, id);
	for (;;) {
		uint64_t off, len, keep, eoff = 0;
		const bool eof = fed == size;
		int r = s->ops.scan_next(&sc, data + base, base, fed - base,
					 eof, &off, &len, &keep, &eoff);

		if (r == 1) {
			cr_assert_geq(off, base);
			cr_assert_leq(off + len, fed);
			if (c->n == cap)
				c->rec = realloc(c->rec, (cap *= 2) *
						 sizeof(*c->rec));
			c->rec[c->n++] = (struct wl_record){ off, len };
			continue;
		}
		if (r < 0) {
			c->err = r;
			c->err_off = eoff;
			return;
		}
		if (eof)
			return;
		cr_assert(keep >= base && keep <= fed, "keep_from %llu outside "
			  "[%llu, %zu]", (unsigned long long)keep,
			  (unsigned long long)base, fed);
		base = keep;
		fed += size - fed < chunk ? size - fed : chunk;
	}
}

static int64_t le_val(const uint8_t *p, unsigned size, bool sign)
{
	uint64_t v = 0;

	for (unsigned i = size; i--;)
		v = v << 8 | p[i];
	if (sign && size < 8 && v >> (8 * size - 1))
		v |= UINT64_MAX << (8 * size);
	return (int64_t)v;
}

/* Every record of C is the window [i x L, (i + 1) x L] of f, value by
 * value, read as SIZE-byte (SIGNED) tokens from DATA_OFF on. */
static void check_windows(const uint8_t *stream, const struct cut *c,
			  uint32_t L, unsigned size, bool sign,
			  uint64_t data_off, int64_t a, int64_t b, int64_t m)
{
	for (size_t i = 0; i < c->n; i++) {
		cr_assert_eq(c->rec[i].off, data_off + i * L * size,
			     "window %zu", i);
		cr_assert_eq(c->rec[i].len, (L + 1ull) * size);
		for (uint32_t j = 0; j <= L; j++) {
			const uint64_t k = (uint64_t)i * L + j;
			const int64_t v = le_val(stream + c->rec[i].off +
						 (uint64_t)j * size, size,
						 sign);

			cr_assert_eq(v, ((int64_t)k * a + b) % m, "window %zu "
				     "token %u: %lld, not f(%llu)", i, j,
				     (long long)v, (unsigned long long)k);
		}
	}
}

static bool has_error(const struct wl_shardset *s, const char *kind,
		      const char *example)
{
	for (unsigned i = 0; i < s->nerr; i++)
		if (!strcmp(s->err[i].kind, kind) &&
		    strstr(s->err[i].example, example))
			return true;
	return false;
}

/* ---- readers against independent writers ---- */

FR_TEST(fmt_tokens, megatron_idx_bin_from_the_published_layout)
{
	static const struct {
		const char *dtype;
		enum wl_tok_dtype t;
		int64_t m;
		bool sign;
	} cases[] = {
		{ "uint16", WL_TOK_U16, 50000, false },
		{ "int32", WL_TOK_I32, 2000003, true },
		{ "int64", WL_TOK_I64, 3000000019ll, true },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *dir = py_dir(), args[256], path[4096];
		struct wl_shardset *s;
		struct cut cut;
		uint8_t *stream;
		size_t len;

		snprintf(args, sizeof(args), "n=10007 dtype=%s m=%lld",
			 cases[c].dtype, (long long)cases[c].m);
		py_write(dir, "megatron", "corpus", args);
		s = open_set(dir, 64);
		cr_assert_eq(stg_dataset_count(s->ds), 1, "the .idx is no "
			     "shard of its own");
		cr_assert_eq(s->tok[0].dtype, cases[c].t);
		cr_assert_eq(s->tok[0].tokens, 10007);
		cr_assert_eq(s->records[0], (10007 - 1) / 64);
		cr_assert_eq(s->nerr, 0);
		stream = shard_stream(s, 0, &len);
		for (size_t chunk = 1000; chunk <= len; chunk *= 8) {
			cut_shard(s, 0, stream, len, chunk, &cut);
			cr_assert_eq(cut.err, 0);
			cr_assert_eq(cut.n, s->records[0]);
			check_windows(stream, &cut, 64,
				      wl_tok_dtype_size(cases[c].t),
				      cases[c].sign, 0, 7, 3, cases[c].m);
			free(cut.rec);
		}
		free(stream);
		wl_shardset_free(s);
		/* DATASET naming the .idx opens its .bin */
		snprintf(path, sizeof(path), "%s/corpus.idx", dir);
		s = open_set(path, 64);
		cr_assert_eq(s->records[0], (10007 - 1) / 64);
		cr_assert_str_eq(stg_dataset_relpath(s->ds, 0, NULL),
				 "corpus.bin");
		wl_shardset_free(s);
		fr_test_rmtree(dir);
	}
}

FR_TEST(fmt_tokens, nanogpt_flat_uint16_and_one_file_as_dataset)
{
	char *dir = py_dir(), path[4096];
	struct wl_shardset *s;
	struct cut cut;
	uint8_t *stream;
	size_t len;

	py_write(dir, "flat", "train.bin", "n=5000");
	py_write(dir, "flat", "val.bin", "n=129");
	s = open_set(dir, 32);
	cr_assert_eq(stg_dataset_count(s->ds), 2);
	cr_assert_eq(s->total, (5000 - 1) / 32 + (129 - 1) / 32);
	for (uint64_t id = 0; id < 2; id++) {
		cr_assert_eq(s->tok[id].dtype, WL_TOK_U16);
		cr_assert_eq(s->tok[id].data_off, 0);
		stream = shard_stream(s, id, &len);
		cut_shard(s, id, stream, len, 777, &cut);
		cr_assert_eq(cut.err, 0);
		cr_assert_eq(cut.n, s->records[id]);
		check_windows(stream, &cut, 32, 2, false, 0, 7, 3, 50000);
		free(cut.rec);
		free(stream);
	}
	wl_shardset_free(s);
	snprintf(path, sizeof(path), "%s/train.bin", dir);
	s = open_set(path, 32);
	cr_assert_eq(s->total, (5000 - 1) / 32);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_tokens, llmc_header_gpt2_and_llama3_files)
{
	char *dir = py_dir();
	struct wl_shardset *s;
	struct cut cut;
	uint8_t *stream;
	size_t len;

	py_write(dir, "llmc", "gpt2.bin",
		 "n=3000 magic=20240520 version=1 count=3000");
	py_write(dir, "llmc", "llama.bin", "n=2000 magic=20240801 version=7 "
		 "count=2000 dtype=uint32 m=128257 a=1 b=70000");
	s = open_set(dir, 50);
	cr_assert_eq(s->nerr, 0);
	for (uint64_t id = 0; id < 2; id++) {
		const bool llama = !strcmp(stg_dataset_relpath(s->ds, id, NULL),
					   "llama.bin");

		cr_assert_eq(s->tok[id].dtype, llama ? WL_TOK_U32 : WL_TOK_U16);
		cr_assert_eq(s->tok[id].data_off, WL_LLMC_HEADER);
		cr_assert_eq(s->records[id], ((llama ? 2000 : 3000) - 1) / 50);
		stream = shard_stream(s, id, &len);
		cut_shard(s, id, stream, len, 4096, &cut);
		cr_assert_eq(cut.err, 0);
		cr_assert_eq(cut.n, s->records[id]);
		if (llama)
			check_windows(stream, &cut, 50, 4, false, 1024, 1,
				      70000, 128257);
		else
			check_windows(stream, &cut, 50, 2, false, 1024, 7, 3,
				      50000);
		free(cut.rec);
		free(stream);
	}
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_tokens, bin_zst_by_the_zstd_cli_with_and_without_its_size)
{
	char *dir, path[4096];
	struct wl_shardset *s;

	if (!have_zstd_cli())
		cr_skip_test("no zstd CLI to compress the token files");
	dir = py_dir();
	py_write(dir, "flat", "a.bin", "n=100003");
	py_write(dir, "llmc", "b.bin",
		 "n=30000 magic=20240520 version=1 count=30000");
	py_write(dir, "flat", "c.bin", "n=70001");
	/* a.bin.zst records its size; b and c went through a pipe */
	snprintf(path, sizeof(path), "%s/a.bin", dir);
	sh("zstd -q -3 --rm %s -o %s.zst", path, path);
	snprintf(path, sizeof(path), "%s/b.bin", dir);
	sh("cat %s | zstd -q -3 -c > %s.zst", path, path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/c.bin", dir);
	sh("cat %s | zstd -q -3 -c > %s.zst", path, path);
	unlink(path);
	s = open_set(dir, 128);
	cr_assert_eq(s->nerr, 0);
	cr_assert_eq(s->compressed_shards, 3);
	for (uint64_t id = 0; id < 3; id++) {
		const char name = stg_dataset_relpath(s->ds, id, NULL)[0];
		const uint64_t n = name == 'a' ? 100003 : name == 'b' ? 30000 :
				   70001;
		struct cut cut;
		size_t len;
		uint8_t *stream = shard_stream(s, id, &len);

		cr_assert_eq(s->records[id], (n - 1) / 128, "%c", name);
		/* a: the frame's size; c: counted by decompressing; b: the
		 * header's count is taken, the size stays unknown */
		cr_assert_eq(s->raw_bytes[id], name == 'b' ? 0 : len, "%c",
			     name);
		cr_assert_eq(s->tok[id].data_off, name == 'b' ?
			     WL_LLMC_HEADER : 0);
		cut_shard(s, id, stream, len, 65536, &cut);
		cr_assert_eq(cut.err, 0);
		cr_assert_eq(cut.n, s->records[id]);
		check_windows(stream, &cut, 128, 2, false, s->tok[id].data_off,
			      7, 3, 50000);
		free(cut.rec);
		free(stream);
	}
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

/* ---- MDS token columns ---- */

struct tok_out {
	struct wl_transform_state ts;
	struct ldr_transform tf;
	void *ctx;
};

static void tok_out_make(struct tok_out *t, uint32_t seq_len, uint32_t tb)
{
	char desc[256];

	memset(t, 0, sizeof(*t));
	t->ts.xp.seq_len = seq_len;
	t->ts.xp.token_bytes = tb;
	cr_assert_eq(wl_tokens_transform(&t->ts, &t->tf, desc, sizeof(desc)),
		     0);
	cr_assert_eq(t->tf.out_bytes, (seq_len + 1ull) * tb);
}

static void check_mds(const char *enc, bool zstd)
{
	const uint32_t L = 40;
	char *dir = py_dir(), args[256], why[512] = "";
	struct wl_shardset_opts o = { .seq_len = L };
	struct wl_shardset *s = NULL;
	struct tok_out t;
	struct ldr_transform wrapped;
	void *ctx;
	uint8_t *stream, *out;
	size_t len;
	struct wl_scanner sc;
	uint64_t i = 0;

	if (zstd && !have_zstd_cli())
		cr_skip_test("no zstd CLI for the MDS shard");
	/* llm-foundry's concat writer: samples of seq_len tokens */
	snprintf(args, sizeof(args), "enc=%s seq=%u samples=23 m=60000%s", enc,
		 L, zstd ? " zstd=1" : "");
	py_write(dir, "mds", "-", args);
	cr_assert_eq(wl_shardset_open(dir, WL_FORMAT_MDS, &o, &s, why,
				      sizeof(why)), 0, "%s", why);
	cr_assert(s->tokens);
	cr_assert_str_eq(s->key, "tokens");
	cr_assert_eq(s->total, 23);
	tok_out_make(&t, L, 8);
	cr_assert_eq(wl_shardset_transform(s, &t.tf, &wrapped), 0);
	cr_assert_eq(wrapped.ctx_create(wrapped.arg, &ctx), 0);
	out = malloc(wrapped.out_bytes);
	stream = shard_stream(s, 0, &len);
	s->ops.scan_init(s->ops.arg, &sc, 0);
	for (;;) {
		uint64_t off, rl, keep, eoff;
		int r = s->ops.scan_next(&sc, stream, 0, len, true, &off, &rl,
					 &keep, &eoff);
		int64_t v[41];

		if (r != 1)
			break;
		cr_assert_eq(wrapped.apply(ctx, stream + off, rl, 1, 0, i, out,
					   NULL), 0, "sample %llu",
			     (unsigned long long)i);
		memcpy(v, out, sizeof(v));
		/* seq_len tokens from the sample, then one zero of pad */
		for (uint32_t j = 0; j < L; j++)
			cr_assert_eq(v[j], ((int64_t)(i * L + j) * 7 + 3) %
				     60000, "sample %llu token %u",
				     (unsigned long long)i, j);
		cr_assert_eq(v[L], 0);
		i++;
	}
	cr_assert_eq(i, 23);
	wrapped.ctx_destroy(ctx);
	free(out);
	free(stream);
	wl_transform_state_release(&t.ts);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_tokens, mds_ndarray_int32_column_as_llm_foundry_writes_it)
{
	check_mds("ndarray:int32", false);
}

FR_TEST(fmt_tokens, mds_older_bytes_column_of_int64)
{
	check_mds("bytes", false);
}

FR_TEST(fmt_tokens, mds_zstd_shard_of_tokens)
{
	check_mds("ndarray:int32", true);
}

/* ---- errors, each counted with its file and offset ---- */

FR_TEST(fmt_tokens, short_llmc_bin_is_a_counted_error_at_its_end)
{
	char *dir = py_dir(), example[64];
	struct wl_shardset *s;
	struct cut cut;
	uint8_t *stream;
	size_t len;

	/* the header says 4000 tokens; 2500 are there */
	py_write(dir, "llmc", "short.bin",
		 "n=2500 magic=20240520 version=1 count=4000");
	s = open_set(dir, 100);
	snprintf(example, sizeof(example), "short.bin@%u", 1024 + 2500 * 2);
	cr_assert(has_error(s, "truncated_record", example), "%u errors: "
		  "%s %s", s->nerr, s->nerr ? s->err[0].kind : "",
		  s->nerr ? s->err[0].example : "");
	/* the windows of the tokens there, then the error */
	cr_assert_eq(s->records[0], (2500 - 1) / 100 + 1);
	stream = shard_stream(s, 0, &len);
	cut_shard(s, 0, stream, len, 1000, &cut);
	cr_assert_eq(cut.n, (2500 - 1) / 100);
	cr_assert_eq(cut.err, -WL_ETRUNCREC);
	cr_assert_eq(cut.err_off, 1024 + 2500 * 2);
	free(cut.rec);
	free(stream);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_tokens, idx_pointers_past_the_bin_are_a_counted_error)
{
	char *dir = py_dir(), example[64];
	struct wl_shardset *s;
	struct cut cut;
	size_t len, ilen;
	uint8_t *stream, *idx;
	struct wl_idx_info info;
	uint64_t eoff, good, bad_ptr;
	char path[4096];

	/* the .bin cut by 301 tokens: the last sequences run past it */
	py_write(dir, "megatron", "m", "n=6000 doc=100 cut_bin=602");
	snprintf(path, sizeof(path), "%s/m.idx", dir);
	idx = read_file(path, &ilen);
	cr_assert_eq(wl_idx_parse(idx, ilen, 2 * (6000 - 301), &info, &eoff),
		     -WL_EBADINDEX);
	good = info.tokens;
	cr_assert_lt(good, 6000 - 301);
	/* the offset names the first pointer that runs past */
	bad_ptr = WL_IDX_HEADER + 4 * info.sequences;
	cr_assert_gt(eoff, bad_ptr);
	cr_assert_lt(eoff, bad_ptr + 8 * info.sequences);
	cr_assert_eq(le_val(idx + eoff, 8, false), (int64_t)good * 2,
		     "the pointer named is where the readable tokens end");
	free(idx);
	s = open_set(dir, 64);
	snprintf(example, sizeof(example), "m.idx@%llu",
		 (unsigned long long)eoff);
	cr_assert(has_error(s, "bad_index", example), "%s %s",
		  s->nerr ? s->err[0].kind : "",
		  s->nerr ? s->err[0].example : "");
	cr_assert_eq(s->records[0], (good - 1) / 64 + 1);
	stream = shard_stream(s, 0, &len);
	cut_shard(s, 0, stream, len, 4096, &cut);
	cr_assert_eq(cut.n, (good - 1) / 64);
	check_windows(stream, &cut, 64, 2, false, 0, 7, 3, 50000);
	cr_assert_eq(cut.err, -WL_EBADINDEX);
	cr_assert_eq(cut.err_off, eoff);
	free(cut.rec);
	free(stream);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

/* A flat token file of N tokens (f(k) = k % 65536) at DIR/NAME. */
static void write_flat(const char *dir, const char *name, size_t n)
{
	char path[4096];
	uint16_t *t = malloc(n * 2);
	int fd;

	for (size_t k = 0; k < n; k++)
		t[k] = (uint16_t)k;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, t, n * 2), (ssize_t)(n * 2));
	close(fd);
	free(t);
}

FR_TEST(fmt_tokens, cut_or_foreign_zst_is_a_counted_bad_zstd_at_open)
{
	char *dir, path[4096];
	struct wl_shardset *s;
	struct stat st;
	uint64_t off;

	if (!have_zstd_cli())
		cr_skip_test("no zstd CLI to compress the token files");
	dir = fr_test_tmpdir();
	write_flat(dir, "cut.bin", 60000);
	snprintf(path, sizeof(path), "%s/cut.bin", dir);
	sh("zstd -q -3 --rm %s -o %s.zst", path, path);
	snprintf(path, sizeof(path), "%s/cut.bin.zst", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 100), 0);
	s = open_set(path, 64);
	cr_assert_eq(s->nerr, 1);
	cr_assert_str_eq(s->err[0].kind, "bad_zstd");
	cr_assert_eq(sscanf(s->err[0].example, "cut.bin.zst@%lu", &off), 1,
		     "%s", s->err[0].example);
	cr_assert_lt(off, (uint64_t)st.st_size - 100, "a block header's "
		     "offset in the file");
	/* the windows the whole blocks hold, then one failed record */
	cr_assert_leq(s->records[0], (60000 - 1) / 64, "%llu",
		      (unsigned long long)s->records[0]);
	wl_shardset_free(s);
	/* several blocks, the last one cut: the windows before it are read */
	write_flat(dir, "long.bin", 300000);
	snprintf(path, sizeof(path), "%s/long.bin", dir);
	sh("zstd -q -3 --rm %s -o %s.zst", path, path);
	snprintf(path, sizeof(path), "%s/long.bin.zst", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 100), 0);
	s = open_set(path, 64);
	cr_assert(has_error(s, "bad_zstd", "long.bin.zst@"));
	cr_assert_gt(s->records[0], 1000, "the whole blocks' windows count");
	cr_assert_lt(s->records[0], (300000 - 1) / 64 + 1, "not the lost "
		     "block's");
	wl_shardset_free(s);
	write_flat(dir, "plain.bin.zst", 1000);   /* not zstd at all */
	snprintf(path, sizeof(path), "%s/plain.bin.zst", dir);
	s = open_set(path, 64);
	cr_assert(has_error(s, "bad_zstd", "plain.bin.zst@0"));
	cr_assert_eq(s->records[0], 1);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
}

/* ---- the transform ---- */

FR_TEST(fmt_tokens, transform_writes_int64_or_int32_little_endian)
{
	static const uint16_t u16[] = { 1, 2, 50256, 65535, 7 };
	static const int32_t i32[] = { -5, 2000000000, 3, 4, 5 };
	struct wl_token_span sp = { .magic = WL_TOKEN_SPAN_MAGIC };
	struct tok_out t;
	uint8_t out[64];

	tok_out_make(&t, 4, 8);
	sp.dtype = WL_TOK_U16;
	sp.data = (const uint8_t *)u16;
	sp.len = sizeof(u16);
	cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp), 0, 0, 0, out, NULL),
		     0);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(le_val(out + 8 * i, 8, true), u16[i]);
	sp.dtype = WL_TOK_I32;
	sp.data = (const uint8_t *)i32;
	sp.len = sizeof(i32);
	cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp), 0, 0, 0, out, NULL),
		     0);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(le_val(out + 8 * i, 8, true), i32[i]);
	/* a short span is padded with zeros */
	memset(out, 0xAA, sizeof(out));
	sp.len = 2 * sizeof(int32_t);
	cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp), 0, 0, 0, out, NULL),
		     0);
	cr_assert_eq(le_val(out + 8, 8, true), 2000000000);
	for (unsigned i = 2; i < 5; i++)
		cr_assert_eq(le_val(out + 8 * i, 8, true), 0);
	/* floats are not tokens; raw bytes are not a span */
	sp.dtype = WL_TOK_F32;
	cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp), 0, 0, 0, out, NULL),
		     -LDR_EUNSUPPORTED);
	cr_assert_eq(t.tf.apply(t.tf.arg, u16, sizeof(u16), 0, 0, 0, out,
				NULL), -LDR_ENOTFORMAT);
	wl_transform_state_release(&t.ts);

	tok_out_make(&t, 4, 4);
	sp.dtype = WL_TOK_U16;
	sp.data = (const uint8_t *)u16;
	sp.len = sizeof(u16);
	cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp), 0, 0, 0, out, NULL),
		     0);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(le_val(out + 4 * i, 4, true), u16[i]);
	wl_transform_state_release(&t.ts);
}

FR_TEST(fmt_tokens, transform_converts_every_type_at_any_length)
{
	static const enum wl_tok_dtype types[] = {
		WL_TOK_U8, WL_TOK_I8, WL_TOK_U16, WL_TOK_I16, WL_TOK_U32,
		WL_TOK_I32, WL_TOK_U64, WL_TOK_I64,
	};
	static const bool sign[] = { false, true, false, true, false, true,
				     false, true };
	struct wl_token_span sp = { .magic = WL_TOKEN_SPAN_MAGIC };
	uint8_t in[8 * 41 + 3], out[8 * 41];
	uint64_t x = 0x9E3779B97F4A7C15ull;

	for (size_t k = 0; k < sizeof(in); k++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		in[k] = (uint8_t)(x >> 56);
	}
	for (unsigned tb = 4; tb <= 8; tb += 4) {
		struct tok_out t;

		tok_out_make(&t, 40, tb);
		for (size_t ty = 0; ty < sizeof(types) / sizeof(types[0]); ty++)
			for (size_t n = 0; n <= 41; n += 1) {
				const unsigned sz = wl_tok_dtype_size(types[ty]);

				sp.dtype = types[ty];
				sp.data = in + 3;       /* unaligned */
				sp.len = n * sz;
				cr_assert_eq(t.tf.apply(t.tf.arg, &sp, sizeof(sp),
							0, 0, 0, out, NULL), 0);
				for (size_t j = 0; j < 41; j++) {
					int64_t want = j < n ? le_val(in + 3 +
						j * sz, sz, sign[ty]) : 0;

					if (tb == 4)
						want = (int32_t)want;
					cr_assert_eq(le_val(out + j * tb, tb, true),
						     want, "%s n %zu token %zu to "
						     "int%u", wl_tok_dtype_name(
						     types[ty]), n, j, tb * 8);
				}
			}
		wl_transform_state_release(&t.ts);
	}
}

FR_TEST(fmt_tokens, transform_refuses_bad_parameters)
{
	struct wl_transform_state ts = { 0 };
	struct ldr_transform tf;
	char desc[128];

	cr_assert_eq(wl_tokens_transform(&ts, &tf, desc, sizeof(desc)),
		     -EINVAL, "seq_len 0");
	ts.xp.seq_len = 8;
	ts.xp.token_bytes = 2;
	cr_assert_eq(wl_tokens_transform(&ts, &tf, desc, sizeof(desc)),
		     -EINVAL, "int16 out");
	wl_transform_state_release(&ts);
}

/* ---- the engine: every window once per epoch ---- */

struct win_seen {
	uint32_t L;
	uint64_t n;
	uint32_t *count;
	uint64_t bad, failed;
};

static void on_windows(void *arg, uint64_t batch, const void *data,
		       unsigned samples)
{
	struct win_seen *w = arg;
	const int64_t *v = data;

	(void)batch;
	for (unsigned i = 0; i < samples; i++, v += w->L + 1) {
		const uint64_t first = (uint64_t)v[0];

		if (!v[0] && !v[1]) {
			w->failed++;
			continue;
		}
		if (first % w->L || first / w->L >= w->n) {
			w->bad++;
			continue;
		}
		for (uint32_t j = 0; j <= w->L; j++)
			if ((uint64_t)v[j] != first + j)
				w->bad++;
		w->count[first / w->L]++;
	}
}

static void engine_run(struct wl_shardset *s, uint32_t L, uint64_t epochs,
		       struct win_seen *w, struct ldr_result *res)
{
	struct ldr_config cfg;
	struct tok_out t;

	tok_out_make(&t, L, 8);
	memset(w, 0, sizeof(*w));
	w->L = L;
	w->n = s->total;
	w->count = calloc(s->total, sizeof(*w->count));
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = s->ds;
	cfg.shards = &s->ldr;
	cfg.readers = 2;
	cfg.workers = 2;
	cfg.batch = 5;
	cr_assert_eq(wl_shardset_transform(s, &t.tf, &cfg.transform), 0);
	cfg.seed = 3;
	cfg.epochs = epochs;
	cfg.warmup_s = -1;
	cfg.on_batch = on_windows;
	cfg.on_batch_arg = w;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	wl_transform_state_release(&t.ts);
}

FR_TEST(fmt_tokens, engine_gives_every_window_once_per_epoch)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	char *dir = fr_test_tmpdir(), path[4096];
	struct wl_shardset *s;
	struct win_seen w;

	/* one file whose windows are all distinct, the other compressed:
	 * a window is identified by its first token, i x L */
	write_flat(dir, "one.bin", 40001);
	s = open_set(dir, 64);
	engine_run(s, 64, 2, &w, res);
	cr_assert_eq(res->errors, 0);
	cr_assert_eq(w.bad, 0);
	cr_assert_eq(w.failed, 0);
	for (uint64_t i = 0; i < w.n; i++)
		cr_assert_eq(w.count[i], 2, "window %llu seen %u times",
			     (unsigned long long)i, w.count[i]);
	cr_assert_eq(res->decompressed_bytes, 0);
	free(w.count);
	wl_shardset_free(s);
	if (have_zstd_cli()) {
		snprintf(path, sizeof(path), "%s/one.bin", dir);
		sh("zstd -q -3 --rm %s -o %s.zst", path, path);
		s = open_set(dir, 64);
		engine_run(s, 64, 1, &w, res);
		cr_assert_eq(res->errors, 0);
		cr_assert_eq(w.bad, 0);
		for (uint64_t i = 0; i < w.n; i++)
			cr_assert_eq(w.count[i], 1);
		/* the measured window is the whole run: all of it */
		cr_assert_eq(res->decompressed_bytes, 40001 * 2);
		free(w.count);
		wl_shardset_free(s);
	}
	fr_test_rmtree(dir);
	free(res);
}

FR_TEST(fmt_tokens, corrupt_zstd_block_fails_the_rest_counted_with_file)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	char *dir, path[4096];
	struct wl_shardset *s;
	struct win_seen w;
	size_t len;
	uint8_t *z;
	bool found = false;
	int fd;

	if (!have_zstd_cli())
		cr_skip_test("no zstd CLI to compress the token files");
	dir = fr_test_tmpdir();
	write_flat(dir, "bad.bin", 60001);
	snprintf(path, sizeof(path), "%s/bad.bin", dir);
	sh("zstd -q -3 --rm %s -o %s.zst", path, path);
	snprintf(path, sizeof(path), "%s/bad.bin.zst", dir);
	z = read_file(path, &len);
	/* garble the middle of the compressed data: the frame and block
	 * headers still walk, the block does not decode */
	for (size_t k = len / 2; k < len / 2 + 64; k++)
		z[k] ^= 0x5A;
	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, z, len), (ssize_t)len);
	close(fd);
	free(z);
	s = open_set(dir, 64);
	engine_run(s, 64, 1, &w, res);
	cr_assert_gt(w.failed, 0);
	cr_assert_eq(w.bad, 0, "no window of wrong tokens");
	cr_assert_eq(res->errors, w.failed);
	for (unsigned i = 0; i < res->err_kinds; i++)
		if (!strcmp(res->err[i].kind, "bad_zstd") ||
		    !strcmp(res->err[i].kind, "truncated_record")) {
			cr_assert(strstr(res->err[i].example, "bad.bin.zst@"),
				  "%s", res->err[i].example);
			found = true;
		}
	cr_assert(found, "the error is counted by kind with its example");
	free(w.count);
	wl_shardset_free(s);
	fr_test_rmtree(dir);
	free(res);
}

/* ---- parsers ---- */

/* A minimal valid .idx of u16 sequences LENS (N of them) into B. */
static size_t idx_make(uint8_t *b, const int32_t *lens, size_t n)
{
	size_t o = 0;
	uint64_t ptr = 0;

#define P(v, k) do { uint64_t v_ = (uint64_t)(v); \
	for (unsigned i_ = 0; i_ < (k); i_++) \
		b[o++] = (uint8_t)(v_ >> (8 * i_)); } while (0)
	memcpy(b, "MMIDIDX\0\0", 9);
	o = 9;
	P(1, 8);
	P(8, 1);
	P(n, 8);
	P(n + 1, 8);
	for (size_t i = 0; i < n; i++)
		P(lens[i], 4);
	for (size_t i = 0; i < n; i++) {
		P(ptr, 8);
		ptr += 2 * (uint64_t)lens[i];
	}
	for (size_t i = 0; i <= n; i++)
		P(i, 8);
#undef P
	return o;
}

FR_TEST(fmt_tokens, idx_parser_names_the_field_that_is_wrong)
{
	static const int32_t lens[] = { 5, 0, 7, 3 };
	uint8_t good[256], b[256];
	const size_t n = idx_make(good, lens, 4);
	const size_t lens_at = WL_IDX_HEADER, ptrs_at = lens_at + 16,
		     docs_at = ptrs_at + 32;
	struct wl_idx_info info;
	uint64_t off;
	static const struct {
		size_t at;
		uint8_t v;
		uint64_t want_off;
		uint64_t want_tokens;
	} cases[] = {
		{ 0, 'X', 0, 0 },                       /* magic */
		{ 9, 2, 9, 0 },                         /* version */
		{ 17, 7, 17, 0 },                       /* float32 */
		{ 17, 9, 17, 0 },                       /* no such code */
		{ 18, 200, 18, 0 },                     /* S past the file */
		{ 26, 9, 26, 0 },                       /* D past the file */
		{ 34 + 11, 0x80, 34 + 8, 5 },           /* lengths[2] < 0 */
		{ 50 + 16, 1, 50 + 16, 5 },             /* pointers[2]: gap */
		{ 82 + 16, 0, 82 + 16, 15 },            /* doc_idx decreases */
		{ 82 + 32, 3, 82 + 32, 15 },            /* doc_idx ends at 3 */
	};

	(void)lens_at;
	cr_assert_eq(wl_idx_parse(good, n, 30, &info, &off), 0);
	cr_assert_eq(info.tokens, 15);
	cr_assert_eq(info.sequences, 4);
	cr_assert_eq(info.documents, 4);
	cr_assert_eq(info.dtype, WL_TOK_U16);
	cr_assert_eq(docs_at, 82);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memcpy(b, good, n);
		b[cases[c].at] = cases[c].v;
		cr_assert_eq(wl_idx_parse(b, n, 30, &info, &off),
			     -WL_EBADINDEX, "case %zu", c);
		cr_assert_eq(off, cases[c].want_off, "case %zu: offset %llu",
			     c, (unsigned long long)off);
		cr_assert_eq(info.tokens, cases[c].want_tokens, "case %zu", c);
	}
	/* a .bin too short for the last sequence */
	cr_assert_eq(wl_idx_parse(good, n, 29, &info, &off), -WL_EBADINDEX);
	cr_assert_eq(off, ptrs_at + 24);
	cr_assert_eq(info.tokens, 12);
	/* cut anywhere: never read past the end */
	for (size_t k = 0; k < n; k++)
		cr_assert_eq(wl_idx_parse(good, k, 30, &info, &off),
			     -WL_EBADINDEX, "cut at %zu", k);
}

FR_TEST(fmt_tokens, llmc_magic_never_matches_a_gpt2_flat_file)
{
	uint8_t h[12];
	enum wl_tok_dtype dt;
	uint64_t count;
	uint16_t t[6];

	/* the magic's low half as a token is above GPT-2's vocabulary */
	cr_assert_gt(WL_LLMC_MAGIC_GPT2 & 0xFFFF, 50256);
	cr_assert_gt(WL_LLMC_MAGIC_LLAMA3 & 0xFFFF, 50256);
	for (uint32_t a = 0; a <= 50256; a += 97) {
		t[0] = (uint16_t)a;
		t[1] = 308;
		t[2] = 1;
		t[3] = 0;
		t[4] = t[5] = 0;
		memcpy(h, t, 12);
		cr_assert_eq(wl_llmc_header_parse(h, 12, &dt, &count), 0);
	}
	t[0] = WL_LLMC_MAGIC_GPT2 & 0xFFFF;
	t[1] = WL_LLMC_MAGIC_GPT2 >> 16;
	t[2] = 2;               /* another version: not llm.c's */
	memcpy(h, t, 12);
	cr_assert_eq(wl_llmc_header_parse(h, 12, &dt, &count), 0);
	t[2] = 1;
	t[4] = 77;
	memcpy(h, t, 12);
	cr_assert_eq(wl_llmc_header_parse(h, 12, &dt, &count), 1);
	cr_assert_eq(dt, WL_TOK_U16);
	cr_assert_eq(count, 77);
	cr_assert_eq(wl_llmc_header_parse(h, 11, &dt, &count), 0);
}

static int64_t mem_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	const struct { const uint8_t *p; size_t n; } *m = arg;

	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - off;
	memcpy(buf, m->p + off, len);
	return (int64_t)len;
}

FR_TEST(fmt_tokens, zstd_walk_sums_frames_and_finds_cut_ones)
{
	const size_t n = 300000;
	uint8_t *raw = malloc(n), *z = malloc(3 * ZSTD_compressBound(n) + 16);
	struct { const uint8_t *p; size_t n; } m = { z, 0 };
	uint64_t content, off;
	size_t a, b;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;

	for (size_t k = 0; k < n; k++)
		raw[k] = (uint8_t)((k * 7) ^ (k >> 9));
	a = ZSTD_compress(z, ZSTD_compressBound(n), raw, n, 3);
	cr_assert(!ZSTD_isError(a));
	/* a skippable frame, then a second frame of 1000 bytes */
	memcpy(z + a, "\x50\x2a\x4d\x18\x03\x00\x00\x00xyz", 11);
	b = ZSTD_compress(z + a + 11, ZSTD_compressBound(n), raw, 1000, 1);
	m.n = a + 11 + b;
	cr_assert_eq(wl_zstd_content_size(mem_pread, &m, m.n, &content, &off),
		     1);
	cr_assert_eq(content, n + 1000);
	/* cut inside the first frame */
	cr_assert_eq(wl_zstd_content_size(mem_pread, &m, a - 5, &content,
					  &off), -WL_EZSTD);
	cr_assert_lt(off, a);
	/* not zstd */
	cr_assert_eq(wl_zstd_content_size(mem_pread, &m, 3, &content, &off),
		     -WL_EZSTD);
	cr_assert_eq(off, 0);
	/* a frame without its size: decompress to know */
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
	ib = (ZSTD_inBuffer){ raw, n, 0 };
	ob = (ZSTD_outBuffer){ z, ZSTD_compressBound(n), 0 };
	cr_assert_eq(ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end), 0);
	m.n = ob.pos;
	cr_assert_eq(wl_zstd_content_size(mem_pread, &m, m.n, &content, &off),
		     0);
	ZSTD_freeCCtx(cc);
	free(raw);
	free(z);
}

/* ---- payload keys ---- */

static size_t pb_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* Field NUM (length-delimited) holding N bytes of D at P. */
static size_t pb_len(uint8_t *p, unsigned num, const void *d, size_t n)
{
	size_t o = pb_varint(p, (uint64_t)num << 3 | 2);

	o += pb_varint(p + o, n);
	memcpy(p + o, d, n);
	return o + n;
}

/* A tf.train.Example with bytes features KEYS[i] = VALS[i]. */
static size_t example_make(uint8_t *out, const char *const *keys,
			   const char *const *vals, size_t n)
{
	uint8_t feats[4096], entry[1024], feat[512], bl[512];
	size_t fo = 0;

	for (size_t i = 0; i < n; i++) {
		size_t b = pb_len(bl, 1, vals[i], strlen(vals[i]));
		size_t f = pb_len(feat, 1, bl, b);
		size_t e = pb_len(entry, 1, keys[i], strlen(keys[i]));

		e += pb_len(entry + e, 2, feat, f);
		fo += pb_len(feats + fo, 1, entry, e);
	}
	return pb_len(out, 1, feats, fo);
}

FR_TEST(fmt_tokens, tfrecord_feature_key_picks_the_payload)
{
	static const char *const keys[] = { "y", "x", "image/encoded" };
	static const char *const vals[] = { "label?", "\x01\x02volume",
					    "jpeg" };
	uint8_t ex[8192], rec[8192];
	struct wl_sample_view v;
	size_t n = example_make(ex, keys, vals, 3);
	uint32_t c;
	uint64_t len = n;

	/* frame it as TFRecord */
	memcpy(rec, &len, 8);
	c = wl_crc32c_mask(wl_crc32c(0, rec, 8));
	memcpy(rec + 8, &c, 4);
	memcpy(rec + 12, ex, n);
	c = wl_crc32c_mask(wl_crc32c(0, ex, n));
	memcpy(rec + 12 + n, &c, 4);
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_TFRECORD, NULL, "x", rec, n + 16,
				   &v), 0);
	cr_assert_eq(v.image_len, 8);
	cr_assert_eq(memcmp(v.image, "\x01\x02volume", 8), 0);
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_TFRECORD, NULL, NULL, rec, n + 16,
				   &v), 0, "the default key");
	cr_assert_eq(memcmp(v.image, "jpeg", 4), 0);
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_TFRECORD, NULL, "z", rec, n + 16,
				   &v), -WL_ENOIMAGE);
	cr_assert_eq(wl_pb_example_find_key(ex, n, "y", &v), 0);
	cr_assert_eq(memcmp(v.image, "label?", 6), 0);
}

/* A ustar member NAME holding DATA at P; returns its padded length. */
static size_t tar_member(uint8_t *p, const char *name, const char *data)
{
	const size_t n = strlen(data);
	unsigned sum = 0;

	memset(p, 0, 512);
	memcpy(p, name, strlen(name));
	memcpy(p + 100, "0000644", 7);
	snprintf((char *)p + 124, 12, "%011o", (unsigned)n);
	memcpy(p + 136, "00000000000", 11);
	p[156] = '0';
	memcpy(p + 257, "ustar\0" "00", 8);
	memset(p + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += p[i];
	snprintf((char *)p + 148, 8, "%06o", sum);
	memset(p + 512, 0, (n + 511) / 512 * 512);
	memcpy(p + 512, data, n);
	return 512 + (n + 511) / 512 * 512;
}

FR_TEST(fmt_tokens, webdataset_key_is_a_member_extension)
{
	uint8_t rec[8192];
	struct wl_sample_view v;
	size_t n = tar_member(rec, "s1.cls", "7");

	n += tar_member(rec + n, "s1.jpg", "\xff\xd8jpeg");
	n += tar_member(rec + n, "s1.x.npy", "volume");
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_WDS, NULL, "x.npy", rec, n, &v),
		     0);
	cr_assert_eq(v.image_len, 6);
	cr_assert_eq(memcmp(v.image, "volume", 6), 0);
	cr_assert(v.has_label && v.label == 7);
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_WDS, NULL, NULL, rec, n, &v), 0);
	cr_assert_eq(memcmp(v.image, "\xff\xd8", 2), 0, "the image by "
		     "default");
	cr_assert_eq(wl_unwrap_key(WL_FORMAT_WDS, NULL, "png", rec, n, &v),
		     -WL_ENOIMAGE);
}

static int copy_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		      uint64_t epoch, uint64_t id, void *out,
		      struct ldr_step_times *st)
{
	(void)ctx;
	(void)seed;
	(void)epoch;
	(void)id;
	(void)st;
	memset(out, 0, 16);
	memcpy(out, data, len < 16 ? len : 16);
	return 0;
}

FR_TEST(fmt_tokens, absent_key_is_counted_no_image_through_the_engine)
{
	static const char *const keys[] = { "x" };
	static const char *const vals[] = { "payload" };
	struct ldr_result *res = calloc(1, sizeof(*res));
	char *dir = fr_test_tmpdir(), path[4096], why[256];
	struct wl_shardset_opts o = { .key = "absent" };
	struct wl_shardset *s = NULL;
	struct ldr_transform copy = { .name = "copy", .out_bytes = 16,
				      .apply = copy_apply };
	struct ldr_config cfg;
	uint8_t ex[1024];
	size_t n = example_make(ex, keys, vals, 1);
	FILE *f;

	snprintf(path, sizeof(path), "%s/a.tfrecord", dir);
	f = fopen(path, "w");
	for (int r = 0; r < 10; r++) {
		uint64_t len = n;
		uint32_t c = wl_crc32c_mask(wl_crc32c(0, &len, 8));

		fwrite(&len, 8, 1, f);
		fwrite(&c, 4, 1, f);
		fwrite(ex, n, 1, f);
		c = wl_crc32c_mask(wl_crc32c(0, ex, n));
		fwrite(&c, 4, 1, f);
	}
	fclose(f);
	for (int k = 0; k < 2; k++) {
		o.key = k ? "x" : "absent";
		cr_assert_eq(wl_shardset_open(dir, WL_FORMAT_TFRECORD, &o, &s,
					      why, sizeof(why)), 0, "%s", why);
		memset(&cfg, 0, sizeof(cfg));
		cfg.ds = s->ds;
		cfg.shards = &s->ldr;
		cfg.workers = 1;
		cfg.batch = 5;
		cfg.epochs = 1;
		cfg.warmup_s = -1;
		wl_shardset_transform(s, &copy, &cfg.transform);
		cr_assert_eq(ldr_run(&cfg, res), 0);
		if (k) {
			cr_assert_eq(res->errors, 0);
		} else {
			cr_assert_eq(res->errors, 10);
			cr_assert_eq(res->err_kinds, 1);
			cr_assert_str_eq(res->err[0].kind, "no_image");
		}
		wl_shardset_free(s);
	}
	fr_test_rmtree(dir);
	free(res);
}

/* ---- gen ---- */

FR_TEST(fmt_tokens, gen_writes_megatron_pairs_that_compress_like_text)
{
	const struct wl_workload *w;
	struct wl_gen_opts o = { .size_bytes = 3u << 20, .seed = 5 };
	struct wl_gen_stats st;
	char *dir = fr_test_tmpdir(), sub[4096], path[4200];
	struct wl_shardset *s;
	uint8_t *bin, *z, *bin2;
	size_t len, zl, len2;
	double ratio;

	cr_assert_eq(wl_find("tokens", &w), 0);
	snprintf(sub, sizeof(sub), "%s/g", dir);
	cr_assert_eq(wl_gen_tokens_write(w, sub, &o, false, 0, &st), 0);
	cr_assert_geq(st.bytes + (1u << 20), o.size_bytes);
	s = open_set(sub, 2048);
	cr_assert_eq(s->nerr, 0, "our .idx reads back");
	cr_assert_eq(s->tok[0].dtype, WL_TOK_U16);
	snprintf(path, sizeof(path), "%s/tokens-00000.bin", sub);
	bin = read_file(path, &len);
	cr_assert_eq(le_val(bin + len - 2, 2, false), WL_TOK_EOD,
		     "the last document ends with EOD");
	/* zstd -3 compresses it close to real GPT-2 text's 1.75x */
	z = malloc(ZSTD_compressBound(len));
	zl = ZSTD_compress(z, ZSTD_compressBound(len), bin, len, 3);
	ratio = (double)len / zl;
	cr_assert(ratio > 1.65 && ratio < 1.85, "ratio %.3f", ratio);
	wl_shardset_free(s);
	/* the same seed, the same bytes; .bin.zst holds the same stream */
	snprintf(sub, sizeof(sub), "%s/z", dir);
	cr_assert_eq(wl_gen_tokens_write(w, sub, &o, true, 3, &st), 0);
	s = open_set(sub, 2048);
	cr_assert_eq(s->compressed_shards, stg_dataset_count(s->ds));
	bin2 = shard_stream(s, 0, &len2);
	cr_assert_gt(len2, len, "sized for the same bytes on disk");
	/* up to the .bin's last document, which was cut to fit */
	cr_assert_eq(memcmp(bin, bin2, len / 2), 0);
	free(bin2);
	wl_shardset_free(s);
	free(bin);
	free(z);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_tokens, detection_names_token_folders_and_files)
{
	char *dir = fr_test_tmpdir(), sub[4200], path[4300], why[256];
	enum wl_format f;
	uint8_t rec[16] = { 0 };
	uint32_t c = wl_crc32c_mask(wl_crc32c(0, rec, 8));
	FILE *fp;

	snprintf(sub, sizeof(sub), "%s/t", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	write_flat(sub, "a.bin", 100);
	write_flat(sub, "a.idx", 10);
	cr_assert_eq(wl_format_detect(sub, &f, why, sizeof(why)), 0);
	cr_assert_eq(f, WL_FORMAT_TOKENS, "%s", why);
	snprintf(path, sizeof(path), "%s/a.bin", sub);
	cr_assert_eq(wl_format_detect(path, &f, why, sizeof(why)), 0);
	cr_assert_eq(f, WL_FORMAT_TOKENS, "one token file");
	/* an empty TFRecord record in a file named .bin is TFRecord */
	snprintf(sub, sizeof(sub), "%s/r", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/train.bin", sub);
	memcpy(rec + 8, &c, 4);
	c = wl_crc32c_mask(wl_crc32c(0, rec, 0));
	memcpy(rec + 12, &c, 4);
	fp = fopen(path, "w");
	cr_assert_eq(fwrite(rec, 16, 1, fp), 1);
	fclose(fp);
	cr_assert_eq(wl_format_detect(sub, &f, why, sizeof(why)), 0);
	cr_assert_eq(f, WL_FORMAT_TFRECORD, "%s", why);
	fr_test_rmtree(dir);
}
