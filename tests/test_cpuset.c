/*
 * test_cpuset.c - the choice of K CPUs as SMT sibling pairs in one NUMA
 * node, on fixture machines (CPU lists themselves: test_sysfacts.c).
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

	cr_assert_eq(stg_cpulist_parse(list, &s), 0, "list \"%s\"", list);
	return s;
}

static void assert_set(const cpu_set_t *got, const char *want)
{
	char buf[256];
	cpu_set_t w = set_of(want);

	stg_cpulist_format(got, buf, sizeof(buf));
	cr_assert(CPU_EQUAL(got, &w), "got CPUs %s, want %s", buf, want);
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

/* ---- a local rank's share of the node ---- */

/* Every rank's share of USABLE among SIZE: WANT[r] each; the shares are
 * disjoint and cover USABLE when nothing is shared. */
static void shares_are(const char *usable, unsigned size,
		       const char *const *want, bool want_shared)
{
	cpu_set_t u = set_of(usable), all;

	CPU_ZERO(&all);
	for (unsigned r = 0; r < size; r++) {
		cpu_set_t got, both;
		bool shared = !want_shared;

		cr_assert_eq(ldr_cpus_node_share(&u, r, size, &got, &shared),
			     0, "rank %u of %u over %s", r, size, usable);
		cr_assert_eq(shared, want_shared, "rank %u of %u over %s", r,
			     size, usable);
		assert_set(&got, want[r]);
		CPU_AND(&both, &all, &got);
		if (!want_shared)
			cr_assert_eq(CPU_COUNT(&both), 0, "rank %u overlaps", r);
		CPU_OR(&all, &all, &got);
	}
	cr_assert(CPU_EQUAL(&all, &u), "the shares cover %s", usable);
}

FR_TEST(cpus_node_share, slices_in_cpu_order_when_siblings_are_unknown)
{
	static const char *const three[] = { "0-1", "2-4", "5-7" };
	static const char *const two[] = { "0-3", "4-7" };
	static const char *const one[] = { "0-7" };

	use_fixture("missing");
	shares_are("0-7", 3, three, false);
	shares_are("0-7", 2, two, false);
	shares_are("0-7", 1, one, false);
}

FR_TEST(cpus_node_share, sibling_pairs_stay_together)
{
	/* siblings are N and N+8: a slice is whole cores */
	static const char *const three[] = { "0-1,8-9", "2-4,10-12",
					     "5-7,13-15" };
	static const char *const two[] = { "0-3,8-11", "4-7,12-15" };
	/* fewer cores than ranks: CPUs are cut one by one */
	static const char *const six[] = { "0", "1", "2-3", "8", "9",
					   "10-11" };

	use_fixture("two_socket_smt");
	shares_are("0-15", 3, three, false);
	shares_are("0-15", 2, two, false);
	shares_are("0-3,8-11", 6, six, false);
}

FR_TEST(cpus_node_share, fewer_cpus_than_ranks_share_them_in_turn)
{
	static const char *const three[] = { "0", "1", "0" };
	static const char *const five[] = { "2", "5", "7", "2", "5" };

	use_fixture("missing");
	shares_are("0-1", 3, three, true);
	shares_are("2,5,7", 5, five, true);
}

FR_TEST(cpus_node_share, a_rank_outside_the_node_is_refused)
{
	cpu_set_t u = set_of("0-3"), out;

	cr_assert_eq(ldr_cpus_node_share(&u, 0, 0, &out, NULL), -EINVAL);
	cr_assert_eq(ldr_cpus_node_share(&u, 2, 2, &out, NULL), -EINVAL);
	CPU_ZERO(&u);
	cr_assert_eq(ldr_cpus_node_share(&u, 0, 1, &out, NULL), -EINVAL);
	/* NULL: this process's mask */
	cr_assert_eq(ldr_cpus_node_share(NULL, 0, 1, &out, NULL), 0);
	cr_assert_gt(CPU_COUNT(&out), 0);
}
