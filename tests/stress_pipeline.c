/*
 * stress_pipeline.c - many short pipeline runs with varied reader, worker
 * and GPU counts, and early stops of every kind, for ThreadSanitizer.
 * Each run must return, deliver what its stop condition promises, and
 * leave no thread behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "stress.h"

struct sp_arg {
	uint64_t fail_every;     /* ids divisible by this fail (0: none) */
	bool stage;              /* copy each sample into its batch's
	                            staging area (as gpu-decode's hw path) */
};

static int sp_ctx_create(void *arg, void **ctx)
{
	*ctx = arg;
	return 0;
}

static int sp_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		    uint64_t epoch, uint64_t id, void *out,
		    struct ldr_step_times *st)
{
	const struct sp_arg *a = ctx;
	uint64_t *o = out, h = seed ^ epoch;
	const uint8_t *p = data;

	if (a->fail_every && id % a->fail_every == 0)
		return -LDR_ECORRUPT;
	if (a->stage) {
		uint8_t *q = ldr_stage_alloc(st->stage, len);

		if (!q)
			return -ENOBUFS;
		memcpy(q, data, len);
		st->staged_bytes = len;
		h = 0;
		o[2] = (uint64_t)(uintptr_t)q;
		o[3] = len;
	}
	for (size_t i = 0; i < len; i += 61)
		h = h * 31 + p[i];
	o[0] = id + 1;
	o[1] = h;
	return 0;
}

/* A staged sample's bytes still hash to what its worker saw. */
static bool sp_staged_ok(const uint64_t *o)
{
	const uint8_t *q = (const uint8_t *)(uintptr_t)o[2];
	uint64_t h = 0;

	for (size_t i = 0; i < o[3]; i += 61)
		h = h * 31 + q[i];
	return h == o[1];
}

struct sp_seen {
	pthread_mutex_t lock;
	uint64_t positions;
	unsigned out_words;     /* 4: staged samples to check */
	uint64_t stage_bad;
};

static void sp_on_batch(void *arg, uint64_t b, const void *data,
			unsigned samples)
{
	struct sp_seen *s = arg;

	const uint64_t *o = data;
	uint64_t bad = 0;

	(void)b;
	for (unsigned i = 0; s->out_words == 4 && i < samples; i++)
		if (o[4 * i] && !sp_staged_ok(o + 4 * i))
			bad++;
	pthread_mutex_lock(&s->lock);
	s->positions += samples;
	s->stage_bad += bad;
	pthread_mutex_unlock(&s->lock);
}

static int sp_rm(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void *sp_stop_later(void *arg)
{
	struct timespec ts = { 0, 30000000 };

	nanosleep(&ts, NULL);
	__atomic_store_n((volatile int *)arg, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* A folder of N small files, and a listing of it. */
static int sp_dataset(char *dir, unsigned n, struct stg_dataset **ds)
{
	char path[4200], buf[3000];

	if (!mkdtemp(dir))
		return -errno;
	for (unsigned i = 0; i < n; i++) {
		size_t len = 100 + (i * 53) % (sizeof(buf) - 100);
		int fd;

		memset(buf, (int)i, len);
		snprintf(path, sizeof(path), "%s/f%05u", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -errno;
		if (write(fd, buf, len) != (ssize_t)len) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	return stg_dataset_scan(dir, NULL, ds);
}

enum sp_stop { SP_EPOCHS, SP_SAMPLES, SP_MAX_ERRORS, SP_FLAG, SP_DURATION };

static const char *const sp_stop_names[] = {
	"epochs", "samples", "max_errors", "stop_flag", "duration",
};

int stress_pipeline(void)
{
	char dir[] = "/var/tmp/feedrate-stress.XXXXXX";
	struct stg_dataset *ds = NULL;
	struct ldr_result *res = malloc(sizeof(*res));
	const unsigned n = 90;
	int failed = 0, runs = 0, err;

	if (!res)
		return 1;
	err = sp_dataset(dir, n, &ds);
	if (err) {
		printf("FAIL pipeline: dataset: %s\n", strerror(-err));
		free(res);
		return 1;
	}
	for (unsigned i = 0; i < 60; i++) {
		struct sp_arg arg = { 0 };
		struct sp_seen seen = { .lock = PTHREAD_MUTEX_INITIALIZER };
		struct ldr_config cfg;
		enum sp_stop stop = (enum sp_stop)(i % 5);
		volatile int flag = 0;
		pthread_t t;
		bool ok = true;

		memset(&cfg, 0, sizeof(cfg));
		cfg.ds = ds;
		cfg.reader.backend = i % 3 == 0 ? STG_BACKEND_PSYNC :
				     i % 3 == 1 ? STG_BACKEND_NULL :
						  STG_BACKEND_AUTO;
		cfg.reader.depth = 4 + i % 13;
		cfg.reader.max_sample_bytes = 1 << 16;
		if (i % 3 == 1 && i % 4 == 1)   /* reads that complete late */
			cfg.reader.null_delay_ns = 200000;
		cfg.readers = 1 + i % 3;
		cfg.workers = 1 + (i * 7) % 6;
		cfg.batch = 1 + (i * 11) % 17;
		cfg.gpus = i % 4;
		cfg.gpu_rate = 20000 + 5000.0 * (i % 3);
		cfg.gpu_sync = (i / 4) % 2 ? LDR_GPU_SYNC_NONE : LDR_GPU_SYNC_ALL;
		cfg.prefetch = i % 5 == 0 ? 1 : 0;
		cfg.queue_depth = i % 7 == 0 ? 2 : 0;
		cfg.seed = i;
		cfg.world = 1;
		cfg.warmup_s = i % 2 ? -1 : 0.01;
		cfg.probe_fraction = i % 6 == 0 ? 0.5 : 0;
		/* every other run stages, in areas small enough to grow */
		arg.stage = i % 2 == 1;
		seen.out_words = arg.stage ? 4 : 2;
		cfg.transform = (struct ldr_transform){
			.name = "stress", .out_bytes = 8 * seen.out_words,
			.arg = &arg, .ctx_create = sp_ctx_create,
			.apply = sp_apply, .stage_bytes = arg.stage ?
			4096 + 512 * (i % 7) : 0,
		};
		cfg.on_batch = sp_on_batch;
		cfg.on_batch_arg = &seen;
		switch (stop) {
		case SP_EPOCHS:
			cfg.epochs = 1 + i % 3;
			break;
		case SP_SAMPLES:
			cfg.samples = 50 + i * 10;
			break;
		case SP_MAX_ERRORS:
			arg.fail_every = 7;
			cfg.max_errors = 3 + i % 5;
			break;
		case SP_FLAG:
			cfg.stop = &flag;
			break;
		case SP_DURATION:
			cfg.duration_s = 0.05;
			break;
		}
		if (stop == SP_FLAG &&
		    pthread_create(&t, NULL, sp_stop_later, (void *)&flag)) {
			failed++;
			continue;
		}
		err = ldr_run(&cfg, res);
		if (stop == SP_FLAG)
			pthread_join(t, NULL);
		runs++;
		if (err) {
			ok = false;
		} else if (stop == SP_EPOCHS) {
			/* every position delivered; the window holds them
			 * all unless a warm-up was cut off */
			ok = seen.positions == cfg.epochs * n &&
			     (res->samples == cfg.epochs * n ||
			      (cfg.warmup_s >= 0 && !res->warmup_incomplete &&
			       res->samples < cfg.epochs * n));
		} else if (stop == SP_SAMPLES) {
			ok = res->samples >= cfg.samples;
		} else if (stop == SP_MAX_ERRORS) {
			ok = res->stopped_by_max_errors &&
			     res->errors >= cfg.max_errors;
		} else if (stop == SP_FLAG) {
			ok = res->stopped_by_signal;
		}
		if (seen.stage_bad || (arg.stage && !err &&
				       res->stage_held_bytes == 0))
			ok = false;
		if (!ok) {
			failed++;
			printf("FAIL pipeline run %u (%s, %s, readers %u, "
			       "workers %u, batch %u, gpus %u): %s, %lu "
			       "samples\n", i, sp_stop_names[stop],
			       stg_backend_name(cfg.reader.backend),
			       cfg.readers, cfg.workers, cfg.batch, cfg.gpus,
			       err ? strerror(-err) : "ok",
			       (unsigned long)res->samples);
		}
	}
	printf("%s  pipeline: %d runs, %d failed\n", failed ? "FAIL" : "ok",
	       runs, failed);
	stg_dataset_destroy(ds);
	nftw(dir, sp_rm, 8, FTW_DEPTH | FTW_PHYS);
	free(res);
	return failed;
}
