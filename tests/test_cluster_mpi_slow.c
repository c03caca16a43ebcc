/*
 * test_cluster_mpi_slow.c - feedrate under a real `mpirun` on this
 * machine: ranks as processes of one node (--oversubscribe), the cluster
 * report rank 0 writes, a rank killed, SIGINT on mpirun, a build without
 * MPI launched by mpirun. Skips, saying why, where Open MPI or the MPI
 * build ($FEEDRATE_MPI_BIN, which `make test` sets) is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "fixture_testlib.h"

static char mpirun[1024];      /* its path: the harness execs without PATH */

static const char *mpi_bin(void)
{
	const char *b = getenv("FEEDRATE_MPI_BIN");
	FILE *p;

	if (!b || !*b || access(b, X_OK))
		cr_skip_test("no MPI build: FEEDRATE_MPI_BIN unset (make test "
			     "sets it where Open MPI is installed: Debian "
			     "openmpi-bin libopenmpi-dev)");
	p = popen("command -v mpirun", "r");
	mpirun[0] = '\0';
	if (p) {
		if (!fgets(mpirun, sizeof(mpirun), p))
			mpirun[0] = '\0';
		pclose(p);
	}
	mpirun[strcspn(mpirun, "\n")] = '\0';
	if (!mpirun[0])
		cr_skip_test("mpirun not installed (Debian openmpi-bin)");
	return b;
}

/* A small ImageFolder dataset of N files under DIR/ds. */
static void gen_dataset(const char *dir, const char *extra, unsigned n)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "%s gen --quiet --files %u --seed 3 %s "
		 "%s/ds >/dev/null 2>&1", fr_test_bin(), n, extra, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static json_t *load_json(const char *dir, const char *name)
{
	char path[1024];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path, 0, &e);
	cr_assert_not_null(j, "%s: %s", path, e.text);
	return j;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	cr_assert(json_is_number(v), "%s is not a number", key);
	return json_number_value(v);
}

/* mpirun ARGS... (the mpirun options first), its exit code. */
#define MPIRUN(dir, limit, ...) \
	fr_test_run(dir, (char *const[]){ mpirun, "--allow-run-as-root", \
		"--oversubscribe", __VA_ARGS__, NULL }, limit)

/* Totals over ranks[] of J. */
static double ranks_sum(const json_t *j, const char *key, size_t *n)
{
	const json_t *ranks = json_object_get(j, "ranks"), *r;
	double s = 0;
	size_t i;

	cr_assert(json_is_array(ranks));
	*n = json_array_size(ranks);
	json_array_foreach(ranks, i, r)
		if (json_is_true(json_object_get(r, "reported")) &&
		    json_is_number(json_object_get(r, key)))
			s += json_number_value(json_object_get(r, key));
	return s;
}

FR_TEST(cluster_mpi_slow, two_ranks_total_is_the_sum_of_ranks)
{
	const char *bin = mpi_bin();
	char *dir = fr_test_tmpdir(), ds[1024], js[1024];
	const json_t *r, *nodes;
	json_t *j;
	size_t n, i;
	int rc;

	gen_dataset(dir, "", 40);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	snprintf(js, sizeof(js), "%s/c.json", dir);
	/* a window of samples, not 2 s: on a loaded machine a rank's 2 s
	 * could end before its first whole batch (samples/s 0) */
	rc = MPIRUN(dir, 240, "-np", "2", (char *)bin, "run", "--gpus", "0",
		    "--cache", "warm", "--batch", "32", "--samples", "256",
		    "--duration", "120", "--json", js, ds);
	cr_assert_eq(rc, 0, "mpirun exit %d", rc);
	j = load_json(dir, "c.json");
	cr_assert_str_eq(json_string_value(json_object_get(j, "command")),
			 "run");
	cr_assert_float_eq(num(j, "samples_per_s"),
			   ranks_sum(j, "samples_per_s", &n), 1e-6);
	cr_assert_eq(n, 2);
	cr_assert_float_eq(num(j, "bytes_per_s"),
			   ranks_sum(j, "bytes_per_s", &n), 1e-3);
	json_array_foreach(json_object_get(j, "ranks"), i, r) {
		cr_assert_eq(num(r, "rank"), (double)i);
		cr_assert(json_string_length(json_object_get(r, "host")) > 0);
		cr_assert_gt(num(r, "samples_per_s"), 0, "rank %zu", i);
	}
	/* one host: one node holding both ranks */
	nodes = json_object_get(j, "nodes");
	cr_assert_eq(json_array_size(nodes), 1);
	cr_assert_eq(num(json_array_get(nodes, 0), "ranks"), 2);
	cr_assert_float_eq(num(json_array_get(nodes, 0), "samples_per_s"),
			   num(j, "samples_per_s"), 1e-6);
	json_decref(j);
	fr_test_rmtree(dir);
}

/* Every sample once per epoch across ranks: the digests added up. */
static void once_per_epoch(const char *np, const char *gen_extra,
			   unsigned files)
{
	const char *bin = mpi_bin();
	char *dir = fr_test_tmpdir(), ds[1024], js[1024];
	const json_t *once;
	json_t *j;
	size_t n;
	int rc;

	gen_dataset(dir, gen_extra, files);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	snprintf(js, sizeof(js), "%s/c.json", dir);
	rc = MPIRUN(dir, 240, "-np", (char *)np, (char *)bin, "run", "--gpus",
		    "0", "--cache", "warm", "--epochs", "2", "--batch", "4",
		    "--json", js, ds);
	cr_assert_eq(rc, 0, "mpirun exit %d", rc);
	j = load_json(dir, "c.json");
	once = json_object_get(j, "exactly_once");
	cr_assert(json_is_true(json_object_get(once, "checked")), "%s",
		  json_string_value(json_object_get(once, "how")));
	cr_assert(json_is_true(json_object_get(once, "ok")), "%s",
		  json_string_value(json_object_get(once, "how")));
	cr_assert_eq(num(once, "epochs"), 2);
	ranks_sum(j, "samples_per_s", &n);
	cr_assert_eq(n, (size_t)atoi(np));
	json_decref(j);
	fr_test_rmtree(dir);
}

FR_TEST(cluster_mpi_slow, three_ranks_read_every_sample_once_per_epoch)
{
	once_per_epoch("3", "", 31);    /* 31 = 3 x 10 + 1: padded */
}

FR_TEST(cluster_mpi_slow, shards_split_by_rank_read_every_record_once)
{
	once_per_epoch("2", "--format wds --shard-size 300K", 40);
}

/* A child of PARENT (the pinned child a rank forks once every rank is
 * past the gate), 0 when none (yet). */
static pid_t child_of(pid_t parent)
{
	char path[64];
	struct dirent *d;
	pid_t found = 0;
	DIR *p = opendir("/proc");

	while (p && !found && (d = readdir(p))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		int ppid = 0;
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%*d %*s %*c %d", &ppid) == 1 && ppid == parent)
			found = pid;
		fclose(f);
	}
	if (p)
		closedir(p);
	return found;
}

/* The pid of RANK among LAUNCHER's children, 0 when not (yet). */
static pid_t rank_pid(pid_t launcher, int rank)
{
	char want[64], path[64], buf[8192];
	struct dirent *d;
	pid_t found = 0;
	DIR *p = opendir("/proc");

	snprintf(want, sizeof(want), "OMPI_COMM_WORLD_RANK=%d", rank);
	while (p && !found && (d = readdir(p))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		FILE *f;
		size_t len;
		int ppid = 0;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%*d %*s %*c %d", &ppid) != 1)
			ppid = 0;
		fclose(f);
		if (ppid != launcher)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
			buf[len] = '\0';
			if (!strcmp(buf + i, want))
				found = pid;
		}
	}
	if (p)
		closedir(p);
	return found;
}

/* Is PID still running (not gone, not a zombie)? */
static bool running(pid_t pid)
{
	char path[64], st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d %*s %c", &st) != 1)
		st = 0;
	fclose(f);
	return st && st != 'Z' && st != 'X';
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/*
 * mpirun -np NP (with RECOVERY: --enable-recovery) of `run` for DURATION
 * on a fresh dataset; once rank WHO has run for AFTER_S seconds, SIG to
 * it (WHO < 0: to mpirun). Returns rank 0's JSON report; *PEER gets the
 * pid of rank 1.
 */
static json_t *run_and_signal(char *dir, const char *np, bool recovery,
			      const char *duration, int who, double after_s,
			      int sig, pid_t *peer)
{
	const char *bin = mpi_bin();
	char ds[1024], js[1024];
	pid_t pid, target = 0;
	char *argv[32];
	int a = 0;

	gen_dataset(dir, "", 40);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	snprintf(js, sizeof(js), "%s/c.json", dir);
	argv[a++] = mpirun;
	argv[a++] = "--allow-run-as-root";
	argv[a++] = "--oversubscribe";
	if (recovery) {
		argv[a++] = "--enable-recovery";
	} else {
		/* after a rank's death mpirun sends the others SIGTERM this
		 * long after its SIGCONT, and SIGKILL about as long after
		 * that; its default, 1 s, is too short to be sure of on a
		 * loaded machine for rank 0's report (written about 0.5 s
		 * after the SIGTERM here: the wait for the dead rank's
		 * result is cut by the stop) */
		argv[a++] = "--mca";
		argv[a++] = "odls_base_sigkill_timeout";
		argv[a++] = "5";
	}
	argv[a++] = "-np";
	argv[a++] = (char *)np;
	argv[a++] = (char *)bin;
	argv[a++] = "run";
	argv[a++] = "--gpus";
	argv[a++] = "0";
	argv[a++] = "--cache";
	argv[a++] = "warm";
	argv[a++] = "--duration";
	argv[a++] = (char *)duration;
	argv[a++] = "--mpi-timeout";
	argv[a++] = "10";
	argv[a++] = "--json";
	argv[a++] = js;
	argv[a++] = ds;
	argv[a] = NULL;
	pid = fr_test_spawn(dir, argv);
	for (int i = 0; i < 200 && !target; i++) {
		sleep_s(0.05);
		target = rank_pid(pid, who < 0 ? 1 : who);
	}
	cr_assert_gt(target, 0, "rank %d never started", who < 0 ? 1 : who);
	*peer = rank_pid(pid, 1);
	/* past the gate (its measuring child forked), then into the
	 * window, however loaded the machine is */
	for (int i = 0; i < 2400 && !child_of(target); i++)
		sleep_s(0.05);
	cr_assert_gt(child_of(target), 0, "rank %d never passed the gate",
		     who < 0 ? 1 : who);
	sleep_s(after_s);
	kill(who < 0 ? pid : target, sig);
	fr_test_wait(pid, 240);
	return load_json(dir, "c.json");
}

/*
 * The cluster's total after mpirun's stop signal: the ranks' sum, above 0.
 * On a busy machine a rank's measuring child can be slower than
 * LDR_CHILD_STOP_S to send its partial result after the signal, and is
 * then killed, as designed: where no rank measured anything, each rank
 * that reported must say its child was killed.
 */
static void stopped_total(const json_t *j)
{
	const json_t *r;
	size_t i, n;

	if (json_is_number(json_object_get(j, "samples_per_s"))) {
		cr_assert_float_eq(num(j, "samples_per_s"),
				   ranks_sum(j, "samples_per_s", &n), 1e-6);
		cr_assert_gt(num(j, "samples_per_s"), 0);
		return;
	}
	json_array_foreach(json_object_get(j, "ranks"), i, r) {
		const char *why = json_string_value(json_object_get(r,
							"fail_text"));

		if (!json_is_true(json_object_get(r, "reported")))
			continue;
		cr_assert(why && strstr(why, "killed by signal 9"), "rank %zu "
			  "measured nothing and says: %s", i, why ? why :
			  "(nothing)");
	}
}

/* Rank 2 of 3 killed in its window: named, the others' total without it. */
static void killed_rank(bool recovery)
{
	char *dir = fr_test_tmpdir();
	const json_t *lost;
	json_t *j;
	pid_t peer;
	size_t n;

	/* the window opens 5 s after the gate (warm-up 2 s + 3 s) */
	j = run_and_signal(dir, "3", recovery, "10", 2, 7, SIGKILL, &peer);
	lost = json_array_get(json_object_get(j, "ranks"), 2);
	cr_assert(json_is_false(json_object_get(lost, "reported")));
	cr_assert(strstr(json_string_value(json_object_get(lost, "lost_why")),
			 "rank 2"), "%s", json_string_value(
			 json_object_get(lost, "lost_why")));
	ranks_sum(j, "samples_per_s", &n);
	cr_assert_eq(n, 3);
	/* with recovery no signal comes: the others finish their windows */
	cr_assert(!recovery || json_is_number(json_object_get(j,
		  "samples_per_s")), "no total with recovery");
	stopped_total(j);
	cr_assert(json_is_true(json_object_get(j, "partial")));
	json_decref(j);
	fr_test_rmtree(dir);
}

FR_TEST(cluster_mpi_slow, rank_killed_mid_run_is_named_and_others_report)
{
	killed_rank(true);      /* the others finish their windows */
}

FR_TEST(cluster_mpi_slow, rank_killed_without_recovery_still_reports)
{
	killed_rank(false);     /* mpirun ends the others: partial */
}

FR_TEST(cluster_mpi_slow, sigint_on_mpirun_ends_all_with_a_partial_report)
{
	char *dir = fr_test_tmpdir();
	pid_t r1;
	json_t *j;
	size_t n;

	j = run_and_signal(dir, "2", false, "120", -1, 7, SIGINT, &r1);
	cr_assert(json_is_true(json_object_get(j, "partial")));
	cr_assert(json_is_string(json_object_get(j, "signal")));
	ranks_sum(j, "samples_per_s", &n);
	cr_assert_eq(n, 2);
	stopped_total(j);
	/* nothing left running */
	sleep_s(0.5);
	cr_assert(r1 > 0 && !running(r1), "rank 1 outlived mpirun");
	json_decref(j);
	fr_test_rmtree(dir);
}

FR_TEST(cluster_mpi_slow, io_sets_the_ranks_together_against_alone)
{
	const char *bin = mpi_bin();
	char *dir = fr_test_tmpdir(), ds[1024], js[1024];
	const json_t *st;
	json_t *j;
	size_t n;
	int rc;

	gen_dataset(dir, "", 40);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	snprintf(js, sizeof(js), "%s/io.json", dir);
	rc = MPIRUN(dir, 240, "-np", "2", (char *)bin, "io", "--cache",
		    "cold", "--duration", "1", "--json", js, ds);
	cr_assert_eq(rc, 0, "mpirun exit %d", rc);
	j = load_json(dir, "io.json");
	cr_assert_str_eq(json_string_value(json_object_get(j, "command")),
			 "io");
	cr_assert_float_eq(num(j, "bytes_per_s"),
			   ranks_sum(j, "bytes_per_s", &n), 1e-3);
	cr_assert_eq(n, 2);
	st = json_object_get(j, "storage");
	cr_assert_gt(num(st, "solo_sum_bytes_per_s"), 0);
	cr_assert_float_eq(num(st, "solo_sum_bytes_per_s"),
			   ranks_sum(j, "solo_bytes_per_s", &n), 1e-3);
	json_decref(j);
	fr_test_rmtree(dir);
}

FR_TEST(cluster_mpi_slow, a_build_without_mpi_under_mpirun_says_so)
{
	char *dir = fr_test_tmpdir(), path[1024], buf[4096] = "";
	FILE *f;
	int rc;

	mpi_bin();                      /* mpirun is there */
	rc = MPIRUN(dir, 120, "-np", "2", (char *)fr_test_bin(), "run",
		    "--gpus", "0", dir);
	cr_assert_neq(rc, 0);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	cr_assert(strstr(buf, "make MPI=1"), "%s", buf);
	fr_test_rmtree(dir);
}

FR_TEST(cluster_mpi_slow, sweep_varies_the_ranks_and_reports_the_scaling)
{
	const char *bin = mpi_bin();
	char *dir = fr_test_tmpdir(), ds[1024], js[1024];
	const json_t *pts, *p;
	json_t *j;
	size_t i;
	int rc;

	gen_dataset(dir, "", 40);
	snprintf(ds, sizeof(ds), "%s/ds", dir);
	snprintf(js, sizeof(js), "%s/sw.json", dir);
	rc = MPIRUN(dir, 280, "-np", "3", (char *)bin, "sweep", "--gpus", "1",
		    "--cache", "warm", "--vcpus", "1", "--budget", "30",
		    "--json", js, ds);
	cr_assert_eq(rc, 0, "mpirun exit %d", rc);
	j = load_json(dir, "sw.json");
	cr_assert_str_eq(json_string_value(json_object_get(j, "schema")),
			 "feedrate.cluster_sweep");
	/* 1, 2, then all 3 ranks */
	pts = json_object_get(j, "points");
	cr_assert_eq(json_array_size(pts), 3);
	json_array_foreach(pts, i, p) {
		const json_t *c = json_object_get(p, "cluster");
		size_t n;

		cr_assert_eq(num(p, "ranks"), i < 2 ? (double)(i + 1) : 3.0);
		cr_assert_eq(json_array_size(json_object_get(c, "ranks")),
			     (size_t)num(p, "ranks"));
		cr_assert_float_eq(num(p, "samples_per_s"),
				   ranks_sum(c, "samples_per_s", &n), 1e-6);
		cr_assert_gt(num(p, "samples_per_s"), 0);
	}
	cr_assert_float_eq(num(json_array_get(pts, 0), "efficiency"), 1.0,
			   1e-9);
	cr_assert_eq(json_array_size(json_object_get(j, "series")), 1);
	json_decref(j);
	fr_test_rmtree(dir);
}

/* ---- one dataset on shared storage, read by 1 and 3 ranks ---- */

/* The dataset at PATH read cold by 1 and 3 ranks: io (the ranks together
 * against each alone) and run; totals are the ranks' sums. (Two ranks
 * read the s3fs fixture in every mpirun stall test below.) */
static void shared_read_by_ranks(const char *path)
{
	const char *bin = mpi_bin();
	static const char *const nps[] = { "1", "3" };
	char *dir = fr_test_tmpdir(), js[1024];

	for (size_t i = 0; i < 2; i++) {
		const json_t *st;
		json_t *j;
		size_t n;
		int rc;

		snprintf(js, sizeof(js), "%s/io%s.json", dir, nps[i]);
		rc = MPIRUN(dir, 240, "-np", (char *)nps[i], (char *)bin, "io",
			    "--cache", "cold", "--duration", "2", "--solo",
			    "1", "--json", js, (char *)path);
		cr_assert(rc == 0 || rc == 3, "io -np %s: exit %d", nps[i],
			  rc);
		j = load_json(dir, strrchr(js, '/') + 1);
		cr_assert_float_eq(num(j, "bytes_per_s"),
				   ranks_sum(j, "bytes_per_s", &n), 1e-3);
		cr_assert_eq(n, (size_t)atoi(nps[i]));
		cr_assert_gt(num(j, "bytes_per_s"), 0);
		st = json_object_get(j, "storage");
		cr_assert_gt(num(st, "solo_sum_bytes_per_s"), 0,
			     "-np %s: no read alone", nps[i]);
		json_decref(j);

		snprintf(js, sizeof(js), "%s/run%s.json", dir, nps[i]);
		/* batches of 32: a window counts whole batches, and a rank
		 * reading ~85 samples/s through s3fs completes one batch
		 * of the default 256 in 3 s, or none */
		rc = MPIRUN(dir, 240, "-np", (char *)nps[i], (char *)bin,
			    "run", "--gpus", "0", "--cache", "cold",
			    "--duration", "3", "--solo", "1", "--batch", "32",
			    "--json", js, (char *)path);
		cr_assert(rc == 0 || rc == 3, "run -np %s: exit %d", nps[i],
			  rc);
		j = load_json(dir, strrchr(js, '/') + 1);
		cr_assert_float_eq(num(j, "samples_per_s"),
				   ranks_sum(j, "samples_per_s", &n), 1e-6);
		cr_assert_eq(n, (size_t)atoi(nps[i]));
		cr_assert_gt(num(j, "samples_per_s"), 0,
			     "run -np %s: no samples", nps[i]);
		st = json_object_get(j, "storage");
		cr_assert_gt(num(st, "solo_sum_bytes_per_s"), 0,
			     "run -np %s: no read alone", nps[i]);
		json_decref(j);
	}
	fr_test_rmtree(dir);
}

/* Fixture KIND's dataset (the script's KEY) read by 1 and 3 ranks. */
static void shared_fixture(const char *kind, const char *key)
{
	char path[PATH_MAX], *out;
	int fd = -1;

	mpi_bin();
	out = fixture_start_locked(kind, &fd);
	fixture_env(out, key, path, sizeof(path));
	free(out);
	cr_assert(path[0], "no %s in the script's output", key);
	shared_read_by_ranks(path);
	if (fd >= 0)
		close(fd);
}

FR_TEST(cluster_mpi_slow, s3fs_dataset_read_by_1_and_3_ranks)
{
	shared_fixture("s3", "FIXTURE_S3");
}

FR_TEST(cluster_mpi_slow, nfs_dataset_read_by_1_and_3_ranks)
{
	shared_fixture("nfs", "FIXTURE_NFS");
}

/* Where the kernel has no NFS: NFSv4 from nfs-ganesha through a FUSE
 * client on libnfs (tests/storage_fixtures/nfsfuse.c). */
FR_TEST(cluster_mpi_slow, user_space_nfs_dataset_read_by_1_and_3_ranks)
{
	shared_fixture("unfs", "FIXTURE_UNFS");
}

/* ---- a rank whose storage stalls ---- */

static pid_t mpi_stopped;       /* the stopped server, resumed at the end */
static int mpi_lock = -1;

static void mpi_stall_teardown(void)
{
	if (mpi_stopped > 0)
		kill(mpi_stopped, SIGCONT);
	mpi_stopped = 0;
	if (mpi_lock >= 0)
		close(mpi_lock);
	mpi_lock = -1;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The ranks of RANKS (a report's "ranks" array) named `lost: STALLED`, a
 * bit each (bit K: rank K), each printed; *WANTED is set when one's words
 * hold WANT.
 */
static unsigned stalled_named(const json_t *ranks, const char *cmd,
			      const char *phase, const char *want,
			      bool *wanted)
{
	unsigned named = 0;
	const json_t *r;
	size_t i;

	json_array_foreach(ranks, i, r) {
		const char *why = json_string_value(json_object_get(r,
			json_is_true(json_object_get(r, "reported")) ?
			"fail_text" : "lost_why"));

		if (!why || !strstr(why, "lost: STALLED"))
			continue;
		named |= 1u << (i < 31 ? i : 31);
		*wanted = *wanted || strstr(why, want) != NULL;
		printf("[stall] mpirun -np 2 %s, stopped at the %s, rank %zu: "
		       "%s\n", cmd, phase, i, why);
	}
	return named;
}

/*
 * mpirun -np 2 feedrate CMD ARGS... on the s3fs fixture, its S3 server
 * stopped as PHASE begins on the first rank that reaches it (feedrate's
 * test hook, storage/watch.c), with --stall-timeout 5s. Rank 0's report
 * must name every rank whose storage stalled `lost: STALLED: ...`, the
 * launch must end with rank 0's status for a rank lost (5), and no
 * process of the run may be left but one the kernel holds. WANT: the
 * words of the phase one rank's stall must name ("during the listing"):
 * the first rank to reach it, whose reads the stop caught there.
 * STALLED_MIN: how many ranks at least must be named so (in the run's
 * ranks, or in a sweep's points); SCHEMA: the report's schema
 * (NULL: not checked). The time from the stop to
 * mpirun's end is printed, not asserted (a shared machine); a hang guard
 * fails a launch that never ends.
 */
static void mpi_stall_case(const char *cmd, const char *phase,
			   const char *want, int stalled_min,
			   const char *schema, const char *const *args)
{
	const char *bin = mpi_bin();
	char *dir = fr_test_tmpdir(), *env, data[PATH_MAX], spid[32];
	char js[1024], hook[96], *argv[48], text[16384] = "", out[1100];
	double t_start, t_stop = 0, t_end;
	const json_t *r;
	pid_t pid, server;
	int a = 0, status = 0, stalled = 0;
	unsigned named;
	bool wanted = false;
	json_t *j;
	size_t i;
	FILE *f;

	env = fixture_start_locked("s3", &mpi_lock);
	fixture_env(env, "FIXTURE_S3", data, sizeof(data));
	fixture_env(env, "FIXTURE_S3_SERVER_PID", spid, sizeof(spid));
	free(env);
	cr_assert(data[0] && spid[0], "fixtures.sh gave no s3 dataset/pid");
	server = (pid_t)atoi(spid);
	snprintf(js, sizeof(js), "%s/stall-mpi-%s-%s.json", dir, cmd, phase);
	for (char *c = strrchr(js, '/'); *c; c++)
		if (*c == ' ')
			*c = '-';       /* "read alone" */
	snprintf(hook, sizeof(hook), "FEEDRATE_TEST_SIGSTOP_AT=%s:%d", phase,
		 (int)server);
	argv[a++] = mpirun;
	argv[a++] = "--allow-run-as-root";
	argv[a++] = "--oversubscribe";
	/* mpirun's own SIGTERM-to-SIGKILL wait: short, the run's ends
	 * are feedrate's own */
	argv[a++] = "--mca";
	argv[a++] = "odls_base_sigkill_timeout";
	argv[a++] = "5";
	argv[a++] = "-x";
	argv[a++] = hook;
	argv[a++] = "-np";
	argv[a++] = "2";
	argv[a++] = (char *)bin;
	argv[a++] = (char *)cmd;
	for (int k = 0; args[k]; k++)
		argv[a++] = (char *)args[k];
	argv[a++] = "--stall-timeout";
	argv[a++] = "5s";
	argv[a++] = "--json";
	argv[a++] = js;
	argv[a++] = data;
	argv[a] = NULL;
	t_start = mono_s();
	pid = fr_test_spawn(dir, argv);
	for (;;) {
		const struct timespec ms20 = { 0, 20000000L };

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (!t_stop && fixture_proc_state(server, NULL, 0) == 'T') {
			t_stop = mono_s();
			mpi_stopped = server;
		}
		if (mono_s() - t_start > 240) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("mpirun did not end in 240 s (server "
				       "%s)", t_stop ? "stopped" :
				       "never stopped");
		}
		nanosleep(&ms20, NULL);
	}
	t_end = mono_s();
	snprintf(out, sizeof(out), "%s/stdout", dir);
	f = fopen(out, "re");
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
		fclose(f);
	}
	cr_assert(t_stop > 0, "the %s never began:\n%s", phase, text);
	/* rank 0's status for a rank lost or failed, a stalled one
	 * included (README, "Exit status"); mpirun passes it on */
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 5,
		  "mpirun: status 0x%x, not exit 5 (a rank lost):\n%s",
		  status, text);
	j = load_json(dir, strrchr(js, '/') + 1);
	if (schema)
		cr_expect_str_eq(json_string_value(json_object_get(j,
				 "schema")) ?: "", schema, "not the report "
				 "of a %s:\n%s", cmd, text);
	named = stalled_named(json_object_get(j, "ranks"), cmd, phase, want,
			      &wanted);
	/* a sweep's report: each point its ranks */
	json_array_foreach(json_object_get(j, "points"), i, r)
		named |= stalled_named(json_object_get(json_object_get(r,
				       "cluster"), "ranks"), cmd, phase, want,
				       &wanted);
	/* the stop comes as the first rank reaches PHASE, and that rank
	 * names it; on a busy machine another (rank 0 too) may be behind,
	 * in an earlier phase */
	cr_expect(wanted, "no rank stalled %s:\n%s", want, text);
	stalled = __builtin_popcount(named);
	cr_expect_geq(stalled, stalled_min, "%d rank(s) lost to STALLED "
		      "storage, not %d:\n%s", stalled, stalled_min, text);
	cr_expect(json_is_true(json_object_get(j, "partial")),
		  "the report is not partial:\n%s", text);
	cr_expect(strstr(text, "STALLED") != NULL, "rank 0's text says no "
		  "STALLED:\n%s", text);
	cr_expect(strstr(text, want) != NULL, "rank 0's text has no \"%s\":"
		  "\n%s", want, text);
	printf("[stall] mpirun -np 2 %s on s3, server stopped at the %s: "
	       "ended %.1f s after the stop (exit %d), %d rank(s) lost: "
	       "STALLED\n", cmd, phase, t_end - t_stop, WEXITSTATUS(status),
	       stalled);
	json_decref(j);
	/* what is left of the run: only what the kernel holds */
	fixture_leftovers_check(js, server);
	mpi_stopped = 0;
	fr_test_rmtree(dir);
}

/* Each rank's storage stalls in its measurement child (the window): the
 * rank's thread is free, and sends its record. */
FR_TEST(cluster_mpi_slow, stalled_rank_is_reported_lost_to_its_storage,
	.fini = mpi_stall_teardown)
{
	/* no read alone before the window: the stop comes in the window,
	 * in each rank's measurement child */
	static const char *const args[] = { "--gpus", "1xA100", "--duration",
		"20", "--mpi-timeout", "10", "--solo", "0", NULL };

	mpi_stall_case("run", "window", "during the window", 1, NULL, args);
}

/* Every rank's own thread stuck in the kernel in its listing: the
 * ranks' watchdogs speak for them, rank 0's writes the report. */
FR_TEST(cluster_mpi_slow, run_ranks_stuck_in_the_listing_are_reported_lost,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--gpus", "1xA100", "--duration",
		"10", "--batch", "32", "--mpi-timeout", "10", NULL };

	mpi_stall_case("run", "listing", "during the listing", 1, NULL, args);
}

/* Rank 0 stuck in its read alone (cold, --solo), its eviction first:
 * the others, idle, are named as not measured. */
FR_TEST(cluster_mpi_slow, run_rank_stuck_in_its_read_alone_is_reported_lost,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--gpus", "1xA100", "--cache",
		"cold", "--duration", "10", "--batch", "32", "--mpi-timeout",
		"10", NULL };

	mpi_stall_case("run", "read alone", "during the read alone", 1,
		       NULL, args);
}

/* io's readers are threads of the rank: every rank's own thread waits on
 * them in the kernel. */
FR_TEST(cluster_mpi_slow, io_ranks_stalled_in_the_window_are_reported_lost,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--cache", "cold", "--duration",
		"10", "--solo", "0", "--mpi-timeout", "10", NULL };

	mpi_stall_case("io", "window", "STALLED", 1, NULL, args);
}

/* A cold sweep begins with each rank's read alone, in the rank's own
 * process: rank 0 stalls there. */
FR_TEST(cluster_mpi_slow, sweep_rank_stalled_in_its_read_alone_is_reported_lost,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--budget", "1m", "--vcpus", "1",
		"--batch", "16", NULL };

	mpi_stall_case("sweep", "read alone", "during the read alone", 1,
		       NULL, args);
}

/* A warm sweep has no read alone: its first point is rank 0's alone (one
 * rank), and its window stalls in rank 0's measurement child. The next
 * point is rank 1's with the storage still stopped: its stall too must
 * reach rank 0, within the stall timeout. */
FR_TEST(cluster_mpi_slow,
	sweep_warm_rank_stalled_in_its_read_alone_is_reported_lost,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--budget", "1m", "--vcpus", "1",
		"--batch", "16", "--cache", "warm", NULL };

	mpi_stall_case("sweep", "window", "during the window", 2,
		       "feedrate.cluster_sweep", args);
}

/* A cold sweep's first point: rank 0's own thread stuck in the point's
 * eviction (its process, not a child). Its watchdog writes the report:
 * the sweep's, that point last. */
FR_TEST(cluster_mpi_slow,
	sweep_rank_0_stuck_in_a_points_eviction_is_reported_in_the_sweep,
	.fini = mpi_stall_teardown)
{
	static const char *const args[] = { "--budget", "1m", "--vcpus", "1",
		"--batch", "16", "--cache", "cold", NULL };

	mpi_stall_case("sweep", "eviction", "during the eviction", 1,
		       "feedrate.cluster_sweep", args);
}
