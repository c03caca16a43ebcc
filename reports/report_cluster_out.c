/*
 * report_cluster_out.c - rank 0's cluster reports printed and written
 * (report_cluster_out.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "measure.h"
#include "report.h"
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
	/* a rank lost or failed, a stalled one included, is 5 under
	 * mpirun (README, "Exit status"), not the one-node stall's 6 */
	ret = ret || res.stalled ? FR_EXIT_ENV : FR_EXIT_OK;
	if (!res.ranks)
		return FR_EXIT_OK;      /* rank 0 reports */
	return rpt_cluster_write(cmd, &run->report, &res, run->json, run->html,
				 ret);
}

/*
 * This process is about to end with a thread the kernel holds, which
 * keeps its file table, and with it the output pipes mpirun reads: mpirun
 * counts a rank as ended only once they close. Let go of them.
 */
static void output_let_go(void)
{
	const int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stdout);
	fflush(stderr);
	if (nul < 0)
		return;
	dup2(nul, STDOUT_FILENO);
	dup2(nul, STDERR_FILENO);
	close(nul);
}

int rpt_cluster_watch_report(const struct rpt_partial *p,
			     const struct ms_opened *op,
			     const struct stg_stall *stall)
{
	struct ms_cluster *cl = p->cl;
	struct ms_cluster_result res;
	struct rpt_cluster_rank mine;
	struct rpt_cluster c;
	char line[700];
	int err;

	rpt_stall_text(stall, line, sizeof(line));
	ms_cluster_rank_init(cl, &mine);
	mine.stalled = true;
	snprintf(mine.fail_text, sizeof(mine.fail_text), "lost: %.*s",
		 (int)sizeof(mine.fail_text) - 7, line);
	if (cl->rank) {
		fprintf(stderr, "feedrate %s: rank %u: %s\n", p->cmd, cl->rank,
			line);
		fflush(stderr);
		err = ms_cluster_stalled(cl, line, &mine, 0, NULL, &res);
		if (err == -ENOTSUP)
			return err;
		output_let_go();
		return FR_EXIT_ENV;
	}
	/* a rank reading the same storage saw it stall by now too: its
	 * watchdog speaks within its own grace (LDR_STALL_END_S) */
	err = ms_cluster_stalled(cl, line, &mine, stg_now() + LDR_STALL_END_S +
				 3.0, "no result: rank 0's storage stalled, "
				 "and the run ended without this rank's", &res);
	if (err == -ENOTSUP)
		return err;
	if (err)
		return rpt_fail(p->cmd, err, 0, "out of memory");
	err = p->cluster_report ? p->cluster_report(p->cluster_arg, &res) :
	      -ENOTSUP;
	if (err != -ENOTSUP) {
		free(res.ranks);
		output_let_go();
		return err;
	}
	memset(&c, 0, sizeof(c));
	c.command = p->cmd;
	c.setup.dataset = op->set ? op->path : NULL;
	c.setup.fs_type = op->fs_type;
	if (op->listed) {
		c.setup.files = op->files;
		c.setup.bytes = op->bytes;
		c.setup.format = op->format;
	}
	c.notes = "rank 0's own thread waits in the kernel on the stalled "
		  "storage: this report names every rank as it stood, and "
		  "the thread is left to the kernel";
	err = rpt_cluster_write(p->cmd, &c, &res, p->json, NULL, FR_EXIT_ENV);
	output_let_go();
	return err;
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
