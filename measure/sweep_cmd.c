/*
 * sweep_cmd.c - `sweep`'s protocol for one pipeline on one node: plan,
 * points, check runs (sweep_cmd.h).
 */
#include <errno.h>

#include "judge.h"
#include "sweep_cmd.h"

/* The points read (TOPS); unless the storage stalled, each state's
 * check runs at its top point. 0 or -ENOMEM. */
static int sweep_checks(struct ms_sweep_run *r, double demand,
			double au_threshold, ms_sweep_tops_fn tops,
			void *tops_arg)
{
	unsigned vcpus[STG_CACHE_STATES] = { 0 };
	double sps[STG_CACHE_STATES] = { 0 };
	int err = tops(tops_arg, &r->sw, vcpus, sps);

	if (r->sw.stalled)
		return err;
	for (int c = 0; !err && c < STG_CACHE_STATES; c++) {
		const enum stg_cache_state cs = (enum stg_cache_state)c;

		/* no checks where the verdict will not judge: the state's
		 * point at all vCPUs was dropped for the budget */
		if (!vcpus[c] || ms_sweep_top_dropped(&r->sw, cs))
			continue;
		r->check_vcpus[c] = vcpus[c];
		err = ms_sweep_checks(&r->sw, vcpus[c], cs,
				      jdg_gpus_fed(sps[c], demand,
						   au_threshold),
				      au_threshold, r->checks[c],
				      r->check_gpus[c], MS_CHECKS_MAX,
				      &r->nchecks[c]);
	}
	return err ? -ENOMEM : 0;
}

int ms_sweep_run(struct ms_sweep_run *r, const struct ms_sweep_config *cfg,
		 double demand, double au_threshold, ms_sweep_tops_fn tops,
		 void *tops_arg)
{
	int err = ms_sweep_plan(&r->sw, cfg);

	if (err)
		return err == -ETIME ? err : -ENOMEM;
	err = ms_sweep_run_points(&r->sw);
	if (err == -ENOMEM)
		return err;
	return sweep_checks(r, demand, au_threshold, tops, tops_arg);
}
