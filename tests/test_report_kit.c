/*
 * test_report_kit.c - the report kit: a number that is not finite is
 * written as null and never drops its key; names are printable; words
 * wrap at spaces and keep a long word whole; appends cut at the end; the
 * setup is filled once and each report writes its own keys from it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#include "harness.h"
#include "measure.h"
#include "rpt_html.h"
#include "rpt_json.h"
#include "rpt_load.h"
#include "rpt_setup.h"
#include "rpt_text.h"

/* What F holds, NUL-terminated; F is closed. */
static char *drain(FILE *f)
{
	long n;
	char *s;

	cr_assert_eq(fflush(f), 0);
	n = ftell(f);
	cr_assert_geq(n, 0);
	s = calloc(1, (size_t)n + 1);
	cr_assert_not_null(s);
	rewind(f);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

FR_TEST(report_kit, not_finite_numbers_are_null_and_keep_their_key)
{
	const double bad[] = { NAN, INFINITY, -INFINITY };
	json_t *o = json_object();
	char *text;

	cr_assert_not_null(o);
	/* jansson alone refuses them: the reason for the rule */
	cr_expect_null(json_real(NAN));
	cr_expect_null(json_real(INFINITY));
	for (size_t i = 0; i < 3; i++) {
		json_t *j = rpt_jnum(bad[i]);

		cr_assert_not_null(j, "value %zu", i);
		cr_expect(json_is_null(j), "value %zu", i);
		json_decref(j);
	}
	cr_assert_eq(json_object_set_new(o, "nan", rpt_jnum(NAN)), 0);
	cr_assert_eq(json_object_set_new(o, "inf", rpt_jnum(INFINITY)), 0);
	cr_assert_eq(json_object_set_new(o, "minus_inf", rpt_jnum(-INFINITY)),
		     0);
	cr_assert_eq(json_object_set_new(o, "known_nan",
					 rpt_jnum_if(NAN, true)), 0);
	cr_assert_eq(json_object_set_new(o, "nonneg_inf",
					 rpt_jnum_nonneg(INFINITY)), 0);
	cr_assert_eq(json_object_set_new(o, "pos_nan", rpt_jnum_pos(NAN)), 0);
	cr_assert_eq(json_object_set_new(o, "half", rpt_jnum(0.5)), 0);
	text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "{\"half\":0.5,\"inf\":null,\"known_nan\":null,"
			 "\"minus_inf\":null,\"nan\":null,\"nonneg_inf\":null,"
			 "\"pos_nan\":null}");
	free(text);
	json_decref(o);
}

FR_TEST(report_kit, finite_numbers_follow_the_known_and_sign_rules)
{
	json_t *j;

	j = rpt_jnum(-2.5);
	cr_expect(json_is_real(j) && json_real_value(j) == -2.5);
	json_decref(j);
	j = rpt_jnum_if(3, false);
	cr_expect(json_is_null(j));
	json_decref(j);
	j = rpt_jnum_nonneg(-1);
	cr_expect(json_is_null(j));
	json_decref(j);
	j = rpt_jnum_nonneg(0);
	cr_expect(json_is_real(j) && json_real_value(j) == 0);
	json_decref(j);
	j = rpt_jnum_pos(0);
	cr_expect(json_is_null(j));
	json_decref(j);
	j = rpt_jnum_pos(1e-3);
	cr_expect(json_is_real(j) && json_real_value(j) == 1e-3);
	json_decref(j);
}

FR_TEST(report_kit, paths_print_escaped_and_fixed_arrays_stop_at_their_size)
{
	char *got;
	FILE *f = tmpfile();
	const char fixed[4] = { 'a', 'b', 'c', 'd' };  /* no NUL */

	cr_assert_not_null(f);
	rpt_put_path(f, "bad\xff\n.jpg");
	fputc('|', f);
	rpt_put_path(f, NULL);
	fputc('|', f);
	rpt_put_bytes(f, fixed, sizeof(fixed));
	fputc('|', f);
	rpt_put_bytes(f, "xy\0zz", 5);
	got = drain(f);
	cr_expect_str_eq(got, "bad\\xff\\x0a.jpg||abcd|xy");
	free(got);
}

FR_TEST(report_kit, wrap_breaks_at_spaces_indents_and_keeps_long_words)
{
	char *got;
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	fputs("ab ", f);
	rpt_wrap(f, "one two three four", 3, 12, 2);
	rpt_wrap(f, "short", 0, 12, 2);
	rpt_wrap(f, "x averyveryverylongword y", 0, 8, 1);
	rpt_wrap(f, "", 0, 8, 1);
	got = drain(f);
	cr_expect_str_eq(got, "ab one two\n  three four\nshort\n"
			 "x\n averyveryverylongword\n y\n");
	free(got);
}

FR_TEST(report_kit, appends_cut_at_the_end_and_the_growable_string_grows)
{
	char small[8] = "ab";
	struct rpt_buf b;
	char *s;

	rpt_cat(small, sizeof(small), "%s", "cdefghij");
	cr_expect_str_eq(small, "abcdefg");
	rpt_cat(small, sizeof(small), "%d", 1);
	cr_expect_str_eq(small, "abcdefg");
	rpt_buf_init(&b);
	for (int i = 0; i < 2000; i++)
		rpt_buf_printf(&b, "%04d", i);
	rpt_buf_put(&b, "<&>", 3);
	rpt_buf_html(&b, "<&>'\"");
	s = rpt_buf_take(&b);
	cr_assert_not_null(s);
	cr_expect_eq(strlen(s), 8000 + 3 + 4 + 5 + 4 + 5 + 6);
	cr_expect_eq(strncmp(s, "000000010002", 12), 0);
	cr_expect_str_eq(s + 8000, "<&>&lt;&amp;&gt;&#39;&quot;");
	free(s);
}

FR_TEST(report_kit, a_page_has_one_head_one_style_sheet_and_one_end)
{
	struct rpt_buf b;
	char *s;

	rpt_buf_init(&b);
	rpt_html_head(&b, "a <b> & 'c'");
	rpt_buf_printf(&b, "<p>x</p>\n");
	rpt_html_end(&b);
	s = rpt_buf_take(&b);
	cr_assert_not_null(s);
	cr_expect_eq(strncmp(s, "<!DOCTYPE html>\n", 16), 0);
	cr_expect_not_null(strstr(s, "<title>a &lt;b&gt; &amp; &#39;c&#39;"
				  "</title><style>"));
	cr_expect_null(strstr(strstr(s, "<style>") + 1, "<style>"));
	cr_expect_not_null(strstr(s, ".lost{"), "the cluster pages' class");
	cr_expect_not_null(strstr(s, "svg .halo{"), "the charts' class");
	cr_expect_str_eq(s + strlen(s) - 24, "<p>x</p>\n</body></html>\n");
	free(s);
}

FR_TEST(report_kit, loader_reads_a_report_and_words_each_failure)
{
	char *dir = fr_test_tmpdir(), path[4096], why[256];
	json_t *root;
	FILE *f;

	snprintf(path, sizeof(path), "%s/r.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"schema\": \"x\", \"n\": 1}\n", f);
	fclose(f);
	cr_expect_eq(rpt_report_load(path, 0, &root, why, sizeof(why)), 0);
	cr_expect_str_eq(why, "");
	cr_expect_eq(json_integer_value(json_object_get(root, "n")), 1);
	json_decref(root);
	/* larger than the cap: refused before reading */
	cr_expect_eq(rpt_report_load(path, 8, &root, why, sizeof(why)),
		     -EFBIG);
	cr_expect_null(root);
	cr_expect_eq(rpt_report_load(path, 4096, &root, why, sizeof(why)), 0);
	json_decref(root);

	snprintf(path, sizeof(path), "%s/missing.json", dir);
	cr_expect_eq(rpt_report_load(path, 0, &root, why, sizeof(why)),
		     -ENOENT);
	cr_expect_str_eq(why, strerror(ENOENT));

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\n\"a\": \xff}", f);
	fclose(f);
	cr_expect_eq(rpt_report_load(path, 0, &root, why, sizeof(why)),
		     -EINVAL);
	cr_expect_null(root);
	cr_expect_eq(strncmp(why, "not a JSON report: ", 19), 0, "%s", why);
	cr_expect_not_null(strstr(why, "(line "), "%s", why);
	cr_expect_null(strchr(why, '\xff'), "the parser's words escaped");

	/* a FIFO under a cap is refused without being opened (no wait) */
	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(rpt_report_load(path, 4096, &root, why, sizeof(why)),
		     -EFBIG);
	fr_test_rmtree(dir);
}

FR_TEST(report_kit, setup_is_filled_once_and_each_report_writes_its_keys)
{
	struct ms_machine m = { .vcpus_usable = 6, .fs_type = "nfs4",
				.fs_device = "" };
	struct ms_gpus gs = { .count = 0, .type = "A100", .demand = 2470,
			      .demand_kind = "train" };
	struct rpt_setup s;
	json_t *run = json_object(), *clu = json_object(), *ck = json_object();
	json_t *g;

	snprintf(m.cpu.model, sizeof(m.cpu.model), "Xeon");
	m.cpu.threads_per_core = -1;
	snprintf(m.fs.server, sizeof(m.fs.server), "10.0.0.1:/x");
	rpt_setup_fill(&s, &(struct rpt_setup_src){ .version = "9", .m = &m,
		.dataset = "/d", .gs = &gs, .backend = -1, .cache = 0,
		.ram_bytes = 1 << 20, .seed = 7 });
	cr_assert_str_eq(s.version, "9");
	cr_assert_str_eq(s.fs_server, "10.0.0.1:/x");
	cr_assert_eq(s.vcpus_total, 6);
	cr_assert_null(s.backend_asked, "no --backend asked");
	cr_assert_str_eq(s.cache, "cold");
	cr_assert_eq(s.ram_bytes, 0, "a page cache only for the ram state");
	cr_assert_eq(s.cgroup_limit, 0, "the machine's (zeroed) limit");
	cr_assert_eq(s.seed, 7);
	cr_assert_eq(rpt_setup_json(run, &s, RPT_SETUP_RUN), 0);
	cr_assert(json_is_null(json_object_get(json_object_get(run,
		  "machine"), "threads_per_core")), "unknown SMT is null");
	g = json_object_get(run, "gpus");
	cr_assert_str_eq(json_string_value(json_object_get(g, "type")),
			 "A100");
	rpt_setup_json(clu, &s, RPT_SETUP_CLUSTER);
	g = json_object_get(clu, "gpus");
	cr_assert(json_is_null(json_object_get(g, "type")),
		  "no GPU emulated: the cluster's type is null");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
			 clu, "fs"), "server")), "10.0.0.1:/x");
	cr_assert_str_eq(json_string_value(json_object_get(clu, "cache")),
			 "cold");
	rpt_setup_json(ck, &s, RPT_SETUP_CKPT);
	cr_assert_str_eq(json_string_value(json_object_get(ck, "dir")), "/d");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(ck,
		     "machine"), "vcpus")), 6);
	cr_assert_null(json_object_get(ck, "gpus"), "ckpt has no gpus key");
	json_decref(run);
	json_decref(clu);
	json_decref(ck);
}
