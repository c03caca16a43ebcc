/*
 * fuzz_sysroot.c - libFuzzer target for the readers of /proc and /sys
 * text: mountinfo, /proc/self/cgroup, cgroup cpu.max / memory.max /
 * cfs_quota_us, /proc/stat, /proc/meminfo, /proc/cpuinfo, the CPU and NUMA
 * topology lists and io_uring_disabled. The input is cut at NUL bytes into
 * those files (in that order), written into a private sysroot under
 * /var/tmp, and the detection functions read them back. None of the
 * functions called here creates or writes anything outside that folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader.h"
#include "storage.h"
#include "reader_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64] = "/var/tmp/feedrate-fuzz-sysroot-XXXXXX";
static bool ready;

/* Where each NUL-separated part of the input goes (some twice). */
static const char *const part_files[][3] = {
	{ "/proc/self/mountinfo" },
	{ "/proc/self/cgroup" },
	{ "/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/a/cpu.max" },
	{ "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/a/memory.max" },
	{ "/proc/stat" },
	{ "/proc/meminfo" },
	{ "/proc/cpuinfo" },
	{ "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
	  "/sys/fs/cgroup/cpu/cpu.cfs_period_us" },
	{ "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	  "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list" },
	{ "/sys/devices/system/node/node0/cpulist" },
	{ "/proc/sys/kernel/io_uring_disabled" },
};
#define NPARTS (sizeof(part_files) / sizeof(part_files[0]))

static const char *const dirs[] = {
	"/proc", "/proc/self", "/proc/sys", "/proc/sys/kernel", "/sys",
	"/sys/fs", "/sys/fs/cgroup", "/sys/fs/cgroup/a", "/sys/fs/cgroup/cpu",
	"/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu",
	"/sys/devices/system/cpu/cpu0", "/sys/devices/system/cpu/cpu0/topology",
	"/sys/devices/system/cpu/cpu1", "/sys/devices/system/cpu/cpu1/topology",
	"/sys/devices/system/node", "/sys/devices/system/node/node0",
};
#define NDIRS (sizeof(dirs) / sizeof(dirs[0]))

static void fz_cleanup(void)
{
	char p[PATH_MAX];

	for (size_t i = 0; i < NPARTS; i++)
		for (size_t j = 0; j < 3 && part_files[i][j]; j++) {
			snprintf(p, sizeof(p), "%s%s", root, part_files[i][j]);
			unlink(p);
		}
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/cgroup.controllers", root);
	unlink(p);
	for (size_t i = NDIRS; i-- > 0; ) {
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		rmdir(p);
	}
	rmdir(root);
}

static void fz_setup(void)
{
	char p[PATH_MAX];

	if (!mkdtemp(root))
		abort();
	atexit(fz_cleanup);
	for (size_t i = 0; i < NDIRS; i++) {
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		if (mkdir(p, 0755))
			abort();
	}
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/cgroup.controllers", root);
	FILE *f = fopen(p, "w");
	if (!f || fputs("cpu memory\n", f) < 0 || fclose(f))
		abort();
	if (stg_sysroot_set(root))
		abort();
	ready = true;
}

static void fz_write(const char *rel, const uint8_t *d, size_t n)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (n && write(fd, d, n) != (ssize_t)n) || close(fd))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ldr_cpu_times times;
	struct stg_cpu_info cpu;
	struct stg_mem_info mem;
	struct stg_mount m;
	struct ldr_cpu_choice choice;
	cpu_set_t usable;
	const uint8_t *p = data, *end = data + size;
	char why[320];

	if (!ready)
		fz_setup();
	for (size_t i = 0; i < NPARTS; i++) {
		const uint8_t *nul = p < end ? memchr(p, 0, (size_t)(end - p))
					     : NULL;
		size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);

		for (size_t j = 0; j < 3 && part_files[i][j]; j++)
			fz_write(part_files[i][j], p, n);
		p = nul ? nul + 1 : end;
	}

	stg_detect_cpu(0, &cpu);
	if (cpu.quota_cpus > 0 && !isfinite(cpu.quota_cpus))
		abort();
	stg_detect_mem(&mem);
	(void)stg_mount_find("/sys/fs/cgroup/a", 0, &m);
	(void)stg_mount_find("/", 0, &m);
	(void)ldr_cpu_times_read(&times);

	CPU_ZERO(&usable);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &usable);
	for (unsigned k = 1; k <= 4; k++)
		if (ldr_cpus_choose(k, &usable, &choice) == 0 &&
		    (choice.count != k || CPU_COUNT(&choice.set) != (int)k))
			abort();
	stg_uring_probe_forget();
	(void)stg_uring_probe(why, sizeof(why));
	return 0;
}
