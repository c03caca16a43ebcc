/*
 * sweep_steps.c - `feedrate sweep`'s steps after its options (cmd_sweep.c):
 * each pipeline of --pipeline on its share of the budget
 * (measure/sweep_walk.c), its points and check runs measured
 * (measure/sweep_cmd.c), its report read and judged
 * (reports/report_sweep_end.c).
 *
 * Wiring only: the options into each pipeline's sweep config.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

void cli_sweep_pipe_free(struct sweep_pipe *p)
{
	ms_sweep_free(&p->run.sw);
	wl_transform_state_release(&p->ts);
	rpt_sweep_out_free(&p->out);
}

/* SP as pipeline I of --pipeline. */
static void sweep_pipe_init(struct sweep_state *s, struct sweep_pipe *sp,
			    unsigned i)
{
	sp->run.pipe = s->o.c.pipes[i];
	sp->out.ask = &s->ask;
	sp->out.probe = s->probe[i];
	ms_pipeline_name(&sp->run.pipe, sp->out.pipe_name,
			 sizeof(sp->out.pipe_name));
}

/* SP's sweep config from the options, on BUDGET_S (OWN: from the
 * listing's start). 0 or an exit code. */
static int sweep_config(struct sweep_state *s, struct sweep_pipe *sp,
			double budget_s, bool own, struct ms_sweep_config *cfg)
{
	const struct sweep_opts *o = &s->o;
	const struct ms_point_ask a = { .o = &o->c, .w = s->w, .gs = &s->gs,
		.md = &s->md, .pipe = &sp->run.pipe, .stop = &cli_stop };

	memset(cfg, 0, sizeof(*cfg));
	memcpy(cfg->vcpus, o->vcpus.v, sizeof(cfg->vcpus));
	cfg->nvcpus = o->vcpus.n;
	memcpy(cfg->cache, o->cache, sizeof(cfg->cache));
	memcpy(cfg->ram_sizes, o->ram_list.v, sizeof(cfg->ram_sizes));
	cfg->nram_sizes = o->ram_list.n;
	cfg->budget_s = budget_s;
	cfg->t0 = stg_now() - (own ? s->md.list_s : 0);
	cfg->no_check = o->no_check;
	/* where vCPUs are SMT siblings the 2-vCPU points give the SMT
	 * yield: the planner keeps them after the 1-vCPU ones */
	cfg->keep_two = s->m.cpu.vcpu_kind == STG_VCPU_THREAD ||
			s->m.cpu.threads_per_core > 1;
	cfg->progress = rpt_sweep_progress;
	cfg->progress_arg = &sp->run.sw;
	return rpt_point("sweep", &a, &cfg->base, &sp->ts, sp->out.pipeline,
			 sizeof(sp->out.pipeline));
}

/* Pipeline I of --pipeline on BUDGET_S: S's own (the first measured),
 * or another in a sweep of its own on the same dataset, judged on its
 * own. 0 or an exit code. */
static int sweep_pipeline(void *arg, unsigned i, double budget_s)
{
	struct sweep_state *s = arg;
	const bool own = i == s->pipe_own;
	struct sweep_pipe *sp = own ? &s->own : NULL;
	struct ms_sweep_config cfg;
	int ret;

	if (!own && s->own.run.sw.stalled)
		return 0;       /* the storage stalled: no other pipeline */
	if (!own) {
		sp = calloc(1, sizeof(*sp));
		if (!sp)
			return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
		sweep_pipe_init(s, sp, i);
		s->subs[s->nsubs++] = sp;
		s->own.out.others[s->own.out.nothers++] = &sp->out.rs;
	}
	ret = sweep_config(s, sp, budget_s, own, &cfg);
	if (ret)
		return ret;
	ret = ms_sweep_run(&sp->run, &cfg, s->gs.demand, s->w->au_threshold,
			   rpt_sweep_tops, &sp->out);
	if (ret != -ETIME && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (ret)
		return rpt_sweep_failed(&sp->run, ret, budget_s);
	if (!own)
		rpt_sweep_judge(&sp->out, &sp->run, budget_s, 0, false, 0);
	return 0;
}

int cli_sweep_run(struct sweep_state *s)
{
	const unsigned n = s->o.c.npipes;
	const struct sweep_opts *o = &s->o;
	unsigned done;
	int ret;

	s->pipe_own = ms_pipeline_first(o->c.pipes, n);
	sweep_pipe_init(s, &s->own, s->pipe_own);
	ms_machine_detect(s->md.root, &s->m);
	s->ask = (struct rpt_sweep_ask){
		.m = &s->m, .md = &s->md, .w = s->w, .gs = &s->gs,
		.seed = o->c.seed, .workers = o->c.workers,
		.batch = o->c.batch, .reserve_vcpus = o->reserve_vcpus,
		.reserve_ram = o->reserve_ram_given ? &o->reserve_ram : NULL,
		.ckpt = o->ckpt ? &s->ckpt : NULL, .usd_per_hour = o->price,
		.ram = o->cache[STG_CACHE_RAM], .json = o->c.json,
		.csv = o->csv, .html = o->html };
	ret = ms_sweep_pipelines(n, s->pipe_own, o->budget_s, &cli_stop,
				 sweep_pipeline, s, &done);
	rpt_sweep_note_pipelines(&s->own.out, n, o->budget_s, !ret &&
				 cli_stop && s->nsubs + 1 < n);
	return ret;
}
