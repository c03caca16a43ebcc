/*
 * point_setup.c - what a command's point is set up with before it runs:
 * the pipelines a dataset can take, the point's transform (the workload's,
 * or its gpu-decode one with a staging area sized from the dataset), and
 * gpu-decode's path resolved from the GPU's decoder row.
 */
#include <errno.h>
#include <stdio.h>

#include "measure.h"

int ms_pipelines_fit(const struct ms_dataset *md,
		     const struct ms_pipeline_spec *pipes, unsigned n,
		     char *why, size_t why_len)
{
	for (unsigned i = 0; md->shards && i < n; i++)
		if (ms_pipeline_is_python(&pipes[i])) {
			snprintf(why, why_len, "--pipeline %s reads an image "
				 "folder; this dataset is %s shards: measure "
				 "them with the native pipeline",
				 pipes[i].kind == MS_PIPELINE_TORCH ? "torch" :
				 "python:FILE", wl_format_name(md->format));
			return -EINVAL;
		}
	return 0;
}

int ms_gpu_decode_resolve(const struct wl_workload *w,
			  struct ms_pipeline_spec *pipes, unsigned n,
			  const struct ms_gpus *gs, char *why, size_t why_len)
{
	const struct wl_gpu_decoder *dec = wl_gpu_decoder_find(
		gs->row ? gs->row->gpu : gs->type);

	for (unsigned i = 0; i < n; i++) {
		struct ms_pipeline_spec *sp = &pipes[i];

		if (sp->kind != MS_PIPELINE_GPU_DECODE)
			continue;
		if (w->xform != WL_XFORM_IMAGE_TRAIN) {
			snprintf(why, why_len, "--pipeline gpu-decode models "
				 "GPU decoding of JPEG images; workload %s is "
				 "not an image workload (its transform is %s)",
				 w->name, wl_xform_name(w->xform));
			return -EINVAL;
		}
		if (sp->gpudec == MS_GPUDEC_AUTO)
			sp->gpudec = dec && dec->hw ? MS_GPUDEC_HW :
				     MS_GPUDEC_HYBRID;
	}
	return 0;
}

/* P's transform ready after ERR from making it: records are unwrapped
 * before the decode when MD holds shards. */
static int point_unwrap(const struct ms_dataset *md, struct ms_point *p,
			int err)
{
	if (!err && md->shards)
		wl_shardset_transform(md->shards, &p->transform,
				      &p->transform);
	return err;
}

int ms_point_transform(const struct wl_workload *w,
		       const struct ms_dataset *md, struct ms_point *p,
		       struct wl_transform_state *ts, char *pipeline,
		       size_t len)
{
	return point_unwrap(md, p, wl_transform_make(w, ts, &p->transform,
						     pipeline, len));
}

int ms_point_gpu_decode(const struct wl_workload *w,
			const struct ms_dataset *md, unsigned batch,
			struct ms_point *p, struct wl_transform_state *ts,
			char *pipeline, size_t len)
{
	const uint64_t files = md->shards ? md->shards->ldr.total :
			       stg_dataset_count(md->ds);
	const bool hybrid = p->pipe.gpudec == MS_GPUDEC_HYBRID;
	double mean, stage;

	if (p->pipe.kind != MS_PIPELINE_GPU_DECODE)
		return 0;
	/* a batch's staging area starts at what a mean batch stages: the
	 * compressed bytes (hw), or its coefficients (hybrid: about 6x a
	 * photo's compressed size at ImageNet's quality); it grows past
	 * that where a batch needs more */
	mean = files ? (double)stg_dataset_total_bytes(md->ds) / files :
	       w->mean_file_bytes;
	stage = (batch ? batch : LDR_DEFAULT_BATCH) * mean *
		(hybrid ? 6.0 : 1.25);
	if (stage < (1u << 20))
		stage = 1u << 20;
	if (stage > (1ull << 30))
		stage = 1ull << 30;
	return point_unwrap(md, p, wl_transform_gpu_decode(w, hybrid ?
		AUG_GD_MODE_HYBRID : AUG_GD_MODE_HW, (size_t)stage, ts,
		&p->transform, pipeline, len));
}
