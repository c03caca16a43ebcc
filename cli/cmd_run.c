/*
 * cmd_run.c - `feedrate run [options] [DATASET]`: one measurement point
 * and its report. The point the options ask for is measured on one node
 * (measure/measure_run.c: ms_point_run, in a pinned child) or as one rank
 * under mpirun (measure/cluster_run.c, through rpt_run_cluster), and
 * handed to its report (reports/report_run_end.c).
 *
 * Wiring only: the protocol is measure/'s, the words reports/'.
 * SIGINT/SIGTERM set cli_stop; the child stops and still reports; the
 * command exits 130/143 with what it has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measure_run.h"
#include "report_run_end.h"

struct run_opts {
	struct ms_common_opts c;       /* what sweep parses the same way */
	unsigned vcpus;                 /* 0: every usable CPU */
	enum stg_cache_state cache;
	bool cache_given, ram_given;
	uint64_t ram;
	double duration;
	bool duration_given, solo_given, mpi_timeout_given;
	double warmup;                  /* 0 default, < 0 none */
	uint64_t epochs, samples;
	/* under mpirun */
	const char *html;               /* the cluster report as a page */
	double solo;                    /* cold: each rank's reads alone, this
	                                   long; 0 none */
	double mpi_timeout;             /* each cluster step */
};

/* Everything the command owns, released in one place. */
struct run_state {
	struct run_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;           /* the listing, a generated folder */
	struct ms_run r;                /* the point, its result, its end */
	struct wl_transform_state ts;
	struct ms_machine m;            /* the machine, the storage under
	                                   the dataset */
	struct rpt_run_out out;         /* the report's texts, --json */
};

static int run_parse(int argc, char **argv, struct run_opts *o)
{
	struct cli_bind b[CLI_COMMON_BINDS + 10] = {
		CLI_BIND("vcpus", o->vcpus),
		CLI_BIND_G("cache", o->cache, o->cache_given),
		CLI_BIND_G("ram", o->ram, o->ram_given),
		CLI_BIND_G("duration", o->duration, o->duration_given),
		CLI_BIND("warmup", o->warmup),
		CLI_BIND("epochs", o->epochs),
		CLI_BIND("samples", o->samples),
		CLI_BIND("html", o->html),
		CLI_BIND_G("solo", o->solo, o->solo_given),
		CLI_BIND_G("mpi-timeout", o->mpi_timeout, o->mpi_timeout_given),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	ms_common_defaults(&o->c);
	ret = cli_opts_read(CLI_RUN, argc, argv, b, 10 +
			    cli_common_binds(&o->c, b + 10));
	if (ret)
		return ret;
	if (o->ram_given && o->cache_given)
		return cli_usage_error("run", "--ram measures its own cache "
				       "state: give --cache or --ram");
	if (o->ram_given)
		o->cache = STG_CACHE_RAM;
	ret = cli_parse_dataset("run", argc, argv, &o->c);
	return ret ? ret : cli_mpi_check(CLI_RUN, &(struct cli_mpi_ask){
		.dataset = o->c.dataset, .ram = o->cache == STG_CACHE_RAM,
		.pipeline = o->c.pipes[0].kind != MS_PIPELINE_NATIVE,
		.mpi_only = o->html || o->solo_given || o->mpi_timeout_given,
		.mpi_timeout = o->mpi_timeout });
}

/* Workload, GPUs, vCPUs checked before anything is read. 0 or exit. */
static int run_setup(struct run_state *s)
{
	struct ldr_cpu_choice cpus;
	int err = rpt_workload("run", s->o.c.workload, &s->w);

	if (!err) {
		ms_common_from_workload(&s->o.c, s->w);
		err = rpt_gpus("run", s->w, &s->o.c, &s->gs);
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
	err = cli_pipelines_check("run", &s->o.c, &s->r.probe);
	if (err)
		return err;
	s->r.res = calloc(1, sizeof(*s->r.res));
	if (!s->r.res)
		return rpt_fail("run", -ENOMEM, 0, "out of memory");
	if (s->o.c.keep && s->o.c.dataset)
		rpt_run_note(&s->out, "--keep-dataset has no effect with a DATASET");
	return 0;
}

/* The report's setup and listing. */
static void run_fill_dataset(struct run_state *s, struct rpt_run *rr)
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
	return !o->duration_given && (o->epochs || o->samples ||
	       o->cache == STG_CACHE_RAM) ? 0 : o->duration;
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

/* The transform, the point, the measurement. 0 or an exit code. */
static int run_measure(struct run_state *s, struct rpt_run *rr)
{
	int err = run_point(s, &s->r.p);

	if (err)
		return err;
	rpt_run_fill_start(rr, &s->out, &s->r, s->m.fs.page_cache_volatile);
	ms_run(&s->r, &cli_stop);
	return rpt_run_fill_end(rr, &s->out, &s->r, s->gs.type,
				s->o.cache == STG_CACHE_RAM, &s->md, cli_stop);
}

/* Under mpirun: this rank's point, then rank 0's cluster report
 * (rpt_run_cluster). OPENED: the dataset's opening (0, or its exit
 * code). Returns the exit code. */
static int run_cluster(struct run_state *s, struct rpt_run *rr, int opened)
{
	int err = opened;

	if (!err) {
		run_fill_dataset(s, rr);
		err = run_point(s, &s->r.p);
	}
	return rpt_run_cluster(cli_cluster, &(const struct rpt_run_cluster){
		.ask = { .o = &s->o.c, .p = &s->r.p, .md = &s->md,
			 .open_failed = opened != 0, .point_failed = err != 0,
			 .warmup_s = s->o.warmup, .solo_s = s->o.solo,
			 /* no --ram under mpirun */
			 .window_s = run_window(&s->o) },
		.cache = s->o.cache, .html = s->o.html,
		.dataset = s->o.c.dataset, .server = s->m.fs.server,
		.stop = &cli_stop }, &s->r, rr, &s->out);
}

int cmd_run(int argc, char **argv)
{
	struct sigaction old[2];
	struct run_state *s;
	struct rpt_run rr;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return rpt_fail("run", -ENOMEM, 0, "out of memory");
	memset(&rr, 0, sizeof(rr));
	rr.cpu_outside_mask_s = -1;
	rr.fraction_resident = -1;
	rr.hit_ratio = -1;
	ret = run_parse(argc, argv, &s->o);
	s->out.json = s->o.c.json;
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
		ret = rpt_dataset_open("run", s->w, &s->o.c, &cli_stop, &s->md);
	if (!ret && cli_stop)
		ret = rpt_fail("run", -EINTR, cli_stop, "interrupted before "
			       "the measurement; nothing was measured");
	if (cli_cluster) {
		ret = run_cluster(s, &rr, ret);
	} else if (!ret) {
		run_fill_dataset(s, &rr);
		ret = run_measure(s, &rr);
		if (!ret) {
			cli_watch_claim();
			ret = rpt_run_exit(&rr, &s->out, s->r.res,
					   s->o.c.max_errors);
		}
	}
	ldr_watchdog_stop();
	cli_signals_restore(old);
out_free:
	/* the listing; the generated folder unless --keep-dataset */
	rpt_dataset_close("run", &s->md, s->o.c.keep);
	wl_transform_state_release(&s->ts);
	free(s->r.res);
	free(s);
	return ret;
}
