/*
 * memcg.c - a memory cgroup for one --ram SIZE measurement.
 *
 * The page cache a process reads is charged to its memory cgroup, and the
 * cgroup's limit makes the kernel reclaim within it: a child that runs
 * inside a cgroup of SIZE sees the page cache of a VM with SIZE of RAM for
 * caching. The group is made under this process's own cgroup (so any limit
 * above still applies and the group sits where this process may write),
 * named feedrate-<pid>-<n>, and removed after the run.
 *
 * cgroup v2 gives a controller to child groups only when the parent's
 * cgroup.subtree_control enables it, and refuses to enable one in a
 * non-root group that holds processes. When this process is alone in its
 * group, it moves itself into a leaf feedrate-<pid>-self beside the
 * measurement groups and enables memory on the emptied group; when others
 * share the group, the reason says how to run it in a group of its own.
 * Both changes are undone when the last group of the process goes.
 * DESIGN: any thread may create or destroy groups; the v2 delegation
 * state (v2_deleg, v2_users) is shared by all the process's groups and
 * guarded by v2_lock.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "memcg_internal.h"

struct ldr_memcg {
	int version;                    /* 1 or 2 */
	bool v2_user;                   /* counted in v2_users */
	char path[PATH_MAX];            /* the group's folder */
	char parent[PATH_MAX];          /* the folder it was made in */
};

static atomic_uint memcg_seq;

/* The v2 delegation the process's live groups rely on (v2_users > 0). */
static pthread_mutex_t v2_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned v2_users;
static struct ldr_cg2_delegation v2_deleg;

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

bool ldr_cg2_procs_only(const char *procs, pid_t pid)
{
	bool seen = false;

	for (const char *p = procs; *p; ) {
		char *end;
		long v;

		while (*p == '\n' || *p == ' ')
			p++;
		if (!*p)
			break;
		v = strtol(p, &end, 10);
		if (end == p || v != (long)pid)
			return false;
		seen = true;
		p = end;
	}
	return seen;
}

static int write_pid(const char *dir, pid_t pid)
{
	char file[PATH_MAX + 32], num[24];

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	return write_str(file, num);
}

int ldr_cg2_delegate(const char *dir, const char *controller,
		     struct ldr_cg2_delegation *d, char *why, size_t why_len)
{
	char file[PATH_MAX + 32], ctl[512], op[64], procs[4096];
	const pid_t self = getpid();
	int err;

	memset(d, 0, sizeof(*d));
	if (strlen(dir) >= sizeof(d->dir)) {
		say(why, why_len, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	strcpy(d->dir, dir);
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", dir);
	snprintf(op, sizeof(op), "+%s", controller);
	err = read_file(file, ctl, sizeof(ctl));
	if (err >= 0 && has_word(ctl, controller))
		return 0;               /* already given to the children */
	if (err >= 0)
		err = write_str(file, op);
	if (!err) {
		d->added = true;
		return 0;
	}
	if (err != -EBUSY) {
		say(why, why_len, "cannot enable the %s controller below %s: %s",
		    controller, dir, perm_hint(err));
		return err;
	}

	/* the group holds processes: only ours may be moved out of it */
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	err = read_file(file, procs, sizeof(procs));
	if (err < 0) {
		say(why, why_len, "cannot read %s: %s", file, perm_hint(err));
		return err;
	}
	if (!ldr_cg2_procs_only(procs, self)) {
		say(why, why_len, "cgroup v2: %s holds other processes, so no "
		    "controller can be enabled for groups below it; run "
		    "feedrate under `systemd-run --scope -p Delegate=yes` or "
		    "in its own cgroup", dir);
		return -EBUSY;
	}
	if ((size_t)snprintf(d->leaf, sizeof(d->leaf), "%s/feedrate-%d-self",
			     dir, (int)self) >= sizeof(d->leaf)) {
		d->leaf[0] = '\0';
		say(why, why_len, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	if (mkdir(d->leaf, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		say(why, why_len, "cannot create the cgroup %s to leave %s "
		    "empty: %s", d->leaf, dir, perm_hint(err));
		goto err_leaf;
	}
	err = write_pid(d->leaf, self);
	if (err < 0) {
		say(why, why_len, "cannot move this process into %s: %s",
		    d->leaf, perm_hint(err));
		goto err_rmdir;
	}
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", dir);
	err = write_str(file, op);
	if (err < 0) {
		say(why, why_len, "cannot enable the %s controller below %s "
		    "even with this process moved out of it: %s", controller,
		    dir, perm_hint(err));
		write_pid(dir, self);
		goto err_rmdir;
	}
	d->added = d->moved = true;
	return 0;

err_rmdir:
	rmdir(d->leaf);
err_leaf:
	d->leaf[0] = '\0';
	return err;
}

int ldr_cg2_undo(struct ldr_cg2_delegation *d, const char *controller)
{
	char file[PATH_MAX + 32], op[64];
	int err = 0, e;

	/* first the controller: a group that gives one to its children
	 * cannot take this process back */
	if (d->added) {
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control",
			 d->dir);
		snprintf(op, sizeof(op), "-%s", controller);
		e = write_str(file, op);
		if (e && !err)
			err = e;
	}
	if (d->moved) {
		e = write_pid(d->dir, getpid());
		if (e && !err)
			err = e;
		if (!e && rmdir(d->leaf) < 0 && errno != ENOENT && !err)
			err = -errno;
	}
	memset(d, 0, sizeof(*d));
	return err;
}

/* Take a use of the v2 delegation below PARENT (made on first use); on
 * success CG->parent is the delegated folder. */
static int v2_acquire(struct ldr_memcg *cg, char *why, size_t why_len)
{
	int err = 0;

	pthread_mutex_lock(&v2_lock);
	if (v2_users) {
		/* this process may sit in its leaf by now: the groups go
		 * beside it, below the folder that was delegated */
		strcpy(cg->parent, v2_deleg.dir);
	} else {
		err = ldr_cg2_delegate(cg->parent, "memory", &v2_deleg, why,
				       why_len);
	}
	if (!err) {
		v2_users++;
		cg->v2_user = true;
	}
	pthread_mutex_unlock(&v2_lock);
	return err;
}

/* Drop CG's use; the last one undoes the delegation. */
static int v2_release(struct ldr_memcg *cg)
{
	int err = 0;

	if (!cg->v2_user)
		return 0;
	cg->v2_user = false;
	pthread_mutex_lock(&v2_lock);
	if (--v2_users == 0)
		err = ldr_cg2_undo(&v2_deleg, "memory");
	pthread_mutex_unlock(&v2_lock);
	return err;
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
	struct stg_cgroup own;
	struct ldr_memcg *cg;
	char file[PATH_MAX + 64], num[32];
	int err, version = 1;

	*out = NULL;
	if (why && why_len)
		why[0] = '\0';
	if (limit_bytes == 0) {
		say(why, why_len, "a memory cgroup needs a limit above 0");
		return -EINVAL;
	}
	/* v1's memory controller first: where both are mounted, the v2 tree
	 * has none */
	err = stg_cgroup_find(1, "memory", &own);
	if (err == -ENOENT) {
		version = 2;
		err = stg_cgroup_find(2, "memory", &own);
	}
	if (err == -ENOENT) {
		say(why, why_len, "no memory cgroup controller is mounted "
		    "(neither cgroup v1 'memory' nor cgroup v2 with 'memory' in "
		    "cgroup.controllers)");
		return -ENOENT;
	}
	if (err == -ENODATA) {
		say(why, why_len, "cannot find this process's cgroup v%d in "
		    "/proc/self/cgroup", version);
		return -ENOENT;
	}
	if (err < 0) {
		say(why, why_len, "cannot find this process's cgroup v%d: %s",
		    version, strerror(-err));
		return err;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg) {
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	cg->version = version;
	if (stg_sysroot_path(own.dir, cg->parent, sizeof(cg->parent)) < 0) {
		err = -ENAMETOOLONG;
		say(why, why_len, "cgroup path too long");
		goto err_free;
	}

	/* v2: the memory controller must be enabled for our children */
	if (version == 2) {
		err = v2_acquire(cg, why, why_len);
		if (err < 0)
			goto err_free;
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
	v2_release(cg);
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

int ldr_memcg_peak(const struct ldr_memcg *cg, uint64_t *peak)
{
	char file[PATH_MAX + 32], buf[64];
	int err;

	snprintf(file, sizeof(file), "%s/%s", cg->path, cg->version == 1 ?
		 "memory.max_usage_in_bytes" : "memory.peak");
	err = read_file(file, buf, sizeof(buf));
	if (err < 0)
		return err;
	*peak = strtoull(buf, NULL, 10);
	return 0;
}

/* Move every process left in CG to where this process lives: its parent
 * group, or under cgroup v2 the leaf this process moved to (a group that
 * gives controllers to its children may hold no process). */
static void evacuate(const struct ldr_memcg *cg)
{
	char file[PATH_MAX + 32], dst[PATH_MAX + 32], buf[4096];
	const char *home = cg->parent;

	if (cg->v2_user) {
		pthread_mutex_lock(&v2_lock);
		if (v2_deleg.moved) {
			snprintf(dst, sizeof(dst), "%s/cgroup.procs",
				 v2_deleg.leaf);
			home = NULL;
		}
		pthread_mutex_unlock(&v2_lock);
	}
	snprintf(file, sizeof(file), "%s/cgroup.procs", cg->path);
	if (home)
		snprintf(dst, sizeof(dst), "%s/cgroup.procs", home);
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
	/* the last group of the process undoes the v2 delegation (only
	 * once no group of ours is left below it) */
	if (err == 0)
		err = v2_release(cg);
	else
		v2_release(cg);
	free(cg);
	return err;
}
