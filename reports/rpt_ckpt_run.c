/*
 * rpt_ckpt_run.c - `feedrate ckpt` past its options, in words: the size
 * asked, the folder refused before anything is written, the progress
 * lines, the report's setup and its end (text, JSON, exit code). One
 * thread (the progress callback: the thread of ms_ckpt_run's caller).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "report.h"
#include "report_ckpt.h"
#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "rpt_text.h"

int rpt_ckpt_bytes(const struct rpt_ckpt_ask *a, uint64_t *bytes)
{
	const double b = a->params ? a->params * a->bytes_per_param :
			 (double)a->size;
	char why[96];

	if (!(b >= 1) || b >= 1.8e19) {
		snprintf(why, sizeof(why), "a checkpoint of %.3g bytes is out "
			 "of range", b);
		return rpt_usage("ckpt", why);
	}
	*bytes = (uint64_t)llround(b);
	return 0;
}

void rpt_ckpt_progress(enum ms_ckpt_event ev, const struct ms_ckpt_result *r,
		       void *arg)
{
	char b[32];

	(void)arg;
	snprintf(b, sizeof(b), "%.2f GB", (double)r->bytes / 1e9);
	if (ev == MS_CKPT_EV_WRITING)
		fprintf(stderr, "feedrate ckpt: writing %s in %u shards\n", b,
			r->shards);
	else if (ev == MS_CKPT_EV_SAVED)
		fprintf(stderr, "feedrate ckpt: saved %s in %.2f s (%.2f GB/s), "
			"synced; restoring\n", b, r->save.seconds,
			r->save.bytes_per_s / 1e9);
}

int rpt_ckpt_check_dir(const char *dir, uint64_t bytes)
{
	char why[1024];
	uint64_t free_b;
	int err = ms_ckpt_check_dir(dir, bytes, &free_b, why, sizeof(why));

	if (!err)
		return 0;
	fprintf(stderr, "feedrate ckpt: ");
	rpt_put_path(stderr, why);
	fputc('\n', stderr);
	return err == -ENOTEMPTY || err == -ENOSPC || err == -ENOTDIR ||
	       err == -ENOENT ? FR_EXIT_USAGE : FR_EXIT_ENV;
}

void rpt_ckpt_setup(const char *dir, const struct ms_gpus *gs,
		    struct rpt_ckpt *r)
{
	static struct ms_machine m;     /* large; the report borrows it */

	memset(r, 0, sizeof(*r));
	ms_ckpt_machine(dir, &m);
	rpt_setup_fill(&r->setup, &(struct rpt_setup_src){
		.version = FEEDRATE_VERSION, .m = &m, .dataset = dir,
		.gs = gs, .backend = -1, .cache = -1 });
}

int rpt_ckpt_end(const struct rpt_ckpt *r, const char *json, int err,
		 int sig)
{
	FILE *f = rpt_text_out(&json, 1);
	struct stg_stall stall;
	int ret = 0;

	rpt_ckpt_print(f, r);
	fflush(f);
	if (json) {
		json_t *j = rpt_ckpt_json(r);

		/* NULL JSON and text: the writer says out of memory */
		ret = rpt_write_report("ckpt", json, j, NULL, "JSON");
		json_decref(j);
	}
	if (sig || err == -EINTR)
		return rpt_exit_for_signal(sig ? sig : SIGINT);
	if (ldr_watchdog_stall(&stall))
		return rpt_stall_exit("ckpt", &stall);
	if (ret)
		return ret;
	if (err)
		return err == -ENOTEMPTY || err == -ENOTDIR ? FR_EXIT_USAGE :
		       FR_EXIT_ENV;
	return FR_EXIT_OK;
}
