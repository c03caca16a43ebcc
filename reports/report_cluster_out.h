/*
 * report_cluster_out.h - rank 0's cluster reports printed and written
 * (report_cluster_out.c): a cluster run's (run, io) and the cluster
 * sweep's. Rank 0's thread only, but rpt_cluster_report and
 * rpt_cluster_say, which every rank calls.
 */
#ifndef FEEDRATE_REPORT_CLUSTER_OUT_H
#define FEEDRATE_REPORT_CLUSTER_OUT_H

#include "cluster.h"
#include "report_cluster.h"

/* What rank 0 needs besides the ranks' records. */
struct rpt_cluster_run {
	struct rpt_cluster report;      /* its command, dataset, GPU fields
	                                   filled by the command */
	const char *json, *html;        /* --json, --html; NULL none */
	struct ms_cluster_check check;  /* the reads alone, the window, the
	                                   exactly-once check */
};

/*
 * Send MINE to rank 0 of CL; on rank 0 gather every rank's (a lost one
 * is named after the common window's end plus a grace,
 * measure/cluster_run.c), print the cluster report and write RUN's JSON
 * and HTML for CMD. Returns the exit code (rank 0: 5 when a rank was lost
 * or failed; other ranks: 0). Any rank's main thread.
 */
int rpt_cluster_report(struct ms_cluster *cl, const char *cmd,
		       struct rpt_cluster_run *run,
		       const struct rpt_cluster_rank *mine);

/* Say an error of a cluster step as rpt_fail does (ARG the command's
 * name): the `say` of measure/'s cluster configs. */
void rpt_cluster_say(void *arg, int err, const char *why);

/*
 * C's ranks from rank 0's gathered RES (rpt_cluster_take), C printed
 * (on stderr when JSON is "-"), its JSON written to JSON and its page to
 * HTML (each NULL: none) for CMD. RET is the exit code so far; returns
 * it, or the code of a report that could not be written. C no longer
 * borrows RES's ranks on return; RES's ranks are freed.
 */
int rpt_cluster_write(const char *cmd, struct rpt_cluster *c,
		      struct ms_cluster_result *res, const char *json,
		      const char *html, int ret);

/*
 * The cluster sweep's report from its points R, each point's report
 * BASE's (rpt_cluster_sweep_fill, WORLD and NODES launched; SIGNAL the
 * stop flag's, NOTES its notes), printed and written to JSON and HTML
 * (NULL: none) as rpt_cluster_write. RET the exit code so far; returns
 * it, the code of a report not written, or FR_EXIT_ENV out of memory.
 */
int rpt_cluster_sweep_write(const struct rpt_cluster *base,
			    const struct ms_cluster_sweep_result *r,
			    unsigned world, unsigned nodes, int signal,
			    const char *notes, const char *json,
			    const char *html, int ret);

/* Rank 0's progress line on a terminal before each point of the cluster
 * sweep: the `progress` of its ms_cluster_sweep_cfg (ARG unused). */
void rpt_cluster_sweep_progress(void *arg, enum stg_cache_state cache,
				unsigned vcpus, unsigned ranks);

/*
 * The stall watchdog's report under mpirun, its rank's own thread stuck
 * in the kernel (P->cl the cluster; OP what the command had opened;
 * STALL the stall): a rank other than 0 says its stall to rank 0 and
 * waits for the job's end (ms_cluster_stalled), saying it on stderr too;
 * rank 0 hears the others' stalls for a bounded time and prints and
 * writes the cluster report (P->json) with every rank named. Returns the
 * exit status (FR_EXIT_ENV: a rank lost), or -ENOTSUP when this MPI lets
 * only the main thread speak: the caller then writes the one-node
 * partial report. The watchdog's thread.
 */
struct rpt_partial;
struct ms_opened;
int rpt_cluster_watch_report(const struct rpt_partial *p,
			     const struct ms_opened *op,
			     const struct stg_stall *stall);

/* What io under mpirun asks of its cluster step. */
struct rpt_iorun_cluster {
	struct ms_io_config *cfg;       /* all but ds, stop and progress */
	const char *dataset;            /* as given */
	const char *json, *html;        /* --json, --html; NULL none */
	double solo_s;                  /* each rank alone: < 0 as the
	                                   window, 0 none */
	volatile sig_atomic_t *stop;    /* the command's stop flag */
};

/*
 * io under mpirun (measure/cluster_io.c): rank r reads files r, r +
 * world, ...; first each rank alone in turn (the others idle), then all
 * together from one start; then rpt_cluster_report, rank 0's from its
 * machine and A. MD->ds NULL: this rank's listing failed and it walks the
 * steps saying so. RES gets this rank's result. Any rank's main thread;
 * returns the exit code.
 */
int rpt_iorun_cluster(struct ms_cluster *cl, const struct rpt_iorun_cluster *a,
		      const struct ms_dataset *md, struct ms_io_result *res);

#endif
