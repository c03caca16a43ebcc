/*
 * test_run_cli.c - `feedrate run` end to end through the real binary
 * ($FEEDRATE_BIN; skipped when unset): the JSON report's keys and values,
 * usage errors, sample errors by kind, --max-errors, the temporary default
 * dataset being removed, and SIGINT giving a partial report and exit 130.
 * Suites ending in _slow generate datasets and run measurements.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "aug_testlib.h"
#include "harness.h"
#include "report.h"

static int run_bin(const char *dir, char *const argv[])
{
	return fr_test_run(dir, argv, 300);
}

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	size_t len;
	char *s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	s = (char *)tl_read_file(path, &len);
	cr_assert_not_null(s, "%s unreadable", path);
	s[len] = '\0';
	return s;
}

/* `feedrate gen` into DIR/data; the dataset root is returned (malloc'd). */
static char *gen_dataset(const char *dir, const char *how, const char *n)
{
	char data[4096];
	char *argv[] = { (char *)fr_test_bin(), "gen", "-q", (char *)how, (char *)n,
			 data, NULL };
	int rc;

	snprintf(data, sizeof(data), "%s/data", dir);
	rc = run_bin(dir, argv);
	cr_assert_eq(rc, 0, "feedrate gen exited %d", rc);
	return strdup(data);
}

static uint64_t tree_files, tree_bytes;

static int count_entry(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode)) {
		tree_files++;
		tree_bytes += (uint64_t)st->st_size;
	}
	return 0;
}

static void count_tree(const char *root, uint64_t *files, uint64_t *bytes)
{
	tree_files = tree_bytes = 0;
	cr_assert_eq(nftw(root, count_entry, 16, FTW_PHYS), 0);
	*files = tree_files;
	*bytes = tree_bytes;
}

static json_t *load_json(const char *path)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);

	cr_assert_not_null(j, "%s: %s (line %d)", path, je.text, je.line);
	return j;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	cr_assert(json_is_number(v), "'%s' is not a number", key);
	return json_number_value(v);
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	cr_assert(json_is_string(v), "'%s' is not a string", key);
	return json_string_value(v);
}

/* Copy a fixture into the dataset under a class folder of its own. */
static void put_fixture(const char *root, const char *fixture,
			const char *name)
{
	char path[4096];
	size_t len;
	uint8_t *data = tl_fixture(fixture, &len);
	FILE *f;

	cr_assert_not_null(data, "fixture %s missing", fixture);
	snprintf(path, sizeof(path), "%s/train/n99999999", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/train/n99999999/%s", root, name);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	free(data);
}

/* ---- fast: no dataset ---- */

FR_TEST(run_cli, help_prints_the_options_and_exits_0)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--help", NULL };
	char *out;

	cr_assert_eq(run_bin(dir, argv), 0);
	out = slurp(dir, "stdout");
	cr_expect_not_null(strstr(out, "--gpus"));
	cr_expect_not_null(strstr(out, "--vcpus"));
	cr_expect_not_null(strstr(out, "--ram"));
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli, unknown_gpu_is_a_usage_error_that_lists_known_gpus)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "8xB999", "/nonexistent",
			 NULL };
	char *err;

	cr_assert_eq(run_bin(dir, argv), 2);
	err = slurp(dir, "stderr");
	cr_expect_not_null(strstr(err, "B999"), "%s", err);
	cr_expect_not_null(strstr(err, "A100"), "%s", err);
	cr_expect_not_null(strstr(err, "H100"), "%s", err);
	free(err);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli, bad_option_values_are_usage_errors)
{
	static const char *bad[][3] = {
		{ "--cache", "lukewarm", NULL }, { "--vcpus", "0", NULL },
		{ "--demand", "peak", NULL }, { "--gpu-sync", "some", NULL },
		{ "--ram", "12Q", NULL }, { "--backend", "null", NULL },
		{ "--gpu-rate", "-5", NULL }, { "--duration", "soon", NULL },
	};
	char *dir = fr_test_tmpdir();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", (char *)bad[i][0],
				 (char *)bad[i][1], dir, NULL };
		char *err;

		cr_expect_eq(run_bin(dir, argv), 2, "%s %s", bad[i][0],
			     bad[i][1]);
		err = slurp(dir, "stderr");
		cr_expect_not_null(strstr(err, "feedrate run:"), "%s", err);
		free(err);
	}
	fr_test_rmtree(dir);
}

FR_TEST(run_cli, missing_dataset_is_an_environment_failure)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--duration", "1",
			 "/nonexistent/feedrate-dataset", NULL };
	char *err;

	cr_assert_eq(run_bin(dir, argv), 5);
	err = slurp(dir, "stderr");
	cr_expect_not_null(strstr(err, "cannot list"), "%s", err);
	free(err);
	fr_test_rmtree(dir);
}

/* ---- slow: generated datasets, real measurements ---- */

FR_TEST(run_cli_slow, json_report_has_every_key_with_sane_values)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--size", "20M");
	char js[4096];
	/* a window of 480 samples, however long one vCPU of a loaded
	 * machine takes (its --duration only a bound): one read in ten is
	 * probed, and a measured hit ratio needs 20 probes; a window
	 * counts whole batches: batches of 32 */
	char *argv[] = { (char *)fr_test_bin(), "run", "--cache", "warm", "--gpus",
			 "2xa100", "--samples", "480", "--duration", "240",
			 "--warmup", "0.5", "--vcpus", "1", "--batch", "32",
			 "--json", js, data, NULL };
	const json_t *g, *ds, *st, *er;
	json_t *j;
	uint64_t files, bytes;
	const char *s;
	char *out;
	int rc;

	snprintf(js, sizeof(js), "%s/report.json", dir);
	rc = run_bin(dir, argv);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "verdict"), "%s", out);
	cr_expect_not_null(strstr(out, "2xA100"), "%s", out);
	j = load_json(js);
	count_tree(data, &files, &bytes);

	cr_expect_eq(num(j, "schema_version"), RPT_RUN_SCHEMA_VERSION);
	cr_expect_gt(num(j, "samples_per_s"), 0);
	cr_expect_geq(num(j, "samples"), 480);
	cr_expect(num(j, "au") > 0 && num(j, "au") <= 1.0 + 1e-9);
	s = str(j, "bottleneck");
	cr_expect(!strcmp(s, "cpu") || !strcmp(s, "storage") ||
		  !strcmp(s, "gpu"), "bottleneck %s", s);
	cr_expect_eq(num(j, "vcpus"), 1);
	cr_expect_eq(num(j, "workers"), 1);
	cr_expect_str_eq(str(j, "cache"), "warm");
	cr_expect(num(j, "hit_ratio") >= 0.9 && num(j, "hit_ratio") <= 1,
		  "warm hit ratio %f", num(j, "hit_ratio"));
	cr_expect(num(j, "fraction_resident") >= 0.9 &&
		  num(j, "fraction_resident") <= 1);
	cr_expect_geq(num(j, "cpu_outside_mask_s"), 0);
	g = json_object_get(j, "gpus");
	cr_assert(json_is_object(g));
	cr_expect_str_eq(str(g, "type"), "A100");
	cr_expect_eq(num(g, "count"), 2);
	cr_expect_float_eq(num(g, "demand_per_gpu"), 2470, 1e-9);
	cr_expect_not_null(strstr(str(g, "demand_source"),
				  "DeepLearningExamples"));
	/* 2 x A100: no 2-GPU figure in the source, so 2 x the 1-GPU one */
	cr_expect_float_eq(num(g, "demand_single"), 2470, 1e-9);
	cr_expect_float_eq(num(g, "demand_total"), 4940, 1e-9);
	cr_expect(json_is_false(json_object_get(g, "demand_multi_measured")));
	cr_expect_str_eq(str(g, "demand_basis"), "measured");
	cr_expect_not_null(strstr(out, "(no multi-GPU figure: count x "
				  "per-GPU)"), "%s", out);
	/* what one vCPU is here agrees with the SMT siblings seen */
	{
		const json_t *m = json_object_get(j, "machine");
		const json_t *tpc = json_object_get(m, "threads_per_core");

		s = str(m, "vcpu_kind");
		if (json_is_integer(tpc))
			cr_expect_str_eq(s, json_integer_value(tpc) > 1 ?
					 "thread" : "core");
		else
			cr_expect_str_eq(s, "unknown");
	}
	st = json_object_get(j, "stages");
	cr_assert(json_is_object(st));
	cr_expect_gt(num(st, "decode_s"), 0);
	cr_expect_gt(num(st, "resize_s"), 0);
	cr_expect_gt(num(st, "worker_cpu_s"), 0);
	cr_expect_geq(num(st, "reader_cpu_s"), 0);
	er = json_object_get(j, "errors");
	cr_assert(json_is_object(er));
	cr_expect_eq(num(er, "total"), 0);
	s = str(j, "backend");
	cr_expect(!strcmp(s, "uring") || !strcmp(s, "psync"), "%s", s);
	ds = json_object_get(j, "dataset");
	cr_assert(json_is_object(ds));
	cr_expect_eq((uint64_t)num(ds, "files"), files);
	cr_expect_eq((uint64_t)num(ds, "bytes"), bytes);
	cr_expect_geq(bytes, 20u << 20);
	cr_expect_eq(json_is_false(json_object_get(j, "partial")), true);
	json_decref(j);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, raw_feed_rate_with_gpus_0_has_no_au_and_a_capacity)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "64");
	/* batches of 8, no warm-up: enough batches for a verdict */
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "0", "--gpu-rate",
			 "10", "--epochs", "2", "--batch", "8", "--warmup", "0",
			 "--json", "-", data, NULL };
	json_t *j;
	json_error_t je;
	char *out;
	int rc;

	rc = run_bin(dir, argv);
	cr_assert_eq(rc, 0, "exit %d", rc);
	out = slurp(dir, "stdout");
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "stdout is not JSON: %s", je.text);
	cr_expect(json_is_null(json_object_get(j, "au")));
	cr_expect_eq(num(json_object_get(j, "gpus"), "count"), 0);
	cr_expect_eq(num(j, "epochs_done"), 2);
	cr_expect_str_eq(str(j, "cache"), "cold");
	/* 128 reads probe a few: unknown below 20 probes */
	if (!json_is_null(json_object_get(j, "hit_ratio")))
		cr_expect_lt(num(j, "hit_ratio"), 0.5);
	else
		cr_expect_not_null(strstr(str(j, "hit_ratio_source"),
					  "too few probes"));
	/* at 10 samples/s per GPU the feed keeps samples_per_s / 9 GPUs */
	cr_expect_eq(num(json_object_get(j, "gpus"), "fed_at_threshold"),
		     (double)(unsigned)(num(j, "samples_per_s") / 9.0 + 1e-9));
	json_decref(j);
	free(out);
	/* the human report went to stderr */
	out = slurp(dir, "stderr");
	cr_expect_not_null(strstr(out, "verdict"), "%s", out);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, eight_a100_are_judged_by_the_sources_8_gpu_figure)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "64");
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "8xA100",
			 "--epochs", "2", "--batch", "8", "--warmup", "0",
			 "--json", "-", data, NULL };
	const json_t *g;
	json_t *j;
	json_error_t je;
	char *out;
	int rc;

	rc = run_bin(dir, argv);
	cr_assert_eq(rc, 0, "exit %d", rc);
	out = slurp(dir, "stdout");
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "stdout is not JSON: %s", je.text);
	g = json_object_get(j, "gpus");
	/* 16,621 measured on 8 GPUs together, not 8 x 2,470 = 19,760 */
	cr_expect_float_eq(num(g, "demand_total"), 16621, 1e-9);
	cr_expect_float_eq(num(g, "demand_per_gpu"), 2077.625, 1e-9);
	cr_expect_float_eq(num(g, "demand_single"), 2470, 1e-9);
	cr_expect(json_is_true(json_object_get(g, "demand_multi_measured")));
	json_decref(j);
	free(out);
	out = slurp(dir, "stderr");
	cr_expect_not_null(strstr(out, "8 x A100: 16,621 samples/s, the "
				  "source's measured 8-GPU figure (2,078 per "
				  "GPU)"), "%s", out);
	cr_expect_not_null(strstr(out, "2,078 samples/s each"), "%s", out);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* --demand ceiling: the GPU fed by GPU-side decode (MLPerf Training's
 * per-GPU rate at 8), and the verdict line names the kind it used. */
FR_TEST(run_cli_slow, ceiling_demand_is_named_in_the_verdict)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "64");
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "8xH100",
			 "--demand", "ceiling", "--epochs", "2", "--batch",
			 "8", "--warmup", "0", "--json", "-", data, NULL };
	const json_t *g;
	json_t *j;
	json_error_t je;
	char *out;
	int rc;

	rc = run_bin(dir, argv);
	cr_assert_eq(rc, 0, "exit %d", rc);
	out = slurp(dir, "stdout");
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "stdout is not JSON: %s", je.text);
	g = json_object_get(j, "gpus");
	cr_expect_str_eq(str(g, "demand_kind"), "ceiling");
	cr_expect_float_eq(num(g, "demand_per_gpu"), 7160, 1e-9);
	cr_expect_float_eq(num(g, "demand_total"), 8 * 7160, 1e-9);
	cr_expect_not_null(strstr(str(j, "verdict"), "ceiling demand"), "%s",
			   str(j, "verdict"));
	cr_expect_not_null(strstr(str(g, "demand_source"), "MLPerf Training "
				  "v4.0"), "%s", str(g, "demand_source"));
	json_decref(j);
	free(out);
	out = slurp(dir, "stderr");
	cr_expect_not_null(strstr(out, "ceiling demand"), "%s", out);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, corrupt_files_are_counted_by_kind_and_exit_3)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "40");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "0", "--epochs", "1",
			 "--json", js, data, NULL };
	const json_t *kinds, *k;
	json_t *j;
	char *out;
	int rc;

	put_fixture(data, "corrupt_header.jpg", "bad_\xff_header.JPEG");
	put_fixture(data, "../png/gif_named.JPEG", "a_gif.JPEG");
	snprintf(js, sizeof(js), "%s/report.json", dir);
	rc = run_bin(dir, argv);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 3, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "corrupt"), "%s", out);
	/* the example path is escaped, not raw bytes */
	cr_expect_not_null(strstr(out, "bad_\\xff_header.JPEG"), "%s", out);
	j = load_json(js);
	kinds = json_object_get(json_object_get(j, "errors"), "kinds");
	cr_assert(json_is_object(kinds));
	k = json_object_get(kinds, "corrupt");
	cr_assert(json_is_object(k), "no corrupt kind");
	cr_expect_eq(num(k, "count"), 1);
	cr_expect_not_null(strstr(str(k, "example"), "bad_\\xff_header"));
	k = json_object_get(kinds, "not_format");
	cr_assert(json_is_object(k), "no not_format kind");
	cr_expect_eq(num(k, "count"), 1);
	cr_expect_eq(num(json_object_get(j, "errors"), "total"), 2);
	cr_expect_eq(num(json_object_get(j, "dataset"), "files"), 42);
	json_decref(j);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, max_errors_1_stops_the_run_with_exit_4)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "40");
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "0", "--max-errors",
			 "1", "--duration", "30", data, NULL };
	char *out, *err;
	int rc;

	put_fixture(data, "corrupt_header.jpg", "bad1.JPEG");
	put_fixture(data, "corrupt_header.jpg", "bad2.JPEG");
	rc = run_bin(dir, argv);
	out = slurp(dir, "stdout");
	err = slurp(dir, "stderr");
	cr_assert_eq(rc, 4, "exit %d\n%s\n%s", rc, out, err);
	cr_expect_not_null(strstr(err, "--max-errors 1"), "%s", err);
	cr_expect_not_null(strstr(out, "stopped by --max-errors"), "%s", out);
	cr_expect_not_null(strstr(out, "corrupt"), "%s", out);
	free(out);
	free(err);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, run_without_dataset_removes_its_temporary_dataset)
{
	char *dir = fr_test_tmpdir();
	char tmp[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--tmpdir", tmp, "--gen-size",
			 "4M", "--duration", "1", "--warmup", "0.2", NULL };
	uint64_t files, bytes;
	char *out;
	int rc;

	snprintf(tmp, sizeof(tmp), "%s/t", dir);
	cr_assert_eq(mkdir(tmp, 0755), 0);
	rc = run_bin(dir, argv);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "generated, removed after the run"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "feedrate-run."), "%s", out);
	count_tree(tmp, &files, &bytes);
	cr_expect_eq(files, 0, "%lu files left behind", (unsigned long)files);
	cr_expect_eq(rmdir(tmp), 0, "the temporary folder is still there");
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, tmpfs_is_refused_for_the_default_dataset)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--tmpdir", "/dev/shm",
			 "--gen-size", "4M", NULL };
	struct stat st;
	char *err;

	if (stat("/dev/shm", &st) || !S_ISDIR(st.st_mode))
		cr_skip_test("no /dev/shm here");
	cr_assert_eq(run_bin(dir, argv), 5);
	err = slurp(dir, "stderr");
	cr_expect_not_null(strstr(err, "tmpfs"), "%s", err);
	free(err);
	fr_test_rmtree(dir);
}

/*
 * A stand-in process that the run's test hook stops as PHASE begins
 * (FEEDRATE_TEST_SIGSTOP_AT=PHASE:PID, storage/watch.c), set for the
 * next command spawned: its stop is the test's cue, however long a busy
 * machine takes to get there.
 */
static pid_t cue_start(const char *phase)
{
	char hook[64];
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	cr_assert_gt(pid, 0);
	snprintf(hook, sizeof(hook), "%s:%d", phase, (int)pid);
	setenv("FEEDRATE_TEST_SIGSTOP_AT", hook, 1);
	return pid;
}

/* Whether the stand-in PID was stopped within LIMIT_S; it is ended. */
static bool cue_wait(pid_t pid, double limit_s)
{
	const struct timespec ms20 = { 0, 20000000L };
	bool seen = false;

	unsetenv("FEEDRATE_TEST_SIGSTOP_AT");
	for (double t = 0; t < limit_s && !seen; t += 0.02) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		seen = !waitid(P_PID, pid, &si, WSTOPPED | WNOHANG) &&
		       si.si_pid == pid;
		if (!seen)
			nanosleep(&ms20, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return seen;
}

FR_TEST(run_cli_slow, sigint_mid_run_exits_130_with_a_partial_report)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "64");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--duration", "120", "--warmup",
			 "0.3", "--json", js, data, NULL };
	struct timespec ts = { 1, 0 };
	json_t *j;
	char *out;
	pid_t pid, cue;
	int rc;

	snprintf(js, sizeof(js), "%s/report.json", dir);
	/* the signal a second into the measured window */
	cue = cue_start("window");
	pid = fr_test_spawn(dir, argv);
	cr_assert(cue_wait(cue, 120), "the window never began");
	nanosleep(&ts, NULL);
	cr_assert_eq(kill(pid, SIGINT), 0);
	rc = fr_test_wait(pid, 30);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 130, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "PARTIAL"), "%s", out);
	j = load_json(js);
	cr_expect(json_is_true(json_object_get(j, "partial")));
	cr_expect_str_eq(str(j, "stopped_by"), "signal");
	cr_expect_lt(num(j, "measured_s"), 60);
	json_decref(j);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* ---- options whose spelling users met ---- */

FR_TEST(run_cli, warmup_takes_any_zero_with_a_unit_and_no_sign)
{
	char *dir = fr_test_tmpdir();
	static const char *const ok[] = { "0", "0s", "0m", "0h", "0ms",
					  "0.0", "0min", "1.5s" };
	static const char *const bad[] = { "-0", "-1", "+0", "0x", ".", "" };

	/* accepted: the run gets as far as the missing dataset (exit 5) */
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", "--warmup",
				 (char *)ok[i], "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 5, "--warmup %s",
			     ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", "--warmup",
				 (char *)bad[i], "/nonexistent", NULL };

		cr_assert_eq(fr_test_run(dir, argv, 30), 2, "--warmup '%s'",
			     bad[i]);
	}
	fr_test_rmtree(dir);
}

FR_TEST(run_cli, samples_help_says_whole_batches)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--help", NULL };
	char *out;

	cr_assert_eq(fr_test_run(dir, argv, 30), 0);
	out = slurp(dir, "stdout");
	cr_assert_not_null(strstr(out, "at least N measured samples (whole"),
			   "%s", out);
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli, tmpdir_candidates_are_printed_escaped)
{
	char *dir = fr_test_tmpdir();
	char tmp[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--tmpdir", tmp,
			 "--gen-size", "4M", NULL };
	char *err;

	snprintf(tmp, sizeof(tmp), "%s/missing-\xff", dir);
	cr_assert_eq(fr_test_run(dir, argv, 30), 5);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "missing-\\xff"), "%s", err);
	cr_assert_null(strchr(err, '\xff'), "raw byte: %s", err);
	free(err);
	fr_test_rmtree(dir);
}

/* ---- slow: a run too short to judge, exit codes that compete ---- */

FR_TEST(run_cli_slow, run_too_short_says_no_verdict_end_to_end)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "30");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--duration", "1",
			 "--samples", "5", "--epochs", "1", "--json", js, data,
			 NULL };
	char *out;
	json_t *j;
	const char *src;

	snprintf(js, sizeof(js), "%s/r.json", dir);
	cr_assert_eq(run_bin(dir, argv), 0);
	out = slurp(dir, "stdout");
	cr_assert_not_null(strstr(out, "no verdict (run too short"), "%s",
			   out);
	free(out);
	j = load_json(js);
	cr_assert(json_is_string(json_object_get(j, "verdict_withheld")));
	cr_assert(!strncmp(json_string_value(json_object_get(j, "verdict")),
			   "no verdict (run too short", 25));
	/* a cold run of one batch probes a handful of reads: unknown */
	src = json_string_value(json_object_get(j, "hit_ratio_source"));
	if (json_integer_value(json_object_get(j, "samples")) < 1000) {
		cr_assert(json_is_null(json_object_get(j, "hit_ratio")),
			  "hit ratio from %s", src);
		cr_assert_not_null(strstr(src, "too few probes"), "%s", src);
	}
	json_decref(j);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(run_cli_slow, json_write_failure_wins_over_max_errors)
{
	char *dir = fr_test_tmpdir();
	char *data = gen_dataset(dir, "--files", "40");
	char js[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--gpus", "0",
			 "--max-errors", "1", "--duration", "30", "--json", js,
			 data, NULL };
	char *err;

	/* two corrupt files: --max-errors 1 stops the run (exit 4), and
	 * the JSON cannot be written (exit 5): /dev/full passes the check
	 * made before measuring, and every write to it fails (ENOSPC) */
	put_fixture(data, "corrupt_header.jpg", "bad1.JPEG");
	put_fixture(data, "corrupt_header.jpg", "bad2.JPEG");
	snprintf(js, sizeof(js), "/dev/full");
	cr_assert_eq(run_bin(dir, argv), 5);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "cannot write the JSON"), "%s", err);
	cr_assert_not_null(strstr(err, "--max-errors 1"), "%s", err);
	free(err);
	free(data);
	fr_test_rmtree(dir);
}
