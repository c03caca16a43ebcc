/*
 * test_backend_probe.c - `auto` resolved by a probe: the decision rule
 * (table-driven, on measurements given to it), the probe's choices that
 * need no measurement (io_uring refused by a seccomp filter: psync; too
 * few files, or stopped before reading: uring), the probe on real files
 * (it measures both backends, its rates are its counts over its times, its
 * reason carries those rates and the rule's choice from them, it leaves
 * its files cold when asked), and the engine taking the probe's choice
 * and words. Speeds are never asserted: which backend wins on this
 * machine is what the probe is for.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "harness.h"
#include "loader.h"
#include "reader_internal.h"
#include "storage.h"

/* ---- the rule ---- */

struct decide_case {
	const char *name;
	uint64_t uring_files;
	double uring_fps;
	uint64_t psync_files;
	double psync_fps;
	enum stg_backend_id want;
};

static const struct decide_case decide_cases[] = {
	{ "psync twice as fast (an s3fs mount)", 64, 167, 64, 327,
	  STG_BACKEND_PSYNC },
	{ "psync exactly 1.2x", 64, 100, 64, 120, STG_BACKEND_PSYNC },
	{ "psync 1.19x: not clearly faster", 64, 100, 64, 119,
	  STG_BACKEND_URING },
	{ "equal speeds", 64, 5000, 64, 5000, STG_BACKEND_URING },
	{ "uring faster", 64, 9000, 64, 4000, STG_BACKEND_URING },
	{ "psync 1.21x", 64, 100, 64, 121, STG_BACKEND_PSYNC },
	{ "psync fast on too few files", 64, 100, STG_PROBE_MIN_FILES - 1,
	  1000, STG_BACKEND_URING },
	{ "psync fast on just enough files", 64, 100, STG_PROBE_MIN_FILES,
	  1000, STG_BACKEND_PSYNC },
	{ "uring read nothing (errors), psync did", 0, 0, 16, 200,
	  STG_BACKEND_PSYNC },
	{ "uring read nothing, psync too few files", 0, 0,
	  STG_PROBE_MIN_FILES - 1, 200, STG_BACKEND_URING },
	{ "uring's rate without files counts as 0", 0, 5000, 16, 200,
	  STG_BACKEND_PSYNC },
	{ "neither read anything", 0, 0, 0, 0, STG_BACKEND_URING },
	{ "psync read nothing", 64, 100, 0, 0, STG_BACKEND_URING },
};

FR_TEST(backend_probe, decide_takes_psync_only_when_clearly_faster)
{
	for (size_t i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]);
	     i++) {
		const struct decide_case *c = &decide_cases[i];
		struct stg_probe_side u = { .files = c->uring_files,
					    .seconds = 0.5,
					    .files_per_s = c->uring_fps };
		struct stg_probe_side p = { .files = c->psync_files,
					    .seconds = 0.5,
					    .files_per_s = c->psync_fps };
		char why[200], want[64];
		enum stg_backend_id got = stg_backend_decide(&u, &p, why,
							     sizeof(why));

		cr_expect_eq(got, c->want, "%s: got %s (%s)", c->name,
			     stg_backend_name(got), why);
		/* the words name both speeds and the choice */
		snprintf(want, sizeof(want), "-> %s", stg_backend_name(c->want));
		cr_expect_not_null(strstr(why, want), "%s: %s", c->name, why);
		snprintf(want, sizeof(want), "uring %.0f files/s",
			 c->uring_files ? c->uring_fps : 0.0);
		cr_expect_not_null(strstr(why, want), "%s: %s", c->name, why);
		snprintf(want, sizeof(want), "psync %.0f files/s",
			 c->psync_files ? c->psync_fps : 0.0);
		cr_expect_not_null(strstr(why, want), "%s: %s", c->name, why);
	}
	/* WHY is optional */
	{
		struct stg_probe_side u = { 64, 0, 0.5, 100 };
		struct stg_probe_side p = { 64, 0, 0.5, 300 };

		cr_expect_eq(stg_backend_decide(&u, &p, NULL, 0),
			     STG_BACKEND_PSYNC);
	}
}

/* ---- the probe on real files ---- */

struct probe_fixture {
	char *dir;
	struct stg_dataset *ds;
};

/* N files of SIZE bytes under a fresh folder on disk, listed. */
static void fixture_make(struct probe_fixture *f, unsigned n, size_t size)
{
	char path[512];
	char *buf = malloc(size);

	cr_assert_not_null(buf);
	memset(buf, 0x5a, size);
	f->dir = fr_test_tmpdir();
	for (unsigned i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%04u.bin", f->dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, buf, size), (ssize_t)size);
		cr_assert_eq(fsync(fd), 0);
		close(fd);
	}
	free(buf);
	cr_assert_eq(stg_dataset_scan(f->dir, NULL, &f->ds), 0);
	cr_assert_eq(stg_dataset_count(f->ds), n);
}

static void fixture_free(struct probe_fixture *f)
{
	stg_dataset_destroy(f->ds);
	fr_test_rmtree(f->dir);
}

static void skip_without_uring(void)
{
	char why[320];

	if (stg_uring_probe(why, sizeof(why)))
		cr_skip_test("io_uring refused here: %s", why);
}

/* Each side's rate is its files over its seconds (0 when it read none). */
static void expect_rates_measured(const struct stg_probe_result *r)
{
	const struct stg_probe_side *side[2] = { &r->uring, &r->psync };

	for (int i = 0; i < 2; i++) {
		const struct stg_probe_side *sd = side[i];

		if (!sd->files || sd->seconds <= 0) {
			cr_expect_eq(sd->files_per_s, 0, "%s", r->reason);
			continue;
		}
		cr_expect_float_eq(sd->files_per_s,
				   (double)sd->files / sd->seconds,
				   1e-9 * sd->files_per_s, "%s", r->reason);
	}
}

/*
 * "uring U files/s, psync P files/s -> B": U and P are the sides' rates
 * and B is the rule's choice from those sides.
 */
static void expect_reason_agrees(const struct stg_probe_result *r)
{
	const char *u = strstr(r->reason, "uring ");
	const char *p = strstr(r->reason, "psync ");
	double fu, fp;

	cr_assert_not_null(u, "%s", r->reason);
	cr_assert_not_null(p, "%s", r->reason);
	cr_assert_eq(sscanf(u, "uring %lf files/s", &fu), 1, "%s", r->reason);
	cr_assert_eq(sscanf(p, "psync %lf files/s", &fp), 1, "%s", r->reason);
	/* printed with %.0f */
	cr_expect_leq(fabs(fu - r->uring.files_per_s), 0.5, "%s", r->reason);
	cr_expect_leq(fabs(fp - r->psync.files_per_s), 0.5, "%s", r->reason);
	cr_expect_eq(r->chosen, stg_backend_decide(&r->uring, &r->psync,
						   NULL, 0), "%s", r->reason);
	cr_expect_not_null(strstr(r->reason, r->chosen == STG_BACKEND_PSYNC ?
				  "-> psync" : "-> uring"), "%s", r->reason);
}

FR_TEST(backend_probe, probe_reads_both_samples_and_says_its_numbers)
{
	struct probe_fixture f;
	struct stg_reader_config rc = { .depth = 4 };
	struct stg_probe_result r;

	skip_without_uring();
	fixture_make(&f, 40, 20000);
	cr_assert_eq(stg_backend_probe(f.ds, &rc, NULL, &r), 0);
	cr_expect(r.measured);
	/* 2 x depth = 8, raised to the minimum of 8 files per backend */
	cr_expect_eq(r.uring.files, 8, "uring read %llu files",
		     (unsigned long long)r.uring.files);
	cr_expect_eq(r.psync.files, 8, "psync read %llu files",
		     (unsigned long long)r.psync.files);
	cr_expect_eq(r.uring.errors + r.psync.errors, 0);
	cr_expect_gt(r.uring.seconds, 0);
	cr_expect_gt(r.psync.files_per_s, 0);
	cr_expect_not_null(strstr(r.reason, "auto: probe at depth 4"),
			   "%s", r.reason);
	expect_rates_measured(&r);
	expect_reason_agrees(&r);
	fixture_free(&f);
}

FR_TEST(backend_probe, probe_caps_each_sample_at_half_the_dataset)
{
	struct probe_fixture f;
	struct stg_reader_config rc = { .depth = 32 };
	struct stg_probe_result r;

	skip_without_uring();
	fixture_make(&f, 10, 4096);
	cr_assert_eq(stg_backend_probe(f.ds, &rc, NULL, &r), 0);
	cr_expect(r.measured);
	cr_expect_eq(r.uring.files, 5);
	cr_expect_eq(r.psync.files, 5);
	fixture_free(&f);
}

FR_TEST(backend_probe, too_few_files_keep_uring_unmeasured_and_say_why)
{
	struct probe_fixture f;
	struct stg_probe_result r;

	skip_without_uring();
	fixture_make(&f, 5, 4096);
	cr_assert_eq(stg_backend_probe(f.ds, NULL, NULL, &r), 0);
	cr_expect_not(r.measured);
	cr_expect_eq(r.chosen, STG_BACKEND_URING);
	cr_expect_eq(r.uring.files + r.psync.files, 0);
	cr_expect_not_null(strstr(r.reason, "too few"), "%s", r.reason);
	fixture_free(&f);
}

FR_TEST(backend_probe, stopped_probe_reads_nothing_and_keeps_uring)
{
	struct probe_fixture f;
	struct stg_reader_config rc = { .depth = 4 };
	volatile int stop = 1;
	const struct stg_probe_opts po = { .stop = &stop };
	struct stg_probe_result r;

	skip_without_uring();
	fixture_make(&f, 40, 4096);
	cr_assert_eq(stg_backend_probe(f.ds, &rc, &po, &r), 0);
	cr_expect_eq(r.uring.files + r.psync.files, 0);
	cr_expect_eq(r.uring.files_per_s + r.psync.files_per_s, 0);
	cr_expect_eq(r.chosen, STG_BACKEND_URING, "%s", r.reason);
	cr_expect_not_null(strstr(r.reason, "too few to compare"), "%s",
			   r.reason);
	expect_reason_agrees(&r);
	fixture_free(&f);
}

/* What a probe in a child whose io_uring_setup fails with EPERM did. */
struct refused_out {
	int err;
	char skip[128];         /* non-empty: no filter could be loaded */
	struct stg_probe_result r;
};

FR_TEST(backend_probe, refused_io_uring_gives_psync_without_reading)
{
	struct probe_fixture f;
	struct refused_out o;
	int pipefd[2], status;
	pid_t pid;

	fixture_make(&f, 40, 4096);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		int err = ctx ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				SCMP_SYS(io_uring_setup), 0) : -ENOMEM;

		memset(&o, 0, sizeof(o));
		if (!err)
			err = seccomp_load(ctx);
		seccomp_release(ctx);
		if (err) {
			snprintf(o.skip, sizeof(o.skip), "no seccomp filter: "
				 "%s", strerror(-err));
		} else {
			stg_uring_probe_forget();
			o.err = stg_backend_probe(f.ds, NULL, NULL, &o.r);
		}
		_exit(write(pipefd[1], &o, sizeof(o)) == (ssize_t)sizeof(o) ?
		      0 : 2);
	}
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], &o, sizeof(o)), (ssize_t)sizeof(o),
		     "the child died before reporting");
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fixture_free(&f);
	if (o.skip[0])
		cr_skip_test("%s", o.skip);
	cr_expect_eq(o.err, 0);
	cr_expect_eq(o.r.chosen, STG_BACKEND_PSYNC, "%s", o.r.reason);
	cr_expect_not(o.r.measured);
	cr_expect_eq(o.r.uring.files + o.r.psync.files, 0);
	cr_expect_not_null(strstr(o.r.reason, "using psync"), "%s",
			   o.r.reason);
}

FR_TEST(backend_probe, cold_probe_leaves_its_files_evicted)
{
	struct probe_fixture f;
	struct stg_reader_config rc = { .depth = 4 };
	const struct stg_probe_opts po = { .evict = true };
	struct stg_probe_result r;
	struct stg_cache_probe cp;
	uint64_t resident = 0, total = 0;
	char path[512];
	int dirfd;

	skip_without_uring();
	fixture_make(&f, 16, 65536);
	dirfd = open(f.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dirfd, 0);
	if (stg_cache_probe(dirfd, "f0000.bin", &cp) ||
	    cp.evict != STG_EVICT_EFFECTIVE) {
		close(dirfd);
		fixture_free(&f);
		cr_skip_test("eviction does not work on this filesystem");
	}
	cr_assert_eq(stg_cache_dataset_warm(f.ds, NULL), 0);
	cr_assert_eq(stg_backend_probe(f.ds, &rc, &po, &r), 0);
	cr_expect(r.measured);
	cr_expect_not_null(strstr(r.reason, "cold"), "%s", r.reason);
	/* 16 files, 8 per backend: every file was sampled, and each must
	 * be cold again for the run that follows */
	for (unsigned i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "f%04u.bin", i);
		cr_assert_eq(stg_cache_residency(dirfd, path, &resident,
						 &total), 0);
		cr_expect_eq(resident, 0, "%s: %llu of %llu pages resident "
			     "after the probe", path,
			     (unsigned long long)resident,
			     (unsigned long long)total);
	}
	close(dirfd);
	fixture_free(&f);
}

/* ---- the engine takes the probe's choice ---- */

FR_TEST(backend_probe, engine_runs_the_probed_backend_and_reports_why)
{
	struct probe_fixture f;
	struct ldr_config cfg;
	struct ldr_result *res = calloc(1, sizeof(*res));

	cr_assert_not_null(res);
	skip_without_uring();
	fixture_make(&f, 40, 8192);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = f.ds;
	cfg.reader.backend = STG_BACKEND_AUTO;
	cfg.reader.depth = 4;
	cfg.transform = ldr_transform_noop;
	cfg.workers = 1;
	cfg.batch = 8;
	cfg.epochs = 1;
	cfg.warmup_s = -1;
	cfg.probe_backend = true;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_expect_eq(res->samples, 40);
	cr_expect_not_null(strstr(res->backend_reason, "auto: probe"), "%s",
			   res->backend_reason);
	cr_expect_not_null(strstr(res->backend_reason,
				  !strcmp(res->backend, "psync") ?
				  "-> psync" : "-> uring"),
			   "ran %s: %s", res->backend, res->backend_reason);
	/* the probe's reads are not the run's: one epoch, 40 files */
	cr_expect_eq(res->read_bytes, 40 * 8192ull);
	free(res);
	fixture_free(&f);
}

FR_TEST(backend_probe, engine_without_probe_keeps_auto_uring)
{
	struct probe_fixture f;
	struct ldr_config cfg;
	struct ldr_result *res = calloc(1, sizeof(*res));

	cr_assert_not_null(res);
	skip_without_uring();
	fixture_make(&f, 20, 4096);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = f.ds;
	cfg.transform = ldr_transform_noop;
	cfg.workers = 1;
	cfg.batch = 4;
	cfg.epochs = 1;
	cfg.warmup_s = -1;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_expect_str_eq(res->backend, "uring");
	cr_expect_null(strstr(res->backend_reason, "probe"), "%s",
		       res->backend_reason);
	free(res);
	fixture_free(&f);
}
