/*
 * rpt_steps.c - steps the commands share, in words: the Python
 * pipelines checked before anything is read, and the report the stall
 * watchdog writes when the command's own thread cannot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report_cluster_out.h"
#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "rpt_text.h"

int rpt_pipelines_check(const char *cmd, const struct ms_pipeline_spec *pipes,
			unsigned n, const char *python, double timeout_s,
			struct ms_python_info *info)
{
	for (unsigned i = 0; i < n; i++) {
		struct ms_pipeline_spec sp = pipes[i];
		char why[2048];
		int err;

		memset(&info[i], 0, sizeof(info[i]));
		if (!ms_pipeline_is_python(&sp))
			continue;
		if (sp.kind == MS_PIPELINE_FILE && access(sp.file, R_OK)) {
			fprintf(stderr, "feedrate %s: --pipeline python:", cmd);
			rpt_put_path(stderr, sp.file);
			fprintf(stderr, ": %s\n", strerror(errno));
			return FR_EXIT_USAGE;
		}
		sp.python = python;
		sp.timeout_s = timeout_s;
		err = ms_python_probe(&sp, &info[i], why, sizeof(why));
		if (err == -ENOMEM)
			return rpt_fail(cmd, err, 0, "out of memory");
		if (err) {
			fprintf(stderr, "feedrate %s: --pipeline %s: ", cmd,
				sp.kind == MS_PIPELINE_TORCH ? "torch" :
				"python:FILE");
			rpt_put_path(stderr, why);
			fputc('\n', stderr);
			return FR_EXIT_ENV;
		}
	}
	return 0;
}

int rpt_watch_report(void *arg, const struct stg_stall *stall, int sig)
{
	struct ms_opened op;    /* what it opened before: dataset, machine */
	int ret;

	ms_opened_get(&op);
	/* under mpirun a stall is the cluster's to report: rank 0 names
	 * this rank lost (where MPI lets this thread speak) */
	ret = ((struct rpt_partial *)arg)->cl && stall ?
	      rpt_cluster_watch_report(arg, &op, stall) : -ENOTSUP;
	if (ret == -ENOTSUP)
		ret = rpt_partial_write(arg, &op, stall, sig);

	ldr_supervised_done(ret);
	return ret;
}

/* ---- run and sweep set up from their common options ---- */

int rpt_workload(const char *cmd, const char *name,
		 const struct wl_workload **w)
{
	char why[1280];
	const int err = wl_workload_resolve(name, w, why, sizeof(why));

	if (err == -EINVAL)
		return rpt_usage(cmd, why);
	return err ? rpt_fail(cmd, err, 0, "out of memory") : 0;
}

int rpt_gpus(const char *cmd, const struct wl_workload *w,
	     struct ms_common_opts *o, struct ms_gpus *gs)
{
	char why[768];
	int err;

	/* said before anything is generated or read */
	if (w->xform == WL_XFORM_NONE) {
		snprintf(why, sizeof(why), "workload %s has no pipeline to "
			 "measure", w->name);
		return rpt_usage(cmd, why);
	}
	err = ms_gpus_resolve(w, o->gpus, o->demand, o->gpu_rate, gs, why,
			      sizeof(why));
	if (!err)
		err = ms_gpu_decode_resolve(w, o->pipes, o->npipes, gs, why,
					    sizeof(why));
	if (err == -EINVAL)
		return rpt_usage(cmd, why);
	return err ? rpt_fail(cmd, err, 0, "out of memory") : 0;
}

int rpt_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct ms_common_opts *o,
		     volatile sig_atomic_t *stop, struct ms_dataset *md)
{
	struct ms_dataset_opts d;
	char why[2048];
	int err;

	ms_common_dataset_opts(o, w, cmd, stop, &d);
	if (isatty(STDERR_FILENO)) {
		d.progress = rpt_default_gen_progress;
		d.progress_arg = (void *)cmd;
	}
	err = ms_dataset_open(&d, md, why, sizeof(why));
	if (err)
		return rpt_fail(cmd, err, *stop, why);
	err = ms_pipelines_fit(md, o->pipes, o->npipes, why, sizeof(why));
	return err ? rpt_usage(cmd, why) : 0;
}

void rpt_dataset_close(const char *cmd, struct ms_dataset *md, bool keep)
{
	char dir[sizeof(md->gen_dir)];

	memcpy(dir, md->gen_dir, sizeof(dir));
	rpt_dataset_closed(cmd, dir, keep, ms_dataset_close(md, keep) != 0);
}

int rpt_point(const char *cmd, const struct ms_point_ask *a,
	      struct ms_point *p, struct wl_transform_state *ts,
	      char *pipeline, size_t len)
{
	struct ms_point_ask tty = *a;
	char why[512];          /* a job file's workload name included */
	int err;

	if (isatty(STDERR_FILENO)) {
		tty.prep_progress = rpt_prep_progress_tty;
		tty.prep_progress_arg = (void *)a->stop;
	}
	err = ms_point_from_opts(&tty, p, ts, pipeline, len, why, sizeof(why));
	if (err == -ENOTSUP) {
		fprintf(stderr, "feedrate %s: %s\n", cmd, why);
		return FR_EXIT_USAGE;
	}
	return err ? rpt_fail(cmd, err, 0, why) : 0;
}
