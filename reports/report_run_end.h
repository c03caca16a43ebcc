/*
 * report_run_end.h - `run`'s report after its point (report_run_end.c):
 * the point's end worded into the report (its result, a Python
 * pipeline's failure, a stall, a signal), the report printed and
 * written, and the exit status chosen. Caller's thread only.
 */
#ifndef FEEDRATE_REPORT_RUN_END_H
#define FEEDRATE_REPORT_RUN_END_H

#include <signal.h>
#include <stdint.h>

#include "measure_opts.h"
#include "measure_run.h"
#include "report.h"

/* The texts a run's report points into, and where it goes. */
struct rpt_run_out {
	const char *json;               /* --json FILE or "-"; NULL none */
	char pipeline[320];             /* the point's pipeline in words */
	char pipe_text[1024];           /* the pipeline in the report's words */
	char pipe_name[600];
	char cache_how[1024];
	char notes[1024];
	struct stg_stall stall;         /* the storage stalled (rr.stall) */
	char stall_text[700];
};

#define rpt_run_note(o, ...) \
	rpt_note_add((o)->notes, sizeof((o)->notes), __VA_ARGS__)

/*
 * Before R->p is measured: RR's pipeline words and name; a note when
 * the dataset is on a memory-backed filesystem (VOLATILE_FS) and the
 * point is not warm; on a terminal, the progress line.
 */
void rpt_run_fill_start(struct rpt_run *rr, struct rpt_run_out *o,
			const struct ms_run *r, bool volatile_fs);

/*
 * After ms_run: RR's result, page-cache, Python, gpu-decode (GPU_TYPE)
 * and stall fields from R (a Python run that failed before its hello
 * keeps the probe's versions in R->po.py), by R->end. A Python
 * failure's report is written here and its exit code returned (1, or 5
 * when a module or the interpreter is missing); a measurement that never
 * started is said on stderr and gets 5; else 0 (measured, stalled,
 * interrupted: the report follows; a child killed after the signal
 * leaves its running totals in it, partial, as a stalled one does).
 * RAM: a --ram point; MD the dataset;
 * STOP the stop flag's value.
 */
int rpt_run_fill_end(struct rpt_run *rr, struct rpt_run_out *o,
		     struct ms_run *r, const char *gpu_type, bool ram,
		     const struct ms_dataset *md, int stop);

/* Print RR (its notes O's), write its JSON (O->json). 0, or the exit
 * code of a report that could not be written. */
int rpt_run_write(struct rpt_run *rr, struct rpt_run_out *o);

/*
 * rpt_run_write, then the exit status: a signal's, a stall's (6),
 * FR_EXIT_MAX_ERRORS when --max-errors (MAX_ERRORS) stopped RES's run
 * (FR_EXIT_ENV when the report could not be written), FR_EXIT_ENV when
 * the run failed, FR_EXIT_SAMPLE_ERRORS when samples or listed files
 * failed, else the writing's. Says why on stderr.
 */
int rpt_run_exit(struct rpt_run *rr, struct rpt_run_out *o,
		 const struct ldr_result *res, uint64_t max_errors);

/* What run under mpirun asks of its cluster step besides R and RR. */
struct rpt_run_cluster {
	struct ms_cluster_run_ask ask;  /* this rank's point (its solo is
	                                   made here) */
	enum stg_cache_state cache;     /* the point asked (cold: the reads
	                                   alone) */
	const char *html;               /* --html; NULL none */
	const char *dataset;            /* as given; NULL generated */
	const char *server;             /* the storage server under it; NULL */
	volatile sig_atomic_t *stop;    /* the command's stop flag */
};

/*
 * run under mpirun (measure/cluster_run.c): this rank's point A->ask.p
 * on its share, its window started with every other rank's; R's result
 * and RR's (its setup filled, unless the dataset or the point failed)
 * from it; then rpt_cluster_report, rank 0's from RR, written to O->json
 * and A->html. Any rank's main thread; returns the exit code (a
 * signal's when *A->stop is set).
 */
int rpt_run_cluster(struct ms_cluster *cl, const struct rpt_run_cluster *a,
		    struct ms_run *r, struct rpt_run *rr,
		    struct rpt_run_out *o);

#endif
