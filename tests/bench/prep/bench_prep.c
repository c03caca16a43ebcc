/*
 * bench_prep.c - time each preparation phase of a point over a folder
 * tree, as tests/bench/prep/bench_prep.sh runs it beside the previous
 * release's `run --cache cold` (and `find`): the listing, eviction
 * through the ring and by system calls, the sampled verification, and
 * warming. Prints one "phase seconds files" line each and the peak RSS.
 *
 *   bench_prep DIR [evict|evict-calls|warm|verify|all]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "storage.h"

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
