/*
 * test_fs_nfs.c - network filesystems: the server named by a mount's
 * source (stg_fs_server, table-driven), NFS detection against a made-up
 * /proc/self/mountinfo under the sysroot (stg_detect_fs and `feedrate
 * info`), and on the NFS fixture (tests/storage_fixtures/fixtures.sh start
 * nfs: the kernel NFS server on 127.0.0.1) that `info` names nfs4 and its
 * server, and that eviction and O_DIRECT were checked there, not assumed.
 * The fixture's suite skips, with the script's reason, on kernels without
 * NFS.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fixture_testlib.h"
#include "harness.h"
#include "storage.h"

/* ---- the server in a mount source ---- */

static const struct {
	const char *fstype, *source, *host;
	int ret;
} server_cases[] = {
	{ "nfs4", "10.0.0.5:/export", "10.0.0.5", 0 },
	{ "nfs", "fs-1.example.com:/data/imagenet", "fs-1.example.com", 0 },
	{ "nfs4", "[fd00::1]:/data", "fd00::1", 0 },
	{ "nfs4", "[fd00::1]", "fd00::1", 0 },
	{ "nfs", "no-colon", "", 0 },
	{ "lustre", "10.0.0.1@tcp:/fs", "10.0.0.1", 0 },
	{ "lustre", "172.31.0.9@tcp1:172.31.0.10@tcp1:/fsx", "172.31.0.9", 0 },
	{ "cifs", "//files.example.com/share", "files.example.com", 0 },
	{ "smb3", "\\\\srv\\share", "srv", 0 },
	{ "ceph", "10.0.0.1:6789,10.0.0.2:6789:/", "10.0.0.1", 0 },
	{ "ceph", "admin@b3acfc0d.cephfs=/", "", 0 },
	{ "glusterfs", "gl1:/vol0", "gl1", 0 },
	{ "fuse.glusterfs", "gl1:/vol0", "gl1", 0 },
	{ "fuse.s3fs", "s3fs", "", 0 },
	{ "fuse.gcsfuse", "my-bucket", "", 0 },
	{ "fuse.nfsfuse", "nfs://127.0.0.1/export", "127.0.0.1", 0 },
	{ "fuse.nfsfuse", "nfs://fs1:2049/export?version=4", "fs1", 0 },
	{ "fuse.nfsfuse", "not-a-url", "", 0 },
	{ "ext4", "/dev/nvme0n1p1", "", -ENOENT },
	{ "tmpfs", "tmpfs", "", -ENOENT },
	{ "virtiofs", "myfs", "", -ENOENT },
	{ "nfs4", "", "", -ENOENT },
};

FR_TEST(detect_fs_server, source_names_the_server_of_each_network_fs)
{
	for (size_t i = 0; i < sizeof(server_cases) / sizeof(server_cases[0]);
	     i++) {
		char server[STG_PATH_MAX] = "x", host[STG_TEXT_MAX] = "x";
		int r = stg_fs_server(server_cases[i].fstype,
				      server_cases[i].source, server,
				      sizeof(server), host, sizeof(host));

		cr_expect_eq(r, server_cases[i].ret, "%s %s: returned %d",
			     server_cases[i].fstype, server_cases[i].source, r);
		cr_expect_str_eq(server, r ? "" : server_cases[i].source,
				 "%s %s: server '%s'", server_cases[i].fstype,
				 server_cases[i].source, server);
		cr_expect_str_eq(host, server_cases[i].host,
				 "%s %s: host '%s'", server_cases[i].fstype,
				 server_cases[i].source, host);
	}
}

FR_TEST(detect_fs_server, small_buffers_are_truncated_not_overrun)
{
	char server[8], host[4];

	cr_assert_eq(stg_fs_server("nfs4", "fileserver:/export", server,
				   sizeof(server), host, sizeof(host)), 0);
	cr_expect_str_eq(server, "fileser");
	cr_expect_str_eq(host, "fil");
}

/* ---- NFS from a made-up mountinfo ---- */

/*
 * A sysroot in DIR/root whose mountinfo has "/" on ext4 and DIR/mnt (a
 * real folder, made here) on nfs4 from SOURCE. Returns DIR/mnt in MNT.
 * Their device numbers (1:255, 0:4095) are no real filesystem's, so the
 * mounts are found by path.
 */
static void fake_nfs_sysroot(const char *dir, const char *source, char *mnt,
			     size_t cap)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(mnt, cap, "%s/mnt", dir);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	snprintf(path, sizeof(path), "%s/root", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/proc", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/proc/self", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/proc/self/mountinfo", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "22 1 1:255 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 "
		"rw\n");
	fprintf(f, "97 22 0:4095 / %s rw,relatime shared:60 - nfs4 %s rw,"
		"vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,"
		"proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=127.0.0.1,"
		"local_lock=none,addr=127.0.0.1\n", mnt, source);
	fclose(f);
}

static void use_sysroot(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/root", dir);
	cr_assert_eq(stg_sysroot_set(path), 0);
}

FR_TEST(detect_fs_nfs, nfs4_mount_is_network_with_its_server)
{
	char *dir = fr_test_tmpdir(), mnt[PATH_MAX];
	struct stg_fs_info fs;

	fake_nfs_sysroot(dir, "10.0.0.5:/export", mnt, sizeof(mnt));
	use_sysroot(dir);
	cr_assert_eq(stg_detect_fs(mnt, &fs), 0);
	cr_assert(fs.have_mount);
	cr_expect_str_eq(fs.mount.fstype, "nfs4");
	cr_expect_str_eq(fs.mount.mount_point, mnt);
	cr_expect(fs.network, "nfs4 is not taken for a network filesystem");
	cr_expect_not(fs.page_cache_volatile);
	cr_expect_str_eq(fs.server, "10.0.0.5:/export");
	cr_expect_str_eq(fs.server_host, "10.0.0.5");
	/* an NFS mount has no block device (its st_dev is anonymous) */
	cr_expect_not(fs.have_blockdev);
	stg_sysroot_set("/");
	fr_test_rmtree(dir);
}

FR_TEST(detect_fs_nfs, local_mount_has_no_server)
{
	char *dir = fr_test_tmpdir(), mnt[PATH_MAX];
	struct stg_fs_info fs;

	fake_nfs_sysroot(dir, "10.0.0.5:/export", mnt, sizeof(mnt));
	use_sysroot(dir);
	/* the folder beside the nfs4 mount is on "/": ext4 */
	cr_assert_eq(stg_detect_fs(dir, &fs), 0);
	cr_assert(fs.have_mount);
	cr_expect_str_eq(fs.mount.fstype, "ext4");
	cr_expect_str_eq(fs.server, "");
	cr_expect_str_eq(fs.server_host, "");
	stg_sysroot_set("/");
	fr_test_rmtree(dir);
}

/* `feedrate info` on MNT under the sysroot DIR/root: JSON (TEXT false)
 * or text, malloc'd. */
static char *info_under(const char *dir, const char *mnt, bool text)
{
	const char *bin = fr_test_bin();
	char *out;
	int rc;

	rc = fixture_sh(&out, "FEEDRATE_SYSROOT='%s/root' '%s' info "
			"--steal-interval 0%s '%s'", dir, bin,
			text ? "" : " --json -", mnt);
	cr_assert_eq(rc, 0, "feedrate info failed (%d):\n%s", rc, out);
	return out;
}

FR_TEST(detect_fs_nfs, info_names_nfs4_and_its_server_in_json_and_text)
{
	char *dir = fr_test_tmpdir(), mnt[PATH_MAX], *out;
	json_error_t jerr;
	json_t *root, *st;

	fake_nfs_sysroot(dir, "[fd00::1]:/data", mnt, sizeof(mnt));
	out = info_under(dir, mnt, false);
	root = json_loads(out, 0, &jerr);
	cr_assert_not_null(root, "bad JSON: %s\n%s", jerr.text, out);
	free(out);
	st = json_object_get(root, "storage");
	cr_assert(json_is_object(st));
	cr_expect_str_eq(json_string_value(json_object_get(
		json_object_get(st, "mount"), "fstype")), "nfs4");
	cr_expect_str_eq(json_string_value(json_object_get(st, "server")),
			 "[fd00::1]:/data");
	cr_expect_str_eq(json_string_value(json_object_get(st, "server_host")),
			 "fd00::1");
	cr_expect(json_is_true(json_object_get(st, "network")));
	json_decref(root);

	out = info_under(dir, mnt, true);
	cr_expect_not_null(strstr(out, "filesystem"), "%s", out);
	cr_expect_not_null(strstr(out, "nfs4"), "no nfs4 in:\n%s", out);
	cr_expect_not_null(strstr(out, "fd00::1 (source [fd00::1]:/data)"),
			   "no server line in:\n%s", out);
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(detect_fs_nfs, info_json_server_is_null_on_a_local_fs)
{
	char *dir = fr_test_tmpdir(), mnt[PATH_MAX], *out;
	json_t *root, *st;

	fake_nfs_sysroot(dir, "10.0.0.5:/export", mnt, sizeof(mnt));
	out = info_under(dir, dir, false);
	root = json_loads(out, 0, NULL);
	cr_assert_not_null(root, "bad JSON:\n%s", out);
	free(out);
	st = json_object_get(root, "storage");
	cr_expect(json_is_null(json_object_get(st, "server")));
	cr_expect(json_is_null(json_object_get(st, "server_host")));
	json_decref(root);
	fr_test_rmtree(dir);
}

/* ---- on the kernel NFS server (the nfs fixture) ---- */

/* The fixtures are shared by every suite of the run: one test at a time
 * (as test_storage_real_slow.c, whose POST_ALL hook stops them), taken
 * once the machine is known to have NFS, so that a skip leaves no lock
 * file behind. */
static int nfs_lock_fd = -1;

static void nfs_suite_fini(void)
{
	if (nfs_lock_fd >= 0)
		close(nfs_lock_fd);
	nfs_lock_fd = -1;
}

/* The fixture's mount and source, or skip with the script's reason. */
static void nfs_start(char *data, size_t data_cap, char *source,
		      size_t source_cap)
{
	char *out;

	fr_test_bin();                  /* FEEDRATE_BIN is set */
	out = fixture_start_locked("nfs", &nfs_lock_fd);
	fixture_env(out, "FIXTURE_NFS", data, data_cap);
	fixture_env(out, "FIXTURE_NFS_SOURCE", source, source_cap);
	free(out);
	cr_assert(data[0] && source[0], "no FIXTURE_NFS in the script's "
		  "output");
}

TestSuite(storage_nfs_slow, .fini = nfs_suite_fini, .timeout = 240);

FR_TEST(storage_nfs_slow, info_names_nfs4_its_server_and_cache_behaviour)
{
	char data[PATH_MAX], source[PATH_MAX], *tmp;
	const char *server;
	json_t *root, *st, *probe;

	nfs_start(data, sizeof(data), source, sizeof(source));
	tmp = fr_test_tmpdir();
	root = fixture_json(tmp, "info", "info --steal-interval 0 --probe-cache",
			data);
	st = json_object_get(root, "storage");
	cr_assert(json_is_object(st));
	cr_expect_str_eq(json_string_value(json_object_get(
		json_object_get(st, "mount"), "fstype")), "nfs4");
	cr_expect(json_is_true(json_object_get(st, "network")));
	server = json_string_value(json_object_get(st, "server"));
	cr_assert_not_null(server, "no server in info's JSON");
	cr_expect_str_eq(server, source);
	cr_expect_eq(strncmp(server, "127.0.0.1:", 10), 0, "server %s", server);
	cr_expect_str_eq(json_string_value(json_object_get(st, "server_host")),
			 "127.0.0.1");
	/* measured on one file: the client's pages go with DONTNEED and an
	 * unchanged file stays cached across opens (close-to-open) */
	probe = json_object_get(st, "cache_probe");
	cr_assert(json_is_object(probe), "no cache probe result");
	cr_expect_str_eq(json_string_value(json_object_get(probe, "evict")),
			 "effective");
	cr_expect_str_eq(json_string_value(json_object_get(probe, "warm")),
			 "persists");
	json_decref(root);
	fr_test_rmtree(tmp);
}

FR_TEST(storage_nfs_slow, cold_run_evicts_and_reads_with_o_direct)
{
	char data[PATH_MAX], source[PATH_MAX], *tmp;
	const char *how;
	json_t *root;

	nfs_start(data, sizeof(data), source, sizeof(source));
	tmp = fr_test_tmpdir();
	root = fixture_json(tmp, "run", "run --cache cold --duration 3s "
			"--workers 1 --gpus 0", data);
	how = json_string_value(json_object_get(root, "cache_how"));
	cr_assert_not_null(how, "no cache_how in the run's JSON");
	/* measure/ opened a file with O_DIRECT and probed eviction: on NFS
	 * both are taken, so nothing is said against them */
	cr_expect_not_null(strstr(how, "read with O_DIRECT"), "%s", how);
	cr_expect_null(strstr(how, "refused"), "%s", how);
	cr_expect_null(strstr(how, "INEFFECTIVE"), "%s", how);
	json_decref(root);
	fr_test_rmtree(tmp);
}
