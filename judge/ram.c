/*
 * ram.c - the RAM axis: the LRU model of a shuffled page cache, the page
 * cache and RAM the asked GPUs need, the reserve, the one RAM rule.
 */
#include <math.h>
#include <string.h>

#include "judge.h"

double jdg_lru_hit(double fraction)
{
	if (!(fraction > 0))
		return 0;
	if (fraction >= 1)
		return 1;
	/* log1p keeps the small-fraction end exact: h ~ f^2 / 2 there */
	return fraction + (1 - fraction) * log1p(-fraction);
}

double jdg_lru_fraction_for_hit(double hit)
{
	double lo = 0, hi = 1;

	if (!(hit > 0))
		return 0;
	if (hit >= 1)
		return 1;
	/* the model rises strictly on [0, 1]: bisect */
	while (hi - lo > 1e-9) {
		const double mid = (lo + hi) / 2;

		if (jdg_lru_hit(mid) < hit)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Samples/s a storage of IN's ceilings serves when every read misses:
 * the lower of its files/s and bytes/s over what one sample reads. */
static double storage_samples(const struct jdg_ram_need_in *in)
{
	double s = -1;

	if (in->storage_files_per_s > 0 && in->files_per_sample > 0)
		s = in->storage_files_per_s / in->files_per_sample;
	if (in->storage_bytes_per_s > 0 && in->bytes_per_sample > 0) {
		const double b = in->storage_bytes_per_s / in->bytes_per_sample;

		s = s < 0 ? b : fmin(s, b);
	}
	return s;
}

double jdg_gpus_through(double storage, double hit, double need_per_gpu)
{
	double g;

	if (!(need_per_gpu > 0) || !(storage > 0))
		return -1;
	if (hit >= 1)
		return JDG_GPUS_MAX;
	g = storage / ((1 - hit) * need_per_gpu);
	return g > JDG_GPUS_MAX ? JDG_GPUS_MAX : g;
}

void jdg_ram_need(const struct jdg_ram_need_in *in, struct jdg_ram_need *out)
{
	const double extra = (double)in->reserved_bytes +
			     (double)in->own_bytes;
	const double dataset = (double)in->dataset_bytes;
	double here;

	memset(out, 0, sizeof(*out));
	out->hit_here = out->gpus_here = out->fraction_here = -1;
	out->storage_samples_per_s = storage_samples(in);
	if (!(in->need_samples_per_s > 0) || !(out->storage_samples_per_s > 0))
		return;
	out->known = true;
	out->at_most = !in->storage_is_ceiling;
	/* misses (1 - h) x demand within the ceiling */
	out->hit_needed = 1 - out->storage_samples_per_s /
			  in->need_samples_per_s;
	if (out->hit_needed <= 0) {
		out->no_cache_needed = true;
	} else {
		out->fraction_needed = jdg_lru_fraction_for_hit(
			out->hit_needed);
		out->none_suffices = out->fraction_needed >
				     JDG_RAM_FRACTION_MAX;
		if (!out->none_suffices)
			out->page_cache_bytes = (uint64_t)ceil(
				out->fraction_needed * dataset);
	}
	if (!out->none_suffices) {
		out->ram_bytes = out->page_cache_bytes +
				 in->reserved_bytes + in->own_bytes;
		out->vm_ram_bytes = (uint64_t)ceil((double)out->ram_bytes /
						   JDG_RAM_SHARE);
	}
	if (!in->ram_limit)
		return;
	/* this VM: what the one RAM rule leaves for the page cache */
	here = JDG_RAM_SHARE * (double)in->ram_limit - extra;
	out->page_cache_here = here > 0 ? (uint64_t)here : 0;
	out->fraction_here = dataset > 0 ? (double)out->page_cache_here /
			     dataset : 0;
	out->hit_here = jdg_lru_hit(out->fraction_here);
	out->gpus_here = jdg_gpus_through(out->storage_samples_per_s,
					  out->hit_here, in->need_per_gpu);
	out->enough_here = (out->fraction_here >= 1 && dataset > 0) ||
		(!out->none_suffices &&
		 out->page_cache_here >= out->page_cache_bytes &&
		 (out->page_cache_here > 0 || out->no_cache_needed) &&
		 JDG_RAM_SHARE * (double)in->ram_limit >= extra);
}

uint64_t jdg_reserve_ram(unsigned batch, unsigned prefetch,
			 uint64_t sample_bytes)
{
	return (uint64_t)batch * prefetch * sample_bytes +
	       JDG_RESERVE_PROCESS_BYTES;
}

bool jdg_ram_holds(uint64_t dataset, uint64_t reserved, uint64_t ram)
{
	return ram > 0 && (double)dataset + (double)reserved <=
	       JDG_RAM_SHARE * (double)ram;
}

bool jdg_lru_disagrees(double measured, double model)
{
	return fabs(measured - model) > JDG_RAM_MODEL_TOL;
}

enum jdg_ram_fit jdg_ram_fit(const struct jdg_ram_need *n,
			     bool holds_dataset)
{
	if (!n->known)
		return holds_dataset ? JDG_RAM_FIT_ENOUGH : JDG_RAM_FIT_UNKNOWN;
	if (n->enough_here || holds_dataset)
		return JDG_RAM_FIT_ENOUGH;
	if (n->at_most)         /* the storage was never the limit */
		return JDG_RAM_FIT_UNKNOWN;
	return n->none_suffices ? JDG_RAM_FIT_NONE : JDG_RAM_FIT_SHORT;
}
