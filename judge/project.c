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
