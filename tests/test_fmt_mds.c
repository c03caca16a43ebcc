/*
 * test_fmt_mds.c - MDS v2: index.json parsing, the shard scanner and the
 * sample parser. Datasets are written by a small Python script that lays
 * out index.json and shards by mosaicml/streaming's rules (struct and json
 * only, following streaming/base/format/mds/writer.py and
 * base/writer.py), independent of the C reader; hand-made shards cover
 * the damage cases.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt_internal.h"
#include "fmt_testlib.h"
#include "harness.h"

#define PY "/usr/bin/python3"
#define MAX_REC (1u << 20)

/* argv: OUT SPEC SIZE_LIMIT SAMPLES. SPEC a: {image: jpeg, label: int};
 * b: {img: bytes, cls: str}; c: {i: int, x: jpeg, y: int} (streaming's
 * vision/convert/imagenet.py). Writes OUT/index.json, the shards and
 * OUT/expect.txt: "shard label image_hex" per sample. */
static const char writer_py[] =
"import json, os, struct, sys\n"
"out, spec, size_limit, count = sys.argv[1], sys.argv[2], "
"int(sys.argv[3]), int(sys.argv[4])\n"
"columns = {'a': {'image': 'jpeg', 'label': 'int'},\n"
"           'b': {'img': 'bytes', 'cls': 'str'},\n"
"           'c': {'i': 'int', 'x': 'jpeg', 'y': 'int'}}[spec]\n"
"fixed = {'int': 8}\n"
"names = sorted(columns)\n"
"encs = [columns[n] for n in names]\n"
"sizes = [fixed.get(e) for e in encs]\n"
"config = {'version': 2, 'format': 'mds', 'compression': None,\n"
"          'hashes': [], 'size_limit': size_limit, 'column_names': names,\n"
"          'column_encodings': encs, 'column_sizes': sizes}\n"
"config_data = json.dumps(config, sort_keys=True).encode('utf-8')\n"
"def image(i):\n"
"    n = 100 + (i * 7919) % 3000\n"
"    return b'\\xff\\xd8' + bytes((i * 31 + k * 7) & 255 for k in range(n))\n"
"def encode(sample):\n"
"    head, body = b'', b''\n"
"    for name, enc, size in zip(names, encs, sizes):\n"
"        v = sample[name]\n"
"        d = struct.pack('<q', v) if enc == 'int' else \\\n"
"            v.encode('utf-8') if enc == 'str' else v\n"
"        if size is None:\n"
"            head += struct.pack('<I', len(d))\n"
"        body += d\n"
"    return head + body\n"
"shards, cache, expect = [], [], []\n"
"shard_size = 4 + 4 + len(config_data)\n"
"def flush():\n"
"    n = len(cache)\n"
"    offsets = [0]\n"
"    for s in cache:\n"
"        offsets.append(offsets[-1] + len(s))\n"
"    start = 4 + 4 * (n + 1) + len(config_data)\n"
"    data = struct.pack('<I', n) + \\\n"
"        struct.pack('<%dI' % (n + 1), *[o + start for o in offsets]) + \\\n"
"        config_data + b''.join(cache)\n"
"    name = 'shard.%05d.mds' % len(shards)\n"
"    with open(os.path.join(out, name), 'wb') as f:\n"
"        f.write(data)\n"
"    obj = {'samples': n, 'zip_data': None,\n"
"           'raw_data': {'basename': name, 'bytes': len(data),\n"
"                        'hashes': {}}}\n"
"    obj.update(config)\n"
"    shards.append(obj)\n"
"for i in range(count):\n"
"    label = (i * 37) % 1000\n"
"    sample = {'image': image(i), 'label': label, 'img': image(i),\n"
"              'cls': str(label), 'i': i, 'x': image(i), 'y': label}\n"
"    enc = encode(sample)\n"
"    if size_limit and size_limit < shard_size + len(enc) + 4:\n"
"        flush()\n"
"        cache, shard_size = [], 4 + 4 + len(config_data)\n"
"    cache.append(enc)\n"
"    shard_size += len(enc) + 4\n"
"    expect.append('%d %d %s' % (len(shards), label, image(i).hex()))\n"
"if cache:\n"
"    flush()\n"
"with open(os.path.join(out, 'index.json'), 'w') as f:\n"
"    json.dump({'version': 2, 'shards': shards}, f, sort_keys=True)\n"
"with open(os.path.join(out, 'expect.txt'), 'w') as f:\n"
"    f.write('\\n'.join(expect) + '\\n')\n";

static char *write_dataset(const char *spec, unsigned size_limit,
			   unsigned count)
{
	char *dir, path[4096], cmd[8192];
	FILE *f;

	if (access(PY, X_OK))
		cr_skip_test("no %s to write the MDS dataset", PY);
	dir = fr_test_tmpdir();
	snprintf(path, sizeof(path), "%s/writer.py", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(writer_py, f);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), PY " %s %s %s %u %u", path, dir, spec,
		 size_limit, count);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	return dir;
}

static void load_index(const char *dir, struct wl_mds_index *idx)
{
	char why[256] = "";
	size_t len;
	char *text = (char *)ft_read_file(dir, "index.json", &len);

	cr_assert_eq(wl_mds_index_parse(text, len, idx, why, sizeof(why)), 0,
		     "%s", why);
	free(text);
}

struct expect {
	unsigned shard;
	int64_t label;
	uint8_t *image;
	size_t image_len;
};

static struct expect *load_expect(const char *dir, size_t *n)
{
	size_t len, cap = 64;
	char *text = (char *)ft_read_file(dir, "expect.txt", &len);
	struct expect *e = malloc(cap * sizeof(*e));
	char *save = NULL;

	*n = 0;
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char hex[16384];
		long long label;
		unsigned shard;
		size_t h;

		cr_assert_eq(sscanf(line, "%u %lld %16383s", &shard, &label,
				    hex), 3);
		if (*n == cap)
			e = realloc(e, (cap *= 2) * sizeof(*e));
		h = strlen(hex) / 2;
		e[*n].shard = shard;
		e[*n].label = label;
		e[*n].image_len = h;
		e[*n].image = malloc(h);
		for (size_t k = 0; k < h; k++) {
			unsigned b;

			cr_assert_eq(sscanf(hex + 2 * k, "%2x", &b), 1);
			e[*n].image[k] = (uint8_t)b;
		}
		(*n)++;
	}
	free(text);
	return e;
}

static void free_expect(struct expect *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].image);
	free(e);
}

/* Scan every shard of DIR in several append sizes and check every
 * sample's image and label against expect.txt. */
static void check_dataset(const char *dir, bool label_is_text)
{
	static const size_t chunks[] = { 1, 13, 4096, 1 << 20 };
	struct wl_mds_index idx;
	struct expect *ex;
	size_t nex, next = 0;

	load_index(dir, &idx);
	ex = load_expect(dir, &nex);
	cr_assert_gt(idx.nshards, 1, "the size limit makes several shards");
	for (unsigned s = 0; s < idx.nshards; s++) {
		const struct wl_mds_shard *sh = &idx.shards[s];
		size_t len;
		uint8_t *data = ft_read_file(dir, sh->raw_name, &len);
		struct ft_scan one;

		cr_assert_eq(len, sh->raw_bytes);
		cr_assert_eq(sh->zip_name[0], '\0');
		cr_assert_eq(sh->compression[0], '\0');
		ft_scan_chunked(WL_FORMAT_MDS, sh, data, len, len, MAX_REC,
				&one);
		cr_assert_eq(one.err, 0, "shard %u: %s at %llu", s,
			     wl_fmt_err_name(one.err),
			     (unsigned long long)one.err_off);
		cr_assert_eq(one.nrec, sh->samples);
		for (size_t i = 0; i < one.nrec; i++, next++) {
			struct wl_sample_view v;
			const struct wl_record *r = &one.recs[i];

			cr_assert_lt(next, nex);
			cr_assert_eq(ex[next].shard, s);
			cr_assert_eq(wl_unwrap(WL_FORMAT_MDS, sh,
					       data + r->off, r->len, &v), 0);
			cr_assert_eq(v.image_len, ex[next].image_len,
				     "sample %zu", next);
			cr_assert_eq(memcmp(v.image, ex[next].image,
					    v.image_len), 0);
			cr_assert(v.has_label);
			cr_assert_eq(v.label, ex[next].label);
			cr_assert_eq(v.image_kind, label_is_text ?
				     WL_IMAGE_UNKNOWN : WL_IMAGE_JPEG);
		}
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]);
		     c++) {
			struct ft_scan part;

			ft_scan_chunked(WL_FORMAT_MDS, sh, data, len,
					chunks[c], MAX_REC, &part);
			ft_scan_expect_same(&one, &part, chunks[c]);
			free(part.recs);
		}
		free(one.recs);
		free(data);
	}
	cr_expect_eq(next, nex, "every sample was found");
	free_expect(ex, nex);
	wl_mds_index_free(&idx);
}

FR_TEST(fmt_mds, jpeg_and_int_columns_read_back_every_sample)
{
	char *dir = write_dataset("a", 1 << 16, 120);
	struct wl_mds_index idx;

	load_index(dir, &idx);
	cr_expect_eq(idx.shards[0].ncols, 2);
	cr_expect_str_eq(idx.shards[0].name[0], "image");
	cr_expect_eq(idx.shards[0].enc[0], WL_MDS_JPEG);
	cr_expect_eq(idx.shards[0].size[0], -1);
	cr_expect_eq(idx.shards[0].enc[1], WL_MDS_INT);
	cr_expect_eq(idx.shards[0].size[1], 8);
	cr_expect_eq(idx.shards[0].image_col, 0);
	cr_expect_eq(idx.shards[0].label_col, 1);
	wl_mds_index_free(&idx);
	check_dataset(dir, false);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_mds, bytes_and_str_columns_read_back_every_sample)
{
	char *dir = write_dataset("b", 1 << 16, 120);
	struct wl_mds_index idx;

	load_index(dir, &idx);
	/* sorted: cls, img */
	cr_expect_eq(idx.shards[0].image_col, 1);
	cr_expect_eq(idx.shards[0].label_col, 0);
	cr_expect_eq(idx.shards[0].enc[0], WL_MDS_STR);
	cr_expect_eq(idx.shards[0].enc[1], WL_MDS_BYTES);
	wl_mds_index_free(&idx);
	check_dataset(dir, true);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_mds, imagenet_converter_columns_take_y_not_the_index_i)
{
	char *dir = write_dataset("c", 1 << 15, 60);
	struct wl_mds_index idx;

	load_index(dir, &idx);
	cr_expect_eq(idx.shards[0].image_col, 1, "x");
	cr_expect_eq(idx.shards[0].label_col, 2, "y");
	wl_mds_index_free(&idx);
	check_dataset(dir, false);
	fr_test_rmtree(dir);
}

/* ---- index.json ---- */

/* a valid one-shard index with FIELD replaced by REPL (JSON text), or
 * removed when REPL is NULL */
static char *index_with(const char *field, const char *repl)
{
	static const char *const fields[][2] = {
		{ "column_encodings", "[\"jpeg\", \"int\"]" },
		{ "column_names", "[\"image\", \"label\"]" },
		{ "column_sizes", "[null, 8]" },
		{ "compression", "null" },
		{ "format", "\"mds\"" },
		{ "hashes", "[]" },
		{ "raw_data", "{\"basename\": \"shard.00000.mds\", "
			      "\"bytes\": 1000, \"hashes\": {}}" },
		{ "samples", "10" },
		{ "size_limit", "67108864" },
		{ "version", "2" },
		{ "zip_data", "null" },
	};
	char *s = malloc(4096);
	size_t n = 0;

	n += (size_t)snprintf(s + n, 4096 - n, "{\"version\": 2, \"shards\": [{");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *v = fields[i][1];

		if (field && !strcmp(field, fields[i][0])) {
			if (!repl)
				continue;
			v = repl;
		}
		n += (size_t)snprintf(s + n, 4096 - n, "%s\"%s\": %s",
				      n > 30 ? ", " : "", fields[i][0], v);
	}
	snprintf(s + n, 4096 - n, "}]}");
	return s;
}

FR_TEST(fmt_mds, the_template_index_is_valid)
{
	char *text = index_with(NULL, NULL);
	struct wl_mds_index idx;
	char why[256];

	cr_assert_eq(wl_mds_index_parse(text, strlen(text), &idx, why,
					sizeof(why)), 0, "%s: %s", text, why);
	cr_expect_eq(idx.nshards, 1);
	cr_expect_str_eq(idx.shards[0].raw_name, "shard.00000.mds");
	cr_expect_eq(idx.shards[0].raw_bytes, 1000);
	cr_expect_eq(idx.shards[0].samples, 10);
	wl_mds_index_free(&idx);
	wl_mds_index_free(&idx);        /* twice is harmless */
	wl_mds_index_free(NULL);
	free(text);
}

FR_TEST(fmt_mds, index_of_no_shards_parses_empty)
{
	static const char text[] = "{\"version\": 2, \"shards\": []}";
	struct wl_mds_index idx;
	char why[256];

	cr_assert_eq(wl_mds_index_parse(text, strlen(text), &idx, why,
					sizeof(why)), 0, "%s", why);
	cr_expect_eq(idx.nshards, 0, "the caller says there is nothing");
	wl_mds_index_free(&idx);
}

FR_TEST(fmt_mds, zstd_shard_names_its_compressed_file)
{
	char *text = index_with("compression", "\"zstd:7\"");
	char *t2;
	struct wl_mds_index idx;
	char why[256];

	t2 = strstr(text, "\"zip_data\": null");
	cr_assert_not_null(t2);
	/* replace the last field: zip_data */
	strcpy(t2, "\"zip_data\": {\"basename\": \"shard.00000.mds.zstd\", "
	       "\"bytes\": 321, \"hashes\": {}}}]}");
	cr_assert_eq(wl_mds_index_parse(text, strlen(text), &idx, why,
					sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(idx.shards[0].compression, "zstd:7");
	cr_expect_str_eq(idx.shards[0].zip_name, "shard.00000.mds.zstd");
	cr_expect_eq(idx.shards[0].zip_bytes, 321);
	wl_mds_index_free(&idx);
	free(text);
}

FR_TEST(fmt_mds, unusable_index_is_bad_index_with_a_reason)
{
	static const struct { const char *field, *repl, *why; } cases[] = {
		{ "format", "\"json\"", "format" },
		{ "format", NULL, "format" },
		{ "version", "1", "version" },
		{ "samples", "-1", "samples" },
		{ "samples", "4294967296", "samples" },
		{ "raw_data", NULL, "raw_data" },
		{ "raw_data", "{\"basename\": \"../etc/x\", \"bytes\": 9}",
		  "basename" },
		{ "raw_data", "{\"basename\": \"/abs\", \"bytes\": 9}",
		  "basename" },
		{ "raw_data", "{\"basename\": \"s.mds\"}", "bytes" },
		{ "raw_data", "{\"basename\": \"s.mds\", \"bytes\": 40}",
		  "header" },
		{ "column_names", "[\"image\"]", "column" },
		{ "column_names", NULL, "column_names" },
		{ "column_sizes", "[null, 4]", "int" },
		{ "column_sizes", "[-3, 8]", "size" },
		{ "column_encodings", "[\"jpeg\", 5]", "encoding" },
		{ "compression", "\"zstd\"", "zip_data" },
		{ "zip_data", "{\"basename\": \"a.zstd\", \"bytes\": 3}",
		  "compression" },
	};
	struct wl_mds_index idx;
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = index_with(cases[i].field, cases[i].repl);

		why[0] = '\0';
		cr_expect_eq(wl_mds_index_parse(text, strlen(text), &idx, why,
						sizeof(why)), -WL_EBADINDEX,
			     "%s", text);
		cr_expect_not_null(strstr(why, cases[i].why),
				   "%s: reason \"%s\" names no %s", text, why,
				   cases[i].why);
		cr_expect_eq(idx.nshards, 0);
		cr_expect_null(idx.shards);
		free(text);
	}
}

FR_TEST(fmt_mds, index_that_is_not_the_right_json_is_bad_index)
{
	static const struct { const char *text, *why; } cases[] = {
		{ "{\"version\": 2, \"shards\": [", "JSON" },
		{ "", "JSON" },
		{ "[1, 2]", "object" },
		{ "{\"version\": 2}", "shards" },
		{ "{\"version\": 2, \"shards\": {}}", "shards" },
		{ "{\"version\": 3, \"shards\": [{}]}", "version" },
		{ "{\"version\": 2, \"shards\": [7]}", "shard 0" },
		{ "{\"version\": 2, \"version\": 2, \"shards\": [{}]}",
		  "duplicate" },
	};
	struct wl_mds_index idx;
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		cr_expect_eq(wl_mds_index_parse(cases[i].text,
						strlen(cases[i].text), &idx,
						why, sizeof(why)),
			     -WL_EBADINDEX, "%s", cases[i].text);
		cr_expect_not_null(strstr(why, cases[i].why),
				   "%s: reason \"%s\"", cases[i].text, why);
	}
}

/* ---- shards made by hand ---- */

static void put32(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The shard of a {image: jpeg, label: int} dataset with N samples (image
 * i: 10 + i bytes, label 100 + i) and a 20-byte config; SH describes it. */
static uint8_t *hand_shard(unsigned n, struct wl_mds_shard *sh, size_t *len)
{
	const size_t head = 4 + 4 * ((size_t)n + 1) + 20;
	size_t total = head;
	uint8_t *p;

	for (unsigned i = 0; i < n; i++)
		total += 4 + 10 + i + 8;
	p = calloc(1, total);
	cr_assert_not_null(p);
	put32(p, n);
	memset(p + 4 + 4 * ((size_t)n + 1), '{', 20);
	for (unsigned i = 0, off = (unsigned)head; i <= n; i++) {
		put32(p + 4 + 4 * i, off);
		if (i == n)
			break;
		put32(p + off, 10 + i);
		memset(p + off + 4, 0xd0 + (int)i, 10 + i);
		put32(p + off + 4 + 10 + i, 100 + i);
		off += 4 + 10 + i + 8;
	}
	memset(sh, 0, sizeof(*sh));
	snprintf(sh->raw_name, sizeof(sh->raw_name), "hand.mds");
	sh->raw_bytes = total;
	sh->samples = n;
	sh->ncols = 2;
	sh->enc[0] = WL_MDS_JPEG;
	sh->size[0] = -1;
	snprintf(sh->name[0], sizeof(sh->name[0]), "image");
	sh->enc[1] = WL_MDS_INT;
	sh->size[1] = 8;
	snprintf(sh->name[1], sizeof(sh->name[1]), "label");
	sh->image_col = 0;
	sh->label_col = 1;
	*len = total;
	return p;
}

FR_TEST(fmt_mds, hand_made_shard_reads_back)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(5, &sh, &len);
	struct ft_scan sc;

	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 7, MAX_REC, &sc);
	cr_assert_eq(sc.err, 0, "%s", wl_fmt_err_name(sc.err));
	cr_assert_eq(sc.nrec, 5);
	for (unsigned i = 0; i < 5; i++) {
		struct wl_sample_view v;

		cr_assert_eq(wl_mds_sample_parse(&sh, p + sc.recs[i].off,
						 sc.recs[i].len, &v), 0);
		cr_expect_eq(v.image_len, 10 + i);
		cr_expect_eq(v.image[0], 0xd0 + i);
		cr_expect_eq(v.label, 100 + i);
	}
	free(sc.recs);
	free(p);
}

FR_TEST(fmt_mds, bytes_after_the_last_offset_are_skipped)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(3, &sh, &len);
	struct ft_scan sc;

	p = realloc(p, len + 100);
	cr_assert_not_null(p);
	memset(p + len, 0xee, 100);
	sh.raw_bytes = len + 100;
	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len + 100, 1, MAX_REC, &sc);
	cr_expect_eq(sc.err, 0);
	cr_expect_eq(sc.nrec, 3);
	cr_expect_leq(sc.max_window, 4 + 4 + 10 + 2 + 8, "nothing kept past "
		      "the samples");
	free(sc.recs);
	free(p);
}

FR_TEST(fmt_mds, empty_shard_has_no_records_and_no_error)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(0, &sh, &len);
	struct ft_scan sc;

	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 3, MAX_REC, &sc);
	cr_expect_eq(sc.err, 0);
	cr_expect_eq(sc.nrec, 0);
	free(sc.recs);
	free(p);
}

FR_TEST(fmt_mds, header_count_other_than_the_index_is_a_bad_header)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(5, &sh, &len);
	struct ft_scan sc;

	sh.samples = 6;
	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 4096, MAX_REC, &sc);
	cr_expect_eq(sc.err, -WL_EBADHDR);
	cr_expect_eq(sc.err_off, 0);
	cr_expect_eq(sc.nrec, 0);
	free(sc.recs);
	free(p);
}

FR_TEST(fmt_mds, offsets_that_cannot_be_right_are_a_bad_header)
{
	static const struct { const char *what; unsigned entry; int delta; }
	cases[] = {
		{ "offsets[0] inside the table", 0, -40 },
		{ "decreasing", 2, -30 },
		{ "a sample shorter than its sizes and int", 3, -13 },
		{ "past raw_data.bytes", 5, 1 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct wl_mds_shard sh;
		size_t len;
		uint8_t *p = hand_shard(5, &sh, &len);
		uint8_t *e = p + 4 + 4 * cases[c].entry;
		uint32_t v = (uint32_t)e[0] | (uint32_t)e[1] << 8 |
			     (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
		struct ft_scan sc;

		put32(e, (uint32_t)((int64_t)v + cases[c].delta));
		ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 4096, MAX_REC,
				&sc);
		cr_expect_eq(sc.err, -WL_EBADHDR, "%s", cases[c].what);
		cr_expect_eq(sc.err_off, 4 + 4 * cases[c].entry, "%s",
			     cases[c].what);
		cr_expect_eq(sc.nrec, 0);
		free(sc.recs);
		free(p);
	}
}

FR_TEST(fmt_mds, sample_sizes_that_disagree_with_the_offsets_are_caught)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(5, &sh, &len);
	const uint8_t *o = p + 4 + 4 * 1;       /* offsets[1]: sample 1 */
	const uint32_t s1 = (uint32_t)o[0] | (uint32_t)o[1] << 8;
	struct ft_scan sc;

	/* sample 1 claims 1 byte more of image and sample 2 one less: the
	 * shard still ends where offsets[5] says */
	put32(p + s1, 10 + 1 + 1);
	put32(p + s1 + 4 + 11 + 8 + 1, 10 + 2 - 1);
	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 4096, MAX_REC, &sc);
	cr_expect_eq(sc.err, -WL_EBADHDR);
	free(sc.recs);
	/* a sample whose sizes reach past the shard's last offset */
	put32(p + s1, 1000);
	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 4096, MAX_REC, &sc);
	cr_expect_eq(sc.err, -WL_EBADHDR);
	cr_expect_eq(sc.err_off, s1);
	cr_expect_eq(sc.nrec, 1);
	free(sc.recs);
	free(p);
}

FR_TEST(fmt_mds, shard_ending_early_is_truncated)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(5, &sh, &len);
	const size_t cuts[] = { 2, 13, 30, len - 1 };

	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct ft_scan sc;

		ft_scan_chunked(WL_FORMAT_MDS, &sh, p, cuts[c], 4096, MAX_REC,
				&sc);
		cr_expect_eq(sc.err, -WL_ETRUNCREC, "cut at %zu", cuts[c]);
		free(sc.recs);
	}
	free(p);
}

FR_TEST(fmt_mds, sample_over_max_record_is_a_bad_header)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(5, &sh, &len);
	struct ft_scan sc;

	/* samples are 22..26 bytes: the one of 25 is over 24 */
	ft_scan_chunked(WL_FORMAT_MDS, &sh, p, len, 4096, 24, &sc);
	cr_expect_eq(sc.err, -WL_EBADHDR);
	cr_expect_eq(sc.err_off, 4 + 4 * 4, "offsets[4] ends sample 3");
	free(sc.recs);
	free(p);
}

/* ---- sample parsing ---- */

FR_TEST(fmt_mds, dynamic_ndarray_label_takes_its_first_integer)
{
	/* encodings.py NDArray without dtype and shape: dtype code, ndim << 2
	 * | shape dtype, shape, values */
	static const struct { const char *what; uint8_t b[24]; size_t n;
			      int has; int64_t label; } cases[] = {
		{ "int64 [1]", { 65, 1 << 2 | 0, 1, 7, 0, 0, 0, 0, 0, 0, 0 },
		  11, 1, 7 },
		{ "int32 [2] negative", { 33, 1 << 2 | 0, 2, 0xfe, 0xff, 0xff,
					  0xff, 3, 0, 0, 0 }, 11, 1, -2 },
		{ "uint8 [1, 1] uint16 shape", { 8, 2 << 2 | 1, 1, 0, 1, 0,
						200 }, 7, 1, 200 },
		{ "float32 [1]: no label", { 34, 1 << 2, 1, 0, 0, 0x80, 0x3f },
		  7, 0, 0 },
	};
	struct wl_mds_shard sh = { .ncols = 2, .enc = { WL_MDS_BYTES,
							WL_MDS_NDARRAY },
				   .size = { -1, -1 }, .image_col = 0,
				   .label_col = 1 };
	uint8_t s[64];
	struct wl_sample_view v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put32(s, 3);
		put32(s + 4, cases[i].n);
		memcpy(s + 8, "img", 3);
		memcpy(s + 11, cases[i].b, cases[i].n);
		cr_assert_eq(wl_mds_sample_parse(&sh, s, 11 + cases[i].n, &v),
			     0, "%s", cases[i].what);
		cr_expect_eq(v.has_label, (bool)cases[i].has, "%s",
			     cases[i].what);
		cr_expect_eq(v.label, cases[i].label, "%s", cases[i].what);
	}
	/* a shape that does not match the values */
	put32(s + 4, 10);
	memcpy(s + 11, (const uint8_t[]){ 65, 1 << 2, 2, 7, 0, 0, 0, 0, 0, 0,
					  0 }, 11);
	cr_expect_eq(wl_mds_sample_parse(&sh, s, 21, &v), -WL_EBADREC);
	/* an unknown dtype code */
	put32(s + 4, 3);
	memcpy(s + 11, (const uint8_t[]){ 99, 1 << 2, 1 }, 3);
	cr_expect_eq(wl_mds_sample_parse(&sh, s, 14, &v), -WL_EBADREC);
}

FR_TEST(fmt_mds, text_label_that_is_no_number_leaves_no_label)
{
	struct wl_mds_shard sh = { .ncols = 2, .enc = { WL_MDS_STR,
							WL_MDS_BYTES },
				   .size = { -1, -1 }, .image_col = 1,
				   .label_col = 0 };
	static const struct { const char *text; int has; int64_t label; }
	cases[] = {
		{ "42", 1, 42 }, { " -7\n", 1, -7 }, { "n01440764", 0, 0 },
		{ "", 0, 0 }, { "9223372036854775807", 1, INT64_MAX },
		{ "-9223372036854775808", 1, INT64_MIN },
		{ "9223372036854775808", 0, 0 }, { "12ab", 0, 0 },
	};
	uint8_t s[64];
	struct wl_sample_view v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].text);

		put32(s, n);
		put32(s + 4, 2);
		memcpy(s + 8, cases[i].text, n);
		memcpy(s + 8 + n, "im", 2);
		cr_assert_eq(wl_mds_sample_parse(&sh, s, 10 + n, &v), 0);
		cr_expect_eq(v.has_label, (bool)cases[i].has, "\"%s\"",
			     cases[i].text);
		cr_expect_eq(v.label, cases[i].label, "\"%s\"",
			     cases[i].text);
		cr_expect_eq(v.image_len, 2);
	}
}

FR_TEST(fmt_mds, sample_whose_sizes_overrun_it_is_a_bad_record)
{
	struct wl_mds_shard sh;
	size_t len;
	uint8_t *p = hand_shard(1, &sh, &len);
	const size_t off = len - (4 + 10 + 8);
	struct wl_sample_view v;

	cr_assert_eq(wl_mds_sample_parse(&sh, p + off, len - off, &v), 0);
	cr_expect_eq(wl_mds_sample_parse(&sh, p + off, len - off - 1, &v),
		     -WL_EBADREC);
	cr_expect_eq(wl_mds_sample_parse(&sh, p + off, 3, &v), -WL_EBADREC);
	sh.image_col = -1;
	cr_expect_eq(wl_mds_sample_parse(&sh, p + off, len - off, &v),
		     -WL_ENOIMAGE);
	free(p);
}
