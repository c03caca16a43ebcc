/*
 * sweep_cluster.c - `feedrate sweep` under mpirun: the ranks taking part
 * (1, 2, 4 ... R, in rank order: one rank per node puts them on as many
 * nodes) x the cache states x each rank's vCPU counts, every point a
 * cluster point (a common window, rank 0 gathers), then rank 0's sweep
 * report of how the total scales.
 *
 * Wiring only: the walk is measure/'s (cluster_sweep.c), the report
 * reports/' (report_cluster_fill.c, report_cluster_out.c).
 *
 * DESIGN: the command's thread runs all of it but on_stalled, which rank
 * 0's stall watchdog calls on its own thread once the command's thread
 * is stuck in the kernel: it reads CTX (set before the walk) and the
 * walk's result under the walk's lock (ms_cluster_sweep_stalled). The
 * command's thread, should it come back, parks at cli_watch_claim
 * before it reads or frees the result.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report_cluster_out.h"
#include "sweep.h"

/* The sweep's state and the machine and storage its report names; the
 * walk's result (rank 0's watchdog reads it, ms_cluster_sweep_stalled). */
struct ctx {
	struct sweep_state *s;
	struct ms_machine m;
	struct ms_cluster_sweep_result r;
};

static struct ctx ctx;                  /* the machine facts are large */

static int on_point_base(void *arg, struct ms_point *p)
{
	struct sweep_state *s = ((struct ctx *)arg)->s;
	const struct ms_point_ask a = { .o = &s->o.c, .w = s->w, .gs = &s->gs,
		.md = &s->md, .stop = &cli_stop };

	return rpt_point("sweep", &a, p, &s->own.ts, s->own.out.pipeline,
			 sizeof(s->own.out.pipeline));
}

/* This rank's record of a measured point, from the point's run report. */
static void on_record(void *arg, const struct ms_point_out *po,
		      const struct ldr_result *res, bool shared,
		      struct rpt_cluster_rank *mine)
{
	const struct sweep_state *s = ((struct ctx *)arg)->s;

	ms_cluster_rank_init(cli_cluster, mine);
	rpt_cluster_rank_from_point(mine, &(struct rpt_setup_src){
		.w = s->w, .gs = &s->gs, .backend = -1, .cache = -1 }, po, res,
		stg_dataset_count(s->md.ds), cli_stop, shared);
}

/* Rank 0: the sweep's report printed and written. */
static int sweep_report(const struct ctx *x,
			const struct ms_cluster_sweep_result *r, int ret)
{
	const struct sweep_state *s = x->s;
	struct rpt_cluster base;

	rpt_cluster_fill(&base, "sweep", &(struct rpt_setup_src){
		.m = &x->m, .md = &s->md, .dataset = s->o.c.dataset,
		.w = s->w, .gs = &s->gs, .backend = -1, .cache = -1 },
		r->window_s);
	return rpt_cluster_sweep_write(&base, r, cli_cluster->world,
				       cli_cluster->nodes, cli_stop,
				       s->own.out.notes,
				       s->o.c.json, s->o.html, ret);
}

/* Rank 0's watchdog, this rank's thread stuck in the kernel in a point:
 * the sweep's report, that point last with its ranks as heard (RES). */
static int on_stalled(void *arg, struct ms_cluster_result *res)
{
	struct ctx *x = arg;
	const int err = ms_cluster_sweep_stalled(&x->r, res);

	return err ? err : sweep_report(x, &x->r, FR_EXIT_ENV);
}

void cli_sweep_cluster_watch(struct sweep_state *s)
{
	ctx.s = s;
	cli_watch_cluster_report(on_stalled, &ctx);
}

int cli_sweep_cluster_run(struct sweep_state *s, bool failed)
{
	struct ms_cluster_sweep_cfg c;
	struct ctx *x = &ctx;
	struct ms_cluster_sweep_result *r = &x->r;
	int ret;

	x->s = s;
	ms_machine_detect(s->o.c.dataset, &x->m);
	ms_cluster_sweep_make(&s->o.c, &s->md, failed, &c);
	c.vcpus = s->o.vcpus.v;
	c.nvcpus = s->vcpus_default ? 0 : s->o.vcpus.n;
	c.cold = s->o.cache[STG_CACHE_COLD];
	c.warm = s->o.cache[STG_CACHE_WARM];
	c.budget_s = s->o.budget_s;
	c.point_base = on_point_base;
	c.record = on_record;
	c.progress = rpt_cluster_sweep_progress;
	c.arg = x;
	ret = ms_cluster_sweep(cli_cluster, &c, r) || r->lost ? FR_EXIT_ENV : 0;
	cli_watch_claim();      /* where the watchdog reports, never back */
	if (cli_cluster->rank == 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (cli_cluster->rank == 0 && r->points)
		ret = sweep_report(x, r, ret);
	ms_cluster_sweep_free(r);
	if (cli_stop)
		return rpt_exit_for_signal(cli_stop);
	return ret;
}
