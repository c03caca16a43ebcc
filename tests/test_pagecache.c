/*
 * test_pagecache.c - page-cache control: eviction and warming measured by
 * residency on the local disk, the verdicts of stg_cache_probe (disk:
 * effective and kept; tmpfs: eviction ineffective) and dataset residency.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "storage.h"

#define TMPFS_MAGIC_ 0x01021994

/* A flushed file of SIZE bytes: dirty pages could not be evicted. */
static void put_flushed(const char *dir, const char *name, size_t size)
{
	char path[PATH_MAX], buf[65536];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	memset(buf, 'z', sizeof(buf));
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);

		cr_assert_eq(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	cr_assert_eq(fsync(fd), 0);
	close(fd);
}

static char *disk_dir(void)
{
	char *dir = fr_test_tmpdir();
	struct statfs sf;

	cr_assert_eq(statfs(dir, &sf), 0);
	if (sf.f_type == TMPFS_MAGIC_) {
		fr_test_rmtree(dir);
		cr_skip_test("no disk-backed folder: everything is on tmpfs");
	}
	return dir;
}

static double fraction(int dirfd, const char *name)
{
	uint64_t res, tot;

	cr_assert_eq(stg_cache_residency(dirfd, name, &res, &tot), 0);
	cr_assert_gt(tot, 0);
	return (double)res / (double)tot;
}

FR_TEST(pagecache, evict_then_residency_near_zero_on_local_disk)
{
	char *dir = disk_dir();
	int dfd;

	put_flushed(dir, "f", 4 << 20);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(stg_cache_warm(dfd, "f"), 0);
	cr_assert_float_eq(fraction(dfd, "f"), 1.0, 1e-9);
	cr_assert_eq(stg_cache_evict(dfd, "f"), 0);
	cr_assert_leq(fraction(dfd, "f"), 0.05);
	close(dfd);
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, warm_then_fully_resident_after_reopen)
{
	char *dir = disk_dir();
	char path[PATH_MAX];
	uint64_t res, tot;

	/* an odd size: the last page is partial */
	put_flushed(dir, "g", (3 << 20) + 123);
	snprintf(path, sizeof(path), "%s/g", dir);
	cr_assert_eq(stg_cache_evict(AT_FDCWD, path), 0);
	cr_assert_eq(stg_cache_warm(AT_FDCWD, path), 0);
	/* stg_cache_residency opens the file anew */
	cr_assert_eq(stg_cache_residency(AT_FDCWD, path, &res, &tot), 0);
	cr_assert_eq(tot, ((3u << 20) + 123 + 4095) / 4096);
	cr_assert_eq(res, tot);
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, probe_on_disk_says_eviction_effective_and_warmth_kept)
{
	char *dir = disk_dir();
	struct stg_cache_probe p;
	char path[PATH_MAX];

	put_flushed(dir, "h", 1 << 20);
	snprintf(path, sizeof(path), "%s/h", dir);
	cr_assert_eq(stg_cache_probe(AT_FDCWD, path, &p), 0);
	cr_assert_eq(p.error, 0);
	cr_assert_eq(p.evict, STG_EVICT_EFFECTIVE, "%s",
		     stg_evict_result_text(p.evict));
	cr_assert_eq(p.warm, STG_WARM_PERSISTS, "%s",
		     stg_warm_result_text(p.warm));
	cr_assert_float_eq(p.resident_after_warm, 1.0, 1e-9);
	cr_assert_float_eq(p.resident_after_reopen, 1.0, 1e-9);
	cr_assert_leq(p.resident_after_evict, 0.05);
	/* the probe leaves the file evicted */
	cr_assert_leq(fraction(AT_FDCWD, path), 0.05);
	cr_assert_str_eq(stg_evict_result_text(p.evict), "effective");
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, probe_refuses_empty_and_missing_files)
{
	char *dir = disk_dir();
	struct stg_cache_probe p;
	char path[PATH_MAX];
	uint64_t res = 7, tot = 7;

	put_flushed(dir, "empty", 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	cr_assert_eq(stg_cache_probe(AT_FDCWD, path, &p), -ENODATA);
	cr_assert_eq(stg_cache_residency(AT_FDCWD, path, &res, &tot), 0);
	cr_assert_eq(res, 0);
	cr_assert_eq(tot, 0);
	snprintf(path, sizeof(path), "%s/none", dir);
	cr_assert_eq(stg_cache_probe(AT_FDCWD, path, &p), -ENOENT);
	cr_assert_eq(stg_cache_evict(AT_FDCWD, path), -ENOENT);
	cr_assert_eq(stg_cache_warm(AT_FDCWD, path), -ENOENT);
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, tmpfs_eviction_reported_ineffective)
{
	char *dir = fr_test_tmpdir();
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		fr_test_rmtree(dir);
		cr_skip_test("mounting a tmpfs needs root");
	}
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		static char buf[1 << 20];
		struct stg_cache_probe p;
		char path[PATH_MAX];
		int fd;

		/* a private mount namespace: the tmpfs dies with the child */
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("feedrate-test", dir, "tmpfs", 0, "size=4m"))
			_exit(77);
		snprintf(path, sizeof(path), "%s/t", dir);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		/* written out: holes in a tmpfs file have no pages */
		memset(buf, 'x', sizeof(buf));
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(10);
		close(fd);
		if (stg_cache_probe(AT_FDCWD, path, &p))
			_exit(11);
		if (p.evict != STG_EVICT_INEFFECTIVE)
			_exit(12);
		if (p.resident_after_evict < 0.9)
			_exit(13);
		if (!strstr(stg_evict_result_text(p.evict), "ineffective"))
			_exit(14);
		umount(dir);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("cannot mount a tmpfs here");
	cr_assert_eq(WEXITSTATUS(status), 0, "child exit %d",
		     WEXITSTATUS(status));
}

FR_TEST(pagecache, dataset_residency_follows_evict_and_warm)
{
	char *dir = disk_dir();
	struct stg_ds_residency r;
	struct stg_dataset *ds;
	uint64_t errors = 99;
	char name[32];

	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		put_flushed(dir, name, 64 * 1024 + (size_t)i * 1000);
	}
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	cr_assert_eq(stg_cache_dataset_evict(ds, &errors), 0);
	cr_assert_eq(errors, 0);
	cr_assert_eq(stg_cache_dataset_residency(ds, 0, NULL, &r), 0);
	cr_assert(r.known);
	cr_assert_eq(r.files, 10);
	cr_assert_eq(r.bytes, stg_dataset_total_bytes(ds));
	cr_assert_leq(r.fraction, 0.05);

	cr_assert_eq(stg_cache_dataset_warm(ds, &errors), 0);
	cr_assert_eq(stg_cache_dataset_residency(ds, 0, NULL, &r), 0);
	cr_assert_float_eq(r.fraction, 1.0, 1e-9);
	cr_assert_eq(r.resident_bytes, r.bytes, "capped at the file sizes");

	/* a sample of 3 files */
	cr_assert_eq(stg_cache_dataset_residency(ds, 3, NULL, &r), 0);
	cr_assert_eq(r.files, 3);
	cr_assert_float_eq(r.fraction, 1.0, 1e-9);
	stg_cache_dataset_evict(ds, NULL);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, dataset_residency_unknown_where_open_refetches)
{
	char *dir = disk_dir();
	struct stg_cache_probe p = { .warm = STG_WARM_REFETCH_ON_OPEN };
	struct stg_ds_residency r;
	struct stg_dataset *ds;

	put_flushed(dir, "a", 4096);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	cr_assert_eq(stg_cache_dataset_residency(ds, 0, &p, &r), 0);
	cr_assert_not(r.known);
	cr_assert_lt(r.fraction, 0);
	cr_assert_eq(r.files, 0);
	p.warm = STG_WARM_PERSISTS;
	cr_assert_eq(stg_cache_dataset_residency(ds, 0, &p, &r), 0);
	cr_assert(r.known);
	cr_assert_eq(r.files, 1);
	cr_assert(strstr(stg_warm_result_text(STG_WARM_REFETCH_ON_OPEN),
			 "each open re-fetches"));
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(pagecache, dataset_evict_reports_files_that_vanished)
{
	char *dir = disk_dir();
	struct stg_dataset *ds;
	char path[PATH_MAX];
	uint64_t errors = 0;

	put_flushed(dir, "a", 4096);
	put_flushed(dir, "b", 4096);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	snprintf(path, sizeof(path), "%s/a", dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(stg_cache_dataset_evict(ds, &errors), 0);
	cr_assert_eq(errors, 1);
	snprintf(path, sizeof(path), "%s/b", dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(stg_cache_dataset_warm(ds, &errors), -ENOENT);
	cr_assert_eq(errors, 2);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

/*
 * A real FUSE mount (bindfs, Debian package "bindfs"): without kernel_cache
 * every open() drops the file's cache, so warmth does not survive a
 * re-open; with kernel_cache it does. Returns the child's verdict.
 */
static int fuse_probe_child(const char *dir, const char *opts)
{
	char cmd[3 * PATH_MAX], src[PATH_MAX], mnt[PATH_MAX], path[PATH_MAX];
	struct stg_cache_probe p;

	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 77;
	snprintf(cmd, sizeof(cmd), "bindfs %s '%s' '%s' >/dev/null 2>&1", opts,
		 src, mnt);
	if (system(cmd) != 0)
		return 77;
	if (snprintf(path, sizeof(path), "%s/f", mnt) >= (int)sizeof(path) ||
	    stg_cache_probe(AT_FDCWD, path, &p))
		return 10;
	snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
	if (system(cmd) != 0)
		return 11;
	return p.warm == STG_WARM_REFETCH_ON_OPEN ? 20 :
	       p.warm == STG_WARM_PERSISTS ? 21 : 22;
}

static int fuse_probe(const char *opts)
{
	char *dir = fr_test_tmpdir();
	char sub[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(sub, sizeof(sub), "%s/src", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/mnt", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/src", dir);
	put_flushed(sub, "f", 1 << 20);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(fuse_probe_child(dir, opts));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

FR_TEST(pagecache_slow, fuse_without_kernel_cache_each_open_refetches)
{
	int r;

	if (geteuid() != 0 || system("command -v bindfs >/dev/null") != 0)
		cr_skip_test("needs root and bindfs (Debian package bindfs)");
	r = fuse_probe("");
	if (r == 77)
		cr_skip_test("cannot mount a FUSE filesystem here");
	cr_assert_eq(r, 20, "verdict %d (20: refetch on open, 21: persists)", r);
	r = fuse_probe("-o kernel_cache");
	cr_assert_eq(r, 21, "with kernel_cache: verdict %d (21: persists)", r);
}

/* A dataset copied moments ago, still dirty in the page cache, can be
 * made cold. */

FR_TEST(pagecache, file_written_moments_ago_is_evicted_too)
{
	char *dir = fr_test_tmpdir(), path[4200];
	static char block[1 << 16];
	uint64_t res = 0, total = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/fresh.JPEG", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	memset(block, 0x5a, sizeof(block));
	for (int i = 0; i < 16; i++)
		cr_assert_eq(write(fd, block, sizeof(block)),
			     (ssize_t)sizeof(block));
	close(fd);              /* no fsync: the pages are still dirty */
	cr_assert_eq(stg_cache_evict(AT_FDCWD, path), 0);
	cr_assert_eq(stg_cache_residency(AT_FDCWD, path, &res, &total), 0);
	cr_assert_eq(total, (uint64_t)(1 << 20) /
		     (uint64_t)sysconf(_SC_PAGESIZE));
	cr_expect_leq(res, 8, "%llu of %llu pages still resident after "
		      "eviction", (unsigned long long)res,
		      (unsigned long long)total);
	fr_test_rmtree(dir);
}
