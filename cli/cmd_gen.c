/*
 * cmd_gen.c - `feedrate gen --workload W (--size S | --files N) DIR`:
 * writes a synthetic dataset with the workload's statistics into an empty
 * (or new) folder, as ImageFolder files or as shards (--format wds, mds,
 * tfrecord); `feedrate gen --from SRC --format F DIR` converts a user's
 * ImageFolder into shards. Options and wiring only: the request is checked
 * and run by gen/gen_request.c, said by reports/report_gen.c (its --help
 * words by reports/rpt_usage.c).
 *
 * Threads: the generator's workers (--jobs; with --from, the readers);
 * the progress callback (reports/) runs in whichever worker wrote a file,
 * one call at a time. SIGINT/SIGTERM only set cli_stop, which the workers poll between
 * files; the run then stops before writing another file, so an interrupted
 * run leaves complete files only (shards: the open one is completed).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gen_write.h"
#include "rpt_steps.h"

static int gen_parse(int argc, char **argv, struct wl_gen_request *g,
		     const char **workload, bool *quiet)
{
	const struct cli_bind b[] = {
		CLI_BIND("workload", *workload),
		CLI_BIND_G("size", g->o.size_bytes, g->have_size),
		CLI_BIND_G("files", g->o.files, g->have_files),
		CLI_BIND("seed", g->o.seed),
		CLI_BIND("jobs", g->o.jobs),
		CLI_BIND("quiet", *quiet),
		CLI_BIND_G("format", g->so.format, g->have_format),
		CLI_BIND("compression", g->compression),
		CLI_BIND_G("zstd-level", g->so.zstd_level, g->have_level),
		CLI_BIND("shard-size", g->so.shard_size),
		CLI_BIND("from", g->from),
		CLI_BIND("stall-timeout", cli_stall_timeout),
	};
	char why[160];
	int ret = cli_opts_read(CLI_GEN, argc, argv, b,
				sizeof(b) / sizeof(b[0]));

	if (ret)
		return ret;
	g->so.zstd = g->compression == 1;
	if (optind >= argc)
		return cli_usage_error("gen", "missing the output folder DIR");
	if (optind + 1 < argc)
		return cli_usage_error("gen", "one output folder only");
	g->dir = argv[optind];
	return wl_gen_request_check(g, why, sizeof(why)) ?
	       cli_usage_error("gen", "%s", why) : 0;
}

/* Resolves the workload, checks the request, wires progress and stop. */
static int gen_prepare(struct wl_gen_request *g, const char *workload,
		       bool quiet, char *errpath, size_t cap)
{
	const struct wl_gen_ops *gen;
	char why[160];
	bool on_src;
	int rc = rpt_workload("gen", workload, &g->wl);

	if (rc)
		return rc;
	if (wl_gen_request_check(g, why, sizeof(why)))
		return cli_usage_error("gen", "%s", why);
	if (wl_gen_request_kind(g, &gen) != WL_GEN_SHARDS && !gen)
		return cli_usage_error("gen", "workload '%s' has no generator",
				       g->wl->name);
	if (g->from && (rc = wl_gen_from_check(g, &on_src))) {
		rpt_gen_from_failed(stderr, g->from, g->dir, rc, on_src);
		return rc == -EEXIST ? FR_EXIT_USAGE : FR_EXIT_ENV;
	}
	if (!quiet && isatty(STDERR_FILENO))
		g->o.progress = rpt_gen_progress_tty;
	g->o.stop = &cli_stop;
	g->o.err_path = errpath;
	g->o.err_path_len = cap;
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct wl_gen_request g = { .so.format = WL_FORMAT_FOLDER };
	const char *workload = "imagenet";
	char errpath[4096] = "";
	struct wl_shard_stats sst = { 0 };
	struct wl_gen_stats st = { 0 };
	struct sigaction old[2];
	bool quiet = false;
	int rc = gen_parse(argc, argv, &g, &workload, &quiet);

	if (rc || (rc = gen_prepare(&g, workload, quiet, errpath,
				    sizeof(errpath))))
		return rc < 0 ? FR_EXIT_OK : rc;
	cli_signals_catch(old);
	/* --from reads: a stall there ends gen with a report */
	if (g.from && cli_watch_start("gen", NULL, NULL, 0)) {
		cli_signals_restore(old);
		return FR_EXIT_ENV;
	}
	if (g.from)
		stg_watch_phase(STG_PHASE_SOURCE);
	rc = wl_gen_request_run(&g, &st, &sst);
	if (g.from) {
		cli_watch_claim();
		ldr_watchdog_stop();
	}
	cli_signals_restore(old);
	if (rc == -ENOTSUP)
		return cli_usage_error("gen", "workload '%s' has no image "
				       "generator to shard", g.wl->name);
	if (rc)
		return rpt_gen_request_failed(stderr, &g, rc, &st, &sst,
					      errpath, cli_stop);
	rpt_gen_request_done(stdout, &g, &st, &sst);
	return FR_EXIT_OK;
}
