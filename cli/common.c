/*
 * common.c - the wiring the commands share past their options (those are
 * in common_opts.c): the stop flag the signal handler sets, the stall
 * watchdog, and the report paths checked against what a command reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cluster.h"
#include "rpt_steps.h"

volatile sig_atomic_t cli_stop;
double cli_stall_timeout;

static void on_signal(int sig)
{
	cli_stop = sig;
}

void cli_signals_catch(struct sigaction old[2])
{
	struct sigaction sa = { .sa_handler = on_signal };

	cli_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
}

void cli_signals_restore(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
}

/* What the watchdog's report names; set before the watchdog starts. */
static struct rpt_partial cli_wd;
static int (*cli_wd_cluster)(void *arg, struct ms_cluster_result *res);
static void *cli_wd_cluster_arg;

void cli_watch_cluster_report(int (*fn)(void *arg,
					struct ms_cluster_result *res),
			      void *arg)
{
	cli_wd_cluster = fn;
	cli_wd_cluster_arg = arg;
}

int cli_watch_start(const char *cmd, const char *json, const char *schema,
		    int version)
{
	const struct ldr_watchdog_opts o = {
		.stall_timeout_s = cli_stall_timeout, .stop = &cli_stop,
		.report = rpt_watch_report, .arg = &cli_wd,
		.no_signal_takeover = cli_cluster != NULL,
	};
	int err;

	/* under mpirun only rank 0 writes the report file, the cluster's */
	cli_wd = (struct rpt_partial){ cmd, cli_cluster &&
		cli_cluster->rank != 0 ? NULL : json, schema, version,
		cli_cluster, cli_wd_cluster, cli_wd_cluster_arg };
	err = stg_watch_init();
	if (!err)
		err = ldr_watchdog_start(&o);
	return err ? rpt_fail(cmd, err, 0, "cannot start the stall watchdog") :
	       0;
}

void cli_watch_claim(void)
{
	/* always granted where no watchdog runs */
	if (!ldr_watchdog_claim())
		ldr_watchdog_park();
}

int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list)
{
	/* a report never overwrites what the run reads, job file included */
	const char *roots[3] = { dataset, list, wl_job_loaded() };

	return rpt_check_reports(cmd, paths, n, roots, 3);
}
