/*
 * cmd_gen.c - `feedrate gen --workload W (--size S | --files N) DIR`:
 * writes a synthetic dataset with the workload's statistics into an empty
 * (or new) folder, as ImageFolder files or as shards (--format wds, mds,
 * tfrecord); `feedrate gen --from SRC --format F DIR` converts a user's
 * ImageFolder into shards. The writers are in workloads/fmt_write.h.
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gen_write.h"
#include "jobfile.h"
#include "report.h"
#include "gen.h"
#include "tokens.h"
#include "workloads.h"


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
		"Formats (--format, for image workloads):\n"
		"  folder    DIR/train/<class>/<class>_<n>.JPEG\n"
		"  wds       WebDataset: DIR/shard-000000.tar, ...; per sample\n"
		"            the members KEY.jpg (the image) and KEY.cls (the\n"
		"            label in decimal), KEY = <class>/<file name\n"
		"            without its extension>\n"
		"  mds       MosaicML streaming MDS v2: DIR/index.json and\n"
		"            DIR/shard.00000.mds, ...; columns image (jpeg) and\n"
		"            label (int), as streaming's MDSWriter writes them\n"
		"  tfrecord  DIR/train-00000-of-000NN.tfrecord: tf.train.Example\n"
		"            records with image/encoded, image/format,\n"
		"            image/class/label, image/height, image/width\n"
		"Each shard is written under a hidden temporary name and renamed\n"
		"once complete: a failure or an interruption leaves complete\n"
		"shards only (mds: with an index.json listing them).\n\n");
}

static void gen_tail(FILE *f)
{
	cli_workloads_usage(f);
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
	const double t = stg_now();
	double frac, eta;

	if (!p->tty)
		return;
	if (!done && t - p->last < 0.1)
		return;
	p->last = t;
	frac = st->bytes_target ? (double)st->bytes / st->bytes_target :
		st->files_target ? (double)st->files / st->files_target : 0;
	if (frac > 1)
		frac = 1;
	eta = frac > 0 ? st->elapsed_s * (1 - frac) / frac : 0;
	fprintf(stderr, "\r\033[Kgen: %llu files, %.1f MB (%3.0f %%), "
		"%.0f files/s, %.1f MB/s, ETA %.0f s",
		(unsigned long long)st->files, st->bytes / 1e6, frac * 100,
		st->elapsed_s > 0 ? st->files / st->elapsed_s : 0,
		st->elapsed_s > 0 ? st->bytes / 1e6 / st->elapsed_s : 0, eta);
	if (done)
		fputc('\n', stderr);
}

/* Options that do not go together; 0 or FR_EXIT_USAGE. */
static int gen_check(const struct gen_opts *g)
{
	const enum wl_format f = g->so.format;

	if (g->from && f == WL_FORMAT_FOLDER)
		return cli_usage_error("gen", "--from needs --format wds, mds "
				       "or tfrecord (SRC is an ImageFolder "
				       "already)");
	if (g->from && (g->have_size || g->have_files))
		return cli_usage_error("gen", "--from converts every image of "
				       "SRC: no --size or --files");
	if (!g->from && g->have_size == g->have_files)
		return cli_usage_error("gen", "give exactly one of --size and "
				       "--files");
	if (f == WL_FORMAT_FOLDER && g->so.shard_size)
		return cli_usage_error("gen", "--shard-size is for --format "
				       "wds, mds, tfrecord");
	if (g->so.zstd && f == WL_FORMAT_TFRECORD)
		return cli_usage_error("gen", "--compression zstd is for wds "
				       "and mds (TFRecord has no zstd form)");
	if (g->have_level && !g->so.zstd)
		return cli_usage_error("gen", "--zstd-level needs --compression "
				       "zstd");
	if (f == WL_FORMAT_MDS && g->so.shard_size >= (1ull << 32))
		return cli_usage_error("gen", "--shard-size for mds must be "
				       "under 4G (MDS offsets are 32-bit)");
	return 0;
}

static int gen_parse(int argc, char **argv, struct gen_opts *g)
{
	static const struct cli_usage usage = { gen_head, gen_tail };
	const struct cli_bind b[] = {
		CLI_BIND("workload", g->workload),
		CLI_BIND_G("size", g->o.size_bytes, g->have_size),
		CLI_BIND_G("files", g->o.files, g->have_files),
		CLI_BIND("seed", g->o.seed),
		CLI_BIND("jobs", g->o.jobs),
		CLI_BIND("quiet", g->quiet),
		CLI_BIND_G("format", g->so.format, g->have_format),
		CLI_BIND("compression", g->compression),
		CLI_BIND_G("zstd-level", g->so.zstd_level, g->have_level),
		CLI_BIND("shard-size", g->so.shard_size),
		CLI_BIND("from", g->from),
		CLI_BIND("stall-timeout", cli_stall_timeout),
	};
	int ret;

	memset(g, 0, sizeof(*g));
	g->workload = "imagenet";
	g->o.seed = 1;
	g->so.format = WL_FORMAT_FOLDER;
	ret = cli_opts_parse(CLI_GEN, argc, argv, b, sizeof(b) / sizeof(b[0]),
			     &usage);
	if (ret)
		return ret;
	g->so.zstd = g->compression == 1;
	if (optind >= argc)
		return cli_usage_error("gen", "missing the output folder DIR");
	if (optind + 1 < argc)
		return cli_usage_error("gen", "one output folder only");
	g->dir = argv[optind];
	return gen_check(g);
}

static const char *gen_format_name(const struct gen_opts *g)
{
	return g->so.format == WL_FORMAT_WDS ? "wds" :
	       g->so.format == WL_FORMAT_MDS ? "mds" : "tfrecord";
}

int cmd_gen(int argc, char **argv)
{
	const struct wl_workload *w;
	const struct wl_gen_ops *gen;
	struct gen_progress prog = { 0 };
	struct sigaction old[2];
	struct wl_gen_stats st;
	struct wl_shard_stats sst;
	struct gen_opts g;
	char errpath[4096] = "";
	bool shards;
	int rc = gen_parse(argc, argv, &g);

	if (rc)
		return rc < 0 ? FR_EXIT_OK : rc;
	if ((rc = cli_workload("gen", g.workload, &w)))
		return rc;
	g.wl = w;
	if ((rc = cli_gen_format(&g)))
		return rc;
	shards = g.so.format != WL_FORMAT_FOLDER;
	/* an image workload's folder is ImageFolder JPEGs, whatever layout
	 * its own generator writes */
	gen = w->image_spec ? wl_gen_find("imagefolder-jpeg")->ops : w->gen;
	if (!g.from && !shards && !gen)
		return cli_usage_error("gen", "workload '%s' has no generator",
				       w->name);
	if (g.from && (rc = cli_gen_from_check(&g)))
		return rc;
	if (!g.o.jobs && g.from)
		g.o.jobs = CLI_GEN_FROM_JOBS;
	if (!g.o.jobs)
		g.o.jobs = stg_cpus_usable() < WL_GEN_MAX_JOBS ?
			   stg_cpus_usable() : WL_GEN_MAX_JOBS;
	prog.tty = !g.quiet && isatty(STDERR_FILENO);
	g.o.progress = gen_progress_cb;
	g.o.progress_arg = &prog;
	g.o.stop = &cli_stop;
	g.o.err_path = errpath;
	g.o.err_path_len = sizeof(errpath);
	cli_signals_catch(old);
	/* --from reads: a stall there ends gen with a report */
	if (g.from && cli_watch_start("gen", NULL, NULL, 0)) {
		cli_signals_restore(old);
		return FR_EXIT_ENV;
	}
	if (g.from) {
		stg_watch_phase(STG_PHASE_SOURCE);
		rc = wl_shards_from_folder(g.from, g.dir, &g.o, &g.so, &st,
					   &sst);
		cli_watch_claim();
		cli_watch_stop();
	} else if (shards)
		rc = wl_gen_shards(w, g.dir, &g.o, &g.so, &st, &sst);
	else if (gen_tokens(&g))
		rc = wl_gen_tokens_write(w, g.dir, &g.o, g.so.zstd,
					 g.so.zstd_level, &st);
	else
		rc = gen->generate(w, g.dir, &g.o, &st);
	cli_signals_restore(old);
	if (rc == -ENOTSUP)
		return cli_usage_error("gen", "workload '%s' has no image "
				       "generator to shard", w->name);
	if (rc)
		return cli_gen_failed(&g, rc, &st, shards ? &sst : NULL, errpath);
	if (shards) {
		rpt_gen_print_shards(stdout, &(struct rpt_gen_shards){
			.from = g.from, .dir = g.dir,
			.format = gen_format_name(&g), .zstd = g.so.zstd,
			.zstd_level = g.so.zstd_level ? g.so.zstd_level :
				      WL_ZSTD_DEFAULT_LEVEL,
			.seed = g.o.seed, .jobs = g.o.jobs }, &st, &sst);
	} else if (gen_tokens(&g)) {
		rpt_gen_print_files(stdout, g.dir, g.so.zstd ?
				    "uint16 .bin.zst" : gen->layout, &st,
				    g.o.seed, 1);
	} else if (w->image_spec) {
		rpt_gen_print(stdout, g.dir, &st, g.o.seed, g.o.jobs);
	} else {
		rpt_gen_print_files(stdout, g.dir, gen->layout, &st, g.o.seed,
				    g.o.jobs);
	}
	return FR_EXIT_OK;
}
