/*
 * test_compare.c - `feedrate compare` on three hand-made sweep reports
 * (tests/fixtures/compare): each candidate read back right, the table and
 * the HTML page, and the refusals: a report of another schema_version, a
 * run report, a truncated file. The binary is driven through
 * $FEEDRATE_BIN where set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <jansson.h>

#include "harness.h"
#include "report_sweep.h"

#define FIX "tests/fixtures/compare/"

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);

	cr_assert_not_null(j, "%s: %s", path, err.text);
	return j;
}

FR_TEST(compare, reads_each_candidate_back)
{
	static const char *const files[] = {
		FIX "p4d.json", FIX "g5.json", FIX "a2-gcsfuse.json",
	};
	struct rpt_candidate c[3];
	char why[512];

	for (int i = 0; i < 3; i++) {
		json_t *j = load(files[i]);

		cr_assert_eq(rpt_candidate_from_json(j, files[i], &c[i], why,
						     sizeof(why)), 0, "%s",
			     why);
		json_decref(j);
	}
	cr_assert_str_eq(c[0].label, "p4d.24xlarge");
	cr_assert_eq(c[0].vcpus, 96);
	cr_assert_eq(c[0].gpus_fed[RPT_CACHE_COLD], 8);
	cr_assert(!c[1].have[RPT_CACHE_RAM], "g5 has no ram row");
	cr_assert_str_eq(c[1].limiting[RPT_CACHE_COLD], "storage");
	cr_assert_float_eq(c[1].samples_per_s[RPT_CACHE_WARM], 40000, 1e-9);
	cr_assert_lt(c[1].vcpus_per_gpu[RPT_CACHE_COLD], 0, "null: unknown");
	/* no instance type: the file's base name */
	cr_assert_str_eq(c[2].label, "a2-gcsfuse.json");
	cr_assert_str_eq(c[2].storage, "fuse.gcsfuse");
	for (int i = 0; i < 3; i++)
		rpt_candidate_free(&c[i]);
}

FR_TEST(compare, refuses_other_versions_and_other_reports)
{
	struct rpt_candidate c;
	char why[512];
	json_t *j;

	j = load(FIX "future_version.json");
	cr_assert_eq(rpt_candidate_from_json(j, "future_version.json", &c, why,
					     sizeof(why)), -EPROTO);
	cr_assert(strstr(why, "schema_version 2"), "%s", why);
	cr_assert(strstr(why, "version 1"), "%s", why);
	json_decref(j);

	j = load(FIX "run_report.json");
	cr_assert_eq(rpt_candidate_from_json(j, "r.json", &c, why,
					     sizeof(why)), -EINVAL);
	cr_assert(strstr(why, "run"), "%s", why);
	json_decref(j);

	j = json_pack("{s:s,s:i}", "schema", "something.else",
		      "schema_version", 1);
	cr_assert_eq(rpt_candidate_from_json(j, "x.json", &c, why,
					     sizeof(why)), -EINVAL);
	json_decref(j);
	j = json_pack("{s:s}", "schema", RPT_SWEEP_SCHEMA_NAME);
	cr_assert_eq(rpt_candidate_from_json(j, "x.json", &c, why,
					     sizeof(why)), -EPROTO);
	json_decref(j);
}

FR_TEST(compare, table_fits_80_columns_and_html_names_each_candidate)
{
	static const char *const files[] = {
		FIX "p4d.json", FIX "g5.json", FIX "a2-gcsfuse.json",
	};
	struct rpt_candidate c[3];
	char why[512], *buf = NULL, *line, *save = NULL, *html;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < 3; i++) {
		json_t *j = load(files[i]);

		cr_assert_eq(rpt_candidate_from_json(j, files[i], &c[i], why,
						     sizeof(why)), 0);
		json_decref(j);
	}
	f = open_memstream(&buf, &len);
	rpt_compare_print(f, c, 3);
	fclose(f);
	cr_assert(strstr(buf, "p4d.24xlarge"));
	cr_assert(strstr(buf, "0 x A100, storage"));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "  ", 2) && strstr(line, ": feeds"))
			continue;       /* the verdict lines wrap freely */
		cr_assert_leq(strlen(line), 80, "%s", line);
	}
	free(buf);
	html = rpt_compare_html(c, 3);
	cr_assert_not_null(html);
	cr_assert(strstr(html, "<th>g5.48xlarge</th>"));
	cr_assert(strstr(html, "<svg class=\"bars\""));
	/* 3 + 2 + 3 cache rows */
	{
		size_t bars = 0;

		for (char *p = strstr(html, "<rect class=\"bar\""); p;
		     p = strstr(p + 1, "<rect class=\"bar\""))
			bars++;
		cr_assert_eq(bars, 8);
	}
	free(html);
	for (int i = 0; i < 3; i++)
		rpt_candidate_free(&c[i]);
}

static int run_cmd(const char *cmd)
{
	int st = system(cmd);

	cr_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

FR_TEST(compare, command_exit_codes)
{
	const char *bin = getenv("FEEDRATE_BIN");
	char cmd[1024], *dir;

	if (!bin || !*bin)
		cr_skip_test("FEEDRATE_BIN is not set (make test sets it)");
	dir = fr_test_tmpdir();
	snprintf(cmd, sizeof(cmd), "%s compare " FIX "p4d.json " FIX "g5.json "
		 FIX "a2-gcsfuse.json --html %s/c.html >/dev/null", bin, dir);
	cr_assert_eq(run_cmd(cmd), 0);
	snprintf(cmd, sizeof(cmd), "test -s %s/c.html", dir);
	cr_assert_eq(run_cmd(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s compare " FIX "p4d.json " FIX
		 "future_version.json >/dev/null 2>%s/err", bin, dir);
	cr_assert_eq(run_cmd(cmd), 2);
	snprintf(cmd, sizeof(cmd), "grep -q 'schema_version 2' %s/err", dir);
	cr_assert_eq(run_cmd(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s compare " FIX "truncated.json "
		 ">/dev/null 2>&1", bin);
	cr_assert_eq(run_cmd(cmd), 5);
	snprintf(cmd, sizeof(cmd), "%s compare >/dev/null 2>&1", bin);
	cr_assert_eq(run_cmd(cmd), 2);
	fr_test_rmtree(dir);
}

/* DIR/NAME as a NUL-terminated malloc'd string. */
static char *read_text(const char *dir, const char *name)
{
	char path[4096];
	char *buf = NULL;
	size_t len = 0;
	FILE *f, *m;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	m = open_memstream(&buf, &len);
	cr_assert_not_null(m);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	cr_assert_eq(fclose(m), 0);
	return buf;
}

FR_TEST(compare, missing_file_is_named_escaped_with_the_reason)
{
	char *dir = fr_test_tmpdir();
	char path[4096];
	char *argv[] = { (char *)fr_test_bin(), "compare", path, NULL };
	char *err;

	snprintf(path, sizeof(path), "%s/no-such-\xff.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 30), 5);
	err = read_text(dir, "stderr");
	cr_assert_not_null(strstr(err, "no-such-\\xff.json"), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	cr_assert_null(strchr(err, '\xff'), "raw byte: %s", err);
	free(err);
	fr_test_rmtree(dir);
}
