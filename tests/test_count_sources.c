/*
 * test_count_sources.c - where a shard's record count comes from: DALI's
 * side index beside a TFRecord shard, the count cache outside the
 * dataset, a walk, or (info) an estimate from a sample of walked shards.
 * Each source is taken when present and the next one when it is absent,
 * stale (the shard's size or mtime changed) or corrupt; a cache that
 * cannot be written is a counted warning; every count equals the walk's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "shardset.h"

#define NFILES "60"

static char *cat2(const char *a, const char *b)
{
	char *s;

	cr_assert(asprintf(&s, "%s/%s", a, b) > 0);
	return s;
}

static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* DIR/NAME: NFILES images converted to FORMAT in shards of SHARD_SIZE,
 * every file's mtime set a minute back (so the cache may keep it). */
static char *make_set(const char *dir, const char *name, const char *format,
		      const char *compression, const char *shard_size)
{
	char *folder = cat2(dir, "folder"), *train = cat2(folder, "train");
	char *out = cat2(dir, name), *ls = NULL;
	struct stat st;
	FILE *p;
	char line[4096];

	if (stat(folder, &st)) {
		char *g[] = { (char *)fr_test_bin(), "gen", "-q", "--files",
			      NFILES, "--seed", "3", folder, NULL };

		cr_assert_eq(fr_test_run(dir, g, 300), 0, "gen folder");
	}
	{
		char *g[] = { (char *)fr_test_bin(), "gen", "-q", "--from",
			      train, "--format", (char *)format,
			      "--shard-size", (char *)shard_size,
			      "--compression", (char *)compression, out,
			      NULL };

		cr_assert_eq(fr_test_run(dir, g, 300), 0, "gen --from %s",
			     format);
	}
	cr_assert(asprintf(&ls, "ls '%s'", out) > 0);
	p = popen(ls, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct timespec t[2] = { { .tv_sec = time(NULL) - 60 },
					 { .tv_sec = time(NULL) - 60 } };
		char *f;

		line[strcspn(line, "\n")] = '\0';
		f = cat2(out, line);
		cr_assert_eq(utimensat(AT_FDCWD, f, t, 0), 0);
		free(f);
	}
	pclose(p);
	free(ls);
	free(folder);
	free(train);
	return out;
}

static struct wl_shardset *open_set(const char *ds, enum wl_format f,
				    const char *cache, bool estimate)
{
	struct wl_shardset_opts o = { .estimate = estimate,
				      .count_cache_dir = cache };
	struct wl_shardset *s = NULL;
	char why[512];
	int err = wl_shardset_open(ds, f, &o, &s, why, sizeof(why));

	cr_assert_eq(err, 0, "open %s: %d %s", ds, err, why);
	return s;
}

/* The records of DS counted by walking every shard (a fresh cache). */
static uint64_t walked_total(const char *dir, const char *ds,
			     enum wl_format f)
{
	char *cache = cat2(dir, "walk-cache");
	struct wl_shardset *s = open_set(ds, f, cache, false);
	uint64_t n = s->total;

	cr_assert_eq(s->by_source[WL_COUNT_SCANNED],
		     stg_dataset_count(s->ds));
	cr_assert_eq(s->source, WL_COUNT_SCANNED);
	wl_shardset_free(s);
	fr_test_rmtree(cache);
	return n;
}

/* DALI's tfrecord2idx for every shard of S: "offset size" per record,
 * found by the framing (length at 0, framed size length + 16); named
 * shard + SUFFIX, or with STEM the shard's name without its extension. */
static void write_dali_idx(const struct wl_shardset *s, bool stem)
{
	for (size_t i = 0; i < stg_dataset_count(s->ds); i++) {
		char path[4096], idx[4200];
		uint8_t h[8];
		uint64_t off = 0, size;
		FILE *out;
		int fd;

		cr_assert_gt(stg_dataset_path(s->ds, i, path, sizeof(path)), 0);
		size = (uint64_t)stg_dataset_size(s->ds, i);
		if (stem)
			snprintf(idx, sizeof(idx), "%.*s.idx",
				 (int)(strrchr(path, '.') - path), path);
		else
			snprintf(idx, sizeof(idx), "%s.idx", path);
		fd = open(path, O_RDONLY);
		out = fopen(idx, "w");
		cr_assert(fd >= 0 && out);
		while (off < size) {
			uint64_t len = 0;

			cr_assert_eq(pread(fd, h, 8, (off_t)off), 8);
			for (int b = 7; b >= 0; b--)
				len = len << 8 | h[b];
			fprintf(out, "%llu %llu\n", (unsigned long long)off,
				(unsigned long long)(len + 16));
			off += len + 16;
		}
		close(fd);
		cr_assert_eq(fclose(out), 0);
	}
}

/* ---- DALI's side index, parsed ---- */

FR_TEST(count_sources, a_dali_index_counts_only_when_it_fits_the_shard)
{
	static const struct {
		const char *text;
		uint64_t size;
		int want;       /* records, or -1: bad_index */
	} cases[] = {
		{ "0 20\n20 36\n", 56, 2 },
		{ "0 20\r\n20 36\r\n", 56, 2 },         /* CRLF */
		{ "0 20\n20 36", 56, 2 },               /* no last newline */
		{ "0\t20\n\n20  36\n", 56, 2 },         /* tabs, blank line */
		{ "", 0, 0 },                           /* empty shard */
		{ "0 20\n20 36\n", 60, -1 },            /* stale: shard grew */
		{ "0 20\n20 36\n", 50, -1 },            /* ... or shrank */
		{ "0 20\n24 32\n", 56, -1 },            /* a gap */
		{ "0 20\n", 56, -1 },                   /* records missing */
		{ "0 8\n8 48\n", 56, -1 },              /* under 16 bytes */
		{ "0 20 7\n20 36\n", 56, -1 },          /* a third field */
		{ "0 -20\n", 20, -1 },
		{ "zero twenty\n", 20, -1 },
		{ "0 99999999999999999999\n", 20, -1 }, /* overflow */
		{ "\x89PNG\r\n", 6, -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t n = 99;
		int r = wl_side_index_count(WL_FORMAT_TFRECORD, cases[i].text,
					    strlen(cases[i].text),
					    cases[i].size, &n);

		if (cases[i].want < 0) {
			cr_assert_eq(r, -WL_EBADINDEX, "case %zu: %d", i, r);
		} else {
			cr_assert_eq(r, 0, "case %zu: %d", i, r);
			cr_assert_eq(n, (uint64_t)cases[i].want, "case %zu", i);
		}
	}
	/* the rows: only TFRecord states a side index; a tar's own members
	 * are not one */
	cr_assert(wl_format_can(WL_FORMAT_TFRECORD, WL_CAP_SIDE_INDEX));
	cr_assert(!wl_format_can(WL_FORMAT_WDS, WL_CAP_SIDE_INDEX));
	cr_assert(wl_format_can(WL_FORMAT_MDS, WL_CAP_INDEX));
	{
		uint64_t n;

		cr_assert_eq(wl_side_index_count(WL_FORMAT_WDS, "0 20\n", 5,
						 20, &n), -ENOTSUP);
	}
	cr_assert_str_eq(wl_count_source_name(WL_COUNT_ESTIMATED),
			 "estimated");
}

/* ---- the source taken, and the fallbacks, on real shards ---- */

FR_TEST(count_sources, tfrecord_counts_come_from_dali_idx_files_beside,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfr", "tfrecord", "none", "1M");
	char *cache = cat2(dir, "cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_TFRECORD);
	struct wl_shardset *s = open_set(ds, WL_FORMAT_TFRECORD, cache, false);
	size_t n = stg_dataset_count(s->ds);

	cr_assert_eq(walked, (uint64_t)atoi(NFILES));
	write_dali_idx(s, false);
	wl_shardset_free(s);
	/* a fresh cache folder: nothing cached, the index alone answers */
	fr_test_rmtree(cache);
	cache = cat2(dir, "cache");
	s = open_set(ds, WL_FORMAT_TFRECORD, cache, false);
	cr_assert_eq(stg_dataset_count(s->ds), n, "an .idx is not a shard");
	cr_assert_eq(s->source, WL_COUNT_INDEX);
	cr_assert_eq(s->by_source[WL_COUNT_INDEX], n);
	cr_assert_eq(s->total, walked);
	cr_assert_eq(s->count_warnings, 0);
	wl_shardset_free(s);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(count_sources, a_stem_named_idx_counts_and_a_stale_one_is_walked,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfr", "tfrecord", "none", "1M");
	char *cache = cat2(dir, "cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_TFRECORD);
	struct wl_shardset *s = open_set(ds, WL_FORMAT_TFRECORD, cache, false);
	size_t n = stg_dataset_count(s->ds);
	char path[4096], idx[4200];
	FILE *f;

	cr_assert_gt(n, 2);
	write_dali_idx(s, true);        /* train-00000-of-00007.idx */
	/* shard 0's index made stale (one record more than the shard
	 * holds), shard 1's corrupt */
	cr_assert_gt(stg_dataset_path(s->ds, 0, path, sizeof(path)), 0);
	snprintf(idx, sizeof(idx), "%.*s.idx",
		 (int)(strrchr(path, '.') - path), path);
	f = fopen(idx, "a");
	cr_assert_not_null(f);
	fprintf(f, "%lld 100\n", (long long)stg_dataset_size(s->ds, 0));
	fclose(f);
	cr_assert_gt(stg_dataset_path(s->ds, 1, path, sizeof(path)), 0);
	snprintf(idx, sizeof(idx), "%.*s.idx",
		 (int)(strrchr(path, '.') - path), path);
	put_text(idx, "this is not an index\n");
	wl_shardset_free(s);

	/* the first open cached every walked count: the two shards whose
	 * index does not fit fall back to it */
	s = open_set(ds, WL_FORMAT_TFRECORD, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_INDEX], n - 2);
	cr_assert_eq(s->by_source[WL_COUNT_CACHE], 2);
	cr_assert_eq(s->source, WL_COUNT_CACHE);
	cr_assert_eq(s->count_warnings, 2, "the stale and the corrupt one");
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	/* and without the cache, to the walk */
	fr_test_rmtree(cache);
	cache = cat2(dir, "cache");
	s = open_set(ds, WL_FORMAT_TFRECORD, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_INDEX], n - 2);
	cr_assert_eq(s->by_source[WL_COUNT_SCANNED], 2);
	cr_assert_eq(s->source, WL_COUNT_SCANNED);
	cr_assert_eq(s->count_warnings, 2, "the stale and the corrupt one");
	cr_assert_not_null(strstr(s->count_warning, ".idx"), "%s",
			   s->count_warning);
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

/* wds shards (and .tar.zst with ZST): walked once, then from the cache;
 * a shard whose mtime or size changed is walked again. */
static void cache_round_trip(const char *compression)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "wds", "wds", compression, "1M");
	char *cache = cat2(dir, "cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_WDS), raw0;
	struct wl_shardset *s = open_set(ds, WL_FORMAT_WDS, cache, false);
	size_t n = stg_dataset_count(s->ds);
	struct timespec t[2] = { { .tv_sec = time(NULL) - 300 },
				 { .tv_sec = time(NULL) - 300 } };
	char path[4096];

	cr_assert_gt(n, 2);
	cr_assert_eq(s->source, WL_COUNT_SCANNED);
	cr_assert_eq(s->total, walked);
	raw0 = s->raw_bytes[0];
	cr_assert_eq(raw0 > 0, !strcmp(compression, "zstd"));
	wl_shardset_free(s);

	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_eq(s->source, WL_COUNT_CACHE);
	cr_assert_eq(s->by_source[WL_COUNT_CACHE], n);
	cr_assert_eq(s->total, walked);
	cr_assert_eq(s->raw_bytes[0], raw0, "decompressed bytes kept");
	cr_assert_eq(s->count_warnings, 0, "%s", s->count_warning);
	/* shard 0 touched (mtime), shard 1 cut short (size): walked */
	cr_assert_gt(stg_dataset_path(s->ds, 0, path, sizeof(path)), 0);
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_gt(stg_dataset_path(s->ds, 1, path, sizeof(path)), 0);
	cr_assert_eq(truncate(path, stg_dataset_size(s->ds, 1) / 2), 0);
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	wl_shardset_free(s);

	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_SCANNED], 2);
	cr_assert_eq(s->by_source[WL_COUNT_CACHE], n - 2);
	cr_assert_eq(s->total, walked_total(dir, ds, WL_FORMAT_WDS),
		     "the cut shard's new count, not the cached one");
	wl_shardset_free(s);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(count_sources, wds_counts_are_cached_and_a_changed_shard_walked,
	.timeout = 300)
{
	cache_round_trip("none");
}

FR_TEST(count_sources, tar_zst_counts_and_sizes_are_cached, .timeout = 300)
{
	cache_round_trip("zstd");
}

FR_TEST(count_sources, mds_counts_come_from_its_index_json, .timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "mds", "mds", "none", "1M");
	struct wl_shardset *s = open_set(ds, WL_FORMAT_MDS, NULL, true);

	cr_assert_eq(s->source, WL_COUNT_INDEX);
	cr_assert_eq(s->by_source[WL_COUNT_INDEX], stg_dataset_count(s->ds));
	cr_assert_eq(s->total, (uint64_t)atoi(NFILES));
	wl_shardset_free(s);
	free(ds);
	fr_test_rmtree(dir);
}

/* The cache file of CACHE (the one file in it). */
static char *cache_file(const char *cache)
{
	char cmd[4200], line[4096];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -v tmp", cache);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(line, sizeof(line), p), "no cache file");
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return cat2(cache, line);
}

FR_TEST(count_sources, a_corrupt_cache_is_a_warning_and_is_rewritten,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "wds", "wds", "none", "1M");
	char *cache = cat2(dir, "cache"), *file, *text = NULL;
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_WDS);
	struct wl_shardset *s = open_set(ds, WL_FORMAT_WDS, cache, false);
	size_t n = stg_dataset_count(s->ds), len = 0;
	FILE *f;

	wl_shardset_free(s);
	file = cache_file(cache);
	/* keep the first line, then lies and garbage: a wrong count in a
	 * cut line, fields missing, bytes */
	f = fopen(file, "r");
	cr_assert_not_null(f);
	cr_assert_gt(getline(&text, &len, f), 0);
	fclose(f);
	f = fopen(file, "w");
	fputs(text, f);
	fputs("wds 12 x 3 0 shard-000000.tar\nwds\n\xff\xfe garbage\n"
	      "wds 1 1.5 999 0 shard-000001.tar", f);      /* cut: no \n */
	fclose(f);
	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_geq(s->count_warnings, 1);
	cr_assert_not_null(strstr(s->count_warning, "count cache"), "%s",
			   s->count_warning);
	cr_assert_eq(s->source, WL_COUNT_SCANNED);
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	/* rewritten whole: the next open takes every count from it */
	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_CACHE], n);
	cr_assert_eq(s->count_warnings, 0, "%s", s->count_warning);
	wl_shardset_free(s);
	/* not a cache file at all, or another folder's: ignored */
	put_text(file, "feedrate-counts 1 /some/other/folder\n"
		 "wds 1 1.0 1 0 shard-000000.tar\n");
	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_SCANNED], n);
	cr_assert_eq(s->count_warnings, 1);
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	free(text);
	free(file);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

/* Open DS with its cache in CACHE from a child that lost the
 * capabilities that bypass permissions (or, with FULL, with CACHE a tiny
 * tmpfs already full in a mount namespace of its own): the open must
 * succeed with the walked count and a warning. Exit 77: cannot here. */
static void unwritable_cache(const char *ds, const char *cache,
			     uint64_t walked, bool full)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		static const cap_value_t caps[] = { CAP_DAC_OVERRIDE,
						    CAP_DAC_READ_SEARCH };
		struct wl_shardset_opts o = { .count_cache_dir = cache };
		struct wl_shardset *s = NULL;
		char why[512];
		int bad;

		if (full) {
			char *filler = cat2(cache, "filler");
			int fd;

			if (unshare(CLONE_NEWNS) ||
			    mount("none", "/", NULL, MS_REC | MS_PRIVATE,
				  NULL) ||
			    mount("tmpfs", cache, "tmpfs", 0, "size=16k"))
				_exit(77);
			fd = open(filler, O_WRONLY | O_CREAT, 0600);
			for (char b[4096] = { 0 }; fd >= 0 &&
			     write(fd, b, sizeof(b)) > 0;)
				;
			if (fd >= 0)
				close(fd);
			free(filler);
		} else {
			cap_t c = cap_get_proc();

			if (!c || cap_set_flag(c, CAP_EFFECTIVE, 2, caps,
					       CAP_CLEAR) ||
			    cap_set_flag(c, CAP_PERMITTED, 2, caps,
					 CAP_CLEAR) || cap_set_proc(c))
				_exit(77);
			cap_free(c);
		}
		if (wl_shardset_open(ds, WL_FORMAT_WDS, &o, &s, why,
				     sizeof(why)))
			_exit(10);
		bad = s->total != walked || s->count_warnings != 1 ||
		      !strstr(s->count_warning, "not written");
		if (bad)
			fprintf(stderr, "total %llu warnings %u: %s\n",
				(unsigned long long)s->total,
				s->count_warnings, s->count_warning);
		wl_shardset_free(s);
		_exit(bad ? 11 : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("%s", full ? "cannot mount a tmpfs here" :
			     "cannot drop CAP_DAC_OVERRIDE here");
	cr_assert_eq(WEXITSTATUS(status), 0, "child exit %d",
		     WEXITSTATUS(status));
}

FR_TEST(count_sources, a_read_only_cache_place_is_a_warning_not_a_failure,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "wds", "wds", "none", "1M");
	char *cache = cat2(dir, "ro-cache"), *file = cat2(dir, "a-file");
	char *under_file = cat2(file, "cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_WDS);
	struct wl_shardset *s;

	/* a cache folder that cannot be made: under a file */
	put_text(file, "x");
	s = open_set(ds, WL_FORMAT_WDS, under_file, false);
	cr_assert_eq(s->total, walked);
	cr_assert_eq(s->count_warnings, 1);
	cr_assert_not_null(strstr(s->count_warning, "not written"), "%s",
			   s->count_warning);
	wl_shardset_free(s);
	/* a folder without write permission, for a user who is not root */
	cr_assert_eq(mkdir(cache, 0500), 0);
	unwritable_cache(ds, cache, walked, false);
	free(under_file);
	free(file);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(count_sources, a_full_cache_place_is_a_warning_not_a_failure,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "wds", "wds", "none", "1M");
	char *cache = cat2(dir, "full-cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_WDS);

	cr_assert_eq(mkdir(cache, 0700), 0);
	unwritable_cache(ds, cache, walked, true);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- the cache itself ---- */

FR_TEST(count_sources, concurrent_writers_keep_each_others_entries)
{
	char *dir = fr_test_tmpdir();
	struct wl_count_cache *a, *b, *c;
	int64_t old = ((int64_t)time(NULL) - 60) * 1000000000ll + 7;
	uint64_t n = 0, raw = 0;
	char why[320];

	cr_assert_eq(wl_count_cache_open("/data/set", "wds", dir, &a), 0);
	cr_assert_eq(wl_count_cache_open("/data/set", "wds", dir, &b), 0);
	cr_assert_eq(wl_count_cache_put(a, "x.tar", 100, old, 5, 0), 0);
	cr_assert_eq(wl_count_cache_put(b, "y.tar", 200, old, 6, 0), 0);
	/* modified just now: not kept (a later write in the same tick would
	 * not change the mtime) */
	cr_assert_eq(wl_count_cache_put(b, "z.tar", 300,
					((int64_t)time(NULL)) * 1000000000ll,
					7, 0), 0);
	cr_assert_eq(wl_count_cache_save(a, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(wl_count_cache_save(b, why, sizeof(why)), 0, "%s", why);
	wl_count_cache_free(a);
	wl_count_cache_free(b);
	/* another format of the same folder shares the file */
	cr_assert_eq(wl_count_cache_open("/data/set", "tfrecord", dir, &a),
		     0);
	cr_assert_eq(wl_count_cache_put(a, "x.tar", 100, old, 9, 0), 0);
	cr_assert_eq(wl_count_cache_save(a, why, sizeof(why)), 0, "%s", why);
	wl_count_cache_free(a);

	cr_assert_eq(wl_count_cache_open("/data/set", "wds", dir, &c), 0);
	cr_assert_eq(wl_count_cache_problems(c, why, sizeof(why)), 0, "%s",
		     why);
	cr_assert(wl_count_cache_get(c, "x.tar", 100, old, &n, &raw));
	cr_assert_eq(n, 5);
	cr_assert(wl_count_cache_get(c, "y.tar", 200, old, &n, &raw));
	cr_assert_eq(n, 6);
	cr_assert(!wl_count_cache_get(c, "z.tar", 300,
				      ((int64_t)time(NULL)) * 1000000000ll,
				      &n, &raw));
	/* keyed by size and mtime */
	cr_assert(!wl_count_cache_get(c, "x.tar", 101, old, &n, &raw));
	cr_assert(!wl_count_cache_get(c, "x.tar", 100, old + 1, &n, &raw));
	wl_count_cache_free(c);
	cr_assert_eq(wl_count_cache_open("/data/set", "tfrecord", dir, &c), 0);
	cr_assert(wl_count_cache_get(c, "x.tar", 100, old, &n, &raw));
	cr_assert_eq(n, 9);
	wl_count_cache_free(c);
	/* nothing put: nothing written, no error */
	cr_assert_eq(wl_count_cache_open("/elsewhere", "wds", dir, &c), 0);
	cr_assert_eq(wl_count_cache_save(c, why, sizeof(why)), 0);
	wl_count_cache_free(c);
	fr_test_rmtree(dir);
}

/* ---- the estimate, where no exact count is needed ---- */

FR_TEST(count_sources, info_estimates_unwalked_shards_from_a_sample,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "wds", "wds", "none", "64K");
	char *cache = cat2(dir, "cache");
	uint64_t walked = walked_total(dir, ds, WL_FORMAT_WDS);
	struct wl_shardset *s = open_set(ds, WL_FORMAT_WDS, cache, true);
	size_t n = stg_dataset_count(s->ds);

	cr_assert_gt(n, 2 * WL_COUNT_SAMPLE, "%zu shards", n);
	cr_assert_eq(s->source, WL_COUNT_ESTIMATED);
	cr_assert_eq(s->by_source[WL_COUNT_SCANNED], WL_COUNT_SAMPLE);
	cr_assert_eq(s->by_source[WL_COUNT_ESTIMATED], n - WL_COUNT_SAMPLE);
	cr_assert(s->total >= walked / 2 && s->total <= walked * 2,
		  "estimate %llu, walked %llu", (unsigned long long)s->total,
		  (unsigned long long)walked);
	wl_shardset_free(s);
	/* an exact count (run) walks every shard the cache lacks */
	s = open_set(ds, WL_FORMAT_WDS, cache, false);
	cr_assert_eq(s->by_source[WL_COUNT_CACHE], WL_COUNT_SAMPLE);
	cr_assert_eq(s->by_source[WL_COUNT_SCANNED], n - WL_COUNT_SAMPLE);
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	/* all cached: nothing left to estimate */
	s = open_set(ds, WL_FORMAT_WDS, cache, true);
	cr_assert_eq(s->source, WL_COUNT_CACHE);
	cr_assert_eq(s->total, walked);
	wl_shardset_free(s);
	free(cache);
	free(ds);
	fr_test_rmtree(dir);
}
