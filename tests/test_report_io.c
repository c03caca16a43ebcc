/*
 * test_report_io.c - names from users' datasets reach reports intact and
 * unambiguous; report files appear whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "report.h"

static void check_text(const char *in, size_t len, const char *want)
{
	char *got = rpt_path_text(in, len);

	cr_assert_not_null(got);
	cr_assert_str_eq(got, want);
	free(got);
}

FR_TEST(report_path, keeps_valid_utf8_and_escapes_other_bytes)
{
	check_text("train/n01/a b.JPEG", 18, "train/n01/a b.JPEG");
	check_text("caf\xc3\xa9.jpg", 9, "caf\xc3\xa9.jpg");
	check_text("\xe2\x82\xac\xf0\x9f\x90\x88", 7, "\xe2\x82\xac\xf0\x9f\x90\x88");
	check_text("bad\xff.jpg", 8, "bad\\xff.jpg");
	/* a truncated sequence, an overlong '/', a surrogate */
	check_text("x\xc3", 2, "x\\xc3");
	check_text("\xc0\xaf", 2, "\\xc0\\xaf");
	check_text("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	check_text("tab\there\n", 9, "tab\\x09here\\x0a");
}

FR_TEST(report_path, never_prints_two_names_the_same)
{
	/* a literal "\xff" in a name must differ from the byte 0xff */
	char *a = rpt_path_text("\\xff", 4);
	char *b = rpt_path_text("\xff", 1);

	cr_assert_str_neq(a, b);
	free(a);
	free(b);
}

FR_TEST(report_path, json_string_is_never_dropped)
{
	json_t *j = rpt_json_path("ok\xfe\xff/name");

	cr_assert_not_null(j, "jansson refuses invalid UTF-8; escaping must "
			   "keep the field");
	cr_assert_str_eq(json_string_value(j), "ok\\xfe\\xff/name");
	json_decref(j);
}

FR_TEST(report_write, replaces_the_file_whole)
{
	char *dir = fr_test_tmpdir(), *path, buf[256] = { 0 };
	json_t *root = json_pack("{s:i, s:s}", "samples", 42, "cache", "cold");
	FILE *f;

	cr_assert_gt(asprintf(&path, "%s/report.json", dir), 0);
	f = fopen(path, "w");
	fputs("old contents", f);
	fclose(f);

	cr_assert_eq(rpt_json_write(root, path), 0);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	cr_assert_not_null(strstr(buf, "\"samples\": 42"), "%s", buf);
	cr_assert_null(strstr(buf, "old contents"));

	json_decref(root);
	free(path);
	fr_test_rmtree(dir);
}

FR_TEST(report_write, failure_leaves_no_file_behind)
{
	char *dir = fr_test_tmpdir(), *path;
	json_t *root = json_pack("{s:i}", "x", 1);

	cr_assert_gt(asprintf(&path, "%s/missing-folder/r.json", dir), 0);
	cr_assert_eq(rpt_json_write(root, path), -ENOENT);
	cr_assert_neq(access(path, F_OK), 0);
	free(path);
	json_decref(root);
	/* the folder holds nothing but what the test made */
	cr_assert_eq(rmdir(dir), 0, "temporary file left behind: %s",
		     strerror(errno));
	free(dir);
}

FR_TEST(report_write, writes_through_a_pipe_or_device_without_replacing_it)
{
	char path[64];
	int fds[2];
	char buf[64] = { 0 };
	json_t *root = json_pack("{s:i}", "x", 7);

	cr_assert_eq(pipe(fds), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	cr_assert_eq(rpt_json_write(root, path), 0);
	close(fds[1]);
	cr_assert_gt(read(fds[0], buf, sizeof(buf) - 1), 0);
	close(fds[0]);
	cr_assert_not_null(strstr(buf, "\"x\": 7"), "%s", buf);
	cr_assert_eq(rpt_json_write(root, "/dev/null"), 0);
	json_decref(root);
}

FR_TEST(report_write, a_link_to_a_report_keeps_being_a_link)
{
	char *dir = fr_test_tmpdir(), *target, *link;
	json_t *root = json_pack("{s:i}", "x", 8);
	struct stat st;
	char buf[64] = { 0 };
	FILE *f;

	cr_assert_gt(asprintf(&target, "%s/real.json", dir), 0);
	cr_assert_gt(asprintf(&link, "%s/link.json", dir), 0);
	f = fopen(target, "w");
	fputs("old", f);
	fclose(f);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(rpt_json_write(root, link), 0);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
	f = fopen(target, "r");
	cr_assert_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	cr_assert_not_null(strstr(buf, "\"x\": 8"), "%s", buf);
	json_decref(root);
	free(target);
	free(link);
	fr_test_rmtree(dir);
}
