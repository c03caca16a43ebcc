/*
 * test_gen_formats.c - `feedrate gen --format wds|mds|tfrecord` and
 * `--from`: every shard read back by a reader that shares no code with
 * feedrate (tests/fixtures/shards/read_shards.py: Python's tarfile and a
 * raw header walk, MDS by streaming's layout with struct and json,
 * TFRecord with its own CRC-32C and protobuf parser; compressed shards
 * through the zstd CLI). The images must be the bytes the folder format
 * writes for the same seed, or the source folder's bytes; labels the
 * class index; shards within --shard-size; a full disk, a stop and a
 * refused output folder leave only complete shards and an untouched
 * source.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gen_write.h"
#include "harness.h"
#include "workloads.h"

#define PY "/usr/bin/python3"
#define READER "tests/fixtures/shards/read_shards.py"

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
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

static bool files_equal(const char *a, const char *b)
{
	size_t na, nb;
	unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
	const bool eq = na == nb && !memcmp(pa, pb, na);

	free(pa);
	free(pb);
	return eq;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "fopen %s", path);
	cr_assert_eq(fwrite(p, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

static char *path2(const char *a, const char *b)
{
	char *p;

	cr_assert_geq(asprintf(&p, "%s/%s", a, b), 0);
	return p;
}

static void need_python(bool zstd)
{
	if (access(PY, X_OK))
		cr_skip_test(PY " is missing (Debian's python3)");
	if (zstd && system("command -v zstd >/dev/null 2>&1"))
		cr_skip_test("the zstd CLI is missing (Debian's zstd)");
}

/* One sample as the reader dumped it. */
struct row {
	long long label;
	char key[512], fmt[16];
	unsigned w, h;
};

/*
 * Reads FMT shards in DIR back with the independent reader, into
 * BASE/NAME (DUMP/NNNNNN.img and rows); checks the size rule when LIMIT.
 * Returns the rows (*N of them); fails the test with the reader's word.
 */
static struct row *read_back(const char *base, const char *name,
			     const char *fmt, const char *dir, uint64_t limit,
			     size_t *n, char **dump_out)
{
	char *dump = path2(base, name), *log, *tsv, lim[32];
	char *argv[] = { PY, READER, (char *)fmt, (char *)dir, dump,
			 limit ? lim : NULL, NULL };
	struct row *rows = NULL;
	char line[1024];
	size_t cap = 0;
	FILE *f;
	int rc;

	snprintf(lim, sizeof(lim), "%llu", (unsigned long long)limit);
	cr_assert_geq(asprintf(&log, "%s-log", dump), 0);
	cr_assert_eq(mkdir(log, 0755), 0);
	rc = fr_test_run(log, argv, 120);
	if (rc) {
		char *out = path2(log, "stdout"), *err = path2(log, "stderr");
		size_t no, ne;
		unsigned char *o = slurp(out, &no), *e = slurp(err, &ne);

		cr_assert_fail("reader of %s exit %d: %.*s%.*s", dir, rc,
			       (int)no, o, (int)ne, e);
	}
	tsv = path2(dump, "samples.tsv");
	f = fopen(tsv, "r");
	cr_assert_not_null(f);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct row r = { 0 };
		unsigned idx;

		cr_assert_eq(sscanf(line, "%u\t%lld\t%511s\t%15s\t%u\t%u", &idx,
				    &r.label, r.key, r.fmt, &r.w, &r.h), 6,
			     "row '%s'", line);
		cr_assert_eq(idx, *n);
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			rows = realloc(rows, cap * sizeof(*rows));
			cr_assert_not_null(rows);
		}
		rows[(*n)++] = r;
	}
	fclose(f);
	free(tsv);
	free(log);
	*dump_out = dump;
	return rows;
}

/* DUMP's image I. */
static char *dumped(const char *dump, size_t i)
{
	char *p;

	cr_assert_geq(asprintf(&p, "%s/%06zu.img", dump, i), 0);
	return p;
}

/* The folder format's file for image I of a set of NCLS classes. */
static char *folder_file(const char *dir, size_t i, uint32_t ncls)
{
	char cls[16], *p;

	wl_class_name((uint32_t)(i % ncls), cls);
	cr_assert_geq(asprintf(&p, "%s/train/%s/%s_%zu.JPEG", dir, cls, cls,
			       i / ncls), 0);
	return p;
}

static void gen_folder(const char *dir, uint64_t files, uint64_t seed,
		       struct wl_gen_stats *st)
{
	const struct wl_workload *w;
	struct wl_gen_opts o = { .files = files, .seed = seed, .jobs = 2 };

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(w->gen->generate(w, dir, &o, st), 0);
}

static int gen_shards(const char *dir, uint64_t files, uint64_t seed,
		      unsigned jobs, const struct wl_shard_opts *so,
		      struct wl_gen_stats *st, struct wl_shard_stats *sst)
{
	const struct wl_workload *w;
	struct wl_gen_opts o = { .files = files, .seed = seed, .jobs = jobs };

	cr_assert_eq(wl_find("imagenet", &w), 0);
	return wl_gen_shards(w, dir, &o, so, st, sst);
}

/*
 * Generates FILES images with SEED as the folder format and as SO's
 * shards, reads the shards back and checks each sample against the
 * folder's file: same bytes, label i % classes; wds keys
 * "<class>/<class>_<n>"; tfrecord sizes the generator's.
 */
static void same_as_folder(const struct wl_shard_opts *so, const char *fmt,
			   uint64_t files, uint64_t seed, size_t min_shards)
{
	char *base = fr_test_tmpdir();
	char *ref = path2(base, "folder"), *out = path2(base, "shards"), *dump;
	const struct wl_workload *w;
	struct wl_gen_stats rs, st;
	struct wl_shard_stats sst;
	struct row *rows;
	size_t n;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	gen_folder(ref, files, seed, &rs);
	cr_assert_eq(gen_shards(out, files, seed, 2, so, &st, &sst), 0);
	rows = read_back(base, "dump", fmt, out, so->zstd ? 0 : so->shard_size,
			 &n, &dump);
	cr_assert_eq(n, files);
	cr_assert_eq(sst.samples, files);
	cr_assert_geq(sst.shards, min_shards, "%llu shards",
		      (unsigned long long)sst.shards);
	cr_assert_eq(sst.image_bytes, rs.bytes, "the same images in total");
	for (size_t i = 0; i < n; i++) {
		char *a = dumped(dump, i), *b = folder_file(ref, i, rs.classes);

		cr_assert(files_equal(a, b), "sample %zu is not %s", i, b);
		cr_assert_eq(rows[i].label, (long long)(i % rs.classes));
		if (!strcmp(fmt, "wds")) {
			char cls[16], key[64];

			wl_class_name((uint32_t)(i % rs.classes), cls);
			snprintf(key, sizeof(key), "%s/%s_%zu", cls, cls,
				 i / rs.classes);
			cr_assert_str_eq(rows[i].key, key);
		}
		if (!strcmp(fmt, "tfrecord")) {
			struct wl_image_spec spec;

			w->image_spec(seed, i, &spec);
			cr_assert_str_eq(rows[i].fmt, "jpeg");
			cr_assert_eq(rows[i].w, spec.width);
			cr_assert_eq(rows[i].h, spec.height);
		}
		free(a);
		free(b);
	}
	free(rows);
	free(dump);
	free(ref);
	free(out);
	fr_test_rmtree(base);
}

/* ---- each format against the folder format ---- */

FR_TEST(gen_formats, wds_members_are_the_folder_images_and_labels,
	.timeout = 180)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS,
					  .shard_size = 400 << 10 };

	need_python(false);
	same_as_folder(&so, "wds", 101, 7, 10);  /* 101 files: 2 classes */
}

FR_TEST(gen_formats, wds_zstd_shards_decompress_to_the_same_members,
	.timeout = 180)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS,
					  .zstd = true,
					  .shard_size = 1 << 20 };

	need_python(true);
	same_as_folder(&so, "wds", 30, 8, 3);
}

FR_TEST(gen_formats, mds_shards_follow_streamings_layout_and_size_limit,
	.timeout = 180)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_MDS,
					  .shard_size = 400 << 10 };

	need_python(false);
	same_as_folder(&so, "mds", 101, 9, 10);
}

FR_TEST(gen_formats, mds_zstd_shards_are_listed_as_zip_data, .timeout = 180)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_MDS,
					  .zstd = true, .zstd_level = 5,
					  .shard_size = 1 << 20 };
	char *base = fr_test_tmpdir(), *out = path2(base, "m");
	char *idx = path2(out, "index.json");
	struct wl_gen_stats st;
	struct wl_shard_stats sst;
	size_t len;
	unsigned char *text;

	need_python(true);
	same_as_folder(&so, "mds", 30, 10, 3);
	/* the compression as streaming names it, and its defaults */
	cr_assert_eq(gen_shards(out, 3, 1, 1, &so, &st, &sst), 0);
	text = slurp(idx, &len);
	text[len - 1] = '\0';
	cr_assert_not_null(strstr((char *)text, "\"compression\": \"zstd:5\""));
	cr_assert_not_null(strstr((char *)text,
				  "\"basename\": \"shard.00000.mds.zstd\""));
	free(text);
	free(idx);
	free(out);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, tfrecord_records_carry_valid_crcs_and_the_images,
	.timeout = 180)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_TFRECORD,
					  .shard_size = 600 << 10 };

	need_python(false);
	same_as_folder(&so, "tfrecord", 30, 11, 3);
}

FR_TEST(gen_formats, default_shard_sizes_are_100m_and_mds_size_limit)
{
	char *base = fr_test_tmpdir(), *d1 = path2(base, "w");
	char *d2 = path2(base, "m"), *idx = path2(d2, "index.json");
	const struct wl_shard_opts w = { .format = WL_FORMAT_WDS };
	const struct wl_shard_opts m = { .format = WL_FORMAT_MDS };
	struct wl_gen_stats st;
	struct wl_shard_stats sst;
	unsigned char *text;
	size_t len;

	cr_assert_eq(WL_SHARD_DEFAULT_BYTES, 100ull << 20);
	cr_assert_eq(WL_MDS_DEFAULT_SIZE_LIMIT, 67108864ull);
	cr_assert_eq(gen_shards(d1, 4, 1, 1, &w, &st, &sst), 0);
	cr_assert_eq(sst.shards, 1);
	cr_assert_eq(gen_shards(d2, 4, 1, 1, &m, &st, &sst), 0);
	text = slurp(idx, &len);
	text[len - 1] = '\0';
	cr_assert_not_null(strstr((char *)text, "\"size_limit\": 67108864"));
	free(text);
	free(idx);
	free(d1);
	free(d2);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, shards_do_not_depend_on_the_number_of_jobs,
	.timeout = 120)
{
	char *base = fr_test_tmpdir();
	char *d1 = path2(base, "one"), *d3 = path2(base, "three");
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS,
					  .zstd = true,
					  .shard_size = 500 << 10 };
	struct wl_gen_stats s1, s3;
	struct wl_shard_stats k1, k3;

	cr_assert_eq(gen_shards(d1, 24, 4, 1, &so, &s1, &k1), 0);
	cr_assert_eq(gen_shards(d3, 24, 4, 3, &so, &s3, &k3), 0);
	cr_assert_eq(k1.shards, k3.shards);
	cr_assert_gt(k1.shards, 1);
	for (unsigned i = 0; i < k1.shards; i++) {
		char name[64], *a, *b;

		snprintf(name, sizeof(name), "shard-%06u.tar.zst", i);
		a = path2(d1, name);
		b = path2(d3, name);
		cr_assert(files_equal(a, b), "%s differs", name);
		free(a);
		free(b);
	}
	free(d1);
	free(d3);
	fr_test_rmtree(base);
}

/* ---- --from: a user's ImageFolder ---- */

/* Enough of a JPEG (SOI, SOF0 32x16) and a PNG (IHDR 7x5) for the
 * converter, which never decodes: the bytes must come out unchanged. */
static const unsigned char fake_jpeg[] = {
	0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 'J', 'F', 0xff, 0xc0, 0x00, 0x0b,
	0x08, 0x00, 0x10, 0x00, 0x20, 0x01, 0x01, 0x11, 0x00, 0xff, 0xd9,
};
static const unsigned char fake_png[] = {
	0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
	'I', 'H', 'D', 'R', 0, 0, 0, 7, 0, 0, 0, 5, 8, 2, 0, 0, 0, 1, 2, 3,
};

struct src_file {
	const char *rel;        /* under SRC */
	int taken;              /* -1: left out; else the sample's label */
	const char *key;        /* the wds key */
	int kind;               /* 0 jpeg, 1 png, 2 other bytes */
	const char *fmt;        /* tfrecord image/format */
};

/* In the order the conversion takes them: class folders sorted bytewise
 * ("Z" < "a_cls" < "b_cls" < "c_empty"), files sorted, a folder's files
 * before its subfolders. */
static const struct src_file src_files[] = {
	{ "top.jpg", -1, NULL, 0, NULL },            /* no class folder */
	{ "Z/q.webp", 0, "Z/q", 2, "webp" },
	{ "a_cls/notes.txt", -1, NULL, 2, NULL },    /* not an image */
	{ "a_cls/x.jpg", 1, "a_cls/x", 0, "jpeg" },
	{ "a_cls/y.JPEG", 1, "a_cls/y", 0, "jpeg" },
	{ "b_cls/img.v2.png", 2, "b_cls/img_v2", 1, "png" },
	{ "b_cls/sub/deep.jpg", 2, "b_cls/sub/deep", 0, "jpeg" },
};
#define NSRC (sizeof(src_files) / sizeof(src_files[0]))
#define NTAKEN 5

/* SRC with the files above; each file's bytes differ (its index). */
static void make_src(const char *src)
{
	static const char *const dirs[] = { "", "/Z", "/a_cls", "/b_cls",
					    "/b_cls/sub", "/c_empty" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *d;

		cr_assert_geq(asprintf(&d, "%s%s", src, dirs[i]), 0);
		cr_assert_eq(mkdir(d, 0755), 0, "mkdir %s", d);
		free(d);
	}
	for (size_t i = 0; i < NSRC; i++) {
		unsigned char b[64];
		size_t n;
		char *p = path2(src, src_files[i].rel);

		if (src_files[i].kind == 1) {
			memcpy(b, fake_png, sizeof(fake_png));
			n = sizeof(fake_png);
		} else if (src_files[i].kind == 0) {
			memcpy(b, fake_jpeg, sizeof(fake_jpeg));
			n = sizeof(fake_jpeg);
		} else {
			memcpy(b, "RIFF....WEBP", 12);
			n = 12;
		}
		b[n++] = (unsigned char)i;   /* trailing bytes stay */
		write_file(p, b, n);
		free(p);
	}
}

/* A listing of DIR (find -ls), to show it did not change. */
static char *tree_text(const char *dir)
{
	char *cmd, *out = NULL;
	size_t cap = 0;
	FILE *f;

	cr_assert_geq(asprintf(&cmd, "cd '%s' && find . -printf '%%p %%s "
			       "%%T@\\n' | sort", dir), 0);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_geq(getdelim(&out, &cap, '\0', f), 0);
	pclose(f);
	free(cmd);
	return out;
}

static void from_folder_check(const char *format, const char *fmt_arg,
			      bool zstd)
{
	char *base = fr_test_tmpdir(), *src = path2(base, "src");
	char *out = path2(base, "out"), *dump, *before, *after;
	char *argv[] = { "gen", "-q", "--from", src, "--format",
			 (char *)fmt_arg, "--compression",
			 zstd ? "zstd" : "none", out, NULL };
	struct row *rows;
	size_t n, k = 0;

	need_python(zstd);
	make_src(src);
	before = tree_text(src);
	cr_assert_eq(cmd_gen(9, argv), FR_EXIT_OK);
	after = tree_text(src);
	cr_assert_str_eq(after, before, "the source folder is unchanged");
	rows = read_back(base, "dump", format, out, 0, &n, &dump);
	cr_assert_eq(n, NTAKEN);
	for (size_t i = 0; i < NSRC; i++) {
		char *a, *b;

		if (src_files[i].taken < 0)
			continue;
		a = dumped(dump, k);
		b = path2(src, src_files[i].rel);
		cr_assert(files_equal(a, b), "sample %zu is not %s", k, b);
		cr_assert_eq(rows[k].label, src_files[i].taken, "%s",
			     src_files[i].rel);
		if (!strcmp(format, "wds"))
			cr_assert_str_eq(rows[k].key, src_files[i].key);
		if (!strcmp(format, "tfrecord")) {
			cr_assert_str_eq(rows[k].fmt, src_files[i].fmt);
			cr_assert_eq(rows[k].w, src_files[i].kind == 0 ? 32 :
				     src_files[i].kind == 1 ? 7 : 0);
			cr_assert_eq(rows[k].h, src_files[i].kind == 0 ? 16 :
				     src_files[i].kind == 1 ? 5 : 0);
		}
		free(a);
		free(b);
		k++;
	}
	free(rows);
	free(dump);
	free(before);
	free(after);
	free(src);
	free(out);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, from_folder_wds_labels_are_sorted_class_indexes)
{
	from_folder_check("wds", "wds", false);
}

FR_TEST(gen_formats, from_folder_wds_zstd_keeps_the_bytes)
{
	from_folder_check("wds", "wds", true);
}

FR_TEST(gen_formats, from_folder_mds_keeps_labels_and_bytes)
{
	from_folder_check("mds", "mds", false);
}

FR_TEST(gen_formats, from_folder_tfrecord_keeps_labels_bytes_and_sizes)
{
	from_folder_check("tfrecord", "tfrecord", false);
}

FR_TEST(gen_formats, from_folder_counts_what_it_left_out)
{
	char *base = fr_test_tmpdir(), *src = path2(base, "src");
	char *out = path2(base, "out");
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS };
	struct wl_gen_opts o = { .jobs = 3 };
	struct wl_gen_stats st;
	struct wl_shard_stats sst;

	make_src(src);
	cr_assert_eq(wl_shards_from_folder(src, out, &o, &so, &st, &sst), 0);
	cr_assert_eq(sst.samples, NTAKEN);
	cr_assert_eq(st.files, NTAKEN);
	cr_assert_eq(sst.classes, 4, "Z, a_cls, b_cls, c_empty");
	cr_assert_eq(sst.empty_classes, 1);
	cr_assert_eq(sst.skipped, 2, "top.jpg and notes.txt");
	free(src);
	free(out);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, from_a_folder_without_images_or_a_file_fails_env)
{
	char *base = fr_test_tmpdir(), *src = path2(base, "src");
	char *cls = path2(src, "cls"), *txt = path2(cls, "a.txt");
	char *out = path2(base, "out");
	char *argv[] = { "gen", "-q", "--from", src, "--format", "wds", out,
			 NULL };
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS };
	struct wl_gen_opts o = { .jobs = 1 };
	struct wl_gen_stats st;
	struct wl_shard_stats sst;

	cr_assert_eq(mkdir(src, 0755), 0);
	cr_assert_eq(mkdir(cls, 0755), 0);
	write_file(txt, "x", 1);
	cr_assert_eq(wl_shards_from_folder(src, out, &o, &so, &st, &sst),
		     -ENODATA);
	cr_assert_eq(access(out, F_OK), -1, "no output folder was made");
	cr_assert_eq(cmd_gen(7, argv), FR_EXIT_ENV);
	argv[3] = txt;   /* a file, not a folder */
	cr_assert_eq(cmd_gen(7, argv), FR_EXIT_ENV);
	cr_assert_eq(access(out, F_OK), -1);
	free(txt);
	free(cls);
	free(src);
	free(out);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, refuses_an_output_inside_the_source_folder)
{
	char *base = fr_test_tmpdir(), *src = path2(base, "src");
	char *in = path2(src, "a_cls/shards"), *link = path2(base, "link");
	char *via = path2(link, "new"), *up, *before, *after;
	char *a1[] = { "gen", "--from", src, "--format", "wds", in, NULL };
	char *a2[] = { "gen", "--from", src, "--format", "mds", src, NULL };
	char *a3[] = { "gen", "--from", src, "--format", "tfrecord", via,
		       NULL };
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS };
	struct wl_gen_opts o = { .jobs = 1 };
	struct wl_gen_stats st;
	struct wl_shard_stats sst;

	make_src(src);
	cr_assert_eq(symlink(src, link), 0);
	cr_assert_geq(asprintf(&up, "%s/../elsewhere", src), 0);
	before = tree_text(src);
	cr_assert_eq(wl_path_inside(in, src), 1, "a new folder inside");
	cr_assert_eq(wl_path_inside(src, src), 1, "the folder itself");
	cr_assert_eq(wl_path_inside(via, src), 1, "through a symlink");
	cr_assert_eq(wl_path_inside(up, src), 0, "'..' leads out");
	cr_assert_eq(wl_path_inside(base, src), 0, "a parent");
	cr_assert_eq(cmd_gen(6, a1), FR_EXIT_USAGE);
	cr_assert_eq(cmd_gen(6, a2), FR_EXIT_USAGE);
	cr_assert_eq(cmd_gen(6, a3), FR_EXIT_USAGE);
	cr_assert_eq(wl_shards_from_folder(src, via, &o, &so, &st, &sst),
		     -EINVAL);
	after = tree_text(src);
	cr_assert_str_eq(after, before, "nothing was written into SRC");
	free(before);
	free(after);
	free(up);
	free(via);
	free(link);
	free(in);
	free(src);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, command_line_rejects_bad_shard_requests)
{
	char *a1[] = { "gen", "--files", "3", "--format", "parquet", "x",
		       NULL };
	char *a2[] = { "gen", "--files", "3", "--format", "tfrecord",
		       "--compression", "zstd", "x", NULL };
	char *a3[] = { "gen", "--files", "3", "--format", "wds",
		       "--compression", "zstd", "--zstd-level", "23", "x",
		       NULL };
	char *a4[] = { "gen", "--files", "3", "--format", "wds",
		       "--zstd-level", "5", "x", NULL };
	char *a5[] = { "gen", "--from", ".", "x", NULL };
	char *a6[] = { "gen", "--from", ".", "--format", "wds", "--files",
		       "3", "x", NULL };
	char *a7[] = { "gen", "--files", "3", "--shard-size", "1M", "x",
		       NULL };
	char *a8[] = { "gen", "--files", "3", "--format", "mds",
		       "--shard-size", "4G", "x", NULL };
	char *a9[] = { "gen", "--files", "3", "--format", "wds",
		       "--compression", "lz4", "x", NULL };
	char *a10[] = { "gen", "--files", "3", "--format", "wds",
			"--shard-size", "0", "x", NULL };
	const struct wl_shard_opts bad = { .format = WL_FORMAT_TFRECORD,
					   .zstd = true };
	struct wl_shard_writer *w;

	cr_assert_eq(cmd_gen(6, a1), FR_EXIT_USAGE, "unknown format");
	cr_assert_eq(cmd_gen(8, a2), FR_EXIT_USAGE, "tfrecord has no zstd");
	cr_assert_eq(cmd_gen(10, a3), FR_EXIT_USAGE, "zstd level 23");
	cr_assert_eq(cmd_gen(8, a4), FR_EXIT_USAGE, "level without zstd");
	cr_assert_eq(cmd_gen(4, a5), FR_EXIT_USAGE, "--from into folder");
	cr_assert_eq(cmd_gen(8, a6), FR_EXIT_USAGE, "--from with --files");
	cr_assert_eq(cmd_gen(6, a7), FR_EXIT_USAGE, "shard size, no shards");
	cr_assert_eq(cmd_gen(8, a8), FR_EXIT_USAGE, "MDS offsets are 32-bit");
	cr_assert_eq(cmd_gen(8, a9), FR_EXIT_USAGE, "unknown compression");
	cr_assert_eq(cmd_gen(8, a10), FR_EXIT_USAGE, "zero shard size");
	cr_assert_eq(wl_shard_writer_create(-1, &bad, &w), -EINVAL);
	cr_assert_null(w);
}

FR_TEST(gen_formats, help_documents_every_shard_option)
{
	static const char *const words[] = {
		"--format", "--compression", "--zstd-level", "--shard-size",
		"--from", "wds", "mds", "tfrecord", "index.json",
		"shard-000000.tar.zst", "train-00000-of-000NN.tfrecord",
	};
	const char *bin = fr_test_bin();
	char *base = fr_test_tmpdir(), *out = path2(base, "stdout");
	char *argv[] = { (char *)bin, "gen", "--help", NULL };
	unsigned char *text;
	size_t len;

	cr_assert_eq(fr_test_run(base, argv, 30), 0);
	text = slurp(out, &len);
	text = realloc(text, len + 1);
	text[len] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		cr_assert_not_null(strstr((char *)text, words[i]), "%s",
				   words[i]);
	free(text);
	free(out);
	fr_test_rmtree(base);
}

/* ---- failures keep only complete shards ---- */

static void stop_after_five(void *arg, const struct wl_gen_stats *st,
			    bool done)
{
	volatile sig_atomic_t *stop = arg;

	if (!done && st->files >= 5)
		*stop = 1;
}

FR_TEST(gen_formats, a_stop_completes_the_open_shard, .timeout = 120)
{
	static const struct {
		enum wl_format f;
		const char *name;
	} fmts[] = {
		{ WL_FORMAT_WDS, "wds" }, { WL_FORMAT_MDS, "mds" },
		{ WL_FORMAT_TFRECORD, "tfrecord" },
	};
	char *base = fr_test_tmpdir();

	need_python(false);
	for (size_t k = 0; k < 3; k++) {
		char *dir = path2(base, fmts[k].name), *dump, dname[32];
		const struct wl_workload *w;
		volatile sig_atomic_t stop = 0;
		struct wl_gen_opts o = { .files = 50, .seed = 5, .jobs = 2,
					 .progress = stop_after_five,
					 .progress_arg = (void *)&stop,
					 .stop = &stop };
		const struct wl_shard_opts so = { .format = fmts[k].f };
		struct wl_gen_stats st;
		struct wl_shard_stats sst;
		struct row *rows;
		size_t n;

		cr_assert_eq(wl_find("imagenet", &w), 0);
		cr_assert_eq(wl_gen_shards(w, dir, &o, &so, &st, &sst), -EINTR);
		snprintf(dname, sizeof(dname), "dump-%s", fmts[k].name);
		rows = read_back(base, dname, fmts[k].name, dir, 0, &n, &dump);
		cr_assert_eq(n, 5, "%s: the five images put are kept",
			     fmts[k].name);
		cr_assert_eq(sst.samples, 5);
		cr_assert_eq(sst.shards, 1);
		free(rows);
		free(dump);
		free(dir);
	}
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, full_disk_leaves_only_complete_shards_that_read_back,
	.timeout = 180)
{
	static const char *const fmts[] = { "wds", "mds", "tfrecord" };
	char *base = fr_test_tmpdir(), *mnt = path2(base, "small");

	need_python(false);
	if (geteuid() != 0) {
		free(mnt);
		fr_test_rmtree(base);
		cr_skip_test("mounting a small tmpfs needs root");
	}
	cr_assert_eq(mkdir(mnt, 0755), 0);
	/* A private mount namespace: the small tmpfs vanishes with this
	 * test's process, even when an assertion ends it early. */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("feedrate-test", mnt, "tmpfs", 0, "size=2m")) {
		const int e = errno;

		free(mnt);
		fr_test_rmtree(base);
		cr_skip_test("cannot mount tmpfs: %s", strerror(e));
	}
	for (size_t k = 0; k < 3; k++) {
		char *dir = path2(mnt, fmts[k]), *dump, dname[32], *rm;
		char *argv[] = { "gen", "-q", "--size", "20M", "--format",
				 (char *)fmts[k], "--shard-size", "300K", dir,
				 NULL };
		struct row *rows;
		size_t n;

		cr_assert_eq(cmd_gen(9, argv), FR_EXIT_ENV, "%s", fmts[k]);
		snprintf(dname, sizeof(dname), "dump-%s", fmts[k]);
		/* the reader refuses temporary files and partial shards */
		rows = read_back(base, dname, fmts[k], dir, 300 << 10, &n,
				 &dump);
		cr_assert_gt(n, 0, "%s: some shards fit", fmts[k]);
		free(rows);
		free(dump);
		cr_assert_geq(asprintf(&rm, "rm -rf '%s'", dir), 0);
		cr_assert_eq(system(rm), 0);
		free(rm);
		free(dir);
	}
	cr_assert_eq(umount2(mnt, MNT_DETACH), 0);
	free(mnt);
	fr_test_rmtree(base);
}

FR_TEST(gen_formats, long_member_names_get_a_pax_header)
{
	char *base = fr_test_tmpdir(), *src = path2(base, "src");
	char *out = path2(base, "out"), *cls, *file, *dump;
	char name[201];
	const struct wl_shard_opts so = { .format = WL_FORMAT_WDS };
	struct wl_gen_opts o = { .jobs = 1 };
	struct wl_gen_stats st;
	struct wl_shard_stats sst;
	struct row *rows;
	size_t n;

	need_python(false);
	memset(name, 'k', 150);
	strcpy(name + 150, ".jpg");
	cr_assert_eq(mkdir(src, 0755), 0);
	cls = path2(src, "class_with_a_long_name");
	cr_assert_eq(mkdir(cls, 0755), 0);
	file = path2(cls, name);
	write_file(file, fake_jpeg, sizeof(fake_jpeg));
	cr_assert_eq(wl_shards_from_folder(src, out, &o, &so, &st, &sst), 0);
	rows = read_back(base, "dump", "wds", out, 0, &n, &dump);
	cr_assert_eq(n, 1);
	cr_assert_eq(strlen(rows[0].key), strlen("class_with_a_long_name/") +
		     150);
	free(rows);
	free(dump);
	free(file);
	free(cls);
	free(src);
	free(out);
	fr_test_rmtree(base);
}
