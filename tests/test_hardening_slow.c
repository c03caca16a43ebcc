/*
 * test_hardening_slow.c - refused facilities, signals and output paths,
 * end to end through the real binary ($FEEDRATE_BIN; skipped when unset),
 * each as a user meets it:
 *   - io_uring refused by seccomp (EPERM), memlock at 64 KiB without
 *     CAP_IPC_LOCK, no permission to make a memory cgroup for --ram (run
 *     as nobody), a cgroup CPU quota below the affinity mask, /proc and
 *     /sys missing (an empty FEEDRATE_SYSROOT): the command still works
 *     and its report says what it fell back to;
 *   - SIGINT / SIGTERM during run, sweep, io and gen: prompt exit with
 *     130 / 143 (a sweep's point child goes too),
 *     a report marked partial, a second SIGINT ends it at once, and no
 *     report file is ever left half-written;
 *   - an unwritable --json path, and a full filesystem (a small tmpfs in
 *     this test's private mount namespace) under the report or under a
 *     dataset `gen` writes: a clear error, exit 5, nothing half-written
 *     under the final name.
 * The stop time after a signal is logged; the only bound asserted is a
 * generous hang limit (timings are not asserted on shared machines).
 */
#include <sched.h>
#include <sys/mount.h>

#include "fault_testlib.h"

/* Time from a signal to the exit beyond which it counts as a hang. */
#define HANG_S 15.0

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Is NAME present in DIR (any leftover temp file counts)? */
static int count_entries(const char *dir, const char *skip)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (!skip || strcmp(e->d_name, skip)))
			n++;
	closedir(d);
	return n;
}

/* Does the file PATH contain WORD? */
static bool file_has(const char *path, const char *word)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, word) != NULL;
	fclose(f);
	return found;
}

/* ---- refused facilities ---- */

FR_TEST(refused_slow, io_uring_refused_by_seccomp_runs_on_psync_and_says_why)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), json[4096];
	const char *args[48];
	struct fault_opts o = { .as = FAULT_NO_URING };
	struct fault_run r;

	fault_run_args(dir, ds, NULL, json, args);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, 0, "run exit %d (stderr in %s)", r.status,
		     r.err);
	cr_assert_not_null(r.json);
	cr_expect_str_eq(jstr(r.json, "backend"), "psync");
	cr_expect(strstr(jstr(r.json, "backend_reason"), "EPERM") ||
		  strstr(jstr(r.json, "backend_reason"), "refused"),
		  "reason: %s", jstr(r.json, "backend_reason"));
	cr_expect_gt(json_integer_value(json_object_get(r.json, "samples")), 0);
	fault_run_free(&r);

	{
		const char *io[] = { "io", "--json", json, ds, NULL };

		fault_exec2(dir, io, json, &o, &r);
		cr_expect_eq(r.status, 0, "io exit %d", r.status);
		cr_assert_not_null(r.json);
		cr_expect_str_eq(jstr(r.json, "backend"), "psync");
		cr_expect(strstr(jstr(r.json, "backend_reason"), "EPERM") ||
			  strstr(jstr(r.json, "backend_reason"), "refused"),
			  "reason: %s", jstr(r.json, "backend_reason"));
		fault_run_free(&r);
	}
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(refused_slow, memlock_64k_without_cap_ipc_lock_still_runs)
{
	char *dir = fault_tmpdir_root("needs root to drop CAP_IPC_LOCK");
	char *ds = make_dataset(dir), json[4096];
	const char *args[48];
	struct fault_opts o = { .as = FAULT_MEMLOCK_64K };
	struct fault_run r;

	fault_run_args(dir, ds, NULL, json, args);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, 0, "run exit %d (stderr in %s)", r.status,
		     r.err);
	cr_assert_not_null(r.json);
	cr_expect_gt(json_integer_value(json_object_get(r.json, "samples")), 0);
	cr_expect_neq(strlen(jstr(r.json, "backend_reason")), 0);
	cr_log_info("memlock 64K: backend %s: %s", jstr(r.json, "backend"),
		    jstr(r.json, "backend_reason"));
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(refused_slow, ram_without_cgroup_permission_gives_a_labelled_estimate)
{
	char *dir = fault_tmpdir_root("needs root to become nobody");
	char *ds = make_dataset(dir), json[4096];
	const char *extra[] = { "--ram", "16M", NULL };
	const char *args[48];
	struct fault_opts o = { .as = FAULT_NOBODY };
	struct fault_run r;

	/* nobody reads the dataset and writes the report */
	cr_assert_eq(chmod(dir, 0777), 0);
	fault_run_args(dir, ds, extra, json, args);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, 0, "run exit %d (stderr in %s)", r.status,
		     r.err);
	cr_assert_not_null(r.json);
	cr_expect(json_is_true(json_object_get(r.json, "hit_ratio_estimated")),
		  "hit ratio not labelled estimated (source: %s)",
		  jstr(r.json, "hit_ratio_source"));
	cr_expect_neq(strlen(jstr(r.json, "hit_ratio_source")), 0);
	cr_log_info("--ram as nobody: %s / %s", jstr(r.json, "cache_how"),
		    jstr(r.json, "hit_ratio_source"));
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

static void put_text(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			cr_assert_fail("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	put_bytes(path, text, strlen(text));
}

/* A sysroot with only a cgroup v2 tree whose cpu.max is CPU_MAX. */
static char *quota_sysroot(const char *dir, const char *name,
			   const char *cpu_max)
{
	char *root;

	cr_assert_geq(asprintf(&root, "%s/%s", dir, name), 0);
	cr_assert_eq(mkdir(root, 0755), 0);
	put_text(root, "/proc/self/cgroup", "0::/\n");
	put_text(root, "/proc/self/mountinfo",
		 "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
	put_text(root, "/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
	put_text(root, "/sys/fs/cgroup/cpu.max", cpu_max);
	return root;
}

static int affinity_cpus(void)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set);
}

/* `feedrate run` without --vcpus under SYSROOT; returns JSON "vcpus". */
static json_int_t default_vcpus(const char *dir, const char *ds,
				const char *sysroot)
{
	char json[4096], env[4200];
	const char *env_list[] = { env, NULL };
	const char *args[] = { "run", "--duration", "1s", "--warmup", "0",
			       "--batch", "4", "--gpus", "0", "--json", json,
			       ds, NULL };
	struct fault_opts o = { .env = env_list };
	struct fault_run r;
	json_int_t v;

	snprintf(json, sizeof(json), "%s/report.json", dir);
	snprintf(env, sizeof(env), "FEEDRATE_SYSROOT=%s", sysroot);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, 0, "run exit %d (stderr in %s)", r.status,
		     r.err);
	cr_assert_not_null(r.json, "no report (stderr in %s)", r.err);
	v = json_integer_value(json_object_get(r.json, "vcpus"));
	fault_run_free(&r);
	return v;
}

FR_TEST(refused_slow, cgroup_cpu_quota_below_the_mask_sets_the_default_vcpus)
{
	int mask = affinity_cpus();
	char *dir, *ds, *one, *none;

	if (mask < 2)
		cr_skip_test("one usable CPU: a quota of 1 cannot be lower");
	dir = fault_tmpdir();
	ds = make_dataset(dir);
	one = quota_sysroot(dir, "quota1", "100000 100000\n");
	none = quota_sysroot(dir, "noquota", "max 100000\n");
	cr_expect_eq(default_vcpus(dir, ds, none), mask,
		     "without a quota the vCPUs are the affinity mask");
	cr_expect_eq(default_vcpus(dir, ds, one), 1,
		     "a quota of 1 CPU must give 1 vCPU");
	free(one);
	free(none);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(refused_slow, missing_proc_and_sys_still_run_and_describe)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), root[4200];
	char env[4300];
	const char *env_list[] = { env, NULL };
	const char *info[] = { "info", "--json", NULL, ds, NULL };
	struct fault_opts o = { .env = env_list };
	char json[4096];
	struct fault_run r;

	snprintf(root, sizeof(root), "%s/empty-sysroot", dir);
	cr_assert_eq(mkdir(root, 0755), 0);
	cr_expect_eq(default_vcpus(dir, ds, root), affinity_cpus());

	snprintf(env, sizeof(env), "FEEDRATE_SYSROOT=%s", root);
	snprintf(json, sizeof(json), "%s/info.json", dir);
	info[2] = json;
	fault_exec2(dir, info, json, &o, &r);
	cr_expect_eq(r.status, 0, "info exit %d (stderr in %s)", r.status,
		     r.err);
	cr_expect_not_null(r.json, "info wrote no JSON");
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- signals ---- */

/* JSON report of an interrupted run: complete, marked partial. */
static void expect_partial(const struct fault_run *r)
{
	cr_assert_not_null(r->json, "no complete JSON report after the "
			   "signal (stderr in %s)", r->err);
	cr_expect(json_is_true(json_object_get(r->json, "partial")),
		  "report not marked partial");
}

static void signal_run(int sig, int expect_exit)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), json[4096];
	const char *extra[] = { "--duration", "120s", NULL };
	const char *args[48];
	/* during the measurement (its pinned child is up and reading); a
	 * signal while the cache is prepared ends the run with no report */
	struct fault_opts o = { .watch = ds, .signal = sig,
				.min_procs = FAULT_MEASURING_PROCS };
	struct fault_run r;

	fault_run_args(dir, ds, extra, json, args);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, expect_exit, "exit %d, expected %d",
		     r.status, expect_exit);
	cr_log_info("run stopped %.3f s after signal %d", r.stop_s, sig);
	cr_expect_lt(r.stop_s, HANG_S, "took %.1f s to stop", r.stop_s);
	expect_partial(&r);
	cr_expect_str_eq(jstr(r.json, "stopped_by"), "signal");
	cr_expect(file_has(r.out, "PARTIAL"), "the printed report is not "
		  "marked partial (stdout in %s)", r.out);
	/* the report is the only file next to the logs: no temp leftovers */
	cr_expect_eq(count_entries(dir, NULL), 4, "leftover files in %s", dir);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(signals_slow, sigterm_stops_run_with_143_and_a_partial_report)
{
	signal_run(SIGTERM, 143);
}

FR_TEST(signals_slow, sigint_stops_run_with_130_and_a_partial_report)
{
	signal_run(SIGINT, 130);
}

FR_TEST(signals_slow, second_sigint_ends_run_at_once_without_a_torn_report)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), json[4096];
	const char *extra[] = { "--duration", "120s", NULL };
	const char *args[48];
	struct fault_opts o = { .watch = ds, .signal = SIGINT,
				.signal2 = SIGINT, .may_die = true,
				.min_procs = FAULT_MEASURING_PROCS };
	struct fault_run r;
	struct stat st;

	fault_run_args(dir, ds, extra, json, args);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect(r.status == 130 || r.termsig == SIGINT,
		  "exit %d / signal %d", r.status, r.termsig);
	cr_log_info("run ended %.3f s after the first of two SIGINTs",
		    r.stop_s);
	cr_expect_lt(r.stop_s, HANG_S);
	/* either a whole report or none under the final name */
	if (stat(json, &st) == 0)
		expect_partial(&r);
	cr_expect_leq(count_entries(dir, NULL), 4, "leftover files in %s",
		      dir);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

static void signal_io(int sig, int expect_exit)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), json[4096];
	const char *args[] = { "io", "--duration", "120s", "--json", json, ds,
			       NULL };
	struct fault_opts o = { .watch = ds, .signal = sig };
	struct fault_run r;

	snprintf(json, sizeof(json), "%s/report.json", dir);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, expect_exit, "io exit %d, expected %d",
		     r.status, expect_exit);
	cr_log_info("io stopped %.3f s after signal %d", r.stop_s, sig);
	cr_expect_lt(r.stop_s, HANG_S);
	cr_assert_not_null(r.json, "io wrote no complete report");
	cr_expect_eq(count_entries(dir, NULL), 4, "leftover files in %s", dir);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(signals_slow, sigint_stops_io_with_130)
{
	signal_io(SIGINT, 130);
}

FR_TEST(signals_slow, sigterm_stops_io_with_143)
{
	signal_io(SIGTERM, 143);
}

/*
 * A sweep interrupted while a point runs: exit 130/143, its point child
 * gone with it (fault_exec2 fails when a process of the group outlives the
 * command), a complete JSON report that says it is partial.
 */
static void signal_sweep(int sig, int expect_exit)
{
	char *dir = fault_tmpdir(), *ds = make_dataset(dir), json[4096];
	const char *args[] = { "sweep", "--budget", "120s", "--vcpus", "1",
			       "--cache", "cold,warm", "--batch", "4",
			       "--json", json, ds, NULL };
	/* once a point's pinned child is up and reading */
	struct fault_opts o = { .watch = ds, .signal = sig,
				.min_procs = FAULT_MEASURING_PROCS };
	struct fault_run r;

	snprintf(json, sizeof(json), "%s/report.json", dir);
	fault_exec2(dir, args, json, &o, &r);
	cr_expect_eq(r.status, expect_exit, "sweep exit %d, expected %d",
		     r.status, expect_exit);
	cr_log_info("sweep stopped %.3f s after signal %d", r.stop_s, sig);
	cr_expect_lt(r.stop_s, HANG_S);
	cr_assert_not_null(r.json, "sweep wrote no complete report");
	cr_expect(strstr(jstr(r.json, "notes"), "PARTIAL"),
		  "report not marked partial: notes '%s'",
		  jstr(r.json, "notes"));
	cr_expect_eq(count_entries(dir, NULL), 4, "leftover files in %s", dir);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(signals_slow, sigint_stops_sweep_and_its_point_child_with_130)
{
	signal_sweep(SIGINT, 130);
}

FR_TEST(signals_slow, sigterm_stops_sweep_and_its_point_child_with_143)
{
	signal_sweep(SIGTERM, 143);
}

/* Every file under ROOT is a whole JPEG (SOI ... EOI); returns count. */
static int whole_jpegs(const char *root);

static int jpeg_count, jpeg_torn;

static int jpeg_check(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	unsigned char head[2], tail[2];
	int fd;

	(void)ftw;
	if (flag != FTW_F)
		return 0;
	jpeg_count++;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || st->st_size < 4 ||
	    pread(fd, head, 2, 0) != 2 ||
	    pread(fd, tail, 2, st->st_size - 2) != 2 ||
	    head[0] != 0xff || head[1] != 0xd8 || tail[0] != 0xff ||
	    tail[1] != 0xd9) {
		cr_log_error("torn file: %s", path);
		jpeg_torn++;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static int whole_jpegs(const char *root)
{
	jpeg_count = jpeg_torn = 0;
	cr_assert_eq(nftw(root, jpeg_check, 16, FTW_PHYS), 0);
	cr_expect_eq(jpeg_torn, 0, "%d of %d files are not whole JPEGs",
		     jpeg_torn, jpeg_count);
	return jpeg_count;
}

static void signal_gen(int sig, int expect_exit)
{
	char *dir = fault_tmpdir(), out[4096];
	const char *args[] = { "gen", "-q", "--size", "2G", "--jobs", "1",
			       out, NULL };
	struct fault_opts o = { .watch = out, .signal = sig };
	struct fault_run r;

	snprintf(out, sizeof(out), "%s/gen", dir);
	fault_exec2(dir, args, NULL, &o, &r);
	cr_expect_eq(r.status, expect_exit, "gen exit %d, expected %d",
		     r.status, expect_exit);
	cr_log_info("gen stopped %.3f s after signal %d", r.stop_s, sig);
	cr_expect_lt(r.stop_s, HANG_S);
	cr_expect_gt(whole_jpegs(out), 0);
	fr_test_rmtree(dir);
}

FR_TEST(signals_slow, sigint_stops_gen_with_130_and_no_torn_file)
{
	signal_gen(SIGINT, 130);
}

FR_TEST(signals_slow, sigterm_stops_gen_with_143_and_no_torn_file)
{
	signal_gen(SIGTERM, 143);
}

/* ---- output paths ---- */

FR_TEST(output_slow, unwritable_json_path_is_refused_first_with_the_reason)
{
	char *dir = fault_tmpdir_root("needs root to drop CAP_DAC_OVERRIDE");
	char *ds = make_dataset(dir), json[4096];
	char ro[4096];
	const char *args[48];
	struct fault_opts o = { .as = FAULT_NO_DAC };
	struct fault_run r;
	char *err;
	size_t len;
	FILE *f;

	snprintf(ro, sizeof(ro), "%s/readonly", dir);
	cr_assert_eq(mkdir(ro, 0555), 0);
	fault_run_args(ro, ds, NULL, json, args);
	/* logs go to DIR, the report into the read-only folder */
	fault_exec2(dir, args, NULL, &o, &r);
	/* refused before anything is measured: a usage error (2) */
	cr_expect_eq(r.status, 2, "exit %d, expected 2", r.status);
	cr_expect_eq(count_entries(ro, NULL), 0, "something was written");
	f = fopen(r.err, "r");
	cr_assert_not_null(f);
	err = calloc(1, 1 << 16);
	len = fread(err, 1, (1 << 16) - 1, f);
	fclose(f);
	cr_expect(len && strstr(err, json) && strstr(err, "ermission"),
		  "stderr does not name the path and the reason: %s", err);
	free(err);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

/*
 * fault_tmpdir() in a mount namespace of this test's own (Criterion runs
 * each test in its own process), so that mounts vanish with the test.
 */
static char *fault_tmpdir_mntns(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root for a private mount namespace");
	if (unshare(CLONE_NEWNS))
		cr_skip_test("unshare(CLONE_NEWNS): %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	return fault_tmpdir();
}

/* A SIZE tmpfs at DIR/NAME (DIR from fault_tmpdir_mntns). */
static char *small_tmpfs(char *dir, const char *name, const char *size)
{
	char *mnt, opts[64];

	cr_assert_geq(asprintf(&mnt, "%s/%s", dir, name), 0);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	snprintf(opts, sizeof(opts), "size=%s", size);
	if (mount("feedrate-test", mnt, "tmpfs", 0, opts)) {
		int err = errno;

		free(mnt);
		fr_test_rmtree(dir);
		cr_skip_test("mount tmpfs: %s", strerror(err));
	}
	return mnt;
}

/* Fill the filesystem at MNT with one file until it is full. */
static void fill_up(const char *mnt)
{
	static char block[4096];
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/filler", mnt);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	memset(block, 'f', sizeof(block));
	while (write(fd, block, sizeof(block)) > 0)
		;
	/* and the last bytes too */
	while (write(fd, block, 1) > 0)
		;
	close(fd);
}

FR_TEST(output_slow, full_disk_under_the_report_is_exit_5_and_no_torn_file)
{
	char *dir = fault_tmpdir_mntns(), *ds = make_dataset(dir), json[4096];
	char *mnt = small_tmpfs(dir, "full", "64k");
	const char *args[48];
	struct fault_run r;

	fill_up(mnt);
	fault_run_args(mnt, ds, NULL, json, args);
	fault_exec2(dir, args, NULL, NULL, &r);
	cr_expect_eq(r.status, 5, "exit %d, expected 5 (stderr in %s)",
		     r.status, r.err);
	cr_expect_eq(count_entries(mnt, "filler"), 0,
		     "a report or temp file was left on the full disk");
	umount(mnt);
	free(mnt);
	fault_run_free(&r);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(output_slow, gen_on_a_full_disk_is_exit_5_and_leaves_whole_files)
{
	char *dir = fault_tmpdir_mntns(), out[4200];
	char *mnt = small_tmpfs(dir, "small", "2m");
	const char *args[] = { "gen", "-q", "--size", "50M", "--jobs", "1",
			       out, NULL };
	struct fault_run r;

	snprintf(out, sizeof(out), "%s/gen", mnt);
	fault_exec2(dir, args, NULL, NULL, &r);
	cr_expect_eq(r.status, 5, "gen exit %d, expected 5 (stderr in %s)",
		     r.status, r.err);
	whole_jpegs(mnt);
	umount(mnt);
	free(mnt);
	fr_test_rmtree(dir);
}
