/*
 * bench_prep.c - time each preparation phase of a point over a folder
 * tree, as tests/bench/prep/bench_prep.sh runs it beside the previous
 * release's `run --cache cold` (and `find`): the listing, eviction
 * through the ring and by system calls, the sampled verification, and
 * warming. Prints one "phase seconds files" line each and the peak RSS.
 *
 *   bench_prep DIR [evict|evict-calls|warm|verify|all|old [FILES]]
 *
 * "old" times the previous release's way on an evenly spread sample of
 * FILES files (default 65,536) and projects it linearly to the whole
 * tree: one thread, per file open + fdatasync + fadvise DONTNEED + close
 * (evict), open + read + close (warm), and residency of 4,096 evenly
 * spread files (verify).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <fcntl.h>
#include <unistd.h>

#include "storage.h"

/* The previous release's per-file loop over DS: evict or warm. */
static double old_each(const struct stg_dataset *ds, bool warm)
{
	static char buf[1 << 20];
	const double t0 = stg_now();

	for (size_t id = 0; id < stg_dataset_count(ds); id++) {
		int fd = stg_dataset_open(ds, id, O_RDONLY);

		if (fd < 0)
			continue;
		if (warm) {
			off_t off = 0;
			ssize_t n;

			posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
			while ((n = pread(fd, buf, sizeof(buf), off)) > 0)
				off += n;
		} else {
			(void)fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		close(fd);
	}
	return stg_now() - t0;
}

static void old_way(const struct stg_dataset *ds, size_t files)
{
	const size_t n = stg_dataset_count(ds);
	struct stg_ds_residency dr;
	struct stg_dataset *sub;
	double t, scale;

	if (stg_dataset_sample(ds, files, &sub))
		exit(1);
	scale = (double)n / (double)stg_dataset_count(sub);
	t = old_each(sub, false);
	printf("%-12s %8.3f s projected (%.3f s for %zu files)\n", "old-evict",
	       t * scale, t, stg_dataset_count(sub));
	t = stg_now();
	stg_cache_dataset_residency(ds, 4096, NULL, &dr);
	printf("%-12s %8.3f s %9llu files\n", "old-verify", stg_now() - t,
	       (unsigned long long)dr.files);
	t = old_each(sub, true);
	printf("%-12s %8.3f s projected (%.3f s for %zu files)\n", "old-warm",
	       t * scale, t, stg_dataset_count(sub));
	stg_dataset_destroy(sub);
}

static void phase(const struct stg_dataset *ds, const char *name,
		  enum stg_prep_op op, const struct stg_prep_opts *o)
{
	struct stg_prep_result r;
	int err = stg_prep_run(ds, op, o, &r);

	if (err) {
		fprintf(stderr, "bench_prep: %s: %s\n", name, strerror(-err));
		exit(1);
	}
	printf("%-12s %8.3f s %9llu files %llu errors %s%s\n", name,
	       r.seconds, (unsigned long long)r.files,
	       (unsigned long long)r.errors, r.uring ? "ring" : "calls",
	       op == STG_PREP_VERIFY ? "" : "");
	if (op == STG_PREP_VERIFY)
		printf("%-12s resident %.4f (mean of the sample)\n", "",
		       r.files ? r.resident_sum / (double)r.files : -1);
}

int main(int argc, char **argv)
{
	const char *what = argc > 2 ? argv[2] : "all";
	const bool all = !strcmp(what, "all");
	struct stg_prep_opts calls = { .no_uring = true }, sample = { 0 };
	struct stg_dataset *ds;
	struct rusage ru;
	size_t *ids = NULL, n;
	double t0;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_prep DIR [evict|evict-calls|"
			"warm|verify|all]\n");
		return 2;
	}
	t0 = stg_now();
	err = stg_dataset_scan(argv[1], NULL, &ds);
	if (err) {
		fprintf(stderr, "bench_prep: %s: %s\n", argv[1],
			strerror(-err));
		return 1;
	}
	printf("%-12s %8.3f s %9zu files\n", "list", stg_now() - t0,
	       stg_dataset_count(ds));
	n = stg_sample_size(0.01, 0.99);
	if (stg_sample_ids(stg_dataset_count(ds), n, 1, &ids))
		return 1;
	sample.ids = ids;
	sample.nids = n < stg_dataset_count(ds) ? n : stg_dataset_count(ds);
	if (!strcmp(what, "old"))
		old_way(ds, argc > 3 ? strtoull(argv[3], NULL, 10) : 65536);
	if (all || !strcmp(what, "evict"))
		phase(ds, "evict", STG_PREP_EVICT, NULL);
	if (!strcmp(what, "evict-calls"))
		phase(ds, "evict-calls", STG_PREP_EVICT, &calls);
	if (all || !strcmp(what, "verify"))
		phase(ds, "verify", STG_PREP_VERIFY, &sample);
	if (all || !strcmp(what, "warm"))
		phase(ds, "warm", STG_PREP_WARM, NULL);
	if (all)
		phase(ds, "verify", STG_PREP_VERIFY, &sample);
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("%-12s %ld KB\n", "peak_rss", ru.ru_maxrss);
	free(ids);
	stg_dataset_destroy(ds);
	return 0;
}
