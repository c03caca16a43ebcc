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
#include "rpt_text.h"

/* ---- what run, sweep and ckpt store the same way (cli/common_opts.c) ---- */

#define CLI_PIPELINES_MAX 4             /* --pipeline native,torch,... */

struct cli_common_opts {
	const char *workload;
	const char *gpus;               /* --gpus as given, NULL default */
	double gpu_rate;                /* 0: from the table */
	enum wl_demand_kind demand;
	bool demand_given;              /* --demand given (else the
	                                   workload's default_demand) */
	enum ldr_gpu_sync sync;
	unsigned batch;                 /* 0: the workload's, else
	                                   LDR_DEFAULT_BATCH */
	unsigned readers, depth;
	enum stg_backend_id backend;
	uint64_t seed, max_errors, max_sample_bytes, gen_size;
	bool max_sample_bytes_given;    /* else the workload's, if it has
	                                   one */
	const char *list, *json, *tmpdir;
	bool keep;                      /* --keep-dataset */
	const char *dataset;            /* NULL: generate one */
	/* --pipeline LIST, --python PATH, --workers W, --runner-timeout */
	struct ms_pipeline_spec pipes[CLI_PIPELINES_MAX];
	unsigned npipes;                /* >= 1 after cli_common_defaults */
	char pipe_buf[1024];            /* the list as given; FILEs point in */
	unsigned workers;               /* --workers; 0: the default */
	const char *python;             /* --python, NULL: python3 on PATH */
	double runner_timeout;          /* 0: MS_PYTHON_TIMEOUT_S */
	/* --format, --shuffle-buffer, --read-size */
	enum wl_format format;          /* AUTO: detect */
	unsigned shuffle_buffer;        /* 0: LDR_DEFAULT_SHUFFLE_BUFFER */
	uint32_t read_size;             /* 0: STG_STREAM_BLOCK_DEFAULT */
};

/* *O zeroed, then the defaults (imagenet, tuned demand, GPUs in step,
 * 1 reader, LDR_DEFAULT_DEPTH, seed 1, 64M samples at most, a default
 * generated dataset). */
void cli_common_defaults(struct cli_common_opts *o);

/* The shared options' bindings to the option table (cli/options.c), where
 * they go in *O, into B (CLI_COMMON_BINDS entries). Returns how many. */
#define CLI_COMMON_BINDS 25
size_t cli_common_binds(struct cli_common_opts *o, struct cli_bind *b);

/*
 * After the options: at most one DATASET (ARGV[optind]) into O->dataset;
 * --list needs it. Returns 0 or FR_EXIT_USAGE after printing the message
 * for CMD.
 */
int cli_parse_dataset(const char *cmd, int argc, char **argv,
		      struct cli_common_opts *o);

/* rpt_pipelines_check (reports/rpt_steps.h) on O's pipelines, --python
 * and --runner-timeout: 0 or the exit code (printed). */
int cli_pipelines_check(const char *cmd, const struct cli_common_opts *o,
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

/*
 * What run and sweep open from O for CMD and workload W, each returning 0
 * or an exit code (printed): the dataset (generated without DATASET, a
 * progress line on a terminal) and its close (KEEP: --keep-dataset); the
 * GPUs (--gpus, --gpu-rate, --demand), and gpu-decode's path in O's
 * pipelines (ms_gpu_decode_resolve); the point P on MD judged against GS
 * (TS holds the transform's state and must outlive P, PIPELINE gets it
 * in words), and P's gpu-decode transform when P->pipe is gpu-decode.
 */
int cli_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct cli_common_opts *o, struct ms_dataset *md);
void cli_dataset_close(const char *cmd, struct ms_dataset *md, bool keep);
int cli_gpus(const char *cmd, const struct wl_workload *w,
	     struct cli_common_opts *o, struct ms_gpus *gs);
int cli_point_base(const char *cmd, const struct cli_common_opts *o,
		   const struct wl_workload *w, const struct ms_gpus *gs,
		   const struct ms_dataset *md, struct ms_point *p,
		   struct wl_transform_state *ts, char *pipeline, size_t len);
int cli_gpu_decode_point(const char *cmd, const struct cli_common_opts *o,
			 const struct wl_workload *w,
			 const struct ms_dataset *md, struct ms_point *p,
			 struct wl_transform_state *ts, char *pipeline,
			 size_t len);

/* rpt_check_reports on the N report PATHS, against what the run reads:
 * DATASET, LIST and the job file. 0 or FR_EXIT_USAGE (printed). */
int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list);

/* --workload NAME into *W (wl_workload_resolve). 0, FR_EXIT_USAGE or
 * FR_EXIT_ENV (printed). */
int cli_workload(const char *cmd, const char *name,
		 const struct wl_workload **w);

/*
 * What O did not set, taken from workload W: --batch (W->batch),
 * --demand (W->default_demand), --max-sample-bytes (W->max_sample_bytes).
 * An option the user gave always wins.
 */
void cli_common_from_workload(struct cli_common_opts *o,
			      const struct wl_workload *w);

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

/* CMD runs on one node only: under mpirun with several ranks say so (on
 * rank 0) and return FR_EXIT_USAGE; 0 otherwise. */
int cli_cluster_refuse(const char *cmd);

#endif /* FEEDRATE_CLI_H */
