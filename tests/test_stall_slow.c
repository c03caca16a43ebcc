/*
 * test_stall_slow.c - storage that stops answering, for real: the s3fs
 * fixture's S3 server SIGSTOPped as each phase begins (listing, eviction,
 * probe, window) under run, sweep and io, and in a run's window over
 * WebDataset shards; the user-space NFS fixture's server stopped in the
 * window; the throttled disk's throttle set to 1 byte/s in the window. Each command must end on its own with a report
 * that says STALLED (exit 6, JSON `stalled`), and leave no process of its
 * own behind but one the kernel holds (a thread in uninterruptible
 * sleep), which the test names.
 *
 * The phase is hit exactly by feedrate's test hook
 * (FEEDRATE_TEST_SIGSTOP_AT=PHASE:PID, storage/watch.c): the command
 * sends SIGSTOP to PID as PHASE begins. For the throttled disk PID is a
 * stand-in process whose stop the test turns into the throttle. The time
 * from the stop to the command's exit is printed (for the record), not
 * asserted: the machine is shared. A hang guard (HANG_S) fails a command
 * that does not end at all. Every stopped server is resumed (SIGCONT)
 * and the throttle lifted in the teardown, whatever the test did.
 */
#include <signal.h>
#include <time.h>

#include "fixture_testlib.h"
#include "harness.h"

#define STALL_TIMEOUT "5s"
#define HANG_S 180.0            /* no end by then: the command hung */

static pid_t stopped_pid;       /* resumed in the teardown */
static pid_t standin_pid;       /* the throttle's stand-in */
static bool throttled;
static char blk_dev[PATH_MAX], blk_cgroup[PATH_MAX];
static int lock_fd = -1;

/* The loop disk's read and write throttles (0: none). */
static int blk_throttle(unsigned long long bps, unsigned long long iops)
{
	return fixture_sh(NULL, "%s throttle %llu %llu && d=$(lsblk -ndo "
			  "MAJ:MIN %s | tr -d ' ') && echo \"$d %llu\" >"
			  "'%s/blkio.throttle.write_bps_device' && echo "
			  "\"$d %llu\" >'%s/blkio.throttle.write_iops_device'",
			  FIXTURE_SCRIPT, bps, iops, blk_dev, bps, blk_cgroup,
			  iops, blk_cgroup);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void stall_teardown(void)
{
	if (stopped_pid > 0)
		kill(stopped_pid, SIGCONT);
	stopped_pid = 0;
	if (throttled)
		blk_throttle(0, 0);
	throttled = false;
	if (standin_pid > 0) {
		kill(standin_pid, SIGKILL);
		waitpid(standin_pid, NULL, 0);
	}
	standin_pid = 0;
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}

enum kind { K_S3, K_UNFS, K_BLK };

/*
 * CMD ("run", "sweep", "io") on fixture KIND, whose server is stopped as
 * PHASE begins (for the disk: the throttle set to 1 byte/s). SIG: sent to
 * the command SIG_AFTER_S after the stop, with a stall timeout too long
 * to come first: the command must end on the signal with a partial
 * report instead.
 */
#define SIG_AFTER_S 1.0

static void stall_case_sig(enum kind kind, const char *cmd,
			   const char *phase, int sig)
{
	static const char *const kinds[] = { "s3", "unfs", "blk" };
	static const char *const dirs[] = { "FIXTURE_S3", "FIXTURE_UNFS",
					    "FIXTURE_BLK" };
	static const char *const pids[] = { "FIXTURE_S3_SERVER_PID",
					    "FIXTURE_UNFS_SERVER_PID", "" };
	const char *bin = fr_test_bin();
	char data[PATH_MAX], spid[32], js[PATH_MAX], txt[PATH_MAX];
	char hook[128], *env, *tmp, *text = NULL, *words;
	const char *mark;
	char out_dir[PATH_MAX + 16];
	double t_start, t_stop = 0, t_end, t_sig = 0;
	pid_t pid, target;
	json_t *root, *st;
	json_error_t jerr;
	int status = 0;
	/* run-wds: run on WebDataset shards of the fixture's images */
	const bool wds = !strcmp(cmd, "run-wds");

	if (wds)
		cmd = "run";
	env = fixture_start_locked(kinds[kind], &lock_fd);
	fixture_env(env, dirs[kind], data, sizeof(data));
	fixture_env(env, pids[kind], spid, sizeof(spid));
	fixture_env(env, "FIXTURE_BLK_DEV", blk_dev, sizeof(blk_dev));
	fixture_env(env, "FIXTURE_BLK_CGROUP", blk_cgroup, sizeof(blk_cgroup));
	free(env);
	cr_assert(data[0], "fixtures.sh gave no %s", dirs[kind]);
	if (kind == K_BLK) {
		/* the stand-in's stop is the test's cue to throttle */
		standin_pid = fork();
		cr_assert_geq(standin_pid, 0);
		if (standin_pid == 0) {
			for (;;)
				pause();
		}
		target = standin_pid;
	} else {
		cr_assert(spid[0], "fixtures.sh gave no %s", pids[kind]);
		target = (pid_t)atoi(spid);
	}
	tmp = fr_test_tmpdir();
	if (wds) {
		/* written here, copied into the bucket beside the folder */
		cr_assert_eq(fixture_sh(NULL, "'%s' gen -q --from '%s/train' "
			     "--format wds --shard-size 2M '%s/wds' && mkdir -p "
			     "'%s/../wds-stall' && cp '%s'/wds/*.tar "
			     "'%s/../wds-stall/'", bin, data, tmp, data, tmp,
			     data), 0);
		strncat(data, "/../wds-stall", sizeof(data) - strlen(data) - 1);
	}
	snprintf(js, sizeof(js), "%s/stall-%s-%s.json", tmp, cmd, phase);
	snprintf(txt, sizeof(txt), "%s/stall-%s-%s.txt", tmp, cmd, phase);
	snprintf(hook, sizeof(hook), "%s:%d", phase, (int)target);
	/* ckpt writes into an empty folder on the disk, gen --from into one
	 * of the test's */
	out_dir[0] = '\0';
	if (!strcmp(cmd, "ckpt"))
		snprintf(out_dir, sizeof(out_dir), "%s/../stall-ckpt", data);
	else if (!strcmp(cmd, "gen"))
		snprintf(out_dir, sizeof(out_dir), "%s/gen-out", tmp);
	if (out_dir[0])
		fixture_sh(NULL, "rm -rf '%s' && mkdir '%s'", out_dir,
			   out_dir);
	if (!strcmp(cmd, "ckpt")) {
		/* slow enough that the save is still writing at the stop */
		cr_assert_eq(blk_throttle(1 << 20, 100), 0);
		throttled = true;
	}

	t_start = now_s();
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		const int fd = open(txt, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		const char *argv_run[] = { "run", "--gpus", "1xA100",
			"--duration", "20", NULL };
		const char *argv_sweep[] = { "sweep", "--budget", "2m",
			"--vcpus", "1,2", NULL };
		const char *argv_io[] = { "io", "--cache", "cold",
			"--duration", "20", NULL };
		const char *argv_ckpt[] = { "ckpt", "--direct", "--size",
			"48M", "--shards", "2", NULL };
		const char *argv_gen[] = { "gen", "--format", "wds", "--from",
			data, NULL };
		const char **base = !strcmp(cmd, "run") ? argv_run :
				    !strcmp(cmd, "sweep") ? argv_sweep :
				    !strcmp(cmd, "ckpt") ? argv_ckpt :
				    !strcmp(cmd, "gen") ? argv_gen : argv_io;
		const char *argv[24];
		int n = 0;

		if (kind == K_BLK) {
			argv[n++] = FIXTURE_SCRIPT;
			argv[n++] = "throttled";
		}
		argv[n++] = bin;
		for (int i = 0; base[i]; i++)
			argv[n++] = base[i];
		if (!strncmp(phase, "window+", 7)) {
			argv[n++] = "--batch";
			argv[n++] = "32";
		}
		argv[n++] = "--stall-timeout";
		argv[n++] = sig ? "10m" : STALL_TIMEOUT;
		if (strcmp(cmd, "gen")) {       /* gen writes no JSON */
			argv[n++] = "--json";
			argv[n++] = js;
		}
		argv[n++] = !strcmp(cmd, "ckpt") || !strcmp(cmd, "gen") ?
			    out_dir : data;
		argv[n] = NULL;
		setenv("FEEDRATE_TEST_SIGSTOP_AT", hook, 1);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* the stop (the hook's), then the command's end */
	for (;;) {
		const struct timespec ms20 = { 0, 20000000L };
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (!t_stop && fixture_proc_state(target, NULL, 0) == 'T') {
			t_stop = now_s();
			stopped_pid = kind == K_BLK ? 0 : target;
			if (kind == K_BLK) {
				cr_assert_eq(blk_throttle(1, 1), 0);
				throttled = true;
			}
		}
		if (w == pid)
			break;
		if (sig && t_stop && !t_sig && now_s() - t_stop >= SIG_AFTER_S) {
			t_sig = now_s();
			kill(pid, sig);
		}
		if (now_s() - t_start > HANG_S) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("%s on %s (stopped at the %s) did not end "
				       "in %.0f s", cmd, kinds[kind], phase,
				       HANG_S);
		}
		nanosleep(&ms20, NULL);
	}
	t_end = now_s();
	fixture_sh(&text, "cat '%s'", txt);
	cr_assert(t_stop > 0, "%s on %s: the %s phase never began:\n%s", cmd,
		  kinds[kind], phase, text);
	if (sig) {
		cr_assert(t_sig > 0, "ended before the signal:\n%s", text);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig,
			  "%s: exit status 0x%x, not %d:\n%s", strsignal(sig),
			  status, 128 + sig, text);
		cr_expect(strstr(text, "PARTIAL") != NULL, "no partial report "
			  "after %s:\n%s", strsignal(sig), text);
		printf("[stall] %s on %s, server stopped at the %s, then %s: "
		       "ended %.1f s after the signal (exit %d)\n", cmd,
		       kinds[kind], phase, strsignal(sig), t_end - t_sig,
		       WEXITSTATUS(status));
		goto leftovers;
	}
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 6,
		  "%s on %s stopped at the %s: exit status 0x%x, not 6:\n%s",
		  cmd, kinds[kind], phase, status, text);
	cr_expect(strstr(text, "STALLED") != NULL, "no STALLED in:\n%s",
		  text);
	if (!strcmp(cmd, "gen")) {
		words = strstr(text, "STALLED:");
		printf("[stall] gen --from on %s, server stopped at the %s: "
		       "reported in %.1f s (exit %d): %.*s\n", kinds[kind],
		       phase, t_end - t_stop, WEXITSTATUS(status),
		       words ? (int)strcspn(words, "\n") : 0,
		       words ? words : "");
		goto leftovers;
	}
	root = json_load_file(js, 0, &jerr);
	cr_assert_not_null(root, "%s: %s\n%s", js, jerr.text, text);
	st = json_object_get(root, "stalled");
	cr_assert(json_is_object(st), "the JSON report has no stalled{}");
	cr_expect(json_is_string(json_object_get(st, "phase")));
	cr_expect_geq(json_integer_value(json_object_get(st,
		"reads_in_flight")), 1);
	cr_expect(json_is_true(json_object_get(root, "partial")) ||
		  !strcmp(cmd, "sweep"), "a run/io report is partial");
	/* the dataset and the machine, whoever wrote the report */
	{
		json_t *ds = json_object_get(root, "dataset");
		json_t *m = json_object_get(root, "machine");

		cr_expect(json_is_object(ds) || (!strcmp(cmd, "io") &&
			  json_is_string(ds)), "no dataset in the report");
		/* run's and the watchdog's name its filesystem there
		 * (sweep's own report elsewhere) */
		if (json_is_object(ds) && (!strcmp(cmd, "run") ||
					   json_object_get(root, "note")))
			cr_expect(json_is_string(json_object_get(ds,
				  "fs_type")), "no fs_type: %s", data);
		cr_expect(json_is_object(m) || !strcmp(cmd, "io") ||
			  !strcmp(cmd, "ckpt"), "no machine in the report");
	}
	if (!strncmp(phase, "window+", 7) && !strcmp(cmd, "run")) {
		/* stopped inside the window: its numbers until then came
		 * back from the killed child, said to be partial */
		cr_expect(json_is_true(json_object_get(root, "window_partial")),
			  "no window_partial: true:\n%s", text);
		cr_expect_gt(json_integer_value(json_object_get(root,
			"samples")), 0, "no window samples:\n%s", text);
		cr_expect_gt(json_integer_value(json_object_get(root,
			"read_bytes")), 0);
		cr_expect(strstr(text, "results (PARTIAL") != NULL,
			  "no partial results in:\n%s", text);
		printf("[stall] %s: window totals %lld samples, %lld bytes in "
		       "%.1f s (partial)\n", cmd, json_integer_value(
		       json_object_get(root, "samples")), json_integer_value(
		       json_object_get(root, "read_bytes")), json_number_value(
		       json_object_get(root, "measured_s")));
	}
	words = strstr(text, "STALLED:");
	printf("[stall] %s on %s, server stopped at the %s: reported in "
	       "%.1f s (exit %d), stalled during the %s: %.*s\n", cmd,
	       kinds[kind], phase, t_end - t_stop, WEXITSTATUS(status),
	       json_string_value(json_object_get(st, "phase")),
	       words ? (int)strcspn(words, "\n") : 0, words ? words : "");
	json_decref(root);
leftovers:
	/* what is left of the command: only what the kernel holds */
	mark = strcmp(cmd, "gen") ? js : out_dir;
	fixture_leftovers_expect(mark);
	free(text);
	/* resume; the held process then ends */
	stall_teardown();
	fixture_leftovers_reap(mark);
	if (out_dir[0])
		fixture_sh(NULL, "rm -rf '%s'", out_dir);
	fr_test_rmtree(tmp);
}

static void stall_case(enum kind kind, const char *cmd, const char *phase)
{
	stall_case_sig(kind, cmd, phase, 0);
}

FR_TEST(stall_slow, run_sigint_while_a_read_waits_in_the_kernel, .fini = stall_teardown)
{
	stall_case_sig(K_S3, "run", "window", SIGINT);
}

FR_TEST(stall_slow, run_sigterm_while_the_listing_waits_in_the_kernel, .fini = stall_teardown)
{
	stall_case_sig(K_S3, "run", "listing", SIGTERM);
}

FR_TEST(stall_slow, io_sigterm_while_a_read_waits_in_the_kernel, .fini = stall_teardown)
{
	stall_case_sig(K_S3, "io", "window", SIGTERM);
}

FR_TEST(stall_slow, run_s3_server_stopped_in_the_listing, .fini = stall_teardown)
{
	stall_case(K_S3, "run", "listing");
}

FR_TEST(stall_slow, run_s3_server_stopped_in_the_eviction, .fini = stall_teardown)
{
	stall_case(K_S3, "run", "eviction");
}

FR_TEST(stall_slow, run_s3_server_stopped_in_the_probe, .fini = stall_teardown)
{
	stall_case(K_S3, "run", "probe");
}

FR_TEST(stall_slow, run_s3_server_stopped_in_the_window, .fini = stall_teardown)
{
	stall_case(K_S3, "run", "window");
}

FR_TEST(stall_slow, run_s3_server_stopped_2s_into_the_window_keeps_its_numbers, .fini = stall_teardown)
{
	/* at the 160th completion in the window: batches of 32 are made
	 * of what was read by then */
	stall_case(K_S3, "run", "window+160");
}

FR_TEST(stall_slow, run_s3_wds_shards_server_stopped_in_the_window, .fini = stall_teardown)
{
	/* a shard's reads are the stream's (storage/stream.c): at the 20th
	 * completion in the window, a few blocks into the shards */
	stall_case(K_S3, "run-wds", "window+20");
}

FR_TEST(stall_slow, ckpt_throttled_disk_at_1_byte_per_s_in_the_save, .fini = stall_teardown)
{
	stall_case(K_BLK, "ckpt", "save");
}

FR_TEST(stall_slow, gen_from_s3_server_stopped_in_the_source, .fini = stall_teardown)
{
	/* at the 20th completion: the conversion has begun */
	stall_case(K_S3, "gen", "source+20");
}

FR_TEST(stall_slow, sweep_s3_server_stopped_in_the_listing, .fini = stall_teardown)
{
	stall_case(K_S3, "sweep", "listing");
}

FR_TEST(stall_slow, sweep_s3_server_stopped_in_the_eviction, .fini = stall_teardown)
{
	stall_case(K_S3, "sweep", "eviction");
}

FR_TEST(stall_slow, sweep_s3_server_stopped_in_the_probe, .fini = stall_teardown)
{
	stall_case(K_S3, "sweep", "probe");
}

FR_TEST(stall_slow, sweep_s3_server_stopped_in_the_window, .fini = stall_teardown)
{
	stall_case(K_S3, "sweep", "window");
}

FR_TEST(stall_slow, io_s3_server_stopped_in_the_listing, .fini = stall_teardown)
{
	stall_case(K_S3, "io", "listing");
}

FR_TEST(stall_slow, io_s3_server_stopped_in_the_eviction, .fini = stall_teardown)
{
	stall_case(K_S3, "io", "eviction");
}

FR_TEST(stall_slow, io_s3_server_stopped_in_the_probe, .fini = stall_teardown)
{
	stall_case(K_S3, "io", "probe");
}

FR_TEST(stall_slow, io_s3_server_stopped_in_the_window, .fini = stall_teardown)
{
	stall_case(K_S3, "io", "window");
}

FR_TEST(stall_slow, run_unfs_server_stopped_mid_run, .fini = stall_teardown)
{
	stall_case(K_UNFS, "run", "window");
}

FR_TEST(stall_slow, run_throttled_disk_at_1_byte_per_s, .fini = stall_teardown)
{
	stall_case(K_BLK, "run", "window");
}
