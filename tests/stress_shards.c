/*
 * stress_shards.c - many short runs over a sharded dataset (TFRecord
 * files, read through the shard readers: streams, record pool, shuffle
 * buffers, the shard cursor), with varied readers, workers, shuffle
 * buffers, read sizes and GPUs, and every kind of stop, for
 * ThreadSanitizer. Epoch runs must deliver every record exactly once per
 * epoch; the other stops must stop.
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
#include "shardset.h"
#include "stress.h"

#define SS_SHARDS 12u
#define SS_PER 40u

static int ss_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		    uint64_t epoch, uint64_t id, void *out,
		    struct ldr_step_times *st)
{
	uint64_t *o = out, rid;

	(void)ctx;
	(void)seed;
	(void)epoch;
	(void)id;
	(void)st;
	if (len < 12 + 8)
		return -LDR_ECORRUPT;
	memcpy(&rid, (const uint8_t *)data + 12, 8);    /* past the frame */
	o[0] = rid + 1;
	return 0;
}

struct ss_seen {
	pthread_mutex_t lock;
	uint64_t positions;
	uint32_t count[SS_SHARDS * SS_PER];
};

static void ss_on_batch(void *arg, uint64_t b, const void *data,
			unsigned samples)
{
	struct ss_seen *s = arg;
	const uint64_t *v = data;

	(void)b;
	pthread_mutex_lock(&s->lock);
	s->positions += samples;
	for (unsigned i = 0; i < samples; i++)
		if (v[2 * i] && v[2 * i] <= SS_SHARDS * SS_PER)
			s->count[v[2 * i] - 1]++;
	pthread_mutex_unlock(&s->lock);
}

static int ss_rm(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void *ss_stop_later(void *arg)
{
	struct timespec ts = { 0, 30000000 };

	nanosleep(&ts, NULL);
	__atomic_store_n((volatile int *)arg, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* SS_SHARDS TFRecord files of SS_PER records: data = [u64 id][filler]. */
static int ss_dataset(char *dir)
{
	uint8_t rec[12 + 6000 + 4];

	if (!mkdtemp(dir))
		return -errno;
	for (unsigned s = 0; s < SS_SHARDS; s++) {
		char path[4200];
		int fd;

		snprintf(path, sizeof(path), "%s/part-%03u.tfrecord", dir, s);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -errno;
		for (unsigned k = 0; k < SS_PER; k++) {
			uint64_t id = (uint64_t)s * SS_PER + k, n = 8 +
				(id * 131) % 5900;
			uint32_t c;

			memcpy(rec, &n, 8);
			c = wl_crc32c_mask(wl_crc32c(0, rec, 8));
			memcpy(rec + 8, &c, 4);
			memset(rec + 12, (int)id, n);
			memcpy(rec + 12, &id, 8);
			c = wl_crc32c_mask(wl_crc32c(0, rec + 12, n));
			memcpy(rec + 12 + n, &c, 4);
			if (write(fd, rec, 16 + n) != (ssize_t)(16 + n)) {
				close(fd);
				return -EIO;
			}
		}
		close(fd);
	}
	return 0;
}

enum ss_stop { SS_EPOCHS, SS_SAMPLES, SS_FLAG, SS_DURATION };

int stress_shards(void)
{
	char dir[] = "/var/tmp/feedrate-stress-shards.XXXXXX", why[512];
	struct ldr_result *res = malloc(sizeof(*res));
	struct ss_seen *seen = malloc(sizeof(*seen));
	struct wl_shardset *set = NULL;
	int failed = 0, runs = 0, err;
	uint64_t max_record;

	if (!res || !seen)
		return 1;
	err = ss_dataset(dir);
	if (!err)
		err = wl_shardset_open(dir, WL_FORMAT_TFRECORD, NULL, &set,
				       why, sizeof(why));
	if (err || set->total != SS_SHARDS * SS_PER) {
		printf("FAIL shards: dataset: %s %s\n", strerror(-err), why);
		free(res);
		free(seen);
		return 1;
	}
	max_record = set->ldr.max_record;
	for (unsigned i = 0; i < 40; i++) {
		struct ldr_config cfg;
		enum ss_stop stop = (enum ss_stop)(i % 4);
		volatile int flag = 0;
		pthread_t t;
		bool ok = true;

		memset(seen, 0, sizeof(*seen));
		pthread_mutex_init(&seen->lock, NULL);
		set->ldr.shuffle_buffer = 1 + (i * 37) % 200;
		set->ldr.read_size = 4096u << (i % 6);
		set->ldr.read_depth = 1 + i % 5;
		/* one run in five: three small retained blocks per reader,
		 * reads landing in the next while records and reads still
		 * point into them */
		set->ldr.max_record = i % 5 == 1 ? 16384 : max_record;
		set->ldr.blocks = i % 5 == 1 ? 3 : 0;
		memset(&cfg, 0, sizeof(cfg));
		cfg.ds = set->ds;
		cfg.shards = &set->ldr;
		cfg.reader.backend = i % 2 ? STG_BACKEND_PSYNC :
					     STG_BACKEND_AUTO;
		cfg.readers = 1 + i % 3;
		cfg.workers = 1 + (i * 7) % 5;
		cfg.batch = 1 + (i * 11) % 17;
		cfg.gpus = i % 3;
		cfg.gpu_rate = 20000;
		cfg.queue_depth = i % 7 == 0 ? 2 : 0;
		cfg.seed = i;
		cfg.warmup_s = -1;
		cfg.probe_fraction = i % 5 == 0 ? 0.5 : 0;
		cfg.transform = (struct ldr_transform){
			.name = "stress", .out_bytes = 16, .apply = ss_apply,
		};
		cfg.on_batch = ss_on_batch;
		cfg.on_batch_arg = seen;
		switch (stop) {
		case SS_EPOCHS:
			cfg.epochs = 1 + i % 2;
			break;
		case SS_SAMPLES:
			cfg.samples = 30 + i * 7;
			break;
		case SS_FLAG:
			cfg.stop = &flag;
			break;
		case SS_DURATION:
			cfg.duration_s = 0.05;
			break;
		}
		if (stop == SS_FLAG &&
		    pthread_create(&t, NULL, ss_stop_later, (void *)&flag)) {
			failed++;
			continue;
		}
		err = ldr_run(&cfg, res);
		if (stop == SS_FLAG)
			pthread_join(t, NULL);
		runs++;
		if (err) {
			ok = false;
		} else if (stop == SS_EPOCHS) {
			ok = seen->positions == cfg.epochs * SS_SHARDS * SS_PER &&
			     res->errors == 0;
			for (unsigned k = 0; ok && k < SS_SHARDS * SS_PER; k++)
				ok = seen->count[k] == cfg.epochs;
		} else if (stop == SS_SAMPLES) {
			ok = res->samples >= cfg.samples;
		} else if (stop == SS_FLAG) {
			ok = res->stopped_by_signal;
		}
		pthread_mutex_destroy(&seen->lock);
		if (!ok) {
			failed++;
			printf("FAIL shards run %u (stop %d, readers %u, workers "
			       "%u, batch %u, gpus %u, buffer %u): %s, %lu "
			       "samples\n", i, (int)stop, cfg.readers,
			       cfg.workers, cfg.batch, cfg.gpus,
			       set->ldr.shuffle_buffer,
			       err ? strerror(-err) : "ok",
			       (unsigned long)res->samples);
		}
	}
	printf("%s  shards: %d runs, %d failed\n", failed ? "FAIL" : "ok",
	       runs, failed);
	wl_shardset_free(set);
	nftw(dir, ss_rm, 8, FTW_DEPTH | FTW_PHYS);
	free(res);
	free(seen);
	return failed;
}
