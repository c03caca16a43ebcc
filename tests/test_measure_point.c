/*
 * test_measure_point.c - what a finished point's figures may claim: a
 * --ram point whose page cache grew past MS_RAM_SLACK x the asked size was
 * not limited by its cgroup (ms_ram_limited), a hit ratio from fewer
 * than MS_MIN_PROBES probed reads is unknown, not measured (ms_hit_ratio),
 * and a cold point says whether O_DIRECT was taken (ms_cache_prepare).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"
#include "measure.h"

FR_TEST(measure_point, ram_point_over_the_slack_counts_as_not_limited)
{
	/* a review's point: 2.8 MB held against 1.4 MB asked */
	cr_assert_not(ms_ram_limited(1377513, 2805760));
	cr_assert(ms_ram_limited(1377513, 1377513));
	cr_assert(ms_ram_limited(1000000, 1250000));
	cr_assert_not(ms_ram_limited(1000000, 1250001));
	/* unknown: nothing to say it was not */
	cr_assert(ms_ram_limited(1000000, 0));
}

FR_TEST(measure_point, ram_page_cache_too_small_beside_own_memory_cannot_be_held)
{
	const uint64_t mb = 1000000;

	/* the 1.28 M-file sweep's ram point: a 31,244-file sample's 21.2 MB
	 * beside 645.4 MB of the run's own (it then held 29.8 MB) */
	cr_assert_not(ms_ram_holdable(21239844, 645419008));
	/* the whole dataset's 871 MB beside the same: held */
	cr_assert(ms_ram_holdable(870953334, 645419008));
	/* the bound: own / 20 + 8 MiB = 0.25 x asked */
	cr_assert(ms_ram_holdable(4 * (32 * mb + (8u << 20)), 640 * mb));
	cr_assert_not(ms_ram_holdable(4 * (32 * mb + (8u << 20)) - 4,
				      640 * mb));
	/* no own memory: 8 MiB of play still needs 32 MiB asked */
	cr_assert_not(ms_ram_holdable(32u << 20 >> 1, 0));
	cr_assert(ms_ram_holdable(32u << 20, 0));
}

/* A ram point's fill killed at its cgroup's limit is filled again with
 * more room. On a busy machine (the full test run, five runners side by
 * side) a 30-file sweep's fill child took 640.7 MB of anonymous memory
 * against a 642.1 MB limit (own memory 640.8 MB, from an earlier child's
 * peak) and was killed; both of its ram points failed. */
FR_TEST(measure_point, ram_fill_killed_at_the_limit_gets_more_room_once)
{
	const uint64_t mib = 1u << 20, kib = 1u << 10;
	const uint64_t own = 640 * mib, limit = own + 2 * mib;

	/* at the limit (v1's max_usage stops there), or within 64 KiB */
	cr_expect_eq(ms_own_after_limit(own, limit, limit),
		     own + 160 * mib + 64 * mib);
	cr_expect_eq(ms_own_after_limit(own, limit - 64 * kib, limit),
		     own + 224 * mib);
	/* short of it: the child died of something else, no retry */
	cr_expect_eq(ms_own_after_limit(own, limit - 65 * kib, limit), 0);
	cr_expect_eq(ms_own_after_limit(own, 100 * mib, limit), 0);
	/* no limit known: nothing to raise */
	cr_expect_eq(ms_own_after_limit(own, limit, 0), 0);
}

/* What follows a ram point's fill. A loaded machine's run killed at the
 * limit got more room, and that room stayed page cache: the point was
 * not held to its size. The limit is now recalibrated after it too. */
FR_TEST(measure_point, ram_fill_after_more_room_is_recalibrated_once)
{
	static const struct {
		bool failed, at_limit, off, raised, recal;
		enum ms_fill_next want;
	} t[] = {
		/* the first fill: killed at the limit, killed otherwise,
		 * off, on */
		{ true, true, false, false, false, MS_FILL_RAISE },
		{ true, false, false, false, false, MS_FILL_FAIL },
		{ false, false, true, false, false, MS_FILL_RECAL },
		{ false, false, false, false, false, MS_FILL_DONE },
		/* the fill with more room: its spare room left as page
		 * cache is taken back; killed again, the point fails */
		{ false, false, true, true, false, MS_FILL_RECAL },
		{ false, false, false, true, false, MS_FILL_DONE },
		{ true, true, false, true, false, MS_FILL_FAIL },
		/* after the recalibration: the measured run, whatever the
		 * cache; killed, no more room */
		{ false, false, true, true, true, MS_FILL_DONE },
		{ false, false, true, false, true, MS_FILL_DONE },
		{ true, true, false, false, true, MS_FILL_FAIL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(ms_ram_fill_next(t[i].failed, t[i].at_limit,
					      t[i].off, t[i].raised,
					      t[i].recal), t[i].want,
			     "case %zu", i);
}

/* A ram point's limit after its fill epoch (no GPU): the fill's own
 * memory, a margin, and the batches the measured run's GPUs add. The
 * 1.28 M-file sweep's ram check run with 6 GPUs was killed by its cgroup
 * when the limit left the 8 batches past the fill's 4 out. */
FR_TEST(measure_point, ram_limit_after_the_fill_holds_the_check_runs_batches)
{
	const uint64_t mib = 1u << 20, slot = 256ull * 602112;

	cr_expect_eq(ldr_default_prefetch(0), 4);
	cr_expect_eq(ldr_default_prefetch(2), 4);
	cr_expect_eq(ldr_default_prefetch(6), 12);
	/* 1 or 2 GPUs hold the fill's 4 batches: own + 5 % + 8 MiB */
	cr_expect_eq(ms_own_recalibrated(640 * mib, 870 * mib, 1, slot),
		     640 * mib + 32 * mib + 8 * mib);
	cr_expect_eq(ms_own_recalibrated(640 * mib, 870 * mib, 2, slot),
		     640 * mib + 40 * mib);
	/* 6 GPUs: 8 more batches */
	cr_expect_eq(ms_own_recalibrated(640 * mib, 870 * mib, 6, slot),
		     640 * mib + 40 * mib + 8 * slot);
	/* the margin: at most an eighth of the page cache, at least 8 MiB */
	cr_expect_eq(ms_own_recalibrated(640 * mib, 160 * mib, 1, slot),
		     640 * mib + 20 * mib);
	cr_expect_eq(ms_own_recalibrated(640 * mib, 16 * mib, 1, slot),
		     640 * mib + 8 * mib);
	cr_expect_eq(ms_own_recalibrated(0, 870 * mib, 3, 0), 8 * mib);
}

FR_TEST(measure_point, hit_ratio_from_too_few_probes_is_unknown)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	char src[256];

	cr_assert_not_null(res);
	res->probed_reads = 1;
	res->probed_bytes = 100000;
	res->probed_hit_bytes = 100000;
	snprintf(res->probe_method, sizeof(res->probe_method), "cachestat");
	cr_assert_lt(ms_hit_ratio(NULL, 1, 0, false, res, src, sizeof(src)),
		     0);
	cr_assert_not_null(strstr(src, "too few probes"), "%s", src);
	res->probed_reads = MS_MIN_PROBES - 1;
	cr_assert_lt(ms_hit_ratio(NULL, 1, 0, false, res, src, sizeof(src)),
		     0);
	res->probed_reads = MS_MIN_PROBES;
	cr_assert_float_eq(ms_hit_ratio(NULL, 1, 0, false, res, src,
					sizeof(src)), 1.0, 1e-9);
	cr_assert_not_null(strstr(src, "measured"), "%s", src);
	free(res);
}

/* Write a small file NAME under DIR. 0 or -1. */
static int put_file(const char *dir, const char *name)
{
	char path[4096], buf[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	memset(buf, 'x', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -1;
	return close(fd);
}

/* Prepare DIR's dataset cold into *PREP. 0 or -1. */
static int prepare_cold(const char *dir, struct ms_cache_prep *prep)
{
	struct stg_dataset *ds;

	if (put_file(dir, "a.jpg") || stg_dataset_scan(dir, NULL, &ds))
		return -1;
	ms_cache_prepare(ds, STG_CACHE_COLD, NULL, prep);
	stg_dataset_destroy(ds);
	return 0;
}

FR_TEST(measure_point, cold_on_a_filesystem_refusing_odirect_says_so)
{
	char *dir = fr_test_tmpdir();
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct ms_cache_prep prep;

		/* ramfs has no direct I/O: open(O_DIRECT) fails with
		 * EINVAL; a private mount namespace, gone with the child */
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("feedrate-test", dir, "ramfs", 0, NULL))
			_exit(77);
		if (prepare_cold(dir, &prep))
			_exit(10);
		if (!prep.odirect_refused)
			_exit(11);
		if (!strstr(prep.odirect_why, "ramfs"))
			_exit(12);
		/* the words no longer claim O_DIRECT kept it cold */
		if (strstr(prep.how, "read with O_DIRECT") ||
		    !strstr(prep.how, "O_DIRECT is refused"))
			_exit(13);
		umount(dir);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("cannot mount a ramfs here (needs root and a "
			     "mount namespace)");
	cr_assert_eq(WEXITSTATUS(status), 0, "child exit %d",
		     WEXITSTATUS(status));
}

FR_TEST(measure_point, cold_on_a_filesystem_taking_odirect_claims_it)
{
	char *dir = fr_test_tmpdir();
	struct ms_cache_prep prep;
	char probe[4096];
	int fd;

	/* does this folder's filesystem take O_DIRECT at all? */
	cr_assert_eq(put_file(dir, "p"), 0);
	snprintf(probe, sizeof(probe), "%s/p", dir);
	fd = open(probe, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fr_test_rmtree(dir);
		cr_skip_test("the test folder's filesystem refuses O_DIRECT");
	}
	close(fd);
	unlink(probe);
	cr_assert_eq(prepare_cold(dir, &prep), 0);
	fr_test_rmtree(dir);
	cr_assert_not(prep.odirect_refused, "%s", prep.odirect_why);
	cr_assert_not_null(strstr(prep.how, "read with O_DIRECT"), "%s",
			   prep.how);
}
