/*
 * measure_opts.c - the common options of run, sweep and ckpt: their
 * defaults, what the workload fills in, and the dataset and point set up
 * from them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measure_opts.h"

void ms_common_defaults(struct ms_common_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = "imagenet";
	o->demand = WL_DEMAND_TRAIN;
	o->sync = LDR_GPU_SYNC_ALL;
	o->readers = 1;
	o->depth = LDR_DEFAULT_DEPTH;
	o->seed = 1;
	o->max_sample_bytes = MS_MAX_SAMPLE_BYTES;
	o->gen_size = MS_DEFAULT_GEN;
	o->npipes = 1;                  /* native */
}

int ms_val_ram(const struct wl_key *k, unsigned ctx, bool list,
	       const char *arg, void *dst)
{
	struct ms_ram_list *l = dst;
	uint64_t *bytes = dst;

	(void)k, (void)ctx;
	if (list)
		return ms_ram_sizes_parse(arg, l->v, &l->n);
	return wl_parse_size(arg, bytes) || *bytes < MS_RAM_MIN_BYTES ?
	       -EINVAL : 0;
}

int ms_val_pipeline(const struct wl_key *k, unsigned ctx, bool list,
		    const char *arg, void *dst)
{
	struct ms_common_opts *o = dst;

	(void)k, (void)ctx;
	return ms_pipelines_parse(arg, o->pipe_buf, sizeof(o->pipe_buf),
				  o->pipes, list ? MS_PIPELINES_MAX : 1,
				  &o->npipes);
}

void ms_common_from_workload(struct ms_common_opts *o,
			     const struct wl_workload *w)
{
	if (!o->batch)
		o->batch = w->batch;
	if (!o->demand_given)
		o->demand = w->default_demand;
	if (!o->max_sample_bytes_given && w->max_sample_bytes)
		o->max_sample_bytes = w->max_sample_bytes;
}

void ms_common_dataset_opts(const struct ms_common_opts *o,
			    const struct wl_workload *w, const char *tag,
			    volatile sig_atomic_t *stop,
			    struct ms_dataset_opts *d)
{
	*d = (struct ms_dataset_opts){
		.w = w, .tag = tag, .dataset = o->dataset, .list = o->list,
		.tmpdir = o->tmpdir, .gen_size = o->gen_size, .seed = o->seed,
		.stop = stop, .format = o->format,
		.shard = { .read_size = o->read_size, .stop = stop,
			   .shuffle_buffer = o->shuffle_buffer,
			   .max_record = o->max_sample_bytes,
			   /* token workloads cut windows; a workload may
			    * name its payload */
			   .seq_len = w->xform == WL_XFORM_TOKENS ?
				      w->xp.seq_len : 0, .key = w->xp.key },
	};
}

int ms_point_from_opts(const struct ms_point_ask *a, struct ms_point *p,
		       struct wl_transform_state *ts, char *pipeline,
		       size_t len, char *why, size_t why_len)
{
	const struct ms_common_opts *o = a->o;
	int err;

	*p = (struct ms_point){
		.ds = a->md->ds,
		.shards = a->md->shards ? &a->md->shards->ldr : NULL,
		.readers = o->readers, .backend = o->backend,
		.depth = o->depth, .max_sample_bytes = o->max_sample_bytes,
		.batch = o->batch, .seed = o->seed, .gpus = a->gs->count,
		.gpu_rate = a->gs->demand, .sync = o->sync,
		.au_threshold = a->w->au_threshold,
		.max_errors = o->max_errors, .stop = (volatile int *)a->stop,
		.prep_progress = a->prep_progress,
		.prep_progress_arg = a->prep_progress_arg,
	};
	if (a->pipe) {
		/* the pipeline with what --python, --workers,
		 * --runner-timeout and --list give every one */
		p->pipe = *a->pipe;
		p->pipe.python = o->python;
		p->pipe.workers = o->workers;
		p->pipe.timeout_s = o->runner_timeout;
		p->pipe.list = o->list;
	}
	err = ms_point_transform(a->w, a->md, p, ts, pipeline, len);
	if (err == -ENOTSUP)
		snprintf(why, why_len, "workload %s has no pipeline to measure",
			 a->w->name);
	else if (err)
		snprintf(why, why_len, "the transform cannot start");
	else if (a->pipe && (err = ms_point_gpu_decode(a->w, a->md, o->batch,
						       p, ts, pipeline, len)))
		snprintf(why, why_len, "the gpu-decode transform cannot start");
	return err;
}

uint64_t ms_dataset_records(const struct ms_dataset *md)
{
	if (md->shards)
		return md->shards->ldr.total;
	return md->ds ? stg_dataset_count(md->ds) : 0;
}

void ms_cluster_run_make(const struct ms_cluster_run_ask *a,
			 struct ms_cluster_run_cfg *c,
			 struct ms_cluster_check *ck)
{
	const double warmup = a->warmup_s > 0 ? a->warmup_s :
			      a->warmup_s < 0 ? 0 : LDR_DEFAULT_WARMUP_S;

	*c = (struct ms_cluster_run_cfg){
		.p = a->p, .failed = a->open_failed || a->point_failed,
		.fail_text = a->open_failed ? "the dataset could not be "
			"opened on this node (this rank's error output says "
			"why)" : "its point could not be set up (this rank's "
			"error output says why)",
		.margin_s = warmup + 3.0, .ds = a->md->ds,
		.rc = { .backend = a->o->backend, .depth = a->o->depth },
		.readers = a->o->readers,
		.solo_s = a->solo_s > 0 ? a->solo_s : MS_RUN_SOLO_S,
	};
	*ck = (struct ms_cluster_check){
		.solo = a->solo, .window_s = a->window_s, .seed = a->o->seed,
	};
	if (!a->open_failed) {
		ck->samples_per_epoch = ms_dataset_records(a->md);
		ck->shards = a->md->shards != NULL;
	}
}

void ms_cluster_sweep_make(const struct ms_common_opts *o,
			   const struct ms_dataset *md, bool failed,
			   struct ms_cluster_sweep_cfg *c)
{
	*c = (struct ms_cluster_sweep_cfg){
		.ds = md->ds,
		.rc = { .backend = o->backend, .depth = o->depth },
		.readers = o->readers,
		.samples_per_epoch = ms_dataset_records(md), .seed = o->seed,
		.shards = md->shards != NULL, .failed = failed,
	};
}
