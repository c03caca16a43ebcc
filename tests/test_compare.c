/*
 * test_compare.c - `feedrate compare` on three hand-made sweep reports
 * (tests/fixtures/compare): each candidate read back right (GPUs fed drawn
 * again by the verdict from the report's numbers, and a report whose own
 * figure differs said so), the table and the HTML page, and the refusals:
 * a report of another schema_version, a run report, a truncated file; the
 * size and vCPUs-per-GPU rows saying what a vCPU is there. The
 * binary is driven through $FEEDRATE_BIN where set.
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
	cr_assert_eq(c[0].gpus_fed[STG_CACHE_COLD], 8);
	cr_assert(!c[1].have[STG_CACHE_RAM], "g5 has no ram row");
	cr_assert_str_eq(c[1].limiting[STG_CACHE_COLD], "storage");
	cr_assert_float_eq(c[1].samples_per_s[STG_CACHE_WARM], 40000, 1e-9);
	cr_assert_lt(c[1].vcpus_per_gpu[STG_CACHE_COLD], 0, "null: unknown");
	/* no instance type: the file's base name */
	cr_assert_str_eq(c[2].label, "a2-gcsfuse.json");
	cr_assert_str_eq(c[2].storage, "fuse.gcsfuse");
	for (int i = 0; i < 3; i++)
		rpt_candidate_free(&c[i]);
}

FR_TEST(compare, gpus_fed_come_from_the_verdict_and_differences_are_said)
{
	struct rpt_candidate c;
	char why[512], note[256], *buf = NULL, *html;
	size_t len = 0;
	json_t *j = load(FIX "p4d.json"), *per, *cold, *confs;
	FILE *f;

	/* the fixture's cold row: 21,000 samples/s is G = 9 computed, and
	 * the run with 9 GPUs starved: 8, as the report says */
	cr_assert_eq(rpt_candidate_from_json(j, "p4d.json", &c, why,
					     sizeof(why)), 0, "%s", why);
	cr_assert_eq(c.gpus_fed[STG_CACHE_COLD], 8);
	cr_assert_eq(c.checks_ignored[STG_CACHE_COLD], 0);
	cr_assert(!rpt_candidate_note(&c, STG_CACHE_COLD, note,
				      sizeof(note)));
	rpt_candidate_free(&c);

	/* a report that claims 5, and a check run at neither G nor G + 1 */
	per = json_object_get(json_object_get(j, "verdict"), "per_cache");
	cold = json_array_get(per, 0);
	cr_assert_str_eq(json_string_value(json_object_get(cold, "cache")),
			 "cold");
	json_object_set_new(cold, "gpus_fed", json_integer(5));
	confs = json_object_get(cold, "confirmations");
	json_array_append_new(confs, json_pack("{s:i,s:f,s:b,s:i}", "gpus", 3,
					       "au", 0.2, "fed", 0, "vcpus",
					       96));
	cr_assert_eq(rpt_candidate_from_json(j, "p4d.json", &c, why,
					     sizeof(why)), 0, "%s", why);
	cr_assert_eq(c.gpus_fed[STG_CACHE_COLD], 8, "the numbers' verdict");
	cr_assert_eq(c.gpus_fed_stored[STG_CACHE_COLD], 5);
	cr_assert_eq(c.checks_ignored[STG_CACHE_COLD], 1);
	cr_assert(rpt_candidate_note(&c, STG_CACHE_COLD, note, sizeof(note)));
	cr_assert(strstr(note, "says 5 GPUs fed, its numbers give 8"), "%s",
		  note);
	cr_assert(strstr(note, "1 check run not used"), "%s", note);
	cr_assert(!rpt_candidate_note(&c, STG_CACHE_WARM, note, sizeof(note)));
	f = open_memstream(&buf, &len);
	rpt_compare_print(f, &c, 1);
	fclose(f);
	cr_assert(strstr(buf, "note: p4d.24xlarge, cold: the report says 5"),
		  "%s", buf);
	free(buf);
	html = rpt_compare_html(&c, 1);
	cr_assert(strstr(html, "the report says 5 GPUs fed"));
	free(html);
	rpt_candidate_free(&c);
	json_decref(j);
}

FR_TEST(compare, refuses_other_versions_and_other_reports)
{
	struct rpt_candidate c;
	char why[512];
	json_t *j;

	j = load(FIX "future_version.json");
	cr_assert_eq(rpt_candidate_from_json(j, "future_version.json", &c, why,
					     sizeof(why)), -EPROTO);
	cr_assert(strstr(why, "schema_version 3"), "%s", why);
	cr_assert(strstr(why, "version 2"), "%s", why);
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
	snprintf(cmd, sizeof(cmd), "grep -q 'schema_version 3' %s/err", dir);
	cr_assert_eq(run_cmd(cmd), 0);
	/* a file that is no sweep report is a bad argument (2), JSON or
	 * not; one that cannot be read is the environment's (5) */
	snprintf(cmd, sizeof(cmd), "%s compare " FIX "truncated.json "
		 ">/dev/null 2>&1", bin);
	cr_assert_eq(run_cmd(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s compare %s/missing.json >/dev/null "
		 "2>&1", bin, dir);
	cr_assert_eq(run_cmd(cmd), 5);
	/* the page may not replace a report it reads */
	snprintf(cmd, sizeof(cmd), "cp " FIX "g5.json %s/g5.json && %s compare "
		 "%s/g5.json --html %s/g5.json >/dev/null 2>&1", dir, bin, dir,
		 dir);
	cr_assert_eq(run_cmd(cmd), 2);
	snprintf(cmd, sizeof(cmd), "cmp -s " FIX "g5.json %s/g5.json", dir);
	cr_assert_eq(run_cmd(cmd), 0, "the report read was overwritten");
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

FR_TEST(compare, size_and_vcpus_per_gpu_rows_say_what_a_vcpu_is)
{
	struct rpt_candidate c;
	char why[512], *buf = NULL, *html;
	size_t len = 0;
	json_t *j = load(FIX "p4d.json");
	FILE *f;

	/* a report without vcpu_kind keys: from threads_per_core (2) */
	cr_assert_eq(rpt_candidate_from_json(j, "p4d.json", &c, why,
					     sizeof(why)), 0, "%s", why);
	cr_assert_eq(c.vcpu_kind, STG_VCPU_THREAD);
	f = open_memstream(&buf, &len);
	rpt_compare_print(f, &c, 1);
	fclose(f);
	cr_assert(strstr(buf, "size            96 thread vCPUs"), "%s", buf);
	cr_assert(strstr(buf, "RAM             1152 GiB"), "%s", buf);
	cr_assert(strstr(buf, "  vCPUs/GPU     9.1 thread vCPUs"), "%s", buf);
	free(buf);
	rpt_candidate_free(&c);

	/* the verdict's kind (as it used it) over the machine's */
	json_object_set_new(json_object_get(j, "machine"), "vcpu_kind",
			    json_string("thread"));
	json_object_set_new(json_object_get(j, "verdict"), "vcpu_kind",
			    json_string("core"));
	cr_assert_eq(rpt_candidate_from_json(j, "p4d.json", &c, why,
					     sizeof(why)), 0, "%s", why);
	cr_assert_eq(c.vcpu_kind, STG_VCPU_CORE);
	buf = NULL;
	f = open_memstream(&buf, &len);
	rpt_compare_print(f, &c, 1);
	fclose(f);
	cr_assert(strstr(buf, "96 core vCPUs"), "%s", buf);
	cr_assert(strstr(buf, "9.1 core vCPUs"), "%s", buf);
	cr_assert_null(strstr(buf, "thread"), "%s", buf);
	free(buf);
	html = rpt_compare_html(&c, 1);
	cr_assert(strstr(html, ", 96 core vCPUs, 1152 GiB</td>"), "%s", html);
	free(html);
	rpt_candidate_free(&c);
	json_decref(j);
}
