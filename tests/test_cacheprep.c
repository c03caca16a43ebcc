/*
 * test_cacheprep.c - a dataset's page cache prepared in batches
 * (storage/cacheprep.c): the verification sample's size and bound, the
 * drawing of its ids, and eviction, warming and verification on real
 * files through the ring, by system calls, and with io_uring refused by a
 * seccomp filter (in a child); progress, stop, and files that fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "harness.h"
#include "storage.h"

#define TMPFS_MAGIC_ 0x01021994
#define NF 96                   /* three ring batches */

/* ---- the sample ---- */

FR_TEST(cacheprep, sample_size_is_hoeffdings_for_the_bound)
{
	/* ln(2 / 0.01) / (2 x 0.01^2) = 26,491.6 */
	cr_expect_eq(stg_sample_size(0.01, 0.99), 26492);
	/* ln(2 / 0.05) / (2 x 0.02^2) = 4,611.1 */
	cr_expect_eq(stg_sample_size(0.02, 0.95), 4612);
	/* a tighter bound or a higher confidence needs more files */
	cr_expect_gt(stg_sample_size(0.005, 0.99), stg_sample_size(0.01, 0.99));
	cr_expect_gt(stg_sample_size(0.01, 0.999), stg_sample_size(0.01, 0.99));
	cr_expect_eq(stg_sample_size(0, 0.99), 0);
	cr_expect_eq(stg_sample_size(0.01, 1.0), 0);
	cr_expect_eq(stg_sample_size(0.01, 0), 0);
	cr_expect_eq(stg_sample_size(NAN, 0.99), 0);
}

FR_TEST(cacheprep, sample_bound_inverts_the_size)
{
	const size_t n = stg_sample_size(0.01, 0.99);

	/* the size meets the bound, one file fewer does not */
	cr_expect_leq(stg_sample_bound(n, 1281167, 0.99), 0.01);
	cr_expect_gt(stg_sample_bound(n - 1, 1281167, 0.99), 0.01);
	/* every file checked: no sampling error */
	cr_expect_eq(stg_sample_bound(128117, 128117, 0.99), 0);
	cr_expect_eq(stg_sample_bound(200000, 128117, 0.99), 0);
	/* four times the files halve the bound */
	cr_expect_float_eq(stg_sample_bound(4000, 1000000, 0.99) * 2,
			   stg_sample_bound(1000, 1000000, 0.99), 1e-12);
	cr_expect_eq(stg_sample_bound(0, 10, 0.99), 1);
	cr_expect_eq(stg_sample_bound(1, 1000, 0.99), 1);   /* capped */
}

FR_TEST(cacheprep, sample_ids_distinct_ascending_and_seeded)
{
	size_t *a, *b, *c, low = 0;

	cr_assert_eq(stg_sample_ids(100000, 5000, 7, &a), 0);
	cr_assert_eq(stg_sample_ids(100000, 5000, 7, &b), 0);
	cr_assert_eq(stg_sample_ids(100000, 5000, 8, &c), 0);
	for (size_t i = 0; i < 5000; i++) {
		cr_assert_lt(a[i], 100000);
		if (i)
			cr_assert_gt(a[i], a[i - 1], "ids not distinct and "
				     "ascending at %zu", i);
		low += a[i] < 50000;
	}
	cr_expect(!memcmp(a, b, 5000 * sizeof(*a)), "same seed, same ids");
	cr_expect(memcmp(a, c, 5000 * sizeof(*a)), "another seed, the same "
		  "ids");
	/* spread: half of them in the lower half, within 5 sigma (~177) */
	cr_expect(low > 2323 && low < 2677, "%zu of 5000 in the lower half",
		  low);
	free(a);
	free(b);
	free(c);
	/* more than the population: every id */
	cr_assert_eq(stg_sample_ids(10, 50, 1, &a), 0);
	for (size_t i = 0; i < 10; i++)
		cr_expect_eq(a[i], i);
	free(a);
}

/* ---- phases on real files ---- */

struct tree {
	char *dir;
	struct stg_dataset *ds;
};

static void put(const char *dir, const char *name, size_t size)
{
	char path[PATH_MAX + 64], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	memset(buf, 'q', sizeof(buf));
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done :
			   sizeof(buf);

		cr_assert_eq(write(fd, buf, n), (ssize_t)n);
		done += n;
	}
	close(fd);      /* left dirty: eviction must write it back */
}

/* NF files in two class folders, one of them 300 KB (more than a ring
 * slot's buffer), the rest 8 KB. */
static void tree_make(struct tree *t)
{
	struct statfs sf;
	char sub[PATH_MAX];

	t->dir = fr_test_tmpdir();
	cr_assert_eq(statfs(t->dir, &sf), 0);
	if (sf.f_type == TMPFS_MAGIC_) {
		fr_test_rmtree(t->dir);
		cr_skip_test("no disk-backed folder: everything is on tmpfs");
	}
	for (int c = 0; c < 2; c++) {
		snprintf(sub, sizeof(sub), "%s/c%d", t->dir, c);
		cr_assert_eq(mkdir(sub, 0755), 0);
		for (int i = 0; i < NF / 2; i++) {
			char name[32];

			snprintf(name, sizeof(name), "%d.JPEG", i);
			put(sub, name, c == 0 && i == 0 ? 300 * 1024 : 8192);
		}
	}
	cr_assert_eq(stg_dataset_scan(t->dir, NULL, &t->ds), 0);
	cr_assert_eq(stg_dataset_count(t->ds), NF);
}

static void tree_free(struct tree *t)
{
	stg_dataset_destroy(t->ds);
	fr_test_rmtree(t->dir);
}

/* Mean resident fraction over every file, checked one by one. */
static double resident(const struct stg_dataset *ds)
{
	const int dfd = open(stg_dataset_root(ds), O_RDONLY | O_DIRECTORY);
	double sum = 0;

	cr_assert_geq(dfd, 0);
	for (size_t i = 0; i < stg_dataset_count(ds); i++) {
		uint64_t res, tot;

		cr_assert_eq(stg_cache_residency(dfd, stg_dataset_relpath(ds,
			     i, NULL), &res, &tot), 0);
		sum += tot ? (double)res / (double)tot : 1;
	}
	close(dfd);
	return sum / (double)stg_dataset_count(ds);
}

/* Evict, verify, warm, verify: each phase's effect checked file by file
 * and by the phase's own verification. */
static void cycle(const struct stg_dataset *ds, bool no_uring,
		  bool want_ring)
{
	const struct stg_prep_opts o = { .no_uring = no_uring };
	struct stg_prep_result r;

	cr_assert_eq(stg_prep_run(ds, STG_PREP_EVICT, &o, &r), 0);
	cr_expect_eq(r.files, NF);
	cr_expect_eq(r.errors, 0);
	cr_expect_eq(r.uring, want_ring, "ring %d: %s", r.uring, r.why);
	cr_expect_eq(!r.why[0], want_ring, "why: '%s'", r.why);
	cr_expect_leq(resident(ds), 0.05);
	cr_assert_eq(stg_prep_run(ds, STG_PREP_VERIFY, &o, &r), 0);
	cr_expect_eq(r.files, NF);
	cr_expect_leq(r.resident_sum / NF, 0.05);

	cr_assert_eq(stg_prep_run(ds, STG_PREP_WARM, &o, &r), 0);
	cr_expect_eq(r.files, NF);
	cr_expect_eq(r.bytes, stg_dataset_total_bytes(ds),
		     "the 300 KB file read whole too");
	cr_expect_eq(r.uring, want_ring);
	cr_expect_geq(resident(ds), 0.99);
	cr_assert_eq(stg_prep_run(ds, STG_PREP_VERIFY, &o, &r), 0);
	cr_expect_geq(r.resident_sum / NF, 0.99);
	cr_expect_eq(r.bytes, stg_dataset_total_bytes(ds));
}

static bool ring_here(void)
{
	if (stg_uring_probe(NULL, 0)) {
		cr_log_warn("io_uring refused here already: the ring path "
			    "is not tested");
		return false;
	}
	return true;
}

FR_TEST(cacheprep, evict_warm_verify_through_the_ring)
{
	struct tree t;

	if (!ring_here())
		cr_skip_test("io_uring unusable here");
	tree_make(&t);
	cycle(t.ds, false, true);
	tree_free(&t);
}

FR_TEST(cacheprep, evict_warm_verify_by_system_calls)
{
	struct tree t;

	tree_make(&t);
	cycle(t.ds, true, false);
	tree_free(&t);
}

/* In a child: io_uring_setup refused (EPERM) by a seccomp filter, as a
 * container's default profile does, then evict and warm. */
FR_TEST(cacheprep, io_uring_refused_falls_back_to_calls_with_reason)
{
	struct { int ok, skip; char why[200]; double after_evict,
		 after_warm; } o;
	struct tree t;
	int pipefd[2], status;
	pid_t pid;

	tree_make(&t);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		struct stg_prep_result r, w;

		memset(&o, 0, sizeof(o));
		close(pipefd[0]);
		if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				SCMP_SYS(io_uring_setup), 0) ||
		    seccomp_load(ctx)) {
			o.skip = 1;
		} else if (!stg_prep_run(t.ds, STG_PREP_EVICT, NULL, &r) &&
			   !stg_prep_run(t.ds, STG_PREP_WARM, NULL, &w)) {
			o.ok = r.files == NF && w.files == NF && !r.uring &&
			       !w.uring && w.bytes ==
			       stg_dataset_total_bytes(t.ds);
			snprintf(o.why, sizeof(o.why), "%s", r.why);
		}
		if (ctx)
			seccomp_release(ctx);
		if (write(pipefd[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], &o, sizeof(o)), (ssize_t)sizeof(o));
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	if (o.skip) {
		tree_free(&t);
		cr_skip_test("no seccomp filter could be loaded");
	}
	cr_expect(o.ok, "every file evicted and warmed by calls");
	cr_expect(strstr(o.why, "EPERM") && strstr(o.why, "system calls"),
		  "why: '%s'", o.why);
	cr_expect_geq(resident(t.ds), 0.99, "warmed by the child");
	tree_free(&t);
}

struct ticks {
	unsigned calls;
	uint64_t last_done, last_total;
	int stop_after;         /* > 0: ask to stop at that call */
};

static int tick(void *arg, enum stg_prep_op op, uint64_t done,
		uint64_t total, double elapsed_s)
{
	struct ticks *k = arg;

	cr_expect_eq(op, STG_PREP_VERIFY);
	cr_expect_leq(done, total);
	cr_expect_geq(elapsed_s, 0);
	cr_expect_geq(done, k->last_done, "progress went back");
	k->calls++;
	k->last_done = done;
	k->last_total = total;
	return k->stop_after > 0 && (int)k->calls >= k->stop_after;
}

FR_TEST(cacheprep, progress_ends_at_the_total_of_the_ids_given)
{
	struct tree t;
	struct ticks k = { 0 };
	size_t *ids;
	struct stg_prep_opts o = { .progress = tick, .progress_arg = &k };
	struct stg_prep_result r;

	tree_make(&t);
	cr_assert_eq(stg_sample_ids(NF, 40, 3, &ids), 0);
	o.ids = ids;
	o.nids = 40;
	cr_assert_eq(stg_prep_run(t.ds, STG_PREP_VERIFY, &o, &r), 0);
	cr_expect_eq(r.files, 40);
	cr_expect_geq(k.calls, 1);
	cr_expect_eq(k.last_done, 40);
	cr_expect_eq(k.last_total, 40);
	cr_expect(!r.stopped);
	free(ids);
	tree_free(&t);
}

FR_TEST(cacheprep, missing_files_are_counted_not_fatal)
{
	struct tree t;
	char path[PATH_MAX];

	tree_make(&t);
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/c1/%d.JPEG", t.dir, i);
		cr_assert_eq(unlink(path), 0);
	}
	for (int calls = 0; calls < 2; calls++) {
		const struct stg_prep_opts o = { .no_uring = calls };

		for (int op = 0; op < STG_PREP_OPS; op++) {
			struct stg_prep_result r;

			if (!calls && op != STG_PREP_VERIFY && !ring_here())
				continue;
			cr_assert_eq(stg_prep_run(t.ds, (enum stg_prep_op)op,
						  &o, &r), 0);
			cr_expect_eq(r.errors, 5, "%s: %llu errors",
				     stg_prep_op_name(op),
				     (unsigned long long)r.errors);
			cr_expect_eq(r.files, NF - 5);
			cr_expect_eq(r.first_err, -ENOENT);
		}
	}
	tree_free(&t);
}

FR_TEST(cacheprep, pinned_workers_one_per_cpu_of_the_set)
{
	struct tree t;
	cpu_set_t set;
	struct stg_prep_result r;
	struct stg_prep_opts o = { .cpus = &set };

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	tree_make(&t);
	cr_assert_eq(stg_prep_run(t.ds, STG_PREP_EVICT, &o, &r), 0);
	cr_expect_eq(r.files, NF);
	/* NF files fill 3 batches: no more workers than batches */
	cr_expect_eq(r.workers, CPU_COUNT(&set) < 3 ? CPU_COUNT(&set) : 3);
	tree_free(&t);
}

/* The callback's nonzero return stops the phase: the workers finish the
 * batch each holds and claim no more. Two million ids (the 96 files over
 * and over) take seconds; the first tick comes after 100 ms. */
FR_TEST(cacheprep, progress_callback_stops_the_phase)
{
	const size_t nids = 2000000;
	struct tree t;
	struct ticks k = { .stop_after = 1 };
	size_t *ids = malloc(nids * sizeof(*ids));
	struct stg_prep_opts o = { .progress = tick, .progress_arg = &k,
				   .ids = ids, .nids = nids };
	struct stg_prep_result r;

	cr_assert_not_null(ids);
	tree_make(&t);
	for (size_t i = 0; i < nids; i++)
		ids[i] = i % NF;
	cr_assert_eq(stg_prep_run(t.ds, STG_PREP_VERIFY, &o, &r), 0);
	cr_expect(r.stopped, "the phase ran on to its end");
	cr_expect_lt(r.files, nids);
	cr_expect_eq(r.errors, 0);
	/* what was done is whole batches of 32, one per worker at most
	 * past the stop */
	cr_expect_eq(r.files % 32, 0, "%llu files", (unsigned long long)r.files);
	free(ids);
	tree_free(&t);
}
