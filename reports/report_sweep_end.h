/*
 * report_sweep_end.h - `sweep`'s report on one node (report_sweep_end.c):
 * each pipeline's points read for its check runs, its report filled and
 * judged, then the first pipeline's report (the others in it) printed and
 * written, and the exit status. Caller's thread only.
 */
#ifndef FEEDRATE_REPORT_SWEEP_END_H
#define FEEDRATE_REPORT_SWEEP_END_H

#include "report.h"
#include "report_ckpt.h"
#include "report_sweep.h"
#include "sweep_cmd.h"

_Static_assert(MS_CHECKS_MAX == RPT_CHECKS_MAX,
	       "the sweep runs as many check runs as the report holds");

#define RPT_SWEEP_PIPES_MAX 4           /* pipelines in one sweep report */

/* What a sweep's reports take from its options and setup, the same for
 * each pipeline. */
struct rpt_sweep_ask {
	const struct ms_machine *m;
	const struct ms_dataset *md;
	const struct wl_workload *w;
	const struct ms_gpus *gs;
	uint64_t seed;
	unsigned workers, batch;        /* --workers, the batch */
	double reserve_vcpus;           /* per GPU; < 0: the default */
	const uint64_t *reserve_ram;    /* per GPU; NULL: the default */
	const struct rpt_ckpt_brief *ckpt; /* --ckpt's; NULL none */
	double usd_per_hour;            /* --price; 0 none */
	bool ram;                       /* the ram state is swept */
	const char *json, *csv, *html;  /* the report files; NULL none */
};

/* One pipeline's report and the texts it points into. */
struct rpt_sweep_out {
	const struct rpt_sweep_ask *ask; /* set by the caller */
	struct ms_python_info probe;    /* set: a Python pipeline's probe */
	char pipeline[320];             /* set: the point's pipeline */
	char pipe_name[600];            /* set: ms_pipeline_name */
	struct rpt_sweep rs;
	struct rpt_point *rpts;         /* the points (rpt_sweep_tops) */
	char (*how)[RPT_HOW_LEN];
	char pipe_text[1024], rule[2048], notes[6144], reserve_how[160];
	struct rpt_shape shapes[RPT_SHAPES_MAX];
	const struct rpt_sweep *others[RPT_SWEEP_PIPES_MAX];
	unsigned nothers;
};

#define rpt_sweep_note(o, ...) \
	rpt_note_add((o)->notes, sizeof((o)->notes), __VA_ARGS__)

/*
 * --ckpt's report at PATH into *OUT, before anything is measured: 0;
 * FR_EXIT_ENV when it cannot be read; FR_EXIT_USAGE when it is no ckpt
 * report or one of the N report paths OUTS (NULL: none) would overwrite
 * it. Says why on stderr.
 */
int rpt_sweep_ckpt_load(const char *path, const char *const *outs, size_t n,
			struct rpt_ckpt_brief *out);

/* Free O's points (not O). */
void rpt_sweep_out_free(struct rpt_sweep_out *o);

/* The progress line on a terminal (ARG the struct ms_sweep measured):
 * the `progress` of its ms_sweep_config. */
void rpt_sweep_progress(void *arg, const char *what);

/* ms_sweep_tops_fn, ARG a struct rpt_sweep_out: SW's points into the
 * report (rpt_sweep_fill_points) and each state's top point
 * (rpt_verdict_top). 0 or -ENOMEM. */
int rpt_sweep_tops(void *arg, const struct ms_sweep *sw,
		   unsigned vcpus[STG_CACHE_STATES],
		   double sps[STG_CACHE_STATES]);

/* ms_sweep_run's error ERR said for R (BUDGET_S its budget) on stderr:
 * FR_EXIT_USAGE for -ETIME, else out of memory's code. */
int rpt_sweep_failed(const struct ms_sweep_run *r, int err,
		     double budget_s);

/*
 * O's report from R: its check runs, setup, pipeline, budget (BUDGET_S)
 * and rule, reserve, catalogue, LRU estimates, preparation (LIST_S the
 * listing's time), and for the first pipeline (OWN) the stall and notes
 * (STOP the stop flag's value); then its verdict (rpt_sweep_verdict).
 */
void rpt_sweep_judge(struct rpt_sweep_out *o, const struct ms_sweep_run *r,
		     double budget_s, double list_s, bool own, int stop);

/* The note of N pipelines sharing TOTAL_S, and of those left out when
 * interrupted (CUT). */
void rpt_sweep_note_pipelines(struct rpt_sweep_out *o, unsigned n,
			      double total_s, bool cut);

/*
 * O's judged report printed and written (JSON, CSV, HTML); the exit
 * status: a signal's (STOP), a stall's, FR_EXIT_ENV when a file could
 * not be written, FR_EXIT_SAMPLE_ERRORS when a measured point or the
 * listing had errors, else 0.
 */
int rpt_sweep_end(struct rpt_sweep_out *o, const struct ms_sweep_run *r,
		  int stop);

#endif
