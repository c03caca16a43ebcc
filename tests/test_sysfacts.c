/*
 * test_sysfacts.c - the system facts every module shares (storage/
 * sysfacts.c): the monotonic clock, mountinfo and the mount under a path,
 * this process's cgroups with their CPU quota and memory limit, kernel CPU
 * lists, SMT siblings and the usable CPUs. Read against the fixtures in
 * tests/fixtures/sysroot and tests/fixtures/topology, and against small
 * machines the tests write where a case needs its own files.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "storage.h"

/* Point the sysroot at tests/fixtures/SUB (tests run from the repository
 * root). */
static void use_fixture(const char *sub)
{
	char rel[256], abs[PATH_MAX];

	snprintf(rel, sizeof(rel), "tests/fixtures/%s", sub);
	cr_assert_not_null(realpath(rel, abs), "fixture %s missing (run the "
			   "tests from the repository root)", rel);
	cr_assert_eq(stg_sysroot_set(abs), 0);
}

/* Write TEXT into ROOT/REL, making the folders on the way. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "%s", path);
		*s = '/';
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static cpu_set_t set_of(const char *list)
{
	cpu_set_t s;

	cr_assert_eq(stg_cpulist_parse(list, &s), 0, "list \"%s\"", list);
	return s;
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

/* ---- clock ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

FR_TEST(sysfacts_clock, both_readings_are_clock_monotonic)
{
	for (int i = 0; i < 1000; i++) {
		const uint64_t a = mono_ns(), ns = stg_now_ns();
		const uint64_t b = mono_ns();
		const double s = stg_now();
		const uint64_t c = mono_ns();

		cr_assert(a <= ns && ns <= b, "%lu not in [%lu, %lu]",
			  (unsigned long)ns, (unsigned long)a,
			  (unsigned long)b);
		/* a double holds ns to about 0.1 us at a few days' uptime */
		cr_assert(s >= (double)b / 1e9 - 1e-6 &&
			  s <= (double)c / 1e9 + 1e-6, "%.9f", s);
	}
}

/* ---- mountinfo ---- */

struct count {
	int lines, stop_at;
	char last[STG_PATH_MAX];
};

static int count_line(const struct stg_mount *m, void *arg)
{
	struct count *c = arg;

	snprintf(c->last, sizeof(c->last), "%s", m->mount_point);
	return ++c->lines == c->stop_at ? 42 : 0;
}

FR_TEST(sysfacts_mountinfo, every_line_in_order_and_fn_can_stop_it)
{
	struct count c = { 0 };

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_mountinfo_each(count_line, &c), 0);
	cr_assert_eq(c.lines, 10);
	cr_assert_str_eq(c.last, "/mnt/mp");
	c = (struct count){ .stop_at = 4 };
	cr_assert_eq(stg_mountinfo_each(count_line, &c), 42);
	cr_assert_eq(c.lines, 4);
	cr_assert_str_eq(c.last, "/sys/fs/cgroup");
}

FR_TEST(sysfacts_mountinfo, unparsable_lines_are_skipped_missing_file_is_enoent)
{
	struct count c = { 0 };
	char *dir = fr_test_tmpdir();

	use_fixture("sysroot/garbage");
	cr_assert_eq(stg_mountinfo_each(count_line, &c), 0);
	cr_assert_eq(c.lines, 0);
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_mountinfo_each(count_line, &c), -ENOENT);
	fr_test_rmtree(dir);
}

FR_TEST(sysfacts_mount, longest_mount_point_at_a_component_boundary)
{
	struct stg_mount m;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_mount_find("/mnt/data/train/x.jpg", 0, &m), 0);
	cr_assert_str_eq(m.mount_point, "/mnt/data");
	cr_assert_str_eq(m.fstype, "xfs");
	cr_assert_eq(m.major, 259);
	cr_assert_eq(m.minor, 3);
	/* "/mnt/database" is not under "/mnt/data" */
	cr_assert_eq(stg_mount_find("/mnt/database", 0, &m), 0);
	cr_assert_str_eq(m.mount_point, "/");
	cr_assert_str_eq(m.source, "/dev/nvme0n1p1");
	cr_assert_eq(stg_mount_find("/mnt/data", 0, &m), 0);
	cr_assert_str_eq(m.mount_point, "/mnt/data");
}

FR_TEST(sysfacts_mount, fuse_subtype_and_source)
{
	struct stg_mount m;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_mount_find("/mnt/s3/bucket/a.jpg", 0, &m), 0);
	cr_assert_str_eq(m.fstype, "fuse.s3fs");
	cr_assert_str_eq(m.source, "s3fs");
	cr_assert_eq(stg_mount_find("/mnt/mp/k", 0, &m), 0);
	cr_assert_str_eq(m.fstype, "fuse");
	cr_assert_str_eq(m.source, "mountpoint-s3");
}

FR_TEST(sysfacts_mount, octal_escapes_decoded)
{
	struct stg_mount m;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_mount_find("/mnt/my data/f", 0, &m), 0);
	cr_assert_str_eq(m.mount_point, "/mnt/my data");
	cr_assert_str_eq(m.root, "/sub dir");
	cr_assert_eq(stg_mount_find("/mnt/my\\040data/f", 0, &m), 0);
	cr_assert_str_eq(m.mount_point, "/");
}

FR_TEST(sysfacts_mount, device_number_match_beats_longer_path)
{
	struct stg_mount m;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_mount_find("/mnt/data/x", makedev(259, 1), &m), 0);
	cr_assert_str_eq(m.mount_point, "/");
	cr_assert_eq(stg_mount_find("relative", 0, &m), -EINVAL);
}

FR_TEST(sysfacts_mount, no_mountinfo_is_an_error_not_a_mount)
{
	struct stg_mount m;
	char *dir = fr_test_tmpdir();

	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_mount_find("/data", 0, &m), -ENOENT);
	use_fixture("sysroot/garbage");
	cr_assert_eq(stg_mount_find("/data", 0, &m), -ENOENT);
	fr_test_rmtree(dir);
}

/* ---- /proc/self/cgroup ---- */

FR_TEST(sysfacts_cgroup, self_path_of_a_v1_controller_and_of_v2)
{
	static const struct {
		const char *fixture;
		int version;
		const char *controller, *want;
		int err;
	} t[] = {
		{ "sysroot/cgv1_smt", 1, "memory", "/docker/abc123", 0 },
		{ "sysroot/cgv1_smt", 1, "cpu", "/docker/abc123", 0 },
		{ "sysroot/cgv1_smt", 1, "cpuacct", "/docker/abc123", 0 },
		{ "sysroot/cgv1_smt", 2, NULL, "/", 0 },
		/* "cpu" is not "cpuset", nor a prefix match of "cpu,cpuacct" */
		{ "sysroot/cgv1_smt", 1, "cpus", "", -ENOENT },
		{ "sysroot/cgv1_smt", 1, "io", "", -ENOENT },
		{ "sysroot/cgv2_aws", 2, NULL, "/system.slice/train.service", 0 },
		{ "sysroot/cgv2_aws", 2, "memory",
		  "/system.slice/train.service", 0 },
		{ "sysroot/cgv2_aws", 1, "memory", "", -ENOENT },
		{ "sysroot/garbage", 2, NULL, "/a", 0 },
		{ "topology/no_memcg", 1, "cpu", "/", 0 },
		{ "topology/no_memcg", 1, "memory", "", -ENOENT },
		{ "sysroot/cgv2_aws", 1, NULL, "", -EINVAL },
		{ "sysroot/cgv2_aws", 3, NULL, "", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char buf[256] = "x";

		use_fixture(t[i].fixture);
		cr_assert_eq(stg_cgroup_self_path(t[i].version,
						  t[i].controller, buf,
						  sizeof(buf)), t[i].err,
			     "case %zu", i);
		cr_assert_str_eq(buf, t[i].want, "case %zu", i);
	}
}

FR_TEST(sysfacts_cgroup, self_path_too_long_or_file_missing)
{
	char buf[8], *dir = fr_test_tmpdir();

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_cgroup_self_path(2, NULL, buf, sizeof(buf)),
		     -ENAMETOOLONG);
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cgroup_self_path(2, NULL, buf, sizeof(buf)),
		     -ENOENT);
	fr_test_rmtree(dir);
}

/* ---- cgroup folders ---- */

FR_TEST(sysfacts_cgroup, v2_folder_is_the_mount_plus_the_self_path)
{
	struct stg_cgroup cg;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_cgroup_find(2, NULL, &cg), 0);
	cr_assert_eq(cg.version, 2);
	cr_assert_str_eq(cg.mount_point, "/sys/fs/cgroup");
	cr_assert_str_eq(cg.self, "/system.slice/train.service");
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/system.slice/train.service");
	/* the v2 tree offers memory (cgroup.controllers), not hugetlb */
	cr_assert_eq(stg_cgroup_find(2, "memory", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/system.slice/train.service");
	cr_assert_eq(stg_cgroup_find(2, "hugetlb", &cg), -ENOENT);
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), -ENOENT);
}

FR_TEST(sysfacts_cgroup, v1_container_mount_root_is_its_own_group)
{
	struct stg_cgroup cg;

	/* the mount shows /docker/abc123 as its top: that is our group */
	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), 0);
	cr_assert_eq(cg.version, 1);
	cr_assert_str_eq(cg.mount_point, "/sys/fs/cgroup/memory");
	cr_assert_str_eq(cg.self, "/docker/abc123");
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/memory");
	cr_assert_eq(stg_cgroup_find(1, "cpu", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/cpu,cpuacct");
	/* no cgroup2 mount, and no /sys/fs/cgroup/cgroup.controllers */
	cr_assert_eq(stg_cgroup_find(2, NULL, &cg), -ENOENT);
	cr_assert_eq(stg_cgroup_find(1, NULL, &cg), -EINVAL);
}

FR_TEST(sysfacts_cgroup, hybrid_v2_tree_without_memory_is_skipped_for_memory)
{
	struct stg_cgroup cg;

	use_fixture("topology/no_memcg");
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), -ENOENT);
	cr_assert_eq(stg_cgroup_find(2, "memory", &cg), -ENOENT);
	cr_assert_eq(stg_cgroup_find(2, NULL, &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/unified");
	cr_assert_eq(stg_cgroup_find(1, "cpu", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup");
}

FR_TEST(sysfacts_cgroup, path_below_the_mount_root_and_outside_it)
{
	char *dir = fr_test_tmpdir();
	struct stg_cgroup cg;

	put(dir, "proc/self/mountinfo",
	    "30 1 0:27 /kubepods /sys/fs/cgroup/memory rw - cgroup cgroup "
	    "rw,memory\n"
	    "31 1 0:28 /kubepods /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
	put(dir, "proc/self/cgroup",
	    "7:memory:/kubepods/pod1/c2\n3:cpu:/system.slice/x\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	/* below the root: the part under it, joined to the mount point */
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/memory/pod1/c2");
	/* outside the root (a container's view): the mount's top */
	cr_assert_eq(stg_cgroup_find(1, "cpu", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/cpu");
	cr_assert_str_eq(cg.self, "/system.slice/x");
	fr_test_rmtree(dir);
}

FR_TEST(sysfacts_cgroup, mounted_but_not_named_in_proc_self_cgroup_is_enodata)
{
	char *dir = fr_test_tmpdir();
	struct stg_cgroup cg;

	put(dir, "proc/self/mountinfo",
	    "30 1 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
	put(dir, "proc/self/cgroup", "3:cpu:/x\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), -ENODATA);
	fr_test_rmtree(dir);
}

FR_TEST(sysfacts_cgroup, without_mountinfo_the_usual_place_is_taken)
{
	struct stg_cgroup cg;
	char *dir = fr_test_tmpdir();

	/* garbage: mountinfo unparsable, /sys/fs/cgroup is a v2 tree */
	use_fixture("sysroot/garbage");
	cr_assert_eq(stg_cgroup_find(2, NULL, &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/a");
	/* v1 in its usual folders: cpu,cpuacct for cpu */
	put(dir, "proc/self/cgroup", "4:cpu,cpuacct:/\n5:memory:/m\n");
	put(dir, "sys/fs/cgroup/cpu,cpuacct/cgroup.procs", "1\n");
	put(dir, "sys/fs/cgroup/memory/cgroup.procs", "1\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cgroup_find(1, "cpu", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/cpu,cpuacct");
	cr_assert_eq(stg_cgroup_find(1, "memory", &cg), 0);
	cr_assert_str_eq(cg.dir, "/sys/fs/cgroup/memory/m");
	cr_assert_eq(stg_cgroup_find(2, NULL, &cg), -ENOENT);
	fr_test_rmtree(dir);
}

/* ---- CPU quota and memory limit ---- */

FR_TEST(sysfacts_quota, v2_lowest_ancestor_quota_wins)
{
	char src[STG_PATH_MAX];
	double q;

	use_fixture("sysroot/cgv2_aws");
	/* train.service says 1.5, its parent system.slice 0.5: 0.5 wins */
	cr_assert_eq(stg_cgroup_cpu_quota(&q, src, sizeof(src)), 0);
	cr_assert_float_eq(q, 0.5, 1e-9);
	cr_assert_str_eq(src, "/sys/fs/cgroup/system.slice/cpu.max");
	cr_assert_eq(stg_cgroup_cpu_quota(&q, NULL, 0), 0);
	cr_assert_float_eq(q, 0.5, 1e-9);
}

FR_TEST(sysfacts_quota, v1_quota_over_period)
{
	char src[STG_PATH_MAX];
	double q;

	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cgroup_cpu_quota(&q, src, sizeof(src)), 0);
	cr_assert_float_eq(q, 1.5, 1e-9);
	cr_assert_str_eq(src, "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us");
}

FR_TEST(sysfacts_quota, none_set_unreadable_or_nonsense_is_enoent)
{
	static const char *const cpu_max[] = {
		"max 100000\n", "0 100000\n", "50000 0\n", "nan 100000\n",
		"inf 100000\n", "-5 100000\n", "50000\n", "x y\n",
	};
	char src[STG_PATH_MAX] = "x", *dir = fr_test_tmpdir();
	double q = 7;

	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cgroup_cpu_quota(&q, src, sizeof(src)), -ENOENT);
	cr_assert_eq(q, -1);
	cr_assert_str_eq(src, "");
	put(dir, "proc/self/mountinfo",
	    "25 1 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put(dir, "proc/self/cgroup", "0::/\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	for (size_t i = 0; i < sizeof(cpu_max) / sizeof(cpu_max[0]); i++) {
		put(dir, "sys/fs/cgroup/cpu.max", cpu_max[i]);
		cr_assert_eq(stg_cgroup_cpu_quota(&q, src, sizeof(src)),
			     -ENOENT, "cpu.max \"%s\": %g", cpu_max[i], q);
	}
	put(dir, "sys/fs/cgroup/cpu.max", "300000 100000\n");
	cr_assert_eq(stg_cgroup_cpu_quota(&q, src, sizeof(src)), 0);
	cr_assert_float_eq(q, 3.0, 1e-9);
	fr_test_rmtree(dir);
}

FR_TEST(sysfacts_memlimit, v2_and_v1_limits_and_none)
{
	char src[STG_PATH_MAX], *dir = fr_test_tmpdir();
	int64_t b;

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_cgroup_mem_limit(&b, src, sizeof(src)), 0);
	cr_assert_eq(b, 8589934592LL);
	cr_assert(ends_with(src, "train.service/memory.max"), "%s", src);
	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cgroup_mem_limit(&b, src, sizeof(src)), 0);
	cr_assert_eq(b, 4294967296LL);
	cr_assert_str_eq(src, "/sys/fs/cgroup/memory/memory.limit_in_bytes");
	/* "unlimited" in v1 is a huge number: no limit */
	put(dir, "proc/self/mountinfo",
	    "30 1 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
	put(dir, "proc/self/cgroup", "7:memory:/\n");
	put(dir, "sys/fs/cgroup/memory/memory.limit_in_bytes",
	    "9223372036854771712\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cgroup_mem_limit(&b, src, sizeof(src)), -ENOENT);
	cr_assert_eq(b, -1);
	cr_assert_str_eq(src, "");
	fr_test_rmtree(dir);
}

/* ---- CPU lists ---- */

FR_TEST(sysfacts_cpulist, parses_ranges_singles_and_strides)
{
	static const struct {
		const char *in;
		const char *canon;      /* formatted back */
		int count;
	} ok[] = {
		{ "0-3,8,10-11", "0-3,8,10-11", 7 },
		{ "0", "0", 1 },
		{ "5,1,3", "1,3,5", 3 },
		{ "48,0", "0,48", 2 },
		{ "0-7:2", "0,2,4,6", 4 },
		{ "1-9:4", "1,5,9", 3 },
		{ "  2-3\n", "2-3", 2 },
		{ "0-3,8-11\n", "0-3,8-11", 8 },
		{ "", "", 0 },
		{ "\n", "", 0 },
		{ "0-1,1-2", "0-2", 3 },
		{ "1023", "1023", 1 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cpu_set_t s;
		char buf[64];

		cr_assert_eq(stg_cpulist_parse(ok[i].in, &s), 0, "\"%s\"",
			     ok[i].in);
		cr_assert_eq(CPU_COUNT(&s), ok[i].count, "\"%s\"", ok[i].in);
		cr_assert_geq(stg_cpulist_format(&s, buf, sizeof(buf)), 0);
		cr_assert_str_eq(buf, ok[i].canon, "\"%s\"", ok[i].in);
	}
}

FR_TEST(sysfacts_cpulist, rejects_malformed_lists)
{
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{ "a", -EINVAL }, { "1-", -EINVAL }, { "0-", -EINVAL },
		{ "-1", -EINVAL }, { "3-1", -EINVAL }, { "1,,2", -EINVAL },
		{ "1,", -EINVAL }, { "1 2", -EINVAL }, { "0-4:0", -EINVAL },
		{ "0-4:", -EINVAL }, { "1;2", -EINVAL }, { "1024", -ERANGE },
		{ "0-99999999999999999999", -ERANGE },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cpu_set_t s;

		cr_assert_eq(stg_cpulist_parse(bad[i].in, &s), bad[i].err,
			     "\"%s\"", bad[i].in);
	}
	cr_assert_eq(stg_cpulist_parse(NULL, &(cpu_set_t){ 0 }), -EINVAL);
}

FR_TEST(sysfacts_cpulist, format_says_when_the_list_is_cut)
{
	cpu_set_t s = set_of("0,2,4,6,8,10,12,14,16");
	char buf[8];

	cr_assert_eq(stg_cpulist_format(&s, buf, sizeof(buf)), -ENAMETOOLONG);
	cr_assert(strstr(buf, "...") != NULL, "got \"%s\"", buf);
	cr_assert_lt(strlen(buf), sizeof(buf));
}

/* ---- SMT siblings ---- */

FR_TEST(sysfacts_siblings, sibling_lists_of_smt_and_non_smt_machines)
{
	static const struct {
		const char *fixture;
		unsigned cpu;
		const char *want;
	} t[] = {
		{ "sysroot/cgv1_smt", 0, "0,48" },
		{ "sysroot/cgv1_smt", 48, "0,48" },
		{ "sysroot/cgv2_aws", 3, "1,3" },
		{ "topology/adjacent_no_numa", 4, "4-5" },
		{ "topology/no_smt", 2, "2" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cpu_set_t got, want = set_of(t[i].want);

		use_fixture(t[i].fixture);
		cr_assert_eq(stg_cpu_siblings(t[i].cpu, &got), 0, "case %zu",
			     i);
		cr_assert(CPU_EQUAL(&got, &want), "case %zu", i);
	}
}

FR_TEST(sysfacts_siblings, missing_unparsable_or_foreign_lists_are_errors)
{
	char *dir = fr_test_tmpdir();
	cpu_set_t got;

	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cpu_siblings(7, &got), -ENOENT);
	cr_assert_eq(stg_cpu_siblings(CPU_SETSIZE, &got), -ERANGE);
	use_fixture("sysroot/garbage");
	cr_assert_eq(stg_cpu_siblings(0, &got), -EINVAL);
	cr_assert_eq(CPU_COUNT(&got), 0);
	/* a list that does not hold the CPU itself is not its siblings */
	put(dir, "sys/devices/system/cpu/cpu1/topology/thread_siblings_list",
	    "2-3\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cpu_siblings(1, &got), -EINVAL);
	fr_test_rmtree(dir);
}

FR_TEST(sysfacts_online, online_cpus_come_from_the_sysroot)
{
	char *dir = fr_test_tmpdir();
	cpu_set_t got, want = set_of("0-3");

	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_cpus_online(&got), 0);
	cr_assert(CPU_EQUAL(&got, &want));
	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cpus_online(&got), -ENOENT);
	cr_assert_eq(CPU_COUNT(&got), 0);
	put(dir, "sys/devices/system/cpu/online", "0-1,x\n");
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cpus_online(&got), -EINVAL);
	cr_assert_eq(CPU_COUNT(&got), 0);
	put(dir, "sys/devices/system/cpu/online", "2,5-6\n");
	want = set_of("2,5-6");
	cr_assert_eq(stg_cpus_online(&got), 0);
	cr_assert(CPU_EQUAL(&got, &want));
	fr_test_rmtree(dir);
}

/* ---- usable CPUs ---- */

FR_TEST(sysfacts_usable, affinity_lowered_to_whole_quota_cpus_at_least_one)
{
	static const struct {
		int affinity;
		double quota;
		unsigned want;
	} t[] = {
		{ 4, -1, 4 },           /* no quota: the mask */
		{ 4, 0, 4 },
		{ 4, 8, 4 },            /* a quota above the mask: the mask */
		{ 4, 2.0, 2 },
		{ 4, 2.9, 2 },          /* whole CPUs */
		{ 4, 1.5, 1 },
		{ 4, 0.5, 1 },          /* at least one */
		{ 1, 0.1, 1 },
		{ -1, -1, 1 },          /* nothing known */
		{ 0, -1, 1 },
		{ -22, 3.5, 3 },        /* mask unreadable: the quota */
		{ 8, 1e300, 8 },
		{ -1, 1e300, INT_MAX },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_eq(stg_cpus_usable_from(t[i].affinity, t[i].quota),
			     t[i].want, "affinity %d, quota %g", t[i].affinity,
			     t[i].quota);
}

FR_TEST(sysfacts_usable, affinity_counts_this_process_mask)
{
	cr_assert_eq(stg_cpus_affinity(), real_affinity());
}

FR_TEST(sysfacts_usable, usable_cpus_follow_the_cgroup_quota)
{
	char *dir = fr_test_tmpdir();
	int aff = real_affinity();

	/* quota 0.5 (cgroup v2) and 1.5 (v1): one CPU either way */
	use_fixture("sysroot/cgv2_aws");
	cr_assert_eq(stg_cpus_usable(), 1);
	use_fixture("sysroot/cgv1_smt");
	cr_assert_eq(stg_cpus_usable(), 1);
	/* no quota: the whole mask */
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_cpus_usable(), (unsigned)aff);
	/* a quota of 3 CPUs */
	put(dir, "proc/self/mountinfo",
	    "25 1 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put(dir, "proc/self/cgroup", "0::/job\n");
	put(dir, "sys/fs/cgroup/job/cpu.max", "300000 100000\n");
	cr_assert_eq(stg_cpus_usable(), aff < 3 ? (unsigned)aff : 3u);
	fr_test_rmtree(dir);
}
