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

/* What run, sweep and io refuse, and where: a fact of struct cli_mpi_ask
 * and the words each command says it in. */
enum mpi_fact { NO_DATASET, RAM, PIPELINE, MPI_ONLY };

static const struct mpi_refusal {
	enum mpi_fact fact;
	enum cli_cmd cmd;
	const char *why;
} mpi_refusals[] = {
	{ NO_DATASET, CLI_RUN, "under mpirun give a DATASET every node sees "
	  "(shared storage): a generated one would be each node's own" },
	{ RAM, CLI_RUN, "--ram is for one node: under mpirun use --cache "
	  "cold or warm" },
	{ PIPELINE, CLI_RUN, "under mpirun the native pipeline runs "
	  "(--pipeline torch, python:FILE and gpu-decode are for one node)" },
	{ MPI_ONLY, CLI_RUN, "--html, --solo and --mpi-timeout are for runs "
	  "under mpirun (sweep writes HTML on one node)" },
	{ NO_DATASET, CLI_SWEEP, "under mpirun give a DATASET every node sees "
	  "(shared storage)" },
	{ RAM, CLI_SWEEP, "under mpirun the cache states are cold and warm "
	  "(--ram is for one node)" },
	{ PIPELINE, CLI_SWEEP, "under mpirun the native pipeline runs "
	  "(--pipeline is for one node)" },
	{ MPI_ONLY, CLI_IO, "--html, --solo and --mpi-timeout are for io "
	  "under mpirun" },
};

int cli_mpi_check(enum cli_cmd cmd, const struct cli_mpi_ask *a)
{
	const bool facts[] = { [NO_DATASET] = !a->dataset, [RAM] = a->ram,
			       [PIPELINE] = a->pipeline,
			       [MPI_ONLY] = a->mpi_only };

	for (size_t i = 0; i < sizeof(mpi_refusals) /
	     sizeof(mpi_refusals[0]); i++) {
		const struct mpi_refusal *r = &mpi_refusals[i];

		/* MPI_ONLY is refused on one node, the rest under mpirun */
		if (r->cmd != cmd || !facts[r->fact] ||
		    (r->fact == MPI_ONLY) == (cli_cluster != NULL))
			continue;
		/* every rank parses the same line: rank 0 says why */
		return cli_cluster_rank0() ? cli_usage_error(cli_cmd_name(cmd),
			"%s", r->why) : FR_EXIT_USAGE;
	}
	if (cli_cluster && a->mpi_timeout)
		cli_cluster->timeout_s = a->mpi_timeout;
	return 0;
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
