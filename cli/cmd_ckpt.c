/*
 * cmd_ckpt.c - `feedrate ckpt`: how long this VM's storage takes to save and
 * restore a model's sharded checkpoint, and what that means for a training
 * job. Options and wiring: the size (--params x --bytes-per-param, or
 * --size), the shards (one per GPU rank of --gpus), the folder check,
 * ms_ckpt_run (measure/measure_ckpt.c) and rpt_ckpt's report
 * (reports/report_ckpt.c). SIGINT/SIGTERM only set `cli_stop`, which the
 * shard threads poll: what was written is removed, and the exit status says
 * which signal came.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "measure.h"
#include "report.h"
#include "report_ckpt.h"
#include "rpt_usage.h"

struct ckpt_opts {
	struct cli_common_opts c;       /* workload, GPUs, json, seed... */
	struct rpt_ckpt_ask a;          /* the size, the training figures */
	unsigned shards;                /* 0: the GPU count */
	uint32_t block_size;
	unsigned depth;
	bool keep;
	const char *dir;
};

static void ckpt_head(FILE *f)
{
	rpt_usage_head(f, "ckpt");
}

static void ckpt_tail(FILE *f)
{
	rpt_usage_tail(f, "ckpt");
}

/* Returns 0, -1 after --help, or FR_EXIT_USAGE. */
static int ckpt_parse(int argc, char **argv, struct ckpt_opts *o)
{
	static const struct cli_usage usage = { ckpt_head, ckpt_tail };
	struct cli_bind b[CLI_COMMON_BINDS + 12] = {
		CLI_BIND("params", o->a.params),
		CLI_BIND("bytes-per-param", o->a.bytes_per_param),
		CLI_BIND("size", o->a.size),
		CLI_BIND("shards", o->shards), CLI_BIND("depth", o->depth),
		CLI_BIND("block-size", o->block_size),
		CLI_BIND("direct", o->a.direct), CLI_BIND("keep", o->keep),
		CLI_BIND("step-time", o->a.step_s),
		CLI_BIND("interval", o->a.interval_s),
		CLI_BIND("ckpt-budget", o->a.budget),
		CLI_BIND("epoch-samples", o->a.epoch_samples),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	cli_common_defaults(&o->c);
	o->a.bytes_per_param = RPT_CKPT_BYTES_PER_PARAM;
	o->a.budget = RPT_CKPT_DEFAULT_BUDGET;
	ret = cli_opts_parse(CLI_CKPT, argc, argv, b, 12 +
			     cli_common_binds(&o->c, b + 12), &usage);
	if (ret)
		return ret;
	if (optind + 1 != argc)
		return cli_usage_error("ckpt", optind >= argc ? "missing DIR" :
				       "one DIR only");
	o->dir = argv[optind];
	if (!o->a.params == !o->a.size)
		return cli_usage_error("ckpt", o->a.size ? "--params or --size, "
				       "not both" : "give --params N (e.g. 7B) "
				       "or --size SIZE");
	return 0;
}

/* The bytes O asks for; FR_EXIT_USAGE (printed) when out of range. */
static int ckpt_bytes(const struct ckpt_opts *o, uint64_t *bytes)
{
	const double b = o->a.params ? o->a.params * o->a.bytes_per_param :
			 (double)o->a.size;

	if (!(b >= 1) || b >= 1.8e19)
		return cli_usage_error("ckpt", "a checkpoint of %.3g bytes is "
				       "out of range", b);
	*bytes = (uint64_t)llround(b);
	return 0;
}

static void ckpt_on_progress(enum ms_ckpt_event ev,
			     const struct ms_ckpt_result *r, void *arg)
{
	char b[32];

	(void)arg;
	snprintf(b, sizeof(b), "%.2f GB", (double)r->bytes / 1e9);
	if (ev == MS_CKPT_EV_WRITING)
		fprintf(stderr, "feedrate ckpt: writing %s in %u shards\n", b,
			r->shards);
	else if (ev == MS_CKPT_EV_SAVED)
		fprintf(stderr, "feedrate ckpt: saved %s in %.2f s (%.2f GB/s), "
			"synced; restoring\n", b, r->save.seconds,
			r->save.bytes_per_s / 1e9);
}

/* Refuse DIR before anything is written: exit 2 with the numbers. */
static int ckpt_check(const char *dir, uint64_t bytes)
{
	char why[1024];
	uint64_t free_b;
	int err = ms_ckpt_check_dir(dir, bytes, &free_b, why, sizeof(why));

	if (!err)
		return 0;
	fprintf(stderr, "feedrate ckpt: ");
	rpt_put_path(stderr, why);
	fputc('\n', stderr);
	return err == -ENOTEMPTY || err == -ENOSPC || err == -ENOTDIR ||
	       err == -ENOENT ? FR_EXIT_USAGE : FR_EXIT_ENV;
}

/* Print and write the report; returns the exit code. */
static int ckpt_report(const struct ckpt_opts *o, struct rpt_ckpt *r,
		       int err)
{
	FILE *f = rpt_text_out(&o->c.json, 1);
	int ret = 0;

	rpt_ckpt_print(f, r);
	fflush(f);
	if (o->c.json) {
		json_t *j = rpt_ckpt_json(r);

		/* NULL JSON and text: the writer says out of memory */
		ret = rpt_write_report("ckpt", o->c.json, j, NULL, "JSON");
		json_decref(j);
	}
	if (cli_stop || err == -EINTR)
		return rpt_exit_for_signal(cli_stop ? cli_stop : SIGINT);
	{
		struct stg_stall stall;

		if (ldr_watchdog_stall(&stall))
			return rpt_stall_exit("ckpt", &stall);
	}
	if (ret)
		return ret;
	if (err)
		return err == -ENOTEMPTY || err == -ENOTDIR ? FR_EXIT_USAGE :
		       FR_EXIT_ENV;
	return FR_EXIT_OK;
}

/* R (zeroed) with its setup: DIR's machine and storage, the GPUs GS. */
static void ckpt_setup(const char *dir, const struct ms_gpus *gs,
		       struct rpt_ckpt *r)
{
	static struct ms_machine m;     /* large; the report borrows it */

	memset(r, 0, sizeof(*r));
	ms_ckpt_machine(dir, &m);
	rpt_setup_fill(&r->setup, &(struct rpt_setup_src){
		.version = FEEDRATE_VERSION, .m = &m, .dataset = dir,
		.gs = gs, .backend = -1, .cache = -1 });
}

int cmd_ckpt(int argc, char **argv)
{
	struct ckpt_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_ckpt_config cfg;
	struct ms_ckpt_result *res = NULL;
	struct rpt_ckpt r;
	struct sigaction old[2];
	char why[768];
	uint64_t bytes = 0;
	int ret = ckpt_parse(argc, argv, &o), err;

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	if ((ret = cli_workload("ckpt", o.c.workload, &w)) ||
	    (ret = ckpt_bytes(&o, &bytes)))
		return ret;
	cli_common_from_workload(&o.c, w);
	err = ms_gpus_resolve(w, o.c.gpus, o.c.demand, o.c.gpu_rate, &gs, why,
			      sizeof(why));
	if (err || !gs.count) {
		rpt_fail("ckpt", -EINVAL, 0, err ? why : "--gpus 0 leaves no "
			 "rank to write a shard");
		fprintf(stderr, "Try 'feedrate ckpt --help'.\n");
		return FR_EXIT_USAGE;
	}
	if ((ret = cli_check_reports("ckpt", &o.c.json, 1, o.dir, NULL)) ||
	    (ret = ckpt_check(o.dir, bytes)))
		return ret;
	res = malloc(sizeof(*res));
	if (!res)
		return rpt_fail("ckpt", -ENOMEM, 0, "out of memory");
	ckpt_setup(o.dir, &gs, &r);
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = o.dir;
	cfg.bytes = bytes;
	cfg.shards = o.shards ? o.shards : gs.count;
	if (cfg.shards > MS_CKPT_MAX_SHARDS) {
		free(res);
		return cli_usage_error("ckpt", "%u ranks: at most %u shards on "
				       "one VM (--shards)", cfg.shards,
				       MS_CKPT_MAX_SHARDS);
	}
	cfg.io.backend = o.c.backend;
	cfg.io.block_size = o.block_size;
	cfg.io.depth = o.depth;
	cfg.io.direct = o.a.direct;
	cfg.seed = o.c.seed;
	cfg.keep = o.keep;
	cfg.stop = &cli_stop;
	cfg.progress = ckpt_on_progress;
	cli_signals_catch(old);
	if (cli_watch_start("ckpt", o.c.json, RPT_CKPT_SCHEMA_NAME,
			    RPT_CKPT_SCHEMA_VERSION)) {
		cli_signals_restore(old);
		free(res);
		return FR_EXIT_ENV;
	}
	err = ms_ckpt_run(&cfg, res);
	cli_watch_claim();
	ldr_watchdog_stop();
	cli_signals_restore(old);
	rpt_ckpt_fill(&r, &o.a, bytes, res);
	r.signal = cli_stop;
	r.error = err ? res->err_text : "";
	if (err == -ENOTEMPTY || err == -ENOTDIR) {
		/* the folder changed between the check and the run */
		ret = rpt_fail("ckpt", -EINVAL, 0, res->err_text);
	} else {
		if (err && err != -EINTR)
			rpt_fail("ckpt", err, 0, res->err_text);
		ret = ckpt_report(&o, &r, err);
	}
	free(res);
	return ret;
}
