/*
 * test_fuzz_regress.c - inputs that made a libFuzzer target (tests/fuzz/)
 * fail, replayed from tests/fixtures/fuzz/ with the property that broke.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "loader.h"
#include "storage.h"

#define FUZZ_FIXTURES "tests/fixtures/fuzz/"

/* The whole fixture NAME as a string (malloc'd). */
static char *fixture_text(const char *name)
{
	char path[256], *buf;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), FUZZ_FIXTURES "%s", name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s (run from the source tree)", path,
			   strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/*
 * "1-5:244...4,9": the stride saturates strtoul; c += stride wrapped
 * around to 0 and CPU 0, outside the range 1-5, was set.
 */
FR_TEST(fuzz_regress, cpulist_huge_stride_takes_the_range_start_only)
{
	char *s = fixture_text("cpulist_stride_wrap.txt");
	cpu_set_t set;

	cr_assert_eq(stg_cpulist_parse(s, &set), 0);
	cr_expect_eq(CPU_COUNT(&set), 2);
	cr_expect(CPU_ISSET(1, &set) && CPU_ISSET(9, &set));
	cr_expect(!CPU_ISSET(0, &set), "CPU 0 is outside 1-5");
	free(s);
}

/* Part INDEX of a NUL-separated fuzz input (fuzz_sysroot's layout). */
static char *nul_part(const char *name, int index)
{
	char path[256], *buf, *p, *out;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), FUZZ_FIXTURES "%s", name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	p = buf;
	for (int i = 0; i < index; i++) {
		p = memchr(p, '\0', (size_t)(buf + len - p));
		cr_assert_not_null(p, "%s has no part %d", name, index);
		p++;
	}
	out = strdup(p);
	free(buf);
	return out;
}

/*
 * /proc/meminfo saying "MemTotal: 1073741899...9 kB" (saturating strtoll):
 * kB * 1024 overflowed int64_t. The size is unknown (-1) instead.
 */
FR_TEST(fuzz_regress, meminfo_beyond_int64_bytes_is_unknown)
{
	char *dir = fr_test_tmpdir(), path[4200];
	char *meminfo = nul_part("sysroot_meminfo_overflow.bin", 5);
	struct stg_mem_info mem;
	FILE *f;

	cr_assert(strstr(meminfo, "MemTotal:"), "fixture part: %s", meminfo);
	snprintf(path, sizeof(path), "%s/proc", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(meminfo, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(stg_sysroot_set(dir), 0);
	cr_assert_eq(stg_detect_mem(&mem), 0);
	stg_sysroot_set(NULL);
	cr_expect_eq(mem.total_bytes, -1, "MemTotal gave %lld bytes",
		     (long long)mem.total_bytes);
	free(meminfo);
	fr_test_rmtree(dir);
}
