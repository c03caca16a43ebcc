/*
 * test_shards_cli.c - `feedrate run` and `info` on shard datasets end to
 * end: each format as `gen` writes it (and WebDataset as Python's tarfile
 * writes it) detected and read whole, every record once per epoch; each
 * kind of damage counted by kind with the shard and byte offset while the
 * run goes on (exit 3), --max-errors (exit 4); the dataset never written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "shardset.h"

#define NFILES "60"     /* images in the generated datasets */

static int feedrate(const char *dir, char *const *args)
{
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)fr_test_bin();
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	return fr_test_run(dir, argv, 300);
}

static char *cat2(const char *a, const char *b)
{
	char *s;

	cr_assert(asprintf(&s, "%s/%s", a, b) > 0);
	return s;
}

/* DIR/folder (NFILES images), and DIR/NAME converted to FORMAT. */
static char *make_set(const char *dir, const char *name, const char *format,
		      const char *compression)
{
	char *folder = cat2(dir, "folder"), *train = cat2(folder, "train");
	char *out = cat2(dir, name);
	struct stat st;

	if (stat(folder, &st)) {
		char *g[] = { "gen", "-q", "--files", NFILES, "--seed", "3",
			      folder, NULL };

		cr_assert_eq(feedrate(dir, g), 0, "gen folder");
	}
	if (strcmp(format, "folder")) {
		char *g[] = { "gen", "-q", "--from", train, "--format",
			      (char *)format, "--shard-size", "1M",
			      "--compression", (char *)compression, out,
			      NULL };

		cr_assert_eq(feedrate(dir, g), 0, "gen --from %s", format);
	}
	free(folder);
	free(train);
	return out;
}

static json_t *run_json(const char *dir, const char *ds, int want_rc,
			const char *extra)
{
	char *json = cat2(dir, "run.json");
	char *args[] = { "run", "-g", "0", "--epochs", "1", "--warmup", "0",
			 "--cache", "warm", "--shuffle-buffer", "16",
			 "--json", json, (char *)ds, NULL, NULL, NULL };
	json_error_t je;
	json_t *j;
	int rc;

	if (extra) {            /* "--max-errors" "1" */
		args[13] = (char *)extra;
		args[14] = "1";
		args[15] = (char *)ds;
	}
	rc = feedrate(dir, args);
	cr_assert_eq(rc, want_rc, "run %s exited %d, not %d", ds, rc,
		     want_rc);
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j, "%s: %s", json, je.text);
	free(json);
	return j;
}

static int64_t jint(const json_t *o, const char *path)
{
	char buf[256], *save = NULL, *k;
	const json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	cr_assert(json_is_integer(v), "%s is not an integer", path);
	return json_integer_value(v);
}

static const char *jstr(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(o, a), b);

	cr_assert(json_is_string(v), "%s.%s is not a string", a, b);
	return json_string_value(v);
}

/* A snapshot of a folder's names, sizes and mtimes, to compare. */
static char *tree_state(const char *dir)
{
	char *s = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	DIR *d = opendir(dir);
	struct dirent *de;

	cr_assert(f && d);
	while ((de = readdir(d))) {
		struct stat st;
		char *p = cat2(dir, de->d_name);

		if (!stat(p, &st) && S_ISREG(st.st_mode)) {
			cr_assert(asprintf(&line, "%s %lld %lld.%09ld\n",
				  de->d_name, (long long)st.st_size,
				  (long long)st.st_mtim.tv_sec,
				  st.st_mtim.tv_nsec) > 0);
			fputs(line, f);
			free(line);
		}
		free(p);
	}
	closedir(d);
	fclose(f);
	return s;
}

static void reads_whole(const char *format, const char *compression)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, format, format, compression);
	char *before = tree_state(ds), *after;
	json_t *j = run_json(dir, ds, 0, NULL);

	cr_assert_str_eq(jstr(j, "dataset", "format"), format);
	cr_assert_eq(jint(j, "dataset.records"), atoi(NFILES));
	cr_assert_eq(jint(j, "errors.total"), 0);
	/* one epoch, no warm-up: every record measured once */
	cr_assert_eq(jint(j, "samples"), atoi(NFILES));
	after = tree_state(ds);
	cr_assert_str_eq(before, after, "the dataset was written");
	free(before);
	free(after);
	json_decref(j);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, tfrecord_is_detected_and_read_whole, .timeout = 300)
{
	reads_whole("tfrecord", "none");
}

FR_TEST(shards_cli, mds_is_detected_and_read_whole, .timeout = 300)
{
	reads_whole("mds", "none");
}

FR_TEST(shards_cli, mds_zstd_is_detected_and_read_whole, .timeout = 300)
{
	reads_whole("mds", "zstd");
}

FR_TEST(shards_cli, wds_is_detected_and_read_whole, .timeout = 300)
{
	reads_whole("wds", "none");
}

FR_TEST(shards_cli, wds_zstd_is_detected_and_read_whole, .timeout = 300)
{
	reads_whole("wds", "zstd");
}

/* ---- damage ---- */

/* The first file in DIR whose name contains PART (malloc'd path). */
static char *first_file(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, part) && (!best ||
						 strcmp(de->d_name, best) < 0)) {
			free(best);
			best = strdup(de->d_name);
		}
	closedir(d);
	cr_assert_not_null(best, "no %s in %s", part, dir);
	return best;
}

static void poke(const char *path, off_t off, const void *b, size_t n)
{
	int fd = open(path, O_WRONLY);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(pwrite(fd, b, n, off), (ssize_t)n);
	close(fd);
}

static const json_t *err_kind(const json_t *j, const char *kind)
{
	const json_t *k = json_object_get(json_object_get(json_object_get(j,
				"errors"), "kinds"), kind);

	cr_assert_not_null(k, "no error of kind %s: %s", kind,
			   json_dumps(json_object_get(j, "errors"), 0));
	return k;
}

static void expect_kind(const json_t *j, const char *kind,
			const char *shard, const char *at)
{
	const json_t *k = err_kind(j, kind);
	const char *ex = json_string_value(json_object_get(k, "example"));

	cr_assert_gt(json_integer_value(json_object_get(k, "count")), 0);
	cr_assert(ex && strstr(ex, shard), "example %s names %s", ex, shard);
	if (at)
		cr_assert(strstr(ex, at), "example %s has offset %s", ex, at);
}

FR_TEST(shards_cli, a_tfrecord_crc_mismatch_is_one_failed_record,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	char *name = first_file(ds, "tfrecord"), *path = cat2(ds, name);
	uint8_t x = 0x5a;
	json_t *j;

	/* a byte inside the first record's data: its data CRC fails */
	poke(path, 200, &x, 1);
	j = run_json(dir, ds, 3, NULL);
	expect_kind(j, "crc_mismatch", name, "@0");
	cr_assert_eq(jint(j, "errors.total"), 1);
	cr_assert_eq(jint(j, "samples"), atoi(NFILES) - 1);
	json_decref(j);
	free(path);
	free(name);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, a_truncated_shard_loses_its_tail_and_the_run_goes_on,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	char *name = first_file(ds, "tfrecord"), *path = cat2(ds, name);
	struct stat st;
	json_t *j;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 1000), 0);
	j = run_json(dir, ds, 3, NULL);
	expect_kind(j, "truncated_record", name, "@");
	/* counted at open: the records before the cut and one error */
	cr_assert_eq(jint(j, "errors.total"), 1);
	cr_assert_eq(jint(j, "samples") + 1, jint(j, "dataset.records"));
	json_decref(j);
	free(path);
	free(name);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, an_index_naming_a_missing_shard_counts_its_samples,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "mds", "mds", "none");
	char *name = first_file(ds, ".mds"), *path = cat2(ds, name);
	json_t *j;
	int64_t lost;

	cr_assert_eq(unlink(path), 0);
	j = run_json(dir, ds, 3, NULL);
	expect_kind(j, "missing_shard", name, NULL);
	lost = json_integer_value(json_object_get(err_kind(j,
				"missing_shard"), "count"));
	cr_assert_gt(lost, 0);
	cr_assert_eq(jint(j, "samples") + lost, atoi(NFILES));
	json_decref(j);
	free(path);
	free(name);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, a_bad_zstd_frame_fails_the_rest_of_its_shard,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "mdsz", "mds", "zstd");
	char *name = first_file(ds, ".zstd"), *path = cat2(ds, name);
	uint8_t junk[4] = { 0xA5, 0xA5, 0xA5, 0xA5 };
	json_t *j;

	/* the frame's magic number: nothing of the shard decodes */
	poke(path, 0, junk, sizeof(junk));
	j = run_json(dir, ds, 3, NULL);
	expect_kind(j, "bad_zstd", name, "@0");
	cr_assert_lt(jint(j, "samples"), atoi(NFILES));
	json_decref(j);
	free(path);
	free(name);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, max_errors_stops_a_shard_run, .timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "mds", "mds", "none");
	char *name = first_file(ds, ".mds"), *path = cat2(ds, name);
	json_t *j;

	cr_assert_eq(unlink(path), 0);
	j = run_json(dir, ds, 4, "--max-errors");
	cr_assert_geq(jint(j, "errors.total"), 1);
	json_decref(j);
	free(path);
	free(name);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- info ---- */

FR_TEST(shards_cli, info_names_the_format_and_counts_the_records,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	char *json = cat2(dir, "info.json");
	char *args[] = { "info", "--steal-interval", "0", "--json", json, ds,
			 NULL };
	json_error_t je;
	json_t *j;

	cr_assert_eq(feedrate(dir, args), 0);
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j);
	cr_assert_str_eq(jstr(j, "dataset", "format"), "tfrecord");
	cr_assert_eq(jint(j, "dataset.records"), atoi(NFILES));
	cr_assert_gt(jint(j, "dataset.shards"), 1);
	json_decref(j);
	free(json);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, format_folder_reads_shard_files_as_images_and_fails_them,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	char *json = cat2(dir, "run.json");
	char *args[] = { "run", "-g", "0", "--epochs", "1", "--warmup", "0",
			 "--cache", "warm", "--format", "folder", "--json",
			 json, ds, NULL };
	json_error_t je;
	json_t *j;

	/* --format overrides detection: the shards are read as files, which
	 * are not images */
	cr_assert_eq(feedrate(dir, args), 3);
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j);
	cr_assert_str_eq(jstr(j, "dataset", "format"), "folder");
	err_kind(j, "not_format");
	json_decref(j);
	free(json);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- an independent writer ---- */

/*
 * Run the Python tar writer BODY (after a prelude that sets src, out, the
 * sorted list files of the folder's JPEGs, and makes out) on DIR's folder
 * dataset; the tars go to DIR/pywds (returned, malloc'd). Skips the test
 * where /usr/bin/python3 is missing.
 */
static char *py_wds(const char *dir, const char *body)
{
	char *folder = make_set(dir, "folder", "folder", "none");
	char *out = cat2(dir, "pywds"), *script = cat2(dir, "w.py");
	char *args[] = { "/usr/bin/python3", script, folder, out, NULL };
	FILE *f;

	if (access("/usr/bin/python3", X_OK))
		cr_skip_test("no /usr/bin/python3 to write the tar shards");
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fputs("import os, sys, tarfile\n"
	      "src, out = sys.argv[1], sys.argv[2]\n"
	      "os.makedirs(out)\n"
	      "files = sorted(os.path.join(r, n) for r, _, ns in "
	      "os.walk(src) for n in ns if n.endswith('.JPEG'))\n", f);
	fputs(body, f);
	fclose(f);
	cr_assert_eq(fr_test_run(dir, args, 120), 0, "the Python writer");
	free(script);
	free(folder);
	return out;
}

FR_TEST(shards_cli, wds_written_by_python_tarfile_is_read_whole,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	/* PAX headers on every member (a long path among them), keys with
	 * a dot in the folder name, two shards */
	char *out = py_wds(dir,
		"for s in range(2):\n"
		"  with tarfile.open(os.path.join(out, 'part-%d.tar' % s), 'w',"
		" format=tarfile.PAX_FORMAT) as t:\n"
		"    for i, p in enumerate(files[s::2]):\n"
		"      key = 'v1.0/' + ('x' * 120 if i == 0 else '') + "
		"os.path.basename(p).split('.')[0]\n"
		"      t.add(p, arcname=key + '.jpg')\n"
		"      c = os.path.join(out, '.c')\n"
		"      open(c, 'w').write(str(i % 7))\n"
		"      t.add(c, arcname=key + '.cls')\n"
		"      os.unlink(c)\n");
	json_t *j = run_json(dir, out, 0, NULL);

	cr_assert_str_eq(jstr(j, "dataset", "format"), "wds");
	cr_assert_eq(jint(j, "dataset.records"), atoi(NFILES));
	cr_assert_eq(jint(j, "dataset.files"), 2);
	cr_assert_eq(jint(j, "errors.total"), 0);
	cr_assert_eq(jint(j, "samples"), atoi(NFILES));
	json_decref(j);
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, a_bad_tar_header_and_a_sample_without_image_are_counted,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	/* part-0: the 3rd sample has only its .cls; part-1: whole, then its
	 * 5th member's header gets a wrong byte (its checksum fails) */
	char *out = py_wds(dir,
		"c = os.path.join(out, '.c')\n"
		"open(c, 'w').write('1')\n"
		"for s in range(2):\n"
		"  with tarfile.open(os.path.join(out, 'part-%d.tar' % s), 'w',"
		" format=tarfile.USTAR_FORMAT) as t:\n"
		"    for i, p in enumerate(files[s::2]):\n"
		"      key = 's%d_%03d' % (s, i)\n"
		"      if not (s == 0 and i == 2):\n"
		"        t.add(p, arcname=key + '.jpg')\n"
		"      t.add(c, arcname=key + '.cls')\n"
		"os.unlink(c)\n"
		"t = tarfile.open(os.path.join(out, 'part-1.tar'))\n"
		"print(t.getmembers()[4].offset)\n");
	char *so = cat2(dir, "stdout"), *bad = cat2(out, "part-1.tar");
	FILE *o = fopen(so, "r");
	long off = -1;
	char at[32];
	json_t *j;

	cr_assert(o && fscanf(o, "%ld", &off) == 1 && off > 0);
	fclose(o);
	poke(bad, off + 10, "Z", 1);   /* inside the member's name */
	snprintf(at, sizeof(at), "@%ld", off);
	j = run_json(dir, out, 3, NULL);
	expect_kind(j, "bad_header", "part-1.tar", at);
	expect_kind(j, "no_image", "part-0.tar", "@");
	cr_assert_eq(jint(j, "errors.total"), 2);
	/* part-1 holds the 2 samples before the bad header and one failed
	 * record for it; part-0 all of its 30 */
	cr_assert_eq(jint(j, "dataset.records"), 30 + 2 + 1);
	json_decref(j);
	free(bad);
	free(so);
	free(out);
	fr_test_rmtree(dir);
}

/* ---- detection ---- */

static void touch(const char *dir, const char *name, const char *text)
{
	char *p = cat2(dir, name);
	FILE *f = fopen(p, "w");

	cr_assert_not_null(f, "%s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

FR_TEST(shards_cli, class_folders_beside_an_archive_stay_an_image_folder)
{
	char *dir = fr_test_tmpdir(), why[512];
	enum wl_format f;

	for (int i = 0; i < 3; i++) {
		char name[16], *p;

		snprintf(name, sizeof(name), "n%08d", i);
		p = cat2(dir, name);
		cr_assert_eq(mkdir(p, 0755), 0);
		free(p);
	}
	touch(dir, "ILSVRC2012_img_train.tar", "not read");
	cr_assert_eq(wl_format_detect(dir, &f, why, sizeof(why)), 0);
	cr_assert_eq(f, WL_FORMAT_FOLDER, "%s", why);
	cr_assert(strstr(why, "--format wds"), "%s", why);
	touch(dir, "index.json", "{}");
	cr_assert_eq(wl_format_detect(dir, &f, why, sizeof(why)), 0);
	cr_assert_eq(f, WL_FORMAT_MDS, "index.json decides: %s", why);
	fr_test_rmtree(dir);
}

FR_TEST(shards_cli, an_index_file_beside_tfrecords_is_not_a_shard,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	json_t *j;

	/* DALI's tfrecord2idx output: text, named after the shard */
	touch(ds, "train-00000.tfrecord.idx", "0 1234\n1234 5678\n");
	j = run_json(dir, ds, 0, NULL);
	cr_assert_str_eq(jstr(j, "dataset", "format"), "tfrecord");
	cr_assert_eq(jint(j, "dataset.records"), atoi(NFILES));
	cr_assert_eq(jint(j, "errors.total"), 0);
	json_decref(j);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- the page-cache axis ---- */

FR_TEST(shards_cli_slow, a_ram_point_over_shards_runs_in_its_cgroup,
	.timeout = 300)
{
	char *dir = fr_test_tmpdir();
	char *ds = make_set(dir, "tfrecord", "tfrecord", "none");
	char *json = cat2(dir, "ram.json");
	char *args[] = { "run", "-g", "0", "--ram", "4M", "--duration", "3s",
			 "--json", json, ds, NULL };
	json_error_t je;
	json_t *j;
	int rc;

#if defined(__SANITIZE_ADDRESS__)
	/* under AddressSanitizer the run's own memory (its quarantine and
	 * shadow) grows in the memory cgroup after the fill epoch that
	 * sized it: what is tested here is a plain build's */
	free(json);
	free(ds);
	fr_test_rmtree(dir);
	cr_skip_test("under AddressSanitizer the run's own memory is not "
		     "what a fill epoch measures");
#endif
	/* the fill epoch sizes the cgroup; the records the readers hold
	 * must fit it in every later epoch (they were once killed) */
	rc = feedrate(dir, args);
	cr_assert_eq(rc, 0, "run --ram over shards exited %d", rc);
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j);
	cr_assert_gt(json_number_value(json_object_get(j, "samples_per_s")),
		     0);
	cr_assert_eq(jint(j, "errors.total"), 0);
	json_decref(j);
	free(json);
	free(ds);
	fr_test_rmtree(dir);
}
