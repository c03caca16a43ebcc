/*
 * cmd_ckpt.c - `feedrate ckpt`: how long this VM's storage takes to save and
 * restore a model's sharded checkpoint, and what that means for a training
 * job. Options and wiring: the size (--params x --bytes-per-param, or
 * --size), the shards (one per GPU rank of --gpus), ms_ckpt_run
 * (measure/measure_ckpt.c); the folder check, the progress lines and the
 * report are reports/rpt_ckpt_run.c's. SIGINT/SIGTERM only set `cli_stop`,
 * which the shard threads poll: what was written is removed, and the exit
 * status says which signal came.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpt_steps.h"

struct ckpt_opts {
	struct ms_common_opts c;       /* workload, GPUs, json, seed... */
	struct rpt_ckpt_ask a;          /* the size, the training figures */
	struct ms_ckpt_config cfg;      /* shards 0: the GPU count */
};

/* Returns 0, -1 after --help, or FR_EXIT_USAGE. */
static int ckpt_parse(int argc, char **argv, struct ckpt_opts *o)
{
	struct cli_bind b[CLI_COMMON_BINDS + 12] = {
		CLI_BIND("params", o->a.params),
		CLI_BIND("bytes-per-param", o->a.bytes_per_param),
		CLI_BIND("size", o->a.size),
		CLI_BIND("shards", o->cfg.shards),
		CLI_BIND("depth", o->cfg.io.depth),
		CLI_BIND("block-size", o->cfg.io.block_size),
		CLI_BIND("direct", o->a.direct), CLI_BIND("keep", o->cfg.keep),
		CLI_BIND("step-time", o->a.step_s),
		CLI_BIND("interval", o->a.interval_s),
		CLI_BIND("ckpt-budget", o->a.budget),
		CLI_BIND("epoch-samples", o->a.epoch_samples),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	ms_common_defaults(&o->c);
	o->a.budget = RPT_CKPT_DEFAULT_BUDGET;
	ret = cli_opts_read(CLI_CKPT, argc, argv, b, 12 +
			    cli_common_binds(&o->c, b + 12));
	if (ret)
		return ret;
	if (optind + 1 != argc)
		return cli_usage_error("ckpt", optind >= argc ? "missing DIR" :
				       "one DIR only");
	o->cfg.dir = argv[optind];
	if (!o->a.params == !o->a.size)
		return cli_usage_error("ckpt", o->a.size ? "--params or --size, "
				       "not both" : "give --params N (e.g. 7B) "
				       "or --size SIZE");
	return 0;
}

/* The workload and GPUs of O into *GS, O's size and shards into its
 * config, its reports and folder checked. 0 or an exit code (printed). */
static int ckpt_ask(struct ckpt_opts *o, struct ms_gpus *gs)
{
	const struct wl_workload *w;
	char why[768];
	int ret, err;

	if ((ret = rpt_workload("ckpt", o->c.workload, &w)) ||
	    (ret = rpt_ckpt_bytes(&o->a, &o->cfg.bytes)))
		return ret;
	ms_common_from_workload(&o->c, w);
	err = ms_gpus_resolve(w, o->c.gpus, o->c.demand, o->c.gpu_rate, gs,
			      why, sizeof(why));
	if (err || !gs->count)
		return rpt_usage("ckpt", err ? why : "--gpus 0 leaves no rank "
				 "to write a shard");
	if ((ret = cli_check_reports("ckpt", &o->c.json, 1, o->cfg.dir,
				     NULL)) ||
	    (ret = rpt_ckpt_check_dir(o->cfg.dir, o->cfg.bytes)))
		return ret;
	if (!o->cfg.shards)
		o->cfg.shards = gs->count;
	if (o->cfg.shards > MS_CKPT_MAX_SHARDS)
		return cli_usage_error("ckpt", "%u ranks: at most %u shards on "
				       "one VM (--shards)", o->cfg.shards,
				       MS_CKPT_MAX_SHARDS);
	return 0;
}

int cmd_ckpt(int argc, char **argv)
{
	struct ckpt_opts o;
	struct ms_gpus gs;
	struct ms_ckpt_result *res;
	struct rpt_ckpt r;
	struct sigaction old[2];
	int ret = ckpt_parse(argc, argv, &o), err;

	if (ret || (ret = ckpt_ask(&o, &gs)))
		return ret < 0 ? FR_EXIT_OK : ret;
	res = malloc(sizeof(*res));
	if (!res)
		return rpt_fail("ckpt", -ENOMEM, 0, "out of memory");
	rpt_ckpt_setup(o.cfg.dir, &gs, &r);
	o.cfg.io.backend = o.c.backend;
	o.cfg.io.direct = o.a.direct;
	o.cfg.seed = o.c.seed;
	o.cfg.stop = &cli_stop;
	o.cfg.progress = rpt_ckpt_progress;
	cli_signals_catch(old);
	if (cli_watch_start("ckpt", o.c.json, RPT_CKPT_SCHEMA_NAME,
			    RPT_CKPT_SCHEMA_VERSION)) {
		cli_signals_restore(old);
		free(res);
		return FR_EXIT_ENV;
	}
	err = ms_ckpt_run(&o.cfg, res);
	cli_watch_claim();
	ldr_watchdog_stop();
	cli_signals_restore(old);
	rpt_ckpt_fill(&r, &o.a, o.cfg.bytes, res);
	r.signal = cli_stop;
	r.error = err ? res->err_text : "";
	if (err == -ENOTEMPTY || err == -ENOTDIR) {
		/* the folder changed between the check and the run */
		ret = rpt_fail("ckpt", -EINVAL, 0, res->err_text);
	} else {
		if (err && err != -EINTR)
			rpt_fail("ckpt", err, 0, res->err_text);
		ret = rpt_ckpt_end(&r, o.c.json, err, cli_stop);
	}
	free(res);
	return ret;
}
