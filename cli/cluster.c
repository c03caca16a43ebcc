/*
 * cluster.c - a command launched by mpirun: the launch detected at start,
 * the cluster opened (measure/cluster.c) and closed at the end.
 *
 * Wiring only, like the rest of cli/: the protocol is measure/'s
 * (cluster_run.c, cluster_io.c, cluster_sweep.c), the report reports/'
 * (report_cluster_fill.c, report_cluster_out.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster.h"

static struct ms_cluster cluster;
struct ms_cluster *cli_cluster;

int cli_cluster_start(int *argc, char ***argv)
{
	char why[400];
	int err = ms_cluster_launch(argc, argv, &cluster, &cli_stop, why,
				    sizeof(why));

	if (err == 1)
		cli_cluster = &cluster;
	if (err >= 0)
		return 0;
	if (why[0])
		fprintf(stderr, "feedrate: %s\n", why);
	return err == -ENOTSUP ? FR_EXIT_USAGE : FR_EXIT_ENV;
}

void cli_cluster_end(void)
{
	if (!cli_cluster)
		return;
	ms_cluster_close(cli_cluster);
	cli_cluster = NULL;
}

bool cli_cluster_rank0(void)
{
	return !cli_cluster || cli_cluster->rank == 0;
}

int cli_cluster_refuse(const char *cmd)
{
	if (!cli_cluster || cli_cluster->world < 2)
		return 0;
	if (cli_cluster->rank == 0)
		fprintf(stderr, "feedrate %s: runs on one node: launch it "
			"without mpirun (under mpirun: run, sweep and io)\n",
			cmd);
	return FR_EXIT_USAGE;
}
