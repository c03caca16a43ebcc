/*
 * cmd_sweep.c - `feedrate sweep [options] [DATASET]`: the raw feed rate
 * over vCPU counts x cache states within a time budget (measure/'s
 * sweep), the check runs the verdict asks for, then the verdict and the
 * reports.
 *
 * Wiring only. SIGINT/SIGTERM set cli_stop; the loader forwards it to the
 * running child, which stops and still reports; the sweep then prints
 * what it has (marked partial) and exits 130/143. A generated dataset is
 * removed on every path out.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cluster.h"
#include "measure.h"
#include "report.h"
#include "report_ckpt.h"
#include "report_sweep.h"
#include "rpt_load.h"
#include "rpt_text.h"

_Static_assert(MS_CHECKS_MAX == RPT_CHECKS_MAX,
	       "the sweep runs as many check runs as the report holds");

struct sweep_opts {
	struct cli_common_opts c;       /* what run parses the same way */
	uint64_t ram;                   /* the ram state's page cache (the
	                                   first of the axis, once planned) */
	struct cli_ram_list ram_list;   /* --ram LIST */
	struct cli_counts vcpus;        /* --vcpus LIST */
	bool cache[STG_CACHE_STATES];
	bool cache_given;
	double budget_s;
	const char *csv, *html;
	bool no_check;
	double reserve_vcpus;           /* per GPU; < 0: the default */
	uint64_t reserve_ram;           /* per GPU; 0: the default */
	bool reserve_ram_given;
	const char *ckpt;               /* --ckpt: a ckpt report */
	double price;                   /* --price USD/h; 0 none */
};

struct sweep_state {
	struct sweep_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;
	struct wl_transform_state ts;
	struct ms_sweep sw;
	struct rpt_sweep rs;
	struct rpt_point *rpts;
	char (*how)[RPT_HOW_LEN];
	unsigned vcpus_total;
	bool vcpus_default;             /* --vcpus not given */
	char pipeline[320];
	char rule[2048];
	char notes[6144];
	char reserve_how[160];
	struct ms_check checks[STG_CACHE_STATES][RPT_CHECKS_MAX];
	struct rpt_shape shapes[RPT_SHAPES_MAX];
	struct ms_machine m;
	struct rpt_ckpt_brief ckpt;     /* --ckpt's, read before measuring */
	/* --pipeline LIST: this state's pipeline; the other pipelines each
	 * run in a state of their own (subs), on the same dataset */
	struct ms_pipeline_spec pipe;
	struct ms_python_info probe[CLI_PIPELINES_MAX];
	char pipe_name[600];
	char pipe_text[1024];
	struct sweep_state *subs[CLI_PIPELINES_MAX];
	const struct rpt_sweep *others[CLI_PIPELINES_MAX];
	unsigned nsubs;
};

/* Batches each GPU's training process keeps pinned in host memory: the
 * one being copied and the next (the loader's default prefetch per GPU). */
#define SWEEP_PINNED_BATCHES 2u

static void sweep_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate sweep [options] [DATASET]\n"
"\n"
"Measure the raw feed rate of a training input pipeline from DATASET over\n"
"vCPU counts and cache states, each point in its own pinned child after its\n"
"own warm-up; check the GPU count with emulated GPUs; then say how many GPUs\n"
"of a type this VM keeps at >= %.0f %% AU per cache state, what limits it,\n"
"how many vCPUs each GPU needs, and which catalogued cloud shapes fit.\n"
"Without DATASET a %lluM synthetic dataset is generated on a disk-backed\n"
"filesystem and removed afterwards. Reports are checked before the sweep\n"
"starts.\n"
"\n", LDR_DEFAULT_AU_THRESHOLD * 100,
		(unsigned long long)(MS_DEFAULT_GEN >> 20));
}

static void sweep_tail(FILE *f)
{
	char rule[2048];

	cli_workloads_usage(f);
	fprintf(f,
"Under mpirun (a build with `make MPI=1`, a DATASET every node sees): the\n"
"points are 1, 2, 4 ... R ranks (one rank per node: as many nodes) x the\n"
"cache states (cold, warm) x --vcpus per rank, each one window on every\n"
"rank taking part; cold adds each rank's reads alone; the budget is shared\n"
"by the points; rank 0 reports how the total scales with nodes.\n"
"\n");
	ms_budget_rule_text(NULL, rule, sizeof(rule));
	rpt_wrap(f, rule, 0, 78, 0);
	fprintf(f,
"\n"
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"5 environment failure, 6 the storage stalled (--stall-timeout), 130/143\n"
"interrupted (a partial report is printed).\n");
}

static int sweep_parse(int argc, char **argv, struct sweep_opts *o)
{
	static const struct cli_usage usage = { sweep_head, sweep_tail };
	struct cli_bind b[CLI_COMMON_BINDS + 11] = {
		CLI_BIND("vcpus", o->vcpus),
		CLI_BIND_G("cache", o->cache, o->cache_given),
		CLI_BIND("ram", o->ram_list),
		CLI_BIND("budget", o->budget_s),
		CLI_BIND("no-check", o->no_check),
		CLI_BIND("reserve-vcpus-per-gpu", o->reserve_vcpus),
		CLI_BIND_G("reserve-ram-per-gpu", o->reserve_ram,
			   o->reserve_ram_given),
		CLI_BIND("csv", o->csv),
		CLI_BIND("html", o->html),
		CLI_BIND("ckpt", o->ckpt),
		CLI_BIND("price", o->price),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	cli_common_defaults(&o->c);
	o->budget_s = CLI_SWEEP_BUDGET_S;
	o->reserve_vcpus = -1;
	for (int k = 0; k < STG_CACHE_STATES; k++)
		o->cache[k] = true;
	ret = cli_opts_parse(CLI_SWEEP, argc, argv, b, 11 +
			     cli_common_binds(&o->c, b + 11), &usage);
	if (!ret)
		ret = cli_parse_dataset("sweep", argc, argv, &o->c);
	if (ret)
		return ret;
	if (o->ram_list.n && !o->cache_given)
		o->cache[STG_CACHE_RAM] = true;
	return 0;
}

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

/*
 * --ckpt's report into S->ckpt, before anything is measured: 0, 5 when it
 * cannot be read, 2 when it is no ckpt report or a report would
 * overwrite it (printed).
 */
static int sweep_load_ckpt(struct sweep_state *s)
{
	const char *outs[3] = { s->o.c.json, s->o.csv, s->o.html };
	char why[768];
	json_t *root;
	int err;

	if (!s->o.ckpt)
		return 0;
	for (int k = 0; k < 3; k++)
		if (outs[k] && rpt_out_path_same(outs[k], s->o.ckpt))
			return cli_usage_error("sweep", "a report would "
					       "overwrite the --ckpt report");
	err = rpt_report_load(s->o.ckpt, 0, &root, why, sizeof(why));
	if (err) {
		fprintf(stderr, err == -EINVAL ? "feedrate sweep: --ckpt " :
			"feedrate sweep: cannot read --ckpt ");
		cli_print_path(stderr, s->o.ckpt);
		fprintf(stderr, ": %s\n", why);
		return err == -EINVAL ? FR_EXIT_USAGE : FR_EXIT_ENV;
	}
	err = rpt_ckpt_brief_from_json(root, &s->ckpt);
	json_decref(root);
	if (err) {
		fprintf(stderr, "feedrate sweep: --ckpt ");
		cli_print_path(stderr, s->o.ckpt);
		fprintf(stderr, ": not a report of 'feedrate ckpt --json' "
			"(schema %s version %d with save and restore)\n",
			RPT_CKPT_SCHEMA_NAME, RPT_CKPT_SCHEMA_VERSION);
		return FR_EXIT_USAGE;
	}
	return 0;
}

/* Workload, GPUs, vCPU counts and report paths, before anything is
 * read. 0 or an exit code. */
static int sweep_setup(struct sweep_state *s)
{
	const char *outs[3] = { s->o.c.json, s->o.csv, s->o.html };
	struct sweep_opts *o = &s->o;
	int ret = cli_workload("sweep", o->c.workload, &s->w);

	if (!ret) {
		cli_common_from_workload(&o->c, s->w);
		ret = cli_gpus("sweep", s->w, &o->c, &s->gs);
		if (!ret)
			ret = cli_gpu_decode_resolve("sweep", s->w, &o->c,
						     &s->gs);
	}
	if (ret)
		return ret;
	if (!s->gs.count)
		return cli_usage_error("sweep", "--gpus 0: a sweep judges its "
				       "raw feed rate against at least 1 GPU "
				       "(for the raw feed alone use 'feedrate "
				       "run --gpus 0')");
	s->vcpus_total = stg_cpus_usable();
	s->vcpus_default = !o->vcpus.n;
	if (!o->vcpus.n)
		o->vcpus.n = ms_sweep_default_vcpus(s->vcpus_total, o->vcpus.v);
	/* under mpirun a rank's share of its node is what counts, not
	 * mpirun's binding: the cluster sweep checks it */
	if (!cli_cluster && o->vcpus.v[o->vcpus.n - 1] > s->vcpus_total)
		return cli_usage_error("sweep", "--vcpus %u: only %u CPUs are "
				       "usable here", o->vcpus.v[o->vcpus.n - 1],
				       s->vcpus_total);
	ret = cli_check_reports("sweep", outs, 3, o->c.dataset, o->c.list);
	if (!ret)
		ret = cli_pipelines_check("sweep", &o->c, s->probe);
	return ret ? ret : sweep_load_ckpt(s);
}

/*
 * The check runs at the verdict's top point of each cache state: G and
 * G + 1 GPUs (G the GPUs its feed rate computes to), then further down
 * while the fewest tried was not fed or further up while the most tried
 * was (ms_check_next), as long as time is left.
 */
static int sweep_checks(struct sweep_state *s)
{
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const int top = rpt_verdict_top(s->rpts, s->sw.npts,
						(enum stg_cache_state)c);
		struct ms_check_done done[RPT_CHECKS_MAX];
		unsigned g, next;
		size_t n = 0;

		/* no checks where the verdict will not judge: the state's
		 * point at all vCPUs was dropped for the budget */
		if (top < 0 || ms_sweep_top_dropped(&s->sw,
						    (enum stg_cache_state)c))
			continue;
		g = jdg_gpus_fed(s->rpts[top].samples_per_s, s->gs.demand,
				 s->w->au_threshold);
		while (ms_check_next(done, n, g, s->w->au_threshold,
				     RPT_CHECKS_MAX, &next)) {
			struct rpt_confirm *cf = &s->rs.confirm[c][n];
			struct ms_check *ck = &s->checks[c][n];

			if (ms_sweep_check(&s->sw, s->rpts[top].vcpus,
					   (enum stg_cache_state)c, next, ck))
				return cli_fail("sweep", -ENOMEM, 0,
						"out of memory");
			*cf = (struct rpt_confirm){ .run = ck->run, .gpus =
				next, .au = ck->au, .why = ck->why,
				.vcpus = s->rpts[top].vcpus };
			done[n++] = (struct ms_check_done){ .gpus = next,
				.run = ck->run, .au = ck->au };
		}
	}
	return 0;
}

/* The report's setup, machine, catalogue and LRU estimates. */
static void sweep_fill_report(struct sweep_state *s)
{
	struct rpt_sweep *r = &s->rs;
	const bool ram = s->o.cache[STG_CACHE_RAM];

	rpt_sweep_fill_setup(r, &s->m, &s->md, s->w->name, &s->gs,
			     s->w->au_threshold,
			     !ms_pipeline_is_python(&s->pipe) ? s->pipeline :
			     s->pipe_text);
	r->workload_file = s->w->job_file;
	r->pipeline_name = s->pipe_name;
	r->py = !ms_pipeline_is_python(&s->pipe) ? NULL : &s->probe[0];
	if (s->pipe.kind == MS_PIPELINE_GPU_DECODE)
		rpt_gpu_decode_fill(&r->gd, s->gs.type, s->pipe.gpudec ==
				    MS_GPUDEC_HYBRID ? "hybrid" : "hw");
	r->pipeline_workers = s->o.c.workers;
	r->others = s->others;
	r->nothers = s->nsubs;
	r->version = FEEDRATE_VERSION;
	r->budget_s = s->o.budget_s;
	ms_budget_rule_text(&s->sw, s->rule, sizeof(s->rule));
	r->budget_rule = s->rule;
	r->reserve_vcpus_per_gpu = s->o.reserve_vcpus;
	if (s->o.reserve_ram_given) {
		r->reserve_ram_per_gpu = s->o.reserve_ram;
		r->reserve_ram_how = "";
	} else {
		const unsigned batch = s->o.c.batch ? s->o.c.batch :
				       LDR_DEFAULT_BATCH;
		const uint64_t sample = (uint64_t)s->w->out_channels *
			s->w->out_height * s->w->out_width * sizeof(float);

		r->reserve_ram_per_gpu = jdg_reserve_ram(batch,
			SWEEP_PINNED_BATCHES, sample);
		snprintf(s->reserve_how, sizeof(s->reserve_how), "%u pinned "
			 "batches of %u x %llu B + %llu GiB for the process",
			 SWEEP_PINNED_BATCHES, batch, (unsigned long long)sample,
			 (unsigned long long)(RPT_RESERVE_PROCESS_BYTES >> 30));
		r->reserve_ram_how = s->reserve_how;
	}
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
	cli_pipeline_text(&s->pipe, &s->probe[0], s->pipeline,
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
		return cli_fail("sweep", -ENOMEM, 0, "out of memory");
	err = ms_sweep_run_points(&s->sw);
	if (err == -ENOMEM)
		return cli_fail("sweep", err, 0, "out of memory");
	rpt_sweep_fill_points(&s->rs, s->rpts, s->how, &s->sw,
			      s->gs.demand * s->gs.count,
			      stg_dataset_count(s->md.ds));
	ret = s->sw.stalled ? 0 : sweep_checks(s);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	return ret;
}

/* The verdict, the text report and the files. The exit code. */
static int sweep_report(struct sweep_state *s)
{
	const char *outs[3] = { s->o.c.json, s->o.csv, s->o.html };
	FILE *out = cli_text_out(outs, 3);
	int ret = FR_EXIT_OK;
	bool errors = false;

	cli_watch_claim();
	sweep_fill_report(s);
	s->rs.stall = s->sw.stalled ? &s->sw.stall : NULL;
	s->rs.elapsed_s = stg_now() - s->sw.cfg.t0;
	rpt_prepare_fill(&s->rs.prepare, &s->sw.ph, s->md.list_s,
			 s->sw.prep_method);
	if (s->sw.notes[0])
		cli_note_add(s->notes, sizeof(s->notes), "%s", s->sw.notes);
	if (s->m.fs.page_cache_volatile)
		cli_note_add(s->notes, sizeof(s->notes), "the dataset is on a "
			     "memory-backed filesystem: it cannot be cold");
	if (cli_stop)
		cli_note_add(s->notes, sizeof(s->notes), "PARTIAL: interrupted; "
			     "points not run are missing");
	rpt_sweep_verdict(&s->rs);
	rpt_sweep_print(out, &s->rs);
	fflush(out);
	if (s->o.c.json) {
		json_t *root = rpt_sweep_json(&s->rs, true);

		ret |= cli_write_report("sweep", s->o.c.json, root, NULL,
					"JSON");
		json_decref(root);
	}
	ret |= s->o.csv ? cli_write_report("sweep", s->o.csv, NULL,
					   rpt_sweep_csv(&s->rs), "CSV") : 0;
	ret |= s->o.html ? cli_write_report("sweep", s->o.html, NULL,
					    rpt_sweep_html(&s->rs), "HTML") : 0;
	/* files the listing dropped count as errors of the run */
	errors = stg_dataset_errors_sum(s->md.ds) > 0;
	for (size_t i = 0; i < s->sw.npts; i++)
		errors |= s->rpts[i].status == RPT_POINT_MEASURED &&
			  s->rpts[i].errors;
	if (cli_stop)
		return cli_exit_for_signal(cli_stop);
	if (s->sw.stalled)
		return cli_stall_exit("sweep", &s->sw.stall);
	return ret ? FR_EXIT_ENV : errors ? FR_EXIT_SAMPLE_ERRORS : FR_EXIT_OK;
}

/* Free a state's points and sweep (not its dataset: the main one's). */
static void sweep_state_free(struct sweep_state *s)
{
	if (!s)
		return;
	ms_sweep_free(&s->sw);
	wl_transform_state_release(&s->ts);
	free(s->rpts);
	free(s->how);
	free(s);
}

/*
 * Each pipeline of --pipeline in turn, sharing the budget equally: S's
 * own (native where it is in the list, else the first) first, then the
 * others in states of their own (S->subs), each planned, measured,
 * checked and judged on its own. 0 or an exit code.
 */
static int sweep_pipelines(struct sweep_state *s)
{
	const unsigned n = s->o.c.npipes;
	const double total = s->o.budget_s;
	struct ms_python_info first;    /* probe[0] before S's own takes it */
	unsigned own = 0;
	int ret;

	for (unsigned i = 0; i < n; i++)
		if (s->o.c.pipes[i].kind == MS_PIPELINE_NATIVE) {
			own = i;
			break;
		}
	s->pipe = s->o.c.pipes[own];
	first = s->probe[0];
	s->probe[0] = s->probe[own];
	ms_pipeline_name(&s->pipe, s->pipe_name, sizeof(s->pipe_name));
	s->o.budget_s = total / n;
	ret = sweep_measure(s);
	for (unsigned i = 0; !ret && i < n && !cli_stop && !s->sw.stalled;
	     i++) {
		struct sweep_state *sub;

		if (i == own)
			continue;
		sub = calloc(1, sizeof(*sub));
		if (!sub)
			return cli_fail("sweep", -ENOMEM, 0, "out of memory");
		sub->o = s->o;
		sub->w = s->w;
		sub->gs = s->gs;
		sub->md = s->md;        /* the listing, borrowed */
		sub->md.list_s = 0;
		sub->vcpus_total = s->vcpus_total;
		sub->pipe = s->o.c.pipes[i];
		sub->probe[0] = i ? s->probe[i] : first;
		ms_pipeline_name(&sub->pipe, sub->pipe_name,
				 sizeof(sub->pipe_name));
		s->subs[s->nsubs] = sub;
		s->others[s->nsubs++] = &sub->rs;
		ret = sweep_measure(sub);
		if (ret)
			break;
		sweep_fill_report(sub);
		sub->rs.elapsed_s = stg_now() - sub->sw.cfg.t0;
		rpt_prepare_fill(&sub->rs.prepare, &sub->sw.ph, 0,
				 sub->sw.prep_method);
		rpt_sweep_verdict(&sub->rs);
	}
	s->o.budget_s = total;
	if (n > 1)
		cli_note_add(s->notes, sizeof(s->notes), "%u pipelines shared "
			     "the budget: %.0f s each, one after the other",
			     n, total / n);
	if (!ret && cli_stop && s->nsubs + 1 < n)
		cli_note_add(s->notes, sizeof(s->notes), "interrupted before "
			     "every pipeline was measured");
	return ret;
}

/* Under mpirun: the cluster sweep (cli/sweep_cluster.c). */
static int sweep_cluster(struct sweep_state *s, bool failed)
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

int cmd_sweep(int argc, char **argv)
{
	struct sigaction old[2];
	struct sweep_state *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return cli_fail("sweep", -ENOMEM, 0, "out of memory");
	ret = sweep_parse(argc, argv, &s->o);
	if (ret) {
		free(s);
		return ret < 0 ? FR_EXIT_OK : ret;
	}
	ret = sweep_setup(s);
	if (ret)
		goto out_free;
	if (cli_cluster) {
		if (!s->o.c.dataset)
			ret = cli_usage_error("sweep", "under mpirun give a "
				"DATASET every node sees (shared storage)");
		else if (s->o.ram_list.n || (s->o.cache[STG_CACHE_RAM] &&
						   s->o.cache_given))
			ret = cli_usage_error("sweep", "under mpirun the cache "
				"states are cold and warm (--ram is for one "
				"node)");
		else if (s->o.c.npipes > 1 ||
			 s->o.c.pipes[0].kind != MS_PIPELINE_NATIVE)
			ret = cli_usage_error("sweep", "under mpirun the native "
				"pipeline runs (--pipeline is for one node)");
		if (ret)
			goto out_free;
	}
	cli_signals_catch(old);
	ret = cli_watch_start("sweep", s->o.c.json, RPT_SWEEP_SCHEMA_NAME,
			      RPT_SWEEP_SCHEMA_VERSION);
	if (!ret)
		ret = cli_dataset_open("sweep", s->w, &s->o.c, &s->md);
	if (cli_cluster) {
		ret = sweep_cluster(s, ret != 0);
	} else {
		if (!ret)
			ret = sweep_pipelines(s);
		if (!ret)
			ret = sweep_report(s);
	}
	cli_watch_stop();
	cli_signals_restore(old);
out_free:
	cli_dataset_close("sweep", &s->md, s->o.c.keep);
	for (unsigned i = 0; i < s->nsubs; i++)
		sweep_state_free(s->subs[i]);
	ms_sweep_free(&s->sw);
	wl_transform_state_release(&s->ts);
	free(s->rpts);
	free(s->how);
	free(s);
	return ret;
}
