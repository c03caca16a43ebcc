/*
 * report_cluster_out.c - rank 0's cluster reports printed and written
 * (report_cluster_out.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "measure.h"
#include "report_cluster_out.h"
#include "rpt_cmd.h"

/* ROOT (taken; JSON_FAILED: it could not be made) to JSON and PAGE
 * (freed) to HTML, each NULL: none, for CMD; RET the exit code so far. */
static int write_files(const char *cmd, json_t *root, bool json_failed,
		       const char *json, char *page, const char *html,
		       int ret)
{
	if (json) {
		int r = !json_failed ? rpt_write_report(cmd, json, root, NULL,
							"JSON") : FR_EXIT_ENV;

		json_decref(root);
		if (r)
			ret = r;
	}
	if (html) {
		int r = rpt_write_report(cmd, html, NULL, page, "HTML");

		if (r)
			ret = r;
	}
	return ret;
}

int rpt_cluster_report(struct ms_cluster *cl, const char *cmd,
		       struct rpt_cluster_run *run,
		       const struct rpt_cluster_rank *mine)
{
	struct ms_cluster_result res;
	int ret = ms_cluster_collect(cl, &run->check, mine, &res);

	if (ret < 0)
		return rpt_fail(cmd, ret, 0, "out of memory");
	ret = ret ? FR_EXIT_ENV : FR_EXIT_OK;
	if (!res.ranks)
		return FR_EXIT_OK;      /* rank 0 reports */
	return rpt_cluster_write(cmd, &run->report, &res, run->json, run->html,
				 ret);
}

void rpt_cluster_say(void *arg, int err, const char *why)
{
	rpt_fail(arg, err, 0, why);
}

int rpt_cluster_write(const char *cmd, struct rpt_cluster *c,
		      struct ms_cluster_result *res, const char *json,
		      const char *html, int ret)
{
	FILE *out = rpt_text_out(&json, 1);
	json_t *root;

	rpt_cluster_take(c, res);
	rpt_cluster_print(out, c);
	fflush(out);
	root = json ? rpt_cluster_json(c) : NULL;
	ret = write_files(cmd, root, json && !root, json, html ?
			  rpt_cluster_html(c) : NULL, html, ret);
	c->ranks = NULL;
	free(res->ranks);
	res->ranks = NULL;
	return ret;
}

int rpt_cluster_sweep_write(const struct rpt_cluster *base,
			    const struct ms_cluster_sweep_result *r,
			    unsigned world, unsigned nodes, int signal,
			    const char *notes, const char *json,
			    const char *html, int ret)
{
	const char *outs[2] = { json, html };
	struct rpt_cluster_sweep rs;
	json_t *root;
	FILE *out;

	if (rpt_cluster_sweep_fill(&rs, base, world, nodes, r))
		return rpt_fail("sweep", -ENOMEM, 0, "out of memory");
	rs.signal = signal;
	rs.notes = notes;
	out = rpt_text_out(outs, 2);
	rpt_cluster_sweep_print(out, &rs);
	fflush(out);
	root = json ? rpt_cluster_sweep_json(&rs) : NULL;
	ret = write_files("sweep", root, json && !root, json, html ?
			  rpt_cluster_sweep_html(&rs) : NULL, html, ret);
	free((void *)rs.points);
	return ret;
}

void rpt_cluster_sweep_progress(void *arg, enum stg_cache_state cache,
				unsigned vcpus, unsigned ranks)
{
	(void)arg;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[Kfeedrate sweep: %s, %u vCPU%s a rank, "
			"%u rank%s...", stg_cache_state_name(cache), vcpus,
			vcpus == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
}

int rpt_iorun_cluster(struct ms_cluster *cl, const struct rpt_iorun_cluster *a,
		      const struct ms_dataset *md, struct ms_io_result *res)
{
	struct rpt_cluster_run run = { .json = a->json, .html = a->html };
	struct rpt_cluster_rank r;
	double *solo = a->solo_s != 0 ? calloc(cl->world, sizeof(*solo)) :
		       NULL;
	static struct ms_machine m;     /* the storage under the dataset */
	int err;

	ms_cluster_io(cl, a->cfg, md->ds, a->solo_s, solo, res, &r);
	run.check.solo = solo;
	if (cl->rank == 0) {
		ms_machine_detect(a->dataset, &m);
		rpt_cluster_from_io(&run.report, a->cfg, &m, md, a->dataset,
				    *a->stop);
	}
	run.check.window_s = a->cfg->duration_s;        /* 0: each file once */
	err = rpt_cluster_report(cl, "io", &run, &r);
	free(solo);
	return err;
}
