/*
 * cli_cluster.h - the commands' wiring under mpirun (cluster.c,
 * sweep_cluster.c): rank 0's cluster report written, the cluster sweep
 * wired to the sweep's options. Private to cli/.
 */
#ifndef FEEDRATE_CLI_CLUSTER_H
#define FEEDRATE_CLI_CLUSTER_H

#include "cli.h"
#include "cluster.h"
#include "report_cluster.h"

/* What rank 0 needs besides the ranks' records. */
struct cli_cluster_run {
	struct rpt_cluster report;      /* its command, dataset, GPU fields
	                                   filled by the command */
	const char *json, *html;        /* --json, --html; NULL none */
	struct ms_cluster_check check;  /* the reads alone, the window, the
	                                   exactly-once check */
};

/*
 * Send MINE to rank 0; on rank 0 gather every rank's (a lost one is named
 * after the common window's end plus a grace, measure/cluster_run.c),
 * print the cluster report and write RUN's JSON and HTML. Returns the exit
 * code (rank 0: 5 when a rank was lost or failed; other ranks: 0).
 */
int cli_cluster_report(const char *cmd, struct cli_cluster_run *run,
		       const struct rpt_cluster_rank *mine);

/* Say an error of a cluster step as rpt_fail does (ARG the command's
 * name): the `say` of measure/'s cluster configs. */
void cli_cluster_say(void *arg, int err, const char *why);

#endif
