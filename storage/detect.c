/*
 * detect.c - what machine feedrate runs on: usable vCPUs (affinity mask and
 * cgroup quotas), CPU model, SMT, NUMA, steal time, RAM and the cgroup
 * memory limit, NVIDIA GPUs and the DMI product name. Everything but the
 * affinity mask is read from /proc and /sys under the sysroot, and every
 * missing file leaves its field unknown instead of failing.
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

/* ---- cgroups ---- */

/* A cgroup hierarchy as mounted: where, and the path of this process. */
struct cg_place {
	char dir[PATH_MAX];     /* this process's folder (no sysroot prefix) */
	size_t stop;            /* length of the mount point: walk up to it */
};

struct cg_search {
	const char *controller; /* "cpu", "memory"; NULL for cgroup2 */
	char self[PATH_MAX];    /* path from /proc/self/cgroup */
	struct cg_place *out;
	bool found;
};

static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	while (*list) {
		if (!strncmp(list, tok, n) && (list[n] == ',' || !list[n]))
			return true;
		list = strchr(list, ',');
		if (!list)
			break;
		list++;
	}
	return false;
}

/* Path of this process in the hierarchy: "0::/x" (v2) or "4:cpu,cpuacct:/x". */
static bool cg_self_path(const char *controller, char *out, size_t cap)
{
	char buf[8192], *line, *save = NULL;

	if (stg_sysroot_read("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2;

		if (!c1)
			continue;
		c2 = strchr(c1 + 1, ':');
		if (!c2)
			continue;
		*c2 = '\0';
		if (controller ? has_token(c1 + 1, controller)
			       : (c1 + 1 == c2 && !strncmp(line, "0:", 2))) {
			detect_copy(out, cap, c2 + 1);
			return true;
		}
	}
	return false;
}

static void cg_place_set(struct cg_place *p, const char *mnt, const char *root,
			 const char *self)
{
	size_t rlen = strlen(root);
	const char *rel = "";

	/* the mount shows the hierarchy from ROOT down; inside a container
	 * SELF may lie outside it, then the mount's top is our best guess */
	if (!strcmp(root, "/"))
		rel = self;
	else if (!strncmp(self, root, rlen) &&
		 (self[rlen] == '/' || !self[rlen]))
		rel = self + rlen;
	if (!strcmp(rel, "/"))
		rel = "";
	snprintf(p->dir, sizeof(p->dir), "%s%s", mnt, rel);
	p->stop = strlen(mnt);
}

static int cg_consider(const struct stg_mount *m, void *arg)
{
	struct cg_search *s = arg;

	if (s->controller ? strcmp(m->fstype, "cgroup") ||
			    !has_token(m->super_options, s->controller)
			  : strcmp(m->fstype, "cgroup2"))
		return 0;
	cg_place_set(s->out, m->mount_point, m->root, s->self);
	s->found = true;
	return 1;
}

/* Find the folder of this process for CONTROLLER (NULL: cgroup v2). */
static bool cg_find(const char *controller, struct cg_place *out)
{
	struct cg_search s = { .controller = controller, .out = out };
	static const char *const v1_dirs[][2] = {
		{ "cpu", "/sys/fs/cgroup/cpu,cpuacct" },
		{ "cpu", "/sys/fs/cgroup/cpu" },
		{ "memory", "/sys/fs/cgroup/memory" },
	};
	char probe[PATH_MAX], buf[8];

	if (!cg_self_path(controller, s.self, sizeof(s.self)))
		return false;
	if (detect_mountinfo_each(cg_consider, &s) > 0 && s.found)
		return true;
	/* no mountinfo: the usual places */
	if (!controller) {
		if (stg_sysroot_read("/sys/fs/cgroup/cgroup.controllers", buf,
				     sizeof(buf)) < 0)
			return false;
		cg_place_set(out, "/sys/fs/cgroup", "/", s.self);
		return true;
	}
	for (size_t i = 0; i < sizeof(v1_dirs) / sizeof(v1_dirs[0]); i++) {
		if (strcmp(v1_dirs[i][0], controller))
			continue;
		snprintf(probe, sizeof(probe), "%s/cgroup.procs", v1_dirs[i][1]);
		if (stg_sysroot_read(probe, buf, sizeof(buf)) < 0)
			continue;
		cg_place_set(out, v1_dirs[i][1], "/", s.self);
		return true;
	}
	return false;
}

/*
 * Call FN(dir) for this cgroup's folder and each ancestor up to the mount
 * point; FN reads its file there.
 */
static void cg_walk(struct cg_place *p, void (*fn)(const char *dir, void *arg),
		    void *arg)
{
	char dir[PATH_MAX];
	size_t len;

	detect_copy(dir, sizeof(dir), p->dir);
	for (;;) {
		fn(dir, arg);
		len = strlen(dir);
		if (len <= p->stop)
			break;
		while (len > p->stop && dir[len - 1] != '/')
			len--;
		if (len > p->stop)
			len--;   /* drop the '/' too */
		dir[len] = '\0';
	}
}

struct quota {
	bool v2;
	double cpus;            /* lowest so far, -1 none */
	char *source;
	size_t source_cap;
};

static void quota_at(const char *dir, void *arg)
{
	struct quota *q = arg;
	char path[PATH_MAX], buf[128], *end;
	double quota = -1, period = 0;

	if (q->v2) {
		char word[32];

		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		if (stg_sysroot_read(path, buf, sizeof(buf)) < 0)
			return;
		/* "max 100000" or "50000 100000" */
		if (sscanf(buf, "%31s %lf", word, &period) != 2 ||
		    !strcmp(word, "max"))
			return;
		quota = strtod(word, &end);
		if (*end)
			return;
	} else {
		char ppath[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
		if (stg_sysroot_read(path, buf, sizeof(buf)) < 0)
			return;
		quota = strtod(buf, &end);      /* -1: no quota */
		if (end == buf)
			return;
		snprintf(ppath, sizeof(ppath), "%s/cpu.cfs_period_us", dir);
		if (stg_sysroot_read(ppath, buf, sizeof(buf)) < 0)
			return;
		period = strtod(buf, NULL);
	}
	if (quota <= 0 || period <= 0)
		return;
	if (q->cpus < 0 || quota / period < q->cpus) {
		q->cpus = quota / period;
		detect_copy(q->source, q->source_cap, path);
	}
}

struct memlimit {
	bool v2;
	int64_t bytes;
	char *source;
	size_t source_cap;
};

static void memlimit_at(const char *dir, void *arg)
{
	struct memlimit *m = arg;
	char path[PATH_MAX], buf[64], *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/%s", dir,
		 m->v2 ? "memory.max" : "memory.limit_in_bytes");
	if (stg_sysroot_read(path, buf, sizeof(buf)) < 0)
		return;
	if (!strncmp(buf, "max", 3))
		return;
	errno = 0;
	v = strtoull(buf, &end, 10);
	/* v1 writes "unlimited" as a huge page-aligned number */
	if (end == buf || (*end && *end != '\n') || errno || v >= (1ull << 62))
		return;
	if (m->bytes < 0 || (int64_t)v < m->bytes) {
		m->bytes = (int64_t)v;
		detect_copy(m->source, m->source_cap, path);
	}
}

/* ---- CPU ---- */

static int affinity_count(void)
{
	for (size_t ncpu = 1024; ncpu <= 1u << 20; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t sz = CPU_ALLOC_SIZE(ncpu);
		int n;

		if (!set)
			return -1;
		if (sched_getaffinity(0, sz, set) == 0) {
			n = CPU_COUNT_S(sz, set);
			CPU_FREE(set);
			return n;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return -1;
	}
	return -1;
}

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
	enum { MAX_CPU = 16384 };
	static const char cpu_dir[] = "/sys/devices/system/cpu";
	unsigned char *core_seen;
	char path[PATH_MAX], buf[256];
	struct dirent *d;
	int cores = 0, widest = 0;
	DIR *dh;

	if (stg_sysroot_path(cpu_dir, path, sizeof(path)) < 0)
		return;
	dh = opendir(path);
	if (!dh)
		return;
	core_seen = calloc(MAX_CPU / 8, 1);
	if (!core_seen) {
		closedir(dh);
		return;
	}
	while ((d = readdir(dh))) {
		char rel[PATH_MAX];
		int first, n;

		if (strncmp(d->d_name, "cpu", 3) || !isdigit((unsigned char)d->d_name[3]))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/topology/thread_siblings_list",
			 cpu_dir, d->d_name);
		if (stg_sysroot_read(rel, buf, sizeof(buf)) <= 0)
			continue;
		n = detect_cpulist_parse(buf, &first);
		if (n <= 0 || first >= MAX_CPU)
			continue;
		if (n > widest)
			widest = n;
		if (!(core_seen[first / 8] & (1u << (first % 8)))) {
			core_seen[first / 8] |= (unsigned char)(1u << (first % 8));
			cores++;
		}
	}
	free(core_seen);
	closedir(dh);
	if (cores) {
		out->cores = cores;
		out->threads_per_core = widest;
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

/* The "cpu " line of /proc/stat: total and steal jiffies. */
static int stat_sample(uint64_t *total, uint64_t *steal)
{
	char buf[4096];
	unsigned long long v[8] = { 0 };
	int n;

	if (stg_sysroot_read("/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	/* user nice system idle iowait irq softirq steal; guest time is
	 * already inside user */
	n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < n; i++)
		*total += v[i];
	*steal = n >= 8 ? v[7] : 0;
	return 0;
}

int stg_detect_cpu(double steal_interval_s, struct stg_cpu_info *out)
{
	uint64_t t0, s0, t1, s1;
	struct cg_place place;
	struct quota q;

	memset(out, 0, sizeof(*out));
	out->affinity_cpus = affinity_count();
	out->quota_cpus = -1;
	out->online_cpus = out->cores = out->threads_per_core = -1;
	out->numa_nodes = -1;
	out->steal_pct_boot = out->steal_pct_interval = -1;

	/* the lowest quota of either hierarchy, every ancestor included */
	q = (struct quota){ .v2 = true, .cpus = -1, .source = out->quota_source,
			    .source_cap = sizeof(out->quota_source) };
	if (cg_find(NULL, &place))
		cg_walk(&place, quota_at, &q);
	q.v2 = false;
	if (cg_find("cpu", &place))
		cg_walk(&place, quota_at, &q);
	out->quota_cpus = q.cpus;
	out->usable_cpus = out->affinity_cpus;
	if (q.cpus > 0 && (out->usable_cpus < 0 || q.cpus < out->usable_cpus))
		out->usable_cpus = q.cpus;

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
	struct cg_place place;
	struct memlimit m;
	int64_t kb;

	memset(out, 0, sizeof(*out));
	out->total_bytes = out->available_bytes = -1;
	if (stg_sysroot_read("/proc/meminfo", buf, sizeof(buf)) > 0) {
		kb = meminfo_kb(buf, "MemTotal");
		out->total_bytes = kb >= 0 ? kb * 1024 : -1;
		kb = meminfo_kb(buf, "MemAvailable");
		out->available_bytes = kb >= 0 ? kb * 1024 : -1;
	}
	m = (struct memlimit){ .v2 = true, .bytes = -1,
			       .source = out->cgroup_source,
			       .source_cap = sizeof(out->cgroup_source) };
	if (cg_find(NULL, &place))
		cg_walk(&place, memlimit_at, &m);
	m.v2 = false;
	if (cg_find("memory", &place))
		cg_walk(&place, memlimit_at, &m);
	out->cgroup_limit_bytes = m.bytes;
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
