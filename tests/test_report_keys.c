/*
 * test_report_keys.c - the keys of every JSON report stay as they were.
 *
 * One small generated dataset; run, io, ckpt and sweep (--ckpt, --price)
 * with short durations and a small budget; compare on the sweep reports.
 * The budget is 16 s: a 1-vCPU point here needs about 8 s on a quiet
 * machine and 10 s under a full `make test`, where listing and eviction
 * took 1.2 s too, and a 10 s budget was refused as too short.
 * Each JSON report's key paths are compared with the list checked in under
 * tests/fixtures/report_keys/ (see keys.py there for the path form): a
 * listed key that is missing fails, and so does a key that is not listed,
 * so a refactor can neither drop nor rename a key silently. A line
 * "PATH ?" is a key that is legitimately optional (present in some runs
 * only); PATH may hold fnmatch wildcards. compare writes no JSON: its text
 * rows are checked against compare.rows and its page for one whole HTML
 * document.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "harness.h"

#define FIX "tests/fixtures/report_keys/"

/* Up to 1,024 paths of at most 255 bytes: far more than any report has. */
struct keyset {
	char path[1024][256];
	bool optional[1024];
	size_t n;
};

static void keys_add(struct keyset *k, const char *p)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->path[i], p))
			return;
	cr_assert_lt(k->n, 1024, "more than 1024 key paths");
	cr_assert_lt(strlen(p), sizeof(k->path[0]), "path too long: %s", p);
	strcpy(k->path[k->n++], p);
}

static void walk(const json_t *v, const char *prefix, struct keyset *k)
{
	char p[512];

	if (json_is_object(v)) {
		const char *key;
		json_t *x;

		json_object_foreach((json_t *)v, key, x) {
			snprintf(p, sizeof(p), "%s%s%s", prefix,
				 *prefix ? "." : "", key);
			keys_add(k, p);
			walk(x, p, k);
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;

		snprintf(p, sizeof(p), "%s[]", prefix);
		json_array_foreach(v, i, x)
			walk(x, p, k);
	}
}

static void keys_of_report(const char *file, struct keyset *k)
{
	json_error_t je;
	json_t *root = json_load_file(file, 0, &je);

	cr_assert_not_null(root, "%s: %s", file, je.text);
	k->n = 0;
	walk(root, "", k);
	json_decref(root);
}

/* The checked-in list NAME: "PATH" or "PATH ?" a line, '#' comments. */
static void keys_of_list(const char *name, struct keyset *k)
{
	char file[256], line[512];
	FILE *f;

	snprintf(file, sizeof(file), FIX "%s", name);
	f = fopen(file, "r");
	cr_assert_not_null(f, "cannot open %s (run from the repository root)",
			   file);
	k->n = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		bool opt = n >= 2 && !strncmp(line + n - 2, " ?", 2);

		line[opt ? n - 2 : n] = '\0';
		if (!*line || *line == '#')
			continue;
		keys_add(k, line);
		k->optional[k->n - 1] = opt;
	}
	fclose(f);
}

static bool matches(const char *pattern, const char *path)
{
	return !strcmp(pattern, path) || !fnmatch(pattern, path, 0);
}

/* Every required listed path is found; every found path is listed.
 * Returns the number of differences, each named on stderr. */
static unsigned keys_compare(const char *what, const struct keyset *want,
			     const struct keyset *got)
{
	unsigned bad = 0;

	for (size_t i = 0; i < want->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < got->n && !seen; j++)
			seen = matches(want->path[i], got->path[j]);
		if (!seen && !want->optional[i]) {
			fprintf(stderr, "%s: key %s is missing\n", what,
				want->path[i]);
			bad++;
		}
	}
	for (size_t j = 0; j < got->n; j++) {
		bool listed = false;

		for (size_t i = 0; i < want->n && !listed; i++)
			listed = matches(want->path[i], got->path[j]);
		if (!listed) {
			fprintf(stderr, "%s: key %s is not in " FIX "%s.keys\n",
				what, got->path[j], what);
			bad++;
		}
	}
	return bad;
}

static void check_report(const char *what, const char *file)
{
	static struct keyset want, got;
	char list[64];
	unsigned bad;

	snprintf(list, sizeof(list), "%s.keys", what);
	keys_of_list(list, &want);
	keys_of_report(file, &got);
	bad = keys_compare(what, &want, &got);
	cr_expect_eq(bad, 0, "%s report: %u key(s) differ from " FIX "%s "
		     "(listed on stderr)", what, bad, list);
}

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	char *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fstat(fileno(f), &st), 0);
	s = calloc(1, (size_t)st.st_size + 1);
	cr_assert_not_null(s);
	cr_assert_eq(fread(s, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	return s;
}

static void run_ok(const char *dir, char *const argv[], double limit_s)
{
	int rc = fr_test_run(dir, argv, limit_s);
	char *err;

	if (rc == 0)
		return;
	err = slurp(dir, "stderr");
	cr_assert_fail("feedrate %s: exit %d\n%s", argv[1], rc, err);
}

/* Each row of compare.rows starts some line of compare's text. */
static void check_compare_rows(const char *out)
{
	char line[256], want[300];
	unsigned bad = 0;
	FILE *f = fopen(FIX "compare.rows", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		snprintf(want, sizeof(want), "\n%s", line);
		if (strncmp(out, line, strlen(line)) && !strstr(out, want)) {
			fprintf(stderr, "compare: no row starts '%s'\n", line);
			bad++;
		}
	}
	fclose(f);
	cr_expect_eq(bad, 0, "compare: %u row(s) of " FIX "compare.rows "
		     "missing (listed on stderr)\n%s", bad, out);
}

FR_TEST(report_keys_slow, every_report_keeps_its_keys, .timeout = 240)
{
	char *dir = fr_test_tmpdir();
	char data[4096], rj[4096], ij[4096], cj[4096], ck[4096], sj[4096];
	char sk[4096], sb[4096], cmpage[4096], *s;
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "64",
			data, NULL };
	char *run[] = { (char *)fr_test_bin(), "run", "--duration", "1",
			"--warmup", "0", "--batch", "16", "--vcpus", "1",
			"--gpus", "1xa100", "--json", rj, data, NULL };
	char *io[] = { (char *)fr_test_bin(), "io", "--duration", "1",
		       "--json", ij, data, NULL };
	char *ckpt[] = { (char *)fr_test_bin(), "ckpt", "--size", "8M",
			 "--json", cj, ck, NULL };
	char *sweep[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "1",
			  "--cache", "warm", "--batch", "16", "--budget", "16s",
			  "--no-check", "--gpus", "1xa100", "--ckpt", cj,
			  "--price", "3", "--json", sj, data, NULL };
	/* a second sweep report with nothing measured long enough, a ckpt
	 * report beside the first */
	char *sweep_short[] = { (char *)fr_test_bin(), "sweep", "--vcpus", "1",
				"--cache", "warm", "--budget", "16s",
				"--no-check", "--gpus", "1xa100", "--json", sb,
				data, NULL };
	char *compare[] = { (char *)fr_test_bin(), "compare", "--price",
			    "a.json=3", "--price", "b.json=4", "--html", cmpage,
			    sj, sb, NULL };

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(rj, sizeof(rj), "%s/run.json", dir);
	snprintf(ij, sizeof(ij), "%s/io.json", dir);
	snprintf(ck, sizeof(ck), "%s/ck", dir);
	snprintf(sk, sizeof(sk), "%s/a", dir);
	cr_assert_eq(mkdir(sk, 0755), 0);
	snprintf(cj, sizeof(cj), "%s/a/ckpt.json", dir);
	snprintf(sj, sizeof(sj), "%s/a/a.json", dir);
	snprintf(sb, sizeof(sb), "%s/b.json", dir);
	snprintf(cmpage, sizeof(cmpage), "%s/compare.html", dir);

	run_ok(dir, gen, 120);
	run_ok(dir, run, 60);
	check_report("run", rj);
	run_ok(dir, io, 60);
	check_report("io", ij);
	run_ok(dir, ckpt, 60);
	check_report("ckpt", cj);
	run_ok(dir, sweep, 120);
	check_report("sweep", sj);
	run_ok(dir, sweep_short, 120);
	check_report("sweep_short", sb);
	run_ok(dir, compare, 30);
	s = slurp(dir, "stdout");
	check_compare_rows(s);
	free(s);
	s = slurp(dir, "compare.html");
	cr_expect_eq(strncmp(s, "<!DOCTYPE html>", 15), 0, "%.100s", s);
	cr_expect_not_null(strstr(s, "</html>"));
	cr_expect_null(strstr(strstr(s, "</html>") + 7, "<"),
		       "one page, nothing after </html>");
	free(s);
	fr_test_rmtree(dir);
}
