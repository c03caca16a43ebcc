/*
 * cluster.c - the cluster verdict: a rank and a node fed, the storage
 * ceiling the cluster reads, how many nodes it feeds before it is
 * storage-bound, and how far a series of rank counts scales.
 */
#include <math.h>
#include <stdlib.h>

#include "judge.h"

bool jdg_rank_fed(double au, double au_threshold)
{
	return au >= 0 && jdg_fed(au, au_threshold);
}

bool jdg_storage_bound(unsigned reported, unsigned storage_bound_ranks)
{
	return reported > 0 && 2 * storage_bound_ranks >= reported;
}

bool jdg_cluster_storage_ceiling(bool cold, unsigned reported,
				 unsigned storage_bound_ranks)
{
	return cold && jdg_storage_bound(reported, storage_bound_ranks);
}

double jdg_node_needs_bytes(unsigned gpus_per_rank, unsigned ranks_per_node,
			    double demand_per_gpu, double bytes_per_sample)
{
	if (!(demand_per_gpu > 0) || !(bytes_per_sample > 0))
		return 0;
	return (double)gpus_per_rank * ranks_per_node * demand_per_gpu *
	       bytes_per_sample;
}

int jdg_nodes_before_storage_bound(double ceiling, double needs)
{
	if (!(ceiling > 0) || !(needs > 0))
		return -1;
	return (int)fmin(floor(ceiling / needs + 1e-9), 1e9);
}

double jdg_efficiency(double rate, unsigned ranks, double base)
{
	return base > 0 && ranks && rate >= 0 ? rate / (ranks * base) : -1;
}

bool jdg_scales(double efficiency)
{
	/* a hair of slack so that exactly 90 % counts */
	return efficiency >= JDG_CLUSTER_SCALING - 1e-9;
}

unsigned jdg_cluster_scaling(const double *rates, const unsigned *ranks,
			     size_t n, double *eff)
{
	unsigned to = 0;
	double base = -1;

	for (size_t j = 0; j < n; j++)
		if (ranks[j] == 1 && rates[j] > 0)
			base = rates[j];
	for (size_t j = 0; j < n; j++) {
		eff[j] = jdg_efficiency(rates[j], ranks[j], base);
		if (jdg_scales(eff[j]) && ranks[j] > to)
			to = ranks[j];
	}
	return to;
}

unsigned jdg_cluster_nodes(unsigned nodes, unsigned seen)
{
	return nodes > seen ? nodes : seen;
}

bool jdg_cluster_fed(bool emulated, unsigned nodes_fed, unsigned nodes)
{
	return emulated && nodes > 0 && nodes_fed >= nodes;
}

int jdg_slowest_unfed(const bool *fed, const unsigned *counted,
		      const unsigned *missing, const double *rates, size_t n)
{
	int pick = -1;

	for (size_t k = 0; k < n; k++) {
		if (fed[k] || !counted[k] || missing[k])
			continue;
		if (pick < 0 || rates[k] < rates[pick])
			pick = (int)k;
	}
	return pick;
}

bool jdg_node_fed(bool emulated, unsigned counted, unsigned missing,
		  unsigned unfed)
{
	return emulated && counted > 0 && !missing && !unfed;
}

int jdg_storage_bound_from(const bool *bound, const unsigned *ranks,
			   size_t n)
{
	int from = -1;

	for (size_t j = n; j-- > 0 && bound[j];)
		from = (int)ranks[j];
	return from;
}

unsigned jdg_once_bad_epochs(const struct ldr_digest *sums,
			     const struct ldr_digest *want,
			     const bool *want_ok, unsigned epochs)
{
	unsigned bad = 0;

	for (unsigned e = 0; e < epochs; e++)
		bad += !want_ok[e] || !ldr_digest_equal(&sums[e], &want[e]);
	return bad;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int jdg_slowest(double *rates, size_t n, double *below)
{
	size_t slow = 0;
	double low, m;

	if (n < 2)
		return -1;
	for (size_t i = 1; i < n; i++)
		if (rates[i] < rates[slow])
			slow = i;
	low = rates[slow];
	qsort(rates, n, sizeof(rates[0]), cmp_double);
	m = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
	*below = m > 0 ? (m - low) / m : 0;
	return (int)slow;
}
