/*
 * report_cluster_out.h - rank 0's cluster reports printed and written
 * (report_cluster_out.c): a cluster run's (run, io) and the cluster
 * sweep's. Rank 0's thread only.
 */
#ifndef FEEDRATE_REPORT_CLUSTER_OUT_H
#define FEEDRATE_REPORT_CLUSTER_OUT_H

#include "cluster.h"
#include "report_cluster.h"

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

#endif
