/* TEMPORARY until reports/verdict lands. */
#include <math.h>
#include "verdict.h"

unsigned rpt_verdict_gpus_fed(double samples_per_s, double demand_per_gpu,
			      double au_threshold)
{
	const double need = au_threshold * demand_per_gpu;

	return need > 0 ? (unsigned)floor(samples_per_s / need + 1e-9) : 0;
}

int rpt_verdict_top(const struct rpt_point *pts, size_t n,
		    enum stg_cache_state c)
{
	int top = -1;

	for (size_t i = 0; i < n; i++)
		if ((int)pts[i].cache == (int)c && rpt_point_usable(&pts[i]) &&
		    (top < 0 || pts[i].vcpus > pts[top].vcpus))
			top = (int)i;
	return top;
}
