/* TEMPORARY until reports/verdict lands: the two functions the sweep's
 * check runs call. */
#ifndef FEEDRATE_VERDICT_H
#define FEEDRATE_VERDICT_H
#include <stddef.h>
#include "report_sweep.h"
#include "storage.h"
unsigned rpt_verdict_gpus_fed(double samples_per_s, double demand_per_gpu,
			      double au_threshold);
int rpt_verdict_top(const struct rpt_point *pts, size_t n,
		    enum stg_cache_state c);
#endif
