/*
 * sysfacts.c - the facts about this machine and process that more than one
 * module needs: the monotonic clock, mountinfo, this process's cgroups and
 * their CPU quota and memory limit, kernel CPU lists, SMT siblings and the
 * usable CPUs. Each is read here once, under the sysroot, so that the
 * storage layer, the loader and the commands agree on them and fixtures
 * can describe other machines.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "detect_internal.h"

/* ---- clock ---- */

uint64_t stg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double stg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- mountinfo ---- */

/* Copy field SRC into DST decoding "\ooo" octal escapes. */
static void unescape(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	while (*src && n + 1 < cap) {
		if (src[0] == '\\' && src[1] >= '0' && src[1] <= '3' &&
		    src[2] >= '0' && src[2] <= '7' &&
		    src[3] >= '0' && src[3] <= '7') {
			dst[n++] = (char)((src[1] - '0') * 64 +
					  (src[2] - '0') * 8 + (src[3] - '0'));
			src += 4;
		} else {
			dst[n++] = *src++;
		}
	}
	dst[n] = '\0';
}

/*
 * "36 35 98:0 /root /mnt opts [optional...] - fstype source superopts"
 * Splits LINE in place. Returns 0 or -EINVAL.
 */
static int mountinfo_parse(char *line, struct stg_mount *m)
{
	char *field[64], *save = NULL, *tok;
	int n = 0, dash = -1;

	for (tok = strtok_r(line, " \n", &save); tok && n < 64;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (dash < 0 && n >= 6 && !strcmp(tok, "-"))
			dash = n;
		field[n++] = tok;
	}
	if (dash < 0 || n < dash + 3)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (sscanf(field[2], "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	unescape(m->root, sizeof(m->root), field[3]);
	unescape(m->mount_point, sizeof(m->mount_point), field[4]);
	unescape(m->options, sizeof(m->options), field[5]);
	unescape(m->fstype, sizeof(m->fstype), field[dash + 1]);
	unescape(m->source, sizeof(m->source), field[dash + 2]);
	if (n > dash + 3)
		unescape(m->super_options, sizeof(m->super_options),
			 field[dash + 3]);
	return 0;
}

int stg_mountinfo_each(int (*fn)(const struct stg_mount *m, void *arg),
		       void *arg)
{
	char path[PATH_MAX];
	struct stg_mount m;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	if (stg_sysroot_path("/proc/self/mountinfo", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0) {
		if (mountinfo_parse(line, &m))
			continue;
		ret = fn(&m, arg);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

struct mount_search {
	const char *path;
	dev_t dev;
	struct stg_mount *out;
	size_t best_len;
	bool best_dev, found;
};

static int mount_consider(const struct stg_mount *m, void *arg)
{
	struct mount_search *s = arg;
	size_t len = strlen(m->mount_point);
	bool dev_match;

	if (strncmp(s->path, m->mount_point, len))
		return 0;
	/* "/mnt/data" holds "/mnt/data" and "/mnt/data/x", not "/mnt/database" */
	if (!(len == 1 && m->mount_point[0] == '/') && s->path[len] != '\0' &&
	    s->path[len] != '/')
		return 0;
	dev_match = s->dev && makedev(m->major, m->minor) == s->dev;
	/* a mount that matches the device beats one that does not; then the
	 * longest mount point; a later line (mounted over) beats an earlier */
	if (s->found && s->best_dev && !dev_match)
		return 0;
	if (s->found && s->best_dev == dev_match && len < s->best_len)
		return 0;
	*s->out = *m;
	s->best_len = len;
	s->best_dev = dev_match;
	s->found = true;
	return 0;
}

int stg_mount_find(const char *abs_path, dev_t dev, struct stg_mount *out)
{
	struct mount_search s = { .path = abs_path, .dev = dev, .out = out };
	int err;

	memset(out, 0, sizeof(*out));
	if (abs_path[0] != '/')
		return -EINVAL;
	err = stg_mountinfo_each(mount_consider, &s);
	if (err)
		return err;
	return s.found ? 0 : -ENOENT;
}

/* ---- cgroups ---- */

/* Is TOK one of the items of LIST, separated by SEP or whitespace? */
static bool has_item(const char *list, const char *tok, char sep)
{
	size_t n = strlen(tok);

	for (const char *p = list; *p; ) {
		size_t len;

		while (*p == sep || isspace((unsigned char)*p))
			p++;
		len = 0;
		while (p[len] && p[len] != sep &&
		       !isspace((unsigned char)p[len]))
			len++;
		if (len && len == n && !strncmp(p, tok, n))
			return true;
		p += len;
	}
	return false;
}

int stg_cgroup_self_path(int version, const char *controller, char *buf,
			 size_t cap)
{
	char text[8192], *line, *save = NULL;
	ssize_t n;

	if (cap)
		buf[0] = '\0';
	if (version != 1 && version != 2)
		return -EINVAL;
	if (version == 1 && (!controller || !*controller))
		return -EINVAL;
	n = stg_sysroot_read("/proc/self/cgroup", text, sizeof(text));
	if (n < 0)
		return (int)n;
	/* "0::/x" (v2) or "4:cpu,cpuacct:/x" (v1) */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2;

		if (!c1)
			continue;
		c2 = strchr(c1 + 1, ':');
		if (!c2)
			continue;
		*c2 = '\0';
		if (version == 1 ? !has_item(c1 + 1, controller, ',')
				 : c1 + 1 != c2 || strcmp(line, "0:"))
			continue;
		if (strlen(c2 + 1) >= cap)
			return -ENAMETOOLONG;
		strcpy(buf, c2 + 1);
		return 0;
	}
	return -ENOENT;
}

/* Does the v2 tree mounted at POINT offer CONTROLLER? */
static bool v2_offers(const char *point, const char *controller)
{
	char rel[STG_PATH_MAX + 32], ctl[512];

	snprintf(rel, sizeof(rel), "%s/cgroup.controllers", point);
	return stg_sysroot_read(rel, ctl, sizeof(ctl)) >= 0 &&
	       has_item(ctl, controller, ' ');
}

struct cg_search {
	int version;
	const char *controller;
	struct stg_mount mount;
	bool found;
};

static int cg_consider(const struct stg_mount *m, void *arg)
{
	struct cg_search *s = arg;

	if (s->version == 1 ? strcmp(m->fstype, "cgroup") ||
			      !has_item(m->super_options, s->controller, ',')
			    : strcmp(m->fstype, "cgroup2") ||
			      (s->controller &&
			       !v2_offers(m->mount_point, s->controller)))
		return 0;
	s->mount = *m;
	s->found = true;
	return 1;
}

/* Without mountinfo: the usual place of the hierarchy, if it is there. */
static bool cg_usual_place(int version, const char *controller,
			   struct stg_mount *m)
{
	char probe[STG_PATH_MAX + 32], buf[8];

	memset(m, 0, sizeof(*m));
	strcpy(m->root, "/");
	if (version == 2) {
		if (stg_sysroot_read("/sys/fs/cgroup/cgroup.controllers", buf,
				     sizeof(buf)) < 0 ||
		    (controller && !v2_offers("/sys/fs/cgroup", controller)))
			return false;
		strcpy(m->mount_point, "/sys/fs/cgroup");
		return true;
	}
	/* cpu and cpuacct are usually mounted together */
	for (int i = 0; i < 2; i++) {
		if (i == 0 && strcmp(controller, "cpu") &&
		    strcmp(controller, "cpuacct"))
			continue;
		snprintf(m->mount_point, sizeof(m->mount_point),
			 "/sys/fs/cgroup/%s", i == 0 ? "cpu,cpuacct" : controller);
		snprintf(probe, sizeof(probe), "%s/cgroup.procs",
			 m->mount_point);
		if (stg_sysroot_read(probe, buf, sizeof(buf)) >= 0)
			return true;
	}
	return false;
}

int stg_cgroup_find(int version, const char *controller,
		    struct stg_cgroup *out)
{
	struct cg_search s = { .version = version, .controller = controller };
	const char *rel = "";
	size_t rlen;
	int err;

	memset(out, 0, sizeof(*out));
	if (version != 1 && version != 2)
		return -EINVAL;
	if (version == 1 && (!controller || !*controller))
		return -EINVAL;
	if (stg_mountinfo_each(cg_consider, &s) <= 0 || !s.found) {
		if (!cg_usual_place(version, controller, &s.mount))
			return -ENOENT;
	}
	err = stg_cgroup_self_path(version, controller, out->self,
				   sizeof(out->self));
	if (err == -ENAMETOOLONG)
		return err;
	if (err < 0)
		return -ENODATA;
	/* /proc/self/cgroup is relative to the hierarchy's root, the mount
	 * shows it from m->root down; inside a container SELF may lie
	 * outside it, then the mount's top is the best guess */
	rlen = strlen(s.mount.root);
	if (!strcmp(s.mount.root, "/"))
		rel = out->self;
	else if (!strncmp(out->self, s.mount.root, rlen) &&
		 (out->self[rlen] == '/' || !out->self[rlen]))
		rel = out->self + rlen;
	if (!strcmp(rel, "/"))
		rel = "";
	if ((size_t)snprintf(out->dir, sizeof(out->dir), "%s%s",
			     s.mount.mount_point, rel) >= sizeof(out->dir))
		return -ENAMETOOLONG;
	strcpy(out->mount_point, s.mount.mount_point);
	out->version = version;
	return 0;
}

/*
 * Call FN(dir) for the cgroup folder CG->dir and each ancestor up to the
 * mount point; FN reads its file there.
 */
static void cg_walk(const struct stg_cgroup *cg,
		    void (*fn)(const char *dir, void *arg), void *arg)
{
	const size_t stop = strlen(cg->mount_point);
	char dir[STG_PATH_MAX];
	size_t len;

	detect_copy(dir, sizeof(dir), cg->dir);
	for (;;) {
		fn(dir, arg);
		len = strlen(dir);
		if (len <= stop)
			break;
		while (len > stop && dir[len - 1] != '/')
			len--;
		if (len > stop)
			len--;   /* drop the '/' too */
		dir[len] = '\0';
	}
}

struct quota {
	int version;
	double cpus;            /* lowest so far, -1 none */
	char *source;
	size_t source_cap;
};

static void quota_at(const char *dir, void *arg)
{
	struct quota *q = arg;
	char path[PATH_MAX], buf[128], *end;
	double quota = -1, period = 0;

	if (q->version == 2) {
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
	if (!(quota > 0) || !(period > 0) || !isfinite(quota / period))
		return;
	if (q->cpus < 0 || quota / period < q->cpus) {
		q->cpus = quota / period;
		if (q->source)
			detect_copy(q->source, q->source_cap, path);
	}
}

int stg_cgroup_cpu_quota(double *cpus, char *source, size_t cap)
{
	struct quota q = { .cpus = -1, .source = cap ? source : NULL,
			   .source_cap = cap };
	struct stg_cgroup cg;

	if (q.source)
		q.source[0] = '\0';
	/* the lowest quota of either hierarchy, every ancestor included */
	for (q.version = 2; q.version >= 1; q.version--)
		if (stg_cgroup_find(q.version, q.version == 1 ? "cpu" : NULL,
				    &cg) == 0)
			cg_walk(&cg, quota_at, &q);
	*cpus = q.cpus;
	return q.cpus > 0 ? 0 : -ENOENT;
}

struct memlimit {
	int version;
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
		 m->version == 2 ? "memory.max" : "memory.limit_in_bytes");
	if (stg_sysroot_read(path, buf, sizeof(buf)) < 0)
		return;
	if (!strncmp(buf, "max", 3) || !isdigit((unsigned char)buf[0]))
		return;
	errno = 0;
	v = strtoull(buf, &end, 10);
	/* v1 writes "unlimited" as a huge page-aligned number */
	if (end == buf || (*end && *end != '\n') || errno || v >= (1ull << 62))
		return;
	if (m->bytes < 0 || (int64_t)v < m->bytes) {
		m->bytes = (int64_t)v;
		if (m->source)
			detect_copy(m->source, m->source_cap, path);
	}
}

int stg_cgroup_mem_limit(int64_t *bytes, char *source, size_t cap)
{
	struct memlimit m = { .bytes = -1, .source = cap ? source : NULL,
			      .source_cap = cap };
	struct stg_cgroup cg;

	if (m.source)
		m.source[0] = '\0';
	for (m.version = 2; m.version >= 1; m.version--)
		if (stg_cgroup_find(m.version,
				    m.version == 1 ? "memory" : NULL, &cg) == 0)
			cg_walk(&cg, memlimit_at, &m);
	*bytes = m.bytes;
	return m.bytes >= 0 ? 0 : -ENOENT;
}

/* ---- CPU lists and CPUs ---- */

int stg_cpulist_parse(const char *s, cpu_set_t *out)
{
	const char *p = s;

	CPU_ZERO(out);
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p)) {
		unsigned long lo, hi, stride = 1;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		lo = strtoul(p, &end, 10);
		if (errno)
			return -ERANGE;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			errno = 0;
			hi = strtoul(p, &end, 10);
			if (errno)
				return -ERANGE;
			p = end;
			if (*p == ':') {
				p++;
				if (!isdigit((unsigned char)*p))
					return -EINVAL;
				stride = strtoul(p, &end, 10);
				if (stride == 0)
					return -EINVAL;
				p = end;
			}
		}
		if (hi < lo)
			return -EINVAL;
		if (hi >= CPU_SETSIZE)
			return -ERANGE;
		/* a stride past the end (even one strtoul saturated) takes
		 * LO alone; c += stride must not wrap around */
		for (unsigned long c = lo; c <= hi; c += stride) {
			CPU_SET(c, out);
			if (stride > hi - c)
				break;
		}
		if (*p == ',') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
		} else if (*p && !isspace((unsigned char)*p)) {
			return -EINVAL;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

int stg_cpulist_format(const cpu_set_t *set, char *buf, size_t cap)
{
	size_t len = 0;
	int c = 0;

	if (!cap)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	while (c < CPU_SETSIZE) {
		int lo, hi, n;

		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		lo = hi = c;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		if (lo == hi)
			n = snprintf(buf + len, cap - len, "%s%d",
				     len ? "," : "", lo);
		else
			n = snprintf(buf + len, cap - len, "%s%d-%d",
				     len ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= cap - len) {
			/* keep what fits, and say it was cut */
			if (cap >= 4)
				memcpy(buf + (len + 4 <= cap ? len : cap - 4),
				       "...", 4);
			else
				buf[0] = '\0';
			return -ENAMETOOLONG;
		}
		len += (size_t)n;
		c = hi + 1;
	}
	return (int)len;
}

int stg_cpu_siblings(unsigned cpu, cpu_set_t *out)
{
	char rel[96], list[1024];
	ssize_t r;
	int err;

	CPU_ZERO(out);
	if (cpu >= CPU_SETSIZE)
		return -ERANGE;
	snprintf(rel, sizeof(rel),
		 "/sys/devices/system/cpu/cpu%u/topology/thread_siblings_list",
		 cpu);
	r = stg_sysroot_read(rel, list, sizeof(list));
	if (r < 0)
		return (int)r;
	err = stg_cpulist_parse(list, out);
	if (err == 0 && !CPU_ISSET(cpu, out))
		err = -EINVAL;
	if (err)
		CPU_ZERO(out);
	return err == -ERANGE ? -EINVAL : err;
}

int stg_cpus_online(cpu_set_t *out)
{
	char list[4096];
	ssize_t r = stg_sysroot_read("/sys/devices/system/cpu/online", list,
				     sizeof(list));
	int err;

	CPU_ZERO(out);
	if (r < 0)
		return (int)r;
	err = stg_cpulist_parse(list, out);
	if (err)
		CPU_ZERO(out);
	return err == -ERANGE ? -EINVAL : err;
}

int stg_cpus_affinity(void)
{
	/* a mask bigger than cpu_set_t: grow until the kernel takes it */
	for (size_t ncpu = 1024; ncpu <= 1u << 20; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t sz = CPU_ALLOC_SIZE(ncpu);
		int n, err;

		if (!set)
			return -ENOMEM;
		if (sched_getaffinity(0, sz, set) == 0) {
			n = CPU_COUNT_S(sz, set);
			CPU_FREE(set);
			return n;
		}
		err = errno;
		CPU_FREE(set);
		if (err != EINVAL)
			return -err;
	}
	return -EINVAL;
}

unsigned stg_cpus_usable_from(int affinity, double quota_cpus)
{
	double n = affinity > 0 ? affinity : -1;

	/* a quota below the mask is what the VM or container really has */
	if (quota_cpus > 0 && (n < 0 || quota_cpus < n))
		n = floor(quota_cpus);
	if (n > INT_MAX)
		n = INT_MAX;
	return n >= 1 ? (unsigned)n : 1;
}

unsigned stg_cpus_usable(void)
{
	double quota;

	stg_cgroup_cpu_quota(&quota, NULL, 0);
	return stg_cpus_usable_from(stg_cpus_affinity(), quota);
}
