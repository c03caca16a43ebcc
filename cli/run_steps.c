/*
 * run_steps.c - `feedrate run`'s steps after its options (cmd_run.c): the
 * point the options ask for, measured on one node or as one rank under
 * mpirun (measure/cluster_run.c), its report filled, printed and written.
 *
 * Wiring only: the protocol is measure/'s, the words reports/'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli_cluster.h"
#include "measure.h"
#include "report.h"
#include "run.h"

/* The report's setup and listing. */
void cli_run_fill_dataset(struct run_state *s, struct rpt_run *rr)
{
	const struct cli_common_opts *c = &s->o.c;

	ms_machine_detect(s->md.root, &s->m);
	rpt_setup_fill(&rr->setup, &(struct rpt_setup_src){
		.m = &s->m, .md = &s->md, .w = s->w, .gs = &s->gs,
		.list = c->list, .keep = c->keep, .backend = c->backend,
		.depth = c->depth, .cache = s->o.cache, .ram_bytes = s->o.ram,
		.gpu_sync_all = c->sync == LDR_GPU_SYNC_ALL,
		.max_errors = c->max_errors, .seed = c->seed });
	rpt_run_fill_listing(rr, &s->md);
}

int cli_run_write(struct run_state *s, struct rpt_run *rr)
{
	FILE *out = rpt_text_out(&s->o.c.json, 1);
	int ret = FR_EXIT_OK;

	rr->notes = s->notes;
	rpt_run_print(out, rr);
	fflush(out);
	if (s->o.c.json) {
		json_t *root = rpt_run_json(rr);

		ret = rpt_write_report("run", s->o.c.json, root, NULL, "JSON");
		json_decref(root);
	}
	return ret;
}

/* The point the options ask for. 0 or an exit code. */
static int run_point(struct run_state *s, struct ms_point *p)
{
	const struct run_opts *o = &s->o;
	int ret = cli_point_base("run", &o->c, s->w, &s->gs, &s->md, p,
				 &s->ts, s->pipeline, sizeof(s->pipeline));

	p->cache = o->cache;
	p->vcpus = o->vcpus;
	p->workers = o->c.workers;
	p->pipe = o->c.pipes[0];
	p->pipe.python = o->c.python;
	p->pipe.workers = o->c.workers;
	p->pipe.timeout_s = o->c.runner_timeout;
	p->pipe.list = o->c.list;
	if (!ret)
		ret = cli_gpu_decode_point("run", &o->c, s->w, &s->md, p,
					   &s->ts, s->pipeline,
					   sizeof(s->pipeline));
	p->warmup_s = o->warmup;
	p->duration_s = o->duration >= 0 ? o->duration :
			o->epochs || o->samples || o->cache == STG_CACHE_RAM ?
			0 : LDR_DEFAULT_DURATION_S;
	p->epochs = o->epochs;
	p->samples = o->samples;
	p->ram_bytes = o->cache == STG_CACHE_RAM ? o->ram : 0;
	return ret;
}

/* The report's page-cache and result fields from the point's. */
static void run_fill_result(struct run_state *s, struct rpt_run *rr)
{
	rpt_run_fill_result(rr, &s->po, s->res, s->o.cache == STG_CACHE_RAM,
			    &s->md, cli_stop, s->cache_how,
			    sizeof(s->cache_how), s->notes, sizeof(s->notes));
}

/* A Python pipeline's fields of the report: its words, versions (the
 * run's, else the probe's), workers and processes. */
static void run_fill_python(struct run_state *s, const struct ms_point *p,
			    struct rpt_run *rr)
{
	const struct ms_python_info *py = s->po.py.python[0] ? &s->po.py :
					  &s->probe;

	if (!s->po.py.python[0]) {
		/* the run failed before its hello: keep what it saw */
		const struct ms_python_info run = s->po.py;

		s->po.py = s->probe;
		s->po.py.fail = run.fail;
		memcpy(s->po.py.tail, run.tail, sizeof(run.tail));
		memcpy(s->po.py.module, run.module, sizeof(run.module));
		py = &s->po.py;
	}
	rr->py = py;
	rr->setup.pipeline = rpt_pipeline_text(&p->pipe, py, s->pipeline,
		py->workers ? py->workers : s->res->workers, s->pipe_text,
		sizeof(s->pipe_text));
}

/* A Python pipeline that failed: its report (the traceback's last lines
 * in it) and exit 1, or 5 when a module is missing. */
static int run_python_failed(struct run_state *s, struct rpt_run *rr)
{
	rr->run_error = s->po.err ? s->po.err : -ECHILD;
	rr->run_error_text = s->po.err_text;
	rr->res = NULL;
	cli_run_write(s, rr);
	{
		/* one line: the first of the words and the exception */
		const char *t = s->po.err_text;
		const char *nl = strchr(t, '\n');
		const char *last = strrchr(t, '\n');

		fprintf(stderr, "feedrate run: --pipeline ");
		rpt_put_path(stderr, rr->pipeline_name);
		fprintf(stderr, ": %.*s%s%s%s\n", nl ? (int)(nl - t) :
			(int)strlen(t), t, last ? " " : "", last ? last + 1 :
			"", last ? " (its traceback is in the report)" : "");
	}
	return s->po.py.fail == MS_PYTHON_MISSING_MODULE ||
	       s->po.py.fail == MS_PYTHON_NO_INTERPRETER ? FR_EXIT_ENV :
	       FR_EXIT_FAILURE;
}

/* The transform, the point, the measurement. 0 or an exit code. */
int cli_run_measure(struct run_state *s, struct rpt_run *rr)
{
	struct ms_point p;
	int err = run_point(s, &p);

	if (err)
		return err;
	rr->setup.pipeline = s->pipeline;
	rr->pipeline_name = ms_pipeline_name(&p.pipe, s->pipe_name,
					     sizeof(s->pipe_name));
	if (s->m.fs.page_cache_volatile && s->o.cache != STG_CACHE_WARM)
		note_add(s, "the dataset is on a memory-backed filesystem: it "
			 "cannot be cold");
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "feedrate run: measuring (%s)...\n",
			p.epochs || p.cache == STG_CACHE_RAM ? "epochs" :
			"duration");
	err = ms_point_run(&p, s->res, &s->po);
	run_fill_result(s, rr);
	if (ms_pipeline_is_python(&p.pipe))
		run_fill_python(s, &p, rr);
	if (p.pipe.kind == MS_PIPELINE_GPU_DECODE)
		rpt_gpu_decode_fill(&rr->gd, s->gs.type, p.pipe.gpudec ==
				    MS_GPUDEC_HYBRID ? "hybrid" : "hw");
	if (err == -ETIMEDOUT && s->po.rep.stalled) {
		/* the child was killed: its running totals stand in */
		s->stall = s->po.rep.stall;
		rpt_run_fill_stalled(rr, &s->stall, s->res->window_partial ?
				     s->res : NULL, s->po.rep.held_pid,
				     s->stall_text, sizeof(s->stall_text),
				     s->notes, sizeof(s->notes));
		return 0;
	}
	if (s->po.measured)
		return 0;
	if (ms_pipeline_is_python(&p.pipe) && s->po.py.fail &&
	    !rr->signal && err != -EINTR)
		return run_python_failed(s, rr);
	if (err == -EINTR || rr->signal) {
		/* still a report: what was prepared, and that it stopped */
		fprintf(stderr, "feedrate run: interrupted; nothing was "
			"measured\n");
		rr->signal = rr->signal ? rr->signal : cli_stop ? cli_stop :
			     SIGINT;
		rr->res = NULL;
		rr->run_error = -EINTR;
		rr->run_error_text = "interrupted before the window gave "
				     "numbers";
		return 0;
	}
	/* the run never started: say why */
	fprintf(stderr, "feedrate run: the measurement could not start: %s\n",
		s->po.err_text[0] ? s->po.err_text : "?");
	if (s->o.c.backend == STG_BACKEND_URING) {
		char why[400];

		stg_uring_probe(why, sizeof(why));
		fprintf(stderr, "  %s\n", why);
	}
	return FR_EXIT_ENV;
}

/* ---- under mpirun ---- */

/*
 * This rank's point on its share of the dataset and CPUs, its window
 * started with every other rank's (measure/cluster_run.c); then rank 0's
 * cluster report.
 */
int cli_run_cluster(struct run_state *s, struct rpt_run *rr,
			int opened)
{
	struct ms_cluster_run_cfg c = { 0 };
	struct cli_cluster_run run;
	struct rpt_cluster_rank mine;
	struct ms_point p;
	double *solo = NULL;
	bool shared = false;
	int err = opened;

	memset(&p, 0, sizeof(p));
	if (!err) {
		cli_run_fill_dataset(s, rr);
		err = run_point(s, &p);
	}
	memset(&run, 0, sizeof(run));
	if (s->o.cache == STG_CACHE_COLD && s->o.solo != 0)
		solo = calloc(cli_cluster->world, sizeof(*solo));
	c.p = &p;
	c.failed = err != 0;
	c.fail_text = opened ? "the dataset could not be opened on this node "
		      "(this rank's error output says why)" : "its point "
		      "could not be set up (this rank's error output says why)";
	c.margin_s = (s->o.warmup > 0 ? s->o.warmup : s->o.warmup < 0 ? 0 :
		      LDR_DEFAULT_WARMUP_S) + 3.0;
	c.ds = s->md.ds;
	c.rc.backend = s->o.c.backend;
	c.rc.depth = s->o.c.depth;
	c.readers = s->o.c.readers;
	c.solo_s = s->o.solo > 0 ? s->o.solo : CLI_RUN_SOLO_S;
	c.say = cli_cluster_say;
	c.say_arg = "run";
	rr->setup.pipeline = s->pipeline;
	rr->pipeline_name = "native";
	if (!ms_cluster_run(cli_cluster, &c, s->res, &s->po, solo, &shared))
		run_fill_result(s, rr);
	rr->notes = s->notes;
	ms_cluster_rank_init(cli_cluster, &mine);
	rpt_cluster_rank_fill(&mine, rr, s->res, &s->po, shared);
	run.json = s->o.c.json;
	run.html = s->o.html;
	run.check.solo = solo;
	run.check.window_s = s->o.duration >= 0 ?
		s->o.duration : s->o.epochs || s->o.samples ? 0 :
		LDR_DEFAULT_DURATION_S;
	if (cli_cluster->rank == 0)
		rpt_cluster_from_run(&run.report, rr, s->o.c.dataset,
				     s->m.fs.server, run.check.window_s,
				     cli_stop, s->notes);
	if (!opened) {
		run.check.samples_per_epoch = s->md.shards ?
			s->md.shards->ldr.total : stg_dataset_count(s->md.ds);
		run.check.shards = s->md.shards != NULL;
	}
	run.check.seed = s->o.c.seed;
	err = cli_cluster_report("run", &run, &mine);
	free(solo);
	if (cli_stop)
		return rpt_exit_for_signal(cli_stop);
	return err;
}
