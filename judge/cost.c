/*
 * cost.c - compare's cost: USD per million samples and per epoch, the
 * state a candidate is priced in, and the cheapest that feeds.
 */
#include <math.h>

#include "judge.h"

double jdg_cost_per_msample(double usd_per_hour, double samples_per_s)
{
	if (!(usd_per_hour >= 0) || !(samples_per_s > 0) ||
	    !isfinite(usd_per_hour))
		return -1;
	return usd_per_hour / 3600.0 / samples_per_s * 1e6;
}

double jdg_cost_per_epoch(double usd_per_hour, double samples_per_s,
			  double epoch_samples)
{
	if (!(usd_per_hour >= 0) || !(samples_per_s > 0) ||
	    !(epoch_samples > 0) || !isfinite(usd_per_hour))
		return -1;
	return usd_per_hour * epoch_samples / samples_per_s / 3600.0;
}

int jdg_cost_state(int cache, const bool *have, const double *samples_per_s,
		   size_t n)
{
	int k = cache;

	if (k >= 0)
		return k < (int)n && have[k] ? k : -1;
	/* the slowest state measured: what a job can count on */
	for (size_t j = 0; j < n; j++)
		if (have[j] && (k < 0 || samples_per_s[j] < samples_per_s[k]))
			k = (int)j;
	return k;
}

double jdg_cost_feed(double rate, double demand, bool *gpu_bound)
{
	/* the GPUs eat no faster than their demand */
	*gpu_bound = demand > 0 && demand < rate;
	return *gpu_bound ? demand : rate;
}

bool jdg_cost_cheaper(bool priced, bool feeds, double usd, double best)
{
	return priced && feeds && usd >= 0 && (best < 0 || usd < best);
}
