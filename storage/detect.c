/*
 * detect.c - what machine feedrate runs on: usable vCPUs (affinity mask and
 * cgroup quotas, from sysfacts.c), CPU model, SMT, NUMA, steal time, RAM
 * and the cgroup memory limit, NVIDIA GPUs and the DMI product name.
 * Everything but the affinity mask is read from /proc and /sys under the
 * sysroot, and every missing file leaves its field unknown instead of
 * failing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect_internal.h"

/* ---- CPU ---- */

static void cpuinfo_read(struct stg_cpu_info *out)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int procs = 0;
	FILE *f;

	if (stg_sysroot_path("/proc/cpuinfo", path, sizeof(path)) < 0)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		if (!strncmp(line, "processor", 9))
			procs++;
		if (out->model[0] || strncmp(line, "model name", 10))
			continue;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		v[strcspn(v, "\n")] = '\0';
		detect_copy(out->model, sizeof(out->model), v);
	}
	free(line);
	fclose(f);
	out->online_cpus = procs ? procs : -1;
}

/* Cores (distinct sibling groups) and the largest group. */
static void smt_read(struct stg_cpu_info *out)
{
	char path[PATH_MAX];
	cpu_set_t core_seen;
	struct dirent *d;
	int cores = 0, widest = 0;
	DIR *dh;

	if (stg_sysroot_path("/sys/devices/system/cpu", path,
			     sizeof(path)) < 0)
		return;
	dh = opendir(path);
	if (!dh)
		return;
	CPU_ZERO(&core_seen);
	while ((d = readdir(dh))) {
		cpu_set_t sib;
		unsigned long cpu;
		char *end;
		int first, n;

		if (strncmp(d->d_name, "cpu", 3) ||
		    !isdigit((unsigned char)d->d_name[3]))
			continue;
		cpu = strtoul(d->d_name + 3, &end, 10);
		if (*end || cpu >= CPU_SETSIZE ||
		    stg_cpu_siblings((unsigned)cpu, &sib) < 0)
			continue;
		n = CPU_COUNT(&sib);
		for (first = 0; !CPU_ISSET(first, &sib); first++)
			;
		if (n > widest)
			widest = n;
		/* a core is known by its lowest thread */
		if (!CPU_ISSET(first, &core_seen)) {
			CPU_SET(first, &core_seen);
			cores++;
		}
	}
	closedir(dh);
	if (cores) {
		out->cores = cores;
		out->threads_per_core = widest;
		out->vcpu_kind = widest > 1 ? STG_VCPU_THREAD : STG_VCPU_CORE;
	}
}

const char *stg_vcpu_kind_name(enum stg_vcpu_kind k)
{
	switch (k) {
	case STG_VCPU_THREAD: return "thread";
	case STG_VCPU_CORE: return "core";
	default: return "unknown";
	}
}

static int count_prefixed(const char *rel, const char *prefix)
{
	char path[PATH_MAX];
	size_t plen = strlen(prefix);
	struct dirent *d;
	int n = 0;
	DIR *dh;

	if (stg_sysroot_path(rel, path, sizeof(path)) < 0)
		return -1;
	dh = opendir(path);
	if (!dh)
		return -1;
	while ((d = readdir(dh)))
		if (!strncmp(d->d_name, prefix, plen) &&
		    isdigit((unsigned char)d->d_name[plen]))
			n++;
	closedir(dh);
	return n ? n : -1;
}

/* The "cpu " line of /proc/stat: total and steal jiffies. 0 or -errno. */
static int stat_sample(uint64_t *total, uint64_t *steal)
{
	char buf[4096];
	unsigned long long v[8] = { 0 };
	ssize_t got = stg_sysroot_read("/proc/stat", buf, sizeof(buf));
	int n;

	if (got < 0)
		return (int)got;
	/* user nice system idle iowait irq softirq steal; guest time is
	 * already inside user */
	n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -EINVAL;
	*total = 0;
	for (int i = 0; i < n; i++)
		*total += v[i];
	*steal = n >= 8 ? v[7] : 0;
	return 0;
}

int stg_detect_cpu(double steal_interval_s, struct stg_cpu_info *out)
{
	uint64_t t0, s0, t1, s1;
	int aff;

	memset(out, 0, sizeof(*out));
	aff = stg_cpus_affinity();
	out->affinity_cpus = aff > 0 ? aff : -1;
	out->online_cpus = out->cores = out->threads_per_core = -1;
	out->numa_nodes = -1;
	out->steal_pct_boot = out->steal_pct_interval = -1;

	stg_cgroup_cpu_quota(&out->quota_cpus, out->quota_source,
			     sizeof(out->quota_source));
	out->usable_cpus = stg_cpus_usable_from(aff, out->quota_cpus);

	cpuinfo_read(out);
	smt_read(out);
	out->numa_nodes = count_prefixed("/sys/devices/system/node", "node");

	if (stat_sample(&t0, &s0) == 0) {
		if (t0)
			out->steal_pct_boot = 100.0 * (double)s0 / (double)t0;
		if (steal_interval_s > 0) {
			struct timespec ts = {
				.tv_sec = (time_t)steal_interval_s,
				.tv_nsec = (long)((steal_interval_s -
						   (double)(time_t)steal_interval_s) * 1e9),
			};

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
			out->steal_interval_s = steal_interval_s;
			if (stat_sample(&t1, &s1) == 0 && t1 > t0 && s1 >= s0)
				out->steal_pct_interval = 100.0 *
					(double)(s1 - s0) / (double)(t1 - t0);
		}
	}
	return 0;
}

/* ---- memory ---- */

static int64_t meminfo_kb(const char *buf, const char *key)
{
	const char *p = buf;
	size_t klen = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			char *end;
			long long v = strtoll(p + klen + 1, &end, 10);

			/* the callers multiply by 1024 */
			return end == p + klen + 1 || v < 0 ||
			       v > INT64_MAX / 1024 ? -1 : v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int stg_detect_mem(struct stg_mem_info *out)
{
	char buf[8192];
	int64_t kb;

	memset(out, 0, sizeof(*out));
	out->total_bytes = out->available_bytes = -1;
	if (stg_sysroot_read("/proc/meminfo", buf, sizeof(buf)) > 0) {
		kb = meminfo_kb(buf, "MemTotal");
		out->total_bytes = kb >= 0 ? kb * 1024 : -1;
		kb = meminfo_kb(buf, "MemAvailable");
		out->available_bytes = kb >= 0 ? kb * 1024 : -1;
	}
	stg_cgroup_mem_limit(&out->cgroup_limit_bytes, out->cgroup_source,
			     sizeof(out->cgroup_source));
	return 0;
}

/* ---- GPUs and DMI ---- */

static int gpu_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stg_gpu *)a)->bus,
		      ((const struct stg_gpu *)b)->bus);
}

int stg_detect_gpus(struct stg_gpu_info *out)
{
	static const char gpus[] = "/proc/driver/nvidia/gpus";
	char path[PATH_MAX], buf[4096];
	struct dirent *d;
	DIR *dh;

	memset(out, 0, sizeof(*out));
	if (stg_sysroot_read_line("/proc/driver/nvidia/version", buf,
				  sizeof(buf)) > 0) {
		/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05 ..." */
		char *v = strstr(buf, "Kernel Module");

		if (v) {
			v += strlen("Kernel Module");
			v += strspn(v, " \t");
			v[strcspn(v, " \t")] = '\0';
		}
		detect_copy(out->driver, sizeof(out->driver), v && *v ? v : buf);
	}
	if (stg_sysroot_path(gpus, path, sizeof(path)) < 0)
		return 0;
	dh = opendir(path);
	if (!dh)
		return 0;
	while ((d = readdir(dh))) {
		char rel[PATH_MAX], *line, *save = NULL;
		struct stg_gpu *g;

		if (d->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/information", gpus, d->d_name);
		if (stg_sysroot_read(rel, buf, sizeof(buf)) < 0)
			continue;
		out->count++;
		if (out->count > STG_MAX_GPUS)
			continue;
		g = &out->gpu[out->count - 1];
		detect_copy(g->bus, sizeof(g->bus), d->d_name);
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "Model:", 6))
				continue;
			line += 6;
			line += strspn(line, " \t");
			detect_copy(g->model, sizeof(g->model), line);
			break;
		}
	}
	closedir(dh);
	qsort(out->gpu, out->count < STG_MAX_GPUS ? (size_t)out->count
						   : STG_MAX_GPUS,
	      sizeof(out->gpu[0]), gpu_cmp);
	return 0;
}

int stg_detect_dmi(struct stg_dmi_info *out)
{
	memset(out, 0, sizeof(*out));
	stg_sysroot_read_line("/sys/class/dmi/id/product_name",
			      out->product_name, sizeof(out->product_name));
	stg_sysroot_read_line("/sys/class/dmi/id/sys_vendor", out->sys_vendor,
			      sizeof(out->sys_vendor));
	return 0;
}
