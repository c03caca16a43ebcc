/*
 * cmd_sweep.c - `feedrate sweep [options] [DATASET]`: the raw feed rate
 * over vCPU counts x cache states within a time budget (measure/'s
 * sweep), the check runs the verdict asks for, then the verdict and the
 * reports.
 *
 * Each pipeline of --pipeline on its share of the budget
 * (measure/sweep_walk.c), its points and check runs measured
 * (measure/sweep_cmd.c), its report read and judged
 * (reports/report_sweep_end.c); under mpirun, sweep_cluster.c.
 *
 * Wiring only. SIGINT/SIGTERM set cli_stop; the loader forwards it to the
 * running child, which stops and still reports; the sweep then prints
 * what it has (marked partial) and exits 130/143. A generated dataset is
 * removed on every path out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"


/* Free P's sweep, report points and transform (not P). */
static void sweep_pipe_free(struct sweep_pipe *p)
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

/* Each pipeline of --pipeline in turn, sharing the budget equally, each
 * planned, measured, checked (and the others judged). 0 or an exit code
 * (printed). */
static int sweep_run(struct sweep_state *s)
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

static int sweep_parse(int argc, char **argv, struct sweep_opts *o)
{
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
	ms_common_defaults(&o->c);
	for (int k = 0; k < STG_CACHE_STATES; k++)
		o->cache[k] = true;
	ret = cli_opts_read(CLI_SWEEP, argc, argv, b, 11 +
			    cli_common_binds(&o->c, b + 11));
	if (!ret)
		ret = cli_parse_dataset("sweep", argc, argv, &o->c);
	if (ret)
		return ret;
	if (o->ram_list.n && !o->cache_given)
		o->cache[STG_CACHE_RAM] = true;
	return 0;
}

/* Workload, GPUs, vCPU counts and report paths, before anything is
 * read. 0 or an exit code. */
static int sweep_setup(struct sweep_state *s)
{
	const char *outs[3] = { s->o.c.json, s->o.csv, s->o.html };
	struct sweep_opts *o = &s->o;
	int ret = rpt_workload("sweep", o->c.workload, &s->w);

	if (!ret) {
		ms_common_from_workload(&o->c, s->w);
		ret = rpt_gpus("sweep", s->w, &o->c, &s->gs);
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
	return ret || !o->ckpt ? ret : rpt_sweep_ckpt_load(o->ckpt, outs, 3,
							       &s->ckpt);
}

int cmd_sweep(int argc, char **argv)
{
	struct sigaction old[2];
	struct sweep_state *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
	ret = sweep_parse(argc, argv, &s->o);
	if (ret) {
		free(s);
		return ret < 0 ? FR_EXIT_OK : ret;
	}
	ret = sweep_setup(s);
	if (ret)
		goto out_free;
	ret = cli_mpi_check(CLI_SWEEP, &(struct cli_mpi_ask){
		.dataset = s->o.c.dataset, .ram = s->o.ram_list.n ||
		(s->o.cache[STG_CACHE_RAM] && s->o.cache_given),
		.pipeline = s->o.c.npipes > 1 ||
			    s->o.c.pipes[0].kind != MS_PIPELINE_NATIVE });
	if (ret)
		goto out_free;
	cli_signals_catch(old);
	if (cli_cluster)
		cli_sweep_cluster_watch(s);
	ret = cli_watch_start("sweep", s->o.c.json, RPT_SWEEP_SCHEMA_NAME,
			      RPT_SWEEP_SCHEMA_VERSION);
	if (!ret)
		ret = rpt_dataset_open("sweep", s->w, &s->o.c, &cli_stop, &s->md);
	if (cli_cluster) {
		ret = cli_sweep_cluster_run(s, ret != 0);
	} else {
		if (!ret)
			ret = sweep_run(s);
		if (!ret) {
			cli_watch_claim();
			rpt_sweep_judge(&s->own.out, &s->own.run, s->o.budget_s,
					s->md.list_s, true, cli_stop);
			ret = rpt_sweep_end(&s->own.out, &s->own.run, cli_stop);
		}
	}
	ldr_watchdog_stop();
	cli_signals_restore(old);
out_free:
	rpt_dataset_close("sweep", &s->md, s->o.c.keep);
	for (unsigned i = 0; i < s->nsubs; i++) {
		sweep_pipe_free(s->subs[i]);
		free(s->subs[i]);
	}
	sweep_pipe_free(&s->own);
	free(s);
	return ret;
}
