/*
 * memcg.c - a memory cgroup for one --ram SIZE measurement.
 *
 * The page cache a process reads is charged to its memory cgroup, and the
 * cgroup's limit makes the kernel reclaim within it: a child that runs
 * inside a cgroup of SIZE sees the page cache of a VM with SIZE of RAM for
 * caching. The group is made under this process's own cgroup (so any limit
 * above still applies and the group sits where this process may write),
 * named feedrate-<pid>-<n>, and removed after the run.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

struct ldr_memcg {
	int version;                    /* 1 or 2 */
	char path[PATH_MAX];            /* the group's folder */
	char parent[PATH_MAX];          /* where remaining tasks go */
};

static atomic_uint memcg_seq;

/* Decode mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Is WORD one of the comma-separated items of LIST? */
static bool has_item(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; ) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (len == n && !strncmp(p, word, n))
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

/* Is WORD one of the space-separated items of LIST? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; ) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!strncmp(p, word, n) &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return false;
}

/* A cgroup mount found in mountinfo. */
struct cg_mount {
	char point[PATH_MAX];   /* as mountinfo says (not under the sysroot) */
	char root[PATH_MAX];    /* root of the mount within the hierarchy */
};

/*
 * Find the v1 memory mount (VERSION 1) or a v2 mount (VERSION 2) in the
 * sysroot's mountinfo. Returns 0, -ENOENT, or -errno reading it.
 */
static int find_mount(int version, struct cg_mount *m)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	int err = -ENOENT;

	if (stg_sysroot_path("/proc/self/mountinfo", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *field[16], *sep, *save = NULL, *tok;
		unsigned n = 0;

		/* optional fields end at " - "; fstype, source, options */
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok && n < 6;
		     tok = strtok_r(NULL, " ", &save))
			field[n++] = tok;
		if (n < 5)
			continue;
		save = NULL;
		field[6] = strtok_r(sep + 3, " \n", &save);     /* fstype */
		field[7] = strtok_r(NULL, " \n", &save);        /* source */
		field[8] = strtok_r(NULL, " \n", &save);        /* options */
		if (!field[6])
			continue;
		if (version == 1 && (strcmp(field[6], "cgroup") ||
				     !field[8] || !has_item(field[8], "memory")))
			continue;
		if (version == 2 && strcmp(field[6], "cgroup2"))
			continue;
		unescape(field[3]);
		unescape(field[4]);
		if (strlen(field[3]) >= sizeof(m->root) ||
		    strlen(field[4]) >= sizeof(m->point))
			continue;
		strcpy(m->root, field[3]);
		strcpy(m->point, field[4]);
		if (version == 2) {
			/* only a v2 tree that has the memory controller */
			char rel[PATH_MAX + 32], ctl[512];

			snprintf(rel, sizeof(rel), "%s/cgroup.controllers",
				 m->point);
			if (stg_sysroot_read(rel, ctl, sizeof(ctl)) < 0 ||
			    !has_word(ctl, "memory"))
				continue;
		}
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/*
 * This process's cgroup path in hierarchy VERSION, from the sysroot's
 * /proc/self/cgroup. Returns 0 or -ENOENT.
 */
static int own_cgroup(int version, char *out, size_t cap)
{
	char buf[8192];
	ssize_t n = stg_sysroot_read("/proc/self/cgroup", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	for (char *line = buf; line && *line; ) {
		char *nl = strchr(line, '\n'), *c1, *c2;

		if (nl)
			*nl = '\0';
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2) {
			*c2 = '\0';
			if ((version == 1 && has_item(c1 + 1, "memory")) ||
			    (version == 2 && !strcmp(line, "0:") && !c1[1])) {
				if (strlen(c2 + 1) >= cap)
					return -ENAMETOOLONG;
				strcpy(out, c2 + 1);
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* Write the string S to the file PATH (real path). 0 or -errno. */
static int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The real folder of this process's cgroup in the mount M. */
static int group_dir(const struct cg_mount *m, const char *own, char *out,
		     size_t cap)
{
	const char *rel = own;
	size_t rl = strlen(m->root);
	char joined[PATH_MAX * 2];

	/* /proc/self/cgroup is relative to the hierarchy's root, mountinfo
	 * gives the part of it mounted; outside it, use the mount itself */
	if (strcmp(m->root, "/")) {
		if (!strncmp(own, m->root, rl) &&
		    (own[rl] == '/' || own[rl] == '\0'))
			rel = own + rl;
		else
			rel = "";
	}
	snprintf(joined, sizeof(joined), "%s%s", m->point,
		 strcmp(rel, "/") ? rel : "");
	return stg_sysroot_path(joined, out, cap) < 0 ? -ENAMETOOLONG : 0;
}

static const char *perm_hint(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return "no permission (run as root, or delegate a cgroup "
		       "subtree with the memory controller to this user)";
	case -EROFS:
		return "the cgroup filesystem is mounted read-only (a "
		       "container without cgroup write access?)";
	case -ENOENT:
		return "the cgroup folder does not exist";
	default:
		return strerror(-err);
	}
}

/*
 * Remove groups feedrate-<pid>-<n> under PARENT whose process is gone and
 * that hold no task: what a run killed before its cleanup left behind.
 */
static void reap_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX + 300], procs[64];
		char *end;
		long pid;

		if (strncmp(e->d_name, "feedrate-", 9))
			continue;
		pid = strtol(e->d_name + 9, &end, 10);
		if (end == e->d_name + 9 || *end != '-' || pid <= 0 ||
		    pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.procs", parent,
			 e->d_name);
		if (read_file(path, procs, sizeof(procs)) != 0)
			continue;       /* tasks inside, or unreadable */
		snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

int ldr_memcg_create(uint64_t limit_bytes, struct ldr_memcg **out,
		     char *why, size_t why_len)
{
	struct cg_mount m;
	struct ldr_memcg *cg;
	char own[PATH_MAX], file[PATH_MAX + 64], num[32];
	int err, version = 1;

	*out = NULL;
	if (why && why_len)
		why[0] = '\0';
	if (limit_bytes == 0) {
		say(why, why_len, "a memory cgroup needs a limit above 0");
		return -EINVAL;
	}
	err = find_mount(1, &m);
	if (err == -ENOENT) {
		version = 2;
		err = find_mount(2, &m);
	}
	if (err == -ENOENT) {
		say(why, why_len, "no memory cgroup controller is mounted "
		    "(neither cgroup v1 'memory' nor cgroup v2 with 'memory' in "
		    "cgroup.controllers)");
		return -ENOENT;
	}
	if (err < 0) {
		say(why, why_len, "cannot read /proc/self/mountinfo: %s",
		    strerror(-err));
		return err;
	}
	err = own_cgroup(version, own, sizeof(own));
	if (err < 0) {
		say(why, why_len, "cannot find this process's cgroup v%d in "
		    "/proc/self/cgroup: %s", version, strerror(-err));
		return err;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg) {
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	cg->version = version;
	err = group_dir(&m, own, cg->parent, sizeof(cg->parent));
	if (err < 0) {
		say(why, why_len, "cgroup path too long");
		goto err_free;
	}

	if (version == 2) {
		char ctl[512];

		/* the memory controller must be enabled for our children */
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control",
			 cg->parent);
		err = read_file(file, ctl, sizeof(ctl));
		if (err >= 0 && !has_word(ctl, "memory"))
			err = write_str(file, "+memory");
		if (err < 0) {
			say(why, why_len, "cannot enable the memory controller "
			    "below %s: %s%s", cg->parent, perm_hint(err),
			    err == -EBUSY ? " (cgroup v2 allows controllers "
			    "only below a group without processes)" : "");
			goto err_free;
		}
	}

	reap_stale(cg->parent);
	for (int tries = 0; ; tries++) {
		unsigned n = atomic_fetch_add(&memcg_seq, 1);
		int len = snprintf(cg->path, sizeof(cg->path),
				   "%s/feedrate-%d-%u", cg->parent,
				   (int)getpid(), n);

		if (len < 0 || (size_t)len >= sizeof(cg->path)) {
			err = -ENAMETOOLONG;
			say(why, why_len, "cgroup path too long");
			goto err_free;
		}
		if (mkdir(cg->path, 0755) == 0)
			break;
		err = -errno;
		if (err != -EEXIST || tries >= 100) {
			say(why, why_len, "cannot create a memory cgroup (v%d) "
			    "under %s: %s", version, cg->parent,
			    perm_hint(err));
			goto err_free;
		}
	}

	snprintf(num, sizeof(num), "%llu", (unsigned long long)limit_bytes);
	snprintf(file, sizeof(file), "%s/%s", cg->path,
		 version == 1 ? "memory.limit_in_bytes" : "memory.max");
	err = write_str(file, num);
	if (err < 0) {
		say(why, why_len, "the memory cgroup %s refused the limit of "
		    "%s bytes: %s", cg->path, num, strerror(-err));
		goto err_rmdir;
	}
	*out = cg;
	return 0;

err_rmdir:
	rmdir(cg->path);
err_free:
	free(cg);
	return err;
}

int ldr_memcg_enter(const struct ldr_memcg *cg, pid_t pid)
{
	char file[PATH_MAX + 16], num[24], *p = num + sizeof(num);
	unsigned long v;
	ssize_t n;
	size_t len;
	int fd, err = 0;

	/* no stdio: this runs in a fresh child right after fork() */
	if ((size_t)snprintf(file, sizeof(file), "%s/cgroup.procs",
			     cg->path) >= sizeof(file))
		return -ENAMETOOLONG;
	v = (unsigned long)(pid ? pid : getpid());
	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	len = strlen(p);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, p, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

const char *ldr_memcg_path(const struct ldr_memcg *cg)
{
	return cg->path;
}

int ldr_memcg_version(const struct ldr_memcg *cg)
{
	return cg->version;
}

static int stat_value(const char *stat, const char *key, uint64_t *out)
{
	size_t n = strlen(key);

	for (const char *p = stat; p && *p; ) {
		if (!strncmp(p, key, n) && p[n] == ' ') {
			*out = strtoull(p + n + 1, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

int ldr_memcg_usage(const struct ldr_memcg *cg, uint64_t *usage,
		    uint64_t *cache)
{
	char file[PATH_MAX + 32], buf[8192];
	int err;

	if (usage) {
		snprintf(file, sizeof(file), "%s/%s", cg->path,
			 cg->version == 1 ? "memory.usage_in_bytes" :
			 "memory.current");
		err = read_file(file, buf, sizeof(buf));
		if (err < 0)
			return err;
		*usage = strtoull(buf, NULL, 10);
	}
	if (cache) {
		snprintf(file, sizeof(file), "%s/memory.stat", cg->path);
		err = read_file(file, buf, sizeof(buf));
		if (err < 0)
			return err;
		err = stat_value(buf, cg->version == 1 ? "cache" : "file",
				 cache);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Move every process left in CG to its parent group. */
static void evacuate(const struct ldr_memcg *cg)
{
	char file[PATH_MAX + 32], dst[PATH_MAX + 32], buf[4096];

	snprintf(file, sizeof(file), "%s/cgroup.procs", cg->path);
	snprintf(dst, sizeof(dst), "%s/cgroup.procs", cg->parent);
	if (read_file(file, buf, sizeof(buf)) <= 0)
		return;
	for (char *line = buf; line && *line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (*line)
			write_str(dst, line);
		line = nl ? nl + 1 : NULL;
	}
}

int ldr_memcg_destroy(struct ldr_memcg *cg)
{
	const struct timespec step = { 0, 10 * 1000 * 1000 };
	int err = 0;

	if (!cg)
		return 0;
	for (int tries = 0; tries < 100; tries++) {
		if (rmdir(cg->path) == 0 || errno == ENOENT) {
			err = 0;
			break;
		}
		err = -errno;
		if (err != -EBUSY)
			break;
		/* tasks still inside: exiting threads, or a live process */
		evacuate(cg);
		nanosleep(&step, NULL);
	}
	free(cg);
	return err;
}
