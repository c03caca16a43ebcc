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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rpt_usage.h"
#include "sweep.h"


static void sweep_head(FILE *f)
{
	rpt_usage_head(f, "sweep");
}

static void sweep_tail(FILE *f)
{
	rpt_workloads_usage(f);
	rpt_usage_tail(f, "sweep");
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
	ms_common_defaults(&o->c);
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
		ret = rpt_dataset_open("sweep", s->w, &s->o.c, &cli_stop, &s->md);
	if (cli_cluster) {
		ret = cli_sweep_cluster_run(s, ret != 0);
	} else {
		if (!ret)
			ret = cli_sweep_run(s);
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
		cli_sweep_pipe_free(s->subs[i]);
		free(s->subs[i]);
	}
	cli_sweep_pipe_free(&s->own);
	free(s);
	return ret;
}
