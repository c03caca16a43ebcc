/*
 * sweep_steps.c - `feedrate sweep`'s steps after its options (cmd_sweep.c):
 * each pipeline's points planned and measured (measure/'s sweep), the
 * check runs, the report filled, judged, printed and written.
 *
 * Wiring only, like cmd_sweep.c: the walks are measure/'s
 * (measure_sweep.c, sweep_walk.c), the words reports/'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "measure.h"
#include "report.h"
#include "judge.h"
#include "sweep.h"

static void sweep_progress(void *arg, const char *what)
{
	const struct sweep_state *s = arg;
	const double used = stg_now() - s->sw.cfg.t0;
	const double eta = s->o.budget_s - used;

	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[Kfeedrate sweep: %s (%.0f s used, <= %.0f s "
		"left)", what, used, eta > 0 ? eta : 0);
	fflush(stderr);
}

/* The check runs at the verdict's top point of each cache state
 * (measure/sweep_walk.c), into the report's confirm rows. */
static int sweep_checks(struct sweep_state *s)
{
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const enum stg_cache_state cs = (enum stg_cache_state)c;
		const int top = rpt_verdict_top(s->rpts, s->sw.npts, cs);
		unsigned gpus[RPT_CHECKS_MAX];
		size_t n = 0;
		int err;

		/* no checks where the verdict will not judge: the state's
		 * point at all vCPUs was dropped for the budget */
		if (top < 0 || ms_sweep_top_dropped(&s->sw, cs))
			continue;
		err = ms_sweep_checks(&s->sw, s->rpts[top].vcpus, cs,
				      jdg_gpus_fed(
					s->rpts[top].samples_per_s,
					s->gs.demand, s->w->au_threshold),
				      s->w->au_threshold, s->checks[c], gpus,
				      RPT_CHECKS_MAX, &n);
		for (size_t k = 0; k < n; k++)
			s->rs.confirm[c][k] = (struct rpt_confirm){
				.run = s->checks[c][k].run, .gpus = gpus[k],
				.au = s->checks[c][k].au,
				.why = s->checks[c][k].why,
				.vcpus = s->rpts[top].vcpus };
		if (err)
			return rpt_fail("sweep", err, 0, "out of memory");
	}
	return 0;
}

/* The report's setup, machine, catalogue and LRU estimates. */
static void sweep_fill_report(struct sweep_state *s)
{
	struct rpt_sweep *r = &s->rs;
	const bool ram = s->o.cache[STG_CACHE_RAM];

	rpt_sweep_fill_setup(r, &(struct rpt_setup_src){
		.version = FEEDRATE_VERSION, .m = &s->m, .md = &s->md,
		.w = s->w, .gs = &s->gs, .backend = -1, .cache = -1,
		.seed = s->o.c.seed,
		.pipeline = !ms_pipeline_is_python(&s->pipe) ? s->pipeline :
			    s->pipe_text });
	r->pipeline_name = s->pipe_name;
	r->py = !ms_pipeline_is_python(&s->pipe) ? NULL : &s->probe[0];
	if (s->pipe.kind == MS_PIPELINE_GPU_DECODE)
		rpt_gpu_decode_fill(&r->gd, s->gs.type, s->pipe.gpudec ==
				    MS_GPUDEC_HYBRID ? "hybrid" : "hw");
	r->pipeline_workers = s->o.c.workers;
	r->others = s->others;
	r->nothers = s->nsubs;
	r->budget_s = s->o.budget_s;
	ms_budget_rule_text(&s->sw, s->rule, sizeof(s->rule));
	r->budget_rule = s->rule;
	rpt_sweep_fill_reserve(r, s->w, s->o.c.batch, s->o.reserve_vcpus,
			       s->o.reserve_ram_given ? &s->o.reserve_ram :
			       NULL, s->reserve_how, sizeof(s->reserve_how));
	r->notes = s->notes;
	r->ckpt = s->o.ckpt ? &s->ckpt : NULL;
	r->usd_per_hour = s->o.price;
	r->shapes = s->shapes;
	r->nshapes = rpt_shapes_fill(s->shapes, RPT_SHAPES_MAX, s->w, &s->gs);
	r->lru_ram_bytes = ram ? s->o.ram : 0;
	r->lru_ram_steady = ram ? ms_lru_steady(s->md.ds, s->o.c.seed,
						s->o.ram) : -1;
	r->lru_half_steady = ram ? ms_lru_steady(s->md.ds, s->o.c.seed,
						 s->o.ram / 2) : -1;
}

/* Plan and run the points and the checks. 0 or an exit code. */
static int sweep_measure(struct sweep_state *s)
{
	struct ms_sweep_config cfg;
	int ret, err;

	memset(&cfg, 0, sizeof(cfg));
	ret = cli_point_base("sweep", &s->o.c, s->w, &s->gs, &s->md,
			     &cfg.base, &s->ts, s->pipeline,
			     sizeof(s->pipeline));
	if (ret)
		return ret;
	cfg.base.pipe = s->pipe;
	cfg.base.pipe.python = s->o.c.python;
	cfg.base.pipe.workers = s->o.c.workers;
	cfg.base.pipe.timeout_s = s->o.c.runner_timeout;
	cfg.base.pipe.list = s->o.c.list;
	ret = cli_gpu_decode_point("sweep", &s->o.c, s->w, &s->md, &cfg.base,
				   &s->ts, s->pipeline, sizeof(s->pipeline));
	if (ret)
		return ret;
	rpt_pipeline_text(&s->pipe, &s->probe[0], s->pipeline,
			  s->o.c.workers, s->pipe_text, sizeof(s->pipe_text));
	memcpy(cfg.vcpus, s->o.vcpus.v, sizeof(cfg.vcpus));
	cfg.nvcpus = s->o.vcpus.n;
	memcpy(cfg.cache, s->o.cache, sizeof(cfg.cache));
	memcpy(cfg.ram_sizes, s->o.ram_list.v, sizeof(cfg.ram_sizes));
	cfg.nram_sizes = s->o.ram_list.n;
	cfg.budget_s = s->o.budget_s;
	cfg.t0 = stg_now() - s->md.list_s;    /* the budget starts listing */
	cfg.no_check = s->o.no_check;
	/* where vCPUs are SMT siblings the 2-vCPU points give the SMT
	 * yield: the planner keeps them after the 1-vCPU ones */
	ms_machine_detect(s->md.root, &s->m);
	cfg.keep_two = s->m.cpu.vcpu_kind == STG_VCPU_THREAD ||
		       s->m.cpu.threads_per_core > 1;
	cfg.progress = sweep_progress;
	cfg.progress_arg = s;
	err = ms_sweep_plan(&s->sw, &cfg);
	s->rs.setup_s = s->sw.setup_s;
	s->o.ram = s->sw.cfg.ram_bytes;         /* its default resolved */
	if (err == -ETIME) {
		const char *why = "";

		/* what the points with every vCPU would need */
		for (size_t i = 0; i < s->sw.npts && !why[0]; i++)
			if (s->sw.pts[i].vcpus == s->sw.top_vcpus)
				why = s->sw.pts[i].why;

		fprintf(stderr, "feedrate sweep: the budget of %.0f s leaves no "
			"time for a point after listing and eviction (%.1f s); "
			"a point needs at least %.0f s%s%s\n", s->o.budget_s,
			s->sw.setup_s, MS_MIN_POINT_S, why[0] ? ": " : "",
			why);
		return FR_EXIT_USAGE;
	}
	s->rpts = calloc(s->sw.npts ? s->sw.npts : 1, sizeof(*s->rpts));
	s->how = calloc(s->sw.npts ? s->sw.npts : 1, sizeof(*s->how));
	if (err || !s->rpts || !s->how)
		return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
	err = ms_sweep_run_points(&s->sw);
	if (err == -ENOMEM)
		return rpt_fail("sweep", err, 0, "out of memory");
	rpt_sweep_fill_points(&s->rs, s->rpts, s->how, &s->sw,
			      s->gs.demand * s->gs.count,
			      stg_dataset_count(s->md.ds));
	ret = s->sw.stalled ? 0 : sweep_checks(s);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	return ret;
}

/* The verdict, the text report and the files. The exit code. */
int cli_sweep_report(struct sweep_state *s)
{
	const char *outs[3] = { s->o.c.json, s->o.csv, s->o.html };
	FILE *out = rpt_text_out(outs, 3);
	int ret = FR_EXIT_OK;
	bool errors = false;

	cli_watch_claim();
	sweep_fill_report(s);
	s->rs.stall = s->sw.stalled ? &s->sw.stall : NULL;
	s->rs.elapsed_s = stg_now() - s->sw.cfg.t0;
	rpt_prepare_fill(&s->rs.prepare, &s->sw.ph, s->md.list_s,
			 s->sw.prep_method);
	if (s->sw.notes[0])
		rpt_note_add(s->notes, sizeof(s->notes), "%s", s->sw.notes);
	if (s->m.fs.page_cache_volatile)
		rpt_note_add(s->notes, sizeof(s->notes), "the dataset is on a "
			     "memory-backed filesystem: it cannot be cold");
	if (cli_stop)
		rpt_note_add(s->notes, sizeof(s->notes), "PARTIAL: interrupted; "
			     "points not run are missing");
	rpt_sweep_verdict(&s->rs);
	rpt_sweep_print(out, &s->rs);
	fflush(out);
	if (s->o.c.json) {
		json_t *root = rpt_sweep_json(&s->rs, true);

		ret |= rpt_write_report("sweep", s->o.c.json, root, NULL,
					"JSON");
		json_decref(root);
	}
	ret |= s->o.csv ? rpt_write_report("sweep", s->o.csv, NULL,
					   rpt_sweep_csv(&s->rs), "CSV") : 0;
	ret |= s->o.html ? rpt_write_report("sweep", s->o.html, NULL,
					    rpt_sweep_html(&s->rs), "HTML") : 0;
	/* files the listing dropped count as errors of the run */
	errors = stg_dataset_errors_sum(s->md.ds) > 0;
	for (size_t i = 0; i < s->sw.npts; i++)
		errors |= s->rpts[i].status == RPT_POINT_MEASURED &&
			  s->rpts[i].errors;
	if (cli_stop)
		return rpt_exit_for_signal(cli_stop);
	if (s->sw.stalled)
		return rpt_stall_exit("sweep", &s->sw.stall);
	return ret ? FR_EXIT_ENV : errors ? FR_EXIT_SAMPLE_ERRORS : FR_EXIT_OK;
}

/* Pipeline I of --pipeline on BUDGET_S: S's own (the first measured)
 * in S, another in a state of its own (S->subs) on the same dataset,
 * planned, measured, checked and judged on its own. 0 or an exit code. */
static int sweep_pipeline(void *arg, unsigned i, double budget_s)
{
	struct sweep_state *s = arg, *sub;
	int ret;

	if (i == s->pipe_own) {
		s->o.budget_s = budget_s;
		return sweep_measure(s);
	}
	if (s->sw.stalled)
		return 0;       /* the storage stalled: no other pipeline */
	sub = calloc(1, sizeof(*sub));
	if (!sub)
		return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
	sub->o = s->o;
	sub->o.budget_s = budget_s;
	sub->w = s->w;
	sub->gs = s->gs;
	sub->md = s->md;        /* the listing, borrowed */
	sub->md.list_s = 0;
	sub->vcpus_total = s->vcpus_total;
	sub->pipe = s->o.c.pipes[i];
	sub->probe[0] = i ? s->probe[i] : s->probe_first;
	ms_pipeline_name(&sub->pipe, sub->pipe_name, sizeof(sub->pipe_name));
	s->subs[s->nsubs] = sub;
	s->others[s->nsubs++] = &sub->rs;
	ret = sweep_measure(sub);
	if (ret)
		return ret;
	sweep_fill_report(sub);
	sub->rs.elapsed_s = stg_now() - sub->sw.cfg.t0;
	rpt_prepare_fill(&sub->rs.prepare, &sub->sw.ph, 0,
			 sub->sw.prep_method);
	rpt_sweep_verdict(&sub->rs);
	return 0;
}

/* Each pipeline of --pipeline in turn, sharing the budget equally
 * (measure/sweep_walk.c). 0 or an exit code. */
int cli_sweep_run(struct sweep_state *s)
{
	const unsigned n = s->o.c.npipes;
	const double total = s->o.budget_s;
	unsigned done;
	int ret;

	s->pipe_own = ms_pipeline_first(s->o.c.pipes, n);
	s->pipe = s->o.c.pipes[s->pipe_own];
	s->probe_first = s->probe[0];   /* before S's own takes probe[0] */
	s->probe[0] = s->probe[s->pipe_own];
	ms_pipeline_name(&s->pipe, s->pipe_name, sizeof(s->pipe_name));
	ret = ms_sweep_pipelines(n, s->pipe_own, total, &cli_stop,
				 sweep_pipeline, s, &done);
	s->o.budget_s = total;
	if (n > 1)
		rpt_note_add(s->notes, sizeof(s->notes), "%u pipelines shared "
			     "the budget: %.0f s each, one after the other",
			     n, total / n);
	if (!ret && cli_stop && s->nsubs + 1 < n)
		rpt_note_add(s->notes, sizeof(s->notes), "interrupted before "
			     "every pipeline was measured");
	return ret;
}
