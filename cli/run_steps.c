/*
 * run_steps.c - `feedrate run`'s steps after its options (cmd_run.c): the
 * point the options ask for, measured on one node (measure/measure_run.c)
 * or as one rank under mpirun (measure/cluster_run.c), and handed to its
 * report (reports/report_run_end.c).
 *
 * Wiring only: the protocol is measure/'s, the words reports/'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_cluster_out.h"
#include "run.h"

/* The report's setup and listing. */
void cli_run_fill_dataset(struct run_state *s, struct rpt_run *rr)
{
	const struct ms_common_opts *c = &s->o.c;

	ms_machine_detect(s->md.root, &s->m);
	rpt_setup_fill(&rr->setup, &(struct rpt_setup_src){
		.m = &s->m, .md = &s->md, .w = s->w, .gs = &s->gs,
		.list = c->list, .keep = c->keep, .backend = c->backend,
		.depth = c->depth, .cache = s->o.cache, .ram_bytes = s->o.ram,
		.gpu_sync_all = c->sync == LDR_GPU_SYNC_ALL,
		.max_errors = c->max_errors, .seed = c->seed });
	rpt_run_fill_listing(rr, &s->md);
}

/* The window the options ask for: --duration, else none for epochs,
 * samples or a --ram point, else the default. */
static double run_window(const struct run_opts *o)
{
	return o->duration >= 0 ? o->duration : o->epochs || o->samples ||
	       o->cache == STG_CACHE_RAM ? 0 : LDR_DEFAULT_DURATION_S;
}

/* The point the options ask for. 0 or an exit code. */
static int run_point(struct run_state *s, struct ms_point *p)
{
	const struct run_opts *o = &s->o;
	const struct ms_point_ask a = { .o = &o->c, .w = s->w, .gs = &s->gs,
		.md = &s->md, .pipe = &o->c.pipes[0], .stop = &cli_stop };
	int ret = rpt_point("run", &a, p, &s->ts, s->out.pipeline,
			    sizeof(s->out.pipeline));

	p->cache = o->cache;
	p->vcpus = o->vcpus;
	p->workers = o->c.workers;
	p->warmup_s = o->warmup;
	p->duration_s = run_window(o);
	p->epochs = o->epochs;
	p->samples = o->samples;
	p->ram_bytes = o->cache == STG_CACHE_RAM ? o->ram : 0;
	return ret;
}

int cli_run_measure(struct run_state *s, struct rpt_run *rr)
{
	int err = run_point(s, &s->r.p);

	if (err)
		return err;
	rpt_run_fill_start(rr, &s->out, &s->r, s->m.fs.page_cache_volatile);
	ms_run(&s->r, &cli_stop);
	return rpt_run_fill_end(rr, &s->out, &s->r, s->gs.type,
				s->o.cache == STG_CACHE_RAM, &s->md, cli_stop);
}

/* ---- under mpirun ---- */

/*
 * This rank's point on its share of the dataset and CPUs, its window
 * started with every other rank's (measure/cluster_run.c); then rank 0's
 * cluster report.
 */
int cli_run_cluster(struct run_state *s, struct rpt_run *rr, int opened)
{
	struct ms_cluster_run_cfg c;
	struct rpt_cluster_run run = { .json = s->o.c.json,
				       .html = s->o.html };
	struct rpt_cluster_rank mine;
	double *solo = NULL;
	bool shared = false;
	int err = opened;

	if (!err) {
		cli_run_fill_dataset(s, rr);
		err = run_point(s, &s->r.p);
	}
	if (s->o.cache == STG_CACHE_COLD && s->o.solo != 0)
		solo = calloc(cli_cluster->world, sizeof(*solo));
	ms_cluster_run_make(&(struct ms_cluster_run_ask){ .o = &s->o.c,
		.p = &s->r.p, .md = &s->md, .open_failed = opened != 0,
		.point_failed = err != 0, .warmup_s = s->o.warmup,
		.solo_s = s->o.solo, .solo = solo,
		/* no --ram under mpirun */
		.window_s = run_window(&s->o) }, &c, &run.check);
	c.say = rpt_cluster_say;
	c.say_arg = "run";
	rr->setup.pipeline = s->out.pipeline;
	rr->pipeline_name = "native";
	if (!ms_cluster_run(cli_cluster, &c, s->r.res, &s->r.po, solo,
			    &shared))
		rpt_run_fill_result(rr, &s->r.po, s->r.res, false, &s->md,
				    cli_stop, s->out.cache_how,
				    sizeof(s->out.cache_how), s->out.notes,
				    sizeof(s->out.notes));
	rr->notes = s->out.notes;
	ms_cluster_rank_init(cli_cluster, &mine);
	rpt_cluster_rank_fill(&mine, rr, s->r.res, &s->r.po, shared);
	if (cli_cluster->rank == 0)
		rpt_cluster_from_run(&run.report, rr, s->o.c.dataset,
				     s->m.fs.server, run.check.window_s,
				     cli_stop, s->out.notes);
	err = rpt_cluster_report(cli_cluster, "run", &run, &mine);
	free(solo);
	return cli_stop ? rpt_exit_for_signal(cli_stop) : err;
}
