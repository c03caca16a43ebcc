/*
 * cmd_io.c - `feedrate io`: storage only, no decoding. Options and
 * wiring: lists the dataset, hands it to ms_io_run (measure/measure_io.c:
 * the reader threads, the page cache, the auto probe) and ends with
 * rpt_iorun_report (reports/report_iorun.c). SIGINT/SIGTERM only set
 * `cli_stop`, which the reader threads poll: they claim no more files and
 * drain what is in flight, and the report covers what was read.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report_cluster_out.h"
#include "cluster.h"
#include "measure.h"
#include "report.h"
#include "rpt_steps.h"
#include "storage.h"

struct io_opts {
	struct ms_io_config cfg;    /* all but ds, stop and progress */
	const char *list;
	const char *json;
	const char *dataset;
	struct rpt_setup setup;     /* what the report says was read */
	/* under mpirun */
	const char *html;
	double solo;                /* each rank alone: < 0 as --duration,
	                               0 none */
	double mpi_timeout;
	bool mpi_timeout_given;
};

static int io_parse(int argc, char **argv, struct io_opts *o)
{
	struct stg_reader_config *rc = &o->cfg.rc;
	const struct cli_bind b[] = {
		CLI_BIND("backend", rc->backend),
		CLI_BIND("threads", o->cfg.threads),
		CLI_BIND("depth", rc->depth),
		CLI_BIND("block-size", rc->block_size),
		CLI_BIND("cache", o->cfg.cache),
		CLI_BIND("direct", rc->direct),
		CLI_BIND("duration", o->cfg.duration_s),
		CLI_BIND("max-sample-bytes", rc->max_sample_bytes),
		CLI_BIND("list", o->list),
		CLI_BIND("json", o->json),
		CLI_BIND("html", o->html),
		CLI_BIND("solo", o->solo),
		CLI_BIND_G("mpi-timeout", o->mpi_timeout, o->mpi_timeout_given),
		CLI_BIND("stall-timeout", cli_stall_timeout),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->cfg.cache = MS_IO_CACHE_ASIS;
	o->solo = -1;
	ret = cli_opts_read(CLI_IO, argc, argv, b, sizeof(b) / sizeof(b[0]));
	if (ret)
		return ret;
	if (optind + 1 != argc)
		return cli_usage_error("io", optind >= argc ?
				       "missing DATASET" : "one DATASET only");
	o->dataset = argv[optind];
	return cli_mpi_check(CLI_IO, &(struct cli_mpi_ask){ .dataset = true,
		.mpi_only = o->html || o->solo >= 0 || o->mpi_timeout_given,
		.mpi_timeout = o->mpi_timeout });
}

/* List O's dataset into *MD (the one listing run and sweep use). Returns
 * 0 or an exit code after saying why (an empty dataset is 5). */
static int io_list(const struct io_opts *o, struct ms_dataset *md)
{
	const struct ms_dataset_opts d = { .dataset = o->dataset,
					   .list = o->list };
	char why[1024];
	int err = ms_dataset_open(&d, md, why, sizeof(why));

	return err ? rpt_fail("io", err, 0, why) : 0;
}

/* io under mpirun: rpt_iorun_cluster with O's options. */
static int io_cluster(struct io_opts *o, struct ms_dataset *md,
		      struct ms_io_result *res)
{
	return rpt_iorun_cluster(cli_cluster, &(const struct rpt_iorun_cluster){
		.cfg = &o->cfg, .dataset = o->dataset, .json = o->json,
		.html = o->html, .solo_s = o->solo, .stop = &cli_stop }, md,
		res);
}

int cmd_io(int argc, char **argv)
{
	struct io_opts o;
	struct ms_dataset md = { 0 };
	struct ms_io_result *res = NULL;
	struct sigaction old[2];
	int ret = io_parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	ret = cli_check_reports("io", &o.json, 1, o.dataset, o.list);
	if (ret)
		return ret;
	/* the listing too is watched: it may stall */
	cli_signals_catch(old);
	ret = cli_watch_start("io", o.json, NULL, 1);
	if (!ret) {
		res = malloc(sizeof(*res));
		ret = io_list(&o, &md);
	}
	if (!ret && !res)
		ret = rpt_fail("io", -ENOMEM, 0, "out of memory");
	if (ret && cli_cluster && res) {
		/* a node whose listing failed still walks the cluster's
		 * steps, saying so (md.ds NULL) */
		io_cluster(&o, &md, res);
	}
	if (ret)
		goto out;
	o.cfg.ds = md.ds;
	rpt_setup_fill(&o.setup, &(struct rpt_setup_src){ .md = &md,
		.dataset = o.dataset, .backend = -1, .cache = -1 });
	o.cfg.stop = &cli_stop;
	o.cfg.progress = rpt_iorun_progress;
	if (cli_cluster) {
		ret = io_cluster(&o, &md, res);
		if (cli_stop)
			ret = rpt_exit_for_signal(cli_stop);
	} else if (ms_io_run(&o.cfg, res))
		ret = rpt_fail("io", -EIO, 0, res->err_text);
	else {
		cli_watch_claim();
		ret = rpt_iorun_report(&o.setup, &o.cfg, res, o.json);
		if (cli_stop)   /* after the report */
			ret = rpt_exit_for_signal(cli_stop);
	}
out:
	ldr_watchdog_stop();
	cli_signals_restore(old);
	free(res);
	ms_dataset_close(&md, true);
	return ret;
}
