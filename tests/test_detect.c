/*
 * test_detect.c - machine and storage detection against the /proc and /sys
 * fixtures in tests/fixtures/sysroot (see its README.md), plus the real
 * machine where a property holds everywhere. The facts detection builds
 * on (mounts, cgroups, CPU lists) are tested in test_sysfacts.c.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "storage.h"

#define FIXTURES "tests/fixtures/sysroot"

/* Point the sysroot at fixture NAME (tests run from the repository root). */
static void use_fixture(const char *name)
{
	char rel[256], abs[PATH_MAX];

	snprintf(rel, sizeof(rel), FIXTURES "/%s", name);
	cr_assert_not_null(realpath(rel, abs), "fixture %s missing (run the "
			   "tests from the repository root)", rel);
	cr_assert_eq(stg_sysroot_set(abs), 0);
}

static int real_affinity(void)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* ---- sysroot ---- */

FR_TEST(detect_sysroot, joins_root_and_path_without_double_slash)
{
	char buf[64];

	cr_assert_eq(stg_sysroot_set("/x/root/"), 0);
	cr_assert_eq(stg_sysroot_path("/proc/stat", buf, sizeof(buf)),
		     (int)strlen("/x/root/proc/stat"));
	cr_assert_str_eq(buf, "/x/root/proc/stat");
	cr_assert_eq(stg_sysroot_set("/"), 0);
	stg_sysroot_path("/proc/stat", buf, sizeof(buf));
	cr_assert_str_eq(buf, "/proc/stat");
	cr_assert_eq(stg_sysroot_path("/proc/stat", buf, 5), -ENAMETOOLONG);
	cr_assert_str_eq(buf, "");
}

FR_TEST(detect_sysroot, read_line_trims_padding_of_sysfs_model)
{
	char buf[128];

	use_fixture("cgv2_aws");
	cr_assert_gt(stg_sysroot_read_line("/sys/devices/pci0000:00/0000:00:04.0"
					   "/nvme/nvme0/model", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "Amazon Elastic Block Store");
	cr_assert_eq(stg_sysroot_read_line("/no/such/file", buf, sizeof(buf)),
		     -ENOENT);
}

/* ---- CPU ---- */

FR_TEST(detect_cpu, cgroup_v2_lowest_ancestor_quota_caps_usable_vcpus)
{
	struct stg_cpu_info c;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_detect_cpu(0, &c), 0);
	cr_assert_eq(c.affinity_cpus, real_affinity());
	/* train.service says 1.5, its parent system.slice 0.5: 0.5 wins,
	 * and the usable CPUs are whole ones, at least one */
	cr_assert_float_eq(c.quota_cpus, 0.5, 1e-9);
	cr_assert_float_eq(c.usable_cpus, 1.0, 1e-9);
	cr_assert(ends_with(c.quota_source, "/sys/fs/cgroup/system.slice/cpu.max"),
		  "quota from %s", c.quota_source);
}

FR_TEST(detect_cpu, model_smt_numa_from_fixture)
{
	struct stg_cpu_info c;

	use_fixture("cgv2_aws");
	stg_detect_cpu(0, &c);
	cr_assert_str_eq(c.model, "Intel(R) Xeon(R) Platinum 8275CL CPU @ 3.00GHz");
	cr_assert_eq(c.online_cpus, 4);
	cr_assert_eq(c.cores, 2);
	cr_assert_eq(c.threads_per_core, 2);
	cr_assert_eq(c.numa_nodes, 1);
}

FR_TEST(detect_cpu, smt_siblings_zero_and_48_count_as_one_core)
{
	struct stg_cpu_info c;

	use_fixture("cgv1_smt");
	stg_detect_cpu(0, &c);
	cr_assert_eq(c.cores, 2);
	cr_assert_eq(c.threads_per_core, 2);
	cr_assert_eq(c.numa_nodes, 2);
	cr_assert_str_eq(c.model, "AMD EPYC 7R32");
}

/* Point the sysroot at tests/fixtures/topology/NAME. */
static void use_topology(const char *name)
{
	char rel[256], abs[PATH_MAX];

	snprintf(rel, sizeof(rel), "tests/fixtures/topology/%s", name);
	cr_assert_not_null(realpath(rel, abs), "fixture %s missing", rel);
	cr_assert_eq(stg_sysroot_set(abs), 0);
}

FR_TEST(detect_cpu, vcpu_is_a_thread_with_smt_siblings_a_core_without)
{
	struct stg_cpu_info c;
	char *dir;

	use_topology("two_socket_smt");
	stg_detect_cpu(0, &c);
	cr_assert_eq(c.threads_per_core, 2);
	cr_assert_eq(c.vcpu_kind, STG_VCPU_THREAD);
	use_topology("no_smt");
	stg_detect_cpu(0, &c);
	cr_assert_eq(c.threads_per_core, 1);
	cr_assert_eq(c.vcpu_kind, STG_VCPU_CORE);
	/* no topology to read: unknown, never a guess */
	dir = fr_test_tmpdir();
	cr_assert_eq(stg_sysroot_set(dir), 0);
	stg_detect_cpu(0, &c);
	cr_assert_eq(c.vcpu_kind, STG_VCPU_UNKNOWN);
	cr_assert_str_eq(stg_vcpu_kind_name(c.vcpu_kind), "unknown");
	cr_assert_str_eq(stg_vcpu_kind_name(STG_VCPU_THREAD), "thread");
	cr_assert_str_eq(stg_vcpu_kind_name(STG_VCPU_CORE), "core");
	fr_test_rmtree(dir);
}

FR_TEST(detect_cpu, cgroup_v1_quota_inside_container)
{
	struct stg_cpu_info c;

	use_fixture("cgv1_smt");
	stg_detect_cpu(0, &c);
	cr_assert_float_eq(c.quota_cpus, 1.5, 1e-9);
	cr_assert(ends_with(c.quota_source,
			    "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"),
		  "quota from %s", c.quota_source);
	cr_assert_float_eq(c.usable_cpus, 1.0, 1e-9);
	cr_assert_leq(c.usable_cpus, (double)c.affinity_cpus);
}

FR_TEST(detect_cpu, steal_time_since_boot_and_static_interval_unknown)
{
	struct stg_cpu_info c;

	use_fixture("cgv2_aws");
	/* 1000 steal of 20000 jiffies */
	cr_assert_eq(stg_detect_cpu(0.01, &c), 0);
	cr_assert_float_eq(c.steal_pct_boot, 5.0, 1e-9);
	/* a fixture does not tick: no interval value rather than 0 % */
	cr_assert_lt(c.steal_pct_interval, 0);
	cr_assert_float_eq(c.steal_interval_s, 0.01, 1e-12);
}

FR_TEST(detect_cpu, real_machine_interval_steal_is_a_percentage)
{
	struct stg_cpu_info c;

	cr_assert_eq(stg_sysroot_set("/"), 0);
	stg_detect_cpu(0.05, &c);
	if (c.steal_pct_boot < 0)
		cr_skip_test("this machine has no /proc/stat");
	cr_assert_geq(c.steal_pct_boot, 0);
	cr_assert_leq(c.steal_pct_boot, 100);
	cr_assert_gt(c.affinity_cpus, 0);
	cr_assert_gt(c.usable_cpus, 0);
}

/* ---- memory ---- */

FR_TEST(detect_mem, meminfo_and_cgroup_v2_memory_max)
{
	struct stg_mem_info m;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_detect_mem(&m), 0);
	cr_assert_eq(m.total_bytes, 65011712LL * 1024);
	cr_assert_eq(m.available_bytes, 62000000LL * 1024);
	cr_assert_eq(m.cgroup_limit_bytes, 8589934592LL);
	cr_assert(ends_with(m.cgroup_source, "train.service/memory.max"));
}

FR_TEST(detect_mem, cgroup_v1_memory_limit)
{
	struct stg_mem_info m;

	use_fixture("cgv1_smt");
	stg_detect_mem(&m);
	cr_assert_eq(m.cgroup_limit_bytes, 4294967296LL);
	cr_assert_eq(m.total_bytes, 196608000LL * 1024);
}

/* ---- GPUs, DMI ---- */

FR_TEST(detect_gpu, nvidia_gpus_listed_in_bus_order_with_model)
{
	struct stg_gpu_info g;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_detect_gpus(&g), 0);
	cr_assert_eq(g.count, 2);
	cr_assert_str_eq(g.gpu[0].model, "NVIDIA A100-SXM4-40GB");
	cr_assert_str_eq(g.gpu[0].bus, "0000:10:1c.0");
	cr_assert_str_eq(g.gpu[1].bus, "0000:10:1d.0");
	cr_assert_str_eq(g.driver, "535.104.05");
}

FR_TEST(detect_gpu, dmi_product_name_and_vendor)
{
	struct stg_dmi_info d;

	use_fixture("cgv2_aws");
	stg_detect_dmi(&d);
	cr_assert_str_eq(d.product_name, "p4d.24xlarge");
	cr_assert_str_eq(d.sys_vendor, "Amazon EC2");
}

/* ---- block devices (mounts: test_sysfacts.c) ---- */

FR_TEST(detect_blockdev, ebs_nvme_partition_resolves_to_its_disk)
{
	struct stg_blockdev b;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_blockdev_describe(259, 1, &b), 0);
	cr_assert_str_eq(b.name, "nvme0n1");
	cr_assert_str_eq(b.partition, "nvme0n1p1");
	cr_assert_str_eq(b.model, "Amazon Elastic Block Store");
	cr_assert_eq(b.rotational, 0);
	cr_assert_eq(b.nr_requests, 1023);
}

FR_TEST(detect_blockdev, instance_store_nvme_model)
{
	struct stg_blockdev b;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_blockdev_describe(259, 3, &b), 0);
	cr_assert_str_eq(b.name, "nvme1n1");
	cr_assert_str_eq(b.partition, "");
	cr_assert_str_eq(b.model, "Amazon EC2 NVMe Instance Storage");
	cr_assert_eq(b.nr_requests, 255);
}

FR_TEST(detect_blockdev, loop_device_backing_file)
{
	struct stg_blockdev b;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_blockdev_describe(7, 0, &b), 0);
	cr_assert_str_eq(b.name, "loop0");
	cr_assert_str_eq(b.backing_file, "/var/tmp/disk image.ext4");
	cr_assert_eq(b.rotational, 0);
}

FR_TEST(detect_blockdev, device_mapper_volume_names_the_disk_below)
{
	struct stg_blockdev b;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_blockdev_describe(253, 0, &b), 0);
	cr_assert_str_eq(b.via, "dm-0 (vg-data)");
	cr_assert_str_eq(b.name, "nvme1n1");
	cr_assert_str_eq(b.model, "Amazon EC2 NVMe Instance Storage");
}

FR_TEST(detect_blockdev, unknown_device_is_enoent)
{
	struct stg_blockdev b;

	use_fixture("cgv2_aws");
	cr_assert_eq(stg_blockdev_describe(8, 0, &b), -ENOENT);
}

/* ---- degraded machines ---- */

static void check_all_unknown(void)
{
	struct stg_cpu_info c;
	struct stg_mem_info m;
	struct stg_gpu_info g;
	struct stg_dmi_info d;
	struct stg_blockdev b;
	struct stg_mount mt;

	cr_assert_eq(stg_detect_cpu(0.01, &c), 0);
	cr_assert_eq(c.affinity_cpus, real_affinity());
	cr_assert_lt(c.quota_cpus, 0);
	cr_assert_float_eq(c.usable_cpus, (double)c.affinity_cpus, 1e-9);
	cr_assert_str_eq(c.model, "");
	cr_assert_eq(c.cores, -1);
	cr_assert_eq(c.threads_per_core, -1);
	cr_assert_eq(c.numa_nodes, -1);
	cr_assert_lt(c.steal_pct_boot, 0);
	cr_assert_lt(c.steal_pct_interval, 0);
	cr_assert_eq(stg_detect_mem(&m), 0);
	cr_assert_eq(m.total_bytes, -1);
	cr_assert_eq(m.cgroup_limit_bytes, -1);
	cr_assert_eq(stg_detect_gpus(&g), 0);
	cr_assert_eq(g.gpu[0].model[0], '\0');
	cr_assert_eq(stg_detect_dmi(&d), 0);
	cr_assert_str_eq(d.product_name, "");
	cr_assert_eq(stg_blockdev_describe(259, 0, &b), -ENOENT);
	cr_assert_neq(stg_mount_find("/data", 0, &mt), 0);
}

FR_TEST(detect_degraded, missing_proc_and_sys_give_unknown)
{
	char *dir = fr_test_tmpdir();

	cr_assert_eq(stg_sysroot_set(dir), 0);
	check_all_unknown();
	fr_test_rmtree(dir);
}

FR_TEST(detect_degraded, malformed_files_give_unknown_without_crash)
{
	struct stg_gpu_info g;

	use_fixture("garbage");
	check_all_unknown();
	/* the GPU folder exists, its file has no Model: line */
	stg_detect_gpus(&g);
	cr_assert_eq(g.count, 1);
	cr_assert_str_eq(g.gpu[0].model, "");
}

/* ---- filesystem under a real path ---- */

FR_TEST(detect_fs, real_disk_folder_has_a_mount_and_a_family)
{
	struct stg_fs_info fs;
	char *dir = fr_test_tmpdir();

	cr_assert_eq(stg_sysroot_set("/"), 0);
	cr_assert_eq(stg_detect_fs(dir, &fs), 0);
	cr_assert_neq(fs.statfs_magic, 0);
	cr_assert_str_neq(fs.fs_family, "unknown");
	cr_assert(fs.have_mount, "no mount for %s", dir);
	cr_assert_eq(fs.page_cache_volatile, false);
	cr_assert_eq(stg_detect_fs("/no/such/path", &fs), -ENOENT);
	fr_test_rmtree(dir);
}

FR_TEST(detect_fs, tmpfs_is_memory_backed)
{
	struct stg_fs_info fs;
	char *dir = fr_test_tmpdir();
	int status;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("mounting a tmpfs needs root");
	/* mount in a child's own mount namespace: nothing leaks out */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("feedrate-test", dir, "tmpfs", 0, "size=1m"))
			_exit(77);
		stg_sysroot_set("/");
		if (stg_detect_fs(dir, &fs))
			_exit(1);
		_exit(fs.page_cache_volatile && !strcmp(fs.fs_family, "tmpfs") &&
		      fs.have_mount && !strcmp(fs.mount.fstype, "tmpfs") ? 0 : 2);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		fr_test_rmtree(dir);
		cr_skip_test("cannot mount a tmpfs here");
	}
	cr_assert_eq(WEXITSTATUS(status), 0, "child said %d",
		     WEXITSTATUS(status));
	fr_test_rmtree(dir);
}

FR_TEST(detect_fs, fixture_mounts_describe_a_real_path_by_prefix)
{
	struct stg_fs_info fs;
	char *dir = fr_test_tmpdir();

	/* the real device is not in the fixture: the longest mount point
	 * ("/") is taken, and its EBS disk described */
	use_fixture("cgv2_aws");
	cr_assert_eq(stg_detect_fs(dir, &fs), 0);
	cr_assert(fs.have_mount);
	cr_assert_str_eq(fs.mount.mount_point, "/");
	cr_assert(fs.have_blockdev);
	cr_assert_str_eq(fs.blockdev.model, "Amazon Elastic Block Store");
	fr_test_rmtree(dir);
}

/* ---- the command ---- */

FR_TEST(detect_cli, info_json_reports_fixture_machine)
{
	const char *bin = getenv("FEEDRATE_BIN");
	char fixture[PATH_MAX], cmd[2 * PATH_MAX + 128];
	json_error_t jerr;
	json_t *root, *cpu;
	FILE *p;

	if (!bin)
		cr_skip_test("FEEDRATE_BIN not set (run through make test)");
	cr_assert_not_null(realpath(FIXTURES "/cgv2_aws", fixture));
	snprintf(cmd, sizeof(cmd), "FEEDRATE_SYSROOT='%s' '%s' info "
		 "--steal-interval 0 --json - /var/tmp", fixture, bin);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	root = json_loadf(p, 0, &jerr);
	cr_assert_eq(pclose(p), 0);
	cr_assert_not_null(root, "bad JSON: %s", jerr.text);
	cpu = json_object_get(json_object_get(root, "machine"), "cpu");
	cr_assert_float_eq(json_real_value(json_object_get(cpu, "quota_cpus")),
			   0.5, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(cpu, "threads_per_core")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(root, "storage"), "blockdev"), "model")),
		"Amazon Elastic Block Store");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(
		json_object_get(root, "machine"), "gpus"), "count")), 2);
	json_decref(root);
}

/* `feedrate info` under the topology fixture NAME: its JSON (TEXT false)
 * or its text report, malloc'd. */
static char *info_of(const char *bin, const char *name, bool text)
{
	char fixture[PATH_MAX], rel[256], cmd[2 * PATH_MAX + 128];
	char *buf = NULL;
	size_t cap = 0, len = 0, n;
	FILE *p;

	snprintf(rel, sizeof(rel), "tests/fixtures/topology/%s", name);
	cr_assert_not_null(realpath(rel, fixture));
	snprintf(cmd, sizeof(cmd), "FEEDRATE_SYSROOT='%s' '%s' info "
		 "--steal-interval 0%s", fixture, bin, text ? "" : " --json -");
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	cr_assert_eq(pclose(p), 0);
	return buf;
}

FR_TEST(detect_cli, info_says_what_one_vcpu_is_thread_or_core)
{
	static const struct {
		const char *fixture, *kind, *line;
	} cases[] = {
		{ "two_socket_smt", "thread", "vCPU kind         thread (SMT "
		  "siblings present: 2 threads per core)\n" },
		{ "no_smt", "core", "vCPU kind         core (no SMT "
		  "siblings)\n" },
	};
	const char *bin = getenv("FEEDRATE_BIN");

	if (!bin)
		cr_skip_test("FEEDRATE_BIN not set (run through make test)");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_error_t jerr;
		json_t *root;
		char *out = info_of(bin, cases[i].fixture, false);

		root = json_loads(out, 0, &jerr);
		cr_assert_not_null(root, "bad JSON: %s", jerr.text);
		cr_assert_str_eq(json_string_value(json_object_get(
			json_object_get(json_object_get(root, "machine"),
					"cpu"), "vcpu_kind")), cases[i].kind);
		json_decref(root);
		free(out);
		out = info_of(bin, cases[i].fixture, true);
		cr_assert_not_null(strstr(out, cases[i].line), "%s", out);
		free(out);
	}
}
