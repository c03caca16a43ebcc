/*
 * jobs_dump.h - every value a parsed job file gives its workload, one
 * "field = value" line each (numbers with 17 digits), so two parses can
 * be compared as text (tests/test_wl_keys.c against the checked-in
 * tests/fixtures/jobs/builtin.txt).
 */
#ifndef FEEDRATE_JOBS_DUMP_H
#define FEEDRATE_JOBS_DUMP_H

#include <stdio.h>

#include "workloads.h"

static void jobs_dump(FILE *f, const struct wl_workload *w)
{
	const struct aug_params *a = &w->xp.aug;

	fprintf(f, "[%s]\ndescription = %s\nlayout = %s\nfile_ext = %s\n"
		"dataset_files = %llu\nmean_file_bytes = %.17g\n"
		"sd_file_bytes = %.17g\nmean = %.17g x %.17g\n"
		"stats_source = %s\nout = %u %u %u\ntransform = %s\n"
		"au = %.17g\nau_source = %s\ngen = %s\nimage_spec = %d\n"
		"xform = %d\nformat = %d\nbatch = %u\ndefault_demand = %d\n"
		"max_sample_bytes = %llu\njob_file = %s\n", w->name,
		w->description, w->layout, w->file_ext,
		(unsigned long long)w->dataset_files, w->mean_file_bytes,
		w->sd_file_bytes, w->mean_width, w->mean_height,
		w->stats_source, w->out_channels, w->out_height, w->out_width,
		w->transform, w->au_threshold, w->au_source,
		w->gen ? w->gen->layout : "-", w->image_spec != NULL,
		(int)w->xform, w->format, w->batch, (int)w->default_demand,
		(unsigned long long)w->max_sample_bytes, w->job_file);
	fprintf(f, "aug = %u %u %.17g %.17g %.17g %.17g %u %.17g "
		"%.9g %.9g %.9g %.9g %.9g %.9g %d %d %d %d\n", a->out_w,
		a->out_h, a->rrc.scale_min, a->rrc.scale_max,
		a->rrc.ratio_min, a->rrc.ratio_max, a->rrc.tries, a->flip_p,
		a->mean[0], a->mean[1], a->mean[2], a->std[0], a->std[1],
		a->std[2], (int)a->dtype, (int)a->layout, a->roi_decode,
		a->dct_scale);
	fprintf(f, "xp = %u %u %u %d %u %u %u %u %u %u %s %llu\n",
		w->xp.vol_crop[0], w->xp.vol_crop[1], w->xp.vol_crop[2],
		w->xp.vol_flip, w->xp.cosmo_shape[0], w->xp.cosmo_shape[1],
		w->xp.cosmo_shape[2], w->xp.cosmo_shape[3], w->xp.seq_len,
		w->xp.token_bytes, w->xp.key,
		(unsigned long long)w->xp.max_inflate);
	for (size_t i = 0; i < w->ndemand; i++) {
		const struct wl_demand *d = &w->demand[i];

		fprintf(f, "demand %d %s = %s | %.17g %.17g %.17g-%.17g "
			"%u %.17g %u %.17g %d | %s\n", (int)d->kind, d->gpu,
			d->gpu_detail, d->samples_per_s, d->tokens_per_s,
			d->range_lo, d->range_hi, d->multi_gpus,
			d->multi_samples_per_s, d->batch, d->compute_s,
			(int)d->basis, d->source);
	}
}

#endif /* FEEDRATE_JOBS_DUMP_H */
