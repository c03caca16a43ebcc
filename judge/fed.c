/*
 * fed.c - fed, GPUs fed, the judgement of one run, and which measured
 * points are fit to judge by.
 */
#include <math.h>
#include <string.h>

#include "judge.h"

double jdg_threshold(double au_threshold)
{
	return au_threshold > 0 ? au_threshold : LDR_DEFAULT_AU_THRESHOLD;
}

bool jdg_fed(double au, double au_threshold)
{
	return ldr_au_fed(au, au_threshold);
}

unsigned jdg_gpus_fed(double samples_per_s, double demand_per_gpu,
		      double au_threshold)
{
	double g;

	if (!(demand_per_gpu > 0) || !(au_threshold > 0) ||
	    !(samples_per_s > 0))
		return 0;
	/* a hair of slack so that exactly T x demand counts as fed */
	g = floor(samples_per_s / (au_threshold * demand_per_gpu) + 1e-9);
	return g >= JDG_GPUS_MAX ? JDG_GPUS_MAX : (unsigned)g;
}

void jdg_run_judge(const struct jdg_run_in *in, struct jdg_run *out)
{
	uint64_t need = (uint64_t)in->gpu_count * JDG_RUN_MIN_BATCHES_PER_GPU;

	memset(out, 0, sizeof(*out));
	out->au_threshold = jdg_threshold(in->au_threshold);
	if (need < JDG_RUN_MIN_BATCHES)
		need = JDG_RUN_MIN_BATCHES;
	out->need_batches = need;
	if (!in->measured || !in->batches)
		return;
	if (in->warmup_incomplete)
		out->too_short = JDG_SHORT_WARMUP;
	else if (in->batches < need)
		out->too_short = JDG_SHORT_BATCHES;
	out->asked_fed = in->gpu_count > 0 &&
			 jdg_fed(in->au, out->au_threshold);
	if (!out->too_short)
		out->gpus_fed = jdg_gpus_fed(in->samples_per_s,
					     in->demand_per_gpu,
					     out->au_threshold);
}

bool jdg_asked_fed(long gpus_fed, unsigned asked)
{
	return asked > 0 && gpus_fed >= 0 && (unsigned long)gpus_fed >= asked;
}

double jdg_demand_total(double total, double per_gpu, unsigned gpus)
{
	return total > 0 ? total : gpus * per_gpu;
}

bool jdg_cpu_busy(double busy)
{
	return busy >= JDG_CPU_BUSY;
}

bool jdg_window_too_short(double measured_s, uint64_t batches)
{
	return measured_s < JDG_POINT_MIN_WINDOW_S ||
	       batches < JDG_POINT_MIN_BATCHES;
}

bool jdg_not_cold(double hit_ratio)
{
	return hit_ratio > JDG_COLD_HIT_MAX;
}
