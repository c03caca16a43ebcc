/*
 * test_cmd_setup.c - what the commands' wiring asks below cli/: the exit
 * status for each -errno (one table), gpu-decode's path and refusal, the
 * pipelines a dataset of shards takes, and what --workload names.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "harness.h"
#include "measure.h"
#include "rpt_cmd.h"

FR_TEST(cmd_setup, exit_status_for_each_errno)
{
	cr_expect_eq(rpt_exit_for_errno(-EINVAL, 0), FR_EXIT_USAGE);
	cr_expect_eq(rpt_exit_for_errno(-ENOTSUP, 0), FR_EXIT_USAGE);
	cr_expect_eq(rpt_exit_for_errno(-ENOENT, 0), FR_EXIT_ENV);
	cr_expect_eq(rpt_exit_for_errno(-ENOMEM, 0), FR_EXIT_ENV);
	cr_expect_eq(rpt_exit_for_errno(-EINTR, 0), FR_EXIT_SIGINT);
	cr_expect_eq(rpt_exit_for_errno(-EINTR, SIGTERM), FR_EXIT_SIGTERM);
	cr_expect_eq(rpt_exit_for_errno(-EINTR, SIGINT), FR_EXIT_SIGINT);
	cr_expect_eq(rpt_exit_for_signal(SIGTERM), 143);
}

/* gpu-decode's path follows the GPU's decoder; an explicit one stays. */
FR_TEST(cmd_setup, gpu_decode_path_from_the_decoder_row)
{
	const struct wl_workload *w;
	struct ms_pipeline_spec ps[2];
	struct ms_gpus gs;
	char why[256];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	memset(ps, 0, sizeof(ps));
	memset(&gs, 0, sizeof(gs));
	ps[0].kind = ps[1].kind = MS_PIPELINE_GPU_DECODE;
	ps[1].gpudec = MS_GPUDEC_HYBRID;
	strcpy(gs.type, "A100");
	cr_assert_eq(ms_gpu_decode_resolve(w, ps, 2, &gs, why, sizeof(why)),
		     0);
	cr_expect_eq(ps[0].gpudec, MS_GPUDEC_HW);
	cr_expect_eq(ps[1].gpudec, MS_GPUDEC_HYBRID);
	ps[0].gpudec = MS_GPUDEC_AUTO;
	strcpy(gs.type, "T4");
	cr_assert_eq(ms_gpu_decode_resolve(w, ps, 1, &gs, why, sizeof(why)),
		     0);
	cr_expect_eq(ps[0].gpudec, MS_GPUDEC_HYBRID);
	ps[0].gpudec = MS_GPUDEC_AUTO;
	strcpy(gs.type, "MYGPU");       /* no decoder row: hybrid */
	cr_assert_eq(ms_gpu_decode_resolve(w, ps, 1, &gs, why, sizeof(why)),
		     0);
	cr_expect_eq(ps[0].gpudec, MS_GPUDEC_HYBRID);
}

FR_TEST(cmd_setup, gpu_decode_refused_for_a_workload_without_images)
{
	const struct wl_workload *w = NULL;
	struct ms_pipeline_spec ps;
	struct ms_gpus gs;
	char why[256] = "";

	for (size_t i = 0; i < wl_count(); i++)
		if (wl_at(i)->xform != WL_XFORM_IMAGE_TRAIN &&
		    wl_at(i)->xform != WL_XFORM_NONE)
			w = wl_at(i);
	cr_assert_not_null(w);
	memset(&ps, 0, sizeof(ps));
	memset(&gs, 0, sizeof(gs));
	ps.kind = MS_PIPELINE_GPU_DECODE;
	cr_expect_eq(ms_gpu_decode_resolve(w, &ps, 1, &gs, why, sizeof(why)),
		     -EINVAL);
	cr_expect(strstr(why, w->name), "%s", why);
	ps.kind = MS_PIPELINE_NATIVE;   /* other pipelines are left alone */
	cr_expect_eq(ms_gpu_decode_resolve(w, &ps, 1, &gs, why, sizeof(why)),
		     0);
}

/* A Python pipeline reads an image folder, never shards. */
FR_TEST(cmd_setup, python_pipelines_refused_on_shards)
{
	struct wl_shardset *fake = (struct wl_shardset *)1;
	struct ms_pipeline_spec ps[2];
	struct ms_dataset md;
	char why[512] = "";

	memset(ps, 0, sizeof(ps));
	memset(&md, 0, sizeof(md));
	ps[1].kind = MS_PIPELINE_TORCH;
	md.format = WL_FORMAT_WDS;
	cr_expect_eq(ms_pipelines_fit(&md, ps, 2, why, sizeof(why)), 0);
	md.shards = fake;               /* only compared, never read */
	cr_expect_eq(ms_pipelines_fit(&md, ps, 1, why, sizeof(why)), 0);
	cr_expect_eq(ms_pipelines_fit(&md, ps, 2, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "--pipeline torch"), "%s", why);
}

FR_TEST(cmd_setup, workload_names_resolved)
{
	const struct wl_workload *w = NULL;
	char why[1024] = "";

	cr_expect_eq(wl_workload_resolve("imagenet", &w, why, sizeof(why)),
		     0);
	cr_expect_str_eq(w->name, "imagenet");
	cr_expect_null(wl_job_loaded());
	cr_expect_eq(wl_workload_resolve("imagenot", &w, why, sizeof(why)),
		     -EINVAL);
	cr_expect(strstr(why, "unknown workload 'imagenot'") &&
		  strstr(why, "imagenet"), "%s", why);
	cr_expect_eq(wl_workload_resolve("/nonexistent/x.ini", &w, why,
					 sizeof(why)), -EINVAL);
	cr_expect(!strncmp(why, "--workload: ", 12), "%s", why);
	cr_expect_null(wl_job_loaded());
}
