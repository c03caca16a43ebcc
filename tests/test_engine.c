/*
 * test_engine.c - the pipeline engine (ldr_run): delivery, determinism,
 * failures, stop conditions, emulated GPUs and bounded memory.
 *
 * The test transform writes the sample's id, epoch and a hash of its bytes
 * into its output, so a batch seen by the on_batch hook says which sample
 * landed where, and that its bytes were the file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "harness.h"
#include "loader.h"
#include "reader_internal.h"

/* ---- datasets ---- */

struct fixture {
	char *dir;
	struct stg_dataset *ds;
	uint64_t n;
	bool on_disk;          /* real files, else a listing for null */
	uint64_t *index;       /* id -> the index the fixture gave it */
};

static uint64_t fixture_size(uint64_t idx)
{
	/* from 1 byte to a bit over 3 pages, never a round number */
	return 1 + (idx * 977) % 13000;
}

static uint8_t fixture_byte(uint64_t idx, uint64_t off)
{
	return (uint8_t)(idx * 131 + off * 7 + (off >> 8));
}

/* Map each id back to the index encoded in its name "fNNNNNNN". */
static void fixture_index(struct fixture *f)
{
	f->index = calloc(f->n, sizeof(*f->index));
	cr_assert_not_null(f->index);
	for (uint64_t id = 0; id < f->n; id++) {
		const char *rel = stg_dataset_relpath(f->ds, id, NULL);
		const char *base = strrchr(rel, '/');

		base = base ? base + 1 : rel;
		cr_assert_eq(base[0], 'f');
		f->index[id] = strtoull(base + 1, NULL, 10);
	}
}

/* A listing of N synthetic files for the null backend (nothing on disk). */
static void fixture_null(struct fixture *f, uint64_t n)
{
	char list[4096];
	FILE *fp;

	memset(f, 0, sizeof(*f));
	f->dir = fr_test_tmpdir();
	f->n = n;
	snprintf(list, sizeof(list), "%s/list.txt", f->dir);
	fp = fopen(list, "w");
	cr_assert_not_null(fp);
	for (uint64_t i = 0; i < n; i++)
		fprintf(fp, "%lu\tf%07lu\n", (unsigned long)fixture_size(i),
			(unsigned long)i);
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(stg_dataset_load_list(list, f->dir, NULL, &f->ds), 0);
	cr_assert_eq(stg_dataset_count(f->ds), n);
	fixture_index(f);
}

/* N real files under a fresh folder (two subfolders). */
static void fixture_files(struct fixture *f, uint64_t n)
{
	char path[4096];
	uint8_t *buf = malloc(16384);

	memset(f, 0, sizeof(*f));
	cr_assert_not_null(buf);
	f->dir = fr_test_tmpdir();
	f->n = n;
	f->on_disk = true;
	for (unsigned d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "%s/d%u", f->dir, d);
		cr_assert_eq(mkdir(path, 0755), 0);
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t size = fixture_size(i);
		int fd;

		for (uint64_t k = 0; k < size; k++)
			buf[k] = fixture_byte(i, k);
		snprintf(path, sizeof(path), "%s/d%lu/f%07lu", f->dir,
			 (unsigned long)(i % 2), (unsigned long)i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, buf, size), (ssize_t)size);
		close(fd);
	}
	free(buf);
	cr_assert_eq(stg_dataset_scan(f->dir, NULL, &f->ds), 0);
	cr_assert_eq(stg_dataset_count(f->ds), n);
	fixture_index(f);
}

static void fixture_free(struct fixture *f)
{
	stg_dataset_destroy(f->ds);
	fr_test_rmtree(f->dir);
	free(f->index);
	memset(f, 0, sizeof(*f));
}

/* The bytes the reader should hand over for ID. */
static uint64_t fixture_bytes(const struct fixture *f, uint64_t id,
			      uint8_t *buf)
{
	uint64_t idx = f->index[id], size = fixture_size(idx);

	for (uint64_t k = 0; k < size; k++)
		buf[k] = f->on_disk ? fixture_byte(idx, k) : stg_null_byte(k);
	return size;
}

/* ---- the test transform ---- */

#define TAG_BYTES 32

struct tag_arg {
	uint64_t fail_id;        /* this id fails with LDR_ECORRUPT ... */
	bool fail_one;
	uint64_t fail_every;     /* ... or every id divisible by this */
	long sleep_ns;           /* held per sample (emulated work) */
};

static uint64_t fnv(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int tag_ctx_create(void *arg, void **ctx)
{
	/* runs on the worker thread: sleeps end on time, not up to 50 us
	 * late (the default timer slack) */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	*ctx = arg;
	return 0;
}

static int tag_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		     uint64_t epoch, uint64_t id, void *out,
		     struct ldr_step_times *st)
{
	const struct tag_arg *a = ctx;
	uint64_t *o = out;

	if (a && a->sleep_ns) {
		struct timespec ts = { 0, a->sleep_ns };

		nanosleep(&ts, NULL);
	}
	if (a && ((a->fail_one && id == a->fail_id) ||
		  (a->fail_every && id % a->fail_every == 0)))
		return -LDR_ECORRUPT;
	o[0] = id + 1;           /* 0 stays "nothing here" */
	o[1] = epoch;
	o[2] = fnv(data, len);
	o[3] = (o[2] ^ seed * 0x9E3779B97F4A7C15ull) + id * 31 + epoch;
	st->other_s += 1e-9;
	return 0;
}

static struct ldr_transform tag_transform(struct tag_arg *arg)
{
	struct ldr_transform t = {
		.name = "tag",
		.out_bytes = TAG_BYTES,
		.arg = arg,
		.ctx_create = tag_ctx_create,
		.apply = tag_apply,
	};
	return t;
}

/* ---- collecting what the GPUs received ---- */

struct collect {
	uint8_t *bytes;          /* per position, TAG_BYTES */
	uint32_t *hits;          /* deliveries per position */
	uint64_t npos;
	unsigned batch;
	bool overflow;
	pthread_mutex_t lock;
	uint64_t batches;
};

static void collect_init(struct collect *c, uint64_t npos, unsigned batch)
{
	memset(c, 0, sizeof(*c));
	c->bytes = calloc(npos, TAG_BYTES);
	c->hits = calloc(npos, sizeof(*c->hits));
	cr_assert(c->bytes && c->hits);
	c->npos = npos;
	c->batch = batch;
	pthread_mutex_init(&c->lock, NULL);
}

static void collect_free(struct collect *c)
{
	free(c->bytes);
	free(c->hits);
	pthread_mutex_destroy(&c->lock);
}

static void on_batch(void *arg, uint64_t b, const void *data,
		     unsigned samples)
{
	struct collect *c = arg;

	pthread_mutex_lock(&c->lock);
	c->batches++;
	for (unsigned j = 0; j < samples; j++) {
		uint64_t p = b * c->batch + j;

		if (p >= c->npos) {
			c->overflow = true;
			continue;
		}
		memcpy(c->bytes + p * TAG_BYTES,
		       (const uint8_t *)data + (size_t)j * TAG_BYTES, TAG_BYTES);
		c->hits[p]++;
	}
	pthread_mutex_unlock(&c->lock);
}

static void base_config(struct ldr_config *cfg, const struct fixture *f,
			struct tag_arg *arg, struct collect *c)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ds = f->ds;
	cfg->reader.backend = f->on_disk ? STG_BACKEND_AUTO : STG_BACKEND_NULL;
	cfg->reader.depth = 16;
	cfg->reader.max_sample_bytes = 1 << 20;
	cfg->transform = tag_transform(arg);
	cfg->seed = 1234;
	cfg->world = 1;
	cfg->warmup_s = -1;
	if (c) {
		cfg->on_batch = on_batch;
		cfg->on_batch_arg = c;
	}
}

static struct ldr_result *result_new(void)
{
	struct ldr_result *r = malloc(sizeof(*r));

	cr_assert_not_null(r);
	return r;
}

/*
 * The position-by-position reference: the same transform applied
 * single-threaded, in sampler order, to the bytes the files hold. Checks
 * that every position was delivered once and is byte-identical.
 */
static void check_against_reference(const struct fixture *f,
				    const struct ldr_config *cfg,
				    const struct collect *c, uint64_t epochs,
				    const struct tag_arg *arg)
{
	struct ldr_sampler *s;
	uint8_t *buf = malloc(16384), ref[TAG_BYTES];
	uint8_t *seen = calloc(f->n, 1);

	cr_assert(buf && seen);
	cr_assert_eq(ldr_sampler_create(f->n, cfg->seed, 0, 1, false, &s), 0);
	cr_assert_eq(c->npos, epochs * f->n);
	cr_assert(!c->overflow, "a batch went past the last position");
	for (uint64_t e = 0; e < epochs; e++) {
		ldr_sampler_set_epoch(s, e);
		memset(seen, 0, f->n);
		for (uint64_t i = 0; i < f->n; i++) {
			uint64_t p = e * f->n + i, id = ldr_sampler_get(s, i);
			const uint8_t *got = c->bytes + p * TAG_BYTES;
			struct ldr_step_times st = { 0 };
			uint64_t got_id;
			int r;

			cr_assert_eq(c->hits[p], 1,
				     "position %lu delivered %u times",
				     (unsigned long)p, c->hits[p]);
			memcpy(&got_id, got, sizeof(got_id));
			if (got_id) {
				cr_assert_eq(seen[got_id - 1], 0,
					     "id %lu twice in epoch %lu",
					     (unsigned long)(got_id - 1),
					     (unsigned long)e);
				seen[got_id - 1] = 1;
			}
			r = tag_apply((void *)arg, buf, fixture_bytes(f, id, buf),
				      cfg->seed, e, id, ref, &st);
			if (r)
				memset(ref, 0, sizeof(ref));
			cr_assert(!memcmp(got, ref, TAG_BYTES),
				  "position %lu (epoch %lu, id %lu) differs "
				  "from the single-threaded reference",
				  (unsigned long)p, (unsigned long)e,
				  (unsigned long)id);
		}
	}
	ldr_sampler_destroy(s);
	free(seen);
	free(buf);
}

static void run_and_check(const struct fixture *f, unsigned workers,
			  unsigned batch, unsigned gpus,
			  enum ldr_gpu_sync sync, unsigned readers)
{
	const uint64_t epochs = 3;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct collect c;
	struct tag_arg arg = { 0 };
	int err;

	collect_init(&c, epochs * f->n, batch);
	base_config(&cfg, f, &arg, &c);
	cfg.workers = workers;
	cfg.readers = readers;
	cfg.batch = batch;
	cfg.epochs = epochs;
	cfg.gpus = gpus;
	cfg.gpu_rate = 1e7;
	cfg.gpu_sync = sync;
	err = ldr_run(&cfg, res);
	cr_assert_eq(err, 0, "ldr_run: %s (workers %u, batch %u)",
		     strerror(-err), workers, batch);
	cr_assert_eq(res->errors, 0);
	cr_assert_eq(res->epochs_done, epochs);
	cr_assert_eq(res->samples, epochs * f->n,
		     "workers %u batch %u: %lu samples", workers, batch,
		     (unsigned long)res->samples);
	cr_assert_eq(res->batches, (epochs * f->n + batch - 1) / batch);
	check_against_reference(f, &cfg, &c, epochs, &arg);
	collect_free(&c);
	free(res);
}

/* ---- delivery and determinism ---- */

FR_TEST(engine, null_backend_delivers_each_sample_once_per_epoch)
{
	static const unsigned batches[] = { 7, 10, 32, 1 };
	struct fixture f;

	fixture_null(&f, 100);
	for (unsigned w = 1; w <= 8; w++)
		for (unsigned b = 0; b < 4; b++)
			run_and_check(&f, w, batches[b], 0, LDR_GPU_SYNC_ALL, 1);
	fixture_free(&f);
}

FR_TEST(engine, files_on_disk_deliver_each_sample_once_per_epoch)
{
	static const unsigned batches[] = { 7, 10, 64 };
	struct fixture f;

	fixture_files(&f, 120);
	for (unsigned w = 1; w <= 8; w++)
		for (unsigned b = 0; b < 3; b++)
			run_and_check(&f, w, batches[b], 0, LDR_GPU_SYNC_ALL, 1);
	fixture_free(&f);
}

FR_TEST(engine, psync_backend_matches_the_reference)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct collect c;
	struct tag_arg arg = { 0 };

	fixture_files(&f, 90);
	collect_init(&c, 2 * f.n, 16);
	base_config(&cfg, &f, &arg, &c);
	cfg.reader.backend = STG_BACKEND_PSYNC;
	cfg.workers = 3;
	cfg.batch = 16;
	cfg.epochs = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_str_eq(res->backend, "psync");
	check_against_reference(&f, &cfg, &c, 2, &arg);
	collect_free(&c);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, several_readers_and_gpus_keep_every_batch_intact)
{
	struct fixture f;

	fixture_null(&f, 150);
	run_and_check(&f, 4, 9, 3, LDR_GPU_SYNC_ALL, 3);
	run_and_check(&f, 4, 9, 3, LDR_GPU_SYNC_NONE, 2);
	run_and_check(&f, 2, 50, 2, LDR_GPU_SYNC_ALL, 1);
	fixture_free(&f);
}

FR_TEST(engine, a_run_is_repeatable_with_the_same_seed)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct collect a, b;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 64);
	collect_init(&a, 2 * f.n, 8);
	collect_init(&b, 2 * f.n, 8);
	base_config(&cfg, &f, &arg, &a);
	cfg.workers = 5;
	cfg.batch = 8;
	cfg.epochs = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cfg.workers = 2;
	cfg.on_batch_arg = &b;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert(!memcmp(a.bytes, b.bytes, 2 * f.n * TAG_BYTES));
	cfg.seed++;
	cfg.on_batch_arg = &a;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert(memcmp(a.bytes, b.bytes, 2 * f.n * TAG_BYTES),
		  "another seed gave the same order");
	collect_free(&a);
	collect_free(&b);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, sharded_ranks_deliver_their_own_positions)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };
	unsigned *hits;

	fixture_null(&f, 101);
	hits = calloc(f.n, sizeof(*hits));
	for (unsigned rank = 0; rank < 3; rank++) {
		struct collect c;
		struct ldr_sampler *s;

		collect_init(&c, 34, 5);
		base_config(&cfg, &f, &arg, &c);
		cfg.rank = rank;
		cfg.world = 3;
		cfg.batch = 5;
		cfg.epochs = 1;
		cfg.workers = 2;
		cr_assert_eq(ldr_run(&cfg, res), 0);
		cr_assert_eq(res->samples, 34);
		cr_assert_eq(ldr_sampler_create(f.n, cfg.seed, rank, 3, false,
						&s), 0);
		for (uint64_t i = 0; i < 34; i++) {
			uint64_t id;

			memcpy(&id, c.bytes + i * TAG_BYTES, sizeof(id));
			cr_assert_eq(id - 1, ldr_sampler_get(s, i));
			hits[id - 1]++;
		}
		ldr_sampler_destroy(s);
		collect_free(&c);
	}
	for (uint64_t id = 0; id < f.n; id++)
		cr_assert_geq(hits[id], 1, "id %lu on no rank",
			      (unsigned long)id);
	free(hits);
	free(res);
	fixture_free(&f);
}

/* ---- failures ---- */

FR_TEST(engine, a_corrupt_sample_is_counted_and_the_epoch_goes_on)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct collect c;
	struct tag_arg arg = { .fail_one = true, .fail_id = 37 };

	fixture_null(&f, 80);
	collect_init(&c, 3 * f.n, 10);
	base_config(&cfg, &f, &arg, &c);
	cfg.workers = 3;
	cfg.batch = 10;
	cfg.epochs = 3;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->errors, 3, "one failure per epoch");
	cr_assert_eq(res->err_kinds, 1);
	cr_assert_str_eq(res->err[0].kind, "corrupt");
	cr_assert_eq(res->err[0].count, 3);
	cr_assert(strstr(res->err[0].example,
			 stg_dataset_relpath(f.ds, 37, NULL)) != NULL,
		  "example %s", res->err[0].example);
	cr_assert_eq(res->samples, 3 * f.n - 3);
	cr_assert_eq(res->samples_failed, 3);
	cr_assert(!res->stopped_by_max_errors);
	/* every other sample arrived; the failed place holds zeros */
	check_against_reference(&f, &cfg, &c, 3, &arg);
	collect_free(&c);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, a_vanished_file_is_counted_by_kind_with_its_path)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct collect c;
	struct tag_arg arg = { 0 };
	char path[4096];
	uint64_t gone = 41;

	fixture_files(&f, 70);
	cr_assert_geq(stg_dataset_path(f.ds, gone, path, sizeof(path)), 0);
	cr_assert_eq(unlink(path), 0);
	collect_init(&c, 2 * f.n, 8);
	base_config(&cfg, &f, &arg, &c);
	cfg.workers = 2;
	cfg.batch = 8;
	cfg.epochs = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->errors, 2);
	cr_assert_str_eq(res->err[0].kind, "ENOENT");
	cr_assert_str_eq(res->err[0].example, path);
	cr_assert_eq(res->samples, 2 * f.n - 2);
	for (uint64_t p = 0; p < 2 * f.n; p++) {
		uint64_t id;

		cr_assert_eq(c.hits[p], 1);
		memcpy(&id, c.bytes + p * TAG_BYTES, sizeof(id));
		cr_assert(id != gone + 1);
	}
	collect_free(&c);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, max_errors_stops_the_run)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { .fail_every = 10 };

	fixture_null(&f, 500);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 4;
	cfg.batch = 16;
	cfg.max_errors = 25;     /* epochs unlimited: only this stops it */
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert(res->stopped_by_max_errors);
	cr_assert_geq(res->errors, 25);
	cr_assert_str_eq(res->err[0].kind, "corrupt");
	free(res);
	fixture_free(&f);
}

/* ---- stop conditions ---- */

FR_TEST(engine, samples_limit_stops_after_that_many_measured_samples)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 300);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 2;
	cfg.batch = 10;
	cfg.samples = 2000;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_geq(res->samples, 2000);
	cr_assert(!res->stopped_by_signal && !res->stopped_by_max_errors);
	free(res);
	fixture_free(&f);
}

static void *set_stop_later(void *arg)
{
	struct timespec ts = { 0, 150000000 };

	nanosleep(&ts, NULL);
	*(volatile int *)arg = 1;
	return NULL;
}

FR_TEST(engine, the_stop_flag_ends_an_unlimited_run)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { .sleep_ns = 200000 };
	volatile int stop = 0;
	pthread_t t;

	fixture_null(&f, 200);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 3;
	cfg.batch = 8;
	cfg.gpus = 2;
	cfg.gpu_rate = 100;      /* slow GPUs: they hold batches when stopped */
	cfg.stop = &stop;
	cr_assert_eq(pthread_create(&t, NULL, set_stop_later, (void *)&stop),
		     0);
	cr_assert_eq(ldr_run(&cfg, res), 0);
	pthread_join(t, NULL);
	cr_assert(res->stopped_by_signal);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, warmup_is_excluded_from_the_window)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { .sleep_ns = 100000 };

	fixture_null(&f, 200);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 2;
	cfg.batch = 8;
	cfg.warmup_s = 0.2;
	cfg.duration_s = 0.3;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_geq(res->warmup_s, 0.2);
	cr_assert_geq(res->measured_s, 0.3);
	cr_assert(!res->warmup_incomplete);
	/* the warm-up's samples are not in the window's count */
	cr_assert_lt(res->samples, res->epochs_done * f.n + f.n);
	cr_assert_gt(res->series_len + 1, 0);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, a_run_shorter_than_its_warmup_measures_all_of_it)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 50);
	base_config(&cfg, &f, &arg, NULL);
	cfg.warmup_s = 30;
	cfg.epochs = 1;
	cfg.batch = 10;
	cfg.workers = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert(res->warmup_incomplete);
	cr_assert_eq(res->samples, 50);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, bad_configurations_are_refused)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 10);
	base_config(&cfg, &f, &arg, NULL);
	cfg.gpus = 2;            /* no gpu_rate */
	cr_assert_eq(ldr_run(&cfg, res), -EINVAL);
	base_config(&cfg, &f, &arg, NULL);
	cfg.world = 20;
	cfg.rank = 19;
	cfg.drop_last = true;    /* 10 samples over 20 ranks: none here */
	cr_assert_eq(ldr_run(&cfg, res), -ENODATA);
	base_config(&cfg, &f, &arg, NULL);
	cfg.transform.apply = NULL;
	cr_assert_eq(ldr_run(&cfg, res), -EINVAL);
	free(res);
	fixture_free(&f);
}

static int failing_ctx(void *arg, void **ctx)
{
	(void)arg;
	*ctx = NULL;
	return -ENOMEM;
}

FR_TEST(engine, a_transform_that_cannot_start_fails_the_run_cleanly)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;

	fixture_null(&f, 10);
	base_config(&cfg, &f, NULL, NULL);
	cfg.transform.ctx_create = failing_ctx;
	cfg.workers = 3;
	cr_assert_eq(ldr_run(&cfg, res), -ENOMEM);
	free(res);
	fixture_free(&f);
}

/* ---- emulated GPUs ---- */

FR_TEST(engine, with_no_gpus_a_drain_takes_batches_and_au_is_zero)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 200);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 2;
	cfg.batch = 20;
	cfg.epochs = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->gpus, 0);
	cr_assert_eq(res->samples, 400);
	cr_assert_eq(res->au, 0);
	cr_assert_eq(res->gpu_compute_s, 0);
	cr_assert_eq(res->step_time_s, 0);
	cr_assert_neq(res->bottleneck, LDR_BOTTLENECK_GPU);
	cr_assert_gt(res->samples_per_s, 0);
	free(res);
	fixture_free(&f);
}

FR_TEST(engine, default_workers_are_the_usable_cpus_quota_included)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };
	char fixture[PATH_MAX];

	fixture_null(&f, 50);
	base_config(&cfg, &f, &arg, NULL);
	cfg.batch = 10;
	cfg.epochs = 1;
	/* a cgroup CPU quota of 0.5 CPU (the cgv2_aws fixture): one worker,
	 * whatever the affinity mask holds */
	cr_assert_not_null(realpath("tests/fixtures/sysroot/cgv2_aws",
				    fixture));
	cr_assert_eq(stg_sysroot_set(fixture), 0);
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->workers, 1);
	cr_assert_eq(res->samples, 50);
	/* this machine as it is */
	cr_assert_eq(stg_sysroot_set("/"), 0);
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->workers, stg_cpus_usable());
	free(res);
	fixture_free(&f);
}

/*
 * AU against the analytic model. W workers each hold a sample D seconds
 * (a sleep, so the model holds on a busy machine), so the pipeline makes
 * F = W / D samples/s; G GPUs eat R samples/s each. Expected:
 * samples/s = min(F, G R), AU = min(1, F / (G R)), for synchronous steps
 * and for independent GPUs alike (prefetch 2 G slots absorb the jitter).
 * Tolerance: 15 % relative on samples/s and 0.12 absolute on AU (timer
 * slack on a shared VM makes D longer, never shorter).
 */
static void au_case(enum ldr_gpu_sync sync, double rate, double *au,
		    double *sps, enum ldr_bottleneck *bn)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { .sleep_ns = 2000000 };

	fixture_null(&f, 1000);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 4;           /* F = 4 / 2 ms = 2000 samples/s */
	cfg.batch = 20;
	cfg.gpus = 2;
	cfg.gpu_rate = rate;
	cfg.gpu_sync = sync;
	cfg.warmup_s = 0.5;
	cfg.duration_s = 2.0;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	*au = res->au;
	*sps = res->samples_per_s;
	*bn = res->bottleneck;
	cr_log_info("sync %d rate %.0f: AU %.3f, %.0f samples/s, %s (%s)",
		    sync, rate, res->au, res->samples_per_s,
		    ldr_bottleneck_name(res->bottleneck), res->bottleneck_why);
	free(res);
	fixture_free(&f);
}

static void au_check(enum ldr_gpu_sync sync)
{
	const double feed = 2000;
	double au, sps;
	enum ldr_bottleneck bn;

	/* GPUs slower than the feed: 2 x 400 = 800 samples/s, AU 1 */
	au_case(sync, 400, &au, &sps, &bn);
	cr_assert_geq(au, 0.88, "AU %.3f, expected 1", au);
	cr_assert(sps > 800 * 0.85 && sps < 800 * 1.15,
		  "%.0f samples/s, expected 800", sps);
	cr_assert_eq(bn, LDR_BOTTLENECK_GPU);
	/* GPUs faster than the feed: 2 x 2000 = 4000 wanted, 2000 fed,
	 * AU 0.5 */
	au_case(sync, 2000, &au, &sps, &bn);
	cr_assert(au > 0.5 - 0.12 && au < 0.5 + 0.12,
		  "AU %.3f, expected 0.5", au);
	cr_assert(sps > feed * 0.85 && sps < feed * 1.15,
		  "%.0f samples/s, expected %.0f", sps, feed);
	cr_assert_eq(bn, LDR_BOTTLENECK_CPU);
}

FR_TEST(engine_au_slow, synchronous_gpus_match_the_analytic_au)
{
	au_check(LDR_GPU_SYNC_ALL);
}

FR_TEST(engine_au_slow, independent_gpus_match_the_analytic_au)
{
	au_check(LDR_GPU_SYNC_NONE);
}

/* ---- bounded memory ---- */

/*
 * Growth of the peak RSS during one epoch over N listed files (null
 * backend), measured in a forked child: the listing is made before the
 * fork, the child resets its high-water mark to its current RSS
 * (/proc/self/clear_refs 5), runs, and reports getrusage's ru_maxrss minus
 * the RSS it started from. Returns KiB, or -1 when the peak cannot be
 * reset (then the test skips).
 */
static long rss_growth_kib(uint64_t n)
{
	struct fixture f;
	int pipefd[2];
	long growth = -1;
	pid_t pid;

	fixture_null(&f, n);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct ldr_result *res = malloc(sizeof(*res));
		struct ldr_config cfg;
		struct rusage ru0, ru1;
		long out = -1;
		int fd = open("/proc/self/clear_refs", O_WRONLY);

		close(pipefd[0]);
		if (res && fd >= 0 && write(fd, "5", 1) == 1) {
			memset(res, 0, sizeof(*res));  /* fault it in now */
			base_config(&cfg, &f, NULL, NULL);
			cfg.transform = ldr_transform_noop_sized(256);
			cfg.workers = 2;
			cfg.batch = 64;
			cfg.epochs = 1;
			getrusage(RUSAGE_SELF, &ru0);
			if (ldr_run(&cfg, res) == 0 && res->samples == n) {
				getrusage(RUSAGE_SELF, &ru1);
				out = ru1.ru_maxrss - ru0.ru_maxrss;
			}
		}
		if (write(pipefd[1], &out, sizeof(out)) != sizeof(out))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &growth, sizeof(growth)) != sizeof(growth))
		growth = -2;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	fixture_free(&f);
	return growth;
}

/*
 * Bound: the engine's memory does not follow the dataset except for one
 * permutation array per reader (4 bytes per file). With N and 10 N files,
 * growth(10 N) <= growth(N) + 4 x 9 N bytes + 8 MiB, and growth(10 N)
 * stays under 64 MiB (the 256 B x 64 x 4 batch slots, the reader's
 * buffers in use and the thread stacks are a few MiB).
 */
FR_TEST(engine_mem_slow, peak_rss_does_not_grow_with_the_dataset)
{
	const uint64_t n = 20000;
	long small = rss_growth_kib(n), big;

	if (small == -1)
		cr_skip_test("cannot reset the peak RSS (/proc/self/clear_refs)");
	cr_assert_geq(small, 0, "the child run failed");
	big = rss_growth_kib(10 * n);
	cr_assert_geq(big, 0, "the child run failed");
	cr_log_info("peak RSS growth: %ld KiB for %lu files, %ld KiB for %lu",
		    small, (unsigned long)n, big, (unsigned long)(10 * n));
	cr_assert_leq(big, small + (long)(4 * 9 * n / 1024) + 8192,
		      "%ld KiB with 10x the files against %ld KiB", big, small);
	cr_assert_lt(big, 64 * 1024);
}

/*
 * The same model with the delay in storage: the null backend completes
 * each read 4 ms after it was queued and the reader keeps 8 in flight, so
 * storage feeds F = 8 / 4 ms = 2000 samples/s while the workers (no
 * sleep) idle. Expected as above, and the diagnosis names storage when
 * the GPUs want more than F. Same tolerances.
 */
static void read_delay_case(enum ldr_gpu_sync sync, double rate,
			    struct ldr_result *res)
{
	struct fixture f;
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };

	fixture_null(&f, 1000);
	base_config(&cfg, &f, &arg, NULL);
	cfg.reader.depth = 8;
	cfg.reader.null_delay_ns = 4000000;
	cfg.workers = 2;
	cfg.batch = 20;
	cfg.gpus = 2;
	cfg.gpu_rate = rate;
	cfg.gpu_sync = sync;
	cfg.warmup_s = 0.5;
	cfg.duration_s = 2.0;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_log_info("read delay, sync %d rate %.0f: AU %.3f, %.0f samples/s, "
		    "%s (%s)", sync, rate, res->au, res->samples_per_s,
		    ldr_bottleneck_name(res->bottleneck), res->bottleneck_why);
	fixture_free(&f);
}

static void read_delay_check(enum ldr_gpu_sync sync)
{
	struct ldr_result *res = result_new();

	read_delay_case(sync, 400, res);
	cr_assert_geq(res->au, 0.88, "AU %.3f, expected 1", res->au);
	cr_assert(res->samples_per_s > 800 * 0.85 &&
		  res->samples_per_s < 800 * 1.15,
		  "%.0f samples/s, expected 800", res->samples_per_s);
	cr_assert_eq(res->bottleneck, LDR_BOTTLENECK_GPU);
	read_delay_case(sync, 2000, res);
	cr_assert(res->au > 0.5 - 0.12 && res->au < 0.5 + 0.12,
		  "AU %.3f, expected 0.5", res->au);
	cr_assert(res->samples_per_s > 2000 * 0.85 &&
		  res->samples_per_s < 2000 * 1.15,
		  "%.0f samples/s, expected 2000", res->samples_per_s);
	cr_assert_eq(res->bottleneck, LDR_BOTTLENECK_STORAGE, "%s",
		     res->bottleneck_why);
	/* the reader's latency histogram saw the delay */
	cr_assert_geq(stg_histo_percentile(&res->read_lat, 50), 4000000);
	free(res);
}

FR_TEST(engine_au_slow, read_latency_limits_synchronous_gpus_as_predicted)
{
	read_delay_check(LDR_GPU_SYNC_ALL);
}

FR_TEST(engine_au_slow, read_latency_limits_independent_gpus_as_predicted)
{
	read_delay_check(LDR_GPU_SYNC_NONE);
}

/* ---- residency probing ---- */

FR_TEST(engine, probing_sees_resident_files_as_hits_and_evicted_ones_not)
{
	struct fixture f;
	struct ldr_result *res = result_new();
	struct ldr_config cfg;
	struct tag_arg arg = { 0 };
	uint64_t errors = 0;

	fixture_files(&f, 60);
	base_config(&cfg, &f, &arg, NULL);
	cfg.workers = 2;
	cfg.batch = 6;
	cfg.epochs = 1;
	cfg.probe_fraction = 1;
	/* just written: every page is in the cache */
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->probed_reads, f.n);
	cr_assert_eq(res->probe_errors, 0);
	cr_assert_eq(res->probed_bytes, stg_dataset_total_bytes(f.ds));
	cr_assert_eq(res->probed_hit_bytes, res->probed_bytes);
	cr_assert(!strcmp(res->probe_method, "cachestat") ||
		  !strcmp(res->probe_method, "mincore"));
	/* written back and evicted: each file is probed before its only
	 * read of the epoch, so nothing hits */
	sync();
	cr_assert_eq(stg_cache_dataset_evict(f.ds, &errors), 0);
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->probed_reads, f.n);
	cr_assert_lt(res->probed_hit_bytes, res->probed_bytes / 10,
		     "%lu of %lu bytes resident after eviction",
		     (unsigned long)res->probed_hit_bytes,
		     (unsigned long)res->probed_bytes);
	free(res);
	fixture_free(&f);
}

/*
 * The diagnosis from made-up window figures: workers starved while the
 * one shard reader is busy cutting and decompressing records names the
 * reader's CPU, not the storage; its advice depends on whether there are
 * more shards than readers; a starved run over shards whose reader idles
 * with slow reads stays storage-bound.
 */
FR_TEST(engine, a_busy_shard_reader_is_the_limit_not_the_storage)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_diag_in in = { .depth = 32, .readers = 1, .workers = 2,
				  .shards = true, .files = 1 };

	cr_assert_not_null(res);
	res->measured_s = 10;
	res->batches = 40;
	res->samples = 10000;
	res->worker_busy_s = 2;
	res->worker_wait_s = 18;        /* waited 90 % */
	res->reader_cpu_s = 9;          /* one reader, 90 % busy */
	res->mean_reads_in_flight = 4;
	res->read_bytes_per_s = 200e6;
	res->decompressed_bytes = 4000000000ull;
	stg_histo_init(&res->read_lat);
	stg_histo_record(&res->read_lat, 100000);   /* 0.1 ms reads */
	ldr_diagnose(&in, res);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_CPU, "%s",
		     res->bottleneck_why);
	cr_expect(strstr(res->bottleneck_why, "shard reader thread was busy "
			 "90 % (cutting records and decompressing zstd"), "%s",
		  res->bottleneck_why);
	cr_expect(strstr(res->bottleneck_why, "more, smaller shards"), "%s",
		  res->bottleneck_why);
	in.files = 8;
	ldr_diagnose(&in, res);
	cr_expect(strstr(res->bottleneck_why, "more --readers would raise it"),
		  "%s", res->bottleneck_why);
	/* an idle reader whose reads are slow: storage */
	res->reader_cpu_s = 1;
	stg_histo_init(&res->read_lat);
	stg_histo_record(&res->read_lat, 500000000);  /* 0.5 s reads */
	ldr_diagnose(&in, res);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_STORAGE, "%s",
		     res->bottleneck_why);
	free(res);
}

/* Over shards a read carries many samples: warm token windows (4 KB a
 * sample) read in fast 1 MiB reads are not storage-bound, whatever a
 * sample-per-read count would say. */
FR_TEST(engine, a_shard_read_counts_the_samples_it_carries)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	const struct ldr_diag_in in = { .depth = 32, .readers = 1,
		.workers = 2, .shards = true, .files = 3,
		.read_size = 1u << 20, .stream_depth = 4 };

	cr_assert_not_null(res);
	res->measured_s = 10;
	res->batches = 100;
	res->samples = 2830000;         /* 283k samples/s */
	res->worker_busy_s = 5;
	res->worker_wait_s = 15;        /* waited 75 % */
	res->reader_cpu_s = 5;          /* the reader 50 % busy */
	res->mean_reads_in_flight = 4;
	res->read_bytes = res->samples * 4098;
	res->read_bytes_per_s = (double)res->read_bytes / 10;
	stg_histo_init(&res->read_lat);
	stg_histo_record(&res->read_lat, 140000);   /* 0.14 ms reads */
	ldr_diagnose(&in, res);
	/* 4 reads x 1 MiB / 0.14 ms / 4,098 B: ~7.3 M samples/s on offer */
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_CPU, "%s",
		     res->bottleneck_why);
	cr_expect(strstr(res->bottleneck_why, "reads are fast"), "%s",
		  res->bottleneck_why);
	free(res);
}
