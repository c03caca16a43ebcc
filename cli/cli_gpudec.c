/*
 * cli_gpudec.c - --pipeline gpu-decode wired: its decode path resolved
 * from the GPU's decoder row, and a point's gpu-decode transform.
 */
#include <stdio.h>

#include "cli.h"
#include "jobfile.h"

int cli_gpu_decode_resolve(const char *cmd, const struct wl_workload *w,
			   struct cli_common_opts *o, const struct ms_gpus *gs)
{
	const struct wl_gpu_decoder *dec = wl_gpu_decoder_find(
		gs->row ? gs->row->gpu : gs->type);

	for (unsigned i = 0; i < o->npipes; i++) {
		struct ms_pipeline_spec *sp = &o->pipes[i];

		if (sp->kind != MS_PIPELINE_GPU_DECODE)
			continue;
		if (w->xform != WL_XFORM_IMAGE_TRAIN)
			return cli_usage_error(cmd, "--pipeline gpu-decode "
				"models GPU decoding of JPEG images; workload "
				"%s is not an image workload (its transform is "
				"%s)", w->name, wl_xform_name(w->xform));
		if (sp->gpudec == MS_GPUDEC_AUTO)
			sp->gpudec = dec && dec->hw ? MS_GPUDEC_HW :
				     MS_GPUDEC_HYBRID;
	}
	return 0;
}

int cli_gpu_decode_point(const char *cmd, const struct cli_common_opts *o,
			 const struct wl_workload *w,
			 const struct ms_dataset *md, struct ms_point *p,
			 struct wl_transform_state *ts, char *pipeline,
			 size_t len)
{
	const uint64_t files = md->shards ? md->shards->ldr.total :
			       stg_dataset_count(md->ds);
	const unsigned batch = o->batch ? o->batch : LDR_DEFAULT_BATCH;
	const bool hybrid = p->pipe.gpudec == MS_GPUDEC_HYBRID;
	double mean, stage;
	int err;

	if (p->pipe.kind != MS_PIPELINE_GPU_DECODE)
		return 0;
	/* a batch's staging area starts at what a mean batch stages: the
	 * compressed bytes (hw), or its coefficients (hybrid: about 6x a
	 * photo's compressed size at ImageNet's quality); it grows past
	 * that where a batch needs more */
	mean = files ? (double)stg_dataset_total_bytes(md->ds) / files :
	       w->mean_file_bytes;
	stage = batch * mean * (hybrid ? 6.0 : 1.25);
	if (stage < (1u << 20))
		stage = 1u << 20;
	if (stage > (1ull << 30))
		stage = 1ull << 30;
	err = wl_transform_gpu_decode(w, hybrid ? AUG_GD_MODE_HYBRID :
				      AUG_GD_MODE_HW, (size_t)stage, ts,
				      &p->transform, pipeline, len);
	if (err)
		return cli_fail(cmd, err, 0, "the gpu-decode transform cannot "
				"start");
	if (md->shards)     /* records are unwrapped before the decode */
		wl_shardset_transform(md->shards, &p->transform,
				      &p->transform);
	return 0;
}
