/*
 * test_ckpt.c - checkpoints and cost: the training arithmetic and the cost
 * arithmetic against hand-computed examples; the sequential writer and
 * reader on both backends (bytes as the pattern says, a damaged page
 * found, an existing file never touched, a stop); the folder rule; a
 * whole save and restore; and `feedrate ckpt` / `feedrate compare
 * --price` through $FEEDRATE_BIN. The throttled loop-device tests (speed,
 * durability after kill -9, SIGINT) are in test_ckpt_slow.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "harness.h"
#include "measure.h"
#include "report_ckpt.h"
#include "rpt_text.h"
#include "report_sweep.h"

#define FIX "tests/fixtures/compare/"

/* ---- what a checkpoint's times mean for training ---- */

FR_TEST(ckpt_math, share_min_interval_and_loss_by_hand)
{
	/* 10 s saves after 190 s of training: 10 / 200 */
	cr_assert_float_eq(rpt_ckpt_share(10, 190), 0.05, 1e-12);
	/* under 5 %: 10 x 0.95 / 0.05 = 190 s */
	cr_assert_float_eq(rpt_ckpt_min_interval(10, 0.05), 190, 1e-9);
	/* (190^2 / 2 + 10 x 190) / 200 = (18050 + 1900) / 200 */
	cr_assert_float_eq(rpt_ckpt_lost(10, 190), 99.75, 1e-9);
	/* free saves: half an interval on average */
	cr_assert_float_eq(rpt_ckpt_lost(0, 3600), 1800, 1e-9);
	cr_assert_float_eq(rpt_ckpt_share(0, 60), 0, 1e-12);
	cr_assert_lt(rpt_ckpt_share(10, 0), 0, "no interval: unknown");
	cr_assert_lt(rpt_ckpt_min_interval(10, 0), 0);
	cr_assert_lt(rpt_ckpt_min_interval(10, 1), 0);
	cr_assert_lt(rpt_ckpt_lost(10, -1), 0);
}

FR_TEST(ckpt_math, training_figures_in_steps_and_epochs)
{
	const struct rpt_ckpt_training_in in = {
		.save_s = 95, .restore_s = 80, .budget = 0.05,
		.interval_s = 3600, .step_s = 1.5,
		.demand_total = 8 * 2470.0, .epoch_samples = 1281167,
	};
	struct rpt_ckpt_training t;

	rpt_ckpt_training(&in, &t);
	cr_assert_float_eq(t.budget, 0.05, 1e-12);
	cr_assert_float_eq(t.min_interval_s, 1805, 1e-9);   /* 95 x 19 */
	cr_assert_float_eq(t.min_interval_steps, 1204, 1e-9); /* 1203.3 up */
	/* (1805^2 / 2 + 95 x 1805) / 1900 = 1800487.5 / 1900 */
	cr_assert_float_eq(t.lost_s, 947.625, 1e-9);
	cr_assert_float_eq(t.share_at_interval, 95.0 / 3695, 1e-12);
	/* 1281167 / 19760 = 64.836 s an epoch; 95 / (64.836 + 95) */
	cr_assert_float_eq(t.epoch_s, 1281167 / 19760.0, 1e-9);
	cr_assert_float_eq(t.share_per_epoch,
			   95 / (1281167 / 19760.0 + 95), 1e-12);
}

FR_TEST(ckpt_math, default_budget_and_no_step_time)
{
	const struct rpt_ckpt_training_in in = { .save_s = 5 };
	struct rpt_ckpt_training t;

	rpt_ckpt_training(&in, &t);
	cr_assert_float_eq(t.budget, RPT_CKPT_DEFAULT_BUDGET, 1e-12);
	cr_assert_float_eq(t.min_interval_s, 95, 1e-9);
	cr_assert_lt(t.min_interval_steps, 0);
	cr_assert_lt(t.share_at_interval, 0);
	cr_assert_lt(t.epoch_s, 0);
}

/* ---- cost ---- */

FR_TEST(ckpt_cost, per_million_samples_and_per_epoch_by_hand)
{
	/* $4/h at 1000 samples/s: 3.6 M samples an hour, $1.111 per M;
	 * 1.2 M samples take 1200 s, a third of an hour: $1.333 */
	cr_assert_float_eq(rpt_cost_per_msample(4, 1000), 10.0 / 9, 1e-12);
	cr_assert_float_eq(rpt_cost_per_epoch(4, 1000, 1.2e6), 4.0 / 3,
			   1e-12);
	/* p4d at $32.77/h fed at 8 x 2470 = 19760/s; ImageNet's epoch */
	cr_assert_float_eq(rpt_cost_per_msample(32.77, 19760),
			   32.77 / 3600 / 19760 * 1e6, 1e-12);
	cr_assert_float_eq(rpt_cost_per_msample(32.77, 19760), 0.460667,
			   1e-6);
	cr_assert_float_eq(rpt_cost_per_epoch(32.77, 19760, 1281167),
			   0.590191, 1e-6);
	cr_assert_float_eq(rpt_cost_per_msample(0, 100), 0, 1e-12);
	cr_assert_lt(rpt_cost_per_msample(4, 0), 0);
	cr_assert_lt(rpt_cost_per_epoch(4, 1000, 0), 0);
}

/* A candidate by hand: 8 GPUs of DEMAND asked; cold and warm rates. */
static void cand(struct rpt_candidate *c, const char *label, double cold,
		 int fed_cold, double warm, int fed_warm)
{
	memset(c, 0, sizeof(*c));
	c->label = (char *)label;
	c->gpu = (char *)"A100";
	c->gpu_count = 8;
	c->demand_per_gpu = 2470;
	c->have[STG_CACHE_COLD] = c->have[STG_CACHE_WARM] = true;
	c->samples_per_s[STG_CACHE_COLD] = cold;
	c->samples_per_s[STG_CACHE_WARM] = warm;
	c->gpus_fed[STG_CACHE_COLD] = fed_cold;
	c->gpus_fed[STG_CACHE_WARM] = fed_warm;
	c->gpus_fed[STG_CACHE_RAM] = -1;
}

FR_TEST(ckpt_cost, feed_is_capped_by_the_gpus_and_slowest_state_priced)
{
	struct rpt_candidate c[3];
	struct rpt_cost x[3];

	cand(&c[0], "big", 21000, 8, 22000, 8);
	cand(&c[1], "cheap-but-slow", 2100, 0, 40000, 17);
	cand(&c[2], "unpriced", 30000, 8, 30000, 8);
	rpt_cost_fill(&c[0], 32.77, -1, 1281167, &x[0]);
	rpt_cost_fill(&c[1], 5.672, -1, 1281167, &x[1]);
	rpt_cost_fill(&c[2], -1, -1, 1281167, &x[2]);
	/* the GPUs eat 19760/s at most: that is the feed priced */
	cr_assert_eq(x[0].cache, STG_CACHE_COLD);
	cr_assert(x[0].gpu_bound);
	cr_assert_float_eq(x[0].feed_per_s, 19760, 1e-9);
	cr_assert_float_eq(x[0].usd_per_msample, 0.460667, 1e-6);
	cr_assert_float_eq(x[0].usd_per_epoch, 0.590191, 1e-6);
	cr_assert(x[0].feeds);
	/* the slowest state: cold, 2100/s: 5.672 / 3600 / 2100 x 1e6 */
	cr_assert_eq(x[1].cache, STG_CACHE_COLD);
	cr_assert_not(x[1].gpu_bound);
	cr_assert_float_eq(x[1].usd_per_msample, 0.750265, 1e-6);
	cr_assert_float_eq(x[1].epoch_s, 1281167 / 2100.0, 1e-9);
	cr_assert_not(x[1].feeds);
	cr_assert_not(x[2].priced);
	cr_assert_lt(x[2].usd_per_msample, 0);
	/* cheaper per sample is no use when it does not feed the GPUs */
	cr_assert_eq(rpt_cost_cheapest(x, 3), 0);
	/* priced warm, the second one feeds them and is cheaper */
	rpt_cost_fill(&c[1], 5.672, STG_CACHE_WARM, 1281167, &x[1]);
	cr_assert(x[1].feeds);
	cr_assert(x[1].gpu_bound);
	cr_assert_float_eq(x[1].usd_per_msample,
			   5.672 / 3600 / 19760 * 1e6, 1e-12);
	cr_assert_eq(rpt_cost_cheapest(x, 3), 1);
	/* nothing priced feeds: none */
	cr_assert_eq(rpt_cost_cheapest(&x[2], 1), -1);
}

/* ---- options ---- */

FR_TEST(ckpt_opts, parameter_counts)
{
	static const struct { const char *s; double v; int err; } t[] = {
		{ "7B", 7e9, 0 }, { "70b", 70e9, 0 }, { "1.5B", 1.5e9, 0 },
		{ "350M", 350e6, 0 }, { "1T", 1e12, 0 }, { "125000", 125e3, 0 },
		{ "1281167", 1281167, 0 }, { "2G", 2e9, 0 },
		{ "", 0, -EINVAL }, { "B", 0, -EINVAL }, { "-7B", 0, -EINVAL },
		{ "7X", 0, -EINVAL }, { "7 B", 0, -EINVAL },
		{ "0", 0, -ERANGE }, { "1e30", 0, -ERANGE },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double v = -1;
		int err = wl_parse_params(t[i].s, &v);

		cr_expect_eq(err, t[i].err, "'%s': %d", t[i].s, err);
		if (!t[i].err)
			cr_expect_float_eq(v, t[i].v, 1e-6, "'%s'", t[i].s);
	}
}

/* What a --bytes-per-param value holds, as the report prints it: the
 * default 14 is a saved mixed-precision Adam checkpoint, 16 the training
 * memory (with gradients, which are not saved). */
FR_TEST(ckpt_opts, bytes_per_param_say_what_they_hold)
{
	static const struct { double bpp; const char *what, *part; } t[] = {
		{ 14, "a mixed-precision Adam checkpoint", "fp32 master 4" },
		{ 16, "training memory", "gradients 2, which are not saved" },
		{ 12, "fp32 weights and Adam moments", "two fp32 moments 8" },
		{ 2, "bf16/fp16 weights only", "no optimizer state" },
		{ 4, "fp32 weights only", "no optimizer state" },
		{ 15, "as given with --bytes-per-param", "" },
		{ 14.5, "as given with --bytes-per-param", "" },
	};

	cr_assert_float_eq(RPT_CKPT_BYTES_PER_PARAM, 14, 1e-12);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *detail = NULL;
		const char *what = rpt_ckpt_bpp_meaning(t[i].bpp, &detail);

		cr_expect_not_null(strstr(what, t[i].what), "%g: %s",
				   t[i].bpp, what);
		cr_assert_not_null(detail);
		if (*t[i].part)
			cr_expect_not_null(strstr(detail, t[i].part), "%g: %s",
					   t[i].bpp, detail);
		else
			cr_expect_str_empty(detail);
		cr_expect_str_eq(rpt_ckpt_bpp_meaning(t[i].bpp, NULL), what);
	}
}

/* ---- the sequential writer and reader ---- */

static const enum stg_backend_id seq_backends[] = {
	STG_BACKEND_URING, STG_BACKEND_PSYNC,
};

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s: %s", dir, strerror(errno));
	return fd;
}

/* Does DIR/NAME hold exactly SIZE bytes of SEED's pattern? */
static void expect_pattern(int dirfd, const char *name, uint64_t size,
			   uint64_t seed)
{
	const size_t chunk = 1 << 20;
	char *got = malloc(chunk), *want = malloc(chunk);
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	struct stat st;

	cr_assert(got && want);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((uint64_t)st.st_size, size);
	for (uint64_t off = 0; off < size; off += chunk) {
		const size_t n = size - off < chunk ? size - off : chunk;

		cr_assert_eq(pread(fd, got, n, (off_t)off), (ssize_t)n);
		cr_assert_eq(stg_seq_pattern(want, n, seed, off), 0);
		cr_assert_eq(memcmp(got, want, n), 0, "bytes differ in "
			     "[%llu, +%zu)", (unsigned long long)off, n);
	}
	close(fd);
	free(got);
	free(want);
}

FR_TEST(seqio, writes_the_pattern_and_reads_it_back_on_each_backend)
{
	for (size_t b = 0; b < 2; b++) {
		char *dir = fr_test_tmpdir();
		int dfd = open_dir(dir);
		const struct stg_seq_config cfg = {
			.backend = seq_backends[b], .block_size = 1 << 20,
			.depth = 3,
		};
		const uint64_t size = (5u << 20) + 4096;
		struct stg_seq_stats w, r;
		bool created;

		cr_assert_eq(stg_seq_write(dfd, "shard", size, 42, &cfg,
					   &created, &w), 0);
		cr_assert(created);
		cr_assert_eq(w.backend, seq_backends[b]);
		cr_assert_eq(w.bytes, size);
		cr_assert_geq(w.seconds, w.sync_s);
		expect_pattern(dfd, "shard", size, 42);
		cr_assert_eq(stg_seq_read(dfd, "shard", 42, &cfg, &r), 0);
		cr_assert_eq(r.bytes, size);
		cr_assert_eq(r.bad_pages, 0);
		/* another seed's stamps are not these */
		cr_assert_eq(stg_seq_read(dfd, "shard", 43, &cfg, &r), 0);
		cr_assert_eq(r.bad_pages, size / 4096 + (size % 4096 != 0));
		close(dfd);
		fr_test_rmtree(dir);
	}
}

FR_TEST(seqio, a_damaged_page_is_counted)
{
	char *dir = fr_test_tmpdir();
	int dfd = open_dir(dir), fd;
	const struct stg_seq_config cfg = { .backend = STG_BACKEND_AUTO };
	static char zeros[4096];
	struct stg_seq_stats st;
	bool created;

	cr_assert_eq(stg_seq_write(dfd, "s", 1 << 20, 7, &cfg, &created, &st),
		     0);
	fd = openat(dfd, "s", O_WRONLY | O_CLOEXEC);
	cr_assert_eq(pwrite(fd, zeros, sizeof(zeros), 8192), 4096);
	close(fd);
	cr_assert_eq(stg_seq_read(dfd, "s", 7, &cfg, &st), 0);
	cr_assert_eq(st.bad_pages, 1);
	close(dfd);
	fr_test_rmtree(dir);
}

FR_TEST(seqio, an_existing_file_is_never_touched)
{
	char *dir = fr_test_tmpdir();
	int dfd = open_dir(dir), fd;
	const struct stg_seq_config cfg = { .backend = STG_BACKEND_PSYNC };
	struct stg_seq_stats st;
	bool created = true;
	char buf[16] = "";

	fd = openat(dfd, "mine", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert_eq(write(fd, "keep", 4), 4);
	close(fd);
	cr_assert_eq(stg_seq_write(dfd, "mine", 1 << 20, 1, &cfg, &created,
				   &st), -EEXIST);
	cr_assert_not(created);
	fd = openat(dfd, "mine", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(read(fd, buf, sizeof(buf)), 4);
	cr_assert_str_eq(buf, "keep");
	close(fd);
	close(dfd);
	fr_test_rmtree(dir);
}

FR_TEST(seqio, a_raised_stop_flag_ends_the_write_with_eintr)
{
	for (size_t b = 0; b < 2; b++) {
		char *dir = fr_test_tmpdir();
		int dfd = open_dir(dir);
		volatile sig_atomic_t stop = 1;
		const struct stg_seq_config cfg = {
			.backend = seq_backends[b], .stop = &stop,
		};
		struct stg_seq_stats st;
		bool created;

		cr_assert_eq(stg_seq_write(dfd, "s", 64 << 20, 1, &cfg,
					   &created, &st), -EINTR);
		cr_assert(created, "the caller removes what was made");
		cr_assert_eq(st.bytes, 0);
		close(dfd);
		fr_test_rmtree(dir);
	}
}

/* ---- the folder rule and a whole save and restore ---- */

static unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

FR_TEST(ckpt_run, folder_refused_when_not_empty_or_too_small)
{
	char *dir = fr_test_tmpdir(), path[4096], why[1024];
	uint64_t free_b;
	FILE *f;

	cr_assert_eq(ms_ckpt_check_dir(dir, 1 << 20, &free_b, why,
				       sizeof(why)), 0, "%s", why);
	cr_assert_gt(free_b, 0);
	snprintf(path, sizeof(path), "%s/other.txt", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(ms_ckpt_check_dir(dir, 1 << 20, &free_b, why,
				       sizeof(why)), -ENOTEMPTY);
	cr_assert_not_null(strstr(why, "other.txt"), "%s", why);
	/* a folder yet to be made is judged by its parent's space */
	snprintf(path, sizeof(path), "%s/new", dir);
	cr_assert_eq(ms_ckpt_check_dir(path, 1ull << 60, &free_b, why,
				       sizeof(why)), -ENOSPC);
	cr_assert_not_null(strstr(why, "free"), "%s", why);
	cr_assert_not_null(strstr(why, "1152921504606846976"), "the bytes "
			   "asked: %s", why);
	fr_test_rmtree(dir);
}

FR_TEST(ckpt_run, saves_restores_and_removes_what_it_wrote)
{
	char *base = fr_test_tmpdir(), dir[4096];
	struct ms_ckpt_config cfg = {
		.dir = dir, .bytes = (9u << 20) + 100, .shards = 3,
		.io = { .block_size = 1 << 20, .depth = 2 }, .seed = 5,
	};
	struct ms_ckpt_result res;

	snprintf(dir, sizeof(dir), "%s/ck", base);
	cr_assert_eq(ms_ckpt_run(&cfg, &res), 0, "%s", res.err_text);
	cr_assert(res.save.done && res.restore.done);
	cr_assert_eq(res.shards, 3);
	/* whole pages: 9 MiB + 100 rounds up to 9 MiB + 4 KiB */
	cr_assert_eq(res.bytes, (9u << 20) + 4096);
	cr_assert_eq(res.save.bytes, res.bytes);
	cr_assert_eq(res.restore.bytes, res.bytes);
	cr_assert_eq(res.bad_pages, 0);
	cr_assert_leq(res.save.shard_min_s, res.save.shard_median_s);
	cr_assert_leq(res.save.shard_median_s, res.save.shard_max_s);
	cr_assert(res.made_dir && res.removed_all);
	cr_assert_eq(access(dir, F_OK), -1, "the folder it made is gone");
	/* kept: the shards are there, whole */
	cfg.keep = true;
	cr_assert_eq(ms_ckpt_run(&cfg, &res), 0, "%s", res.err_text);
	cr_assert(res.kept);
	cr_assert_eq(count_entries(dir), 3);
	{
		int dfd = open_dir(dir);
		char name[64];

		snprintf(name, sizeof(name), MS_CKPT_SHARD_FMT, 1u);
		expect_pattern(dfd, name, res.shard_bytes,
			       5 * 1000003ull + 1);
		close(dfd);
	}
	fr_test_rmtree(base);
}

FR_TEST(ckpt_run, a_stop_removes_the_partial_shards_and_nothing_else)
{
	char *dir = fr_test_tmpdir(), path[4096];
	volatile sig_atomic_t stop = 1;
	struct ms_ckpt_config cfg = {
		.dir = dir, .bytes = 64u << 20, .shards = 4, .stop = &stop,
	};
	struct ms_ckpt_result res;

	cr_assert_eq(ms_ckpt_run(&cfg, &res), -EINTR);
	cr_assert(res.removed_all);
	cr_assert_eq(count_entries(dir), 0);
	cr_assert_eq(access(dir, F_OK), 0, "a folder it did not make stays");
	/* a folder that is not empty is refused before any write */
	snprintf(path, sizeof(path), "%s/x", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	stop = 0;
	cr_assert_eq(ms_ckpt_run(&cfg, &res), -ENOTEMPTY);
	cr_assert_eq(count_entries(dir), 1);
	fr_test_rmtree(dir);
}

/* ---- the command ---- */

static char *slurp(const char *dir, const char *name)
{
	char path[4096], *buf = NULL;
	size_t len = 0;
	FILE *f, *m;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

FR_TEST(ckpt_cli, refuses_a_folder_that_is_not_empty_writing_nothing)
{
	char *dir = fr_test_tmpdir(), target[4096], other[4096];
	char *argv[] = { (char *)fr_test_bin(), "ckpt", "--size", "8M",
			 target, NULL };
	char *err;
	FILE *f;

	snprintf(target, sizeof(target), "%s/t", dir);
	cr_assert_eq(mkdir(target, 0755), 0);
	snprintf(other, sizeof(other), "%s/t/notes.txt", dir);
	f = fopen(other, "w");
	fputs("mine", f);
	fclose(f);
	cr_assert_eq(fr_test_run(dir, argv, 60), FR_EXIT_USAGE);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "not empty"), "%s", err);
	free(err);
	cr_assert_eq(count_entries(target), 1, "nothing was written");
	fr_test_rmtree(dir);
}

FR_TEST(ckpt_cli, refuses_too_little_space_with_the_numbers_writing_nothing)
{
	char *dir = fr_test_tmpdir(), target[4096];
	char *argv[] = { (char *)fr_test_bin(), "ckpt", "--params", "70B",
			 "--bytes-per-param", "1000", target, NULL };
	char *err;

	snprintf(target, sizeof(target), "%s/t", dir);
	cr_assert_eq(fr_test_run(dir, argv, 60), FR_EXIT_USAGE);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "too little free space"), "%s", err);
	cr_assert_not_null(strstr(err, "70000000000000 bytes"), "%s", err);
	free(err);
	cr_assert_eq(access(target, F_OK), -1, "no folder was made");
	fr_test_rmtree(dir);
}

/* --params alone sizes at 14 bytes a parameter (a saved mixed-precision
 * Adam checkpoint), --bytes-per-param 16 at 16: the refusal says the
 * bytes asked, and nothing is written. */
FR_TEST(ckpt_cli, params_size_at_14_bytes_by_default)
{
	static const struct { const char *bpp, *bytes; } t[] = {
		{ NULL, "98000000000000 bytes" },
		{ "16", "112000000000000 bytes" },
	};
	char *dir = fr_test_tmpdir(), target[4096];

	snprintf(target, sizeof(target), "%s/t", dir);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *argv[] = { (char *)fr_test_bin(), "ckpt", "--params",
				 "7T", target, NULL, NULL, NULL };
		char *err;

		if (t[i].bpp) {
			argv[4] = "--bytes-per-param";
			argv[5] = (char *)t[i].bpp;
			argv[6] = target;
		}
		cr_assert_eq(fr_test_run(dir, argv, 60), FR_EXIT_USAGE);
		err = slurp(dir, "stderr");
		cr_expect_not_null(strstr(err, t[i].bytes), "%s", err);
		free(err);
		cr_assert_eq(access(target, F_OK), -1, "no folder was made");
	}
	fr_test_rmtree(dir);
}

/* The report prints what the value used holds, not the default's words. */
FR_TEST(ckpt_cli, the_report_says_what_the_bytes_per_param_used_hold)
{
	char *dir = fr_test_tmpdir(), target[4096], js[4096];
	char *argv[] = { (char *)fr_test_bin(), "ckpt", "--params", "1M",
			 "--bytes-per-param", "2", "--json", js, target, NULL };
	json_t *root;
	json_error_t jerr;
	char *out;

	snprintf(target, sizeof(target), "%s/t", dir);
	snprintf(js, sizeof(js), "%s/ckpt.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 60), 0);
	out = slurp(dir, "stdout");
	cr_expect_not_null(strstr(out, "1M parameters x 2 bytes: bf16/fp16 "
				  "weights only"), "%s", out);
	cr_expect_null(strstr(out, "master"), "%s", out);
	free(out);
	root = json_load_file(js, 0, &jerr);
	cr_assert_not_null(root, "%s", jerr.text);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
		root, "checkpoint"), "bytes_per_param_meaning")),
		"bf16/fp16 weights only");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(
		root, "checkpoint"), "bytes_asked")), 2000000);
	json_decref(root);
	fr_test_rmtree(dir);
}

FR_TEST(ckpt_cli, json_report_has_save_and_restore)
{
	char *dir = fr_test_tmpdir(), target[4096], js[4096];
	char *argv[] = { (char *)fr_test_bin(), "ckpt", "--size", "6M",
			 "--gpus", "2xA100", "--step-time", "1s", "--json",
			 js, target, NULL };
	json_t *root, *save, *restore;
	json_error_t jerr;

	snprintf(target, sizeof(target), "%s/t", dir);
	snprintf(js, sizeof(js), "%s/ckpt.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 60), 0);
	root = json_load_file(js, 0, &jerr);
	cr_assert_not_null(root, "%s", jerr.text);
	cr_assert_str_eq(json_string_value(json_object_get(root, "schema")),
			 RPT_CKPT_SCHEMA_NAME);
	save = json_object_get(root, "save");
	restore = json_object_get(root, "restore");
	cr_assert_eq(json_integer_value(json_object_get(save, "bytes")),
		     6 << 20);
	cr_assert_eq(json_integer_value(json_object_get(restore, "bytes")),
		     6 << 20);
	cr_assert_gt(json_number_value(json_object_get(save, "seconds")), 0);
	cr_assert_gt(json_number_value(json_object_get(restore,
						       "bytes_per_s")), 0);
	cr_assert_eq(json_integer_value(json_object_get(
		json_object_get(root, "checkpoint"), "shards")), 2);
	cr_assert(json_is_number(json_object_get(
		json_object_get(root, "training"), "min_interval_steps")));
	cr_assert_eq(access(target, F_OK), -1, "removed after the run");
	json_decref(root);
	fr_test_rmtree(dir);
}

FR_TEST(ckpt_cli, compare_prices_names_the_cheapest_and_shows_the_ckpt)
{
	char *dir = fr_test_tmpdir(), a[4096], b[4096], ck[4096], html[4096];
	char target[4096], cmd[16384];
	char *ckargv[] = { (char *)fr_test_bin(), "ckpt", "--size", "4M",
			   "--json", ck, target, NULL };
	char *argv[] = { (char *)fr_test_bin(), "compare", "--price",
			 "p4d.24xlarge=32.77", "--price", "g5=5.672",
			 "--html", html, a, b, NULL };
	char *out, *page;

	snprintf(a, sizeof(a), "%s/p4d/p4d.json", dir);
	snprintf(b, sizeof(b), "%s/g5/g5.json", dir);
	snprintf(ck, sizeof(ck), "%s/p4d/ckpt.json", dir);
	snprintf(html, sizeof(html), "%s/page.html", dir);
	snprintf(target, sizeof(target), "%s/t", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/p4d' '%s/g5' && cp "
		 FIX "p4d.json '%s' && cp " FIX "g5.json '%s'", dir, dir, a,
		 b);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(fr_test_run(dir, ckargv, 60), 0);
	cr_assert_eq(fr_test_run(dir, argv, 60), 0);
	out = slurp(dir, "stdout");
	cr_assert_not_null(strstr(out, "cheapest that feeds the asked GPUs: "
				  "p4d.24xlarge, $0.4607 per million"), "%s",
			   out);
	cr_assert_not_null(strstr(out, "$0.7503"), "g5 cold: %s", out);
	cr_assert_not_null(strstr(out, "ckpt save/rest"), "%s", out);
	cr_assert_not_null(strstr(out, "p4d.24xlarge: checkpoint from"),
			   "%s", out);
	cr_assert_null(strstr(out, "g5.48xlarge: checkpoint from"), "%s",
		       out);
	page = slurp(dir, "page.html");
	cr_assert_not_null(strstr(page, "cost and checkpoints"));
	cr_assert_not_null(strstr(page, "class=\"best\""));
	cr_assert_not_null(strstr(page, "</body></html>"));
	free(out);
	free(page);
	/* a price for no candidate is a usage error */
	argv[3] = "m7i=1";
	cr_assert_eq(fr_test_run(dir, argv, 60), FR_EXIT_USAGE);
	fr_test_rmtree(dir);
}

FR_TEST(ckpt_report, brief_read_back_and_its_html_section)
{
	json_t *root = json_pack("{s:s, s:i, s:{s:s}, s:{s:i}, s:{s:I, s:f, "
				 "s:f}, s:{s:f, s:f}}",
				 "schema", RPT_CKPT_SCHEMA_NAME,
				 "schema_version", RPT_CKPT_SCHEMA_VERSION,
				 "machine", "instance_type", "p4d.24xlarge",
				 "checkpoint", "shards", 8,
				 "save", "bytes", (json_int_t)112000000000,
				 "seconds", 95.0, "bytes_per_s", 1.179e9,
				 "restore", "seconds", 80.0, "bytes_per_s",
				 1.4e9);
	struct rpt_ckpt_brief ck;
	struct rpt_buf b;
	char *page;

	cr_assert_not_null(root);
	cr_assert_eq(rpt_ckpt_brief_from_json(root, &ck), 0);
	cr_assert_str_eq(ck.instance_type, "p4d.24xlarge");
	cr_assert_eq(ck.shards, 8);
	cr_assert_float_eq(ck.save_s, 95, 1e-9);
	rpt_buf_init(&b);
	rpt_ckpt_html(&b, &ck);
	page = rpt_buf_take(&b);
	cr_assert_not_null(strstr(page, "112.00 GB in 8 shards"), "%s", page);
	cr_assert_not_null(strstr(page, "95.00 s, 1.18 GB/s"), "%s", page);
	free(page);
	/* another schema is not a ckpt report */
	json_object_set_new(root, "schema", json_string("feedrate.sweep"));
	cr_assert_eq(rpt_ckpt_brief_from_json(root, &ck), -EINVAL);
	json_decref(root);
}

FR_TEST(ckpt_cli, sweep_refuses_a_ckpt_file_that_is_no_ckpt_report)
{
	char *dir = fr_test_tmpdir(), js[4096];
	/* a sweep report is JSON, but not a ckpt report */
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--ckpt",
			 FIX "p4d.json", "--price", "32.77", "--json", js,
			 NULL };
	char *out, *err;

	snprintf(js, sizeof(js), "%s/sweep.json", dir);
	cr_assert_eq(fr_test_run(dir, argv, 60), FR_EXIT_USAGE);
	err = slurp(dir, "stderr");
	cr_assert_not_null(strstr(err, "--ckpt " FIX "p4d.json: not a report "
				  "of 'feedrate ckpt --json'"), "%s", err);
	free(err);
	/* refused before measuring: no report, no dataset generated */
	out = slurp(dir, "stdout");
	cr_assert_str_eq(out, "");
	free(out);
	cr_assert_eq(access(js, F_OK), -1);
	fr_test_rmtree(dir);
}
