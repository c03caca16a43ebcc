/*
 * test_storage_unfs_slow.c - the unfs fixture (tests/storage_fixtures/
 * fixtures.sh start unfs: nfs-ganesha serving NFSv4 on 127.0.0.1, mounted
 * by nfsfuse through FUSE), the NFS stand-in for kernels without NFS:
 * `info` names its FUSE type and nfs:// source, and a cold `io` reads
 * every file through it without an error. Skips, with the script's
 * reason, where ganesha, libnfs, FUSE 2's headers or FUSE are missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <jansson.h>

#include "fixture_testlib.h"
#include "harness.h"

/* The fixtures are shared by every suite of the run: one test at a time
 * (fixture_start_locked). */
static int unfs_lock_fd = -1;

static void unfs_suite_fini(void)
{
	if (unfs_lock_fd >= 0)
		close(unfs_lock_fd);
	unfs_lock_fd = -1;
}

/* The fixture's dataset folder and mount source, or skip. */
static void unfs_start(char *data, size_t data_cap, char *source,
		       size_t source_cap)
{
	char *out = fixture_start_locked("unfs", &unfs_lock_fd);

	fixture_env(out, "FIXTURE_UNFS", data, data_cap);
	fixture_env(out, "FIXTURE_UNFS_SOURCE", source, source_cap);
	free(out);
	cr_assert(data[0] && source[0], "no FIXTURE_UNFS in the script's "
		  "output");
}

TestSuite(storage_unfs_slow, .fini = unfs_suite_fini, .timeout = 240);

FR_TEST(storage_unfs_slow, info_names_the_fuse_type_and_the_nfs_source)
{
	char data[PATH_MAX], source[256], *dir;
	json_t *root, *mount;

	unfs_start(data, sizeof(data), source, sizeof(source));
	cr_expect_str_eq(source, "nfs://127.0.0.1/export");
	dir = fr_test_tmpdir();
	root = fixture_json(dir, "info", "info --steal-interval 0", data);
	mount = json_object_get(json_object_get(root, "storage"), "mount");
	cr_assert(json_is_object(mount));
	cr_expect_str_eq(json_string_value(json_object_get(mount, "fstype")),
			 "fuse.nfsfuse");
	cr_expect_str_eq(json_string_value(json_object_get(mount, "source")),
			 source);
	cr_expect(json_is_true(json_object_get(json_object_get(root,
		  "storage"), "network")));
	json_decref(root);
	fr_test_rmtree(dir);
}

FR_TEST(storage_unfs_slow, cold_io_reads_every_file_without_an_error)
{
	char data[PATH_MAX], source[256], *dir;
	json_t *root;
	json_int_t listed, read;

	unfs_start(data, sizeof(data), source, sizeof(source));
	dir = fr_test_tmpdir();
	root = fixture_json(dir, "io", "io --cache cold", data);
	listed = json_integer_value(json_object_get(root, "files_listed"));
	read = json_integer_value(json_object_get(root, "files"));
	cr_expect_gt(listed, 0);
	cr_expect_eq(read, listed, "read %lld of %lld files",
		     (long long)read, (long long)listed);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(root,
		     "errors"), "total")), 0);
	json_decref(root);
	fr_test_rmtree(dir);
}
