/*
 * sweep_cmd.h - `sweep`'s protocol for one pipeline on one node
 * (sweep_cmd.c): its points planned and measured within its budget
 * (measure_sweep.c), then the check runs at each cache state's top point
 * (sweep_walk.c). Which point is a state's top is the caller's reading
 * of the points (reports/ fills them), asked through a callback.
 */
#ifndef FEEDRATE_SWEEP_CMD_H
#define FEEDRATE_SWEEP_CMD_H

#include "measure.h"

/* One pipeline's sweep: its points and its check runs. */
struct ms_sweep_run {
	struct ms_pipeline_spec pipe;   /* in: the pipeline measured */
	struct ms_sweep sw;             /* out: the planner, its points */
	struct ms_check checks[STG_CACHE_STATES][MS_CHECKS_MAX];
	unsigned check_gpus[STG_CACHE_STATES][MS_CHECKS_MAX];
	size_t nchecks[STG_CACHE_STATES];
	unsigned check_vcpus[STG_CACHE_STATES]; /* the top point's; 0: no
	                                   check runs in that state */
};

/*
 * The caller's reading of SW's measured points: for each cache state
 * its top point's vCPUs (VCPUS[c], 0: none) and samples/s (SPS[c]).
 * Returns 0 or -ENOMEM.
 */
typedef int (*ms_sweep_tops_fn)(void *arg, const struct ms_sweep *sw,
				unsigned vcpus[STG_CACHE_STATES],
				double sps[STG_CACHE_STATES]);

/*
 * R->pipe's sweep: CFG's points planned (ms_sweep_plan) and run
 * (ms_sweep_run_points) into R->sw; TOPS read them; unless the storage
 * stalled, each state's check runs (ms_sweep_checks) run at its top
 * point, G from judge/'s GPUs fed at DEMAND per GPU and AU_THRESHOLD;
 * none where the state's point at all vCPUs was dropped. Caller's thread
 * only; never prints. Returns 0, -ETIME (the budget leaves no time for a
 * point after listing and eviction: R->sw says what it needs) or
 * -ENOMEM. ms_sweep_free(&R->sw) after, whatever it returned.
 */
int ms_sweep_run(struct ms_sweep_run *r, const struct ms_sweep_config *cfg,
		 double demand, double au_threshold, ms_sweep_tops_fn tops,
		 void *tops_arg);

#endif
