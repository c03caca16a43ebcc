/*
 * bench_engine.c - what the pipeline engine itself costs, in CPU seconds
 * per sample, against what the real ImageNet train transform costs.
 *
 *   engine     ldr_run with the null backend (synthetic bytes, no system
 *              call) and the noop transform (copies 64 bytes), gpus 0 (a
 *              drain takes every batch at once): every CPU second of the
 *              process in the measurement window (readers, workers, drain,
 *              main thread, the null backend's copy of the file bytes)
 *              divided by the samples delivered. Run with 4 KiB files
 *              (the engine alone) and 110 KiB files (plus copying an
 *              ImageNet-sized file into the read buffer).
 *   transform  aug_train_sample (decode + RandomResizedCrop 224 + flip +
 *              normalize, CHW float32) single-threaded over 64 synthetic
 *              ImageNet-like JPEGs held in memory: thread CPU per sample.
 *
 * Prints one line per measurement (medians over REPEATS) and the ratio
 * engine / transform; the target is <= 1 %.
 *
 * usage: bench_engine [-r REPEATS] [-d SECONDS] [-w WORKERS] [-f DIR]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "augment.h"
#include "loader.h"
#include "gen_write.h"
#include "workloads.h"

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

/* A listing of N files of SIZE bytes under DIR (nothing else written). */
static int make_listing(const char *dir, unsigned n, unsigned size,
			struct stg_dataset **ds)
{
	char list[4200];
	FILE *f;

	snprintf(list, sizeof(list), "%s/list-%u.txt", dir, size);
	f = fopen(list, "w");
	if (!f)
		return -errno;
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%u\tn%04u/img%07u.jpg\n", size, i / 1000, i);
	if (fclose(f))
		return -EIO;
	return stg_dataset_load_list(list, dir, NULL, ds);
}

struct engine_row {
	double cpu_ns, reader_ns, worker_ns, drain_ns, sps;
};

static int bench_engine(const char *dir, unsigned size, unsigned workers,
			double seconds, int repeats, struct engine_row *out)
{
	double cpu[16], rd[16], wk[16], dr[16], sps[16];
	struct ldr_result *res = malloc(sizeof(*res));
	struct stg_dataset *ds = NULL;
	int err;

	if (!res)
		return -ENOMEM;
	err = make_listing(dir, 100000, size, &ds);
	for (int r = 0; !err && r < repeats; r++) {
		struct ldr_config cfg;
		double n;

		memset(&cfg, 0, sizeof(cfg));
		cfg.ds = ds;
		cfg.reader.backend = STG_BACKEND_NULL;
		cfg.reader.max_sample_bytes = 1 << 20;
		cfg.transform = ldr_transform_noop_sized(64);
		cfg.workers = workers;
		cfg.batch = 256;
		cfg.seed = (uint64_t)r;
		cfg.world = 1;
		cfg.warmup_s = 0.5;
		cfg.duration_s = seconds;
		err = ldr_run(&cfg, res);
		if (err)
			break;
		n = (double)(res->samples ? res->samples : 1);
		cpu[r] = res->process_cpu_s / n * 1e9;
		rd[r] = res->reader_cpu_s / n * 1e9;
		wk[r] = res->worker_cpu_s / n * 1e9;
		dr[r] = res->consumer_cpu_s / n * 1e9;
		sps[r] = res->samples_per_s;
	}
	if (!err) {
		out->cpu_ns = median(cpu, repeats);
		out->reader_ns = median(rd, repeats);
		out->worker_ns = median(wk, repeats);
		out->drain_ns = median(dr, repeats);
		out->sps = median(sps, repeats);
	}
	stg_dataset_destroy(ds);
	free(res);
	return err;
}

/* CPU ns per sample of the ImageNet train transform; < 0 when it cannot
 * run (then *why says so). */
static double bench_transform(double seconds, int repeats, const char **why)
{
	enum { NIMG = 64 };
	struct aug_membuf jpg[NIMG];
	struct wl_synth *syn = wl_synth_create(WL_SYNTH_MAX_SIDE,
					       WL_SYNTH_MAX_SIDE);
	struct aug_ctx *ctx = NULL;
	double per[16], result = -1;
	void *out = NULL;
	int err = 0;

	memset(jpg, 0, sizeof(jpg));
	*why = "";
	if (!syn) {
		*why = "no memory for the synthesiser";
		return -1;
	}
	for (unsigned i = 0; i < NIMG && !err; i++) {
		struct wl_image_spec spec;

		wl_imagenet_spec(7, i, &spec);
		err = wl_synth_jpeg(syn, &spec, &jpg[i]);
	}
	if (err) {
		*why = "could not generate the JPEGs";
		goto out;
	}
	if (aug_ctx_create(NULL, &ctx)) {
		*why = "aug_ctx_create failed";
		goto out;
	}
	out = malloc(aug_ctx_sample_bytes(ctx, false));
	if (!out)
		goto out;
	/* one untimed pass grows every scratch buffer */
	for (unsigned i = 0; i < NIMG; i++)
		aug_train_sample(ctx, jpg[i].data, jpg[i].len, 1, 0, i, out,
				 NULL);
	for (int r = 0; r < repeats; r++) {
		double t0 = thread_cpu_s(), t;
		uint64_t n = 0;

		do {
			for (unsigned i = 0; i < NIMG; i++, n++)
				if (aug_train_sample(ctx, jpg[i].data,
						     jpg[i].len, 1,
						     (uint64_t)r + 1, i, out,
						     NULL)) {
					*why = "aug_train_sample failed";
					goto out;
				}
			t = thread_cpu_s() - t0;
		} while (t < seconds);
		per[r] = t / (double)n * 1e9;
	}
	result = median(per, repeats);
out:
	free(out);
	aug_ctx_destroy(ctx);
	for (unsigned i = 0; i < NIMG; i++)
		aug_membuf_free(&jpg[i]);
	wl_synth_destroy(syn);
	return result;
}

int main(int argc, char **argv)
{
	const char *dir = "/var/tmp";
	char tmp[3072];
	double seconds = 3, tf_ns;
	int repeats = 3, opt, err = 0;
	unsigned workers[2] = { 1, 2 }, nworkers = 2;
	static const unsigned sizes[2] = { 4096, 110000 };
	const char *why;
	struct engine_row rows[2][2];

	while ((opt = getopt(argc, argv, "r:d:w:f:")) != -1) {
		switch (opt) {
		case 'r':
			repeats = atoi(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'w':
			workers[0] = (unsigned)atoi(optarg);
			nworkers = 1;
			break;
		case 'f':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_engine [-r REPEATS] "
				"[-d SECONDS] [-w WORKERS] [-f DIR]\n");
			return 2;
		}
	}
	if (repeats < 1 || repeats > 16 || !(seconds > 0)) {
		fprintf(stderr, "bench_engine: repeats 1..16, seconds > 0\n");
		return 2;
	}
	snprintf(tmp, sizeof(tmp), "%s/feedrate-bench-engine.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		perror("bench_engine: mkdtemp");
		return 1;
	}
	printf("engine: null backend, noop transform (64 B out), batch 256, "
	       "gpus 0, %.1f s x %d, medians\n", seconds, repeats);
	for (unsigned s = 0; s < 2 && !err; s++)
		for (unsigned w = 0; w < nworkers && !err; w++) {
			struct engine_row *r = &rows[s][w];

			err = bench_engine(tmp, sizes[s], workers[w], seconds,
					   repeats, r);
			if (err)
				break;
			printf("  files %6u B, %u workers: %7.0f ns CPU/sample "
			       "(reader %.0f, workers %.0f, drain %.0f), "
			       "%.0f samples/s\n", sizes[s], workers[w],
			       r->cpu_ns, r->reader_ns, r->worker_ns,
			       r->drain_ns, r->sps);
		}
	{
		char list[4200];

		for (unsigned s = 0; s < 2; s++) {
			snprintf(list, sizeof(list), "%s/list-%u.txt", tmp,
				 sizes[s]);
			unlink(list);
		}
		rmdir(tmp);
	}
	if (err) {
		fprintf(stderr, "bench_engine: %s\n", strerror(-err));
		return 1;
	}
	tf_ns = bench_transform(seconds, repeats, &why);
	if (tf_ns < 0) {
		printf("transform: not measured (%s); engine cost alone above\n",
		       why);
		return 0;
	}
	printf("transform: aug_train_sample, 64 synthetic ImageNet JPEGs, "
	       "1 thread: %.0f ns CPU/sample\n", tf_ns);
	for (unsigned s = 0; s < 2; s++)
		printf("ratio engine/transform, %6u B files, %u workers: "
		       "%.2f %% (target <= 1 %%)\n", sizes[s], workers[0],
		       100 * rows[s][0].cpu_ns / tf_ns);
	return 0;
}
