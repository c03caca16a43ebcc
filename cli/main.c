/*
 * main.c - feedrate's entry point: finds the command in the table and hands
 * it the rest of the command line.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cluster.h"
#include "rpt_usage.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	bool own_process;       /* supervised (ldr_supervise) */
	bool cluster;           /* runs under mpirun on several ranks */
	const char *summary;
};

/* One line per command, in the order `feedrate --help` lists them. */
static const struct command commands[] = {
	{ "run", cmd_run, true, true, "measure how many GPUs this VM keeps fed" },
	{ "sweep", cmd_sweep, true, true, "vCPUs x cache states, then the verdict and reports" },
	{ "compare", cmd_compare, false, false, "candidate VMs side by side from sweep reports" },
	{ "io", cmd_io, true, true, "storage only: read a dataset, fio-comparable" },
	{ "info", cmd_info, false, false, "what this machine and the storage under PATH are" },
	{ "gen", cmd_gen, true, false, "write a synthetic dataset with a workload's statistics" },
	{ "ckpt", cmd_ckpt, true, false, "save and restore a sharded checkpoint on DIR's storage" },
};

static const size_t ncommands = sizeof(commands) / sizeof(commands[0]);

static void usage(FILE *f)
{
	rpt_usage_head(f, "feedrate");
	for (size_t i = 0; i < ncommands; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	rpt_usage_tail(f, "feedrate");
}

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ncommands; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* Run command C with ARGV[1..]: in a process of its own, so that the
 * shell (or mpirun) gets the exit status once the report is written even
 * while a thread waits in the kernel on stalled storage (a rank of
 * mpirun dies with the pid its launcher started); launched by mpirun,
 * MPI first, before any thread. */
static int command_run(const struct command *c, int argc, char **argv)
{
	unsigned world;
	int ret;

	if (c->own_process)
		ldr_supervise(ms_comm_mpi_launched(&world) ? SIGKILL : SIGTERM);
	ret = cli_cluster_start(&argc, &argv);
	if (ret)
		return ret;
	if (!c->cluster)
		ret = cli_cluster_refuse(c->name);
	if (!ret)
		ret = c->fn(argc - 1, argv + 1);
	cli_cluster_end();
	fflush(stdout);
	fflush(stderr);
	ldr_supervised_done(ret);
	return ret;
}

int main(int argc, char **argv)
{
	const char *name = argc < 2 ? "" : argv[1];
	const struct command *c = command_find(name);

	if (c)
		return command_run(c, argc, argv);
	if (!strcmp(name, "help") && argc > 2 && (c = command_find(argv[2]))) {
		/* "feedrate help io" is "feedrate io --help" */
		char *hargv[] = { argv[2], "--help", NULL };

		return c->fn(2, hargv);
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help") ||
	    !strcmp(name, "help") || argc < 2) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? FR_EXIT_USAGE : FR_EXIT_OK;
	}
	if (!strcmp(name, "-V") || !strcmp(name, "--version") ||
	    !strcmp(name, "version")) {
		printf("feedrate %s\n", FEEDRATE_VERSION);
		return FR_EXIT_OK;
	}
	if (!strcmp(name, "help-options")) {
		/* hidden: the README's option list (make readme-options) */
		if (argc == 3 && !strcmp(argv[2], "--markdown")) {
			cli_opts_markdown(stdout);
			return FR_EXIT_OK;
		}
		fprintf(stderr, "Usage: feedrate help-options --markdown\n");
		return FR_EXIT_USAGE;
	}
	fprintf(stderr, "feedrate: unknown command '%s'\n"
		"Run 'feedrate --help' for the list of commands.\n", name);
	return FR_EXIT_USAGE;
}
