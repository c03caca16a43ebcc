/*
 * test_procstat.c - busy CPU time per CPU from /proc/stat (loader/
 * procstat.c), on the fixtures tests/fixtures/topology/procstat_*.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

#define FIX "tests/fixtures/topology/"

static void use_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), FIX "%s", name);
	cr_assert_eq(access(path, F_OK), 0, "fixture %s missing (run the "
		     "tests from the repository root)", path);
	cr_assert_eq(stg_sysroot_set(path), 0);
}

static cpu_set_t set_of(const char *list)
{
	cpu_set_t s;

	cr_assert_eq(stg_cpulist_parse(list, &s), 0, "list \"%s\"", list);
	return s;
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

FR_TEST(procstat, stat_without_per_cpu_lines_is_einval)
{
	char *dir = fr_test_tmpdir(), path[PATH_MAX];
	struct ldr_cpu_times a;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/stat", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	/* the total alone, and a CPU number no cpu_set_t holds */
	fputs("cpu  10 0 5 100 0 0 0 0 0 0\ncpu4096 1 2 3 4 5\nintr 1\n", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(ldr_cpu_times_read(&a), -EINVAL);
	cr_assert_eq(CPU_COUNT(&a.present), 0);
	fr_test_rmtree(dir);
}
