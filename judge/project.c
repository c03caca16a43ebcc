/*
 * project.c - from the measured per-vCPU rate to more vCPUs: the
 * projection and its range, the vCPUs the GPUs and their reserve take,
 * the storage ceiling in GPUs, and a catalogued shape's fit.
 */
#include <math.h>

#include "judge.h"

void jdg_project(unsigned need, unsigned feed, double top_rate,
		 double per_vcpu, double scaling, double *lo, double *hi)
{
	const double past = (double)need - (double)feed;
	const double eff = scaling > 0 && scaling < 1 ? scaling : 1;

	*hi = need * per_vcpu;
	*lo = top_rate + past * per_vcpu * eff;
}

unsigned jdg_vcpus_for(unsigned count, double per_gpu)
{
	if (!(per_gpu > 0))
		return 0;
	return (unsigned)ceil(count * per_gpu - 1e-9);
}

unsigned jdg_gpus_fed_reserved(unsigned fed, double per_vcpu,
			       unsigned vcpus, double need, double reserve)
{
	double g;
	unsigned gr;

	if (!(per_vcpu > 0) || !(need > 0))
		return fed;
	/* G fed with the reserve taken: G need <= R (V - res G) */
	g = per_vcpu * vcpus / (need + per_vcpu * reserve);
	gr = (unsigned)fmax(0, floor(g + 1e-9));
	return gr < fed ? gr : fed;
}

double jdg_storage_gpus(double files_per_s, double files_per_sample,
			double need_per_gpu)
{
	if (!(need_per_gpu > 0))
		return 0;
	/* a shard read carries several records: samples, not files, feed */
	if (files_per_sample > 0 && files_per_sample < 1)
		return files_per_s / files_per_sample / need_per_gpu;
	return files_per_s / need_per_gpu;
}

enum jdg_fit jdg_fit(double spare, double spare_hi)
{
	return spare >= 0 ? JDG_FIT_YES : spare_hi >= 0 ? JDG_FIT_MAYBE :
	       JDG_FIT_NO;
}

bool jdg_hidden_smt(double two_over_one, double cpu_ratio)
{
	return two_over_one > 0 && two_over_one / 2 <= JDG_HIDDEN_SMT_SCALING &&
	       cpu_ratio >= JDG_HIDDEN_SMT_CPU;
}

double jdg_smt_clamp(double yield)
{
	return fmin(JDG_SMT_YIELD_MAX, fmax(1.0, yield));
}

void jdg_kinds_per_gpu(double here, bool threads, double yield_lo,
		       double yield_hi, double *thread_lo, double *thread_hi,
		       double *core_lo, double *core_hi)
{
	*thread_lo = *thread_hi = *core_lo = *core_hi = -1;
	if (!(here > 0))
		return;
	if (threads) {
		*thread_lo = *thread_hi = here;
		*core_lo = here * yield_lo / 2;
		*core_hi = here * yield_hi / 2;
	} else {
		*core_lo = *core_hi = here;
		*thread_lo = here * 2 / yield_hi;
		*thread_hi = here * 2 / yield_lo;
	}
}

bool jdg_decoder_limits(double capacity, double demand)
{
	return capacity > 0 && demand > capacity;
}
