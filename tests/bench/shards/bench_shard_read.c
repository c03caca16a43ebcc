/*
 * bench_shard_read.c - the shard reader alone, and zstd decompression.
 *
 *   read DATASET   the engine over DATASET's shards (format detected) with
 *                  the noop transform and no GPU: what the shard readers
 *                  (large sequential reads, record cutting, shuffle
 *                  buffer) deliver when nothing downstream limits them.
 *                  Cold: the shards are evicted first and read O_DIRECT.
 *                  Prints read MB/s and records/s (medians).
 *   zstd DATASET   every zstd-compressed shard of DATASET held in memory,
 *                  decompressed through feedrate's streaming path
 *                  (aug_zstd_run into a bounded 1 MiB window, as a shard
 *                  reader does) on one thread: decompressed MB/s per core
 *                  (median), to hold against `zstd -b -d` on the same
 *                  files.
 *
 * usage: bench_shard_read [-r REPEATS] [-d SECONDS] [-c] read|zstd DATASET
 *   -c  cold (read): evict and read with O_DIRECT
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "augment.h"
#include "loader.h"
#include "shardset.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_set(const char *root, struct wl_shardset **s)
{
	enum wl_format f;
	char why[512];
	int err = wl_format_detect(root, &f, why, sizeof(why));

	if (!err && f == WL_FORMAT_FOLDER)
		err = -EINVAL;
	if (!err)
		err = wl_shardset_open(root, f, NULL, s, why, sizeof(why));
	if (err)
		fprintf(stderr, "bench_shard_read: %s: %s (%s)\n", root,
			why, strerror(err < -4096 ? EINVAL : -err));
	return err;
}

static int bench_read(const char *root, int repeats, double secs, bool cold)
{
	struct wl_shardset *s;
	struct ldr_result *res = calloc(1, sizeof(*res));
	double mbps[32], rps[32];
	int err = open_set(root, &s);

	if (err || !res)
		return 1;
	for (int i = 0; i < repeats; i++) {
		struct ldr_config cfg;

		if (cold)
			stg_cache_dataset_evict(s->ds, NULL);
		memset(&cfg, 0, sizeof(cfg));
		cfg.ds = s->ds;
		cfg.shards = &s->ldr;
		cfg.reader.direct = cold;
		cfg.workers = 1;
		cfg.transform = ldr_transform_noop_sized(64);
		cfg.duration_s = secs;
		cfg.warmup_s = 0.5;
		err = ldr_run(&cfg, res);
		if (err) {
			fprintf(stderr, "bench_shard_read: run: %s\n",
				strerror(-err));
			return 1;
		}
		mbps[i] = res->read_bytes_per_s / 1e6;
		rps[i] = res->samples_per_s;
	}
	printf("shard read %s%s: %.1f MB/s, %.0f records/s (median of %d; "
	       "%llu records in %zu shards, %s)\n", root, cold ? " cold" : "",
	       median(mbps, repeats), median(rps, repeats), repeats,
	       (unsigned long long)s->total, stg_dataset_count(s->ds),
	       res->backend);
	wl_shardset_free(s);
	free(res);
	return 0;
}

static int bench_zstd(const char *root, int repeats)
{
	struct wl_shardset *s;
	struct aug_zstd *z;
	uint8_t *win = NULL;
	size_t win_cap = 0;
	double rate[32];
	uint8_t **data;
	size_t *len, n, total_in = 0;
	int err = open_set(root, &s);

	if (err || aug_zstd_create(&z))
		return 1;
	n = stg_dataset_count(s->ds);
	data = calloc(n, sizeof(*data));
	len = calloc(n, sizeof(*len));
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int fd;

		if (!s->compressed[i])
			continue;
		fd = stg_dataset_open(s->ds, i, O_RDONLY);
		if (fd < 0 || fstat(fd, &st))
			return 1;
		data[i] = malloc((size_t)st.st_size);
		if (read(fd, data[i], (size_t)st.st_size) != st.st_size)
			return 1;
		len[i] = (size_t)st.st_size;
		total_in += len[i];
		close(fd);
		if (s->format == WL_FORMAT_MDS &&
		    s->mds.shards[s->mds_of[i]].raw_bytes > win_cap)
			win_cap = s->mds.shards[s->mds_of[i]].raw_bytes;
	}
	/* the reader's window: the whole decompressed shard where its
	 * frame says its size (MDS's do) */
	if (!win_cap)
		win_cap = 1u << 20;
	win = malloc(win_cap);
	if (!win)
		return 1;
	if (!total_in) {
		fprintf(stderr, "bench_shard_read: no zstd shard in %s\n", root);
		return 1;
	}
	/* pass -1 is not timed: it touches the window's pages once, as a
	 * reader does on its first shard */
	for (int r = -1; r < repeats; r++) {
		double t0 = thread_cpu_s();
		uint64_t out_total = 0;

		for (size_t i = 0; i < n; i++) {
			size_t pos = 0;

			if (!data[i])
				continue;
			size_t out = 0;
			int stable = aug_zstd_begin(z, data[i], len[i],
						    s->raw_bytes[i], win_cap);

			/* fed in 1 MiB blocks, as the stream hands them */
			while (pos < len[i]) {
				size_t end = pos + (1u << 20) < len[i] ?
					     pos + (1u << 20) : len[i];

				if (!stable)
					out = 0;
				if (aug_zstd_run(z, data[i], end, &pos, win,
						 win_cap, &out))
					return 1;
				if (!stable)
					out_total += out;
			}
			if (stable)
				out_total += out;
		}
		if (r >= 0)
			rate[r] = (double)out_total / 1e6 /
				  (thread_cpu_s() - t0);
	}
	printf("zstd decompress (1 MiB blocks in, into the shard's window): %.0f MB/s per "
	       "core (median of %d; %.1f MB compressed)\n",
	       median(rate, repeats), repeats, (double)total_in / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	int repeats = 3, opt;
	double secs = 4;
	bool cold = false;

	while ((opt = getopt(argc, argv, "r:d:c")) != -1) {
		switch (opt) {
		case 'r':
			repeats = atoi(optarg);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'c':
			cold = true;
			break;
		default:
			return 2;
		}
	}
	if (repeats < 1 || repeats > 32 || argc - optind != 2) {
		fprintf(stderr, "usage: bench_shard_read [-r N] [-d S] [-c] "
			"read|zstd DATASET\n");
		return 2;
	}
	if (!strcmp(argv[optind], "read"))
		return bench_read(argv[optind + 1], repeats, secs, cold);
	if (!strcmp(argv[optind], "zstd"))
		return bench_zstd(argv[optind + 1], repeats);
	return 2;
}
