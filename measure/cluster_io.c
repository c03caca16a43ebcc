/*
 * cluster_io.c - what one rank's storage gives alone: the rank's share of
 * the files read cold while every other rank waits (ms_cluster_each_alone
 * runs it in turn), so the cluster's cold total can be set against the
 * sum of the nodes alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "measure.h"

int ms_cluster_files(const struct stg_dataset *ds, unsigned rank,
		     unsigned world, struct stg_dataset **out)
{
	const size_t n = stg_dataset_count(ds);
	const char **names;
	uint64_t *sizes;
	size_t k = 0;
	int err;

	*out = NULL;
	if (!world || rank >= world)
		return -EINVAL;
	names = malloc((n / world + 1) * sizeof(*names));
	sizes = malloc((n / world + 1) * sizeof(*sizes));
	if (!names || !sizes) {
		free(names);
		free(sizes);
		return -ENOMEM;
	}
	for (size_t i = rank; i < n; i += world) {
		const int64_t sz = stg_dataset_size(ds, i);

		names[k] = stg_dataset_relpath(ds, i, NULL);
		sizes[k++] = sz > 0 ? (uint64_t)sz : 0;
	}
	err = k ? stg_dataset_from_names(stg_dataset_root(ds), names, sizes,
					 k, out) : -ENODATA;
	free(names);
	free(sizes);
	return err;
}

double ms_cluster_read_alone(const struct ms_cluster_alone *a)
{
	struct ms_io_config cfg;
	struct ms_io_result *res = malloc(sizeof(*res));
	double rate = -1;

	if (!res)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = a->files;
	cfg.rc = a->rc;
	cfg.rc.direct = true;
	/* ms_io_run takes its reader's figures as given: the defaults of
	 * `feedrate io` where the run left them to the engine */
	if (!cfg.rc.depth)
		cfg.rc.depth = STG_DEFAULT_DEPTH;
	if (!cfg.rc.block_size)
		cfg.rc.block_size = STG_DEFAULT_BLOCK_SIZE;
	if (!cfg.rc.max_sample_bytes)
		cfg.rc.max_sample_bytes = (uint64_t)1 << 30;
	cfg.threads = a->threads ? a->threads : 1;
	cfg.cache = STG_CACHE_COLD;
	cfg.duration_s = a->seconds;
	cfg.stop = a->stop;
	if (!ms_io_run(&cfg, res) && res->seconds > 0)
		rate = (double)res->st.bytes / res->seconds;
	free(res);
	return rate;
}
