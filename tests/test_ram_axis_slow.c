/*
 * test_ram_axis_slow.c - `feedrate sweep --ram LIST` on the network-block-
 * disk fixture: an ext4 image on a loop device behind a blkio cgroup
 * throttle (tests/storage_fixtures/fixtures.sh, as test_storage_real_slow.c
 * uses it). Two page-cache sizes are measured at all vCPUs, each in its
 * memory cgroup with its hit ratio measured, and both agree with the LRU
 * model of shuffled epochs within the verdict's stated tolerance; the RAM
 * verdict rests on the storage ceiling seen cold.
 *
 * The suite's shared fixture holds a 30 MB dataset, too small for a page
 * cache of a quarter of it to be held to its size beside the run's own
 * memory (the cgroup's slack is tens of MB). So this test starts a fixture
 * set of its own (FEEDRATE_FIXTURE_DIR beside the shared one, a 160 MB
 * dataset), owned by the test runner (the script's watcher removes it if
 * the runner dies) and stopped at the end of the test.
 *
 * DESIGN: the suite takes the lock storage_real_slow takes (a file beside
 * the shared fixture's state folder), so it does not run beside those
 * tests' timing-sensitive throttles. On this project's 2-vCPU test VM
 * the two sizes, 30 % and 50 % of the dataset, held 34 % and 57 % of it
 * after their runs and hit 5.2 % and 19.3 % (model: 6.7 % and 21.0 %);
 * the sweep took 113 s of its 150 s budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fixture_testlib.h"
#include "harness.h"

#define RA_BPS (20ull << 20)            /* as storage_real_slow's tests */
#define RA_IOPS 3000ull
#define RA_SIZE "160M"




/* This test's own fixture set, "" when none is up. */
static char ra_own[PATH_MAX + 32];
static char *ra_tmp;

static void ra_own_stop(void)
{
	if (!ra_own[0])
		return;
	fixture_sh(NULL, "FEEDRATE_FIXTURE_DIR='%s' %s stop", ra_own, FIXTURE_SCRIPT);
	snprintf(ra_own + strlen(ra_own), sizeof(ra_own) - strlen(ra_own),
		 ".lock");
	unlink(ra_own);
	ra_own[0] = '\0';
}

/* Start a blk fixture set of its own with a RA_SIZE dataset into *BLK
 * (the dataset's folder), or skip with the script's reason. */
static void ra_start(char *blk, size_t len)
{
	const char *bin = fr_test_bin();
	char *out;
	int rc;

	if (access(FIXTURE_SCRIPT, X_OK))
		cr_skip_test("%s not found: run from the repository root",
			     FIXTURE_SCRIPT);
	snprintf(ra_own, sizeof(ra_own), "%s-ramaxis-%d", fixture_state(),
		 (int)getpid());
	rc = fixture_sh(&out, "FEEDRATE_FIXTURE_DIR='%s' FIXTURE_SIZE=%s "
		   "FEEDRATE_BIN='%s' %s start --owner %d blk", ra_own, RA_SIZE,
		   bin, FIXTURE_SCRIPT, (int)getppid());
	if (rc == 77) {
		const char *why = strstr(out, "skip: ");
		char reason[512];

		snprintf(reason, sizeof(reason), "%s", why ? why + 6 : out);
		reason[strcspn(reason, "\n")] = '\0';
		free(out);
		ra_own_stop();
		cr_skip_test("%s", reason);
	}
	cr_assert_eq(rc, 0, "fixtures.sh start blk failed:\n%s", out);
	fixture_env(out, "FIXTURE_BLK", blk, len);
	free(out);
	cr_assert(blk[0], "fixture env incomplete");
	cr_assert_eq(fixture_sh(&out, "FEEDRATE_FIXTURE_DIR='%s' %s throttle %llu "
			   "%llu", ra_own, FIXTURE_SCRIPT, RA_BPS, RA_IOPS), 0,
		     "setting the throttle failed: %s", out);
	free(out);
}

static int ra_lock_fd = -1;

static void ra_suite_init(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s.testlock", fixture_state());
	ra_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (ra_lock_fd >= 0)
		while (flock(ra_lock_fd, LOCK_EX) < 0 && errno == EINTR)
			;
}

static void ra_suite_fini(void)
{
	ra_own_stop();
	fr_test_rmtree(ra_tmp);
	ra_tmp = NULL;
	if (ra_lock_fd >= 0)
		close(ra_lock_fd);
	ra_lock_fd = -1;
}

TestSuite(ram_axis_slow, .init = ra_suite_init, .fini = ra_suite_fini,
	  .timeout = 420);

static double ra_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	cr_assert(json_is_number(v), "no number '%s'", key);
	return json_number_value(v);
}

FR_TEST(ram_axis_slow, two_ram_points_on_the_throttled_disk_agree_with_the_model)
{
	char blk[PATH_MAX], js[PATH_MAX], *out;
	json_t *j, *v, *ram, *row, *pts, *p;
	double tol;
	size_t i, measured = 0, axis = 0;
	cpu_set_t set;
	int rc;

#if defined(__SANITIZE_ADDRESS__)
	/* the page cache against the model is a property of the kernel and
	 * a plain build: under AddressSanitizer the run's own memory (its
	 * quarantine and shadow) shares the memory cgroup with the page
	 * cache and squeezes it, so a ram point may fail for memory */
	cr_skip_test("under AddressSanitizer the run's own memory competes "
		     "with the page cache in the memory cgroup");
#endif
	ra_start(blk, sizeof(blk));
	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	ra_tmp = fr_test_tmpdir();
	snprintf(js, sizeof(js), "%s/sweep.json", ra_tmp);
	/* all vCPUs, cold and two page caches; batches of 64 so that two
	 * epochs give the verdict enough batches */
	rc = fixture_sh(&out, "FEEDRATE_FIXTURE_DIR='%s' %s throttled '%s' sweep "
		   "--vcpus %d --cache cold,ram --ram 30%%,50%% --batch 64 "
		   "--budget 150s --no-check --json '%s' '%s'", ra_own,
		   FIXTURE_SCRIPT, fr_test_bin(), CPU_COUNT(&set), js, blk);
	cr_assert_eq(rc, 0, "feedrate sweep failed (%d):\n%s", rc, out);
	cr_log_info("%s", out);
	free(out);
	j = json_load_file(js, 0, NULL);
	cr_assert_not_null(j, "no JSON report");
	pts = json_object_get(j, "points");
	json_array_foreach(pts, i, p) {
		if (strcmp(json_string_value(json_object_get(p, "cache")),
			   "ram"))
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(p,
				 "status")), "measured", "%s",
				 json_string_value(json_object_get(p, "why")));
		if (json_is_null(json_object_get(p, "cgroup_bytes"))) {
			json_decref(j);
			cr_skip_test("no memory cgroup can be made here: the hit "
				     "ratio is only estimated");
		}
		cr_assert(json_is_true(json_object_get(p, "ram_limited")),
			  "a ram point's page cache was not held to its size");
		axis += json_is_true(json_object_get(p, "ram_axis"));
	}
	cr_assert_eq(axis, 1, "the second size is the RAM axis's");
	v = json_object_get(j, "verdict");
	ram = json_object_get(v, "ram");
	tol = ra_num(json_object_get(ram, "model"), "tolerance");
	cr_assert(json_is_true(json_object_get(json_object_get(v, "storage"),
					       "is_ceiling")),
		  "cold through a 20 MiB/s throttle is storage-bound");
	cr_assert(json_is_true(json_object_get(ram, "known")));
	json_array_foreach(json_object_get(v, "ram_curve"), i, row) {
		const json_t *c = json_object_get(row, "cache");
		double hit, model;

		if (!json_is_string(c) || strcmp(json_string_value(c), "ram"))
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(row,
				 "hit_ratio_source")), "measured");
		hit = ra_num(row, "hit_ratio");
		model = ra_num(row, "model_hit_ratio");
		cr_log_info("%.0f %% cached: hit %.3f measured, %.3f model",
			    ra_num(row, "fraction") * 100, hit, model);
		cr_expect_leq(fabs(hit - model), tol, "at %.0f %% cached: "
			      "measured %.3f, model %.3f",
			      ra_num(row, "fraction") * 100, hit, model);
		cr_expect(json_is_false(json_object_get(row, "disagrees")));
		measured++;
	}
	cr_assert_eq(measured, 2, "two measured ram rows in the curve");
	json_decref(j);
	ra_own_stop();
}
