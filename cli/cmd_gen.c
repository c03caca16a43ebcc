/*
 * cmd_gen.c - `feedrate gen --workload W (--size S | --files N) DIR`:
 * writes a synthetic dataset with the workload's statistics into an empty
 * (or new) folder, as ImageFolder files or as shards (--format wds, mds,
 * tfrecord); `feedrate gen --from SRC --format F DIR` converts a user's
 * ImageFolder into shards. Options and wiring only: the request is checked
 * and run by gen/gen_request.c, said by reports/report_gen.c.
 *
 * Threads: the generator's workers (--jobs; with --from, the readers);
 * the progress callback runs in whichever worker wrote a file, one call at
 * a time. SIGINT/SIGTERM only set cli_stop, which the workers poll between
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
#include "report.h"

static void gen_head(FILE *f)
{
	fprintf(f,
		"Usage: feedrate gen [options] --size SIZE DIR\n"
		"       feedrate gen [options] --files N DIR\n"
		"       feedrate gen --from SRC --format wds|mds|tfrecord DIR\n\n"
		"Writes a synthetic dataset with the statistics of a workload\n"
		"into DIR, which must be empty or absent (it is then created),\n"
		"in the workload's layout (its job file's gen and format).\n"
		"For imagenet: DIR/train/<class>/<class>_<n>.JPEG, pictures of\n"
		"ImageNet's sizes (mostly 500x375, 375x500, a tail from ~100\n"
		"to ~2000 px), ~110 KB mean, quality 85-97, 4:2:0 and 4:4:4,\n"
		"1 in 64 grayscale, 1 in 100 progressive, 1 in 500 CMYK.\n\n"
		"Formats (--format, for image workloads):\n");
	for (int i = 0; i < WL_FORMAT_COUNT; i++)
		if (wl_format_row(i)->layout)
			fprintf(f, "  %-9s %s\n", wl_format_row(i)->name,
				wl_format_row(i)->layout);
	fprintf(f,
		"Each shard is written under a hidden temporary name and renamed\n"
		"once complete: a failure or an interruption leaves complete\n"
		"shards only (mds: with an index.json listing them).\n\n");
}

static void gen_tail(FILE *f)
{
	rpt_workloads_usage(f);
}

struct gen_progress {
	bool tty;
	double last;
};

/* One updating line on a terminal, at most ten times a second. */
static void gen_progress_cb(void *arg, const struct wl_gen_stats *st,
			    bool done)
{
	struct gen_progress *p = arg;

	if (!p->tty || (!done && stg_now() - p->last < 0.1))
		return;
	p->last = stg_now();
	rpt_gen_progress(stderr, st, done);
}

static int gen_parse(int argc, char **argv, struct wl_gen_request *g,
		     const char **workload, bool *quiet)
{
	static const struct cli_usage usage = { gen_head, gen_tail };
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
	int ret = cli_opts_parse(CLI_GEN, argc, argv, b,
				 sizeof(b) / sizeof(b[0]), &usage);

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
		       struct gen_progress *prog, char *errpath, size_t cap)
{
	const struct wl_gen_ops *gen;
	char why[160];
	bool on_src;
	int rc = cli_workload("gen", workload, &g->wl);

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
	if (!g->o.jobs)
		g->o.jobs = g->from ? CLI_GEN_FROM_JOBS :
			    stg_cpus_usable() < WL_GEN_MAX_JOBS ?
			    stg_cpus_usable() : WL_GEN_MAX_JOBS;
	g->o.progress = gen_progress_cb;
	g->o.progress_arg = prog;
	g->o.stop = &cli_stop;
	g->o.err_path = errpath;
	g->o.err_path_len = cap;
	return 0;
}

/* The summary of what was written. */
static void gen_said(const struct wl_gen_request *g,
		     const struct wl_gen_stats *st,
		     const struct wl_shard_stats *sst)
{
	const struct wl_gen_ops *gen;
	const enum wl_gen_kind k = wl_gen_request_kind(g, &gen);
	const struct rpt_gen_shards sh = {
		g->from, g->dir, wl_format_name(g->so.format), g->so.zstd,
		g->so.zstd_level ? g->so.zstd_level : WL_ZSTD_DEFAULT_LEVEL,
		g->o.seed, g->o.jobs };

	/* token files: one writer (jobs 1); .bin.zst is no generator's */
	rpt_gen_done(stdout, &(struct rpt_gen_done){
		k == WL_GEN_SHARDS ? &sh : NULL, k == WL_GEN_IMAGES, g->dir,
		k == WL_GEN_TOKENS && g->so.zstd ? "uint16 .bin.zst" :
		gen ? gen->layout : "?", g->o.seed,
		k == WL_GEN_TOKENS ? 1 : g->o.jobs }, st, sst);
}

/* A failed run, said; its exit code. */
static int gen_failed(const struct wl_gen_request *g, int rc,
		      const struct wl_gen_stats *st,
		      const struct wl_shard_stats *sst, const char *errpath)
{
	const struct wl_gen_ops *gen;
	const bool shards = wl_gen_request_kind(g, &gen) == WL_GEN_SHARDS;

	if (rpt_gen_failed(stderr, &(struct rpt_gen_failure){ rc, g->dir,
			g->from, st, shards ? sst : NULL, errpath }))
		return FR_EXIT_USAGE;
	return rc == -EINTR ? rpt_exit_for_signal(cli_stop) : FR_EXIT_ENV;
}

int cmd_gen(int argc, char **argv)
{
	struct wl_gen_request g = { .o.seed = 1, .so.format = WL_FORMAT_FOLDER };
	struct gen_progress prog = { 0 };
	const char *workload = "imagenet";
	char errpath[4096] = "";
	struct wl_shard_stats sst = { 0 };
	struct wl_gen_stats st = { 0 };
	struct sigaction old[2];
	bool quiet = false;
	int rc = gen_parse(argc, argv, &g, &workload, &quiet);

	if (rc || (rc = gen_prepare(&g, workload, &prog, errpath,
				    sizeof(errpath))))
		return rc < 0 ? FR_EXIT_OK : rc;
	prog.tty = !quiet && isatty(STDERR_FILENO);
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
		return gen_failed(&g, rc, &st, &sst, errpath);
	gen_said(&g, &st, &sst);
	return FR_EXIT_OK;
}
