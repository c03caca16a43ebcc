/*
 * report_sweep_end.c - `sweep`'s report on one node: read, filled,
 * judged, printed, written (report_sweep_end.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "report_sweep_end.h"
#include "rpt_cmd.h"
#include "rpt_text.h"

int rpt_sweep_ckpt_load(const char *path, const char *const *outs, size_t n,
			struct rpt_ckpt_brief *out)
{
	char why[768];
	int err;

	for (size_t k = 0; k < n; k++)
		if (outs[k] && rpt_out_path_same(outs[k], path))
			return rpt_usage("sweep", "a report would overwrite "
					 "the --ckpt report");
	err = rpt_ckpt_brief_load(path, out, why, sizeof(why));
	if (!err)
		return 0;
	fprintf(stderr, err == -EINVAL ? "feedrate sweep: --ckpt " :
		"feedrate sweep: cannot read --ckpt ");
	rpt_put_path(stderr, path);
	fprintf(stderr, ": %s\n", why);
	return err == -EINVAL ? FR_EXIT_USAGE : FR_EXIT_ENV;
}

void rpt_sweep_out_free(struct rpt_sweep_out *o)
{
	if (!o)
		return;
	free(o->rpts);
	free(o->how);
	o->rpts = NULL;
	o->how = NULL;
}

void rpt_sweep_progress(void *arg, const char *what)
{
	const struct ms_sweep *sw = arg;
	const double used = stg_now() - sw->cfg.t0;
	const double eta = sw->cfg.budget_s - used;

	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[Kfeedrate sweep: %s (%.0f s used, <= %.0f s "
		"left)", what, used, eta > 0 ? eta : 0);
	fflush(stderr);
}

int rpt_sweep_tops(void *arg, const struct ms_sweep *sw,
		   unsigned vcpus[STG_CACHE_STATES],
		   double sps[STG_CACHE_STATES])
{
	struct rpt_sweep_out *o = arg;
	const struct rpt_sweep_ask *a = o->ask;

	o->rpts = calloc(sw->npts ? sw->npts : 1, sizeof(*o->rpts));
	o->how = calloc(sw->npts ? sw->npts : 1, sizeof(*o->how));
	if (!o->rpts || !o->how)
		return -ENOMEM;
	rpt_sweep_fill_points(&o->rs, o->rpts, o->how, sw,
			      a->gs->demand * a->gs->count,
			      stg_dataset_count(a->md->ds));
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const int top = rpt_verdict_top(o->rpts, sw->npts,
						(enum stg_cache_state)c);

		vcpus[c] = top < 0 ? 0 : o->rpts[top].vcpus;
		sps[c] = top < 0 ? 0 : o->rpts[top].samples_per_s;
	}
	return 0;
}

int rpt_sweep_failed(const struct ms_sweep_run *r, int err, double budget_s)
{
	const char *why = "";

	if (err != -ETIME)
		return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
	/* what the points with every vCPU would need */
	for (size_t i = 0; i < r->sw.npts && !why[0]; i++)
		if (r->sw.pts[i].vcpus == r->sw.top_vcpus)
			why = r->sw.pts[i].why;
	fprintf(stderr, "feedrate sweep: the budget of %.0f s leaves no time "
		"for a point after listing and eviction (%.1f s); a point "
		"needs at least %.0f s%s%s\n", budget_s, r->sw.setup_s,
		MS_MIN_POINT_S, why[0] ? ": " : "", why);
	return FR_EXIT_USAGE;
}

/* The check runs at each state's top point into the confirm rows. */
static void fill_checks(struct rpt_sweep *rs, const struct ms_sweep_run *r)
{
	for (int c = 0; c < STG_CACHE_STATES; c++)
		for (size_t k = 0; k < r->nchecks[c]; k++)
			rs->confirm[c][k] = (struct rpt_confirm){
				.run = r->checks[c][k].run,
				.gpus = r->check_gpus[c][k],
				.au = r->checks[c][k].au,
				.why = r->checks[c][k].why,
				.vcpus = r->check_vcpus[c] };
}

/* The report's setup, machine, catalogue and LRU estimates. */
static void fill_report(struct rpt_sweep_out *o, const struct ms_sweep_run *r,
			double budget_s)
{
	const struct rpt_sweep_ask *a = o->ask;
	const bool py = ms_pipeline_is_python(&r->pipe);
	const uint64_t ram = r->sw.cfg.ram_bytes;
	struct rpt_sweep *s = &o->rs;

	rpt_pipeline_text(&r->pipe, &o->probe, o->pipeline, a->workers,
			  o->pipe_text, sizeof(o->pipe_text));
	rpt_sweep_fill_setup(s, &(struct rpt_setup_src){
		.version = FEEDRATE_VERSION, .m = a->m, .md = a->md,
		.w = a->w, .gs = a->gs, .backend = -1, .cache = -1,
		.seed = a->seed, .pipeline = py ? o->pipe_text : o->pipeline });
	s->pipeline_name = o->pipe_name;
	s->py = py ? &o->probe : NULL;
	if (r->pipe.kind == MS_PIPELINE_GPU_DECODE)
		rpt_gpu_decode_fill(&s->gd, a->gs->type, r->pipe.gpudec ==
				    MS_GPUDEC_HYBRID ? "hybrid" : "hw");
	s->pipeline_workers = a->workers;
	s->others = o->others;
	s->nothers = o->nothers;
	s->budget_s = budget_s;
	ms_budget_rule_text(&r->sw, o->rule, sizeof(o->rule));
	s->budget_rule = o->rule;
	rpt_sweep_fill_reserve(s, a->w, a->batch, a->reserve_vcpus,
			       a->reserve_ram, o->reserve_how,
			       sizeof(o->reserve_how));
	s->notes = o->notes;
	s->ckpt = a->ckpt;
	s->usd_per_hour = a->usd_per_hour;
	s->shapes = o->shapes;
	s->nshapes = rpt_shapes_fill(o->shapes, RPT_SHAPES_MAX, a->w, a->gs);
	s->lru_ram_bytes = a->ram ? ram : 0;
	s->lru_ram_steady = a->ram ? ms_lru_steady(a->md->ds, a->seed, ram) :
			    -1;
	s->lru_half_steady = a->ram ? ms_lru_steady(a->md->ds, a->seed,
						    ram / 2) : -1;
}

void rpt_sweep_judge(struct rpt_sweep_out *o, const struct ms_sweep_run *r,
		     double budget_s, double list_s, bool own, int stop)
{
	fill_checks(&o->rs, r);
	fill_report(o, r, budget_s);
	o->rs.setup_s = r->sw.setup_s;
	if (own)
		o->rs.stall = r->sw.stalled ? &r->sw.stall : NULL;
	o->rs.elapsed_s = stg_now() - r->sw.cfg.t0;
	rpt_prepare_fill(&o->rs.prepare, &r->sw.ph, list_s,
			 r->sw.prep_method);
	if (own && r->sw.notes[0])
		rpt_sweep_note(o, "%s", r->sw.notes);
	if (own && o->ask->m->fs.page_cache_volatile)
		rpt_sweep_note(o, "the dataset is on a memory-backed "
			       "filesystem: it cannot be cold");
	if (own && stop)
		rpt_sweep_note(o, "PARTIAL: interrupted; points not run are "
			       "missing");
	rpt_sweep_verdict(&o->rs);
}

void rpt_sweep_note_pipelines(struct rpt_sweep_out *o, unsigned n,
			      double total_s, bool cut)
{
	if (n > 1)
		rpt_sweep_note(o, "%u pipelines shared the budget: %.0f s "
			       "each, one after the other", n, total_s / n);
	if (cut)
		rpt_sweep_note(o, "interrupted before every pipeline was "
			       "measured");
}

int rpt_sweep_end(struct rpt_sweep_out *o, const struct ms_sweep_run *r,
		  int stop)
{
	const struct rpt_sweep_ask *a = o->ask;
	const char *outs[3] = { a->json, a->csv, a->html };
	FILE *out = rpt_text_out(outs, 3);
	bool errors = stg_dataset_errors_sum(a->md->ds) > 0;
	int ret = FR_EXIT_OK;

	rpt_sweep_print(out, &o->rs);
	fflush(out);
	if (a->json) {
		json_t *root = rpt_sweep_json(&o->rs, true);

		ret |= rpt_write_report("sweep", a->json, root, NULL, "JSON");
		json_decref(root);
	}
	ret |= a->csv ? rpt_write_report("sweep", a->csv, NULL,
					 rpt_sweep_csv(&o->rs), "CSV") : 0;
	ret |= a->html ? rpt_write_report("sweep", a->html, NULL,
					  rpt_sweep_html(&o->rs), "HTML") : 0;
	/* files the listing dropped count as errors of the run */
	for (size_t i = 0; i < r->sw.npts; i++)
		errors |= o->rpts[i].status == RPT_POINT_MEASURED &&
			  o->rpts[i].errors;
	if (stop)
		return rpt_exit_for_signal(stop);
	if (r->sw.stalled)
		return rpt_stall_exit("sweep", &r->sw.stall);
	return ret ? FR_EXIT_ENV : errors ? FR_EXIT_SAMPLE_ERRORS : FR_EXIT_OK;
}
