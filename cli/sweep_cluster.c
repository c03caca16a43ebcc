/*
 * sweep_cluster.c - `feedrate sweep` under mpirun: the ranks taking part
 * (1, 2, 4 ... R, in rank order: one rank per node puts them on as many
 * nodes) x the cache states x each rank's vCPU counts, every point a
 * cluster point (a common window, rank 0 gathers), then rank 0's sweep
 * report of how the total scales.
 *
 * Wiring only: the walk is measure/'s (cluster_sweep.c), the report
 * reports/' (report_cluster_fill.c, report_cluster_sweep.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cli_cluster.h"
#include "cluster.h"
#include "report_cluster.h"
#include "sweep.h"

static void point_fill(const struct cli_sweep_cluster *sc,
		       struct rpt_cluster *c, const char *cache, double window)
{
	memset(c, 0, sizeof(*c));
	c->command = "sweep";
	c->workload = sc->w->name;
	c->dataset = sc->dataset;
	c->format = sc->format;
	c->fs_type = sc->fs_type;
	c->fs_server = sc->fs_server;
	c->cache = cache;
	c->files = sc->md->ds ? stg_dataset_count(sc->md->ds) : 0;
	c->bytes = sc->md->ds ? stg_dataset_total_bytes(sc->md->ds) : 0;
	c->records = sc->records;
	c->window_s = window;
	c->gpu_type = sc->gs->count ? sc->gs->type : NULL;
	c->gpus_per_rank = sc->gs->count;
	c->demand_per_gpu = sc->gs->demand;
	c->au_threshold = sc->w->au_threshold;
	c->demand_kind = sc->gs->demand_kind;
	c->demand_basis = sc->gs->demand_basis;
	c->demand_source = sc->gs->demand_source;
	c->bytes_per_sample = rpt_bytes_per_sample(c->bytes, c->records);
	c->notes = "";
}

static int on_point_base(void *arg, struct ms_point *p)
{
	const struct cli_sweep_cluster *sc = arg;

	return cli_point_base("sweep", sc->o, sc->w, sc->gs, sc->md, p, sc->ts,
			      sc->pipeline, sc->pipeline_len);
}

/* This rank's record of a measured point, from the point's run report. */
static void on_record(void *arg, const struct ms_point_out *po,
		      const struct ldr_result *res, bool shared,
		      struct rpt_cluster_rank *mine)
{
	const struct cli_sweep_cluster *sc = arg;
	struct rpt_run rr;
	char how[1024];

	memset(&rr, 0, sizeof(rr));
	rr.cpu_outside_mask_s = -1;
	rr.fraction_resident = -1;
	rr.hit_ratio = -1;
	rpt_run_fill_gpus(&rr, sc->gs);
	rr.au_threshold = sc->w->au_threshold;
	rpt_run_fill_point(&rr, po, res, false, stg_dataset_count(sc->md->ds),
			   how, sizeof(how));
	rr.signal = po->rep.signal ? po->rep.signal : cli_stop;
	ms_cluster_rank_init(cli_cluster, mine);
	rpt_cluster_rank_fill(mine, &rr, res, po, shared);
}

static void on_progress(void *arg, enum stg_cache_state cache,
			unsigned vcpus, unsigned n)
{
	(void)arg;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[Kfeedrate sweep: %s, %u vCPU%s a rank, "
			"%u rank%s...", stg_cache_state_name(cache), vcpus,
			vcpus == 1 ? "" : "s", n, n == 1 ? "" : "s");
}

/* Rank 0: the sweep's report printed and written. */
static int sweep_report(const struct cli_sweep_cluster *sc,
			const struct ms_cluster_sweep_result *r, int ret)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster base;
	const char *outs[2] = { sc->o->json, sc->html };
	FILE *out;

	point_fill(sc, &base, "", r->window_s);
	if (rpt_cluster_sweep_fill(&s, &base, cli_cluster->world,
				   cli_cluster->nodes, r))
		return cli_fail("sweep", -ENOMEM, 0, "out of memory");
	s.signal = cli_stop;
	s.notes = sc->notes;
	out = cli_text_out(outs, 2);
	rpt_cluster_sweep_print(out, &s);
	fflush(out);
	if (sc->o->json) {
		json_t *root = rpt_cluster_sweep_json(&s);
		int e = root ? cli_write_report("sweep", sc->o->json, root,
						NULL, "JSON") : FR_EXIT_ENV;

		json_decref(root);
		ret = e ? e : ret;
	}
	if (sc->html) {
		int e = cli_write_report("sweep", sc->html, NULL,
					 rpt_cluster_sweep_html(&s), "HTML");

		ret = e ? e : ret;
	}
	free((void *)s.points);
	return ret;
}

int cli_sweep_cluster(const struct cli_sweep_cluster *sc)
{
	struct ms_cluster_sweep_cfg c;
	struct ms_cluster_sweep_result r;
	int ret;

	memset(&c, 0, sizeof(c));
	c.vcpus = sc->vcpus;
	c.nvcpus = sc->nvcpus;
	c.cold = sc->cache[STG_CACHE_COLD];
	c.warm = sc->cache[STG_CACHE_WARM];
	c.budget_s = sc->budget_s;
	c.ds = sc->md->ds;
	c.rc.backend = sc->o->backend;
	c.rc.depth = sc->o->depth;
	c.readers = sc->o->readers;
	c.samples_per_epoch = sc->records;
	c.seed = sc->o->seed;
	c.shards = sc->md->shards != NULL;
	c.failed = sc->failed;
	c.point_base = on_point_base;
	c.record = on_record;
	c.progress = on_progress;
	c.arg = (void *)sc;
	ret = ms_cluster_sweep(cli_cluster, &c, &r) ? FR_EXIT_ENV :
	      r.lost ? FR_EXIT_ENV : 0;
	if (cli_cluster->rank == 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (cli_cluster->rank == 0 && r.points)
		ret = sweep_report(sc, &r, ret);
	ms_cluster_sweep_free(&r);
	if (cli_stop)
		return cli_exit_for_signal(cli_stop);
	return ret;
}

int cli_sweep_cluster_run(struct sweep_state *s, bool failed)
{
	struct cli_sweep_cluster sc;
	struct stg_fs_info fs;
	const char *fs_type = "";
	char dev[STG_TEXT_MAX + 80];

	ms_fs_describe(s->o.c.dataset, &fs, &fs_type, dev, sizeof(dev));
	memset(&sc, 0, sizeof(sc));
	sc.o = &s->o.c;
	sc.w = s->w;
	sc.gs = &s->gs;
	sc.md = &s->md;
	sc.ts = &s->ts;
	sc.pipeline = s->pipeline;
	sc.pipeline_len = sizeof(s->pipeline);
	sc.vcpus = s->o.vcpus.v;
	sc.nvcpus = s->vcpus_default ? 0 : s->o.vcpus.n;
	sc.cache = s->o.cache;
	sc.budget_s = s->o.budget_s;
	sc.html = s->o.html;
	sc.dataset = s->o.c.dataset;
	sc.failed = failed;
	sc.format = wl_format_name(s->md.format);
	sc.fs_type = fs_type;
	sc.fs_server = fs.server;
	sc.records = s->md.shards ? s->md.shards->ldr.total :
		     s->md.ds ? stg_dataset_count(s->md.ds) : 0;
	sc.notes = s->notes;
	return cli_sweep_cluster(&sc);
}
