/*
 * test_memcg.c - the memory cgroup of --ram SIZE: made with its limit, the
 * child runs inside it, the page cache it reads is charged there and held
 * to the limit, it is removed afterwards (also when the child dies), and
 * where it cannot be made the reason is given in words.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

#define MiB (1024ull * 1024)

/*
 * Groups made by the running test: an assertion that ends a test early
 * skips its own ldr_memcg_destroy, so the test's .fini removes what is
 * left (nothing may stay behind under the machine's cgroup tree).
 */
static struct ldr_memcg *made[4];

static void track(struct ldr_memcg *cg)
{
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (!made[i]) {
			made[i] = cg;
			return;
		}
	cr_assert_fail("more groups than the test tracks");
}

/* ldr_memcg_destroy, and forget CG. */
static int destroy(struct ldr_memcg *cg)
{
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i] == cg)
			made[i] = NULL;
	return ldr_memcg_destroy(cg);
}

static void destroy_left(void)
{
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		ldr_memcg_destroy(made[i]);
		made[i] = NULL;
	}
}

/* A group, or a skip with the reason this machine cannot make one. */
static struct ldr_memcg *make_or_skip(uint64_t limit)
{
	struct ldr_memcg *cg;
	char why[512];
	int err;

	stg_sysroot_set("/");
	err = ldr_memcg_create(limit, &cg, why, sizeof(why));
	if (err == -EACCES || err == -EPERM || err == -ENOENT ||
	    err == -EROFS || err == -EBUSY)
		cr_skip_test("no memory cgroup here: %s", why);
	cr_assert_eq(err, 0, "%s", why);
	track(cg);
	return cg;
}

static bool exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* Entries named feedrate-<our pid>-* in FOLDER. */
static int leftovers(const char *folder)
{
	char prefix[64];
	DIR *d = opendir(folder);
	struct dirent *e;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "feedrate-%d-", (int)getpid());
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static uint64_t read_u64(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");

	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	return strtoull(buf, NULL, 10);
}

FR_TEST(memcg, is_made_with_its_limit_and_removed_without_a_trace,
	.fini = destroy_left)
{
	char path[PATH_MAX], parent[PATH_MAX], file[PATH_MAX + 32];
	struct ldr_memcg *cg = make_or_skip(64 * MiB);
	struct ldr_memcg *cg2 = make_or_skip(32 * MiB);

	snprintf(path, sizeof(path), "%s", ldr_memcg_path(cg));
	snprintf(parent, sizeof(parent), "%s", path);
	dirname(parent);
	cr_assert(exists(path), "%s", path);
	cr_assert_str_neq(ldr_memcg_path(cg), ldr_memcg_path(cg2),
			  "two groups share a name");
	snprintf(file, sizeof(file), "%s/%s", path,
		 ldr_memcg_version(cg) == 1 ? "memory.limit_in_bytes" :
		 "memory.max");
	cr_assert_eq(read_u64(file), 64 * MiB);
	cr_assert_eq(leftovers(parent), 2);
	cr_assert_eq(destroy(cg), 0);
	cr_assert_eq(destroy(cg2), 0);
	cr_assert_not(exists(path), "%s still there", path);
	cr_assert_eq(leftovers(parent), 0);
	cr_assert_eq(ldr_memcg_destroy(NULL), 0);
}

struct where_out {
	char line[512];         /* our memory cgroup line */
};

static int report_cgroup(void *arg, volatile int *stop, void *out,
			 size_t len)
{
	struct where_out *o = out;
	FILE *f = fopen("/proc/self/cgroup", "re");
	char buf[512];
	int v = *(int *)arg;

	(void)stop;
	(void)len;
	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f))
		if ((v == 1 && strstr(buf, ":memory:")) ||
		    (v == 2 && !strncmp(buf, "0::", 3)))
			snprintf(o->line, sizeof(o->line), "%s", buf);
	fclose(f);
	return 0;
}

FR_TEST(memcg, child_runs_inside_and_the_group_goes_after,
	.fini = destroy_left)
{
	struct ldr_memcg *cg = make_or_skip(128 * MiB);
	const struct ldr_child_opts opts = { .memcg = cg };
	struct ldr_child_report rep;
	struct where_out o = { "" };
	char path[PATH_MAX], name[PATH_MAX];
	int v = ldr_memcg_version(cg);

	snprintf(path, sizeof(path), "%s", ldr_memcg_path(cg));
	snprintf(name, sizeof(name), "%s", strrchr(path, '/') + 1);
	cr_assert_eq(ldr_child_run(&opts, report_cgroup, &v, &o, sizeof(o),
				   &rep), 0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0);
	cr_assert(strstr(o.line, name) != NULL, "child in \"%s\", not %s",
		  o.line, name);
	/* and this process is not */
	report_cgroup(&v, NULL, &o, sizeof(o));
	cr_assert_null(strstr(o.line, name), "the parent moved too");
	cr_assert_eq(destroy(cg), 0);
	cr_assert_not(exists(path));
}

struct cache_arg {
	const char *file;
	const struct ldr_memcg *cg;
};

struct cache_out {
	uint64_t charged_cache; /* the group's page cache after the read */
	uint64_t resident;      /* the file's resident bytes (mincore) */
	uint64_t size;
	int err;
};

static int read_file_whole(void *arg, volatile int *stop, void *out,
			   size_t len)
{
	const struct cache_arg *a = arg;
	struct cache_out *o = out;
	static char buf[1 << 16];
	uint64_t pages, total;
	int fd = open(a->file, O_RDONLY);
	ssize_t n;

	(void)stop;
	(void)len;
	if (fd < 0)
		return o->err = -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		o->size += (uint64_t)n;
	close(fd);
	o->err = ldr_memcg_usage(a->cg, NULL, &o->charged_cache);
	if (stg_cache_residency(AT_FDCWD, a->file, &pages, &total) == 0)
		o->resident = pages * (uint64_t)sysconf(_SC_PAGESIZE);
	return o->err;
}

static void write_evicted(const char *path, uint64_t size)
{
	static char buf[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	for (uint64_t done = 0; done < size; done += sizeof(buf))
		cr_assert_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	cr_assert_eq(fsync(fd), 0);
	close(fd);
	cr_assert_eq(stg_cache_evict(AT_FDCWD, path), 0);
}

FR_TEST(memcg, page_cache_read_inside_is_charged_and_held_to_the_limit,
	.fini = destroy_left)
{
	static char *dir;
	char file[PATH_MAX];
	const uint64_t size = 48 * MiB;
	struct cache_out big = { 0 }, small = { 0 };
	struct ldr_child_report rep;

	dir = fr_test_tmpdir();
	snprintf(file, sizeof(file), "%s/data", dir);
	write_evicted(file, size);

	/* room for all of it: it is all charged here */
	{
		struct ldr_memcg *cg = make_or_skip(256 * MiB);
		const struct ldr_child_opts opts = { .memcg = cg };
		struct cache_arg a = { file, cg };

		cr_assert_eq(ldr_child_run(&opts, read_file_whole, &a, &big,
					   sizeof(big), &rep), 0, "%s",
			     rep.why);
		cr_assert_eq(destroy(cg), 0);
	}
	cr_assert_eq(big.err, 0, "%s", strerror(-big.err));
	cr_assert_eq(big.size, size);
	cr_assert_geq(big.charged_cache, size * 9 / 10,
		      "only %llu of %llu bytes charged",
		      (unsigned long long)big.charged_cache,
		      (unsigned long long)size);

	/* a group of 16 MiB keeps at most 16 MiB of it */
	cr_assert_eq(stg_cache_evict(AT_FDCWD, file), 0);
	{
		struct ldr_memcg *cg = make_or_skip(16 * MiB);
		const struct ldr_child_opts opts = { .memcg = cg };
		struct cache_arg a = { file, cg };

		cr_assert_eq(ldr_child_run(&opts, read_file_whole, &a, &small,
					   sizeof(small), &rep), 0, "%s",
			     rep.why);
		cr_assert_eq(destroy(cg), 0);
	}
	cr_assert_eq(small.size, size);
	cr_assert_leq(small.charged_cache, 16 * MiB);
	cr_assert_leq(small.resident, 16 * MiB, "%llu bytes resident",
		      (unsigned long long)small.resident);
	cr_log_info("48 MiB read: %llu MiB cached in a 256 MiB group, %llu "
		    "MiB (resident %llu MiB) in a 16 MiB group",
		    (unsigned long long)(big.charged_cache / MiB),
		    (unsigned long long)(small.charged_cache / MiB),
		    (unsigned long long)(small.resident / MiB));
	fr_test_rmtree(dir);
}

static int eat_memory(void *arg, volatile int *stop, void *out, size_t len)
{
	size_t n = *(size_t *)arg;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)stop;
	(void)out;
	(void)len;
	if (p == MAP_FAILED)
		return -errno;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	munmap(p, n);
	return 0;
}

FR_TEST(memcg, child_killed_by_the_limit_is_reported_and_cleaned_up,
	.fini = destroy_left)
{
	struct ldr_memcg *cg = make_or_skip(16 * MiB);
	const struct ldr_child_opts opts = { .memcg = cg };
	struct ldr_child_report rep;
	size_t n = 256 * MiB;
	char path[PATH_MAX], out[8];
	int err;

	snprintf(path, sizeof(path), "%s", ldr_memcg_path(cg));
	err = ldr_child_run(&opts, eat_memory, &n, out, sizeof(out), &rep);
	cr_assert_eq(destroy(cg), 0);
	cr_assert_not(exists(path));
	if (err == 0)
		cr_skip_test("256 MiB fitted in a 16 MiB group (swap?)");
	cr_assert_eq(err, -ECHILD);
	cr_assert(strstr(rep.why, "killed by signal 9") != NULL, "%s", rep.why);
	cr_assert(strstr(rep.why, "memory cgroup") != NULL, "%s", rep.why);
}

struct perm_out {
	int err;
	char why[512];
};

static int create_as_nobody(void *arg, volatile int *stop, void *out,
			    size_t len)
{
	struct perm_out *o = out;
	struct ldr_memcg *cg = NULL;

	(void)arg;
	(void)stop;
	(void)len;
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -errno;
	o->err = ldr_memcg_create(64 * MiB, &cg, o->why, sizeof(o->why));
	ldr_memcg_destroy(cg);
	return 0;
}

FR_TEST(memcg, without_permission_the_reason_is_given)
{
	struct perm_out o = { 0 };
	struct ldr_child_report rep;

	if (geteuid() != 0)
		cr_skip_test("not root: cannot drop to another user");
	stg_sysroot_set("/");
	cr_assert_eq(ldr_child_run(NULL, create_as_nobody, NULL, &o, sizeof(o),
				   &rep), 0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0, "setresuid: %s",
		     strerror(-rep.fn_result));
	if (o.err == -ENOENT)
		cr_skip_test("no memory cgroup here: %s", o.why);
	cr_assert(o.err == -EACCES || o.err == -EPERM, "got %d: %s", o.err,
		  o.why);
	cr_assert(strstr(o.why, "no permission") != NULL, "%s", o.why);
}

FR_TEST(memcg, no_memory_controller_mounted_is_said_in_words)
{
	struct ldr_memcg *cg = (struct ldr_memcg *)1;
	char why[512];

	cr_assert_eq(stg_sysroot_set("tests/fixtures/topology/no_memcg"), 0);
	cr_assert_eq(ldr_memcg_create(64 * MiB, &cg, why, sizeof(why)),
		     -ENOENT);
	cr_assert_null(cg);
	cr_assert(strstr(why, "no memory cgroup controller is mounted") !=
		  NULL, "%s", why);
	cr_assert_eq(ldr_memcg_create(0, &cg, why, sizeof(why)), -EINVAL);
}

FR_TEST(memcg, group_left_by_a_killed_run_is_removed_by_the_next,
	.fini = destroy_left)
{
	struct ldr_memcg *cg = make_or_skip(64 * MiB), *next;
	char stale[PATH_MAX + 64], parent[PATH_MAX];
	pid_t gone = fork();
	int st;

	/* a pid that surely exists no more: a reaped child's */
	cr_assert_geq(gone, 0);
	if (gone == 0)
		_exit(0);
	waitpid(gone, &st, 0);
	snprintf(parent, sizeof(parent), "%s", ldr_memcg_path(cg));
	dirname(parent);
	snprintf(stale, sizeof(stale), "%s/feedrate-%d-0", parent, (int)gone);
	if (mkdir(stale, 0755) < 0)
		cr_skip_test("cannot make a group by hand: %s", strerror(errno));
	next = make_or_skip(64 * MiB);
	cr_assert_not(exists(stale), "%s was not removed", stale);
	/* live groups (ours) stay */
	cr_assert(exists(ldr_memcg_path(cg)));
	cr_assert_eq(destroy(next), 0);
	cr_assert_eq(destroy(cg), 0);
}
