/*
 * rpt_cmd.h - how a command ends, in words and numbers: its exit status
 * (one table for the -errno that measure/ returns), its failure and stall
 * lines, its report files (checked before anything is measured, written
 * atomically), the partial report the stall watchdog writes, and the
 * progress lines a terminal sees.
 */
#ifndef FEEDRATE_RPT_CMD_H
#define FEEDRATE_RPT_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "storage.h"

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

/* 130 for SIGINT, 143 for SIGTERM. */
int rpt_exit_for_signal(int sig);

/*
 * The exit status for ERR (a -errno), from one table: -EINTR the
 * signal's (SIG, else SIGINT), -EINVAL and -ENOTSUP usage (2), anything
 * else the environment's (5). Pure.
 */
int rpt_exit_for_errno(int err, int sig);

/*
 * Print "feedrate CMD: WHY" on stderr (WHY's bytes made printable; NULL
 * or "": strerror(-ERR)) and return rpt_exit_for_errno(ERR, SIG).
 */
int rpt_fail(const char *cmd, int err, int sig, const char *why);

/*
 * A usage error: "feedrate CMD: WHY" (printable) and "Try 'feedrate CMD
 * --help'." on stderr; returns FR_EXIT_USAGE.
 */
int rpt_usage(const char *cmd, const char *why);

/* The built-in workloads, one line each with their description, for the
 * --help of the commands that take --workload. */
void rpt_workloads_usage(FILE *f);

/* CMD's one line on standard error for a stall, and FR_EXIT_STALLED. */
int rpt_stall_exit(const char *cmd, const struct stg_stall *stall);

/* Append "; " (when NOTES is not empty) and the formatted text to NOTES
 * (LEN bytes), truncating. */
void rpt_note_add(char *notes, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Write a report to PATH ("-": stdout): JSON when JSON is given (not
 * taken), else TEXT (freed here; NULL means it could not be made). On
 * failure prints "cannot write the WHAT report to PATH" for CMD and
 * returns FR_EXIT_ENV; 0 otherwise.
 */
struct json_t;
int rpt_write_report(const char *cmd, const char *path, struct json_t *json,
		     char *text, const char *what);

/*
 * Check the N report PATHS (NULL entries skipped) before anything is
 * measured, with rpt_out_path_check's rule against the N_ROOTS files and
 * folders the run reads (ROOTS, NULL entries skipped), and no two of them
 * the same file. Returns 0 or FR_EXIT_USAGE (printed for CMD).
 */
int rpt_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *const *roots, size_t n_roots);

/* Where the text report goes: stderr when one of the N report PATHS is
 * "-" (that report has stdout), else stdout. */
FILE *rpt_text_out(const char *const *paths, size_t n);

/* What the stall watchdog's report is for: the command, its JSON report's
 * path (NULL: none), schema name (NULL: none) and version; under mpirun
 * the rank's cluster (NULL: one node), whose rank 0 reports. */
struct ms_cluster;
struct ms_cluster_result;
struct rpt_partial {
	const char *cmd, *json, *schema;
	int version;
	struct ms_cluster *cl;
	/* Under mpirun, rank 0's report where the command's is not run's
	 * (sweep): written from RES, the ranks as the watchdog heard them
	 * (its ranks taken when handled); returns the exit status, or
	 * -ENOTSUP to have run's written instead. NULL: run's. */
	int (*cluster_report)(void *arg, struct ms_cluster_result *res);
	void *cluster_arg;
};

/*
 * The report a command's watchdog writes when the command's own thread
 * waits in the kernel (STALL: the storage stalled; else signal SIG): the
 * text on standard output (stderr when the JSON goes to "-"), the JSON
 * (rpt_stall_partial_json) to P->json, both with what the command had
 * opened (OP: its dataset and machine, ms_opened_get). Returns the exit
 * status: FR_EXIT_STALLED, 130/143, or FR_EXIT_ENV when the JSON cannot
 * be written after neither. Any thread.
 */
struct ms_opened;       /* measure.h */
int rpt_partial_write(const struct rpt_partial *p,
		      const struct ms_opened *op,
		      const struct stg_stall *stall, int sig);

/* A progress line for generating the default dataset (ARG: the command's
 * name) on stderr, at most every 0.2 s. */
void rpt_default_gen_progress(void *arg, uint64_t bytes, uint64_t target,
			      bool done);

/*
 * Preparation's progress line on stderr (a terminal's: the next line
 * printed clears it). ARG: the command's stop flag (volatile
 * sig_atomic_t *); returns whether it is raised.
 */
int rpt_prep_progress_tty(void *arg, enum stg_prep_op op, uint64_t done,
			  uint64_t total, double elapsed_s);

/* A generated dataset DIR closed: with KEEP say where it was kept; with
 * FAILED (it could not be removed) say so. Nothing when DIR is "". */
void rpt_dataset_closed(const char *cmd, const char *dir, bool keep,
			bool failed);

#endif /* FEEDRATE_RPT_CMD_H */
