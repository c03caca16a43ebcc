/*
 * test_outpath.c - a report path never destroys anything: the check
 * (rpt_out_path_check) refuses devices, folders and what the run reads,
 * and the writer refuses a disk however the path reaches it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "report.h"

#define WHY_LEN 512

/* rpt_out_path_check with one or two read roots; WHY kept for messages. */
static char why[WHY_LEN];

static int check(const char *path, const char *root1, const char *root2)
{
	const char *roots[] = { root1, root2 };

	return rpt_out_path_check(path, roots, 2, why, sizeof(why));
}

static char *join(const char *dir, const char *name)
{
	char *p;

	cr_assert_gt(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void expect_refused(const char *path, const char *root1,
			   const char *root2, int err, const char *words)
{
	int ret = check(path, root1, root2);

	cr_expect_eq(ret, err, "%s: got %d (%s), expected %d", path, ret, why,
		     err);
	cr_expect_not_null(strstr(why, words), "%s: the reason \"%s\" does not "
			   "say \"%s\"", path, why, words);
}

static void expect_accepted(const char *path, const char *root1,
			    const char *root2)
{
	int ret = check(path, root1, root2);

	cr_expect_eq(ret, 0, "%s refused: %d, %s", path, ret, why);
	cr_expect_str_eq(why, "");
}

/* A temporary folder holding a dataset folder "data" with one file and a
 * list file "list.txt" outside it, as a run reads them. */
struct ds {
	char *dir, *data, *file, *list;
};

static void ds_make(struct ds *d)
{
	d->dir = fr_test_tmpdir();
	d->data = join(d->dir, "data");
	d->file = join(d->data, "a.jpg");
	d->list = join(d->dir, "list.txt");
	cr_assert_eq(mkdir(d->data, 0755), 0);
	put_file(d->file, "jpeg");
	put_file(d->list, "a.jpg\n");
}

static void ds_free(struct ds *d)
{
	free(d->data);
	free(d->file);
	free(d->list);
	fr_test_rmtree(d->dir);
}

FR_TEST(report_outpath, refuses_a_folder)
{
	struct ds d;
	char *slash;

	ds_make(&d);
	expect_refused(d.dir, NULL, NULL, -EISDIR, "a folder");
	slash = join(d.dir, "new/");
	expect_refused(slash, NULL, NULL, -EISDIR, "names a folder");
	free(slash);
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_a_new_file_inside_the_dataset)
{
	struct ds d;
	char *p, *lnk;

	ds_make(&d);
	p = join(d.data, "report.json");
	expect_refused(p, d.data, d.list, -EINVAL, "inside");
	cr_expect_neq(access(p, F_OK), 0, "the check created the file");
	free(p);

	/* the same folder reached through ".." */
	p = join(d.data, "../data/report.json");
	expect_refused(p, d.data, d.list, -EINVAL, "inside");
	free(p);

	/* a subfolder, and the root given with a trailing slash */
	p = join(d.data, "sub");
	cr_assert_eq(mkdir(p, 0755), 0);
	free(p);
	p = join(d.data, "sub/report.json");
	lnk = join(d.data, "");
	expect_refused(p, lnk, NULL, -EINVAL, "inside");
	free(lnk);
	free(p);

	/* a symlinked parent folder */
	lnk = join(d.dir, "alias");
	cr_assert_eq(symlink(d.data, lnk), 0);
	p = join(lnk, "report.json");
	expect_refused(p, d.data, NULL, -EINVAL, "inside");
	free(p);
	/* ... and the dataset given through the link */
	p = join(d.data, "r.json");
	expect_refused(p, lnk, NULL, -EINVAL, "inside");
	free(p);
	free(lnk);
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_the_files_the_run_reads)
{
	struct ds d;
	char *hard, *lnk;

	ds_make(&d);
	/* a file of the dataset folder */
	expect_refused(d.file, d.data, d.list, -EINVAL, "inside");
	/* the dataset given as a single file */
	expect_refused(d.file, d.file, NULL, -EINVAL, "a file this run reads");
	/* the --list file (or a job file), by its name, a link or a hard
	 * link */
	expect_refused(d.list, d.data, d.list, -EINVAL,
		       "a file this run reads");
	lnk = join(d.dir, "list-link.txt");
	cr_assert_eq(symlink(d.list, lnk), 0);
	expect_refused(lnk, d.data, d.list, -EINVAL, "a file this run reads");
	hard = join(d.dir, "list-hard.txt");
	cr_assert_eq(link(d.list, hard), 0);
	expect_refused(hard, d.data, d.list, -EINVAL, "a file this run reads");
	free(hard);
	free(lnk);
	ds_free(&d);
}

FR_TEST(report_outpath, accepts_stdout_dev_null_a_fifo_and_plain_files)
{
	struct ds d;
	char *fifo, *plain, *lnk, *fresh, *sibling;

	ds_make(&d);
	expect_accepted("-", d.data, d.list);
	expect_accepted("/dev/null", d.data, d.list);
	fifo = join(d.dir, "pipe");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* the check only looks: a FIFO without a reader cannot hang it */
	expect_accepted(fifo, d.data, d.list);
	plain = join(d.dir, "old.json");
	put_file(plain, "old");
	expect_accepted(plain, d.data, d.list);
	lnk = join(d.dir, "link.json");
	cr_assert_eq(symlink(plain, lnk), 0);
	expect_accepted(lnk, d.data, d.list);
	fresh = join(d.dir, "new.json");
	expect_accepted(fresh, d.data, d.list);
	cr_expect_neq(access(fresh, F_OK), 0, "the check created the file");
	/* "data2" starts with "data" but is not inside it */
	sibling = join(d.dir, "data2");
	cr_assert_eq(mkdir(sibling, 0755), 0);
	free(fresh);
	fresh = join(sibling, "r.json");
	expect_accepted(fresh, d.data, d.list);
	free(sibling);
	free(fresh);
	free(lnk);
	free(plain);
	free(fifo);
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_a_missing_folder_or_device_and_names_it)
{
	struct ds d;
	char *p;

	ds_make(&d);
	p = join(d.dir, "no-such-folder/r.json");
	expect_refused(p, d.data, NULL, -ENOENT, "no-such-folder does not exist");
	free(p);
	/* the writer creates nothing under /dev: a mistyped device name */
	expect_refused("/dev/feedrate-no-such-disk", NULL, NULL, -ENOENT,
		       "does not exist");
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_a_folder_it_cannot_write_in)
{
	struct ds d;
	char *p;
	pid_t pid;
	int status;

	if (geteuid() != 0)
		cr_skip_test("needs root to run the check as another user");
	ds_make(&d);
	p = join(d.dir, "r.json");
	cr_assert_eq(chmod(d.dir, 0755), 0);
	/* as nobody, the root-owned folder cannot take the temporary file */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int ret;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		ret = check(p, NULL, NULL);
		_exit(ret == -EACCES && strstr(why, "Permission denied") ? 0 :
		      1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the check as nobody did not refuse %s with EACCES (status "
		  "%d)", p, status);
	free(p);
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_a_link_to_nothing)
{
	struct ds d;
	char *lnk, *gone;

	ds_make(&d);
	lnk = join(d.dir, "r.json");
	gone = join(d.dir, "gone/r.json");
	cr_assert_eq(symlink(gone, lnk), 0);
	expect_refused(lnk, NULL, NULL, -ENOENT, "a link to nothing");
	free(gone);
	free(lnk);
	ds_free(&d);
}

FR_TEST(report_outpath, refuses_character_devices_other_than_null_and_ttys)
{
	/* /dev/urandom stands in for /dev/port or a flash or tape device:
	 * writing to it is harmless should the refusal ever fail */
	json_t *root = json_pack("{s:i}", "x", 1);

	expect_refused("/dev/urandom", NULL, NULL, -EINVAL,
		       "character device");
	cr_expect_eq(rpt_json_write(root, "/dev/urandom"), -EINVAL);
	json_decref(root);
}

FR_TEST(report_write, refuses_a_folder_and_leaves_it_empty)
{
	char *dir = fr_test_tmpdir();
	json_t *root = json_pack("{s:i}", "x", 1);

	cr_expect_eq(rpt_json_write(root, dir), -EISDIR);
	json_decref(root);
	cr_assert_eq(rmdir(dir), 0, "the writer left something in the "
		     "folder: %s", strerror(errno));
	free(dir);
}

FR_TEST(report_write, writes_into_a_fifo)
{
	char *dir = fr_test_tmpdir(), *fifo = join(dir, "pipe");
	json_t *root = json_pack("{s:i}", "x", 9);
	char buf[64] = { 0 };
	int rd;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* O_RDWR holds the FIFO open for reading, so the writer's open does
	 * not wait for a reader and the test cannot hang */
	rd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(rd, 0, "%s", strerror(errno));
	cr_assert_eq(rpt_json_write(root, fifo), 0);
	cr_assert_gt(read(rd, buf, sizeof(buf) - 1), 0);
	cr_expect_not_null(strstr(buf, "\"x\": 9"), "%s", buf);
	close(rd);
	json_decref(root);
	free(fifo);
	fr_test_rmtree(dir);
}

/* ---- a real block device ---- */

#include "loop_testlib.h"

FR_TEST(report_outpath, a_loop_device_is_refused_and_keeps_its_bytes,
	.fini = loop_detach)
{
	json_t *root = json_pack("{s:s}", "report", "must not land on a disk");
	uint64_t before;

	loop_attach();
	before = loop_digest();
	expect_refused(loop.dev, NULL, NULL, -EINVAL, "a block device");
	cr_expect_eq(rpt_json_write(root, loop.dev), -EINVAL);
	cr_expect_eq(rpt_file_write(loop.dev, "x", 1), -EINVAL);
	cr_expect_eq(loop_digest(), before, "%s changed", loop.dev);
	json_decref(root);
}

FR_TEST(report_outpath, a_link_to_a_loop_device_is_refused,
	.fini = loop_detach)
{
	json_t *root = json_pack("{s:s}", "report", "must not land on a disk");
	char *lnk;
	uint64_t before;

	loop_attach();
	before = loop_digest();
	lnk = join(loop.dir, "report.json");
	cr_assert_eq(symlink(loop.dev, lnk), 0);
	expect_refused(lnk, NULL, NULL, -EINVAL, "a link to /dev/loop");
	cr_expect_eq(rpt_json_write(root, lnk), -EINVAL);
	cr_expect_eq(loop_digest(), before, "%s changed", loop.dev);
	free(lnk);
	json_decref(root);
}

FR_TEST(report_outpath, two_spellings_of_one_report_file_are_the_same)
{
	char *dir = fr_test_tmpdir(), a[4200], b[4200], c[4200], sub[4200];

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(a, sizeof(a), "%s/r.json", dir);
	snprintf(b, sizeof(b), "%s/./sub/../r.json", dir);
	snprintf(c, sizeof(c), "%s/sub/r.json", dir);
	cr_expect(rpt_out_path_same(a, b), "%s and %s", a, b);
	cr_expect_not(rpt_out_path_same(a, c), "%s and %s", a, c);
	cr_expect(rpt_out_path_same("-", "-"));
	cr_expect_not(rpt_out_path_same("-", a));
	fr_test_rmtree(dir);
}
