/*
 * test_pipeline_slow.c - Python pipelines end to end through the real
 * binary ($FEEDRATE_BIN): a python:FILE loader whose batch sizes are
 * known is counted exactly; a FILE that raises, one that hangs (with a
 * child process of its own) and SIGINT during a run each end with the
 * right exit code and leave no process behind (the process table is
 * searched for the test's own folder, which every runner and worker has
 * on its command line); an interpreter without torch gives exit 5 and
 * its name; the DataLoader's workers run on the point's CPUs and in its
 * memory cgroup; a sweep of native and torch gives a verdict for each.
 * python:FILE tests need a python3 (/usr/bin/python3); torch tests need
 * torch and torchvision importable by it: each skips, saying why.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
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

#define PY "/usr/bin/python3"

static void need_python(void)
{
	if (access(PY, X_OK))
		cr_skip_test("no %s: the Python runner cannot start", PY);
}

/*
 * Torch tests run feedrate first and ask this only when it exits 5 (what
 * a missing module gives): the probe imports torch once more (seconds,
 * tens of seconds on a loaded machine), so it runs on the skip path only.
 * A run that exits 5 while the probe imports torch still fails its test.
 * On a skip, DIR is removed and DATA (malloc'd) freed.
 */
static void skip_unless_torch(int rc, char *dir, char *data)
{
	if (rc != 5)
		return;
	if (system(PY " -c 'import torch, torchvision, PIL' >/dev/null 2>&1")) {
		free(data);     /* a skip ends the test before its frees */
		fr_test_rmtree(dir);
		cr_skip_test("%s cannot import torch and torchvision "
			     "(Debian's python3-torch python3-torchvision "
			     "python3-pil; 'make deps')", PY);
	}
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

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static json_t *load_json(const char *dir, const char *name)
{
	char path[4096];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path, 0, &e);
	cr_assert_not_null(j, "%s: %s", path, e.text);
	return j;
}

/* `feedrate gen` of SIZE into DIR/data (returned, malloc'd). */
static char *gen_dataset(const char *dir, const char *size)
{
	char data[4096];
	char *argv[] = { (char *)fr_test_bin(), "gen", "-q", "--size",
			 (char *)size, data, NULL };

	snprintf(data, sizeof(data), "%s/data", dir);
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	return strdup(data);
}

/* Processes whose command line holds NEEDLE (a test's folder), other
 * than zombies. */
static unsigned procs_with(const char *needle)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[300], buf[8192], st[512];
		size_t len;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[len] = '\0';
		if (!strstr(buf, needle))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(st, sizeof(st), f) && strstr(st, ") Z "))
			n--;            /* a zombie is gone already */
		if (f)
			fclose(f);
		n++;
	}
	closedir(d);
	return n;
}

/* No process of the test is left: waits up to 10 s for stragglers. */
static void expect_no_process(const char *dir)
{
	unsigned n = 0;

	for (int i = 0; i < 100; i++) {
		n = procs_with(dir);
		if (!n)
			return;
		usleep(100 * 1000);
	}
	cr_expect_eq(n, 0, "%u processes with %s are still running", n, dir);
}

static const char known_py[] =
"import time\n"
"class Batch:\n"
"    def __init__(self, n): self.n = n\n"
"    def __len__(self): return self.n\n"
"class Shaped:\n"
"    def __init__(self, n): self.shape = (n, 3, 8, 8)\n"
"def make_loader(root, batch_size, num_workers, seed):\n"
"    class L:\n"
"        def __iter__(self):\n"
"            for i in range(10):\n"
"                time.sleep(0.01)\n"
"                yield Batch(7)\n"
"            for i in range(10):\n"
"                time.sleep(0.01)\n"
"                yield (Shaped(5), [0] * 5)\n"
"    return L()\n";

FR_TEST(pipeline_slow, a_python_file_loader_is_counted_exactly,
	.timeout = 300)
{
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--gpus", "0", "--warmup", "0",
			 "--epochs", "1", "--cache", "warm", "--json", NULL,
			 NULL, NULL };
	char pipe[4200], js[4200];
	const json_t *p;
	json_t *j;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "known.py", known_py);
	snprintf(pipe, sizeof(pipe), "python:%s/known.py", dir);
	snprintf(js, sizeof(js), "%s/r.json", dir);
	argv[3] = pipe;
	argv[15] = js;
	argv[16] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, slurp(dir, "stderr"));
	j = load_json(dir, "r.json");
	/* 10 batches of len() 7, 10 whose first tensor has 5 rows */
	cr_expect_eq(json_integer_value(json_object_get(j, "samples")), 120);
	cr_expect_eq(json_integer_value(json_object_get(j, "batches")), 20);
	cr_expect_eq(json_integer_value(json_object_get(j, "epochs_done")), 1);
	p = json_object_get(j, "pipeline");
	cr_expect_str_eq(json_string_value(json_object_get(p, "name")), pipe);
	cr_expect(json_is_object(json_object_get(p, "versions")));
	cr_expect(json_is_string(json_object_get(json_object_get(p,
		"versions"), "python")));
	json_decref(j);
	expect_no_process(dir);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* Modules a local user could plant beside the runner's file: each, if
 * imported, leaves a marker (and then fails, as a broken module would). */
static const char planted_py[] =
"import os\n"
"open(os.path.join(os.path.dirname(os.path.abspath(__file__)),\n"
"     'planted-' + __name__), 'w').close()\n"
"raise ImportError('planted module imported')\n";

FR_TEST(pipeline_slow, modules_planted_in_tmpdir_are_not_imported,
	.timeout = 300)
{
	static const char *const planted[] = { "json", "argparse",
					       "platform", "traceback" };
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--gpus", "0", "--warmup", "0",
			 "--epochs", "1", "--cache", "warm", NULL, NULL };
	char pipe[4200], tmp[4200], name[64], path[4300];
	DIR *d;
	struct dirent *e;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "known.py", known_py);
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	cr_assert_eq(mkdir(tmp, 0777), 0);
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		snprintf(name, sizeof(name), "%s.py", planted[i]);
		write_file(tmp, name, planted_py);
	}
	cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
	snprintf(pipe, sizeof(pipe), "python:%s/known.py", dir);
	argv[3] = pipe;
	argv[14] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		snprintf(path, sizeof(path), "%s/planted-%s", tmp, planted[i]);
		cr_expect_neq(access(path, F_OK), 0, "%s.py was imported",
			      planted[i]);
	}
	/* and the runner's private folder is gone */
	d = opendir(tmp);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		cr_expect_null(strstr(e->d_name, "feedrate-"), "%s left in %s",
			       e->d_name, tmp);
	closedir(d);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* A loader whose batch takes 0.05 s to make, in the main process. */
static const char paced_py[] =
"import time\n"
"def make_loader(root, batch_size, num_workers, seed):\n"
"    class L:\n"
"        def __iter__(self):\n"
"            while True:\n"
"                time.sleep(0.05)\n"
"                yield [0] * batch_size\n"
"    return L()\n";

/* The AU a run of the paced loader reports with GPUS emulated GPUs of
 * a step STEP_S (batch 8), synchronous or not. */
static double paced_au(const char *dir, const char *data, const char *gpus,
		       double step_s, const char *sync)
{
	char pipe[4200], js[4200], rate[32];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", pipe,
			 "--python", PY, "--gpus", (char *)gpus, "--gpu-rate",
			 rate, "--gpu-sync", (char *)sync, "--batch", "8",
			 "--duration", "3", "--cache", "warm", "--json", js,
			 (char *)data, NULL };
	char *out;
	json_t *j;
	double au;
	int rc;

	snprintf(pipe, sizeof(pipe), "python:%s/paced.py", dir);
	snprintf(js, sizeof(js), "%s/au.json", dir);
	snprintf(rate, sizeof(rate), "%g", 8 / step_s);
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
	free(out);
	j = load_json(dir, "au.json");
	au = json_number_value(json_object_get(j, "au"));
	json_decref(j);
	return au;
}

/*
 * Batches take 0.05 s each, fetched one after the other. The true AU is
 * step / (step + the GPU's whole idle time):
 *   none, 8 GPUs, 0.1 s steps: each GPU gets a batch every 8 x 0.05 s,
 *     AU 0.1 / 0.4 = 25 % (counting only its own fetch said 67 %);
 *   none, 1 GPU, 0.4 s steps: 0.4 / 0.45 = 89 %;
 *   all, 4 GPUs, 0.05 s steps: 0.05 / (0.05 + 4 x 0.05) = 20 %;
 *   all, 2 GPUs, 0.4 s steps: 0.4 / (0.4 + 2 x 0.05) = 80 %.
 * A slower machine only lowers each, so the check is the side of 50 %
 * with a margin, not a close value.
 */
FR_TEST(pipeline_slow, au_counts_a_gpus_whole_idle_time_in_both_sync_modes,
	.timeout = 300)
{
	char *dir, *data;
	double au;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "paced.py", paced_py);
	au = paced_au(dir, data, "8", 0.1, "none");
	cr_expect_lt(au, 0.40, "none, 8 GPUs: AU %.3f, true about 0.25", au);
	au = paced_au(dir, data, "1", 0.4, "none");
	cr_expect_gt(au, 0.60, "none, 1 GPU: AU %.3f, true about 0.89", au);
	au = paced_au(dir, data, "4", 0.05, "all");
	cr_expect_lt(au, 0.40, "all, 4 GPUs: AU %.3f, true about 0.20", au);
	au = paced_au(dir, data, "2", 0.4, "all");
	cr_expect_gt(au, 0.60, "all, 2 GPUs: AU %.3f, true about 0.80", au);
	free(data);
	fr_test_rmtree(dir);
}

/* A loader taking files=: one sample a file it was given. */
static const char files_py[] =
"def make_loader(root, batch_size, num_workers, seed, files=None):\n"
"    assert files is not None, 'no files= given'\n"
"    return [[0] * len(files)]\n";

FR_TEST(pipeline_slow, a_python_file_loader_taking_files_gets_the_list,
	.timeout = 300)
{
	char *dir, *data, *out;
	char pipe[4200], js[4200], list[4200], cmd[9000];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", pipe,
			 "--python", PY, "--gpus", "0", "--warmup", "0",
			 "--epochs", "1", "--cache", "warm", "--list", list,
			 "--json", js, NULL, NULL };
	json_t *j;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "files.py", files_py);
	snprintf(pipe, sizeof(pipe), "python:%s/files.py", dir);
	snprintf(list, sizeof(list), "%s/five.list", dir);
	snprintf(js, sizeof(js), "%s/r.json", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && find train -type f | head -n 5 "
		 "> '%s'", data, list);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	argv[18] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
	j = load_json(dir, "r.json");
	cr_expect_eq(json_integer_value(json_object_get(j, "samples")), 5,
		     "%s", out);
	json_decref(j);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

static const char raise_py[] =
"def make_loader(root, batch_size, num_workers, seed):\n"
"    class L:\n"
"        def __iter__(self):\n"
"            yield [0] * 4\n"
"            raise ValueError('the loader broke on purpose')\n"
"    return L()\n";

FR_TEST(pipeline_slow, a_file_that_raises_reports_its_traceback_and_exits_1,
	.timeout = 300)
{
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--duration", "5", "--cache", "warm",
			 NULL, NULL };
	char pipe[4200];
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "raise.py", raise_py);
	snprintf(pipe, sizeof(pipe), "python:%s/raise.py", dir);
	argv[3] = pipe;
	argv[10] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_expect_eq(rc, 1, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "ValueError: the loader broke on "
				  "purpose"), "%s", out);
	cr_expect_not_null(strstr(out, "Traceback"), "%s", out);
	free(out);
	out = slurp(dir, "stderr");
	cr_expect_not_null(strstr(out, "ValueError"), "%s", out);
	expect_no_process(dir);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* An exception whose message is huge and not ASCII: its JSON line spans
 * many reads, and the runner has exited before they are done. */
static const char raise_long_py[] =
"def make_loader(root, batch_size, num_workers, seed):\n"
"    raise ValueError('\\u00e9' * 100000 + ' END-OF-MESSAGE')\n";

FR_TEST(pipeline_slow, a_huge_exception_still_reports_its_last_words,
	.timeout = 300)
{
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--duration", "5", "--cache", "warm",
			 NULL, NULL };
	char pipe[4200];
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "raise_long.py", raise_long_py);
	snprintf(pipe, sizeof(pipe), "python:%s/raise_long.py", dir);
	argv[3] = pipe;
	argv[10] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_expect_eq(rc, 1, "exit %d\n%.2000s", rc, out);
	cr_expect_not_null(strstr(out, "raised"), "%.2000s", out);
	cr_expect_not_null(strstr(out, "END-OF-MESSAGE"), "%.2000s", out);
	expect_no_process(dir);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* Hangs after a child process of its own has started (like a loader's
 * worker): both must go. */
static const char hang_py[] =
"import os, time\n"
"def make_loader(root, batch_size, num_workers, seed):\n"
"    if os.fork() == 0:\n"
"        while True:\n"
"            time.sleep(1)\n"
"    while True:\n"
"        time.sleep(1)\n";

FR_TEST(pipeline_slow, a_file_that_hangs_is_killed_with_its_children,
	.timeout = 300)
{
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--runner-timeout", "3",
			 "--duration", "5", "--cache", "warm", NULL, NULL };
	char pipe[4200];
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "hang.py", hang_py);
	snprintf(pipe, sizeof(pipe), "python:%s/hang.py", dir);
	argv[3] = pipe;
	argv[12] = data;
	rc = fr_test_run(dir, argv, 200);
	out = slurp(dir, "stdout");
	cr_expect_eq(rc, 1, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "timeout"), "%s", out);
	expect_no_process(dir);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

static const char slow_py[] =
"import os, time\n"
"def make_loader(root, batch_size, num_workers, seed):\n"
"    if os.fork() == 0:\n"
"        while True:\n"
"            time.sleep(1)\n"
"    class L:\n"
"        def __iter__(self):\n"
"            while True:\n"
"                time.sleep(0.05)\n"
"                yield [0] * 8\n"
"    return L()\n";

/* SIG sent to a `run` of a Python FILE that forks a child of its own:
 * exit 128 + SIG with a report, and no process of the run is left. */
static void signal_ends_the_runner(int sig)
{
	char *dir, *data, *out;
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", NULL,
			 "--python", PY, "--duration", "120", "--warmup", "0",
			 "--cache", "warm", NULL, NULL };
	char pipe[4200];
	pid_t pid;
	int rc, i, seen;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	write_file(dir, "slow.py", slow_py);
	snprintf(pipe, sizeof(pipe), "python:%s/slow.py", dir);
	argv[3] = pipe;
	argv[12] = data;
	pid = fr_test_spawn(dir, argv);
	/* the runner and the FILE's child are up (seen in 3 polls in a row:
	 * a process forked on the way to an exec counts for a moment), then
	 * a few seconds */
	for (i = 0, seen = 0; i < 600 && seen < 3; i++) {
		seen = procs_with(dir) >= 4 ? seen + 1 : 0;
		usleep(100 * 1000);
	}
	cr_assert_eq(seen, 3, "the runner never started");
	sleep(3);
	cr_assert_eq(kill(pid, sig), 0);
	rc = fr_test_wait(pid, 60);
	out = slurp(dir, "stdout");
	cr_expect_eq(rc, 128 + sig, "exit %d\n%s", rc, out);
	cr_expect_not_null(strstr(out, "samples/s"), "%s", out);
	expect_no_process(dir);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

FR_TEST(pipeline_slow, sigint_ends_the_runner_and_its_children,
	.timeout = 300)
{
	signal_ends_the_runner(SIGINT);
}

FR_TEST(pipeline_slow, sigterm_ends_the_runner_and_its_children,
	.timeout = 300)
{
	signal_ends_the_runner(SIGTERM);
}

FR_TEST(pipeline_slow, an_interpreter_without_torch_exits_5_naming_it,
	.timeout = 120)
{
	char *dir, *err;
	char wrapper[4200];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", "torch",
			 "--python", wrapper, NULL };
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	/* the same interpreter without its site packages: no torch */
	snprintf(wrapper, sizeof(wrapper), "%s/python-nosite", dir);
	write_file(dir, "python-nosite", "#!/bin/sh\nexec " PY " -S \"$@\"\n");
	cr_assert_eq(chmod(wrapper, 0755), 0);
	rc = fr_test_run(dir, argv, 100);
	err = slurp(dir, "stderr");
	cr_expect_eq(rc, 5, "exit %d\n%s", rc, err);
	cr_expect_not_null(strstr(err, wrapper), "%s", err);
	cr_expect_not_null(strstr(err, "'torch'"), "%s", err);
	cr_expect_not_null(strstr(err, "python3-torch"), "%s", err);
	cr_expect_not_null(strstr(err, "--python"), "%s", err);
	free(err);
	fr_test_rmtree(dir);
}

FR_TEST(pipeline_slow, torch_workers_run_on_the_points_cpus_and_cgroup,
	.timeout = 300)
{
	char *dir, *data, *out;
	char js[4200];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", "torch",
			 "--python", PY, "--vcpus", "1", "--workers", "2",
			 "--ram", "16M", "--batch", "16", "--gpus", "0",
			 "--duration", "3", "--json", js, NULL, NULL };
	const json_t *p, *procs, *e;
	const char *cpus0 = NULL;
	unsigned workers = 0;
	bool limited;
	size_t i;
	json_t *j;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "8M");
	snprintf(js, sizeof(js), "%s/r.json", dir);
	argv[20] = data;
	rc = fr_test_run(dir, argv, 280);
	skip_unless_torch(rc, dir, data);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, slurp(dir, "stderr"));
	j = load_json(dir, "r.json");
	p = json_object_get(j, "pipeline");
	cr_expect_str_eq(json_string_value(json_object_get(p, "name")),
			 "torch");
	cr_expect_eq(json_integer_value(json_object_get(p, "workers")), 2);
	cr_expect(json_is_string(json_object_get(json_object_get(p,
		"versions"), "torch")));
	procs = json_object_get(p, "processes");
	cr_assert(json_array_size(procs) >= 3, "main + 2 workers: %zu",
		  json_array_size(procs));
	/* a cgroup limited the page cache (else it could not be made) */
	limited = json_object_get(json_object_get(j, "ram"),
				  "cgroup_limit_bytes") &&
		  json_is_integer(json_object_get(json_object_get(j, "ram"),
						  "cgroup_limit_bytes"));
	json_array_foreach(procs, i, e) {
		const char *cpus = json_string_value(json_object_get(e,
								     "cpus"));
		const char *cg = json_string_value(json_object_get(e,
								   "cgroup"));

		cr_assert_not_null(cpus);
		if (!cpus0)
			cpus0 = cpus;
		/* one CPU, the same for every process */
		cr_expect_str_eq(cpus, cpus0);
		cr_expect_null(strchr(cpus, '-'), "%s", cpus);
		cr_expect_null(strchr(cpus, ','), "%s", cpus);
		if (limited)
			cr_expect_not_null(strstr(cg, "feedrate-"),
					   "pid %lld in %s",
					   json_integer_value(json_object_get(
					   e, "pid")), cg);
		workers += !strcmp(json_string_value(json_object_get(e,
			"role")), "worker");
	}
	cr_expect_eq(workers, 2);
	cr_expect_gt(json_number_value(json_object_get(j, "samples_per_s")),
		     0);
	json_decref(j);
	expect_no_process(data);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* A --list that leaves a class folder empty: the torch pipeline reads the
 * list's files (ImageFolder would refuse the empty class). */
FR_TEST(pipeline_slow, torch_reads_a_list_that_leaves_a_class_empty,
	.timeout = 300)
{
	char *dir, *data, *out;
	char js[4200], list[4200], cmd[9000];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline", "torch",
			 "--python", PY, "--vcpus", "1", "--workers", "1",
			 "--batch", "8", "--gpus", "0", "--warmup", "0",
			 "--epochs", "1", "--cache", "warm", "--list", list,
			 "--json", js, NULL, NULL };
	json_t *j;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "2M");
	snprintf(list, sizeof(list), "%s/keep.list", dir);
	snprintf(js, sizeof(js), "%s/r.json", dir);
	/* the list: train/'s files; a second class folder left out */
	snprintf(cmd, sizeof(cmd), "cd '%s' && find train -type f > '%s' && "
		 "mkdir extra && cp \"$(find train -type f | head -n 1)\" "
		 "extra/", data, list);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	argv[24] = data;
	rc = fr_test_run(dir, argv, 280);
	skip_unless_torch(rc, dir, data);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, slurp(dir, "stderr"));
	j = load_json(dir, "r.json");
	/* gen's 2M: 24 files, all in train/ */
	cr_expect_eq(json_integer_value(json_object_get(j, "samples")), 24,
		     "%s", out);
	json_decref(j);
	expect_no_process(data);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}

/* torch first: native is measured first anyway, and torch's probe (its
 * interpreter, its versions) still reaches its own entry */
FR_TEST(pipeline_slow, a_sweep_of_native_and_torch_judges_each,
	.timeout = 400)
{
	char *dir, *data, *out;
	char js[4200];
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--pipeline",
			 "torch,native", "--python", PY, "--vcpus", "1",
			 "--cache", "warm", "--batch", "32", "--budget", "70s",
			 "--no-check", "--json", js, NULL, NULL };
	const json_t *by, *arr;
	json_t *j;
	int rc;

	need_python();
	dir = fr_test_tmpdir();
	data = gen_dataset(dir, "8M");
	snprintf(js, sizeof(js), "%s/s.json", dir);
	argv[17] = data;
	rc = fr_test_run(dir, argv, 380);
	skip_unless_torch(rc, dir, data);
	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, slurp(dir, "stderr"));
	cr_expect_not_null(strstr(out, "by pipeline"), "%s", out);
	cr_expect_not_null(strstr(out, "\npipeline torch"), "%s", out);
	j = load_json(dir, "s.json");
	by = json_object_get(json_object_get(j, "verdict"), "by_pipeline");
	cr_assert(json_is_object(by));
	for (int k = 0; k < 2; k++) {
		const json_t *v = json_object_get(by, k ? "torch" : "native");

		cr_assert(json_is_object(v), "by_pipeline.%s",
			  k ? "torch" : "native");
		cr_expect(json_is_string(json_object_get(v, "headline")));
		cr_expect(json_is_integer(json_object_get(v, "gpus_fed")),
			  "%s", out);
		cr_expect(json_is_number(json_object_get(v,
			"cpu_s_per_sample")), "%s", out);
	}
	arr = json_object_get(j, "pipelines");
	cr_expect_eq(json_array_size(arr), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(arr,
		0), "name")), "native");
	cr_expect_gt(json_array_size(json_object_get(json_array_get(arr, 1),
						     "points")), 0);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(arr,
		1), "name")), "torch");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(arr,
		1), "interpreter")), PY);
	cr_expect(json_is_string(json_object_get(json_object_get(
		json_array_get(arr, 1), "versions"), "torch")), "%s", out);
	json_decref(j);
	expect_no_process(data);
	free(out);
	free(data);
	fr_test_rmtree(dir);
}
