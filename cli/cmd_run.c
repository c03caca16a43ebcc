/*
 * cmd_run.c - `feedrate run [options] [DATASET]`: one measurement point
 * (measure/'s ms_point_run, in a pinned child) and its report.
 *
 * Wiring only: the options, the dataset and GPUs opened through cli/
 * common.c, one ms_point, and the report filled from its result.
 * SIGINT/SIGTERM set cli_stop; the child stops and still reports; the
 * command exits 130/143 with what it has.
 */
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

struct run_opts {
	struct cli_common_opts c;       /* what sweep parses the same way */
	unsigned vcpus;                 /* 0: every usable CPU */
	enum stg_cache_state cache;
	bool cache_given, ram_given;
	uint64_t ram;
	double duration;                /* -1: not given */
	double warmup;                  /* 0 default, < 0 none */
	uint64_t epochs, samples;
	/* under mpirun */
	const char *html;               /* the cluster report as a page */
	double solo;                    /* cold: each rank's reads alone, this
	                                   long; 0 none, < 0 default */
	double mpi_timeout;             /* each cluster step; 0 default */
};

static void run_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate run [options] [DATASET]\n"
"\n"
"Measure how fast this VM feeds a training input pipeline from DATASET (a\n"
"folder of JPEGs in ImageFolder layout, or WebDataset, MDS or TFRecord\n"
"shards: see --format) and say how many GPUs of a type it\n"
"keeps at >= %.0f %% utilisation (AU), and what limits it. Without DATASET a\n"
"small synthetic dataset (%lluM) is generated in a temporary folder on a\n"
"disk-backed filesystem and removed afterwards. Under mpirun (a build with\n"
"`make MPI=1`) every rank runs the same point on its share of DATASET and\n"
"rank 0 reports the cluster.\n"
"\n", LDR_DEFAULT_AU_THRESHOLD * 100,
		(unsigned long long)(MS_DEFAULT_GEN >> 20));
}

static void run_tail(FILE *f)
{
	cli_workloads_usage(f);
	fprintf(f,
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"4 stopped by --max-errors, 5 environment failure (no dataset, no disk\n"
"space, backend refused; under mpirun: a rank lost or failed), 6 the\n"
"storage stalled (--stall-timeout; the report says where), 130/143\n"
"interrupted (a partial report is printed).\n");
}

/* Under mpirun: what only a cluster run takes. 0 or FR_EXIT_USAGE. */
static int run_parse_cluster(struct run_opts *o)
{
	/* every rank parses the same line: each says nothing, rank 0 the
	 * error */
	if (!o->c.dataset)
		return cli_cluster_rank0() ? cli_usage_error("run", "under "
			"mpirun give a DATASET every node sees (shared "
			"storage): a generated one would be each node's own") :
			FR_EXIT_USAGE;
	if (o->cache == STG_CACHE_RAM)
		return cli_cluster_rank0() ? cli_usage_error("run", "--ram "
			"is for one node: under mpirun use --cache cold or "
			"warm") : FR_EXIT_USAGE;
	if (o->c.pipes[0].kind != MS_PIPELINE_NATIVE)
		return cli_cluster_rank0() ? cli_usage_error("run", "under "
			"mpirun the native pipeline runs (--pipeline torch, "
			"python:FILE and gpu-decode are for one node)") :
			FR_EXIT_USAGE;
	if (o->mpi_timeout)
		cli_cluster->timeout_s = o->mpi_timeout;
	return 0;
}

static int run_parse(int argc, char **argv, struct run_opts *o)
{
	static const struct cli_usage usage = { run_head, run_tail };
	struct cli_bind b[CLI_COMMON_BINDS + 10] = {
		CLI_BIND("vcpus", o->vcpus),
		CLI_BIND_G("cache", o->cache, o->cache_given),
		CLI_BIND_G("ram", o->ram, o->ram_given),
		CLI_BIND("duration", o->duration),
		CLI_BIND("warmup", o->warmup),
		CLI_BIND("epochs", o->epochs),
		CLI_BIND("samples", o->samples),
		CLI_BIND("html", o->html),
		CLI_BIND("solo", o->solo),
		CLI_BIND("mpi-timeout", o->mpi_timeout),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	cli_common_defaults(&o->c);
	o->duration = -1;
	o->solo = -1;
	ret = cli_opts_parse(CLI_RUN, argc, argv, b, 10 +
			     cli_common_binds(&o->c, b + 10), &usage);
	if (ret)
		return ret;
	if (o->ram_given && o->cache_given)
		return cli_usage_error("run", "--ram measures its own cache "
				       "state: give --cache or --ram");
	if (o->ram_given)
		o->cache = STG_CACHE_RAM;
	ret = cli_parse_dataset("run", argc, argv, &o->c);
	if (ret || !cli_cluster) {
		if (!ret && (o->html || o->solo >= 0 || o->mpi_timeout))
			return cli_usage_error("run", "--html, --solo and "
				"--mpi-timeout are for runs under mpirun "
				"(sweep writes HTML on one node)");
		return ret;
	}
	return run_parse_cluster(o);
}

/* Everything the command owns, released in one place. */
struct run_state {
	struct run_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;           /* the listing, a generated folder */
	struct ms_point_out po;
	struct ldr_result *res;
	struct ms_python_info probe;    /* the interpreter's, before the run */
	struct wl_transform_state ts;
	struct stg_fs_info fs;
	char devtext[STG_TEXT_MAX + 80];
	char pipeline[320];
	char pipe_text[1024];           /* the pipeline in the report's words */
	char pipe_name[600];
	char cache_how[1024];
	char notes[1024];
	struct stg_stall stall;         /* the storage stalled (rr.stall) */
	char stall_text[700];
};

#define note_add(s, ...) \
	cli_note_add((s)->notes, sizeof((s)->notes), __VA_ARGS__)

/* The report's dataset, listing and machine fields. */
static void run_fill_dataset(struct run_state *s, struct rpt_run *rr)
{
	struct stg_cpu_info cpu;

	stg_detect_cpu(0, &cpu);        /* what one vCPU is here */
	rpt_run_fill_machine(rr, &cpu);
	rr->workload = s->w->name;
	rr->workload_file = s->w->job_file;
	rr->list = s->o.c.list;
	rpt_run_fill_dataset(rr, &s->md, s->o.c.keep);
	ms_fs_describe(s->md.root, &s->fs, &rr->fs_type, s->devtext,
		       sizeof(s->devtext));
	rr->fs_device = s->devtext;
	rr->backend_asked = stg_backend_name(s->o.c.backend);
	rr->depth = s->o.c.depth;
	rr->cache = stg_cache_state_name(s->o.cache);
	rr->ram_bytes = s->o.cache == STG_CACHE_RAM ? s->o.ram : 0;
	rr->gpu_sync_all = s->o.c.sync == LDR_GPU_SYNC_ALL;
	rr->au_threshold = s->w->au_threshold;
	rr->max_errors = s->o.c.max_errors;
	rpt_run_fill_gpus(rr, &s->gs);
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
	const struct ms_point_out *po = &s->po;

	rpt_run_fill_point(rr, po, s->res, s->o.cache == STG_CACHE_RAM,
			   stg_dataset_count(s->md.ds), s->cache_how,
			   sizeof(s->cache_how));
	rr->signal = po->rep.signal ? po->rep.signal : cli_stop;
	rpt_prepare_fill(&rr->prepare, &po->prep.ph, s->md.list_s,
			 po->prep.method);
	if (po->prep.note[0])
		note_add(s, "%s", po->prep.note);
	if (po->odirect_refused)
		note_add(s, "cold: %s, so this run may not have been cold "
			 "(the hit ratio says)", po->odirect_why);
	if (po->measured && s->o.cache == STG_CACHE_RAM &&
	    s->res->epochs_done < 2 && !rr->signal &&
	    !s->res->stopped_by_max_errors)
		note_add(s, "only %llu epoch%s completed: the hit ratio of a "
			 "RAM-limited page cache settles from the second epoch "
			 "on", (unsigned long long)s->res->epochs_done,
			 s->res->epochs_done == 1 ? "" : "s");
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
	rr->pipeline = cli_pipeline_text(&p->pipe, py, s->pipeline,
		py->workers ? py->workers : s->res->workers, s->pipe_text,
		sizeof(s->pipe_text));
}

/* A Python pipeline that failed: its report (the traceback's last lines
 * in it) and exit 1, or 5 when a module is missing. */
static int run_python_failed(struct run_state *s, struct rpt_run *rr)
{
	FILE *out = cli_text_out(&s->o.c.json, 1);

	rr->run_error = s->po.err ? s->po.err : -ECHILD;
	rr->run_error_text = s->po.err_text;
	rr->res = NULL;
	rr->notes = s->notes;
	rpt_run_print(out, rr);
	fflush(out);
	if (s->o.c.json) {
		json_t *root = rpt_run_json(rr);

		cli_write_report("run", s->o.c.json, root, NULL, "JSON");
		json_decref(root);
	}
	{
		/* one line: the first of the words and the exception */
		const char *t = s->po.err_text;
		const char *nl = strchr(t, '\n');
		const char *last = strrchr(t, '\n');

		fprintf(stderr, "feedrate run: --pipeline ");
		cli_print_path(stderr, rr->pipeline_name);
		fprintf(stderr, ": %.*s%s%s%s\n", nl ? (int)(nl - t) :
			(int)strlen(t), t, last ? " " : "", last ? last + 1 :
			"", last ? " (its traceback is in the report)" : "");
	}
	return s->po.py.fail == MS_PYTHON_MISSING_MODULE ||
	       s->po.py.fail == MS_PYTHON_NO_INTERPRETER ? FR_EXIT_ENV :
	       FR_EXIT_FAILURE;
}

/* Workload, GPUs, vCPUs checked before anything is read. 0 or exit. */
static int run_setup(struct run_state *s)
{
	struct ldr_cpu_choice cpus;
	int err = cli_workload("run", s->o.c.workload, &s->w);

	if (!err) {
		cli_common_from_workload(&s->o.c, s->w);
		err = cli_gpus("run", s->w, &s->o.c, &s->gs);
		if (!err)
			err = cli_gpu_decode_resolve("run", s->w, &s->o.c,
						     &s->gs);
	}
	if (!err)
		err = cli_check_reports("run", &s->o.c.json, 1, s->o.c.dataset,
					s->o.c.list);
	if (err)
		return err;
	/* under mpirun the rank's share of its node is checked by its point
	 * (mpirun's own binding is not the node) */
	err = cli_cluster ? 0 : ldr_cpus_choose(s->o.vcpus ? s->o.vcpus :
						stg_cpus_usable(), NULL,
						&cpus);
	if (err)
		return cli_usage_error("run", "%s", cpus.how[0] ? cpus.how :
				       strerror(-err));
	err = cli_pipelines_check("run", &s->o.c, &s->probe);
	if (err)
		return err;
	s->res = calloc(1, sizeof(*s->res));
	if (!s->res)
		return cli_fail("run", -ENOMEM, 0, "out of memory");
	if (s->o.c.keep && s->o.c.dataset)
		note_add(s, "--keep-dataset has no effect with a DATASET");
	return 0;
}

/* The report says the storage stalled (STALL) and has no results. */
static void run_stalled(struct run_state *s, struct rpt_run *rr,
			const struct stg_stall *stall)
{
	s->stall = *stall;
	rpt_stall_text(stall, s->stall_text, sizeof(s->stall_text));
	rr->stall = &s->stall;
	rr->res = NULL;
	rr->run_error = -ETIMEDOUT;
	rr->run_error_text = s->stall_text;
	if (s->po.rep.held_pid)
		note_add(s, "the measurement child (pid %d) waits in the "
			 "kernel on the stalled storage: it was killed and "
			 "is left to the kernel", s->po.rep.held_pid);
}

/* The transform, the point, the measurement. 0 or an exit code. */
static int run_measure(struct run_state *s, struct rpt_run *rr)
{
	struct ms_point p;
	int err = run_point(s, &p);

	if (err)
		return err;
	rr->pipeline = s->pipeline;
	rr->pipeline_name = ms_pipeline_name(&p.pipe, s->pipe_name,
					     sizeof(s->pipe_name));
	if (s->fs.page_cache_volatile && s->o.cache != STG_CACHE_WARM)
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
		/* the child was killed: nothing of its window came back */
		run_stalled(s, rr, &s->po.rep.stall);
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

/* Print, write the JSON, and choose the exit status. */
static int run_report(struct run_state *s, struct rpt_run *rr)
{
	FILE *out = cli_text_out(&s->o.c.json, 1);
	int ret = FR_EXIT_OK;

	cli_watch_claim();
	rr->notes = s->notes;
	rpt_run_print(out, rr);
	fflush(out);
	if (s->o.c.json) {
		json_t *root = rpt_run_json(rr);

		ret = cli_write_report("run", s->o.c.json, root, NULL, "JSON");
		json_decref(root);
	}
	/* a signal's code first; then an environment failure (the JSON
	 * report not written) over --max-errors and sample errors */
	if (rr->signal)
		return cli_exit_for_signal(rr->signal);
	if (rr->stall)
		return cli_stall_exit("run", rr->stall);
	if (s->res->stopped_by_max_errors) {
		fprintf(stderr, "feedrate run: stopped after %llu failed "
			"sample%s (--max-errors %llu); see the errors in the "
			"report\n", (unsigned long long)s->res->errors,
			s->res->errors == 1 ? "" : "s",
			(unsigned long long)s->o.c.max_errors);
		return ret == FR_EXIT_ENV ? ret : FR_EXIT_MAX_ERRORS;
	}
	if (rr->run_error) {
		fprintf(stderr, "feedrate run: the run failed: %s\n",
			rr->run_error_text);
		return FR_EXIT_ENV;
	}
	/* files the listing dropped count as errors of the run */
	if (ret == FR_EXIT_OK && (s->res->errors || rr->listing_errors))
		return FR_EXIT_SAMPLE_ERRORS;
	return ret;
}

/* ---- under mpirun ---- */

/* The cluster report's fields from rank 0's own report RR. */
static void run_cluster_fill(struct run_state *s, const struct rpt_run *rr,
			     struct rpt_cluster *c)
{
	memset(c, 0, sizeof(*c));
	c->command = "run";
	c->workload = rr->workload;
	c->dataset = rr->dataset ? rr->dataset : s->o.c.dataset;
	c->format = rr->format;
	c->fs_type = rr->fs_type;
	c->fs_server = s->fs.server;
	c->cache = rr->cache;
	c->files = rr->files;
	c->bytes = rr->bytes;
	c->records = rr->records;
	c->window_s = s->o.duration >= 0 ? s->o.duration :
		      s->o.epochs || s->o.samples ? 0 : LDR_DEFAULT_DURATION_S;
	c->gpu_type = rr->gpu_count ? rr->gpu_type : NULL;
	c->gpus_per_rank = rr->gpu_count;
	c->demand_per_gpu = rr->demand_per_gpu;
	c->au_threshold = jdg_threshold(rr->au_threshold);
	c->demand_kind = rr->demand_kind;
	c->demand_basis = rr->demand_basis;
	c->demand_source = rr->demand_source;
	c->bytes_per_sample = rpt_bytes_per_sample(rr->bytes, rr->records);
	c->signal = cli_stop;
	c->notes = s->notes;
}

/*
 * This rank's point on its share of the dataset and CPUs, its window
 * started with every other rank's; then rank 0's cluster report.
 */
static int run_cluster(struct run_state *s, struct rpt_run *rr,
			int opened)
{
	struct cli_cluster_run run;
	struct rpt_cluster_rank mine;
	struct cli_gate gate;
	struct ms_point p;
	cpu_set_t cpus;
	double *solo = NULL;
	bool shared = false;
	int err = opened;

	/* whatever failed here, this rank walks every step the others walk
	 * (its turn alone, the gate, the gather) saying so, so that no rank
	 * waits for it until a timeout */
	memset(&p, 0, sizeof(p));
	if (!err) {
		run_fill_dataset(s, rr);
		err = run_point(s, &p);
	}
	if (!err)
		err = cli_cluster_cpus("run", &cpus, &shared);
	memset(&run, 0, sizeof(run));
	if (s->o.cache == STG_CACHE_COLD && s->o.solo != 0) {
		struct stg_reader_config rc = { 0 };

		solo = calloc(cli_cluster->world, sizeof(*solo));
		rc.backend = s->o.c.backend;
		rc.depth = s->o.c.depth;
		cli_cluster_solo(err ? NULL : s->md.ds, &rc, s->o.c.readers ?
				 s->o.c.readers : 1, s->o.solo > 0 ?
				 s->o.solo : CLI_RUN_SOLO_S, solo);
		run.solo = solo;
	}
	gate.margin_s = (s->o.warmup > 0 ? s->o.warmup : s->o.warmup < 0 ?
			 0 : LDR_DEFAULT_WARMUP_S) + 3.0;
	p.rank = cli_cluster->rank;
	p.world = cli_cluster->world;
	p.cpus_from = &cpus;
	p.cache_by_other = cli_cluster->local_rank != 0;
	p.gate = cli_cluster_gate;
	p.gate_arg = &gate;
	rr->pipeline = s->pipeline;
	rr->pipeline_name = "native";
	memset(s->res, 0, sizeof(*s->res));
	memset(&s->po, 0, sizeof(s->po));
	if (err) {
		/* said at the gate: rank 0 does not wait for it */
		double start;

		cli_cluster_gate(&gate, false, &start);
		snprintf(s->po.err_text, sizeof(s->po.err_text), "%s",
			 opened ? "the dataset could not be opened on this "
			 "node (this rank's error output says why)" :
			 "its point could not be set up (this rank's error "
			 "output says why)");
	} else {
		ms_point_run(&p, s->res, &s->po);
		run_fill_result(s, rr);
	}
	rr->notes = s->notes;
	cli_cluster_rank_fill(&mine, rr, s->res, &s->po, shared);
	if (cli_cluster->rank == 0)
		run_cluster_fill(s, rr, &run.report);
	run.json = s->o.c.json;
	run.html = s->o.html;
	run.window_s = s->o.duration >= 0 ? s->o.duration :
		       s->o.epochs || s->o.samples ? 0 :
		       LDR_DEFAULT_DURATION_S;
	if (!opened) {
		run.samples_per_epoch = s->md.shards ?
					s->md.shards->ldr.total :
					stg_dataset_count(s->md.ds);
		run.shards = s->md.shards != NULL;
	}
	run.seed = s->o.c.seed;
	err = cli_cluster_report("run", &run, &mine);
	free(solo);
	if (cli_stop)
		return cli_exit_for_signal(cli_stop);
	return err;
}

int cmd_run(int argc, char **argv)
{
	struct sigaction old[2];
	struct run_state *s;
	struct rpt_run rr;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return cli_fail("run", -ENOMEM, 0, "out of memory");
	memset(&rr, 0, sizeof(rr));
	rr.cpu_outside_mask_s = -1;
	rr.fraction_resident = -1;
	rr.hit_ratio = -1;
	ret = run_parse(argc, argv, &s->o);
	if (ret) {
		free(s);
		return ret < 0 ? FR_EXIT_OK : ret;
	}
	ret = run_setup(s);
	if (ret)
		goto out_free;
	cli_signals_catch(old);
	ret = cli_watch_start("run", s->o.c.json, NULL,
			      RPT_RUN_SCHEMA_VERSION);
	if (!ret)
		ret = cli_dataset_open("run", s->w, &s->o.c, &s->md);
	if (!ret && cli_stop)
		ret = cli_fail("run", -EINTR, cli_stop, "interrupted before "
			       "the measurement; nothing was measured");
	if (cli_cluster) {
		ret = run_cluster(s, &rr, ret);
	} else if (!ret) {
		run_fill_dataset(s, &rr);
		ret = run_measure(s, &rr);
		if (!ret)
			ret = run_report(s, &rr);
	}
	cli_watch_stop();
	cli_signals_restore(old);
out_free:
	/* the listing; the generated folder unless --keep-dataset */
	cli_dataset_close("run", &s->md, s->o.c.keep);
	wl_transform_state_release(&s->ts);
	free(s->res);
	free(s);
	return ret;
}
