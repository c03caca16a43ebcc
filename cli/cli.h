/*
 * cli.h - the command line: the options and the wiring every command
 * shares (exit codes and a command's words are reports/rpt_cmd.h's). Each
 * command is `cmd_<name>` in cli/cmd_<name>.c; argv[0] is the command's
 * name, and `-h/--help` prints its usage on stdout and returns FR_EXIT_OK.
 */
#ifndef FEEDRATE_CLI_H
#define FEEDRATE_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure.h"
#include "options.h"
#include "report.h"
#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "rpt_text.h"

/* ---- what run, sweep and ckpt store the same way (cli/common_opts.c) ---- */

/* The shared options' bindings to the option table (cli/options.c), where
 * they go in *O, into B (CLI_COMMON_BINDS entries). Returns how many. */
#define CLI_COMMON_BINDS 25
size_t cli_common_binds(struct ms_common_opts *o, struct cli_bind *b);

/*
 * After the options: at most one DATASET (ARGV[optind]) into O->dataset;
 * --list needs it. Returns 0 or FR_EXIT_USAGE after printing the message
 * for CMD.
 */
int cli_parse_dataset(const char *cmd, int argc, char **argv,
		      struct ms_common_opts *o);

/* rpt_pipelines_check (reports/rpt_steps.h) on O's pipelines, --python
 * and --runner-timeout: 0 or the exit code (printed). */
int cli_pipelines_check(const char *cmd, const struct ms_common_opts *o,
			struct ms_python_info *info);

/* ---- the wiring the commands share (cli/common.c) ---- */

/* The stop flag the commands hand down, set by SIGINT and SIGTERM. */
extern volatile sig_atomic_t cli_stop;

/* Catch SIGINT and SIGTERM into cli_stop (zeroed); restore the old ones. */
void cli_signals_catch(struct sigaction old[2]);
void cli_signals_restore(const struct sigaction old[2]);

/* --stall-timeout in seconds; 0: LDR_DEFAULT_STALL_TIMEOUT_S. */
extern double cli_stall_timeout;

/*
 * Start the watchdog (loader/watchdog.c) for CMD, after
 * cli_signals_catch: a stall, or a signal the command cannot act on
 * within LDR_SIGNAL_END_S, ends it with rpt_partial_write's report (JSON
 * to JSON when given, keyed SCHEMA / VERSION). 0, or FR_EXIT_ENV
 * (printed). ldr_watchdog_stop stops it. cli_watch_claim: the command's
 * own thread is about to write its report; where the watchdog already
 * writes it, it never returns.
 */
int cli_watch_start(const char *cmd, const char *json, const char *schema,
		    int version);
void cli_watch_claim(void);

/* Under mpirun, before cli_watch_start: rank 0's watchdog writes the
 * command's own cluster report with FN (struct rpt_partial's
 * cluster_report) instead of run's. */
struct ms_cluster_result;
void cli_watch_cluster_report(int (*fn)(void *arg,
					struct ms_cluster_result *res),
			      void *arg);

/* rpt_check_reports on the N report PATHS, against what the run reads:
 * DATASET, LIST and the job file. 0 or FR_EXIT_USAGE (printed). */
int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list);

/* Commands (one line each; keep in step with the table in cli/main.c). */
int cmd_io(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_ckpt(int argc, char **argv);

/* ---- a command launched by mpirun (cli/cluster.c) ---- */

struct ms_cluster;
struct rpt_cluster_rank;

/* The cluster this process is a rank of; NULL on one node. */
extern struct ms_cluster *cli_cluster;

/*
 * At start, from main: when mpirun (or another PMI launcher) started this
 * process, initialise MPI and open the cluster. Returns 0 (also when not
 * launched so, or launched as one rank by a build without MPI), or an
 * exit code (printed): a build without MPI launched as several ranks.
 */
int cli_cluster_start(int *argc, char ***argv);

/* At the end: close the cluster (MPI_Finalize unless a rank was lost). */
void cli_cluster_end(void);

/* Is this process rank 0 (or not a rank at all)? */
bool cli_cluster_rank0(void);

/* What a command asks that only one node, or only mpirun, takes. */
struct cli_mpi_ask {
	bool dataset;                   /* a DATASET given */
	bool ram;                       /* --ram (the ram cache state) */
	bool pipeline;                  /* a pipeline other than native */
	bool mpi_only;                  /* --html, --solo or --mpi-timeout
	                                   given (run, io) */
	double mpi_timeout;             /* --mpi-timeout (0: the default) */
};

/*
 * Under mpirun: refuse what A asks of CMD that is for one node (a
 * generated dataset, --ram, a pipeline other than native; rank 0 says
 * why), else take its --mpi-timeout. On one node: refuse what is for
 * mpirun only. Returns 0 or FR_EXIT_USAGE.
 */
int cli_mpi_check(enum cli_cmd cmd, const struct cli_mpi_ask *a);

/* CMD runs on one node only: under mpirun with several ranks say so (on
 * rank 0) and return FR_EXIT_USAGE; 0 otherwise. */
int cli_cluster_refuse(const char *cmd);

#endif /* FEEDRATE_CLI_H */
