/*
 * cluster_io.c - what one rank's storage gives alone: the rank's share of
 * the files read cold while every other rank waits (ms_cluster_each_alone
 * runs it in turn), so the cluster's cold total can be set against the
 * sum of the nodes alone; and `io` under mpirun (ms_cluster_io): each
 * rank alone, then all together from one start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	cfg.alone = true;
	if (!ms_io_run(&cfg, res) && res->seconds > 0)
		rate = (double)res->st.bytes / res->seconds;
	free(res);
	return rate;
}

/* ---- io under mpirun ---- */

struct io_alone {
	struct ms_io_config cfg;
	struct ms_io_result *res;
};

/* This rank's files read alone: bytes/s, -1 when nothing was read. */
static double io_alone_fn(void *arg)
{
	struct io_alone *a = arg;

	if (!a->cfg.ds || ms_io_run(&a->cfg, a->res) || a->res->seconds <= 0)
		return -1;
	return (double)a->res->st.bytes / a->res->seconds;
}

static double realtime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep until CLOCK_REALTIME reaches T (or a stop signal). */
static void sleep_until(double t, volatile sig_atomic_t *stop)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (!*stop && clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME,
					 &ts, NULL) == EINTR)
		;
}

/* The page cache made before the gate, so that every rank's reads start
 * together: warm is read in now and then left as it is; cold is evicted
 * now, and ms_io_run's own eviction finds little left. */
static void io_cache_prepare(struct ms_io_config *cfg,
			     const struct stg_dataset *mine)
{
	uint64_t errors = 0;

	if (cfg->cache == STG_CACHE_WARM) {
		stg_watch_phase(STG_PHASE_WARMING);
		stg_cache_dataset_warm(mine, &errors);
		cfg->cache = MS_IO_CACHE_ASIS;
	} else if (cfg->cache == STG_CACHE_COLD) {
		stg_watch_phase(STG_PHASE_EVICTION);
		stg_cache_dataset_evict(mine, &errors);
	}
}

static const char *io_fail_why(int files_err, bool have_files, int err)
{
	return files_err == -ENODATA ? "no file for this rank (fewer files "
	       "than ranks)" : files_err == -ENOENT ? "the dataset could not "
	       "be listed on this node (this rank's error output says why)" :
	       !have_files ? "its files could not be listed (out of memory)" :
	       err == -ECANCELED ? "rank 0 called the run off before the "
	       "window" : "no word from rank 0 before the window";
}

/* The together window: this rank's reads from the common start into R. */
static void io_together(struct ms_cluster *cl, struct ms_io_config *cfg,
			const struct stg_dataset *mine, int files_err,
			struct ms_io_result *res, struct rpt_cluster_rank *r)
{
	const bool ok = mine != NULL && !*cl->stop;
	double start = 0;
	int err;

	if (ok)
		io_cache_prepare(cfg, mine);
	err = ms_cluster_gate(cl, ok, 2.0, &start);
	memset(res, 0, sizeof(*res));
	ms_cluster_rank_init(cl, r);
	snprintf(r->bottleneck, sizeof(r->bottleneck), "storage");
	if (!err && ok) {
		cfg->ds = mine;
		cfg->stop = cl->stop;
		sleep_until(start, cl->stop);
		r->start_skew_s = realtime_now();       /* the reads' start */
		if (ms_io_run(cfg, res))
			snprintf(r->fail_text, sizeof(r->fail_text), "%.*s",
				 (int)sizeof(r->fail_text) - 1, res->err_text);
	} else {
		snprintf(r->fail_text, sizeof(r->fail_text), "%s",
			 io_fail_why(files_err, mine != NULL, err));
	}
	if (!r->fail_text[0] && res->seconds > 0) {
		r->measured_s = res->seconds;
		r->samples = res->st.files_ok;
		r->errors = res->st.errors;
		r->read_bytes = res->st.bytes;
		r->samples_per_s = (double)res->st.files_ok / res->seconds;
		r->bytes_per_s = (double)res->st.bytes / res->seconds;
	} else {
		r->start_skew_s = 0;
	}
	r->signal = *cl->stop;
}

int ms_cluster_io(struct ms_cluster *cl, struct ms_io_config *cfg,
		  const struct stg_dataset *ds, double solo_s, double *solo,
		  struct ms_io_result *res, struct rpt_cluster_rank *r)
{
	struct stg_dataset *mine = NULL;
	int files_err = ds ? ms_cluster_files(ds, cl->rank, cl->world,
					      &mine) : -ENOENT;

	memset(res, 0, sizeof(*res));
	if (solo) {                     /* every rank: the same steps */
		/* the same reads as together, cache state included */
		struct io_alone alone;

		memset(&alone, 0, sizeof(alone));
		alone.cfg = *cfg;
		alone.cfg.ds = mine;
		alone.cfg.stop = cl->stop;
		alone.cfg.progress = NULL;
		alone.cfg.alone = true;
		if (solo_s > 0)
			alone.cfg.duration_s = solo_s;
		alone.res = res;
		ms_cluster_each_alone(cl, io_alone_fn, &alone,
				      alone.cfg.duration_s, solo);
	}
	io_together(cl, cfg, mine, files_err, res, r);
	cfg->ds = NULL;
	stg_dataset_destroy(mine);
	return r->fail_text[0] ? -EIO : 0;
}
