/*
 * test_sweep_cli.c - `feedrate sweep` through the real binary
 * ($FEEDRATE_BIN; skipped when unset): usage errors, an unwritable report
 * path refused before anything is measured, a budget too short for the
 * points with every vCPU refused with what they need, the training job's
 * reserve options (bad values a usage error; given ones in the JSON
 * verdict's reserve and the text), and (suite
 * sweep_cli_slow) an end-to-end sweep of a small generated dataset under
 * a short budget: the JSON, CSV and HTML reports, points dropped as the
 * budget rule says (fewer vCPUs first), and the time used within the
 * budget plus the stated margin.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "report_sweep.h"

/* One point may overrun its share by its child's start and its cache
 * preparation: the sweep's stated margin. */
#define SWEEP_MARGIN_S 20.0

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	cr_assert_not_null(f, "%s", path);
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

FR_TEST(sweep_cli, help_and_usage_errors)
{
	char *dir = fr_test_tmpdir(), *text, path[4096];
	char *help[] = { (char *)fr_test_bin(), "sweep", "--help", NULL };
	char *badv[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "1,x", NULL };
	char *badc[] = { (char *)fr_test_bin(), "sweep", "--cache", "hot", NULL };
	char *many[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "100000", NULL };
	char *badb[] = { (char *)fr_test_bin(), "sweep", "--budget", "soon", NULL };

	cr_assert_eq(fr_test_run(dir, help, 30), 0);
	snprintf(path, sizeof(path), "%s/stdout", dir);
	text = slurp(path);
	cr_assert(strstr(text, "Budget rule:"), "the rule is in the help");
	free(text);
	cr_assert_eq(fr_test_run(dir, badv, 30), 2);
	cr_assert_eq(fr_test_run(dir, badc, 30), 2);
	cr_assert_eq(fr_test_run(dir, many, 30), 2);
	cr_assert_eq(fr_test_run(dir, badb, 30), 2);
	fr_test_rmtree(dir);
}

FR_TEST(sweep_cli, unwritable_report_is_refused_before_measuring)
{
	char *dir = fr_test_tmpdir(), json[4096], path[4096], *text;
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--json", json, "/nonexistent",
			 NULL };
	struct timespec t0, t1;

	snprintf(json, sizeof(json), "%s/no/such/folder/r.json", dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a refused report path is a usage error (exit 2), said first */
	cr_assert_eq(fr_test_run(dir, argv, 30), 2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	text = slurp(path);
	cr_assert(strstr(text, "does not exist"), "%s", text);
	/* refused before listing: the missing dataset is never mentioned */
	cr_assert_null(strstr(text, "cannot list"), "%s", text);
	free(text);
	fr_test_rmtree(dir);
}

/* Occurrences of NEEDLE in TEXT. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Headless Chromium's path, or NULL (Debian's package is `chromium`). */
static const char *chromium(void)
{
	static const char *const browsers[] = {
		"/usr/bin/chromium", "/usr/bin/chromium-browser",
	};

	for (size_t i = 0; i < sizeof(browsers) / sizeof(browsers[0]); i++)
		if (!access(browsers[i], X_OK))
			return browsers[i];
	return NULL;
}

/*
 * Load the sweep's HTML in headless Chromium (BROWSER), count the plotted
 * series and points in the DOM it renders, compare them with the JSON of
 * the same sweep, and take a screenshot.
 */
static void check_html_in_a_browser(const char *dir, const char *browser,
				    const char *html, size_t want_series,
				    size_t want_points)
{
	char url[4200], shot[4200], profile[4200], path[4200], *dom;
	struct stat st;

	snprintf(url, sizeof(url), "file://%s", html);
	snprintf(shot, sizeof(shot), "--screenshot=%s/sweep.png", dir);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s/chromium", dir);
	{
		/* no network: the page must be whole on its own */
		char *dump[] = { (char *)browser, "--headless", "--no-sandbox",
			"--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking",
			"--disable-component-update", "--disable-sync",
			profile, "--dump-dom", url, NULL };
		char *png[] = { (char *)browser, "--headless", "--no-sandbox",
			"--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking",
			"--disable-component-update", "--disable-sync",
			"--window-size=1100,1600", profile, shot, url, NULL };

		cr_assert_eq(fr_test_run(dir, dump, 120), 0, "chromium --dump-dom");
		snprintf(path, sizeof(path), "%s/stdout", dir);
		dom = slurp(path);
		cr_assert_eq(count_of(dom, "<g class=\"series\""), want_series,
			     "series in the rendered DOM");
		cr_assert_eq(count_of(dom, "<circle class=\"pt\""),
			     want_points, "points in the rendered DOM");
		cr_assert_null(strstr(dom, "<script"));
		free(dom);
		cr_assert_eq(fr_test_run(dir, png, 120), 0, "chromium --screenshot");
	}
	snprintf(path, sizeof(path), "%s/sweep.png", dir);
	cr_assert_eq(stat(path, &st), 0, "no screenshot");
	cr_assert_gt(st.st_size, 10000, "an empty screenshot");
}

FR_TEST(sweep_cli_slow, small_dataset_short_budget_all_reports)
{
	char *dir = fr_test_tmpdir(), data[4096], json[4096], csv[4096];
	char html[4096], path[4096], *text;
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--size", "16M", data,
			NULL };
	char *sweep[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "1,2",
			  "--budget", "36s", "--json", json, "--csv", csv,
			  "--html", html, data, NULL };
	json_error_t je;
	json_t *root, *pts, *p;
	size_t i, measured = 0, dropped = 0, npts, series = 0;
	bool cache_seen[8] = { false };
	unsigned top = 0, max_dropped = 0;
	int rc;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		sweep[3] = "1";
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(html, sizeof(html), "%s/r.html", dir);
	cr_assert_eq(fr_test_run(dir, gen, 120), 0);
	rc = fr_test_run(dir, sweep, 36 + SWEEP_MARGIN_S + 30);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	text = slurp(path);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, text);
	free(text);
	snprintf(path, sizeof(path), "%s/stdout", dir);
	text = slurp(path);
	cr_assert(!strncmp(text, "feedrate sweep\n  verdict  ", 26), "%.200s",
		  text);
	free(text);

	root = json_load_file(json, 0, &je);
	cr_assert_not_null(root, "%s", je.text);
	cr_assert_eq(json_integer_value(json_object_get(root,
		"schema_version")), RPT_SWEEP_SCHEMA_VERSION);
	/* the backend the points really ran with is named */
	cr_assert(json_string_value(json_object_get(json_object_get(root,
		  "storage"), "backend")) && *json_string_value(
		  json_object_get(json_object_get(root, "storage"), "backend")),
		  "no backend in the sweep report");
	pts = json_object_get(root, "points");
	npts = json_array_size(pts);
	json_array_foreach(pts, i, p) {
		const char *st = json_string_value(json_object_get(p,
								   "status"));
		const unsigned v = (unsigned)json_integer_value(
			json_object_get(p, "vcpus"));

		if (!strcmp(st, "measured")) {
			const char *cache = json_string_value(
				json_object_get(p, "cache"));
			size_t k = !strcmp(cache, "cold") ? 0 :
				   !strcmp(cache, "warm") ? 1 : 2;

			if (!cache_seen[k])
				series++;
			cache_seen[k] = true;
			measured++;
			cr_assert(json_number_value(json_object_get(p,
				"samples_per_s")) > 0);
			cr_assert(json_is_object(json_object_get(p,
				"stages")));
		} else if (!strcmp(st, "dropped")) {
			dropped++;
			/* the RAM axis's other sizes, at all vCPUs, come
			 * after the top points and their checks */
			if (v > max_dropped && !json_is_true(
				    json_object_get(p, "ram_axis")))
				max_dropped = v;
		}
		if (v > top)
			top = v;
	}
	cr_assert_geq(measured, 1);
	cr_assert_eq(json_array_size(json_object_get(root, "dropped")),
		     dropped);
	/* the points with every vCPU come first: fewer are dropped. On a
	 * slow or loaded machine even they may not fit the 36 s: then they
	 * are dropped as too short and their state has no verdict (never one
	 * from fewer vCPUs) */
	json_array_foreach(pts, i, p) {
		const unsigned v = (unsigned)json_integer_value(
			json_object_get(p, "vcpus"));
		const char *st = json_string_value(json_object_get(p,
								   "status"));
		const char *why = json_string_value(json_object_get(p, "why"));
		const char *cache = json_string_value(json_object_get(p,
								      "cache"));
		json_t *nj = json_object_get(json_object_get(root, "verdict"),
					     "not_judged");

		/* the RAM axis's other sizes may drop before fewer vCPUs */
		if (v != top || strcmp(st, "dropped") ||
		    json_is_true(json_object_get(p, "ram_axis")))
			continue;
		cr_assert(why && strstr(why, "too short"), "%s", why);
		cr_assert(strstr(json_string_value(json_object_get(nj, cache)),
				 "budget"), "%s not judged", cache);
	}
	(void)max_dropped;
	cr_assert_leq(json_number_value(json_object_get(json_object_get(root,
		"budget"), "elapsed_s")), 36 + SWEEP_MARGIN_S);
	cr_assert(json_is_object(json_object_get(json_object_get(root,
		"verdict"), "gpus_fed")));
	json_decref(root);

	text = slurp(csv);
	{
		size_t rows = 0;

		for (char *c = text; *c; c++)
			rows += *c == '\n';
		cr_assert_eq(rows, 1 + npts, "a header and one row per "
			     "point");
	}
	free(text);
	text = slurp(html);
	cr_assert(strstr(text, "<svg class=\"plot\""));
	cr_assert_null(strstr(text, "<script"));
	free(text);
	if (!chromium()) {
		fr_test_rmtree(dir);
		/* a skip, not a pass: the page was not seen in a browser */
		cr_skip_test("the reports were checked but the HTML was not "
			     "rendered: no chromium (apt-get install chromium)");
	}
	check_html_in_a_browser(dir, chromium(), html, series, measured);
	fr_test_rmtree(dir);
}

FR_TEST(sweep_cli, budget_too_short_for_the_all_vcpu_points_says_what_they_need)
{
	char *dir = fr_test_tmpdir(), data[4096], path[4096], *err;
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "20",
			data, NULL };
	/* 1 s: not even one point fits, and no point of fewer vCPUs is
	 * measured in their place */
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--budget", "1s",
			 data, NULL };

	snprintf(data, sizeof(data), "%s/data", dir);
	cr_assert_eq(fr_test_run(dir, gen, 120), 0, "feedrate gen failed");
	cr_assert_eq(fr_test_run(dir, argv, 60), 2);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	err = slurp(path);
	cr_assert_not_null(strstr(err, "vCPU point"), "%s", err);
	cr_assert_not_null(strstr(err, "--budget 1 s is too short"), "%s",
			   err);
	free(err);
	fr_test_rmtree(dir);
}

FR_TEST(sweep_cli, sweep_refuses_gpus_0)
{
	char *dir = fr_test_tmpdir(), path[4096];
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--gpus", "0",
			 "--gpu-rate", "300", "/nonexistent", NULL };
	char *argv2[] = { (char *)fr_test_bin(), "sweep", "--gpus", "0",
			  "/nonexistent", NULL };
	char *err;

	cr_assert_eq(fr_test_run(dir, argv, 30), 2);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	err = slurp(path);
	cr_assert_not_null(strstr(err, "--gpus 0"), "%s", err);
	free(err);
	cr_assert_eq(fr_test_run(dir, argv2, 30), 2);
	fr_test_rmtree(dir);
}

/*
 * A --ram point of a 30-file dataset: its cgroup cannot hold the page
 * cache to the asked size, so the rule (limited when the page cache seen
 * is <= 1.25 x asked) decides, as reported, whether its hit ratio is an
 * estimate and whether the verdict judges it; two epochs of 30 files are
 * too short to be used either way.
 */
FR_TEST(sweep_cli_slow, sweep_ram_point_of_a_tiny_dataset_is_not_taken_as_measured)
{
	char *dir = fr_test_tmpdir();
	char data[4096], js[4096], path[4096];
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "30",
			data, NULL };
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--cache", "ram,warm",
			 "--vcpus", "1", "--budget", "40s", "--no-check",
			 "--json", js, data, NULL };
	json_error_t je;
	json_t *j, *p, *v;
	size_t i;
	bool ram_seen = false;
	char *out;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(js, sizeof(js), "%s/r.json", dir);
	cr_assert_eq(fr_test_run(dir, gen, 300), 0, "feedrate gen failed");
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	snprintf(path, sizeof(path), "%s/stdout", dir);
	out = slurp(path);
	cr_assert_null(strstr(out, "hit ratio was 100.0 %, measured"), "%s",
		       out);
	free(out);
	j = json_load_file(js, 0, &je);
	cr_assert_not_null(j, "%s: %s", js, je.text);
	v = json_object_get(j, "verdict");
	json_array_foreach(json_object_get(j, "points"), i, p) {
		const json_t *seen = json_object_get(p,
						     "page_cache_seen_bytes");
		double asked;

		if (strcmp(json_string_value(json_object_get(p, "cache")),
			   "ram") || strcmp(json_string_value(
			   json_object_get(p, "status")), "measured"))
			continue;
		ram_seen = true;
		if (json_is_null(json_object_get(p, "cgroup_bytes"))) {
			json_decref(j);
			fr_test_rmtree(dir);
			cr_skip_test("no memory cgroup can be made here");
		}
		cr_assert(json_is_integer(seen));
		asked = (double)json_integer_value(json_object_get(p,
			"ram_bytes"));
		/* the rule, as reported */
		cr_assert_eq(json_is_true(json_object_get(p, "ram_limited")),
			     (double)json_integer_value(seen) <= 1.25 * asked);
		if (json_is_false(json_object_get(p, "ram_limited"))) {
			cr_assert(json_is_true(json_object_get(p,
				"hit_ratio_estimated")));
			cr_assert(json_is_string(json_object_get(
				json_object_get(v, "not_judged"), "ram")));
			cr_assert_null(json_object_get(json_object_get(v,
				"gpus_fed"), "ram"));
		}
		/* two epochs of 30 files: a handful of batches at most */
		cr_assert(json_is_true(json_object_get(p, "too_short")));
		cr_assert(json_is_false(json_object_get(p, "usable")));
	}
	if (!ram_seen) {
		char what[2048] = "";
		size_t at = 0;

		json_array_foreach(json_object_get(j, "points"), i, p) {
			if (at >= sizeof(what))
				break;
			at += (size_t)snprintf(what + at, sizeof(what) - at,
				"%s %s: %s; ",
				json_string_value(json_object_get(p, "cache")),
				json_string_value(json_object_get(p, "status")),
				json_is_string(json_object_get(p, "why")) ?
				json_string_value(json_object_get(p, "why")) :
				"-");
		}
		cr_assert(ram_seen, "no ram point was measured: %s", what);
	}
	json_decref(j);
	fr_test_rmtree(dir);
}

FR_TEST(sweep_cli, reserve_options_refuse_bad_values_and_take_good_ones)
{
	static const char *const bad[][2] = {
		{ "--reserve-vcpus-per-gpu", "-1" },
		{ "--reserve-vcpus-per-gpu", "two" },
		{ "--reserve-vcpus-per-gpu", "1.5x" },
		{ "--reserve-vcpus-per-gpu", "nan" },
		{ "--reserve-vcpus-per-gpu", "2000" },
		{ "--reserve-ram-per-gpu", "lots" },
		{ "--reserve-ram-per-gpu", "-1G" },
		{ "--reserve-ram-per-gpu", "" },
	};
	char *dir = fr_test_tmpdir(), path[4096], *err;
	/* good values are parsed before --help answers */
	char *good[] = { (char *)fr_test_bin(), "sweep",
			 "--reserve-vcpus-per-gpu", "1.5",
			 "--reserve-ram-per-gpu", "3G", "--help", NULL };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "sweep",
				 (char *)bad[i][0], (char *)bad[i][1],
				 "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 2, "%s '%s'",
			     bad[i][0], bad[i][1]);
		snprintf(path, sizeof(path), "%s/stderr", dir);
		err = slurp(path);
		cr_assert(strstr(err, bad[i][0]), "%s", err);
		free(err);
	}
	cr_assert_eq(fr_test_run(dir, good, 30), 0);
	fr_test_rmtree(dir);
}

FR_TEST(sweep_cli_slow, reserve_options_reach_the_json_verdict)
{
	char *dir = fr_test_tmpdir();
	char data[4096], js[4096], path[4096], *out;
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "20",
			data, NULL };
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--cache", "warm",
			 "--vcpus", "1", "--budget", "15s", "--no-check",
			 "--gpus", "2xA100", "--reserve-vcpus-per-gpu", "1.5",
			 "--reserve-ram-per-gpu", "3G", "--json", js, data,
			 NULL };
	json_error_t je;
	json_t *j, *r, *p;
	size_t i, judged = 0;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(js, sizeof(js), "%s/r.json", dir);
	cr_assert_eq(fr_test_run(dir, gen, 300), 0, "feedrate gen failed");
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	j = json_load_file(js, 0, &je);
	cr_assert_not_null(j, "%s: %s", js, je.text);
	r = json_object_get(json_object_get(j, "verdict"), "reserve");
	cr_assert_float_eq(json_number_value(json_object_get(r,
		"vcpus_per_gpu")), 1.5, 1e-12);
	cr_assert_eq(json_integer_value(json_object_get(r,
		"ram_bytes_per_gpu")), 3ll << 30);
	cr_assert_str_eq(json_string_value(json_object_get(r, "ram_how")),
			 "", "given, not the default's make-up");
	/* 1.5 x 2 GPUs, wherever a state was judged */
	json_array_foreach(json_object_get(json_object_get(j, "verdict"),
					   "per_cache"), i, p) {
		cr_assert_eq(json_integer_value(json_object_get(p,
			"vcpus_reserved")), 3);
		judged += json_is_number(json_object_get(p, "vcpus_per_gpu"));
	}
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(
		json_object_get(j, "verdict"), "ram"), "reserved_bytes")),
		6ll << 30);
	json_decref(j);
	/* the text report says it too (its lines wrapped: made one) */
	snprintf(path, sizeof(path), "%s/stdout", dir);
	out = slurp(path);
	{
		char *o = out;

		for (const char *q = out; *q; q++)
			if ((*q != ' ' && *q != '\n') || (o > out &&
							   o[-1] != ' '))
				*o++ = *q == '\n' ? ' ' : *q;
		*o = '\0';
	}
	cr_assert(strstr(out, "reserved for the training job (3.22 GB per "
			 "GPU)"), "%s", out);
	if (judged)     /* with a vCPUs-per-GPU figure, the reserve beside */
		cr_assert(strstr(out, "3 reserved for the training job (1.5 "
				 "per GPU)"), "%s", out);
	free(out);
	fr_test_rmtree(dir);
}

/*
 * A sweep lists its dataset once, however many points it measures, and
 * says so (prepare.listings); its first eviction and every point's
 * preparation add up in prepare{}; a cold point after a cold point that
 * read with O_DIRECT finds the eviction still standing by a sample and
 * keeps it (prepare.reused), where the filesystem takes O_DIRECT.
 */
FR_TEST(sweep_cli_slow, lists_once_and_reuses_an_eviction_o_direct_kept)
{
	char *dir = fr_test_tmpdir(), data[4096], json[4096], path[4096];
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--size", "8M", data,
			NULL };
	char *sweep[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "1,2",
			  "--cache", "cold", "--no-check", "--budget", "60s",
			  "--json", json, data, NULL };
	json_error_t je;
	json_t *root, *prep, *pts;
	size_t measured = 0, files;
	int rc;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		sweep[3] = "1,1";
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	cr_assert_eq(fr_test_run(dir, gen, 120), 0);
	/* 60 s: on a loaded machine a 30 s budget dropped the 1-vCPU
	 * point (its preparation's estimate grew), and one point alone
	 * says nothing of listing once */
	rc = fr_test_run(dir, sweep, 60 + SWEEP_MARGIN_S + 30);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	{
		char *text = slurp(path);

		cr_assert_eq(rc, 0, "exit %d: %s", rc, text);
		free(text);
	}
	root = json_load_file(json, 0, &je);
	cr_assert_not_null(root, "%s", je.text);
	prep = json_object_get(root, "prepare");
	cr_assert(json_is_object(prep), "no prepare{} in the sweep report");
	pts = json_object_get(root, "points");
	for (size_t i = 0; i < json_array_size(pts); i++)
		measured += !strcmp(json_string_value(json_object_get(
			json_array_get(pts, i), "status")), "measured");
	if (measured < 2) {
		char *dropped = json_dumps(json_object_get(root, "dropped"), 0);

		cr_assert_geq(measured, 2, "two cold points measured; dropped: "
			      "%s", dropped ? dropped : "?");
		free(dropped);
	}
	cr_expect_eq(json_integer_value(json_object_get(prep, "listings")), 1,
		     "one listing for %zu points", measured);
	files = (size_t)json_integer_value(json_object_get(json_object_get(
		root, "dataset"), "files"));
	cr_expect_geq((size_t)json_integer_value(json_object_get(prep,
		"files")), files, "the first eviction took every file");
	cr_expect_gt(json_integer_value(json_object_get(prep,
		"verify_sample")), 0);
	cr_expect_eq(json_real_value(json_object_get(prep, "verify_bound")), 0,
		     "a small dataset is checked whole");
	cr_expect_geq(json_real_value(json_object_get(prep, "list_s")), 0);
	cr_expect_gt(json_real_value(json_object_get(prep, "evict_s")), 0);
	if (!strstr(json_string_value(json_object_get(root, "notes")),
		    "O_DIRECT"))
		cr_expect_geq(json_integer_value(json_object_get(prep,
			"reused")), 1, "the second cold point kept the "
			"eviction the first one left");
	json_decref(root);
	fr_test_rmtree(dir);
}
