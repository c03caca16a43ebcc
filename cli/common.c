/*
 * common.c - the wiring the commands share past their options (those are
 * in common_opts.c): the stop flag the signal handler sets, the stall
 * watchdog, and the dataset, GPUs, point and reports of run and sweep
 * opened from their options through measure/, workloads/ and reports/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cluster.h"
#include "rpt_steps.h"

volatile sig_atomic_t cli_stop;
double cli_stall_timeout;

static void on_signal(int sig)
{
	cli_stop = sig;
}

void cli_signals_catch(struct sigaction old[2])
{
	struct sigaction sa = { .sa_handler = on_signal };

	cli_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
}

void cli_signals_restore(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
}

/* What the watchdog's report names; set before the watchdog starts. */
static struct rpt_partial cli_wd;

int cli_watch_start(const char *cmd, const char *json, const char *schema,
		    int version)
{
	const struct ldr_watchdog_opts o = {
		.stall_timeout_s = cli_stall_timeout, .stop = &cli_stop,
		.report = rpt_watch_report, .arg = &cli_wd,
		.no_signal_takeover = cli_cluster != NULL,
	};
	int err;

	/* under mpirun only rank 0 writes the report file */
	cli_wd = (struct rpt_partial){ cmd, cli_cluster &&
		cli_cluster->rank != 0 ? NULL : json, schema, version };
	err = stg_watch_init();
	if (!err)
		err = ldr_watchdog_start(&o);
	return err ? rpt_fail(cmd, err, 0, "cannot start the stall watchdog") :
	       0;
}

void cli_watch_claim(void)
{
	/* always granted where no watchdog runs */
	if (!ldr_watchdog_claim())
		ldr_watchdog_park();
}

int cli_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct cli_common_opts *o, struct ms_dataset *md)
{
	const bool tty = isatty(STDERR_FILENO);
	const struct ms_dataset_opts d = {
		.w = w, .tag = cmd, .dataset = o->dataset, .list = o->list,
		.tmpdir = o->tmpdir, .gen_size = o->gen_size, .seed = o->seed,
		.stop = &cli_stop, .format = o->format,
		.progress = tty ? rpt_default_gen_progress : NULL,
		.progress_arg = tty ? (void *)cmd : NULL,
		.shard = { .read_size = o->read_size, .stop = &cli_stop,
			   .shuffle_buffer = o->shuffle_buffer,
			   .max_record = o->max_sample_bytes,
			   /* token workloads cut windows; a workload may
			    * name its payload */
			   .seq_len = w->xform == WL_XFORM_TOKENS ?
				      w->xp.seq_len : 0, .key = w->xp.key },
	};
	char why[2048];
	int err = ms_dataset_open(&d, md, why, sizeof(why));

	if (err)
		return rpt_fail(cmd, err, cli_stop, why);
	err = ms_pipelines_fit(md, o->pipes, o->npipes, why, sizeof(why));
	return err ? rpt_usage(cmd, why) : 0;
}

void cli_dataset_close(const char *cmd, struct ms_dataset *md, bool keep)
{
	char dir[sizeof(md->gen_dir)];

	memcpy(dir, md->gen_dir, sizeof(dir));
	rpt_dataset_closed(cmd, dir, keep, ms_dataset_close(md, keep) != 0);
}

int cli_gpus(const char *cmd, const struct wl_workload *w,
	     struct cli_common_opts *o, struct ms_gpus *gs)
{
	char why[768];
	int err;

	/* said before anything is generated or read */
	if (w->xform == WL_XFORM_NONE)
		return cli_usage_error(cmd, "workload %s has no pipeline to "
				       "measure", w->name);
	err = ms_gpus_resolve(w, o->gpus, o->demand, o->gpu_rate, gs, why,
			      sizeof(why));
	if (!err)
		err = ms_gpu_decode_resolve(w, o->pipes, o->npipes, gs, why,
					    sizeof(why));
	if (err == -EINVAL)
		return rpt_usage(cmd, why);
	return err ? rpt_fail(cmd, err, 0, "out of memory") : 0;
}

int cli_point_base(const char *cmd, const struct cli_common_opts *o,
		   const struct wl_workload *w, const struct ms_gpus *gs,
		   const struct ms_dataset *md, struct ms_point *p,
		   struct wl_transform_state *ts, char *pipeline, size_t len)
{
	int err;

	*p = (struct ms_point){
		.ds = md->ds, .shards = md->shards ? &md->shards->ldr : NULL,
		.readers = o->readers, .backend = o->backend,
		.depth = o->depth, .max_sample_bytes = o->max_sample_bytes,
		.batch = o->batch, .seed = o->seed, .gpus = gs->count,
		.gpu_rate = gs->demand, .sync = o->sync,
		.au_threshold = w->au_threshold, .max_errors = o->max_errors,
		.stop = (volatile int *)&cli_stop,
	};
	if (isatty(STDERR_FILENO)) {
		p->prep_progress = rpt_prep_progress_tty;
		p->prep_progress_arg = (void *)&cli_stop;
	}
	err = ms_point_transform(w, md, p, ts, pipeline, len);
	if (err == -ENOTSUP) {
		fprintf(stderr, "feedrate %s: workload %s has no pipeline to "
			"measure\n", cmd, w->name);
		return FR_EXIT_USAGE;
	}
	return err ? rpt_fail(cmd, err, 0, "the transform cannot start") : 0;
}

int cli_gpu_decode_point(const char *cmd, const struct cli_common_opts *o,
			 const struct wl_workload *w,
			 const struct ms_dataset *md, struct ms_point *p,
			 struct wl_transform_state *ts, char *pipeline,
			 size_t len)
{
	const int err = ms_point_gpu_decode(w, md, o->batch, p, ts, pipeline,
					    len);

	return err ? rpt_fail(cmd, err, 0, "the gpu-decode transform cannot "
			      "start") : 0;
}

int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list)
{
	/* a report never overwrites what the run reads, job file included */
	const char *roots[3] = { dataset, list, wl_job_loaded() };

	return rpt_check_reports(cmd, paths, n, roots, 3);
}

int cli_workload(const char *cmd, const char *name,
		 const struct wl_workload **w)
{
	char why[1280];
	const int err = wl_workload_resolve(name, w, why, sizeof(why));

	if (err == -EINVAL)
		return rpt_usage(cmd, why);
	return err ? rpt_fail(cmd, err, 0, "out of memory") : 0;
}
