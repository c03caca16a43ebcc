/*
 * test_dataset.c - dataset listing: the directory walk (nested folders,
 * order, symlinks and their loops, unreadable folders, DT_UNKNOWN, names
 * that are not text) and list files (sizes, missing entries, bad lines).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "storage.h"

static void put(const char *dir, const char *rel, size_t size)
{
	char path[PATH_MAX], *p;
	int fd;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	/* make the parent folders */
	for (p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(write(fd, "x", 1), 1);
	close(fd);
}

static void link_at(const char *dir, const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	cr_assert_eq(symlink(target, path), 0, "symlink %s: %s", path,
		     strerror(errno));
}

static struct stg_dataset *scan(const char *dir,
				const struct stg_dataset_opts *opts)
{
	struct stg_dataset *ds = NULL;
	int err = stg_dataset_scan(dir, opts, &ds);

	cr_assert_eq(err, 0, "scan %s: %s", dir, strerror(-err));
	cr_assert_not_null(ds);
	return ds;
}

static void expect_paths(const struct stg_dataset *ds,
			 const char *const *want, size_t n)
{
	cr_assert_eq(stg_dataset_count(ds), n, "%zu files, expected %zu",
		     stg_dataset_count(ds), n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(stg_dataset_relpath(ds, i, NULL), want[i],
				 "id %zu", i);
}

/* ---- the walk ---- */

FR_TEST(dataset, nested_folders_listed_in_deterministic_order_with_sizes)
{
	char *dir = fr_test_tmpdir();
	/* a folder's files first, then its subfolders, all bytewise */
	static const char *const want[] = {
		"a.jpg", "b.jpg", "cat/1.jpg", "cat/2.jpg", "cat/kitten/x",
		"dog/z", "dog/deep/er/est/f",
	};
	struct stg_dataset *ds;
	char path[PATH_MAX];
	int fd;

	/* created out of order on purpose */
	put(dir, "dog/z", 3);
	put(dir, "b.jpg", 2);
	put(dir, "cat/kitten/x", 0);
	put(dir, "cat/2.jpg", 7);
	put(dir, "a.jpg", 1);
	put(dir, "dog/deep/er/est/f", 5);
	put(dir, "cat/1.jpg", 4);
	mkdir(strcat(strcpy(path, dir), "/empty"), 0755);

	ds = scan(dir, NULL);
	expect_paths(ds, want, 7);
	cr_assert_eq(stg_dataset_size(ds, 0), 1);
	cr_assert_eq(stg_dataset_size(ds, 3), 7);
	cr_assert_eq(stg_dataset_size(ds, 4), 0);
	cr_assert_eq(stg_dataset_total_bytes(ds), 1 + 2 + 4 + 7 + 0 + 5 + 3);
	cr_assert_eq(stg_dataset_max_size(ds), 7);
	cr_assert_null(stg_dataset_relpath(ds, 7, NULL));
	cr_assert_eq(stg_dataset_size(ds, 7), -1);
	for (int k = 0; k < STG_DS_ERR_COUNT; k++)
		cr_assert_eq(stg_dataset_errors(ds, k), 0, "%s",
			     stg_ds_err_name(k));

	/* full path and open by id */
	cr_assert_gt(stg_dataset_path(ds, 5, path, sizeof(path)), 0);
	cr_assert(strstr(path, "/dog/z") && !strncmp(path, dir, strlen(dir)));
	cr_assert_eq(stg_dataset_path(ds, 5, path, 4), -ENAMETOOLONG);
	fd = stg_dataset_open(ds, 5, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, path, sizeof(path)), 3);
	close(fd);
	cr_assert_eq(stg_dataset_open(ds, 99, O_RDONLY), -EINVAL);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(dataset, root_that_is_no_folder_is_an_error)
{
	char *dir = fr_test_tmpdir();
	struct stg_dataset *ds = (void *)1;
	char path[PATH_MAX];

	put(dir, "f", 1);
	snprintf(path, sizeof(path), "%s/f", dir);
	cr_assert_eq(stg_dataset_scan(path, NULL, &ds), -ENOTDIR);
	cr_assert_null(ds);
	snprintf(path, sizeof(path), "%s/none", dir);
	cr_assert_eq(stg_dataset_scan(path, NULL, &ds), -ENOENT);
	stg_dataset_destroy(NULL);
	fr_test_rmtree(dir);
}

FR_TEST(dataset, symlink_loops_end_and_are_counted)
{
	char *dir = fr_test_tmpdir();
	static const char *const want[] = { "a/f", "b/g" };
	struct stg_dataset *ds;

	put(dir, "a/f", 1);
	put(dir, "b/g", 1);
	link_at(dir, "..", "a/up");          /* a/up is the root again */
	link_at(dir, ".", "b/self");         /* b/self is b */
	link_at(dir, "../a", "b/zz_to_a");   /* a, already walked */

	ds = scan(dir, NULL);
	expect_paths(ds, want, 2);
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_LOOP), 3);
	cr_assert_not_null(stg_dataset_error_example(ds, STG_DS_ERR_LOOP));
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(dataset, symlinks_to_files_and_folders_are_followed)
{
	char *dir = fr_test_tmpdir();
	static const char *const want[] = {
		"data/img.jpg", "data/link.jpg", "more/x", "more/y",
	};
	struct stg_dataset *ds;
	char target[PATH_MAX];

	put(dir, "data/img.jpg", 10);
	put(dir, "pool/x", 2);
	put(dir, "pool/y", 3);
	/* "pool" is reached through "more" first (bytewise order) */
	link_at(dir, "img.jpg", "data/link.jpg");
	link_at(dir, "nowhere", "data/zz_dangling");
	link_at(dir, "pool", "more");
	snprintf(target, sizeof(target), "%s/pool", dir);

	ds = scan(dir, NULL);
	expect_paths(ds, want, 4);
	cr_assert_eq(stg_dataset_size(ds, 1), 10, "a link has its target's size");
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_DANGLING), 1);
	cr_assert_str_eq(stg_dataset_error_example(ds, STG_DS_ERR_DANGLING),
			 "data/zz_dangling");
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_LOOP), 1,
		     "pool is seen again after more");
	stg_dataset_destroy(ds);

	ds = scan(dir, &(struct stg_dataset_opts){ .no_follow_dir_links = true });
	cr_assert_eq(stg_dataset_count(ds), 4);
	cr_assert_str_eq(stg_dataset_relpath(ds, 2, NULL), "pool/x");
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(dataset, names_with_spaces_and_non_utf8_bytes_kept_as_bytes)
{
	char *dir = fr_test_tmpdir();
	static const char *const want[] = {
		"new\nline", "\xc3\xa9t\xc3\xa9.jpg", "\xff\xfe.jpg",
		"a b/c d.jpg",
	};
	struct stg_dataset *ds;
	size_t len;

	for (size_t i = 0; i < 4; i++)
		put(dir, want[i], i);
	ds = scan(dir, NULL);
	expect_paths(ds, want, 4);
	cr_assert_str_eq(stg_dataset_relpath(ds, 2, &len), "\xff\xfe.jpg");
	cr_assert_eq(len, 6);
	cr_assert_eq(stg_dataset_size(ds, 2), 2);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

FR_TEST(dataset, special_files_counted_not_listed)
{
	char *dir = fr_test_tmpdir();
	char path[PATH_MAX];
	struct stg_dataset *ds;

	put(dir, "f", 1);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);
	ds = scan(dir, NULL);
	cr_assert_eq(stg_dataset_count(ds), 1);
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_SPECIAL), 1);
	cr_assert_str_eq(stg_dataset_error_example(ds, STG_DS_ERR_SPECIAL),
			 "fifo");
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

/* As root, permissions do not apply: drop the two capabilities that
 * bypass them in this (child) process. Returns 0 or -1. */
static int drop_dac_caps(void)
{
	static const cap_value_t caps[] = {
		CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
	};
	cap_t c = cap_get_proc();
	int r;

	if (!c)
		return -1;
	r = cap_set_flag(c, CAP_EFFECTIVE, 2, caps, CAP_CLEAR) ||
	    cap_set_flag(c, CAP_PERMITTED, 2, caps, CAP_CLEAR) ||
	    cap_set_proc(c);
	cap_free(c);
	return r ? -1 : 0;
}

FR_TEST(dataset, unreadable_folder_counted_and_walk_goes_on)
{
	char *dir = fr_test_tmpdir();
	char path[PATH_MAX];
	int status;
	pid_t pid;

	put(dir, "ok/a", 1);
	put(dir, "secret/b", 1);
	put(dir, "z", 1);
	snprintf(path, sizeof(path), "%s/secret", dir);
	cr_assert_eq(chmod(path, 0), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct stg_dataset *ds;
		int bad = 0;

		if (drop_dac_caps())
			_exit(77);
		if (stg_dataset_scan(dir, NULL, &ds))
			_exit(10);
		bad |= stg_dataset_count(ds) != 2;
		bad |= strcmp(stg_dataset_relpath(ds, 0, NULL), "z") != 0;
		bad |= strcmp(stg_dataset_relpath(ds, 1, NULL), "ok/a") != 0;
		bad |= stg_dataset_errors(ds, STG_DS_ERR_OPENDIR) != 1;
		bad |= strcmp(stg_dataset_error_example(ds, STG_DS_ERR_OPENDIR),
			      "secret") != 0;
		stg_dataset_destroy(ds);
		_exit(bad ? 11 : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	chmod(path, 0755);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("cannot drop CAP_DAC_OVERRIDE here");
	cr_assert_eq(WEXITSTATUS(status), 0, "child exit %d",
		     WEXITSTATUS(status));
}

FR_TEST(dataset, ignoring_d_type_takes_the_fstatat_path_same_result)
{
	char *dir = fr_test_tmpdir();
	struct stg_dataset *a, *b;

	put(dir, "x/1", 1);
	put(dir, "x/2", 2);
	put(dir, "y", 3);
	link_at(dir, "../y", "x/ly");
	link_at(dir, "x", "lx");
	link_at(dir, "gone", "x/dangling");
	a = scan(dir, NULL);
	b = scan(dir, &(struct stg_dataset_opts){ .ignore_d_type = true });
	cr_assert_eq(stg_dataset_count(a), stg_dataset_count(b));
	cr_assert_eq(stg_dataset_count(a), 4);
	for (size_t i = 0; i < stg_dataset_count(a); i++) {
		cr_assert_str_eq(stg_dataset_relpath(a, i, NULL),
				 stg_dataset_relpath(b, i, NULL));
		cr_assert_eq(stg_dataset_size(a, i), stg_dataset_size(b, i));
	}
	for (int k = 0; k < STG_DS_ERR_COUNT; k++)
		cr_assert_eq(stg_dataset_errors(a, k), stg_dataset_errors(b, k));
	cr_assert_eq(stg_dataset_errors(b, STG_DS_ERR_DANGLING), 1);
	stg_dataset_destroy(a);
	stg_dataset_destroy(b);
	fr_test_rmtree(dir);
}

/* Does getdents on DIR report DT_UNKNOWN for the entry NAME? */
static int reports_dt_unknown(const char *dir, const char *name)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), found = -1;
	long n;

	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);

			if (!strcmp(d->name, name))
				found = d->type == DT_UNKNOWN;
			off += d->reclen;
		}
	}
	close(fd);
	return found;
}

FR_TEST(dataset_slow, ext2_without_filetype_returns_dt_unknown_and_walk_works)
{
	char *dir = fr_test_tmpdir();
	char cmd[3 * PATH_MAX], src[PATH_MAX], img[PATH_MAX], mnt[PATH_MAX];
	int status;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("mounting an image needs root");
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(img, sizeof(img), "%s/fs.img", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	put(src, "d/1", 1);
	put(src, "d/2", 2);
	put(src, "top", 3);
	mkdir(mnt, 0755);
	/* ext2 without the filetype feature stores no type in its entries */
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext2 -O ^filetype -d '%s' "
		 "'%s' 4M >/dev/null 2>&1", src, img);
	if (system(cmd) != 0) {
		fr_test_rmtree(dir);
		cr_skip_test("mke2fs -O ^filetype -d not available");
	}
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct stg_dataset *ds;
		int bad = 0;

		/* a private mount namespace: the mount dies with the child */
		if (unshare(CLONE_NEWNS) ||
		    system("mount --make-rprivate / 2>/dev/null") != 0)
			_exit(77);
		snprintf(cmd, sizeof(cmd), "mount -o loop,ro '%s' '%s' "
			 ">/dev/null 2>&1", img, mnt);
		if (system(cmd) != 0)
			_exit(77);
		if (reports_dt_unknown(mnt, "top") != 1)
			_exit(12);
		if (stg_dataset_scan(mnt, NULL, &ds))
			_exit(10);
		/* lost+found is a folder too: it is walked, and empty */
		bad |= stg_dataset_count(ds) != 3;
		bad |= strcmp(stg_dataset_relpath(ds, 0, NULL), "top") != 0;
		bad |= strcmp(stg_dataset_relpath(ds, 1, NULL), "d/1") != 0;
		bad |= stg_dataset_size(ds, 2) != 2;
		stg_dataset_destroy(ds);
		snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
		bad |= system(cmd) != 0;
		_exit(bad ? 11 : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("cannot loop-mount an image here");
	cr_assert_eq(WEXITSTATUS(status), 0, "child exit %d (12: the image "
		     "reported a d_type)", WEXITSTATUS(status));
}

/* ---- list files ---- */

static char *write_list(const char *dir, const char *name, const char *text,
			size_t len)
{
	char *path;
	int fd;

	cr_assert_geq(asprintf(&path, "%s/%s", dir, name), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

FR_TEST(dataset_list, sizes_trusted_missing_counted_at_read_time)
{
	char *dir = fr_test_tmpdir();
	static const char text[] = "10\tcat/a.jpg\n5\tcat/missing.jpg\n"
				   "\n4\tb c.jpg\n";
	struct stg_dataset *ds;
	char *list;

	put(dir, "cat/a.jpg", 10);
	put(dir, "b c.jpg", 4);
	list = write_list(dir, "list.txt", text, sizeof(text) - 1);
	cr_assert_eq(stg_dataset_load_list(list, dir, NULL, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), 3, "list order, missing kept");
	cr_assert_str_eq(stg_dataset_relpath(ds, 1, NULL), "cat/missing.jpg");
	cr_assert_eq(stg_dataset_size(ds, 1), 5);
	cr_assert_eq(stg_dataset_total_bytes(ds), 19);
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_MISSING), 0);
	/* not stat'ed when listed: the read finds out */
	cr_assert_eq(stg_dataset_open(ds, 1, O_RDONLY), -ENOENT);
	stg_dataset_destroy(ds);
	free(list);
	fr_test_rmtree(dir);
}

FR_TEST(dataset_list, entries_without_size_stated_and_missing_dropped)
{
	char *dir = fr_test_tmpdir();
	char text[3 * PATH_MAX];
	struct stg_dataset *ds;
	char *list;
	int n;

	put(dir, "data/a", 3);
	put(dir, "data/\xff name", 2);
	put(dir, "data/123\tx", 1);
	mkdir(strcat(strcpy(text, dir), "/data/sub"), 0755);
	n = snprintf(text, sizeof(text), "a\ngone\n\xff name\n%s/data/a\nsub\n"
		     "./123\tx\n99999999999999999999\tbig\n7\t\n", dir);
	list = write_list(dir, "data/list", text, (size_t)n);
	/* no root: relative to the list file's folder */
	cr_assert_eq(stg_dataset_load_list(list, NULL, NULL, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), 4);
	cr_assert_str_eq(stg_dataset_relpath(ds, 0, NULL), "a");
	cr_assert_eq(stg_dataset_size(ds, 0), 3);
	cr_assert_str_eq(stg_dataset_relpath(ds, 1, NULL), "\xff name");
	cr_assert_eq(stg_dataset_size(ds, 1), 2);
	cr_assert_eq(stg_dataset_relpath(ds, 2, NULL)[0], '/');
	cr_assert_eq(stg_dataset_size(ds, 2), 3);
	cr_assert_str_eq(stg_dataset_relpath(ds, 3, NULL), "./123\tx");
	cr_assert_eq(stg_dataset_size(ds, 3), 1);
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_MISSING), 1);
	cr_assert_str_eq(stg_dataset_error_example(ds, STG_DS_ERR_MISSING),
			 "gone");
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_SPECIAL), 1, "a folder");
	cr_assert_eq(stg_dataset_errors(ds, STG_DS_ERR_BAD_LINE), 2,
		     "size overflow and empty path");
	n = stg_dataset_open(ds, 2, O_RDONLY);
	cr_assert_geq(n, 0);
	close(n);
	stg_dataset_destroy(ds);
	free(list);
	fr_test_rmtree(dir);
}

FR_TEST(dataset_list, unreadable_list_file_is_an_error)
{
	struct stg_dataset *ds = (void *)1;

	cr_assert_eq(stg_dataset_load_list("/no/such/list", NULL, NULL, &ds),
		     -ENOENT);
	cr_assert_null(ds);
}

FR_TEST(dataset_names, names_kept_in_order_with_their_sizes_unstated)
{
	char *dir = fr_test_tmpdir();
	static const char *const names[] = { "z.tar", "a\tb\nc.tar",
					     "gone.tar" };
	static const uint64_t sizes[] = { 10, 4, 7 };
	struct stg_dataset *ds;
	int fd;

	put(dir, "z.tar", 10);
	put(dir, "a\tb\nc.tar", 4);
	cr_assert_eq(stg_dataset_from_names(dir, names, sizes, 3, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), 3, "every name, missing kept");
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(stg_dataset_relpath(ds, i, NULL), names[i]);
		cr_assert_eq(stg_dataset_size(ds, i), (int64_t)sizes[i]);
	}
	cr_assert_eq(stg_dataset_total_bytes(ds), 21);
	/* a tab and a newline in a name: opened as they are */
	fd = stg_dataset_open(ds, 1, O_RDONLY);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(stg_dataset_open(ds, 2, O_RDONLY), -ENOENT);
	stg_dataset_destroy(ds);
	cr_assert_eq(stg_dataset_from_names("/nonexistent/feedrate", names,
					    sizes, 3, &ds), -ENOENT);
	cr_assert_null(ds);
	fr_test_rmtree(dir);
}

/* ---- sizes stat'ed by several threads ---- */

/* A walk whose sizes several threads stat gives what one thread gives:
 * the same files, ids, sizes and totals, whatever the thread count. */
FR_TEST(dataset, sizes_stated_by_several_threads_match_one_thread)
{
	char *dir = fr_test_tmpdir();
	const struct stg_dataset_opts one = { .stat_threads = 1 };
	uint64_t want_total = 0, want_max = 0;
	struct stg_dataset *a, *b;

	for (int f = 0; f < 600; f++) {
		char rel[64];
		size_t size = (size_t)(f * 37 % 301);

		snprintf(rel, sizeof(rel), "c%d/s%02d/f%04d", f % 3, f % 7, f);
		put(dir, rel, size);
		want_total += size;
		want_max = size > want_max ? size : want_max;
	}
	a = scan(dir, &one);
	for (unsigned threads = 2; threads <= 9; threads += 7) {
		const struct stg_dataset_opts many = {
			.stat_threads = threads, .stat_parallel_min = 1 };

		b = scan(dir, &many);
		cr_assert_eq(stg_dataset_count(b), 600);
		cr_expect_eq(stg_dataset_total_bytes(b), want_total);
		cr_expect_eq(stg_dataset_max_size(b), want_max);
		for (size_t i = 0; i < 600; i++) {
			cr_assert_str_eq(stg_dataset_relpath(b, i, NULL),
					 stg_dataset_relpath(a, i, NULL),
					 "id %zu", i);
			cr_assert_eq(stg_dataset_size(b, i),
				     stg_dataset_size(a, i), "id %zu", i);
		}
		stg_dataset_destroy(b);
	}
	cr_expect_eq(stg_dataset_total_bytes(a), want_total);
	stg_dataset_destroy(a);
	fr_test_rmtree(dir);
}

/* A list's entries without a size, stat'ed by several threads: missing
 * ones and folders are counted and dropped, the others keep their order,
 * and the example of each kind is the first in the list. */
FR_TEST(dataset_list, entries_stated_by_several_threads_keep_their_order)
{
	char *dir = fr_test_tmpdir();
	const struct stg_dataset_opts many = { .stat_threads = 4,
					       .stat_parallel_min = 1 };
	char *text = malloc(1000 * 32), *list;
	size_t len = 0, kept = 0, missing = 0, folders = 0;
	struct stg_dataset *ds;

	cr_assert_not_null(text);
	for (int i = 0; i < 1000; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "d/f%04d", i);
		if (i % 7 == 3) {
			missing++;              /* listed, never made */
		} else if (i % 11 == 5) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", dir, rel);
			put(dir, "d/.keep", 0);
			cr_assert_eq(mkdir(path, 0755), 0);
			folders++;
		} else {
			put(dir, rel, (size_t)(i % 13));
			kept++;
		}
		len += (size_t)sprintf(text + len, "%s\n", rel);
	}
	list = write_list(dir, "list", text, len);
	cr_assert_eq(stg_dataset_load_list(list, dir, &many, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), kept);
	cr_expect_eq(stg_dataset_errors(ds, STG_DS_ERR_MISSING), missing);
	cr_expect_eq(stg_dataset_errors(ds, STG_DS_ERR_SPECIAL), folders);
	cr_expect_str_eq(stg_dataset_error_example(ds, STG_DS_ERR_MISSING),
			 "d/f0003");
	cr_expect_str_eq(stg_dataset_error_example(ds, STG_DS_ERR_SPECIAL),
			 "d/f0005");
	for (size_t id = 0, i = 0; i < 1000; i++) {
		char rel[32];

		if (i % 7 == 3 || i % 11 == 5)
			continue;
		snprintf(rel, sizeof(rel), "d/f%04zu", i);
		cr_assert_str_eq(stg_dataset_relpath(ds, id, NULL), rel);
		cr_assert_eq(stg_dataset_size(ds, id), (int64_t)(i % 13));
		id++;
	}
	stg_dataset_destroy(ds);
	free(list);
	free(text);
	fr_test_rmtree(dir);
}
