/*
 * cli.h - the command line: the command table, exit codes and the option
 * parsers every command shares. Each command is `cmd_<name>` in
 * cli/cmd_<name>.c; argv[0] is the command's name, and `-h/--help` prints its
 * usage on stdout and returns FR_EXIT_OK.
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

/* Exit codes, documented in README.md ("Exit status"). */
enum fr_exit {
	FR_EXIT_OK = 0,             /* the command did what was asked */
	FR_EXIT_FAILURE = 1,        /* an error that fits nothing below */
	FR_EXIT_USAGE = 2,          /* bad options or arguments */
	FR_EXIT_SAMPLE_ERRORS = 3,  /* completed, but some samples failed */
	FR_EXIT_MAX_ERRORS = 4,     /* stopped early by --max-errors */
	FR_EXIT_ENV = 5,            /* the environment refused: no dataset, no
	                               memory, unwritable report, ... */
	FR_EXIT_STALLED = 6,        /* the storage stalled: no read completed
	                               for --stall-timeout (reported) */
	FR_EXIT_SIGINT = 130,       /* interrupted by SIGINT (128 + 2) */
	FR_EXIT_SIGTERM = 143,      /* interrupted by SIGTERM (128 + 15) */
};

#define FEEDRATE_VERSION "0.1.0"

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

/*
 * Before anything is read: for each Python pipeline of O, the FILE can
 * be read (else FR_EXIT_USAGE) and the interpreter has what it needs
 * (ms_python_probe: else the message naming the interpreter, the module,
 * its packages and --python, and FR_EXIT_ENV). INFO (O->npipes entries)
 * gets each probe's versions. Returns 0 or the exit code (printed).
 */
int cli_pipelines_check(const char *cmd, const struct cli_common_opts *o,
			struct ms_python_info *info);

/* ---- messages, signals, datasets, report files (cli/common.c) ---- */

/* Write PATH's bytes to F as rpt_path_text() makes them printable. */
void cli_print_path(FILE *f, const char *path);

/*
 * Print "feedrate CMD: WHY" on stderr (WHY's bytes made printable) and
 * return the exit code for ERR: -EINTR the signal's (SIG, else SIGINT),
 * -EINVAL and -ENOTSUP usage (2), anything else the environment's (5).
 */
int cli_fail(const char *cmd, int err, int sig, const char *why);

/* 130 for SIGINT, 143 for SIGTERM. */
int cli_exit_for_signal(int sig);

/* The stop flag run and sweep hand down, set by SIGINT and SIGTERM. */
extern volatile sig_atomic_t cli_stop;

/* Catch SIGINT and SIGTERM into cli_stop (zeroed); restore the old ones. */
void cli_signals_catch(struct sigaction old[2]);
void cli_signals_restore(const struct sigaction old[2]);

/* --stall-timeout in seconds (every command that reads); 0: the default,
 * LDR_DEFAULT_STALL_TIMEOUT_S. */
extern double cli_stall_timeout;


/*
 * Start the watchdog (loader/watchdog.c) for CMD, after
 * cli_signals_catch: a stall, or a signal the command cannot act on
 * within LDR_SIGNAL_END_S (a thread stuck in the kernel), ends it with a
 * partial report written by the watchdog (text on standard output, and
 * JSON to JSON when given, keyed SCHEMA / VERSION as the command's
 * report is; SCHEMA NULL: none) and exit FR_EXIT_STALLED or 130/143.
 * 0, or FR_EXIT_ENV (printed: no thread could be made).
 */
int cli_watch_start(const char *cmd, const char *json, const char *schema,
		    int version);
void cli_watch_stop(void);

/*
 * The command's own thread is about to write its report: take it from
 * the watchdog. Where the watchdog already writes it, this never
 * returns (the process ends with the watchdog's report).
 */
void cli_watch_claim(void);

/* Whether the storage stalled (the watchdog saw it); *OUT gets how. */
bool cli_watch_stalled(struct stg_stall *out);

/* CMD's one line on standard error for a stall, and the exit status
 * FR_EXIT_STALLED. */
int cli_stall_exit(const char *cmd, const struct stg_stall *stall);

/* A progress line for generating the default dataset (ARG: the command's
 * name), for measure's ms_gen_progress_fn; prints only to a terminal. */
void cli_gen_progress(void *arg, uint64_t bytes, uint64_t target, bool done);

/*
 * Open the dataset of O for CMD (generate one without DATASET), with a
 * progress line on a terminal. Returns 0 or an exit code (printed).
 */
int cli_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct cli_common_opts *o, struct ms_dataset *md);

/* Close it: remove a generated folder, or with KEEP (--keep-dataset) say
 * where it was kept. */
void cli_dataset_close(const char *cmd, struct ms_dataset *md, bool keep);

/*
 * Resolve --gpus/--gpu-rate of O for workload W into *GS. Returns 0 or
 * FR_EXIT_USAGE / FR_EXIT_ENV (printed).
 */
int cli_gpus(const char *cmd, const struct wl_workload *w,
	     const struct cli_common_opts *o, struct ms_gpus *gs);

/* Append "; " (when NOTES is not empty) and the formatted text to NOTES
 * (LEN bytes), truncating. */
void cli_note_add(char *notes, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Write a report to PATH ("-": stdout): JSON when JSON is given (not
 * taken), else TEXT (freed here; NULL means it could not be made). On
 * failure prints "cannot write the WHAT report to PATH" for CMD and
 * returns FR_EXIT_ENV; 0 otherwise.
 */
struct json_t;
int cli_write_report(const char *cmd, const char *path, struct json_t *json,
		     char *text, const char *what);

/*
 * The point O asks for on DS, judged against GS (workload W's transform,
 * engine knobs, seed, GPU rate, the cli_stop flag): *P zeroed first; TS
 * holds the workload's transform state (it must outlive P); PIPELINE (LEN
 * bytes) gets the transform in words. Returns 0 or an exit code
 * (printed).
 */
int cli_point_base(const char *cmd, const struct cli_common_opts *o,
		   const struct wl_workload *w, const struct ms_gpus *gs,
		   const struct ms_dataset *md, struct ms_point *p,
		   struct wl_transform_state *ts, char *pipeline, size_t len);

/*
 * --pipeline gpu-decode in O: refused (usage error, printed) for a
 * workload that is not an image one; an unresolved path becomes hw
 * where GS's GPU has a hardware JPEG decoder (wl_gpu_decoder_find),
 * else hybrid. 0 or an exit code.
 */
int cli_gpu_decode_resolve(const char *cmd, const struct wl_workload *w,
			   struct cli_common_opts *o, const struct ms_gpus *gs);

/*
 * When P->pipe is gpu-decode: P's transform becomes workload W's
 * gpu-decode transform on MD (its staging area sized from MD's mean
 * sample), its state in TS, its words in PIPELINE (LEN bytes). Nothing
 * for other pipelines. 0 or an exit code (printed).
 */
int cli_gpu_decode_point(const char *cmd, const struct cli_common_opts *o,
			 const struct wl_workload *w,
			 const struct ms_dataset *md, struct ms_point *p,
			 struct wl_transform_state *ts, char *pipeline,
			 size_t len);

/*
 * Check the N report PATHS (NULL entries skipped) before anything is
 * measured, with rpt_out_path_check's rule (never a block device, a
 * folder, a path inside the dataset DATASET or a file the run reads such
 * as LIST), and no two of them the same file. Returns 0 or FR_EXIT_USAGE
 * (printed).
 */
int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list);

/* Where the text report goes: stderr when one of the N report PATHS is
 * "-" (that report has stdout), else stdout. */
FILE *cli_text_out(const char *const *paths, size_t n);

/*
 * The workload NAME into *W: a built-in by name, else a job file when
 * NAME has a '/', ends in .ini or names an existing file (loaded and kept
 * until exit; a later call frees the earlier one; its path is then also
 * one cli_check_reports refuses). 0, or FR_EXIT_USAGE (printed: an
 * unknown name with the valid ones, a job file's error with its file,
 * line and key, a file that cannot be read) or FR_EXIT_ENV (no memory).
 */
int cli_workload(const char *cmd, const char *name,
		 const struct wl_workload **w);

/* The built-in workloads, one line each with their description (from the
 * table), for the --help of run, sweep and gen. */
void cli_workloads_usage(FILE *f);

/* The path of the job file --workload loaded; NULL when none. */
const char *cli_job_file(void);

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
