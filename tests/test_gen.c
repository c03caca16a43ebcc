/*
 * test_gen.c - `feedrate gen`: sizes and counts as requested, every file a
 * complete decodable JPEG, refusal of a non-empty folder, determinism, a
 * full disk and an interruption leaving no partial file under a final
 * name. The JPEG encoder it uses is tested in test_jpeg_enc.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "harness.h"
#include "jpeg_strict.h"
#include "report.h"
#include "workloads.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "open %s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	cr_assert_not_null(p);
	cr_assert_eq(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

/* ---- walking a generated tree ---- */

struct tree {
	size_t files, bytes, temps, undecodable, gray, cmyk, progressive;
	size_t classes;
};

static void tree_walk(const char *dir, struct tree *t, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d, "opendir %s", dir);
	while ((e = readdir(d))) {
		char p[4096];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		cr_assert_eq(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			if (depth == 1)
				t->classes++;
			tree_walk(p, t, depth + 1);
			continue;
		}
		if (e->d_name[0] == '.') {
			t->temps++;
			continue;
		}
		{
			size_t n;
			unsigned char *b = slurp(p, &n);
			struct decoded dd;

			t->files++;
			t->bytes += n;
			if (strict_decode(b, n, &dd, false)) {
				t->undecodable++;
			} else {
				t->gray += dd.comps == 1;
				t->cmyk += dd.comps == 4;
				t->progressive += dd.progressive;
			}
			free(b);
		}
	}
	closedir(d);
}

static int gen(const char *dir, uint64_t size, uint64_t files, uint64_t seed,
	       struct wl_gen_stats *st)
{
	const struct wl_workload *w;
	struct wl_gen_opts o = { .size_bytes = size, .files = files,
				 .seed = seed };

	cr_assert_eq(wl_find("imagenet", &w), 0);
	return w->gen->generate(w, dir, &o, st);
}

static char *subdir(const char *base, const char *name)
{
	char *p;

	cr_assert_geq(asprintf(&p, "%s/%s", base, name), 0);
	return p;
}

/* ---- gen ---- */

FR_TEST(gen, size_request_gives_the_expected_count_and_mean_size,
	.timeout = 120)
{
	char *base = fr_test_tmpdir(), *dir = subdir(base, "ds");
	const struct wl_workload *w;
	struct wl_gen_stats st;
	struct tree t = { 0 };
	const uint64_t size = 24ull << 20;
	double want_count, mean;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(gen(dir, size, 0, 3, &st), 0);
	tree_walk(dir, &t, 0);
	want_count = (double)size / w->mean_file_bytes;
	mean = (double)t.bytes / t.files;
	cr_assert_eq(t.files, st.files);
	cr_assert_eq(t.bytes, st.bytes);
	cr_assert_geq(t.bytes, size, "stops once the request is reached");
	cr_assert_lt(t.bytes, size + 3 * 1024 * 1024);
	cr_assert(t.files >= 0.9 * want_count && t.files <= 1.1 * want_count,
		  "%zu files for %.0f expected", t.files, want_count);
	cr_assert(mean >= 0.9 * w->mean_file_bytes &&
		  mean <= 1.1 * w->mean_file_bytes,
		  "mean %.0f bytes, ImageNet %.0f", mean, w->mean_file_bytes);
	cr_assert_eq(t.temps, 0);
	cr_assert_eq(t.undecodable, 0);
	cr_assert_eq(t.classes, wl_class_count(st.files_target));
	free(dir);
	fr_test_rmtree(base);
}

FR_TEST(gen_slow, every_file_decodes_and_the_mix_has_gray_cmyk_progressive,
	.timeout = 120)
{
	char *base = fr_test_tmpdir(), *dir = subdir(base, "ds");
	struct wl_gen_stats st;
	struct tree t = { 0 };

	cr_assert_eq(gen(dir, 0, 520, 11, &st), 0);
	tree_walk(dir, &t, 0);
	cr_assert_eq(t.files, 520);
	cr_assert_eq(t.undecodable, 0, "%zu files failed a strict decode",
		     t.undecodable);
	cr_assert_eq(t.gray, 9);         /* index % 64 == 7 */
	cr_assert_eq(t.cmyk, 1);         /* index % 500 == 123 */
	cr_assert_eq(t.progressive, 5);  /* index % 100 == 31 */
	cr_assert_eq(st.gray, t.gray);
	cr_assert_eq(st.cmyk, t.cmyk);
	cr_assert_gt(st.sub444, 0);
	cr_assert_gt(st.sub420, st.sub444);
	cr_assert_eq(t.classes, 6);
	free(dir);
	fr_test_rmtree(base);
}

FR_TEST(gen, refuses_a_non_empty_folder_and_leaves_it_alone)
{
	char *base = fr_test_tmpdir(), *dir = subdir(base, "mine");
	char *file = subdir(dir, "precious.txt");
	struct wl_gen_stats st;
	struct tree t = { 0 };
	char *argv[] = { "gen", "--files", "3", dir, NULL };
	FILE *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs("keep me\n", f);
	fclose(f);
	cr_assert_eq(gen(dir, 0, 3, 1, &st), -ENOTEMPTY);
	cr_assert_eq(cmd_gen(4, argv), FR_EXIT_USAGE);
	tree_walk(dir, &t, 0);
	cr_assert_eq(t.files, 1, "only the user's file is there");
	cr_assert_eq(t.classes, 0);
	free(file);
	free(dir);
	fr_test_rmtree(base);
}

FR_TEST(gen, command_line_rejects_bad_requests)
{
	char *a1[] = { "gen", "--files", "3", NULL };
	char *a2[] = { "gen", "--files", "3", "--size", "1M", "x", NULL };
	char *a3[] = { "gen", "--workload", "nope", "--files", "3", "x",
		       NULL };
	char *a4[] = { "gen", "--size", "lots", "x", NULL };
	char *a5[] = { "gen", "x", NULL };

	cr_assert_eq(cmd_gen(3, a1), FR_EXIT_USAGE, "no DIR");
	cr_assert_eq(cmd_gen(6, a2), FR_EXIT_USAGE, "both --size and --files");
	cr_assert_eq(cmd_gen(6, a3), FR_EXIT_USAGE, "unknown workload");
	cr_assert_eq(cmd_gen(4, a4), FR_EXIT_USAGE, "bad size");
	cr_assert_eq(cmd_gen(2, a5), FR_EXIT_USAGE, "neither");
}

static int files_equal(const char *a, const char *b)
{
	size_t na, nb;
	unsigned char *pa = slurp(a, &na), *pb = slurp(b, &nb);
	const int eq = na == nb && !memcmp(pa, pb, na);

	free(pa);
	free(pb);
	return eq;
}

FR_TEST(gen, same_seed_gives_identical_bytes_and_another_seed_does_not,
	.timeout = 120)
{
	char *base = fr_test_tmpdir();
	char *d1 = subdir(base, "a"), *d2 = subdir(base, "b");
	char *d3 = subdir(base, "c");
	struct wl_gen_stats st;
	int same = 0, differ = 0;

	cr_assert_eq(gen(d1, 0, 40, 42, &st), 0);
	cr_assert_eq(gen(d2, 0, 40, 42, &st), 0);
	cr_assert_eq(gen(d3, 0, 40, 43, &st), 0);
	for (unsigned i = 0; i < 40; i++) {
		char cls[16], p1[4096], p2[4096], p3[4096];

		wl_class_name(0, cls);
		snprintf(p1, sizeof(p1), "%s/train/%s/%s_%u.JPEG", d1, cls,
			 cls, i);
		snprintf(p2, sizeof(p2), "%s/train/%s/%s_%u.JPEG", d2, cls,
			 cls, i);
		snprintf(p3, sizeof(p3), "%s/train/%s/%s_%u.JPEG", d3, cls,
			 cls, i);
		if (access(p1, F_OK))
			continue;
		same += files_equal(p1, p2);
		differ += !files_equal(p1, p3);
	}
	cr_assert_eq(same, 40, "one class for 40 files, all identical");
	cr_assert_eq(differ, 40);
	free(d1);
	free(d2);
	free(d3);
	fr_test_rmtree(base);
}

FR_TEST(gen, output_does_not_depend_on_the_number_of_jobs, .timeout = 120)
{
	char *base = fr_test_tmpdir();
	char *d1 = subdir(base, "one"), *d3 = subdir(base, "three");
	const struct wl_workload *w;
	struct wl_gen_opts o1 = { .size_bytes = 3u << 20, .seed = 4,
				  .jobs = 1 };
	struct wl_gen_opts o3 = { .size_bytes = 3u << 20, .seed = 4,
				  .jobs = 3 };
	struct wl_gen_stats s1, s3;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(w->gen->generate(w, d1, &o1, &s1), 0);
	cr_assert_eq(w->gen->generate(w, d3, &o3, &s3), 0);
	cr_assert_eq(s1.files, s3.files, "a --size run stops at the same file");
	cr_assert_eq(s1.bytes, s3.bytes);
	for (uint64_t i = 0; i < s1.files; i++) {
		char cls[16], p1[4096], p3[4096];

		wl_class_name((uint32_t)(i % s1.classes), cls);
		snprintf(p1, sizeof(p1), "%s/train/%s/%s_%llu.JPEG", d1, cls,
			 cls, (unsigned long long)(i / s1.classes));
		snprintf(p3, sizeof(p3), "%s/train/%s/%s_%llu.JPEG", d3, cls,
			 cls, (unsigned long long)(i / s1.classes));
		cr_assert(files_equal(p1, p3), "file %llu differs",
			  (unsigned long long)i);
	}
	free(d1);
	free(d3);
	fr_test_rmtree(base);
}

static void stop_after_five(void *arg, const struct wl_gen_stats *st,
			    bool done)
{
	volatile sig_atomic_t *stop = arg;

	if (!done && st->files >= 5)
		*stop = 1;
}

FR_TEST(gen, a_stop_request_keeps_only_complete_files)
{
	char *base = fr_test_tmpdir(), *dir = subdir(base, "ds");
	const struct wl_workload *w;
	volatile sig_atomic_t stop = 0;
	struct wl_gen_opts o = { .files = 50, .seed = 5, .jobs = 2,
				 .progress = stop_after_five,
				 .progress_arg = (void *)&stop, .stop = &stop };
	struct wl_gen_stats st;
	struct tree t = { 0 };

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(w->gen->generate(w, dir, &o, &st), -EINTR);
	tree_walk(dir, &t, 0);
	cr_assert_eq(t.files, 5);
	cr_assert_eq(st.files, 5);
	cr_assert_eq(t.temps, 0);
	cr_assert_eq(t.undecodable, 0);
	free(dir);
	fr_test_rmtree(base);
}

FR_TEST(gen, full_disk_stops_with_enospc_and_no_partial_file,
	.timeout = 120)
{
	char *base = fr_test_tmpdir(), *mnt = subdir(base, "small");
	char *dir = subdir(mnt, "ds"), *dir2 = subdir(mnt, "ds2");
	struct wl_gen_stats st;
	struct tree t = { 0 }, t2 = { 0 };
	char *argv[] = { "gen", "-q", "--size", "20M", dir2, NULL };

	if (geteuid() != 0) {
		free(dir);
		free(dir2);
		free(mnt);
		fr_test_rmtree(base);
		cr_skip_test("mounting a small tmpfs needs root");
	}
	cr_assert_eq(mkdir(mnt, 0755), 0);
	/* A private mount namespace: the small tmpfs vanishes with this test's
	 * process, even when an assertion ends it early. */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("feedrate-test", mnt, "tmpfs", 0, "size=2m")) {
		const int e = errno;

		free(dir);
		free(dir2);
		free(mnt);
		fr_test_rmtree(base);
		cr_skip_test("cannot mount tmpfs: %s", strerror(e));
	}
	cr_assert_eq(gen(dir, 20ull << 20, 0, 9, &st), -ENOSPC);
	tree_walk(dir, &t, 0);
	cr_assert_gt(t.files, 0, "some files fit");
	cr_assert_eq(t.files, st.files, "the stats count complete files");
	cr_assert_eq(t.temps, 0, "the temporary file was removed");
	cr_assert_eq(t.undecodable, 0, "no partial file under a final name");
	/* the command line says so with the environment exit code */
	{
		char *rm;

		cr_assert_geq(asprintf(&rm, "rm -rf '%s'", dir), 0);
		cr_assert_eq(system(rm), 0);
		free(rm);
	}
	cr_assert_eq(cmd_gen(5, argv), FR_EXIT_ENV);
	tree_walk(dir2, &t2, 0);
	cr_assert_eq(t2.temps, 0);
	cr_assert_eq(t2.undecodable, 0);
	cr_assert_eq(umount2(mnt, MNT_DETACH), 0);
	free(dir);
	free(dir2);
	free(mnt);
	fr_test_rmtree(base);
}

/* A generator of files that are not images says what it wrote in its
 * own terms: no classes, pixels or chroma counts. */
FR_TEST(gen, a_non_image_generator_summary_names_its_layout_and_sizes)
{
	const struct wl_gen_stats st = { .files = 4, .bytes = 600000000,
					 .elapsed_s = 2.0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_gen_print_files(f, "/d/vol", "npy-f32-volumes", &st, 7, 2);
	cr_assert_eq(fclose(f), 0);
	cr_expect(strstr(buf, "gen: wrote 4 files (npy-f32-volumes) into "
			 "/d/vol: 600.0 MB, mean 150.0 MB a file; seed 7; 2 "
			 "jobs; 2.0 s (300.0 MB/s)"), "%s", buf);
	cr_expect_null(strstr(buf, "classes"), "%s", buf);
	free(buf);
}
