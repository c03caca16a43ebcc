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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "rpt_usage.h"
#include "run.h"


static void run_head(FILE *f)
{
	rpt_usage_head(f, "run");
}

static void run_tail(FILE *f)
{
	rpt_workloads_usage(f);
	rpt_usage_tail(f, "run");
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
	ms_common_defaults(&o->c);
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
		ret = cli_run_cluster(s, &rr, ret);
	} else if (!ret) {
		cli_run_fill_dataset(s, &rr);
		ret = cli_run_measure(s, &rr);
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
