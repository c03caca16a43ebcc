/*
 * test_faults_slow.c - bad input end to end through the real binary
 * ($FEEDRATE_BIN; skipped when unset): datasets holding corrupt, truncated,
 * zero-byte and oversized JPEGs, a GIF named .JPEG, CMYK / progressive /
 * grayscale files, a progressive scan bomb, an unreadable file, a folder
 * that disappears mid-run, a file replaced by a folder mid-run, symbolic
 * link loops and a 1 GB (sparse) file. For each: the command ends on its
 * own (no hang, no crash), the documented exit status, the failure counted
 * under its kind with an example path in the JSON report, and the dataset
 * byte-for-byte the same afterwards (a digest of every entry's type, mode,
 * size, link target and content, taken before and after).
 */
#include "fault_testlib.h"

/*
 * Build a dataset with one faulty file FIXTURE named NAME among the good
 * ones, run it, and check exit 3, KIND counted with NAME as the example,
 * nothing else failing, and the dataset unchanged.
 */
static void one_bad_file(const char *fixture, const char *name,
			 const char *kind)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir);
	struct fault_run r;
	uint64_t before;

	if (fixture)
		add_fixture(ds, fixture, name);
	else {
		char path[4096];

		snprintf(path, sizeof(path), "%s/c1/%s", ds, name);
		put_bytes(path, "", 0);
	}
	before = tree_digest(ds);
	fault_run_cmd(dir, ds, NULL, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 3, "exit %d, expected 3 (sample errors)",
		     r.status);
	expect_kind(&r, kind, name);
	cr_expect_eq(error_total(&r), error_count(&r, kind, NULL),
		     "errors of other kinds were counted too");
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, corrupt_entropy_data_counts_as_corrupt)
{
	one_bad_file(FIXTURES "corrupt_data.jpg", "bad_data.JPEG", "corrupt");
}

FR_TEST(faults_slow, bogus_huffman_table_counts_as_corrupt)
{
	one_bad_file(FIXTURES "corrupt_header.jpg", "bad_table.JPEG",
		     "corrupt");
}

FR_TEST(faults_slow, truncated_jpeg_counts_as_truncated)
{
	one_bad_file(FIXTURES "truncated.jpg", "cut.JPEG", "truncated");
}

FR_TEST(faults_slow, zero_byte_file_counts_as_truncated)
{
	one_bad_file(NULL, "empty.JPEG", "truncated");
}

FR_TEST(faults_slow, gif_named_jpeg_counts_as_not_format)
{
	one_bad_file(FIXTURES "../png/gif_named.JPEG", "really_a.gif.JPEG",
		     "not_format");
}

FR_TEST(faults_slow, header_over_pixel_cap_counts_as_pixels_over_cap)
{
	one_bad_file(FIXTURES "huge_20000.jpg", "huge.JPEG", "pixels_over_cap");
}

FR_TEST(faults_slow, progressive_scan_bomb_counts_as_pixels_over_cap)
{
	one_bad_file(FIXTURES "prog_bomb.jpg", "bomb.JPEG", "pixels_over_cap");
}

FR_TEST(faults_slow, cmyk_progressive_and_gray_decode_without_errors)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir);
	struct fault_run r;
	uint64_t before;

	add_fixture(ds, FIXTURES "cmyk.jpg", "cmyk.JPEG");
	add_fixture(ds, FIXTURES "ycck.jpg", "ycck.JPEG");
	add_fixture(ds, FIXTURES "progressive.jpg", "prog.JPEG");
	add_fixture(ds, FIXTURES "gray.jpg", "gray.JPEG");
	before = tree_digest(ds);
	fault_run_cmd(dir, ds, NULL, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 0, "exit %d (stderr in %s)", r.status, r.err);
	cr_expect_eq(error_total(&r), 0);
	cr_expect_gt(json_integer_value(json_object_get(r.json, "samples")), 0);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, max_errors_stops_the_run_with_exit_4)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir);
	const char *extra[] = { "--max-errors", "5", "--duration", "60s",
				NULL };
	struct fault_run r;
	uint64_t before;

	for (int i = 0; i < 6; i++) {
		char name[64];

		snprintf(name, sizeof(name), "bad_%d.JPEG", i);
		add_fixture(ds, FIXTURES "corrupt_data.jpg", name);
	}
	before = tree_digest(ds);
	fault_run_cmd(dir, ds, extra, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 4, "exit %d, expected 4 (--max-errors)",
		     r.status);
	cr_expect_geq(error_count(&r, "corrupt", NULL), 5);
	cr_expect_str_eq(json_string_value(json_object_get(r.json,
							   "stopped_by")),
			 "max_errors");
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, unreadable_file_counts_as_eacces_in_run_and_io)
{
	char *dir = fault_tmpdir_root("needs root to drop CAP_DAC_OVERRIDE "
				      "(as a user, a mode-000 file of one's "
				      "own is the same test)");
	char *ds = make_dataset(dir), path[4096];
	struct fault_run r;
	uint64_t before;

	add_fixture(ds, FIXTURES "baseline.jpg", "secret.JPEG");
	snprintf(path, sizeof(path), "%s/c1/secret.JPEG", ds);
	cr_assert_eq(chmod(path, 0), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	before = tree_digest(ds);

	fault_run_cmd(dir, ds, NULL, FAULT_NO_DAC, NULL, &r);
	cr_expect_eq(r.status, 3, "run exit %d, expected 3", r.status);
	expect_kind(&r, "EACCES", "secret.JPEG");
	fault_run_free(&r);

	fault_io_cmd(dir, ds, NULL, FAULT_NO_DAC, &r);
	cr_expect_eq(r.status, 3, "io exit %d, expected 3", r.status);
	expect_kind(&r, "EACCES", "secret.JPEG");
	fault_run_free(&r);

	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

/* Mid-run changes, undone before the digest is compared. */
static char moved_away[4096];

/*
 * `feedrate run` with MIDRUN done once its measurement reads the dataset.
 * Its window is a count of samples (about 2.5 s here, 4 s under
 * AddressSanitizer), not a time: a loaded machine can starve the run for
 * seconds right after the change, and a timed window could then end
 * before the run read anything after it. The duration is only a bound.
 * Returns false when the change came in the last second of the run
 * anyway: nothing can be concluded then.
 */
static bool midrun_cmd(const char *dir, const char *ds,
		       fault_midrun_fn midrun, struct fault_run *r)
{
	const char *extra[] = { "--samples", "16000", "--duration", "60s",
				NULL };

	fault_run_cmd(dir, ds, extra, FAULT_AS_ROOT, midrun, r);
	return r->total_s - r->fired_s >= 1.0;
}

/* The report's words for a failed run, else "(none)". */
static const char *run_error_of(const struct fault_run *r)
{
	const char *s = r->json ? json_string_value(json_object_get(r->json,
						    "run_error")) : NULL;

	return s ? s : "(none)";
}

/* Skip when midrun_cmd could not act in time; DIR is removed first. */
static void midrun_skip(char *dir, char *ds, struct fault_run *r)
{
	double late = r->total_s - r->fired_s;

	fault_run_free(r);
	free(ds);
	fr_test_rmtree(dir);
	cr_skip_test("the change came %.2f s before the run ended: too "
		     "loaded a machine to change files mid-run", late);
}

static void pull_folder(const char *ds)
{
	char from[4096];

	snprintf(from, sizeof(from), "%s/c2", ds);
	snprintf(moved_away, sizeof(moved_away), "%s.c2-away", ds);
	cr_assert_eq(rename(from, moved_away), 0);
}

FR_TEST(faults_slow, folder_vanishing_mid_run_counts_as_enoent)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), path[4096];
	struct fault_run r;
	uint64_t before;

	snprintf(path, sizeof(path), "%s/c2", ds);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (int i = 0; i < 6; i++) {
		char name[64];

		snprintf(name, sizeof(name), "../c2/soon_gone_%d.JPEG", i);
		add_fixture(ds, FIXTURES "baseline.jpg", name);
	}
	before = tree_digest(ds);
	if (!midrun_cmd(dir, ds, pull_folder, &r))
		midrun_skip(dir, ds, &r);
	cr_expect_eq(r.status, 3, "exit %d, expected 3; run error: %s",
		     r.status, run_error_of(&r));
	{
		const char *ex = NULL;

		cr_expect_gt(error_count(&r, "ENOENT", &ex), 0,
			     "no ENOENT counted (stderr in %s)", r.err);
		cr_expect(ex && strstr(ex, "/c2/soon_gone_"), "example %s",
			  ex ? ex : "(none)");
	}
	fault_run_free(&r);
	cr_assert_eq(rename(moved_away, path), 0);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

static void file_to_folder(const char *ds)
{
	char from[4096];

	snprintf(from, sizeof(from), "%s/c1/good_3.JPEG", ds);
	snprintf(moved_away, sizeof(moved_away), "%s.good_3-away", ds);
	cr_assert_eq(rename(from, moved_away), 0);
	cr_assert_eq(mkdir(from, 0755), 0);
}

FR_TEST(faults_slow, file_replaced_by_folder_mid_run_counts_as_eisdir)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), path[4096];
	struct fault_run r;
	const char *ex = NULL;
	uint64_t before;

	before = tree_digest(ds);
	if (!midrun_cmd(dir, ds, file_to_folder, &r))
		midrun_skip(dir, ds, &r);
	cr_expect_eq(r.status, 3, "exit %d, expected 3; run error: %s",
		     r.status, run_error_of(&r));
	if (error_count(&r, "EISDIR", &ex) == 0) {
		char *errs = json_dumps(json_object_get(r.json, "errors"), 0);
		char *dsj = json_dumps(json_object_get(r.json, "dataset"),
				       JSON_COMPACT);
		char *prep = json_dumps(json_object_get(r.json, "prepare"),
					JSON_COMPACT);

		cr_expect_fail("no EISDIR counted: errors %s, samples %lld, "
			       "swapped at %.2f s on %s, exit at %.2f s; "
			       "dataset %s; prepare %s",
			       errs ? errs : "?", (long long)json_integer_value(
				       json_object_get(r.json, "samples")),
			       r.fired_s, r.fired_on, r.total_s,
			       dsj ? dsj : "?", prep ? prep : "?");
		free(dsj);
		free(prep);
		free(errs);
	}
	cr_expect(ex && strstr(ex, "good_3.JPEG"), "example %s",
		  ex ? ex : "(none)");
	fault_run_free(&r);
	snprintf(path, sizeof(path), "%s/c1/good_3.JPEG", ds);
	cr_assert_eq(rmdir(path), 0);
	cr_assert_eq(rename(moved_away, path), 0);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, symlink_loops_end_and_are_counted_in_listing)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), path[4096];
	struct fault_run r;
	json_t *le;
	uint64_t before;

	snprintf(path, sizeof(path), "%s/c1/up", ds);
	cr_assert_eq(symlink("..", path), 0);           /* folder loop */
	snprintf(path, sizeof(path), "%s/c1/self.JPEG", ds);
	cr_assert_eq(symlink("self.JPEG", path), 0);    /* link loop */
	before = tree_digest(ds);

	fault_run_cmd(dir, ds, NULL, FAULT_AS_ROOT, NULL, &r);
	/* the files the listing dropped are errors of the run: exit 3 */
	cr_expect_eq(r.status, 3, "run exit %d (stderr in %s)", r.status,
		     r.err);
	cr_assert_not_null(r.json);
	cr_expect_eq(json_integer_value(json_object_get(
			     json_object_get(r.json, "dataset"), "files")), 6);
	cr_expect_eq(json_integer_value(json_object_get(
			     json_object_get(r.json, "dataset"),
			     "listing_errors")), 2);
	le = json_object_get(json_object_get(r.json, "dataset"),
			     "listing_error_kinds");
	cr_expect_eq(json_integer_value(json_object_get(
			     json_object_get(le, "dangling_link"), "count")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_object_get(le, "dangling_link"), "example"))
			 ?: "", "c1/self.JPEG");
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_object_get(le, "folder_seen_twice"), "example"))
			 ?: "", "c1/up");
	fault_run_free(&r);

	fault_io_cmd(dir, ds, NULL, FAULT_AS_ROOT, &r);
	cr_expect_eq(r.status, 3, "io exit %d", r.status);
	cr_assert_not_null(r.json);
	le = json_object_get(r.json, "listing_errors");
	cr_expect_eq(json_integer_value(json_object_get(le, "dangling_link")),
		     1);
	cr_expect_eq(json_integer_value(json_object_get(le,
							"folder_seen_twice")),
		     1);
	le = json_object_get(r.json, "listing_error_examples");
	cr_expect(strstr(json_string_value(json_object_get(le,
							   "dangling_link"))
			 ?: "", "c1/self.JPEG"), "no dangling_link example");
	cr_expect(strstr(json_string_value(json_object_get(le,
							   "folder_seen_twice"))
			 ?: "", "c1/up"), "no folder_seen_twice example");
	fault_run_free(&r);

	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, one_gigabyte_file_is_refused_without_reading_it)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), path[4096];
	const char *io_extra[] = { "--max-sample-bytes", "64M", NULL };
	struct fault_run r;
	uint64_t before;
	json_int_t read_bytes;
	int fd;

	snprintf(path, sizeof(path), "%s/c1/huge_file.JPEG", ds);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 1 << 30), 0);        /* sparse */
	close(fd);
	before = tree_digest(ds);

	fault_run_cmd(dir, ds, NULL, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 3, "run exit %d, expected 3", r.status);
	expect_kind(&r, "file_over_cap", "huge_file.JPEG");
	read_bytes = json_integer_value(json_object_get(r.json, "read_bytes"));
	cr_expect_lt(read_bytes, 1 << 30, "the run read %lld bytes",
		     (long long)read_bytes);
	fault_run_free(&r);

	fault_io_cmd(dir, ds, io_extra, FAULT_AS_ROOT, &r);
	cr_expect_eq(r.status, 3, "io exit %d, expected 3", r.status);
	expect_kind(&r, "file_over_cap", "huge_file.JPEG");
	fault_run_free(&r);

	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, list_entry_naming_a_folder_counts_as_eisdir)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), list[4096];
	const char *extra[] = { "--list", list, NULL };
	static const char text[] =
		"1979\tc1/good_0.JPEG\n1979\tc1/good_1.JPEG\n4096\tc1\n"
		"1979\tc1/not_there.JPEG\n";
	struct fault_run r;
	uint64_t before;

	snprintf(list, sizeof(list), "%s/list.txt", dir);
	put_bytes(list, text, sizeof(text) - 1);
	before = tree_digest(ds);
	fault_run_cmd(dir, ds, extra, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 3, "run exit %d, expected 3", r.status);
	expect_kind(&r, "EISDIR", "c1");
	expect_kind(&r, "ENOENT", "not_there.JPEG");
	fault_run_free(&r);
	fault_io_cmd(dir, ds, extra, FAULT_AS_ROOT, &r);
	cr_expect_eq(r.status, 3, "io exit %d, expected 3", r.status);
	expect_kind(&r, "EISDIR", "c1");
	expect_kind(&r, "ENOENT", "not_there.JPEG");
	fault_run_free(&r);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(faults_slow, bad_file_with_a_non_utf8_name_is_shown_escaped)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir);
	struct fault_run r;
	uint64_t before;

	add_fixture(ds, FIXTURES "corrupt_data.jpg", "n\xff" "ame\nx.JPEG");
	before = tree_digest(ds);
	fault_run_cmd(dir, ds, NULL, FAULT_AS_ROOT, NULL, &r);
	cr_expect_eq(r.status, 3, "exit %d, expected 3", r.status);
	/* the JSON holds valid UTF-8: the bytes are written as \xNN */
	expect_kind(&r, "corrupt", "/c1/n\\xffame\\x0ax.JPEG");
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}
