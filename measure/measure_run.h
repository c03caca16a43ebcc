/*
 * measure_run.h - `run`'s protocol on one node: its point measured
 * (ms_point_run, in the pinned child) and how the measurement ended, as
 * one of the cases its report words (reports/report_run_end.c).
 */
#ifndef FEEDRATE_MEASURE_RUN_H
#define FEEDRATE_MEASURE_RUN_H

#include "measure.h"

/* How a run's measurement ended. */
enum ms_run_end {
	MS_RUN_MEASURED = 0,            /* the window gave numbers */
	MS_RUN_STALLED,                 /* the storage stalled: the child was
	                                   killed, its running totals stand
	                                   in */
	MS_RUN_PYTHON_FAILED,           /* a Python pipeline's runner failed */
	MS_RUN_INTERRUPTED,             /* a signal before the window gave
	                                   numbers */
	MS_RUN_NOT_STARTED,             /* the measurement could not start */
};

/* One run's point, its result and its end. */
struct ms_run {
	struct ms_point p;              /* in: the point, set up by the
	                                   caller (its transform's state
	                                   outlives the run) */
	struct ms_python_info probe;    /* in: the interpreter's, before the
	                                   run (Python pipelines) */
	struct ldr_result *res;         /* in: the caller's, zeroed; out: the
	                                   result */
	struct ms_point_out po;         /* out: the point's report */
	int err;                        /* out: ms_point_run's return */
	enum ms_run_end end;            /* out: how it ended */
	char uring_why[400];            /* out: the measurement did not start
	                                   with io_uring asked: why io_uring
	                                   is not usable here; else "" */
};

/*
 * Measure R->p in its pinned child (ms_point_run) into R->res and R->po,
 * and how it ended into R->end (ms_run_end, with the point's signal,
 * else *STOP's). Caller's thread only; it never prints. Returns R->err
 * (0, or the -errno of ms_point_run: -ETIMEDOUT stalled, -EINTR ...).
 */
int ms_run(struct ms_run *r, volatile sig_atomic_t *stop);

/*
 * How R's measurement ended, SIGNAL being the signal its report holds
 * (the point's, else the stop flag's; 0 none): a stall first, then
 * numbers, then a Python runner's failure (not one a signal caused),
 * then a signal, else it never started. Pure.
 */
enum ms_run_end ms_run_end(const struct ms_run *r, int signal);

#endif
