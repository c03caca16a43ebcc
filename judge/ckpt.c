/*
 * ckpt.c - checkpoints: the share of time saving, the shortest interval
 * within a budget, and what a spot interruption loses.
 */
#include <math.h>
#include <string.h>

#include "judge.h"

double jdg_ckpt_share(double save_s, double interval_s)
{
	if (!(save_s >= 0) || !(interval_s > 0))
		return -1;
	return save_s / (interval_s + save_s);
}

double jdg_ckpt_min_interval(double save_s, double budget)
{
	if (!(budget > 0 && budget < 1) || !(save_s >= 0))
		return -1;
	return save_s * (1 - budget) / budget;
}

double jdg_ckpt_lost(double save_s, double interval_s)
{
	if (!(interval_s > 0) || !(save_s >= 0))
		return -1;
	return (interval_s * interval_s / 2 + save_s * interval_s) /
	       (interval_s + save_s);
}

void jdg_ckpt_judge(const struct jdg_ckpt_in *in, struct jdg_ckpt *out)
{
	memset(out, 0, sizeof(*out));
	out->budget = in->budget > 0 ? in->budget : JDG_CKPT_DEFAULT_BUDGET;
	out->min_interval_s = jdg_ckpt_min_interval(in->save_s, out->budget);
	out->min_interval_steps = in->step_s > 0 && out->min_interval_s >= 0 ?
				  ceil(out->min_interval_s / in->step_s) : -1;
	out->lost_s = jdg_ckpt_lost(in->save_s, out->min_interval_s);
	out->share_at_interval = jdg_ckpt_share(in->save_s, in->interval_s);
	out->lost_at_interval_s = jdg_ckpt_lost(in->save_s, in->interval_s);
	out->epoch_s = in->epoch_samples > 0 && in->demand_total > 0 ?
		       in->epoch_samples / in->demand_total : -1;
	out->share_per_epoch = jdg_ckpt_share(in->save_s, out->epoch_s);
}
