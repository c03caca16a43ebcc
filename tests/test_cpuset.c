/*
 * test_cpuset.c - CPU lists, the choice of K CPUs as SMT sibling pairs in
 * one NUMA node (on fixture machines), and busy time from /proc/stat.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

#define FIX "tests/fixtures/topology/"

static cpu_set_t set_of(const char *list)
{
	cpu_set_t s;

	cr_assert_eq(ldr_cpulist_parse(list, &s), 0, "list \"%s\"", list);
	return s;
}

static void assert_set(const cpu_set_t *got, const char *want)
{
	char buf[256];
	cpu_set_t w = set_of(want);

	ldr_cpulist_format(got, buf, sizeof(buf));
	cr_assert(CPU_EQUAL(got, &w), "got CPUs %s, want %s", buf, want);
}

FR_TEST(cpulist, parses_ranges_singles_and_strides)
{
	static const struct {
		const char *in;
		const char *canon;      /* formatted back */
		int count;
	} ok[] = {
		{ "0-3,8,10-11", "0-3,8,10-11", 7 },
		{ "0", "0", 1 },
		{ "5,1,3", "1,3,5", 3 },
		{ "0-7:2", "0,2,4,6", 4 },
		{ "  2-3\n", "2-3", 2 },
		{ "", "", 0 },
		{ "\n", "", 0 },
		{ "0-1,1-2", "0-2", 3 },
		{ "1023", "1023", 1 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cpu_set_t s;
		char buf[64];

		cr_assert_eq(ldr_cpulist_parse(ok[i].in, &s), 0, "\"%s\"",
			     ok[i].in);
		cr_assert_eq(CPU_COUNT(&s), ok[i].count, "\"%s\"", ok[i].in);
		cr_assert_geq(ldr_cpulist_format(&s, buf, sizeof(buf)), 0);
		cr_assert_str_eq(buf, ok[i].canon, "\"%s\"", ok[i].in);
	}
}

FR_TEST(cpulist, rejects_malformed_lists)
{
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{ "a", -EINVAL }, { "1-", -EINVAL }, { "-1", -EINVAL },
		{ "3-1", -EINVAL }, { "1,,2", -EINVAL }, { "1,", -EINVAL },
		{ "1 2", -EINVAL }, { "0-4:0", -EINVAL }, { "1;2", -EINVAL },
		{ "1024", -ERANGE }, { "0-99999999999999999999", -ERANGE },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cpu_set_t s;

		cr_assert_eq(ldr_cpulist_parse(bad[i].in, &s), bad[i].err,
			     "\"%s\"", bad[i].in);
	}
	cr_assert_eq(ldr_cpulist_parse(NULL, &(cpu_set_t){ 0 }), -EINVAL);
}

FR_TEST(cpulist, format_says_when_the_list_is_cut)
{
	cpu_set_t s = set_of("0,2,4,6,8,10,12,14,16");
	char buf[8];

	cr_assert_eq(ldr_cpulist_format(&s, buf, sizeof(buf)), -ENAMETOOLONG);
	cr_assert(strstr(buf, "...") != NULL, "got \"%s\"", buf);
	cr_assert_lt(strlen(buf), sizeof(buf));
}

/* the fixture machines are read from the source tree */
static void use_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), FIX "%s", name);
	cr_assert_eq(access(path, F_OK), 0, "fixture %s missing (run the "
		     "tests from the repository root)", path);
	cr_assert_eq(stg_sysroot_set(path), 0);
}

FR_TEST(cpus_choose, two_sockets_take_sibling_pairs_on_one_node)
{
	static const struct {
		unsigned k;
		const char *usable, *want;
		int node;
		unsigned split;
	} cases[] = {
		/* siblings are N and N+8; node 0 = 0-3,8-11 */
		{ 1, "0-15", "0", 0, 1 },
		{ 2, "0-15", "0,8", 0, 0 },
		{ 3, "0-15", "0-1,8", 0, 1 },
		{ 4, "0-15", "0-1,8-9", 0, 0 },
		{ 8, "0-15", "0-3,8-11", 0, 0 },
		/* node 0 cannot pair 6 (cpu10, 11 not usable), node 1 can */
		{ 6, "0-9,12-15", "4-6,12-14", 1, 0 },
		/* odd K: a core whose sibling is not usable takes the odd one,
		 * nothing is split */
		{ 5, "0-3,8-9", "0-2,8-9", 0, 0 },
		/* only node 1 is usable */
		{ 2, "4-7,12-15", "4,12", 1, 0 },
	};

	use_fixture("two_socket_smt");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cpu_set_t u = set_of(cases[i].usable);
		struct ldr_cpu_choice c;

		cr_assert_eq(ldr_cpus_choose(cases[i].k, &u, &c), 0,
			     "case %zu: %s", i, c.how);
		assert_set(&c.set, cases[i].want);
		cr_assert_eq(c.count, cases[i].k);
		cr_assert_eq(c.pick, LDR_CPU_PICK_SMT_PAIRS, "case %zu", i);
		cr_assert_eq(c.node, cases[i].node, "case %zu: %s", i, c.how);
		cr_assert_eq(c.split_cores, cases[i].split, "case %zu: %s", i,
			     c.how);
		cr_assert(strstr(c.how, "SMT sibling pairs") != NULL, "%s",
			  c.how);
	}
}

FR_TEST(cpus_choose, more_than_one_node_holds_spans_nodes_and_says_so)
{
	cpu_set_t u = set_of("0-15");
	struct ldr_cpu_choice c;

	use_fixture("two_socket_smt");
	cr_assert_eq(ldr_cpus_choose(10, &u, &c), 0, "%s", c.how);
	cr_assert_eq(CPU_COUNT(&c.set), 10);
	cr_assert_eq(c.node, -1);
	cr_assert_eq(c.split_cores, 0);
	/* whole cores in core order: 0/8 .. 4/12 */
	assert_set(&c.set, "0-4,8-12");
	cr_assert(strstr(c.how, "spanning NUMA nodes") != NULL, "%s", c.how);
}

FR_TEST(cpus_choose, no_smt_machine_takes_cores_and_says_so)
{
	cpu_set_t u = set_of("0-3");
	struct ldr_cpu_choice c;

	use_fixture("no_smt");
	cr_assert_eq(ldr_cpus_choose(3, &u, &c), 0, "%s", c.how);
	assert_set(&c.set, "0-2");
	cr_assert_eq(c.pick, LDR_CPU_PICK_NO_SMT);
	cr_assert_eq(c.node, 0);
	cr_assert_eq(c.split_cores, 0);
	cr_assert(strstr(c.how, "no SMT") != NULL, "%s", c.how);
}

FR_TEST(cpus_choose, adjacent_siblings_without_numa_info_still_pair)
{
	cpu_set_t u = set_of("1-5");
	struct ldr_cpu_choice c;

	use_fixture("adjacent_no_numa");
	/* cpu0 is not usable, so core 0-1 only offers cpu1: pairs 2-3 and
	 * 4-5 are whole */
	cr_assert_eq(ldr_cpus_choose(4, &u, &c), 0, "%s", c.how);
	assert_set(&c.set, "2-5");
	cr_assert_eq(c.node, -1);
	cr_assert(strstr(c.how, "NUMA nodes unknown") != NULL, "%s", c.how);
	/* 3: the lone cpu1 takes the odd place rather than splitting */
	cr_assert_eq(ldr_cpus_choose(3, &u, &c), 0, "%s", c.how);
	assert_set(&c.set, "1-3");
	cr_assert_eq(c.split_cores, 0);
}

FR_TEST(cpus_choose, missing_topology_falls_back_to_the_first_cpus_labelled)
{
	cpu_set_t u = set_of("2,5,7,9");
	struct ldr_cpu_choice c;

	use_fixture("missing");
	cr_assert_eq(ldr_cpus_choose(3, &u, &c), 0, "%s", c.how);
	assert_set(&c.set, "2,5,7");
	cr_assert_eq(c.pick, LDR_CPU_PICK_FIRST);
	cr_assert_eq(c.node, -1);
	cr_assert(strstr(c.how, "topology unreadable") != NULL, "%s", c.how);
	cr_assert(strstr(c.how, "cpu2") != NULL, "names the file: %s", c.how);
}

FR_TEST(cpus_choose, more_cpus_than_usable_is_an_error_in_words)
{
	cpu_set_t u = set_of("0-1");
	struct ldr_cpu_choice c;

	use_fixture("two_socket_smt");
	cr_assert_eq(ldr_cpus_choose(3, &u, &c), -ERANGE);
	cr_assert(strstr(c.how, "--vcpus 3") != NULL, "%s", c.how);
	cr_assert(strstr(c.how, "only 2 CPUs are usable (0-1)") != NULL, "%s",
		  c.how);
	cr_assert_eq(ldr_cpus_choose(0, &u, &c), -EINVAL);
	cr_assert_neq(c.how[0], '\0');
}

FR_TEST(cpus_choose, default_mask_is_this_process_affinity)
{
	cpu_set_t mine;
	struct ldr_cpu_choice c;
	unsigned n;

	stg_sysroot_set("/");
	cr_assert_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
	n = (unsigned)CPU_COUNT(&mine);
	cr_assert_eq(ldr_cpus_choose(n, NULL, &c), 0, "%s", c.how);
	cr_assert(CPU_EQUAL(&c.set, &mine), "%s", c.how);
	cr_assert_eq(ldr_cpus_choose(n + 1, NULL, &c), -ERANGE);
}

FR_TEST(procstat, busy_outside_mask_counts_user_system_irq_not_steal)
{
	struct ldr_cpu_times a, b;
	cpu_set_t m0 = set_of("0"), m1 = set_of("1");
	double hz = (double)sysconf(_SC_CLK_TCK);

	use_fixture("procstat_before");
	cr_assert_eq(ldr_cpu_times_read(&a), 0);
	use_fixture("procstat_after");
	cr_assert_eq(ldr_cpu_times_read(&b), 0);
	cr_assert_eq(CPU_COUNT(&a.present), 4);
	/* cpu0: user +50, system +10, steal +4 (not counted) = 60 ticks;
	 * cpu1: user +100, system +20, irq +2, softirq +2 = 124 (iowait +70
	 * and guest +50, already inside user, not counted) */
	cr_assert_float_eq(ldr_cpu_times_busy_outside(&a, &b, &m0),
			   124.0 / hz, 1e-9);
	cr_assert_float_eq(ldr_cpu_times_busy_outside(&a, &b, &m1),
			   60.0 / hz, 1e-9);
	cr_assert_float_eq(ldr_cpu_times_busy_outside(&a, &b, NULL),
			   184.0 / hz, 1e-9);
	/* counters going backwards (the wrong order) count nothing */
	cr_assert_float_eq(ldr_cpu_times_busy_outside(&b, &a, NULL), 0.0,
			   1e-12);
}

FR_TEST(procstat, missing_proc_stat_is_an_error)
{
	struct ldr_cpu_times a;

	use_fixture("missing");
	cr_assert_eq(ldr_cpu_times_read(&a), -ENOENT);
}
