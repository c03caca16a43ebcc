/*
 * report_run_end.c - `run`'s report after its point: the end worded,
 * printed, written, and the exit status (report_run_end.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "report_cluster_out.h"
#include "report_run_end.h"
#include "rpt_cmd.h"
#include "rpt_text.h"

void rpt_run_fill_start(struct rpt_run *rr, struct rpt_run_out *o,
			const struct ms_run *r, bool volatile_fs)
{
	rr->setup.pipeline = o->pipeline;
	rr->pipeline_name = ms_pipeline_name(&r->p.pipe, o->pipe_name,
					     sizeof(o->pipe_name));
	if (volatile_fs && r->p.cache != STG_CACHE_WARM)
		rpt_run_note(o, "the dataset is on a memory-backed filesystem: "
			     "it cannot be cold");
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "feedrate run: measuring (%s)...\n",
			r->p.epochs || r->p.cache == STG_CACHE_RAM ? "epochs" :
			"duration");
}

int rpt_run_write(struct rpt_run *rr, struct rpt_run_out *o)
{
	FILE *out = rpt_text_out(&o->json, 1);
	int ret = FR_EXIT_OK;

	rr->notes = o->notes;
	rpt_run_print(out, rr);
	fflush(out);
	if (o->json) {
		json_t *root = rpt_run_json(rr);

		ret = rpt_write_report("run", o->json, root, NULL, "JSON");
		json_decref(root);
	}
	return ret;
}

/* A Python pipeline's fields of the report: its words, versions (the
 * run's, else the probe's), workers and processes. */
static void fill_python(struct rpt_run *rr, struct rpt_run_out *o,
			struct ms_run *r)
{
	const struct ms_python_info *py = r->po.py.python[0] ? &r->po.py :
					  &r->probe;

	if (!r->po.py.python[0]) {
		/* the run failed before its hello: keep what it saw */
		const struct ms_python_info run = r->po.py;

		r->po.py = r->probe;
		r->po.py.fail = run.fail;
		memcpy(r->po.py.tail, run.tail, sizeof(run.tail));
		memcpy(r->po.py.module, run.module, sizeof(run.module));
		py = &r->po.py;
	}
	rr->py = py;
	rr->setup.pipeline = rpt_pipeline_text(&r->p.pipe, py, o->pipeline,
		py->workers ? py->workers : r->res->workers, o->pipe_text,
		sizeof(o->pipe_text));
}

/* A Python pipeline that failed: its report (the traceback's last lines
 * in it) and exit 1, or 5 when a module is missing. */
static int python_failed(struct rpt_run *rr, struct rpt_run_out *o,
			 const struct ms_run *r)
{
	/* one line: the first of the words and the exception */
	const char *t = r->po.err_text;
	const char *nl = strchr(t, '\n');
	const char *last = strrchr(t, '\n');

	rr->run_error = r->po.err ? r->po.err : -ECHILD;
	rr->run_error_text = r->po.err_text;
	rr->res = NULL;
	rpt_run_write(rr, o);
	fprintf(stderr, "feedrate run: --pipeline ");
	rpt_put_path(stderr, rr->pipeline_name);
	fprintf(stderr, ": %.*s%s%s%s\n", nl ? (int)(nl - t) : (int)strlen(t),
		t, last ? " " : "", last ? last + 1 : "", last ?
		" (its traceback is in the report)" : "");
	return r->po.py.fail == MS_PYTHON_MISSING_MODULE ||
	       r->po.py.fail == MS_PYTHON_NO_INTERPRETER ? FR_EXIT_ENV :
	       FR_EXIT_FAILURE;
}

int rpt_run_fill_end(struct rpt_run *rr, struct rpt_run_out *o,
		     struct ms_run *r, const char *gpu_type, bool ram,
		     const struct ms_dataset *md, int stop)
{
	rpt_run_fill_result(rr, &r->po, r->res, ram, md, stop, o->cache_how,
			    sizeof(o->cache_how), o->notes, sizeof(o->notes));
	if (ms_pipeline_is_python(&r->p.pipe))
		fill_python(rr, o, r);
	if (r->p.pipe.kind == MS_PIPELINE_GPU_DECODE)
		rpt_gpu_decode_fill(&rr->gd, gpu_type, r->p.pipe.gpudec ==
				    MS_GPUDEC_HYBRID ? "hybrid" : "hw");
	switch (r->end) {
	case MS_RUN_STALLED:
		/* the child was killed: its running totals stand in */
		o->stall = r->po.rep.stall;
		rpt_run_fill_stalled(rr, &o->stall, r->res->window_partial ?
				     r->res : NULL, r->po.rep.held_pid,
				     o->stall_text, sizeof(o->stall_text),
				     o->notes, sizeof(o->notes));
		return 0;
	case MS_RUN_MEASURED:
		/* its result came whole, its exit hangs: said once, in
		 * ldr_child_run's words */
		if (r->po.rep.held_pid)
			rpt_run_note(o, "%s", r->po.rep.why);
		return 0;
	case MS_RUN_PYTHON_FAILED:
		return python_failed(rr, o, r);
	case MS_RUN_INTERRUPTED:
		rr->signal = rr->signal ? rr->signal : stop ? stop : SIGINT;
		if (r->res->window_partial) {
			/* killed for answering the signal late (a loaded
			 * machine): its running totals until then stand in,
			 * partial, as a stalled child's do; its error says
			 * how it ended */
			fprintf(stderr, "feedrate run: interrupted; the "
				"measurement child was killed, its running "
				"totals are given, partial\n");
			rr->res = r->res;
			return 0;
		}
		/* still a report: what was prepared, and that it stopped */
		fprintf(stderr, "feedrate run: interrupted; nothing was "
			"measured\n");
		rr->res = NULL;
		rr->run_error = -EINTR;
		rr->run_error_text = "interrupted before the window gave "
				     "numbers";
		return 0;
	case MS_RUN_NOT_STARTED:
		break;
	}
	/* the run never started: say why */
	fprintf(stderr, "feedrate run: the measurement could not start: %s\n",
		r->po.err_text[0] ? r->po.err_text : "?");
	if (r->uring_why[0])
		fprintf(stderr, "  %s\n", r->uring_why);
	return FR_EXIT_ENV;
}

int rpt_run_exit(struct rpt_run *rr, struct rpt_run_out *o,
		 const struct ldr_result *res, uint64_t max_errors)
{
	const int ret = rpt_run_write(rr, o);

	/* a signal's code first; then an environment failure (the JSON
	 * report not written) over --max-errors and sample errors */
	if (rr->signal)
		return rpt_exit_for_signal(rr->signal);
	if (rr->stall)
		return rpt_stall_exit("run", rr->stall);
	if (res->stopped_by_max_errors) {
		fprintf(stderr, "feedrate run: stopped after %llu failed "
			"sample%s (--max-errors %llu); see the errors in the "
			"report\n", (unsigned long long)res->errors,
			res->errors == 1 ? "" : "s",
			(unsigned long long)max_errors);
		return ret == FR_EXIT_ENV ? ret : FR_EXIT_MAX_ERRORS;
	}
	if (rr->run_error) {
		fprintf(stderr, "feedrate run: the run failed: %s\n",
			rr->run_error_text);
		return FR_EXIT_ENV;
	}
	/* files the listing dropped count as errors of the run */
	if (ret == FR_EXIT_OK && (res->errors || rr->listing_errors))
		return FR_EXIT_SAMPLE_ERRORS;
	return ret;
}

int rpt_run_cluster(struct ms_cluster *cl, const struct rpt_run_cluster *a,
		    struct ms_run *r, struct rpt_run *rr,
		    struct rpt_run_out *o)
{
	struct rpt_cluster_run run = { .json = o->json, .html = a->html };
	struct ms_cluster_run_ask ask = a->ask;
	struct ms_cluster_run_cfg c;
	struct rpt_cluster_rank mine;
	double *solo = NULL;
	bool shared = false;
	int err;

	if (a->cache == STG_CACHE_COLD && ask.solo_s != 0)
		ask.solo = solo = calloc(cl->world, sizeof(*solo));
	ms_cluster_run_make(&ask, &c, &run.check);
	c.say = rpt_cluster_say;
	c.say_arg = "run";
	rr->setup.pipeline = o->pipeline;
	rr->pipeline_name = "native";
	if (!ms_cluster_run(cl, &c, r->res, &r->po, solo, &shared))
		rpt_run_fill_result(rr, &r->po, r->res, false, ask.md,
				    *a->stop, o->cache_how,
				    sizeof(o->cache_how), o->notes,
				    sizeof(o->notes));
	rr->notes = o->notes;
	ms_cluster_rank_init(cl, &mine);
	rpt_cluster_rank_fill(&mine, rr, r->res, &r->po, shared);
	if (cl->rank == 0)
		rpt_cluster_from_run(&run.report, rr, a->dataset, a->server,
				     run.check.window_s, *a->stop, o->notes);
	err = rpt_cluster_report(cl, "run", &run, &mine);
	free(solo);
	return *a->stop ? rpt_exit_for_signal(*a->stop) : err;
}
